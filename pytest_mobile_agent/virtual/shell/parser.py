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

from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.shell.syntax import (
    AndOr,
    Assign,
    Case,
    Command,
    For,
    FuncDef,
    Group,
    HereDoc,
    If,
    Item,
    ListNode,
    Lit,
    Loop,
    Pipeline,
    Redirect,
    ShellSyntaxError,
    Simple,
    Subshell,
    Word,
)
from pytest_mobile_agent.virtual.shell.words import (
    MAX_DEPTH,
    META,
    NAME_CHARS,
    NAME_START,
    RESERVED_CLOSERS,
    WordParser,
)


def parse(text: str) -> ListNode:
    """The whole script; ShellSyntaxError for anything else."""
    parser = Parser(text)
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


class Parser(WordParser):
    """The grammar: lists, and-or lists, pipelines, commands, redirections."""

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

    def expect_word(self, word: str, opener: str) -> None:
        self.skip_newlines()
        if self.at_word() != word:
            raise self.unmatched(opener) if self.at_end() else self.unexpected()
        self.i += len(word)

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
