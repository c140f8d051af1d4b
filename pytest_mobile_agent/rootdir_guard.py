"""Keeps a plugin option's value from moving pytest's rootdir.

pytest decides its rootdir and ini file before it loads plugins from entry points: `Config.parse`
(pytest 9, _pytest/config/__init__.py) parses the command line with only its own options, so
`--agent-jar /opt/agent.jar` reads as an unknown flag followed by a positional `/opt/agent.jar`, and
`determine_setup(args=ns.file_or_dir)` (_pytest/config/findpaths.py) takes the directory of every
positional that exists (`get_dirs_from_args`, which skips only words starting with "-"). The
rootdir becomes the common ancestor of the tests and the jar (`/`, with `/.pytest_cache`), and the
project's ini file is not read. `--agent-jar=/opt/agent.jar` is one word starting with "-", so it
is never taken for a path.

By the time this plugin runs the rootdir, the ini file's addopts and pythonpath are applied, and
cannot be redone; so a run whose setup such a value moved stops with a usage error, before
anything is written, naming the one-word spelling. A value that does not move it (a jar inside the
project) is fine in either spelling.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from _pytest.config.findpaths import determine_setup


def separate_values(args: Sequence[str], flags: Iterable[str]) -> list[tuple[str, str]]:
    """The (flag, value) pairs given as two words (`--flag VALUE`) for these flags."""
    wanted = set(flags)
    return [(arg, args[i + 1]) for i, arg in enumerate(args[:-1]) if arg in wanted]


def _exists(value: str) -> bool:
    try:
        return Path(value).exists()
    except OSError:
        return False


def check(config: pytest.Config, args: Sequence[str], flags: Iterable[str]) -> None:
    """UsageError when a two-word value of these flags moved the rootdir or the ini file."""
    read_as_paths = [(flag, value) for flag, value in separate_values(args, flags) if _exists(value)]
    if not read_as_paths:
        return
    ns = config.known_args_namespace  # parsed again with the plugins' options: the values are consumed
    rootpath, inipath, *_ = determine_setup(
        inifile=ns.inifilename, override_ini=ns.override_ini, args=ns.file_or_dir,
        rootdir_cmd_arg=ns.rootdir or None, invocation_dir=config.invocation_params.dir,
    )
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return
    spelled = ", ".join(f"{flag}={value}" for flag, value in read_as_paths)
    given = ", ".join(f"{flag} {value}" for flag, value in read_as_paths)
    raise pytest.UsageError(
        f"{given}: pytest read the value as a test path before loading pytest-mobile-agent, which moved its "
        f"rootdir to {config.rootpath} (it is {rootpath} without it) and its ini file to {config.inipath} "
        f"(it is {inipath}); write it as one word: {spelled} (or set the option's environment variable)"
    )
