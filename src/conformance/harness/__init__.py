"""The harness: scenario × provider → verdict, and the matrix built from the verdicts."""

from conformance.harness.checks import CHECK_REGISTRY, register_check, run_check
from conformance.harness.context import HarnessContext, judge, result
from conformance.harness.run import build_matrix, run_all

__all__ = [
    "CHECK_REGISTRY",
    "HarnessContext",
    "build_matrix",
    "judge",
    "register_check",
    "result",
    "run_all",
    "run_check",
]
