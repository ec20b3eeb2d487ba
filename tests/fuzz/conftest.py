"""Fuzzing profiles. Without options each target runs a bounded, derandomized batch (the whole of
tests/fuzz in about 20 s); ``--hypothesis-profile=fuzz`` runs the long campaign (see
docs/reliability.md), and ``FUZZ_STATS=FILE`` appends one JSON line of figures per target."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fuzz",
    max_examples=100_000,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
