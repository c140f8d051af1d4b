"""What a program and the shell reach of the device: the kernel's services, nothing above them.

A program is `fn(proc) -> int`; the device binds each to the `System` it runs on (see
`programs/`), so a program sees the files, the process table, the installed programs, the sockets
and the system properties, and never the Android services or the fronts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pytest_mobile_agent.virtual.kernel.binaries import ProgramRegistry
from pytest_mobile_agent.virtual.kernel.fs import FileSystem
from pytest_mobile_agent.virtual.kernel.process import Process, ProcessTable
from pytest_mobile_agent.virtual.kernel.sockets import SocketNamespace
from pytest_mobile_agent.virtual.kernel.streams import Kernel


@dataclass(frozen=True)
class System:
    """The kernel's services of one device."""

    kernel: Kernel
    fs: FileSystem
    processes: ProcessTable
    programs: ProgramRegistry
    sockets: SocketNamespace
    #: the system properties (bionic's property area: every process reads it; init and the
    #: framework write it, see android/properties.py)
    properties: dict[str, str]


#: a program written against the kernel's services: `program(system, proc) -> status`
SystemProgram = Callable[[System, Process], int]
