"""The shell's scanner and word parser: the characters, blanks, comments, newlines (with the
bodies of the here-documents they end), and words with their quoting, parameters (`$NAME`,
`${NAME OP WORD}`, `${#NAME}`), command substitutions (`$(...)`, backquotes) and arithmetic
(`$((...))`). The grammar of lists and commands is virtual/shell/parser.py, which this class is the
base of.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.shell.syntax import (
    Arith,
    CmdSub,
    HereDoc,
    ListNode,
    Lit,
    Param,
    Part,
    ShellSyntaxError,
    Word,
)

META = set(" \t\n;&|()<>")
NAME_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
NAME_CHARS = NAME_START | set("0123456789")
SPECIAL_PARAMS = set("?$!#@*-0123456789")
MAX_DEPTH = 200
RESERVED_CLOSERS = ("then", "elif", "else", "fi", "do", "done", "esac")


class WordParser:
    """A cursor over a script's text, reading words."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.depth = 0
        self.pending_heredocs: list[HereDoc] = []

    # --- characters -------------------------------------------------------------------------------

    def at_end(self) -> bool:
        return self.i >= len(self.s)

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def startswith(self, token: str) -> bool:
        return self.s.startswith(token, self.i)

    def skip_blanks(self) -> None:
        while True:
            c = self.peek()
            if c in (" ", "\t"):
                self.i += 1
            elif c == "\\" and self.peek(1) == "\n":
                self.i += 2
            elif c == "#":
                while not self.at_end() and self.peek() != "\n":
                    self.i += 1
            else:
                return

    def skip_newlines(self) -> None:
        while True:
            self.skip_blanks()
            if self.peek() == "\n":
                self.newline()
            else:
                return

    def newline(self) -> None:
        """Past a newline: the bodies of the here-documents of the line that ended come next."""
        self.i += 1
        pending, self.pending_heredocs = self.pending_heredocs, []
        for doc in pending:
            lines: list[str] = []
            while True:
                if self.at_end():
                    raise ShellSyntaxError(f"here document '{doc.delimiter}' unclosed")
                end = self.s.find("\n", self.i)
                line = self.s[self.i : end if end >= 0 else len(self.s)]
                self.i = end + 1 if end >= 0 else len(self.s)
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line == doc.delimiter:
                    break
                lines.append(line + "\n")
            text = "".join(lines)
            doc.body = Word((Lit(text, True),)) if doc.quoted else type(self)(text).parse_heredoc_text()

    def unexpected(self) -> ShellSyntaxError:
        if self.at_end():
            return ShellSyntaxError("syntax error: unexpected EOF")
        token = self.at_word() or self.peek()
        for op in ("&&", "||", ";;", ">>", "<&", ">&", "<>", ">|"):
            if self.startswith(op):
                token = op
                break
        if token == "\n":
            token = "newline"
        return ShellSyntaxError(f"syntax error: '{token}' unexpected")

    def at_word(self) -> str:
        """The plain word at the cursor when it is a reserved word (or "" otherwise)."""
        for word in (*RESERVED_CLOSERS, "if", "while", "until", "for", "in", "case"):
            if self.startswith(word):
                after = self.peek(len(word))
                if after == "" or after in META:
                    return word
        return ""

    def unmatched(self, opener: str) -> ShellSyntaxError:
        """mksh's error when the text ends inside a construct: the construct's first token."""
        return ShellSyntaxError(f"syntax error: '{opener}' unmatched")

    def expect_char(self, char: str, opener: str) -> None:
        if self.peek() != char:
            raise self.unmatched(opener) if self.at_end() else self.unexpected()
        self.i += 1

    def parse_list(self, top: bool = False, closer: str | tuple[str, ...] = "") -> ListNode:
        """The grammar's list (a command substitution's body); the parser defines it."""
        raise NotImplementedError

    # --- words ---------------------------------------------------------------------------------------

    def parse_word(self) -> Word:
        parts: list[Part] = []
        buf: list[str] = []

        def flush(quoted: bool = False) -> None:
            if buf:
                parts.append(Lit("".join(buf), quoted))
                buf.clear()

        start = self.i
        while not self.at_end():
            c = self.peek()
            if c in META:
                break
            if c == "\\":
                if self.peek(1) == "":
                    self.i += 1
                    buf.append("\\")
                    continue
                if self.peek(1) == "\n":
                    self.i += 2
                    continue
                flush()
                parts.append(Lit(self.peek(1), True))
                self.i += 2
            elif c == "'":
                flush()
                end = self.s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("syntax error: no closing quote")
                parts.append(Lit(self.s[self.i + 1 : end], True))
                self.i = end + 1
            elif c == '"':
                flush()
                self.i += 1
                parts.extend(self.parse_double_quoted())
            elif c == "$":
                flush()
                parts.append(self.parse_dollar(quoted=False))
            elif c == "`":
                flush()
                parts.append(self.parse_backquote(quoted=False))
            else:
                buf.append(c)
                self.i += 1
        flush()
        if self.i == start:
            raise self.unexpected()
        return Word(tuple(parts))

    def parse_double_quoted(self) -> list[Part]:
        parts: list[Part] = []
        buf: list[str] = []
        while True:
            if self.at_end():
                raise ShellSyntaxError("syntax error: no closing quote")
            c = self.peek()
            if c == '"':
                self.i += 1
                if buf or not parts:
                    parts.append(Lit("".join(buf), True))
                return parts
            if c == "\\" and self.peek(1) in ("$", "`", '"', "\\", "\n"):
                if self.peek(1) != "\n":
                    buf.append(self.peek(1))
                self.i += 2
            elif c == "$":
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf = []
                parts.append(self.parse_dollar(quoted=True))
            elif c == "`":
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf = []
                parts.append(self.parse_backquote(quoted=True))
            else:
                buf.append(c)
                self.i += 1

    def parse_dollar(self, quoted: bool) -> Part:
        self.i += 1  # the $
        c = self.peek()
        if c == "(":
            if self.peek(1) == "(":
                return self.parse_arith(quoted)
            self.i += 1
            body = self.parse_list(closer=")")
            self.expect_char(")", "(")
            return CmdSub(body, quoted)
        if c == "{":
            end = self.i + 1
            j = end
            while j < len(self.s) and self.s[j] in NAME_CHARS:
                j += 1
            if self.s.startswith("#", end) and end + 1 < len(self.s) and self.s[end + 1] != "}":
                length_of = self._length_form(end + 1, quoted)  # ${#name}: the length of name
                if length_of is not None:
                    return length_of
            if j == end and j < len(self.s) and self.s[j] in SPECIAL_PARAMS:
                j += 1
            name = self.s[end:j]
            if not name:
                if self.s.startswith("#", end):
                    k = end + 1
                    while k < len(self.s) and self.s[k] in NAME_CHARS:
                        k += 1
                    if k < len(self.s) and self.s[k] == "}" and k > end + 1:
                        self.i = k + 1
                        return Param(self.s[end + 1 : k], quoted, "length")
                raise ShellSyntaxError("syntax error: bad substitution")
            self.i = j
            op = ""
            for candidate in (":-", ":=", ":+", "-", "=", "+", "##", "#", "%%", "%"):
                if self.startswith(candidate):
                    op = candidate
                    self.i += len(candidate)
                    break
            arg: Word | None = None
            if op:
                arg = self.parse_brace_word(quoted, pattern=op in ("#", "##", "%", "%%"))
            if self.peek() != "}":
                raise ShellSyntaxError("syntax error: bad substitution")
            self.i += 1
            return Param(name, quoted, op, arg)
        if c and c in SPECIAL_PARAMS:
            self.i += 1
            return Param(c, quoted)
        if c and c in NAME_START:
            j = self.i
            while j < len(self.s) and self.s[j] in NAME_CHARS:
                j += 1
            name = self.s[self.i : j]
            self.i = j
            return Param(name, quoted)
        return Lit("$", quoted)

    def _length_form(self, start: int, quoted: bool) -> Param | None:
        j = start
        while j < len(self.s) and self.s[j] in NAME_CHARS:
            j += 1
        if j == start and j < len(self.s) and self.s[j] in SPECIAL_PARAMS:
            j += 1
        if j == start or j >= len(self.s) or self.s[j] != "}":
            return None
        self.i = j + 1
        return Param(self.s[start:j], quoted, "length")

    def parse_arith(self, quoted: bool) -> Arith:
        start = self.i + 2
        depth = 0
        j = start
        while True:
            if j >= len(self.s):
                raise ShellSyntaxError("syntax error: '((' unmatched")
            c = self.s[j]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    if self.s.startswith("))", j):
                        break
                    raise ShellSyntaxError("syntax error: ')' unexpected")
                depth -= 1
            j += 1
        inner = type(self)(self.s[start:j].replace('"', "") + '"')
        inner.depth = self.depth + 1
        if inner.depth > MAX_DEPTH:
            raise ShellSyntaxError("syntax error: expression nested too deeply")
        parts = inner.parse_double_quoted()
        self.i = j + 2
        return Arith(Word(tuple(parts)), quoted)

    def parse_heredoc_text(self) -> Word:
        """An unquoted here-document's body: $ expansions and \\$ \\` \\\\ escapes; quotes are text."""
        parts: list[Part] = []
        buf: list[str] = []
        while not self.at_end():
            c = self.peek()
            if c == "\\" and self.peek(1) in ("$", "`", "\\", "\n"):
                if self.peek(1) != "\n":
                    buf.append(self.peek(1))
                self.i += 2
            elif c in ("$", "`"):
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf = []
                parts.append(self.parse_dollar(quoted=True) if c == "$" else self.parse_backquote(quoted=True))
            else:
                buf.append(c)
                self.i += 1
        if buf or not parts:
            parts.append(Lit("".join(buf), True))
        return Word(tuple(parts))

    def parse_brace_word(self, quoted: bool, *, pattern: bool = False) -> Word:
        """The word after a ${name OP ...}. For a pattern removal (#, ##, %, %%) the quoting of
        each piece counts (quoted text matches itself, the rest are pattern characters); for the
        other operators the whole word is taken literally, as before."""
        parts: list[Part] = []
        buf: list[str] = []

        def flush(literal: bool) -> None:
            if buf:
                parts.append(Lit("".join(buf), literal))
                buf.clear()

        while True:
            if self.at_end():
                raise ShellSyntaxError("syntax error: bad substitution")
            c = self.peek()
            if c == "}":
                break
            if c == "$":
                flush(not pattern)
                parts.append(self.parse_dollar(quoted))
            elif c == "'" and not quoted:
                end = self.s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("syntax error: no closing quote")
                flush(not pattern)
                buf.append(self.s[self.i + 1 : end])
                flush(True)
                self.i = end + 1
            elif c == '"' and pattern:
                end = self.s.find('"', self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("syntax error: no closing quote")
                flush(False)
                buf.append(self.s[self.i + 1 : end])
                flush(True)
                self.i = end + 1
            elif c == "\\" and self.peek(1):
                flush(not pattern)
                buf.append(self.peek(1))
                flush(True)
                self.i += 2
            else:
                buf.append(c)
                self.i += 1
        flush(not pattern)
        return Word(tuple(parts))

    def parse_backquote(self, quoted: bool) -> Part:
        end = self.i + 1
        text: list[str] = []
        while True:
            if end >= len(self.s):
                raise ShellSyntaxError("syntax error: no closing quote")
            c = self.s[end]
            if c == "`":
                break
            if c == "\\" and end + 1 < len(self.s) and self.s[end + 1] in "$`\\":
                text.append(self.s[end + 1])
                end += 2
                continue
            text.append(c)
            end += 1
        self.i = end + 1
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShellSyntaxError("syntax error: expression nested too deeply")
        inner = type(self)("".join(text))
        inner.depth = self.depth
        body = inner.parse_list(top=True)
        inner.skip_blanks()
        if not inner.at_end():
            raise inner.unexpected()
        self.depth -= 1
        return CmdSub(body, quoted)
