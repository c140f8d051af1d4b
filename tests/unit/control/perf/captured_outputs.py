"""The captured real outputs beside this file: each a `# key: value` header (source, command,
release, what the parser must read: `expect`), a `# ---` line, then the device's words verbatim."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).parent / "captured"


@dataclass(frozen=True)
class Captured:
    name: str
    source: str
    printed: str
    expect: dict[str, str]


def captured(prefix: str) -> list[Captured]:
    found = []
    for path in sorted(FOLDER.glob(f"{prefix}_*.txt")):
        header, _, printed = path.read_text(encoding="utf-8").partition("# ---\n")
        fields = {}
        for line in header.splitlines():
            key, _, value = line.removeprefix("# ").partition(": ")
            if key in ("source", "expect"):
                fields[key] = value.strip()
        expect = dict(_pairs(fields["expect"]))
        found.append(Captured(path.stem, fields["source"], printed, expect))
    assert found, f"no captured {prefix} outputs in {FOLDER}"
    return found


def _pairs(text: str) -> list[tuple[str, str]]:
    """`a=1 Java Heap=2 b=x` -> [("a", "1"), ("Java Heap", "2"), ("b", "x")]: a key may hold spaces."""
    pairs = []
    words = text.split(" ")
    key_words: list[str] = []
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            pairs.append((" ".join([*key_words, key]), value))
            key_words = []
        else:
            key_words.append(word)
    return pairs
