"""A test's performance budget: `@pytest.mark.perf(startup_ms=..., jank_percent=..., pss_mb=...)`.

Each limit is a number (an int or a float, not a bool); an unknown name or a value of another type
is `errors.InvalidArgument` naming it, so the plugin reports it as the marker's usage error before
the test runs. `exceeded(step name, figures)` says which limits a step's figures broke, each in one
line naming the step, the figure and the limit.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_mobile_agent import errors

LIMITS = {
    "startup_ms": "an app start's TotalTime (am start -W), ms",
    "jank_percent": "a step's janky frames, percent of the frames it rendered",
    "pss_mb": "the app's total PSS after a step, MiB",
}


@dataclass(frozen=True)
class Budget:
    startup_ms: float | None = None
    jank_percent: float | None = None
    pss_mb: float | None = None

    @classmethod
    def from_marker(cls, args: tuple[object, ...], kwargs: Mapping[str, object]) -> Budget:
        if args:
            raise errors.InvalidArgument(f"@pytest.mark.perf takes its limits by name ({', '.join(LIMITS)}), "
                                         f"not {len(args)} positional argument(s)")
        limits: dict[str, float] = {}
        for name, value in kwargs.items():
            if name not in LIMITS:
                close = difflib.get_close_matches(name, list(LIMITS), n=1)
                hint = f"; did you mean {close[0]}?" if close else f"; the limits are {', '.join(LIMITS)}"
                raise errors.InvalidArgument(f"@pytest.mark.perf: unknown limit {name!r}{hint}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise errors.InvalidArgument(f"@pytest.mark.perf({name}=...) takes a number of at least 0 "
                                             f"({LIMITS[name]}), not {value!r}")
            limits[name] = float(value)
        return cls(**limits)

    @property
    def empty(self) -> bool:
        return self.startup_ms is None and self.jank_percent is None and self.pss_mb is None

    def exceeded(self, step: str, figures: Mapping[str, float | None]) -> list[str]:
        """What the step's figures broke: startup_ms (None: am did not time the start), jank_percent
        (checked only when the step rendered frames), pss_mb."""
        broken = []
        for name in LIMITS:
            limit = getattr(self, name)
            if limit is None or name not in figures:
                continue
            value = figures[name]
            if value is None:
                broken.append(f"{step}: {name} has no figure (the start was not timed by am) "
                              f"against a budget of {limit:g}")
            elif value > limit:
                broken.append(f"{step}: {name} {value:g} exceeds the budget of {limit:g}")
        return broken
