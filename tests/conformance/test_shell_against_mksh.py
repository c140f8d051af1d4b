"""The device shell (the hand-written interpreter of virtual/shell) against the real mksh R59c,
Android's /system/bin/sh, from Debian's `mksh` package: each script's standard output and exit
status must be the same. Scripts use the shell's builtins (and `cat`), so the real mksh runs
nothing of the host's that matters; it runs with an empty environment in a temporary directory.

The messages on stderr are compared in docs/architecture.md's terms only: Debian's build prefixes
its errors with `E: `, which Android's does not, so stderr is left out here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice

MKSH = shutil.which("mksh")
pytestmark = pytest.mark.skipif(MKSH is None, reason="no mksh (Debian: apt-get install mksh; .ci/system-deps)")

SCRIPTS = [
    "a=hello; echo ${a#h} ${a%o} ${#a} ${b:-def} ${a:+x} ${a#*l} ${a%%l*}",
    "echo $((3*4+2)) $((7/2)) $((7%3)) $((1<<4)) $((-5+2)) $(( (1+2)*3 ))",
    "for i in 1 2 3; do case $i in 2) echo two;; *) echo $i;; esac; done",
    "i=0; while true; do i=$((i+1)); [ $i -gt 3 ] && break; done; echo $i",
    "f() { echo \"args:$#:$1\"; return 3; }; f a b; echo $?",
    "echo 'a  b' \"c  d\" e\\ f",
    "x=\"a b  c\"; set -- $x; echo $# \"$2\"",
    "printf '%s-%d-%x|%5s|%-3s|\\n' abc 42 255 r l",
    "[ -z '' ] && echo empty; [ 1 -lt 2 ] && echo lt; [ abc = abc ] && echo eq; [ -n '' ] || echo nonempty-false",
    "echo $(echo inner) \"$(printf 'x\\ny')\"",
    "a=1; (a=2; echo $a); echo $a",
    "false | true; echo $?; true | false; echo $?",
    "nosuchcmd 2>/dev/null; echo $?",
    "trap 'echo bye' EXIT; echo hi",
    "echo 'a b c' | { read x y; echo \"$x|$y\"; }",
    "cat <<EOF\nline $((1+1)) ${HOME-unset}\nEOF",
    "x=5; until [ $x -le 2 ]; do x=$((x-1)); done; echo $x",
    "set -- one two three; shift; echo $@; for a; do echo [$a]; done",
    "v=abc; case $v in a*) echo starts;; esac; case x in [!y]) echo notY;; esac",
    "echo ${#}; exit 7",
]


def run_mksh(script: str, cwd: Path) -> tuple[int, bytes]:
    assert MKSH is not None
    result = subprocess.run([MKSH, "-c", script], capture_output=True, env={}, cwd=cwd, timeout=10, check=False)
    return result.returncode, result.stdout


@pytest.fixture(scope="module")
def device() -> VirtualDevice:
    return VirtualDevice()


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_device_shell_prints_and_exits_as_mksh(device: VirtualDevice, script: str, tmp_path: Path) -> None:
    status, out, _ = device.shell(f"HOME=; unset HOME; {script}" if "HOME" in script else script, timeout=10)
    assert (status, out) == run_mksh(script, tmp_path)
