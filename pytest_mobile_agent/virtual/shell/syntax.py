"""The shell language's syntax: the tree the parser builds (virtual/shell/parser.py), and the
error it raises.

A script is a `ListNode` of `Item`s (an and-or list, run in the background or not); an `AndOr` is
pipelines joined by `&&`/`||`; a `Pipeline` is commands joined by `|`; a command is a `Simple`
command or a compound one. Words keep their quoting as `Part`s: literal text, parameters,
command substitutions and arithmetic, which the interpreter expands.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_mobile_agent import errors


class ShellSyntaxError(errors.MobileAgentError):
    """The device's shell could not parse a command line; the message is the shell's."""


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
