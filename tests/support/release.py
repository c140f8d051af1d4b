"""The release workflow and the build definition it reads, as the tests of the release read them."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "release.yml"


def load_workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(loaded, dict), WORKFLOW
    return loaded


def workflow_steps() -> list[dict[str, Any]]:
    """The steps of the workflow's one job, in order."""
    (job,) = load_workflow()["jobs"].values()
    return list(job["steps"])


def build_env() -> dict[str, str]:
    """agent-android/build.env as the shell reads it (the workflow sources it)."""
    script = f'set -a; . "{REPO / "agent-android" / "build.env"}"; env -0'
    listed = subprocess.run(["env", "-i", "bash", "-c", script], capture_output=True, check=True, timeout=30).stdout
    return dict(item.split("=", 1) for item in listed.decode().split("\0") if "=" in item)
