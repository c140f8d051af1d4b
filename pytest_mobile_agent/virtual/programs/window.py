"""The window manager's and SurfaceFlinger's tools: `wm density [N|reset]` ("Physical density: 420",
then "Override density: N" when set), `wm size [WxH|reset]` ("Physical size: 1080x2400"),
`wm user-rotation [free|lock [ROTATION]]` (android/rotation.py), `wm dismiss-keyguard`, and
`screencap [-p] [FILE]` (a PNG of the display, or raw RGBA with the 16-byte header without -p and
a file name that is not .png)."""

from __future__ import annotations

import io
import struct

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal


def wm(framework: Framework, proc: pm.Process, args: list[str] | None = None) -> int:
    args = proc.argv[1:] if args is None else args
    display = framework.display
    if not args:
        proc.stdout.write("Window manager (window) commands:\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n"
                          "  density [reset|DENSITY] [-d DISPLAY_ID]\n")
        return 0
    command, rest = args[0], _without_display(args[1:])
    if command == "density":
        if not rest:
            out = f"Physical density: {display.physical_density}\n"
            if display.override_density is not None:
                out += f"Override density: {display.override_density}\n"
            proc.stdout.write(out)
            return 0
        if rest[0] == "reset":
            display.override_density = None
            display.changed()
            return 0
        if not is_decimal(rest[0]) or int(rest[0]) <= 0:
            proc.stderr.write(f"Error: bad number {rest[0]}\n")
            return 255
        value = int(rest[0])
        display.override_density = None if value == display.physical_density else value
        display.changed()
        return 0
    if command == "size":
        if not rest:
            out = f"Physical size: {display.physical_width}x{display.physical_height}\n"
            if display.override_size is not None:
                out += f"Override size: {display.override_size[0]}x{display.override_size[1]}\n"
            proc.stdout.write(out)
            return 0
        if rest[0] == "reset":
            display.override_size = None
            display.changed()
            return 0
        width, sep, height = rest[0].partition("x")
        if not (sep and is_decimal(width) and is_decimal(height)):
            proc.stderr.write(f"Error: bad size {rest[0]}\n")
            return 255
        size = (int(width), int(height))
        display.override_size = None if size == (display.physical_width, display.physical_height) else size
        display.changed()
        return 0
    if command == "user-rotation":
        return _user_rotation(framework, proc, rest)
    if command == "dismiss-keyguard":  # IWindowManager.dismissKeyguard: an insecure keyguard goes
        framework.state.power.dismiss_keyguard()
        return 0
    proc.stderr.write(f"Unknown command: {command}\n")
    return 255


def _without_display(args: list[str]) -> list[str]:
    """The arguments without `-d DISPLAY_ID` (the default display is the only one here)."""
    rest, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-d":
            skip = True
        else:
            rest.append(arg)
    return rest


def _user_rotation(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    """WindowManagerShellCommand.runDisplayUserRotation: `free`, `lock [ROTATION]`, or the state."""
    rotation = framework.state.rotation
    if not args:
        proc.stdout.write(rotation.describe() + "\n")
        return 0
    if args[0] == "free":
        rotation.free()
        return 0
    if args[0] != "lock":
        proc.stderr.write("Error: argument needs to be either -d, free or lock.\n")
        return 255
    try:
        rotation.lock(int(args[1]) if len(args) > 1 else -1)
    except ValueError as exc:
        message = str(exc) if len(args) < 2 or args[1].lstrip("-").isdigit() else f'For input string: "{args[1]}"'
        proc.stderr.write(f"Error: {message}\n")
        return 255
    return 0


def screencap(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    png = "-p" in args
    files = [a for a in args if not a.startswith("-")]
    image = framework.display.render()
    if files and files[0].endswith(".png"):
        png = True
    if png:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=1)
        data = buffer.getvalue()
    else:
        rgba = image.convert("RGBA")
        data = struct.pack("<IIII", rgba.width, rgba.height, 1, 0) + rgba.tobytes()
    if files:
        try:
            framework.system.fs.write_file(framework.system.fs.normalize(files[0], proc.cwd), data, cred_of(proc))
        except OSError as exc:
            proc.stderr.write(f"Error opening file: {files[0]} ({exc.strerror})\n")
            return 1
        return 0
    proc.stdout.write(data)
    return 0
