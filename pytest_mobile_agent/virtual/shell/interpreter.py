"""The interpreter of the device shell (Android's /system/bin/sh, mksh) over the virtual process model.

Builtins (virtual/shell/builtins.py) run in the shell's own process, as mksh's do; `if`/`elif`/`else`,
`while`, `until`, `for`, `case` and functions (`name() { ...; }`, with their own positional parameters)
run in the shell too. Everything else is a program of the device (toybox and the Android tools),
run in a forked child process, which the shell waits for unless the command ends with `&`.
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
import fnmatch

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import Program
from pytest_mobile_agent.virtual.kernel.streams import NullFile, OpenFile, Pipe
from pytest_mobile_agent.virtual.shell import syntax
from pytest_mobile_agent.virtual.shell.builtins import BUILTINS, Builtin
from pytest_mobile_agent.virtual.shell.lookup import lookup, not_found_status
from pytest_mobile_agent.virtual.shell.parser import parse
from pytest_mobile_agent.virtual.shell.redirection import Redirection
from pytest_mobile_agent.virtual.shell.state import ExitShell, FunctionReturn, LoopControl
from pytest_mobile_agent.virtual.shell.syntax import ShellSyntaxError


class Interpreter(Redirection):
    """Runs parsed scripts in one process (the shell or one of its subshells)."""

    def run_script(self, text: str, *, top: bool) -> int:
        try:
            tree = parse(text)
        except ShellSyntaxError as exc:
            self.err(f"{self.state.name}: {exc.message}\n")
            return 1
        try:
            if top and self._single_external(tree) is not None:
                return self._exec_simple(self._single_external(tree))  # type: ignore[arg-type]
            status = self.run_list(tree)
        except ExitShell as done:
            status = done.status
        return self._run_exit_trap(status)

    def run_interactive(self) -> int:
        """`sh -` (what adbd starts for an empty command): one line at a time from stdin, with
        mksh's prompt (`emu64xa:/ $ `, `#` for root) when stdin is a terminal; a line left open
        (an unclosed quote or a trailing `|`, `&&`) waits for the next one."""
        stdin = self.proc.stdin
        tty = stdin.isatty()
        host = self.system.properties.get("ro.product.device", "localhost")
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
                tree = parse(pending)
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
            except ExitShell as done:
                return self._run_exit_trap(done.status)

    def _run_exit_trap(self, status: int) -> int:
        action = self.state.traps.pop(0, None)
        if action:
            with contextlib.suppress(ExitShell, ShellSyntaxError):
                self.run_list(parse(action))
        return status

    def run_in_child(self, node: syntax.ListNode | syntax.AndOr | syntax.Command) -> int:
        """The body of a forked child (subshell, background job, pipeline member)."""
        try:
            single = self._single_external(node)
            if single is not None:
                return self._exec_simple(single)
            if isinstance(node, syntax.ListNode):
                status = self.run_list(node)
            elif isinstance(node, syntax.AndOr):
                status = self.run_and_or(node)
            else:
                status = self.run_command(node)
        except ExitShell as done:
            status = done.status
        return self._run_exit_trap(status)

    def _single_external(self, node: object) -> syntax.Simple | None:
        """The one simple external command a node consists of, if so (mksh's exec of it)."""
        if self.state.traps:
            return None
        if isinstance(node, syntax.ListNode):
            if len(node.items) != 1 or node.items[0].background:
                return None
            node = node.items[0].and_or
        if isinstance(node, syntax.AndOr):
            if node.rest or len(node.first.commands) != 1 or node.first.negate:
                return None
            node = node.first.commands[0]
        if not isinstance(node, syntax.Simple) or not node.words:
            return None
        name = node.words[0].literal()
        if name is None or name in BUILTINS or name == "exec" or name in self.state.functions:
            return None
        if any(isinstance(p, syntax.CmdSub) for w in (*node.words, *(a.value for a in node.assigns)) for p in w.parts):
            return None
        return node

    def _exec_simple(self, command: syntax.Simple) -> int:
        """Run one external command in this very process (no fork)."""
        argv = self.expand_words(command.words)
        env = self._command_env(command)
        if not argv:
            return 0
        if self.apply_redirects(command.redirects, permanent=True) is None:
            return 1
        program = lookup(self.system, self.proc, self.state.name, argv[0])
        if isinstance(program, str):
            self.err(program)
            return not_found_status(program)
        self.proc.exec_image(argv, env)
        return program(self.proc)

    def run_list(self, node: syntax.ListNode) -> int:
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

    def _start_background(self, and_or: syntax.AndOr) -> None:
        child = self.system.processes.fork(self.proc)
        if not self._redirects_stdin(and_or):
            child.set_fd(0, NullFile())
        sub = self.subshell(child)
        child.start(lambda p: sub.run_in_child(and_or))
        self.state.last_bg = child.pid
        self.state.children.append(child)

    @staticmethod
    def _redirects_stdin(and_or: syntax.AndOr) -> bool:
        if and_or.rest or len(and_or.first.commands) != 1:
            return False
        command = and_or.first.commands[0]
        return any(r.fd == 0 for r in getattr(command, "redirects", ()))

    def run_and_or(self, node: syntax.AndOr) -> int:
        status = self.run_pipeline(node.first)
        for op, pipeline in node.rest:
            self.state.last_status = status
            if (op == "&&" and status == 0) or (op == "||" and status != 0):
                status = self.run_pipeline(pipeline)
        return status

    def run_pipeline(self, node: syntax.Pipeline) -> int:
        one = len(node.commands) == 1
        status = self.run_command(node.commands[0]) if one else self._run_piped(node.commands)
        return (0 if status else 1) if node.negate else status

    def _run_piped(self, commands: tuple[syntax.Command, ...]) -> int:
        table = self.system.processes
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
            sub = self.subshell(child)
            child.start(_child_body(sub, command))
            children.append(child)
        status = 0
        for child in children:
            status = self.wait_child(child)
        return status

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
                self.run_list(parse(action))
                self.state.last_status = saved

    def run_command(self, node: syntax.Command) -> int:
        if isinstance(node, syntax.Simple):
            return self.run_simple(node)
        if isinstance(node, syntax.FuncDef):
            self.state.functions[node.name] = node.body
            return 0
        if isinstance(node, syntax.Subshell):
            child = self.system.processes.fork(self.proc)
            sub = self.subshell(child)
            if sub.apply_redirects(node.redirects, permanent=True) is None:
                self.system.processes.exit(child, 1)
                return 1
            with self.proc.kernel.lock:
                child.start(lambda p: sub.run_in_child(node.body))
                return self.wait_child(child)
        saved = self.apply_redirects(node.redirects, permanent=False)
        if saved is None:
            return 1
        try:
            if isinstance(node, syntax.Group):
                return self.run_list(node.body)
            if isinstance(node, syntax.If):
                return self._run_if(node)
            if isinstance(node, syntax.Case):
                return self._run_case(node)
            return self._run_loop(node)
        finally:
            self.restore(saved)

    def _run_case(self, node: syntax.Case) -> int:
        value = self.expand_string(node.word)
        for patterns, body in node.items:
            for pattern in patterns:
                if fnmatch.fnmatchcase(value, self.pattern_of(pattern)):
                    return self.run_list(body) if body.items else 0
        return 0

    def call_function(self, body: syntax.Command, argv: list[str], command: syntax.Simple) -> int:
        saved_positional = self.state.positional
        self.state.positional = argv[1:]
        redirects = self.apply_redirects(command.redirects, permanent=False)
        if redirects is None:
            self.state.positional = saved_positional
            return 1
        try:
            return self.run_command(body)
        except FunctionReturn as returned:
            return returned.status
        finally:
            self.restore(redirects)
            self.state.positional = saved_positional

    def _run_if(self, node: syntax.If) -> int:
        for condition, body in node.branches:
            if self.run_list(condition) == 0:
                return self.run_list(body)
        return self.run_list(node.otherwise) if node.otherwise is not None else 0

    def _run_loop(self, node: syntax.Loop | syntax.For) -> int:
        status = 0
        if isinstance(node, syntax.For):
            values = self.expand_words(node.words) if node.words is not None else list(self.state.positional)
            iterations: list[str | None] = list(values)
        else:
            iterations = []
        index = 0
        self.loop_depth += 1
        try:
            while True:
                if isinstance(node, syntax.For):
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
                except LoopControl as control:
                    if control.levels > 1:
                        control.levels -= 1
                        raise
                    if control.kind == "break":
                        return 0
        finally:
            self.loop_depth -= 1

    def _command_env(self, command: syntax.Simple) -> dict[str, str]:
        env = self.state.environ()
        for assign in command.assigns:
            env[assign.name] = self.expand_string(assign.value)
        return env

    def run_simple(self, command: syntax.Simple) -> int:
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
        program = lookup(self.system, self.proc, self.state.name, name)
        if isinstance(program, str):
            saved = self.apply_redirects(command.redirects, permanent=False)
            if saved is None:
                return 1
            self.err(program)  # the child's stderr, after its redirections, says it
            self.restore(saved)
            return not_found_status(program)
        env = self._command_env(command)
        child = self.system.processes.fork(self.proc, argv=argv)
        sub = self.subshell(child)
        if sub.apply_redirects(command.redirects, permanent=True) is None:
            self.system.processes.exit(child, 1)
            return 1
        child.exec_image(argv, env)
        with self.proc.kernel.lock:  # the child runs once the shell waits for it, as after fork+wait4
            child.start(program)
            return self.wait_child(child)

    def _run_builtin(self, builtin: Builtin, command: syntax.Simple, argv: list[str]) -> int:
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

    def _builtin_exec(self, command: syntax.Simple, args: list[str]) -> int:
        if not args:
            return 0 if self.apply_redirects(command.redirects, permanent=True) is not None else 1
        program = lookup(self.system, self.proc, self.state.name, args[0])
        if isinstance(program, str):
            self.err(program.replace(f"{self.state.name}: ", f"{self.state.name}: exec: ", 1))
            raise ExitShell(not_found_status(program))
        if self.apply_redirects(command.redirects, permanent=True) is None:
            raise ExitShell(1)
        self.proc.exec_image(args, self._command_env(command))
        raise ExitShell(program(self.proc))


def _child_body(sub: Interpreter, node: syntax.Command) -> Program:
    return lambda proc: sub.run_in_child(node)
