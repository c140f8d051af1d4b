"""The `sh` program: `sh -c SCRIPT [NAME ARGS...]`, `sh FILE [ARGS...]`, or a script read from
standard input (`sh -`, what adbd starts for an empty command)."""

from __future__ import annotations

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import Program
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.shell.interpreter import Interpreter
from pytest_mobile_agent.virtual.shell.state import SHELL_PATH, ShellState


def sh_main(system: System) -> Program:
    """The `sh` program: `sh -c SCRIPT [NAME ARGS...]`, or a script read from standard input."""

    def main(proc: pm.Process) -> int:
        argv = proc.argv
        state = ShellState(name=argv[0] if argv else SHELL_PATH, shell_pid=proc.pid)
        state.vars.update(proc.env)
        state.exported.update(proc.env)
        args = argv[1:]
        if args and args[0] == "-c":
            if len(args) < 2:
                proc.stderr.write(f"{state.name}: -c: option requires an argument\n")
                return 1
            script = args[1]
            if len(args) > 2:
                state.name = args[2]
                state.positional = args[3:]
            return Interpreter(system, proc, state).run_script(script, top=True)
        if args and args[0] not in ("-", "-s", "-i"):
            return _run_file(system, proc, state, args)
        return Interpreter(system, proc, state).run_interactive()

    return main


def _run_file(system: System, proc: pm.Process, state: ShellState, args: list[str]) -> int:
    """`sh FILE [ARGS...]`: the file's text as a script, $0 the file, $1... the arguments."""
    path = system.fs.normalize(args[0], proc.cwd)
    try:
        text = system.fs.read_file(path, cred_of(proc)).decode(errors="replace")
    except OSError as exc:
        proc.stderr.write(f"{state.name}: {args[0]}: {exc.strerror}\n")
        return 127
    state.name, state.positional = args[0], args[1:]
    return Interpreter(system, proc, state).run_script(text, top=False)
