"""Worked examples of running the conformance matrix against other runtimes."""
