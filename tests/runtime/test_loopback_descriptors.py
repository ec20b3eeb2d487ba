"""The loopback serves a process that already holds over a thousand descriptors (a long test session,
a gateway): no wait of its own goes through `select.select`, which refuses a descriptor above 1023."""

from __future__ import annotations

import os
import resource
import socket

from conformance.runtime.loopback import _wait_closed

HIGH_FD = 1500


def test_a_held_answer_sees_a_client_close_on_a_descriptor_above_1023() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft <= HIGH_FD:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, HIGH_FD + 100), hard))
    ours, theirs = socket.socketpair()
    try:
        os.dup2(ours.fileno(), HIGH_FD)
        high = socket.socket(fileno=HIGH_FD)
        ours.close()
        try:
            theirs.close()  # the client hangs up while the answer is held
            assert _wait_closed(high, 2.0) is True
        finally:
            high.close()
    finally:
        ours.close()
        theirs.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
