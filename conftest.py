"""Root conftest: hypothesis profiles shared by every suite in the repository.

`HYPOTHESIS_PROFILE=ci` (what tox's test env sets) runs each property 150 times (half again
hypothesis's default) with no per-example deadline; `HYPOTHESIS_PROFILE=deep` runs 5,000, for fuzzing
on demand (`HYPOTHESIS_PROFILE=deep .tox/test/bin/pytest tests/fuzz`). The 34 files with properties
took 113 s of CPU at 300 examples and 73 s at 150 (docs/performance.md, "a fifth stop"):
about 7 % of the test command's CPU, for the depth between the two.
"""

import os

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is a dev extra; a user's suite does not need it
    pass
else:
    settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("deep", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("dev", max_examples=100, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
