"""Matrices of two runtimes for the comparison tests, built from `sample.py`.

`reference` is `sample_matrix()`. `other` (runtime `mypkg.adapter:make`) ran three of the four
providers (no ollama), fails openai's stream_text (with a diff), is skipped on anthropic's
thinking_signature (it lacks a capability), and ran one feature the reference did not
(retry_backoff on openai). Every field a runtime can fill carries canaries when asked.
"""

from __future__ import annotations

from conformance.report.matrix import FeatureRow, Matrix
from tests.report.sample import IMG, PROVIDERS, SCRIPT, SEPARATORS, cell, result, sample_matrix

OTHER = "mypkg.adapter:make"


def reference() -> Matrix:
    return sample_matrix()


def other(*, runtime: str = OTHER, canaries: bool = True) -> Matrix:
    bad = SCRIPT + IMG + SEPARATORS if canaries else "hostile text"
    m = sample_matrix(stream_text_openai="fail", canaries=canaries)
    skipped = cell(
        "anthropic",
        "thinking_signature",
        result(
            "anthropic",
            "thinking_signature",
            "thinking_sig",
            "skipped",
            reason=f"runtime {runtime} does not implement `turn` {bad}",
        ),
    )
    retry = cell("openai", "retry_backoff", result("openai", "retry_backoff", "retry_after_429", "pass", check="turn"))
    cells = [
        skipped if (c.provider, c.feature) == ("anthropic", "thinking_signature") else c
        for c in m.cells
        if c.provider != "ollama"
    ]
    cells.append(retry)
    counts: dict[str, int] = {}
    for c in cells:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    features = [
        *m.features,
        FeatureRow(id="retry_backoff", group="errors & retries", title="Retry-After honoured " + bad),
    ]
    return m.model_copy(
        update={"runtime": runtime, "providers": PROVIDERS[:3], "features": features, "cells": cells, "counts": counts}
    )
