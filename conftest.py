"""Root conftest: hypothesis profiles shared by every suite in the repository.

`HYPOTHESIS_PROFILE=ci` (what tox's test env sets) runs each property a few hundred times with no
per-example deadline; `HYPOTHESIS_PROFILE=deep` runs thousands, for fuzzing on demand.
"""

import os

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is a dev extra; a user's suite does not need it
    pass
else:
    settings.register_profile("ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("deep", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("dev", max_examples=100, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
