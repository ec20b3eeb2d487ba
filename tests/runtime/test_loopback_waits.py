"""Which waits of a runtime program the check's clock records: those it says it made, if they fit the gaps."""

from __future__ import annotations

from conformance.runtime.loopback import fit_waits


def test_waits_said_in_order_that_fit_the_gaps_are_kept() -> None:
    assert fit_waits([1.0, 2.0], [1.01, 0.1, 2.0]) == [1.0, 2.0]
    assert fit_waits([30.0], [0.2, 29.99]) == [30.0]  # clock granularity
    assert fit_waits([], [1.4]) == []  # a gap the program says it worked through


def test_a_wait_longer_than_every_gap_left_is_not_believed() -> None:
    assert fit_waits([3.0], [1.0, 2.0]) is None
    assert fit_waits([2.0, 1.0], [1.0, 2.0]) is None  # out of order
    assert fit_waits([1.0], []) is None
