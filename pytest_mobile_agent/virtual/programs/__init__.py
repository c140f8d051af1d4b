"""The programs of the virtual device, one module per tool family, each a table of module-level
functions (see docs/architecture.md, "virtual"):

* toybox (`toybox.APPLETS`): text.py, fileops.py, shellutils.py, processes.py, ls.py, ps.py, tr.py;
* the real toybox and awk on staged copies (`hosttools.PROGRAMS`), files.py (cp, mv, ln, tee, dd,
  du, df, mount), commands.py (find, xargs), net.py (ip, ifconfig, nc);
* the Android tools (`android.TOOLS`): properties.py, window.py, activity.py, packages.py, cmd.py,
  input.py, automation.py, runtime.py, logcat.py, dumpsys.py, settings.py, and su in processes.py.

A toybox-family program is `fn(system, proc) -> status` (the kernel's services, kernel/system.py);
an Android tool is `fn(framework, proc) -> status` (the framework's, android/framework.py).
`install` binds each to its device and registers it, in the image's order.
"""

from __future__ import annotations

import functools

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel.binaries import ProgramRegistry
from pytest_mobile_agent.virtual.programs import (
    android,
    commands,
    files,
    hosttools,
    net,
    packages,
    toybox,
)


def install(programs: ProgramRegistry, framework: Framework) -> None:
    """Every program above, bound to `framework` (and its kernel services), in `programs`."""
    system = framework.system
    for table in (toybox.APPLETS, hosttools.PROGRAMS, files.PROGRAMS, commands.PROGRAMS, net.PROGRAMS):
        for name, program in table.items():
            programs.register(name, functools.partial(program, system))
    for name, tool in android.TOOLS.items():
        programs.register(name, functools.partial(tool, framework))
    # toybox's sha256sum, written against the model (hashing an installed APK in place)
    programs.register("sha256sum", functools.partial(packages.sha256sum, system))
