"""Parser of the device shell's language: the subset of Android's /system/bin/sh (mksh) the driver
and its users send.

Grammar (POSIX sh; pathname expansion is the interpreter's):

    list     := and_or ((';' | '&' | newline) and_or)* [';' | '&']
    and_or   := pipeline (('&&' | '||') newline* pipeline)*
    pipeline := ['!'] command ('|' newline* command)*
    command  := '(' list ')' redir* | '{' list '}' redir* | if | while | until | for | case
              | NAME '(' ')' command | simple
    if       := 'if' list 'then' list ('elif' list 'then' list)* ['else' list] 'fi'
    while    := ('while' | 'until') list 'do' list 'done'
    for      := 'for' NAME ['in' word*] (';' | newline) 'do' list 'done'
    case     := 'case' word 'in' (['('] word ('|' word)* ')' [list] [';;'])* 'esac'
    simple   := (NAME=word | redir)* (word | redir)*
    redir    := [fd] ('<' | '>' | '>>' | '>|' | '<>' | '<&' | '>&' | '<<' | '<<-') word

Words keep their quoting: single quotes, double quotes (where `$` expansions and the escapes
\\$ \\` \\" \\\\ \\newline apply), backslash escapes, `$NAME`, `${NAME}`, `${NAME:-word}`, `$?`, `$$`, `$!`,
`$#`, `$0`..`$9`, `$@`, `$*`, `$(list)` command substitution and `$((expr))` arithmetic
(virtual/shell/arith.py). `#` starts a comment at the start
of a word. Any text either parses or raises ShellSyntaxError with mksh's wording ("syntax error: 'X'
unexpected", "syntax error: unexpected EOF", "syntax error: '(' unmatched" when the text ends inside
a construct, "syntax error: no closing quote"); nothing else escapes the parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.shell.syntax import ShellSyntaxError

META = set(" \t\n;&|()<>")
NAME_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
NAME_CHARS = NAME_START | set("0123456789")
SPECIAL_PARAMS = set("?$!#@*-0123456789")
MAX_DEPTH = 200


@dataclass(frozen=True)
class Lit:
    text: str
    quoted: bool


@dataclass(frozen=True)
class Param:
    name: str
    quoted: bool
    op: str = ""  # "", ":-", "-", ":=", ":+", "+", "length", or a pattern removal "#", "##", "%", "%%"
    arg: Word | None = None


@dataclass(frozen=True)
class CmdSub:
    body: ListNode
    quoted: bool


@dataclass(frozen=True)
class Arith:
    expression: Word  # the text between $(( and )), its own $ expansions still to do
    quoted: bool


Part = Lit | Param | CmdSub | Arith


@dataclass(frozen=True)
class Word:
    parts: tuple[Part, ...]

    def literal(self) -> str | None:
        """The word's text when it has no expansions."""
        if all(isinstance(p, Lit) for p in self.parts):
            return "".join(p.text for p in self.parts)  # type: ignore[union-attr]
        return None

    def is_quoted(self) -> bool:
        return any(getattr(p, "quoted", False) for p in self.parts)


@dataclass(eq=False)
class HereDoc:
    """A here-document: its body arrives after the end of the line that names it."""

    delimiter: str
    quoted: bool  # a quoted delimiter: the body is literal, else it undergoes $ expansions
    strip_tabs: bool  # <<- removes leading tabs
    body: Word | None = None


@dataclass(frozen=True)
class Redirect:
    fd: int
    op: str  # "<", ">", ">>", ">|", "<>", "<&", ">&", "<<" (here-document)
    target: Word
    heredoc: HereDoc | None = None


@dataclass(frozen=True)
class Assign:
    name: str
    value: Word


@dataclass(frozen=True)
class Simple:
    assigns: tuple[Assign, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Subshell:
    body: ListNode
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Group:
    body: ListNode
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class If:
    branches: tuple[tuple[ListNode, ListNode], ...]  # (condition, body) for if and each elif
    otherwise: ListNode | None
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Loop:
    until: bool  # while (False) or until (True)
    condition: ListNode
    body: ListNode
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class For:
    name: str
    words: tuple[Word, ...] | None  # None: "$@"
    body: ListNode
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Case:
    word: Word
    items: tuple[tuple[tuple[Word, ...], ListNode], ...]  # (patterns, body)
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class FuncDef:
    name: str
    body: Command


Command = Simple | Subshell | Group | If | Loop | For | Case | FuncDef
RESERVED_CLOSERS = ("then", "elif", "else", "fi", "do", "done", "esac")


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[Command, ...]
    negate: bool = False


@dataclass(frozen=True)
class AndOr:
    first: Pipeline
    rest: tuple[tuple[str, Pipeline], ...] = ()


@dataclass(frozen=True)
class Item:
    and_or: AndOr
    background: bool


@dataclass(frozen=True)
class ListNode:
    items: tuple[Item, ...] = field(default_factory=tuple)


def parse(text: str) -> ListNode:
    """The whole script; ShellSyntaxError for anything else."""
    parser = _Parser(text)
    try:
        tree = parser.parse_list(top=True)
    except RecursionError:
        raise ShellSyntaxError("syntax error: expression nested too deeply") from None
    parser.skip_blanks()
    if not parser.at_end():
        raise parser.unexpected()
    if parser.pending_heredocs:
        raise ShellSyntaxError(f"here document '{parser.pending_heredocs[0].delimiter}' unclosed")
    return tree


class _Parser:
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
            doc.body = Word((Lit(text, True),)) if doc.quoted else _Parser(text).parse_heredoc_text()

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

    # --- structure -----------------------------------------------------------------------------------

    def parse_list(self, top: bool = False, closer: str | tuple[str, ...] = "") -> ListNode:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShellSyntaxError("syntax error: expression nested too deeply")
        items: list[Item] = []
        while True:
            self.skip_newlines()
            if self.at_end() or self._at_closer(closer):
                break
            and_or = self.parse_and_or()
            self.skip_blanks()
            background = False
            if self.peek() == "&" and not self.startswith("&&"):
                self.i += 1
                background = True
            elif self.peek() == ";" and not self.startswith(";;"):
                self.i += 1
            elif self.peek() == "\n":
                self.newline()
            elif not (self.at_end() or self._at_closer(closer)):
                raise self.unexpected()
            items.append(Item(and_or, background))
        self.depth -= 1
        if not items and not top:
            raise self.unexpected()
        return ListNode(tuple(items))

    def _at_closer(self, closer: str | tuple[str, ...]) -> bool:
        if closer == ")":
            return self.peek() == ")"
        if closer == "}":
            return self.peek() == "}" and (self.peek(1) == "" or self.peek(1) in META)
        if isinstance(closer, tuple):
            return (";;" in closer and self.startswith(";;")) or self.at_word() in closer
        return False

    def at_word(self) -> str:
        """The plain word at the cursor when it is a reserved word (or "" otherwise)."""
        for word in (*RESERVED_CLOSERS, "if", "while", "until", "for", "in", "case"):
            if self.startswith(word):
                after = self.peek(len(word))
                if after == "" or after in META:
                    return word
        return ""

    def expect_word(self, word: str, opener: str) -> None:
        self.skip_newlines()
        if self.at_word() != word:
            raise self.unmatched(opener) if self.at_end() else self.unexpected()
        self.i += len(word)

    def unmatched(self, opener: str) -> ShellSyntaxError:
        """mksh's error when the text ends inside a construct: the construct's first token."""
        return ShellSyntaxError(f"syntax error: '{opener}' unmatched")

    def expect_char(self, char: str, opener: str) -> None:
        if self.peek() != char:
            raise self.unmatched(opener) if self.at_end() else self.unexpected()
        self.i += 1

    def parse_and_or(self) -> AndOr:
        first = self.parse_pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while True:
            self.skip_blanks()
            if self.startswith("&&") or self.startswith("||"):
                op = self.s[self.i : self.i + 2]
                self.i += 2
                self.skip_newlines()
                rest.append((op, self.parse_pipeline()))
            else:
                return AndOr(first, tuple(rest))

    def parse_pipeline(self) -> Pipeline:
        self.skip_blanks()
        negate = False
        if self.peek() == "!" and (self.peek(1) in (" ", "\t")):
            negate = True
            self.i += 1
        commands = [self.parse_command()]
        while True:
            self.skip_blanks()
            if self.peek() == "|" and not self.startswith("||"):
                self.i += 1
                self.skip_newlines()
                commands.append(self.parse_command())
            else:
                return Pipeline(tuple(commands), negate)

    def parse_command(self) -> Command:
        self.skip_blanks()
        if self.peek() == "(":
            self.i += 1
            body = self.parse_list(closer=")")
            self.expect_char(")", "(")
            return Subshell(body, self.parse_redirects_only())
        if self.peek() == "{" and self.peek(1) in (" ", "\t", "\n"):
            self.i += 1
            body = self.parse_list(closer="}")
            self.expect_char("}", "{")
            return Group(body, self.parse_redirects_only())
        keyword = self.at_word()
        if keyword == "if":
            return self.parse_if()
        if keyword in ("while", "until"):
            self.i += len(keyword)
            condition = self.parse_list(closer=("do",))
            self.expect_word("do", keyword)
            body = self.parse_list(closer=("done",))
            self.expect_word("done", keyword)
            return Loop(keyword == "until", condition, body, self.parse_redirects_only())
        if keyword == "for":
            return self.parse_for()
        if keyword == "case":
            return self.parse_case()
        if keyword in RESERVED_CLOSERS:
            raise self.unexpected()
        function = self.try_function()
        if function is not None:
            return function
        return self.parse_simple()

    def try_function(self) -> FuncDef | None:
        """`NAME () command`, when the text at the cursor is one."""
        j = self.i
        if j >= len(self.s) or self.s[j] not in NAME_START:
            return None
        while j < len(self.s) and self.s[j] in NAME_CHARS:
            j += 1
        k = j
        while k < len(self.s) and self.s[k] in " \t":
            k += 1
        if not self.s.startswith("(", k):
            return None
        k += 1
        while k < len(self.s) and self.s[k] in " \t":
            k += 1
        if not self.s.startswith(")", k):
            raise ShellSyntaxError("syntax error: '(' unexpected")
        name = self.s[self.i : j]
        self.i = k + 1
        self.skip_newlines()
        if self.at_end():
            raise ShellSyntaxError("syntax error: unexpected EOF")
        return FuncDef(name, self.parse_command())

    def parse_case(self) -> Case:
        self.i += 4
        self.skip_blanks()
        if self.at_end() or self.peek() in META:
            raise self.unexpected()
        word = self.parse_word()
        self.expect_word("in", "case")
        items: list[tuple[tuple[Word, ...], ListNode]] = []
        while True:
            self.skip_newlines()
            if self.at_word() == "esac":
                self.i += 4
                return Case(word, tuple(items), self.parse_redirects_only())
            if self.at_end():
                raise self.unmatched("case")
            if self.peek() == "(":
                self.i += 1
            patterns: list[Word] = []
            while True:
                self.skip_blanks()
                if self.at_end() or self.peek() in "\n;&|()<>":
                    raise self.unmatched("case") if self.at_end() else self.unexpected()
                patterns.append(self.parse_word())
                self.skip_blanks()
                if self.peek() == "|":
                    self.i += 1
                    continue
                if self.peek() == ")":
                    self.i += 1
                    break
                raise self.unmatched("case") if self.at_end() else self.unexpected()
            self.skip_newlines()
            if self.startswith(";;") or self.at_word() == "esac":
                body = ListNode(())
            else:
                body = self.parse_list(closer=(";;", "esac"))
            self.skip_newlines()
            if self.startswith(";;"):
                self.i += 2
            items.append((tuple(patterns), body))

    def parse_if(self) -> If:
        branches: list[tuple[ListNode, ListNode]] = []
        otherwise: ListNode | None = None
        self.i += 2
        while True:
            condition = self.parse_list(closer=("then",))
            self.expect_word("then", "if")
            body = self.parse_list(closer=("elif", "else", "fi"))
            branches.append((condition, body))
            self.skip_newlines()
            word = self.at_word()
            if self.at_end():
                raise self.unmatched("if")
            self.i += len(word)
            if word == "elif":
                continue
            if word == "else":
                otherwise = self.parse_list(closer=("fi",))
                self.expect_word("fi", "if")
            elif word != "fi":
                raise self.unexpected()
            return If(tuple(branches), otherwise, self.parse_redirects_only())

    def parse_for(self) -> For:
        self.i += 3
        self.skip_blanks()
        j = self.i
        while j < len(self.s) and self.s[j] in NAME_CHARS:
            j += 1
        name = self.s[self.i : j]
        if not name or name[0] not in NAME_START:
            raise self.unexpected()
        self.i = j
        self.skip_newlines()
        words: tuple[Word, ...] | None = None
        if self.at_word() == "in":
            self.i += 2
            collected: list[Word] = []
            while True:
                self.skip_blanks()
                c = self.peek()
                if c == ";":
                    self.i += 1
                    break
                if c == "\n":
                    self.newline()
                    break
                if c == "" or c in META:
                    raise self.unexpected()
                collected.append(self.parse_word())
            words = tuple(collected)
        elif self.peek() == ";":
            self.i += 1
        self.expect_word("do", "for")
        body = self.parse_list(closer=("done",))
        self.expect_word("done", "for")
        return For(name, words, body, self.parse_redirects_only())

    def parse_redirects_only(self) -> tuple[Redirect, ...]:
        redirects: list[Redirect] = []
        while True:
            self.skip_blanks()
            redirect = self.try_redirect()
            if redirect is None:
                c = self.peek()
                if c and c not in META:
                    raise self.unexpected()
                return tuple(redirects)
            redirects.append(redirect)

    def parse_simple(self) -> Simple:
        assigns: list[Assign] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while True:
            self.skip_blanks()
            c = self.peek()
            if c == "" or c in "\n;&|)":
                break
            if c == "(":
                raise self.unexpected()
            redirect = self.try_redirect()
            if redirect is not None:
                redirects.append(redirect)
                continue
            if not words:
                assign = self.try_assignment()
                if assign is not None:
                    assigns.append(assign)
                    continue
            words.append(self.parse_word())
        if not (assigns or words or redirects):
            raise self.unexpected()
        return Simple(tuple(assigns), tuple(words), tuple(redirects))

    def try_assignment(self) -> Assign | None:
        j = self.i
        if self.peek() not in NAME_START or not self.peek():
            return None
        while j < len(self.s) and self.s[j] in NAME_CHARS:
            j += 1
        if j >= len(self.s) or self.s[j] != "=":
            return None
        name = self.s[self.i : j]
        self.i = j + 1
        c = self.peek()
        value = Word(()) if (c == "" or c in META) else self.parse_word()
        return Assign(name, value)

    def try_redirect(self) -> Redirect | None:
        j = self.i
        while j < len(self.s) and is_decimal(self.s[j]):
            j += 1
        digits = self.s[self.i : j]
        if j >= len(self.s) or self.s[j] not in "<>":
            return None
        if digits and len(digits) > 2:
            return None
        fd_default = 0 if self.s[j] == "<" else 1
        fd = int(digits) if digits else fd_default
        self.i = j
        for op in (">>", ">|", "<>", "<<-", "<<", "<&", ">&", "<", ">"):
            if self.startswith(op):
                self.i += len(op)
                break
        else:  # pragma: no cover - the loop always matches "<" or ">"
            raise self.unexpected()
        self.skip_blanks()
        c = self.peek()
        if c == "" or c in META:
            raise self.unexpected()
        word = self.parse_word()
        if op in ("<<", "<<-"):
            delimiter = "".join(p.text if isinstance(p, Lit) else "$" + getattr(p, "name", "") for p in word.parts)
            doc = HereDoc(delimiter, word.is_quoted(), op == "<<-")
            self.pending_heredocs.append(doc)
            return Redirect(fd, "<<", word, doc)
        return Redirect(fd, op, word)

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
        inner = _Parser(self.s[start:j].replace('"', "") + '"')
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
        inner = _Parser("".join(text))
        inner.depth = self.depth
        body = inner.parse_list(top=True)
        inner.skip_blanks()
        if not inner.at_end():
            raise inner.unexpected()
        self.depth -= 1
        return CmdSub(body, quoted)
