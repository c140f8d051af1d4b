"""toybox on the device: the multiplexer (`toybox NAME ARGS`, `toybox` listing the applets,
`--version`) and the table of the applets written against the device's model, in the image's order:
text (programs/text.py), file entries (programs/fileops.py), the small utilities
(programs/shellutils.py), processes (programs/processes.py), ls, ps and tr. The data tools run the
real toybox (programs/hosttools.py); the file and command tools are programs/files.py and
programs/commands.py.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import TOYBOX_APPLETS
from pytest_mobile_agent.virtual.kernel.system import System, SystemProgram
from pytest_mobile_agent.virtual.programs import fileops, ls, processes, ps, shellutils, text, tr

TOYBOX_VERSION = "0.8.11-android"  # what `toybox --version` prints on the emulator's image


def toybox(system: System, proc: pm.Process) -> int:
    """The multiplexer: `toybox NAME ARGS` runs the applet NAME, `toybox` lists the applets
    this device has (wrapped as main.c's toybox_main does: a newline once a line passes 65
    columns), `--version` names Android's build (main.c: "toybox 0.8.11-android")."""
    args = proc.argv[1:]
    if args and args[0] == "--version":
        proc.stdout.write(f"toybox {TOYBOX_VERSION}\n")
        return 0
    if args:
        name = args[0].rsplit("/", 1)[-1]
        program = system.programs.get(name) if name in TOYBOX_APPLETS else None
        if program is None:
            proc.stderr.write(f'toybox: Unknown command {args[0]} (see "toybox --help")\n')
            return 127
        proc.exec_image(args)
        return program(proc)
    names = sorted(n for n in system.programs.names() if n in TOYBOX_APPLETS)
    out, width = [], 0
    for name in names:
        width += len(name) + 1
        out.append(name + ("\n" if width > 65 else " "))
        if width > 65:
            width = 0
    proc.stdout.write("".join(out) + "\n")
    return 0


APPLETS: dict[str, SystemProgram] = {
    "cat": text.cat, "sleep": shellutils.sleep, "tty": shellutils.tty, "id": processes.id_,
    "whoami": processes.whoami, "rm": fileops.rm, "ls": ls.ls, "mkdir": fileops.mkdir, "chmod": fileops.chmod,
    "stat": fileops.stat, "touch": fileops.touch, "env": shellutils.env, "kill": processes.kill,
    "true": shellutils.true, "false": shellutils.false, "echo": shellutils.echo, "uname": shellutils.uname,
    "ps": ps.ps, "grep": text.grep, "head": text.head, "wc": text.wc, "pidof": processes.pidof,
    "pgrep": processes.pgrep, "date": shellutils.date, "nohup": processes.nohup, "setsid": processes.setsid,
    "timeout": processes.timeout, "which": shellutils.which, "basename": shellutils.basename,
    "dirname": shellutils.dirname, "seq": shellutils.seq, "toybox": toybox, "tr": tr.tr,
}
