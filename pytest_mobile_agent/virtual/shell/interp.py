"""The interpreter of the device shell (Android's /system/bin/sh, mksh) over the virtual process model.

Builtins run in the shell's own process, as mksh's do: `echo`, `printf`, `read`, `trap`, `exec`,
`exit`, `kill`, `cd`, `pwd`, `export`, `unset`, `shift`, `wait`, `test`/`[`, `command -v`, `true`,
`false`, `:`, `break`, `continue`, `return`; `if`/`elif`/`else`, `while`, `until`, `for`, `case`
and functions (`name() { ...; }`, with their own positional parameters) run in the shell too. Everything else is a program of `device.programs` (toybox and the Android tools),
run in a forked child process, which the shell waits for unless the command ends with `&`.

Words expand as POSIX says: parameters and `$(...)`, field splitting of unquoted results on IFS,
then pathname expansion (`*`, `?`, `[...]`, hidden names only for a leading `.`, a pattern that
matches nothing stays as it is) against the device's files with the shell's permissions.
`VAR=x cmd` puts VAR in cmd's environment only (for a builtin, in the shell for its duration).

Process structure follows the real shell: `( ... )` forks a subshell, `cmd &` forks a child (whose
standard input is /dev/null unless redirected, since the shell has no job control), a pipeline
forks one child per command, `$(...)` forks a child whose output the shell reads, `exec cmd`
replaces the current process (same pid). A `sh -c` script, subshell or background job that is one
simple command runs that command in its own process without another fork, as mksh does for the
last command of `-c`, so SIGHUP to the shell adbd started reaches `sleep 60` itself.

An unknown command prints `<$0>: NAME: inaccessible or not found` (`/system/bin/sh: foo: ...` for a
shell adbd started) and has status 127; a file without an execute bit `<$0>: NAME: can't execute:
Permission denied` and 126; an executable shell script (`#!/system/bin/sh` or no `#!` line) runs
as `sh FILE ARGS`; a syntax error prints `<$0>: syntax error: ...` and the
script exits 1; a failed redirection prints `<$0>: can't create PATH: <strerror>` (or `can't
open`) and the command has status 1. Traps: `trap '' SIGS` ignores (inherited by children and
kept across exec), `trap - SIGS` restores the default, `trap 'cmd' SIGS` runs cmd after the
current foreground command, `trap 'cmd' EXIT` runs at the end.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import Cred, cred_of
from pytest_mobile_agent.virtual.kernel.fs import BytesFile
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import NullFile, OpenFile, Pipe
from pytest_mobile_agent.virtual.shell import arith
from pytest_mobile_agent.virtual.shell import parser as ast
from pytest_mobile_agent.virtual.shell.syntax import ShellSyntaxError

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice

Program = Callable[[pm.Process], int]
SHELL_PATH = "/system/bin/sh"


class _LoopControl(Exception):  # noqa: N818 - control flow: break / continue
    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


class _Return(Exception):  # noqa: N818 - control flow: return from a function
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _ExitShell(Exception):  # noqa: N818 - control flow
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class ShellState:
    """What a subshell copies: variables, exports, positional parameters, traps."""

    name: str = SHELL_PATH
    vars: dict[str, str] = field(default_factory=dict)
    exported: set[str] = field(default_factory=set)
    positional: list[str] = field(default_factory=list)
    last_status: int = 0
    last_bg: int | None = None
    shell_pid: int = 0
    traps: dict[int, str] = field(default_factory=dict)  # 0 is EXIT; only commands, not ignores
    children: list[pm.Process] = field(default_factory=list)
    cmdsub_status: int | None = None  # the status of the last $(...) of the current command
    functions: dict[str, ast.Command] = field(default_factory=dict)

    def copy_for_subshell(self) -> ShellState:
        return ShellState(
            name=self.name,
            vars=dict(self.vars),
            exported=set(self.exported),
            positional=list(self.positional),
            last_status=self.last_status,
            last_bg=self.last_bg,
            shell_pid=self.shell_pid,
            traps={},
            functions=dict(self.functions),
        )

    def environ(self) -> dict[str, str]:
        return {k: self.vars[k] for k in self.exported if k in self.vars}


def sh_main(device: VirtualDevice) -> Program:
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
            return Interpreter(device, proc, state).run_script(script, top=True)
        if args and args[0] not in ("-", "-s", "-i"):
            return _run_file(device, proc, state, args)
        return Interpreter(device, proc, state).run_interactive()

    return main


def _run_file(device: VirtualDevice, proc: pm.Process, state: ShellState, args: list[str]) -> int:
    """`sh FILE [ARGS...]`: the file's text as a script, $0 the file, $1... the arguments."""
    path = device.fs.normalize(args[0], proc.cwd)
    try:
        text = device.fs.read_file(path, cred_of(proc)).decode(errors="replace")
    except OSError as exc:
        proc.stderr.write(f"{state.name}: {args[0]}: {exc.strerror}\n")
        return 127
    state.name, state.positional = args[0], args[1:]
    return Interpreter(device, proc, state).run_script(text, top=False)


def _may_execute(info: object, cred: Cred) -> bool:
    mode = getattr(info, "mode", 0)
    if cred.root:
        return bool(mode & 0o111)
    if getattr(info, "uid", -1) == cred.uid:
        return bool(mode & 0o100)
    if getattr(info, "gid", -1) in cred.groups:
        return bool(mode & 0o010)
    return bool(mode & 0o001)


class Interpreter:
    """Runs parsed scripts in one process (the shell or one of its subshells)."""

    def __init__(self, device: VirtualDevice, proc: pm.Process, state: ShellState) -> None:
        self.device = device
        self.proc = proc
        self.state = state
        self.pending_traps: list[int] = []
        self.loop_depth = 0

    # --- entry points -------------------------------------------------------------------------------

    def run_script(self, text: str, *, top: bool) -> int:
        try:
            tree = ast.parse(text)
        except ShellSyntaxError as exc:
            self.err(f"{self.state.name}: {exc.message}\n")
            return 1
        try:
            if top and self._single_external(tree) is not None:
                return self._exec_simple(self._single_external(tree))  # type: ignore[arg-type]
            status = self.run_list(tree)
        except _ExitShell as done:
            status = done.status
        return self._run_exit_trap(status)

    def run_interactive(self) -> int:
        """`sh -` (what adbd starts for an empty command): one line at a time from stdin, with
        mksh's prompt (`emu64xa:/ $ `, `#` for root) when stdin is a terminal; a line left open
        (an unclosed quote or a trailing `|`, `&&`) waits for the next one."""
        stdin = self.proc.stdin
        tty = stdin.isatty()
        host = self.device.getprop("ro.product.device", "localhost")
        pending = ""
        status = 0
        while True:
            if tty:
                mark = "#" if self.proc.uid == 0 else "$"
                prompt = "> " if pending else f"{host}:{self.proc.cwd} {mark} "
                try:
                    self.proc.stdout.write(prompt)
                except OSError:
                    return status
            line = stdin.readline()
            if not line:
                return self._run_exit_trap(status)
            pending += line.decode(errors="replace")
            try:
                tree = ast.parse(pending)
            except ShellSyntaxError as exc:
                if "EOF" in exc.message or "closing quote" in exc.message or "unmatched" in exc.message:
                    continue
                self.err(f"{self.state.name}: {exc.message}\n")
                pending = ""
                status = self.state.last_status = 1
                continue
            pending = ""
            try:
                status = self.run_list(tree)
            except _ExitShell as done:
                return self._run_exit_trap(done.status)

    def _run_exit_trap(self, status: int) -> int:
        action = self.state.traps.pop(0, None)
        if action:
            with contextlib.suppress(_ExitShell, ShellSyntaxError):
                self.run_list(ast.parse(action))
        return status

    def run_in_child(self, node: ast.ListNode | ast.AndOr | ast.Command) -> int:
        """The body of a forked child (subshell, background job, pipeline member)."""
        try:
            single = self._single_external(node)
            if single is not None:
                return self._exec_simple(single)
            if isinstance(node, ast.ListNode):
                status = self.run_list(node)
            elif isinstance(node, ast.AndOr):
                status = self.run_and_or(node)
            else:
                status = self.run_command(node)
        except _ExitShell as done:
            status = done.status
        return self._run_exit_trap(status)

    def _single_external(self, node: object) -> ast.Simple | None:
        """The one simple external command a node consists of, if so (mksh's exec of it)."""
        if self.state.traps:
            return None
        if isinstance(node, ast.ListNode):
            if len(node.items) != 1 or node.items[0].background:
                return None
            node = node.items[0].and_or
        if isinstance(node, ast.AndOr):
            if node.rest or len(node.first.commands) != 1 or node.first.negate:
                return None
            node = node.first.commands[0]
        if not isinstance(node, ast.Simple) or not node.words:
            return None
        name = node.words[0].literal()
        if name is None or name in BUILTINS or name == "exec" or name in self.state.functions:
            return None
        if any(isinstance(p, ast.CmdSub) for w in (*node.words, *(a.value for a in node.assigns)) for p in w.parts):
            return None
        return node

    def _exec_simple(self, command: ast.Simple) -> int:
        """Run one external command in this very process (no fork)."""
        argv = self.expand_words(command.words)
        env = self._command_env(command)
        if not argv:
            return 0
        if self.apply_redirects(command.redirects, permanent=True) is None:
            return 1
        program = self.lookup(argv[0])
        if isinstance(program, str):
            self.err(program)
            return self.not_found_status(program)
        self.proc.exec_image(argv, env)
        return program(self.proc)

    # --- output helpers -------------------------------------------------------------------------------

    def err(self, text: str) -> None:
        with contextlib.suppress(OSError, pm.Interrupted):
            self.proc.stderr.write(text)

    def out(self, text: str | bytes) -> None:
        self.proc.stdout.write(text)

    # --- lists and pipelines ----------------------------------------------------------------------------

    def run_list(self, node: ast.ListNode) -> int:
        status = self.state.last_status
        for item in node.items:
            if item.background:
                self._start_background(item.and_or)
                status = 0
            else:
                try:
                    status = self.run_and_or(item.and_or)
                except pm.Interrupted as interrupted:  # a trapped signal ended a blocking builtin
                    self.pending_traps.append(interrupted.sig)
                    status = 128 + interrupted.sig
            self.state.last_status = status
            self._run_pending_traps()
        return status

    def _start_background(self, and_or: ast.AndOr) -> None:
        child = self.device.processes.fork(self.proc)
        if not self._redirects_stdin(and_or):
            child.set_fd(0, NullFile())
        sub = Interpreter(self.device, child, self.state.copy_for_subshell())
        child.start(lambda p: sub.run_in_child(and_or))
        self.state.last_bg = child.pid
        self.state.children.append(child)

    @staticmethod
    def _redirects_stdin(and_or: ast.AndOr) -> bool:
        if and_or.rest or len(and_or.first.commands) != 1:
            return False
        command = and_or.first.commands[0]
        return any(r.fd == 0 for r in getattr(command, "redirects", ()))

    def run_and_or(self, node: ast.AndOr) -> int:
        status = self.run_pipeline(node.first)
        for op, pipeline in node.rest:
            self.state.last_status = status
            if (op == "&&" and status == 0) or (op == "||" and status != 0):
                status = self.run_pipeline(pipeline)
        return status

    def run_pipeline(self, node: ast.Pipeline) -> int:
        if len(node.commands) == 1:
            status = self.run_command(node.commands[0])
        else:
            status = self._run_piped(node.commands)
        return (0 if status else 1) if node.negate else status

    def _run_piped(self, commands: tuple[ast.Command, ...]) -> int:
        table = self.device.processes
        children: list[pm.Process] = []
        previous: OpenFile | None = None
        for index, command in enumerate(commands):
            child = table.fork(self.proc)
            if previous is not None:
                child.set_fd(0, previous)
                previous = None
            if index < len(commands) - 1:
                pipe = Pipe(self.proc.kernel)
                child.set_fd(1, pipe.open_writer())
                previous = pipe.open_reader()
            sub = Interpreter(self.device, child, self.state.copy_for_subshell())
            child.start(_child_body(sub, command))
            children.append(child)
        status = 0
        for child in children:
            status = self.wait_child(child)
        return status

    def wait_child(self, child: pm.Process) -> int:
        while True:
            try:
                result = self.proc.wait_for(child)
                return result if result is not None else 0
            except pm.Interrupted as interrupted:
                self.pending_traps.append(interrupted.sig)

    def _run_pending_traps(self) -> None:
        while True:
            sig = self.proc.signals.take()
            if sig is not None:
                self.pending_traps.append(sig)
                continue
            break
        while self.pending_traps:
            sig = self.pending_traps.pop(0)
            action = self.state.traps.get(sig)
            if action:
                saved = self.state.last_status
                self.run_list(ast.parse(action))
                self.state.last_status = saved

    # --- commands -----------------------------------------------------------------------------------

    def run_command(self, node: ast.Command) -> int:
        if isinstance(node, ast.Simple):
            return self.run_simple(node)
        if isinstance(node, ast.FuncDef):
            self.state.functions[node.name] = node.body
            return 0
        if isinstance(node, ast.Subshell):
            child = self.device.processes.fork(self.proc)
            sub = Interpreter(self.device, child, self.state.copy_for_subshell())
            if sub.apply_redirects(node.redirects, permanent=True) is None:
                self.device.processes.exit(child, 1)
                return 1
            with self.proc.kernel.lock:
                child.start(lambda p: sub.run_in_child(node.body))
                return self.wait_child(child)
        saved = self.apply_redirects(node.redirects, permanent=False)
        if saved is None:
            return 1
        try:
            if isinstance(node, ast.Group):
                return self.run_list(node.body)
            if isinstance(node, ast.If):
                return self._run_if(node)
            if isinstance(node, ast.Case):
                return self._run_case(node)
            return self._run_loop(node)
        finally:
            self.restore(saved)

    def _run_case(self, node: ast.Case) -> int:
        value = self.expand_string(node.word)
        for patterns, body in node.items:
            for pattern in patterns:
                if fnmatch.fnmatchcase(value, self.pattern_of(pattern)):
                    return self.run_list(body) if body.items else 0
        return 0

    def pattern_of(self, word: ast.Word) -> str:
        """A case pattern: expansions done, quoted characters matched literally."""
        out: list[str] = []
        for part in word.parts:
            if isinstance(part, ast.Lit):
                text = part.text
            elif isinstance(part, ast.Param):
                text = self._param_value(part)
            elif isinstance(part, ast.Arith):
                text = self.arithmetic(part)
            else:
                text = self.command_substitution(part.body)
            out.append(_glob_escape(text) if part.quoted else text)
        return "".join(out)

    def call_function(self, body: ast.Command, argv: list[str], command: ast.Simple) -> int:
        saved_positional = self.state.positional
        self.state.positional = argv[1:]
        redirects = self.apply_redirects(command.redirects, permanent=False)
        if redirects is None:
            self.state.positional = saved_positional
            return 1
        try:
            return self.run_command(body)
        except _Return as returned:
            return returned.status
        finally:
            self.restore(redirects)
            self.state.positional = saved_positional

    def _run_if(self, node: ast.If) -> int:
        for condition, body in node.branches:
            if self.run_list(condition) == 0:
                return self.run_list(body)
        return self.run_list(node.otherwise) if node.otherwise is not None else 0

    def _run_loop(self, node: ast.Loop | ast.For) -> int:
        status = 0
        if isinstance(node, ast.For):
            values = self.expand_words(node.words) if node.words is not None else list(self.state.positional)
            iterations: list[str | None] = list(values)
        else:
            iterations = []
        index = 0
        self.loop_depth += 1
        try:
            while True:
                if isinstance(node, ast.For):
                    if index >= len(iterations):
                        return status
                    self.state.vars[node.name] = iterations[index] or ""
                    index += 1
                else:
                    condition = self.run_list(node.condition)
                    if (condition == 0) == node.until:
                        return status
                try:
                    status = self.run_list(node.body)
                except _LoopControl as control:
                    if control.levels > 1:
                        control.levels -= 1
                        raise
                    if control.kind == "break":
                        return 0
        finally:
            self.loop_depth -= 1

    def _command_env(self, command: ast.Simple) -> dict[str, str]:
        env = self.state.environ()
        for assign in command.assigns:
            env[assign.name] = self.expand_string(assign.value)
        return env

    def run_simple(self, command: ast.Simple) -> int:
        self.state.cmdsub_status = None
        argv = self.expand_words(command.words)
        if not argv:
            for assign in command.assigns:
                self.state.vars[assign.name] = self.expand_string(assign.value)
            saved = self.apply_redirects(command.redirects, permanent=False)
            if saved is None:
                return 1
            self.restore(saved)
            sub_status = self.state.cmdsub_status
            return sub_status if sub_status is not None else 0
        name = argv[0]
        if name == "exec":
            return self._builtin_exec(command, argv[1:])
        function = self.state.functions.get(name)
        if function is not None:
            return self.call_function(function, argv, command)
        builtin = BUILTINS.get(name)
        if builtin is not None:
            return self._run_builtin(builtin, command, argv)
        program = self.lookup(name)
        if isinstance(program, str):
            saved = self.apply_redirects(command.redirects, permanent=False)
            if saved is None:
                return 1
            self.err(program)  # the child's stderr, after its redirections, says it
            self.restore(saved)
            return self.not_found_status(program)
        env = self._command_env(command)
        child = self.device.processes.fork(self.proc, argv=argv)
        sub = Interpreter(self.device, child, self.state.copy_for_subshell())
        if sub.apply_redirects(command.redirects, permanent=True) is None:
            self.device.processes.exit(child, 1)
            return 1
        child.exec_image(argv, env)
        with self.proc.kernel.lock:  # the child runs once the shell waits for it, as after fork+wait4
            child.start(program)
            return self.wait_child(child)

    def _run_builtin(self, builtin: Builtin, command: ast.Simple, argv: list[str]) -> int:
        """A builtin in this process; `VAR=x builtin` sets VAR for its duration only."""
        saved = self.apply_redirects(command.redirects, permanent=False)
        if saved is None:
            return 1
        previous = {a.name: self.state.vars.get(a.name) for a in command.assigns}
        for assign in command.assigns:
            self.state.vars[assign.name] = self.expand_string(assign.value)
        try:
            return builtin(self, argv)
        except BrokenPipeError:
            return 1
        finally:
            for name, value in previous.items():
                if value is None:
                    self.state.vars.pop(name, None)
                else:
                    self.state.vars[name] = value
            self.restore(saved)

    def _builtin_exec(self, command: ast.Simple, args: list[str]) -> int:
        if not args:
            return 0 if self.apply_redirects(command.redirects, permanent=True) is not None else 1
        program = self.lookup(args[0])
        if isinstance(program, str):
            self.err(program.replace(f"{self.state.name}: ", f"{self.state.name}: exec: ", 1))
            raise _ExitShell(self.not_found_status(program))
        if self.apply_redirects(command.redirects, permanent=True) is None:
            raise _ExitShell(1)
        self.proc.exec_image(args, self._command_env(command))
        raise _ExitShell(program(self.proc))

    def lookup(self, name: str) -> Program | str:
        """The program for a command name, or the shell's error line (see `not_found_status`)."""
        programs = self.device.programs
        if "/" in name:
            path = posixpath.normpath(posixpath.join(self.proc.cwd, name))
            base = posixpath.basename(path)
            directory = posixpath.dirname(path)
            if directory in programs.search_path and programs.get(base) is not None:
                return programs.get(base)  # type: ignore[return-value]
            return self._script(name, path)
        program = programs.get(name)
        if program is None:
            return f"{self.state.name}: {name}: inaccessible or not found\n"
        return program

    def _script(self, name: str, path: str) -> Program | str:
        """A file named by path: a shell script (with or without `#!/system/bin/sh`) runs if it
        has an execute bit the caller may use; anything else cannot be executed here."""
        fs = self.device.fs
        cred = cred_of(self.proc)
        try:
            info = fs.stat(path, cred)
        except OSError:
            return f"{self.state.name}: {name}: inaccessible or not found\n"
        if info.is_dir or not _may_execute(info, cred):
            return f"{self.state.name}: {name}: can't execute: Permission denied\n"
        try:
            head = fs.read_file(path, cred)[:128]
        except OSError as exc:
            return f"{self.state.name}: {name}: can't execute: {exc.strerror}\n"
        if head.startswith(b"\x7fELF"):
            return f"{self.state.name}: {name}: can't execute: Exec format error\n"
        if head.startswith(b"#!"):
            interpreter = head[2:].split(b"\n", 1)[0].strip().split(b" ", 1)[0].decode(errors="replace")
            if posixpath.basename(interpreter) not in ("sh", "mksh"):
                return f"{self.state.name}: {name}: inaccessible or not found\n"
        shell = self.device.programs.get("sh")
        assert shell is not None

        def run_script(proc: pm.Process) -> int:
            proc.exec_image([SHELL_PATH, name, *proc.argv[1:]], proc.env)
            return shell(proc)

        return run_script

    @staticmethod
    def not_found_status(message: str) -> int:
        """127 for a command that is not there, 126 for one that cannot be executed."""
        return 126 if ": can't execute: " in message else 127

    # --- redirections -----------------------------------------------------------------------------------

    def apply_redirects(self, redirects: tuple[ast.Redirect, ...], *, permanent: bool) -> list[tuple[int, OpenFile | None]] | None:
        """Apply to this process's fds; the saved fds to restore (empty when permanent), None on error."""
        saved: list[tuple[int, OpenFile | None]] = []
        proc = self.proc
        for redirect in redirects:
            target = self.expand_string(redirect.target)
            if not permanent:
                with proc.kernel.lock:
                    old = proc.fds.get(redirect.fd)
                    saved.append((redirect.fd, old.dup() if old is not None else None))
            try:
                file = self._open_redirect(redirect, target)
            except OSError as exc:
                verb = "can't open" if redirect.op in ("<", "<&") else "can't create"
                if redirect.op in ("<&", ">&"):
                    self.err(f"{self.state.name}: {target}: bad file descriptor\n")
                else:
                    self.err(f"{self.state.name}: {verb} {target}: {exc.strerror or exc}\n")
                self.restore(saved)
                return None
            if file is None:
                proc.close_fd(redirect.fd)
            else:
                proc.set_fd(redirect.fd, file)
        return saved

    def _open_redirect(self, redirect: ast.Redirect, target: str) -> OpenFile | None:
        op = redirect.op
        if op == "<<":
            body = redirect.heredoc.body if redirect.heredoc is not None else None
            text = self.expand_string(body) if body is not None else ""
            return BytesFile(text.encode(), "pipe:[heredoc]")
        if op in ("<&", ">&"):
            if target == "-":
                return None
            if not is_decimal(target):
                raise OSError(errno.EBADF, "Bad file descriptor")
            return self.proc.fd(int(target)).dup()
        cred = cred_of(self.proc)
        path = self.device.fs.normalize(target, self.proc.cwd) if target else target
        if not target:
            raise OSError(errno.ENOENT, os.strerror(errno.ENOENT))
        fs = self.device.fs
        if op == "<":
            return fs.open(path, cred, read=True)
        if op in (">", ">|"):
            return fs.open(path, cred, read=False, write=True, create=True, truncate=True)
        if op == ">>":
            return fs.open(path, cred, read=False, write=True, create=True, append=True)
        return fs.open(path, cred, read=True, write=True, create=True)

    def restore(self, saved: list[tuple[int, OpenFile | None]]) -> None:
        for fd, file in reversed(saved):
            if file is None:
                self.proc.close_fd(fd)
            else:
                self.proc.set_fd(fd, file)

    # --- expansion ------------------------------------------------------------------------------------

    def param(self, name: str) -> str | None:
        state = self.state
        if name == "?":
            return str(state.last_status)
        if name == "$":
            return str(state.shell_pid)
        if name == "!":
            return str(state.last_bg) if state.last_bg is not None else ""
        if name == "#":
            return str(len(state.positional))
        if name == "-":
            return ""
        if name == "0":
            return state.name
        if is_decimal(name):
            index = int(name)
            return state.positional[index - 1] if index <= len(state.positional) else None
        if name in ("@", "*"):
            return " ".join(state.positional)
        return state.vars.get(name)

    def _param_value(self, part: ast.Param) -> str:
        value = self.param(part.name)
        if part.op == "length":
            return str(len(value or ""))
        if not part.op:
            return value or ""
        if part.op in ("#", "##", "%", "%%"):
            pattern = self.pattern_of(part.arg) if part.arg is not None else ""
            return _remove_pattern(value or "", pattern, part.op)
        arg = self.expand_string(part.arg) if part.arg is not None else ""
        unset_or_null = value is None or (part.op.startswith(":") and value == "")
        if part.op in (":-", "-"):
            return arg if unset_or_null else value or ""
        if part.op in (":=", "="):
            if unset_or_null:
                self.state.vars[part.name] = arg
                return arg
            return value or ""
        return "" if unset_or_null else arg  # :+ and +

    def command_substitution(self, body: ast.ListNode) -> str:
        child = self.device.processes.fork(self.proc)
        pipe = Pipe(self.proc.kernel)
        child.set_fd(1, pipe.open_writer())
        reader = pipe.open_reader()
        sub = Interpreter(self.device, child, self.state.copy_for_subshell())
        child.start(lambda p: sub.run_in_child(body))
        out = bytearray()
        try:
            while True:
                data = reader.read(65536, self.proc, None)
                if not data:
                    break
                out += data
        finally:
            with self.proc.kernel.lock:
                reader.release()
        status = self.wait_child(child)
        self.state.cmdsub_status = status
        self.state.last_status = status
        return out.decode(errors="replace").rstrip("\n")

    def expand_string(self, word: ast.Word) -> str:
        """A word without field splitting (assignments, redirection targets)."""
        out: list[str] = []
        for part in word.parts:
            if isinstance(part, ast.Lit):
                out.append(part.text)
            elif isinstance(part, ast.Param):
                out.append(self._param_value(part))
            elif isinstance(part, ast.Arith):
                out.append(self.arithmetic(part))
            else:
                out.append(self.command_substitution(part.body))
        return "".join(out)

    def arithmetic(self, part: ast.Arith) -> str:
        """$((expr)); an error ends a non-interactive shell with status 1, as mksh's does."""
        text = self.expand_string(part.expression)
        try:
            return str(arith.evaluate(text, self.param))
        except ShellSyntaxError as exc:
            self.err(f"{self.state.name}: {exc.message}\n")
            raise _ExitShell(1) from None

    def expand_words(self, words: tuple[ast.Word, ...]) -> list[str]:
        fields: list[str] = []
        for word in words:
            fields.extend(self.expand_word(word))
        return fields

    def expand_word(self, word: ast.Word) -> list[str]:
        """Expansions, then field splitting of unquoted results, then pathname expansion."""
        ifs = self.state.vars.get("IFS", " \t\n")
        fields: list[tuple[str, str, bool]] = []  # text, glob pattern, has an unquoted glob char
        text, pattern, globbing, have = "", "", False, False

        def push() -> None:
            nonlocal text, pattern, globbing, have
            fields.append((text, pattern, globbing))
            text, pattern, globbing, have = "", "", False, False

        def add(value: str, quoted: bool) -> None:
            nonlocal text, pattern, globbing, have
            text += value
            pattern += _glob_escape(value) if quoted else value
            globbing = globbing or (not quoted and any(c in value for c in "*?["))
            have = have or quoted or bool(value)

        def add_split(value: str) -> None:
            if not value:
                return
            pieces = [p for p in re.split("[" + re.escape(ifs) + "]+", value) if p] if ifs else [value]
            if not pieces:
                if have:
                    push()
                return
            if value[0] in ifs and have:
                push()
            for index, piece in enumerate(pieces):
                if index:
                    push()
                add(piece, False)
            if value[-1] in ifs:
                push()

        for part in word.parts:
            if isinstance(part, ast.Lit):
                add(part.text, part.quoted)
            elif isinstance(part, ast.Param) and part.name == "@" and part.quoted and not part.op:
                for index, param in enumerate(self.state.positional):
                    if index:
                        push()
                    add(param, True)
            else:
                if isinstance(part, ast.Param):
                    value = self._param_value(part)
                elif isinstance(part, ast.Arith):
                    value = self.arithmetic(part)
                else:
                    value = self.command_substitution(part.body)
                if part.quoted:
                    add(value, True)
                else:
                    add_split(value)
        if have:
            push()
        out: list[str] = []
        for field_text, field_pattern, field_globbing in fields:
            matches = self.glob(field_pattern) if field_globbing else []
            out.extend(matches or [field_text])
        return out

    def glob(self, pattern: str) -> list[str]:
        """Pathname expansion against the device's files; [] when nothing matches."""
        fs = self.device.fs
        cred = cred_of(self.proc)
        absolute = pattern.startswith("/")
        parts = [p for p in pattern.split("/") if p]
        candidates = ["/" if absolute else ""]
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            following: list[str] = []
            for base in candidates:
                directory = fs.normalize(base or ".", self.proc.cwd)
                if not any(c in part for c in "*?["):
                    literal = _glob_unescape(part)
                    path = (base.rstrip("/") + "/" if base else "") + literal
                    if base == "/":
                        path = "/" + literal
                    if fs.exists(fs.normalize(path, self.proc.cwd), cred) or not last:
                        following.append(path)
                    continue
                try:
                    names = fs.listdir(directory, cred)
                except OSError:
                    continue
                for name in names:
                    if name.startswith(".") and not part.startswith("."):
                        continue
                    if fnmatch.fnmatchcase(name, part):
                        following.append(("/" + name) if base == "/" else (base.rstrip("/") + "/" + name if base else name))
            candidates = following
        found = sorted(c for c in candidates if c and fs.exists(fs.normalize(c, self.proc.cwd), cred))
        if pattern.endswith("/"):
            found = [c + "/" for c in found if fs.stat(fs.normalize(c, self.proc.cwd), cred).is_dir]
        return found


def _remove_pattern(value: str, pattern: str, op: str) -> str:
    """${v#p} ${v##p} (the shortest or longest prefix matching p removed), ${v%p} ${v%%p} (suffix)."""
    cuts = range(len(value) + 1)
    if op.startswith("#"):
        for cut in reversed(cuts) if op == "##" else cuts:
            if fnmatch.fnmatchcase(value[:cut], pattern):
                return value[cut:]
        return value
    for cut in cuts if op == "%%" else reversed(cuts):
        if fnmatch.fnmatchcase(value[cut:], pattern):
            return value[:cut]
    return value


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _glob_unescape(text: str) -> str:
    return re.sub(r"\[([*?\[])\]", r"\1", text)


def _child_body(sub: Interpreter, node: ast.Command) -> Program:
    return lambda proc: sub.run_in_child(node)


# --- builtins ---------------------------------------------------------------------------------------


def _escapes(text: str) -> tuple[str, bool]:
    """echo/print backslash sequences; the bool says \\c was met (stop, no newline)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        n = text[i + 1]
        simple = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", "e": "\x1b"}
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == "c":
            return "".join(out), True
        elif n == "0":
            digits = re.match(r"[0-7]{0,3}", text[i + 2 :])
            code = digits.group(0) if digits else ""
            out.append(chr(int(code, 8) if code else 0))
            i += 2 + len(code)
        else:
            out.append("\\" + n)
            i += 2
    return "".join(out), False


def b_echo(sh: Interpreter, argv: list[str]) -> int:
    args = argv[1:]
    newline = True
    interpret = True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args[0][1:]:
            if flag == "n":
                newline = False
            elif flag == "e":
                interpret = True
            else:
                interpret = False
        args = args[1:]
    text = " ".join(args)
    stop = False
    if interpret:
        text, stop = _escapes(text)
    sh.out(text + ("\n" if newline and not stop else ""))
    return 0


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?([diouxXcsbeEfgG%])")


def _printf_once(fmt: str, args: list[str]) -> tuple[str, list[str], bool, bool]:
    """One pass of the format; returns text, remaining args, whether it consumed any, error."""
    out: list[str] = []
    consumed = False
    error = False
    pos = 0
    for match in _PRINTF_SPEC.finditer(fmt):
        literal, _ = _escapes(fmt[pos : match.start()])
        out.append(literal)
        pos = match.end()
        flags, width, precision, conv = match.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = args.pop(0) if args else "0"
            consumed = True
        if precision == "*":
            precision = args.pop(0) if args else "0"
            consumed = True
        arg = args.pop(0) if args else None
        if arg is not None:
            consumed = True
        spec = "%" + flags + (width or "") + (("." + precision) if precision is not None else "")
        if conv in "diouxX":
            text = arg or "0"
            try:
                number = int(text, 0) if not text.startswith("'") else ord(text[1:2] or "\0")
            except ValueError:
                error = True
                number = 0
            out.append((spec + ("d" if conv in "iu" else conv)) % number)
        elif conv in "eEfgG":
            try:
                value = float(arg or "0")
            except ValueError:
                error = True
                value = 0.0
            out.append((spec + conv) % value)
        elif conv == "c":
            out.append((arg or "")[:1])
        elif conv == "b":
            out.append((spec + "s") % _escapes(arg or "")[0])
        else:
            out.append((spec + "s") % (arg or ""))
    literal, _ = _escapes(fmt[pos:])
    out.append(literal)
    return "".join(out), args, consumed, error


def b_printf(sh: Interpreter, argv: list[str]) -> int:
    if len(argv) < 2:
        sh.err("printf: Needs 1 argument\n")
        return 1
    fmt, args = argv[1], list(argv[2:])
    chunks: list[str] = []
    failed = False
    while True:
        text, args, consumed, error = _printf_once(fmt, args)
        chunks.append(text)
        failed = failed or error
        if not args or not consumed:
            break
    sh.out("".join(chunks))
    return 1 if failed else 0


def b_read(sh: Interpreter, argv: list[str]) -> int:
    args = argv[1:]
    raw = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        if args[0] == "-r":
            raw = True
        args = args[1:]
    names = args or ["REPLY"]
    line = sh.proc.stdin.readline()
    eof = not line.endswith(b"\n")
    text = line.decode(errors="replace").removesuffix("\n")
    if not raw:
        text = re.sub(r"\\(.)", r"\1", text.removesuffix("\\"))
    if names == ["REPLY"]:
        sh.state.vars["REPLY"] = text
    else:
        ifs = sh.state.vars.get("IFS", " \t\n")
        white = "".join(c for c in ifs if c in " \t\n")
        stripped = text.strip(white)
        pieces = re.split("[" + re.escape(ifs) + "]" + ("+" if ifs == white else ""), stripped, maxsplit=len(names) - 1) if ifs else [text]
        pieces = [p.strip(white) for p in pieces[:-1]] + pieces[-1:] if pieces else pieces
        for index, name in enumerate(names):
            sh.state.vars[name] = pieces[index] if index < len(pieces) else ""
    return 1 if eof else 0


def b_trap(sh: Interpreter, argv: list[str]) -> int:
    args = argv[1:]
    proc = sh.proc
    if not args:
        for sig, action in sorted(sh.state.traps.items()):
            name = "EXIT" if sig == 0 else pm.SIGNAL_NAMES.get(sig, str(sig))
            sh.out(f"trap -- {_quote(action)} {name}\n")
        for sig in sorted(proc.signals.ignored):
            sh.out(f"trap -- '' {pm.SIGNAL_NAMES.get(sig, str(sig))}\n")
        return 0
    if len(args) == 1 and parse_trap_signal(args[0]) is not None:
        action, names = "-", args
    else:
        action, names = args[0], args[1:]
    status = 0
    for name in names:
        parsed = parse_trap_signal(name)
        if parsed is None:
            sh.err(f"{sh.state.name}: trap: bad signal '{name}'\n")
            status = 1
            continue
        sig = parsed
        if action == "-":
            sh.state.traps.pop(sig, None)
            if sig:
                proc.signals.default(sig)
        elif action == "":
            sh.state.traps.pop(sig, None)
            if sig:
                proc.signals.ignore(sig)
        else:
            sh.state.traps[sig] = action
            if sig:
                proc.signals.catch(sig)
    return status


def parse_trap_signal(name: str) -> int | None:
    if name.upper() in ("EXIT", "0"):
        return 0
    sig = pm.parse_signal(name)
    return sig if sig else None


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def b_exit(sh: Interpreter, argv: list[str]) -> int:
    status = sh.state.last_status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            sh.err(f"{sh.state.name}: exit: {argv[1]}: bad number\n")
            status = 1
    raise _ExitShell(status)


def b_true(sh: Interpreter, argv: list[str]) -> int:
    return 0


def b_false(sh: Interpreter, argv: list[str]) -> int:
    return 1


def b_cd(sh: Interpreter, argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else sh.state.vars.get("HOME", "/")
    fs = sh.device.fs
    path = fs.normalize(target, sh.proc.cwd)
    try:
        info = fs.stat(path, cred_of(sh.proc))
        if not info.is_dir:
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
    except OSError as exc:
        sh.err(f"{sh.state.name}: cd: {target}: {exc.strerror}\n")
        return 2
    sh.proc.cwd = path
    sh.state.vars["PWD"] = path
    return 0


def b_pwd(sh: Interpreter, argv: list[str]) -> int:
    sh.out(sh.proc.cwd + "\n")
    return 0


def b_export(sh: Interpreter, argv: list[str]) -> int:
    for arg in argv[1:]:
        if arg == "-p":
            continue
        name, eq, value = arg.partition("=")
        if eq:
            sh.state.vars[name] = value
        sh.state.exported.add(name)
    if len(argv) == 1 or argv[1:] == ["-p"]:
        for name in sorted(sh.state.exported):
            if name in sh.state.vars:
                sh.out(f"export {name}={_quote(sh.state.vars[name])}\n")
    return 0


def b_unset(sh: Interpreter, argv: list[str]) -> int:
    for name in argv[1:]:
        if name in ("-v", "-f"):
            continue
        sh.state.vars.pop(name, None)
        sh.state.exported.discard(name)
    return 0


def b_shift(sh: Interpreter, argv: list[str]) -> int:
    count = int(argv[1]) if len(argv) > 1 and is_decimal(argv[1]) else 1
    if count > len(sh.state.positional):
        return 1
    sh.state.positional = sh.state.positional[count:]
    return 0


def b_set(sh: Interpreter, argv: list[str]) -> int:
    """`set [--] ARGS` sets the positional parameters; `set` alone lists the variables (mksh's
    `name=value`, quoted when needed). The shell options (-e, -u, -x...) are not modelled: refused
    with a message rather than ignored."""
    args = argv[1:]
    if not args:
        sh.out("".join(f"{name}={_quote(value) if value and not value.isalnum() else value}\n"
                       for name, value in sorted(sh.state.vars.items())))
        return 0
    if args[0] == "--":
        sh.state.positional = args[1:]
        return 0
    if args[0][:1] in ("-", "+") and len(args[0]) > 1:
        sh.err(f"{sh.state.name}: set: {args[0]}: the shell options are not modelled by the virtual device\n")
        return 1
    sh.state.positional = args
    return 0


def b_wait(sh: Interpreter, argv: list[str]) -> int:
    targets = sh.state.children
    if len(argv) > 1:
        wanted = {int(a) for a in argv[1:] if is_decimal(a)}
        targets = [c for c in targets if c.pid in wanted]
        if not targets:
            return 127
    status = 0
    for child in list(targets):
        status = sh.wait_child(child)
    return status


def b_kill(sh: Interpreter, argv: list[str]) -> int:
    args = argv[1:]
    sig = pm.SIGTERM
    if args and args[0] == "-l":
        sh.out(" ".join(pm.SIGNAL_NAMES[n] for n in sorted(pm.SIGNAL_NAMES)) + "\n")
        return 0
    if args and args[0] == "-s" and len(args) > 1:
        parsed = pm.parse_signal(args[1])
        if parsed is None:
            sh.err(f"{sh.state.name}: kill: bad signal '{args[1]}'\n")
            return 1
        sig, args = parsed, args[2:]
    elif args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
        parsed = pm.parse_signal(args[0][1:])
        if parsed is None:
            sh.err(f"{sh.state.name}: kill: bad signal '{args[0][1:]}'\n")
            return 1
        sig, args = parsed, args[1:]
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        sh.err(f"{sh.state.name}: kill: usage: kill [-s signame | -signum | -signame] {{job | pid | pgrp}} ...\n")
        return 1
    status = 0
    for target in args:
        try:
            pid = int(target)
        except ValueError:
            sh.err(f"{sh.state.name}: kill: {target}: arguments must be jobs or process IDs\n")
            status = 1
            continue
        try:
            if pid < 0:
                sh.device.processes.kill_group(-pid, sig)
            else:
                sh.device.processes.kill(pid, sig, sh.proc.uid)
        except OSError as exc:
            sh.err(f"{sh.state.name}: kill: {target}: {exc.strerror}\n")
            status = 1
    if sh.proc.dead:
        sh.proc.checkpoint()
    return status


def b_test(sh: Interpreter, argv: list[str]) -> int:
    args = argv[1:]
    if argv[0] == "[":
        if not args or args[-1] != "]":
            sh.err(f"{sh.state.name}: [: missing ]\n")
            return 2
        args = args[:-1]
    try:
        return 0 if _test(sh, args) else 1
    except ValueError as exc:
        sh.err(f"{sh.state.name}: test: {exc}\n")
        return 2


def _test(sh: Interpreter, args: list[str]) -> bool:
    if not args:
        return False
    if args[0] == "!":
        return not _test(sh, args[1:])
    if len(args) == 1:
        return args[0] != ""
    fs = sh.device.fs
    cred = cred_of(sh.proc)
    if len(args) == 2:
        op, operand = args
        if op == "-z":
            return operand == ""
        if op == "-n":
            return operand != ""
        path = fs.normalize(operand, sh.proc.cwd)
        try:
            info = fs.stat(path, cred)
        except OSError:
            return False
        checks = {"-e": True, "-f": info.is_file, "-d": info.is_dir, "-s": info.size > 0,
                  "-r": True, "-w": True, "-x": bool(info.mode & 0o111)}
        if op not in checks:
            raise ValueError(f"{op}: unknown operand")
        return checks[op]
    if len(args) == 3:
        left, op, right = args
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        numeric = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-gt": int.__gt__,
                   "-le": int.__le__, "-ge": int.__ge__}
        if op in numeric:
            try:
                return bool(numeric[op](int(left), int(right)))
            except ValueError:
                raise ValueError(f"{left if not is_decimal(left.lstrip('-')) else right}: bad number") from None
    raise ValueError("syntax error")


def b_command(sh: Interpreter, argv: list[str]) -> int:
    args = argv[1:]
    if args and args[0] in ("-v", "-V"):
        status = 1
        for name in args[1:]:
            if name in BUILTINS or name == "exec":
                sh.out(name + "\n")
                status = 0
            elif sh.device.programs.get(name) is not None:
                sh.out(f"/system/bin/{name}\n")
                status = 0
        return status
    return 0


def b_umask(sh: Interpreter, argv: list[str]) -> int:
    sh.out("0000\n")
    return 0


def b_return(sh: Interpreter, argv: list[str]) -> int:
    status = sh.state.last_status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            sh.err(f"{sh.state.name}: return: {argv[1]}: bad number\n")
            status = 1
    raise _Return(status)


def b_break(sh: Interpreter, argv: list[str]) -> int:
    levels = int(argv[1]) if len(argv) > 1 and is_decimal(argv[1]) and int(argv[1]) > 0 else 1
    if sh.loop_depth == 0:
        return 0
    raise _LoopControl("break" if argv[0] == "break" else "continue", min(levels, sh.loop_depth))


Builtin = Callable[[Interpreter, list[str]], int]

BUILTINS: dict[str, Builtin] = {
    "echo": b_echo,
    "printf": b_printf,
    "read": b_read,
    "trap": b_trap,
    "exit": b_exit,
    "true": b_true,
    "false": b_false,
    ":": b_true,
    "cd": b_cd,
    "pwd": b_pwd,
    "export": b_export,
    "unset": b_unset,
    "set": b_set,
    "shift": b_shift,
    "wait": b_wait,
    "kill": b_kill,
    "test": b_test,
    "[": b_test,
    "command": b_command,
    "umask": b_umask,
    "break": b_break,
    "continue": b_break,
    "return": b_return,
}
