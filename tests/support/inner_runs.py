"""What a pytest run the suite starts does without."""

from __future__ import annotations

INNER_RUNS_SKIP = ("-p", "no:hypothesispytest", "-p", "no:examples")
"""Plugins of the dev env that no inner pytest run uses, and a user's project would not have:
hypothesis's imports hypothesis at each run's summary and pytest-examples imports black, about 0.4 s
of CPU a run (docs/performance.md, "The suite's own time"), and the suite starts some hundreds of
runs (pytester's, README's commands in tests/docs)."""
