"""A loopback provider emulator serving the bundled cassettes, with fault injection."""

from conformance.emulator.faults import Fault
from conformance.emulator.server import Settings, base_urls, serve, start_in_thread

__all__ = ["Fault", "Settings", "base_urls", "serve", "start_in_thread"]
