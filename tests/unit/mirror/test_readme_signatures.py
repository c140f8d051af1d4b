"""README's screen reference says what the code takes (issue 28, item 2): every call its tables
document has the real signature of `Mirror`'s method, parameter for parameter (names, order, kinds
and defaults), and every attribute the Elements paragraph names exists on `Element`."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from pytest_mobile_agent.mirror import Element, Mirror

README = Path(__file__).resolve().parents[3] / "README.md"
CALL = re.compile(r"`(\w+)\(([^`]*)\)`")
NO_DEFAULT = object()


def screen_reference() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## The `screen` reference")
    return text[start:text.index("\n## ", start + 1)]


def documented_calls() -> dict[str, str]:
    """name -> the parameters as written, from the first cell of every table row."""
    calls: dict[str, str] = {}
    for line in screen_reference().splitlines():
        if line.startswith("| `"):
            first_cell = line.split(" | ")[0]
            calls.update(CALL.findall(first_cell))
    return calls


def described(params: str) -> list[tuple[str, str, object]]:
    """(name, kind, default) of each parameter as README writes them, read as Python does."""
    args = ast.parse(f"def f({params}): pass").body[0].args  # type: ignore[attr-defined]
    out: list[tuple[str, str, object]] = []
    positional = args.posonlyargs + args.args
    defaults = [NO_DEFAULT] * (len(positional) - len(args.defaults)) + [ast.literal_eval(d) for d in args.defaults]
    out += [(a.arg, "POSITIONAL_OR_KEYWORD", d) for a, d in zip(positional, defaults, strict=True)]
    if args.vararg:
        out.append((args.vararg.arg, "VAR_POSITIONAL", NO_DEFAULT))
    out += [(a.arg, "KEYWORD_ONLY", NO_DEFAULT if d is None else ast.literal_eval(d))
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg:
        out.append((args.kwarg.arg, "VAR_KEYWORD", NO_DEFAULT))
    return out


def real(name: str) -> list[tuple[str, str, object]]:
    signature = inspect.signature(getattr(Mirror, name))
    return [(p.name, p.kind.name, NO_DEFAULT if p.default is inspect.Parameter.empty else p.default)
            for p in list(signature.parameters.values())[1:]]


def test_the_reference_documents_the_queries_and_actions() -> None:
    assert {"find", "wait_for", "wait_until", "tap", "long_press", "type_text", "swipe_within",
            "scroll_until", "screenshot"} <= set(documented_calls())


@pytest.mark.parametrize("name", sorted(documented_calls()))
def test_a_documented_signature_is_the_real_one(name: str) -> None:
    assert described(documented_calls()[name]) == real(name)


def test_the_element_is_passed_as_element() -> None:
    for name in ("tap", "long_press", "type_text", "swipe_within"):
        assert "element" in inspect.signature(getattr(Mirror, name)).parameters, name


def test_every_attribute_the_elements_paragraph_names_exists() -> None:
    paragraph = screen_reference().split("**Elements.**", 1)[1].split("\n\n", 1)[0]
    names = re.findall(r"`(\w+)(?:\(\))?`", paragraph)
    assert len(names) > 20
    assert [n for n in names if n != "Element" and not hasattr(Element, n)] == []
