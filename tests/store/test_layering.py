"""The store sits in the runtime layer: importing it loads nothing from the harness or the report."""

from __future__ import annotations

import subprocess
import sys


def test_the_store_imports_no_harness_or_report_module() -> None:
    code = (
        "import sys, conformance.store, conformance.store.fsck, conformance.store.session;"
        "print(sorted(m for m in sys.modules if m.startswith(('conformance.harness', 'conformance.report'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
