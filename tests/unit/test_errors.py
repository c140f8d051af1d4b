"""The error tree drawn in errors.py's docstring is the classes' own hierarchy."""

from __future__ import annotations

import inspect

from pytest_mobile_agent import errors


def drawn_tree() -> str:
    """The hierarchy of errors.py's classes, drawn as the docstring draws it (source order)."""
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass)
               if issubclass(c, errors.MobileAgentError) and c.__module__ == errors.__name__]
    line_of = {c: inspect.getsourcelines(c)[1] for c in classes}
    children: dict[type, list[type]] = {}
    for cls in classes:
        if cls is not errors.MobileAgentError:
            parent = next(b for b in cls.__bases__ if issubclass(b, errors.MobileAgentError))
            children.setdefault(parent, []).append(cls)

    def label(cls: type) -> str:
        others = [b.__name__ for b in cls.__bases__ if not issubclass(b, errors.MobileAgentError)]
        return cls.__name__ + (f" (also {', '.join(others)})" if others and cls is not errors.MobileAgentError else "")

    lines = [label(errors.MobileAgentError)]

    def walk(cls: type, prefix: str) -> None:
        kids = sorted(children.get(cls, []), key=line_of.__getitem__)
        for i, kid in enumerate(kids):
            last = i == len(kids) - 1
            lines.append(prefix + ("└── " if last else "├── ") + label(kid))
            walk(kid, prefix + ("    " if last else "│   "))

    walk(errors.MobileAgentError, "")
    return "\n".join(lines)


def test_the_docstrings_tree_is_the_class_hierarchy() -> None:
    doc = errors.__doc__ or ""
    drawn = "\n".join(line.removeprefix("    ") for line in doc.splitlines())
    assert drawn_tree() in drawn


def test_every_error_is_a_mobile_agent_error_and_a_timeout_says_so() -> None:
    assert issubclass(errors.WaitTimeout, errors.Timeout)
    assert errors.Timeout("reading", 1.0).is_timeout()
