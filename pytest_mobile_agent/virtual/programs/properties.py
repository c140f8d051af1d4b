"""`getprop [NAME [DEFAULT]]` and `setprop NAME VALUE` (root, or `debug.`/`persist.debug.`/`log.tag`
names; a read-only `ro.` property that is set cannot change), as init's property service answers."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm


def getprop(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    if not args:
        proc.stdout.write("".join(f"[{k}]: [{v}]\n" for k, v in sorted(framework.system.properties.items())))
        return 0
    default = args[1] if len(args) > 1 else ""
    proc.stdout.write(framework.system.properties.get(args[0], default) + "\n")
    return 0


def setprop(framework: Framework, proc: pm.Process) -> int:
    if len(proc.argv) != 3:
        proc.stderr.write("usage: setprop NAME VALUE\n\nSets an Android system property.\n")
        return 1
    name, value = proc.argv[1], proc.argv[2]
    if proc.uid != 0 and not name.startswith(("debug.", "persist.debug.", "log.tag")):
        proc.stderr.write(f"setprop: failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.\n")
        return 1
    if name.startswith("ro.") and name in framework.system.properties:
        proc.stderr.write(f"setprop: failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.\n")
        return 1
    framework.system.properties[name] = value
    return 0
