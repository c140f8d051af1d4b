"""Word expansion (POSIX 2.6): parameters, command substitution and arithmetic, field splitting of
unquoted results on IFS, then pathname expansion against the device's files with the shell's
permissions (hidden names only for a leading `.`; a pattern that matches nothing stays as it is)."""

from __future__ import annotations

import fnmatch
import re

from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import Pipe
from pytest_mobile_agent.virtual.shell import arith, syntax
from pytest_mobile_agent.virtual.shell.context import ShellContext
from pytest_mobile_agent.virtual.shell.state import ExitShell
from pytest_mobile_agent.virtual.shell.syntax import ShellSyntaxError


class Expansion(ShellContext):
    """The expansions of one shell."""

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

    def _param_value(self, part: syntax.Param) -> str:
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

    def command_substitution(self, body: syntax.ListNode) -> str:
        child = self.system.processes.fork(self.proc)
        pipe = Pipe(self.proc.kernel)
        child.set_fd(1, pipe.open_writer())
        reader = pipe.open_reader()
        sub = self.subshell(child)
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

    def expand_string(self, word: syntax.Word) -> str:
        """A word without field splitting (assignments, redirection targets)."""
        out: list[str] = []
        for part in word.parts:
            if isinstance(part, syntax.Lit):
                out.append(part.text)
            elif isinstance(part, syntax.Param):
                out.append(self._param_value(part))
            elif isinstance(part, syntax.Arith):
                out.append(self.arithmetic(part))
            else:
                out.append(self.command_substitution(part.body))
        return "".join(out)

    def arithmetic(self, part: syntax.Arith) -> str:
        """$((expr)); an error ends a non-interactive shell with status 1, as mksh's does."""
        text = self.expand_string(part.expression)
        try:
            return str(arith.evaluate(text, self.param))
        except ShellSyntaxError as exc:
            self.err(f"{self.state.name}: {exc.message}\n")
            raise ExitShell(1) from None

    def expand_words(self, words: tuple[syntax.Word, ...]) -> list[str]:
        fields: list[str] = []
        for word in words:
            fields.extend(self.expand_word(word))
        return fields

    def expand_word(self, word: syntax.Word) -> list[str]:
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
            if isinstance(part, syntax.Lit):
                add(part.text, part.quoted)
            elif isinstance(part, syntax.Param) and part.name == "@" and part.quoted and not part.op:
                for index, param in enumerate(self.state.positional):
                    if index:
                        push()
                    add(param, True)
            else:
                if isinstance(part, syntax.Param):
                    value = self._param_value(part)
                elif isinstance(part, syntax.Arith):
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
        fs = self.system.fs
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
                        inside = base.rstrip("/") + "/" + name if base else name
                        following.append(("/" + name) if base == "/" else inside)
            candidates = following
        found = sorted(c for c in candidates if c and fs.exists(fs.normalize(c, self.proc.cwd), cred))
        if pattern.endswith("/"):
            found = [c + "/" for c in found if fs.stat(fs.normalize(c, self.proc.cwd), cred).is_dir]
        return found

    def pattern_of(self, word: syntax.Word) -> str:
        """A case pattern: expansions done, quoted characters matched literally."""
        out: list[str] = []
        for part in word.parts:
            if isinstance(part, syntax.Lit):
                text = part.text
            elif isinstance(part, syntax.Param):
                text = self._param_value(part)
            elif isinstance(part, syntax.Arith):
                text = self.arithmetic(part)
            else:
                text = self.command_substitution(part.body)
            out.append(_glob_escape(text) if part.quoted else text)
        return "".join(out)


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
