"""Shared test configuration: hypothesis settings profiles.

``HYPOTHESIS_PROFILE=ci`` (the default) runs about 50 examples per property without deadlines;
``HYPOTHESIS_PROFILE=deep`` runs 1000 for a thorough local or nightly run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=50, deadline=None)
settings.register_profile("deep", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
