#!/usr/bin/env python3
"""`python3 bootstrap.py -e examples`: tox in a venv of its own, then tox with these arguments.

For a machine with nothing but Python, such as Debian's or Ubuntu's system Python: there
`python3 -m pip install tox` fails at once (PEP 668, "externally-managed-environment"), and the
system may have no pip or no ensurepip (python3-pip, python3-venv) at all. So this makes `.venv`
with the standard library's venv (without pip), puts tox into it with the first of: the venv's
ensurepip, the system's pip (`pip --python .venv/bin/python`), or pip's own wheel fetched from PyPI,
and runs `.venv/bin/tox`. Nothing is installed outside `.venv`; run again, it only runs tox.

With tox goes tox-uv, so tox makes its envs with uv: the test env's dev tools install in about 16 s
where pip took 134 s on the project's 2-core machine (docs/performance.md, "The suite's own time").
Where tox-uv cannot be installed (no uv build for the platform), tox alone is, and the envs are made
with pip as before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import venv
from pathlib import Path
from urllib.parse import urljoin

HERE = Path(__file__).resolve().parent
VENV = Path(os.environ.get("MOBILE_AGENT_BOOTSTRAP_VENV", HERE / ".venv"))
PIP_JSON = "https://pypi.org/pypi/pip/json"


def _bin(name: str) -> Path:
    return VENV / ("Scripts" if os.name == "nt" else "bin") / (f"{name}.exe" if os.name == "nt" else name)


def _quiet(argv: list[str]) -> bool:
    return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode == 0


TOOLS = ["tox", "tox-uv"]
"""What goes into `.venv`: tox, and tox-uv so that tox makes its envs with uv."""


def _install_tox(python: Path) -> None:
    if _quiet([str(python), "-m", "pip", "--version"]) or _quiet([str(python), "-m", "ensurepip", "--default-pip"]):
        _install_tools([str(python), "-m", "pip", "install", "--quiet"])
        return
    if _quiet([sys.executable, "-m", "pip", "--python", str(python), "--version"]):
        _install_tools([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"])
        return
    print("bootstrap: no pip here: fetching pip's wheel from PyPI", file=sys.stderr)
    with tempfile.TemporaryDirectory() as scratch:
        wheel = _fetch_pip_wheel(Path(scratch))
        _install_tools([str(python), str(wheel / "pip"), "install", "--quiet", "pip"])


def _install_tools(install: list[str]) -> None:
    """tox and tox-uv with `install`, or tox alone where tox-uv cannot be installed."""
    if subprocess.run([*install, *TOOLS], check=False).returncode == 0:
        return
    print("bootstrap: tox-uv could not be installed: tox makes its envs with pip", file=sys.stderr)
    subprocess.run([*install, "tox"], check=True)


def _fetch_pip_wheel(directory: Path) -> Path:
    with urllib.request.urlopen(PIP_JSON, timeout=60) as reply:  # noqa: S310 - a fixed https URL
        release = json.load(reply)
    wheel = next(u for u in release["urls"] if u["packagetype"] == "bdist_wheel")
    target = directory / wheel["filename"]
    with urllib.request.urlopen(urljoin(PIP_JSON, wheel["url"]), timeout=120) as reply:  # noqa: S310
        target.write_bytes(reply.read())
    return target


def main(argv: list[str]) -> int:
    tox = _bin("tox")
    if not tox.exists():
        print(f"bootstrap: making {VENV} with tox in it", file=sys.stderr)
        venv.create(VENV, with_pip=False)
        _install_tox(_bin("python"))
    return subprocess.run([str(tox), *argv], cwd=HERE, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
