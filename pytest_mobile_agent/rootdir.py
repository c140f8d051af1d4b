"""Keeps pytest's rootdir where the tests are when a plugin option's value is written as a second
word (`--agent-jar PATH`, as README writes it).

Why it moved: pytest finds the rootdir and the ini file in `Config.parse` from a first parse of
the command line, before it loads the plugins of the `pytest11` entry points, so before their
`pytest_addoption` (_pytest/config/__init__.py: `determine_setup(..., args=ns.file_or_dir)` comes
before `load_setuptools_entrypoints("pytest11")`). At that point `--agent-jar` is an unknown flag
and PATH a free argument; `get_dirs_from_args` (_pytest/config/findpaths.py) keeps every free
argument that is not an option and exists, so the jar's directory joined the test paths and the
rootdir became their common ancestor (`/`, hence `/.pytest_cache`). `--agent-jar=PATH` is one
word, an option, and never counted. pytest tracks this as pytest-dev/pytest#8846 (also #1435).

The fix: `pytest_load_initial_conftests` runs after the second parse, which knows our options,
and before conftests, the cache or the session read the rootdir. When one of our options was
given as two words, the setup is found again from the true free arguments; a different rootdir
under the same ini file is put right, a different ini file (the value's directory holding one) is
a usage error naming the one-word spelling, since the wrong file's options are already applied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from _pytest.config.findpaths import determine_setup


def two_word_values(args: Sequence[str], flags: Iterable[str]) -> list[str]:
    """The values of these flags given as a separate word (`--flag VALUE`, not `--flag=VALUE`)."""
    wanted = set(flags)
    return [args[index + 1] for index, arg in enumerate(args[:-1]) if arg in wanted]


def restore(config: pytest.Config, args: Sequence[str], flags: Iterable[str]) -> None:
    """Put the rootdir back where the free arguments alone put it, if a two-word value moved it."""
    flags = tuple(flags)
    values = two_word_values(args, flags)
    if not values:
        return
    namespace = config.known_args_namespace
    rootpath, inipath, _, _ = determine_setup(
        inifile=namespace.inifilename, override_ini=namespace.override_ini, args=namespace.file_or_dir,
        rootdir_cmd_arg=namespace.rootdir or None, invocation_dir=config.invocation_params.dir,
    )
    if rootpath == config.rootpath and inipath == config.inipath:
        return
    if inipath != config.inipath:
        flag = next(arg for arg in args if arg in flags)
        raise pytest.UsageError(
            f"{flag} {values[0]}: pytest read its configuration from {config.inipath} instead of {inipath}, "
            f"taking the option's value for a test path (pytest decides its rootdir before a plugin's options are "
            f"known, pytest-dev/pytest#8846); write it as one word: {flag}=PATH"
        )
    _move_rootdir(config, rootpath)


def _move_rootdir(config: pytest.Config, rootpath: Path) -> None:
    old = config.rootpath
    config._rootpath = rootpath  # no public setter: pytest itself sets it this way in Config.parse
    config._parser.extra_info["rootdir"] = str(rootpath)
    if config.inipath is None and config.known_args_namespace.confcutdir == str(old):
        config.known_args_namespace.confcutdir = str(rootpath)  # derived from the rootdir, not given
