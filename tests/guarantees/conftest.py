"""Hypothesis settings for the property tests: bounded here, long in benchmarks/fuzz.py.

``PLANESHIFT_FUZZ_EXAMPLES`` sets the examples per property (default 40: the properties together
take well under a minute on two slow cores); no example database is written into the tree.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "planeshift",
    max_examples=int(os.environ.get("PLANESHIFT_FUZZ_EXAMPLES", "40")),
    deadline=None,
    database=None,
    derandomize=os.environ.get("PLANESHIFT_FUZZ_EXAMPLES") is None,  # CI: the same examples
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.load_profile("planeshift")
