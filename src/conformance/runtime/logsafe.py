"""Keys never reach a log line: a filter that redacts key-shaped values, `key=` query parameters
and every key registered with `register` (in any letter case, and their long substrings) from the
records of the HTTP client libraries (httpx logs every request URL and status line, Gemini-style
auth puts the key in the URL, and httpcore logs response headers at DEBUG).

A logging filter runs only for records logged on the logger it is attached to, not for records
propagated from a child: so it is attached to every logger those libraries log on
(`httpcore.http11`, `httpcore.connection`, …), found by name prefix when `install` runs (once on
import of the runtime's auth module, and again before each recording, for loggers created since).
"""

from __future__ import annotations

import logging
import threading

from conformance.secrets import Secret, redact_line, scrub_exact

__all__ = ["LOGGERS", "RedactingFilter", "install", "redact_line", "register"]
LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "httpx2",
    "httpcore2",
    "hpack",
    "h2",
    "aiohttp.client",
    "urllib3.connectionpool",
)
"""Loggers that see requests and responses; every existing logger under these names is covered too."""
_PREFIXES = tuple(name.split(".")[0] for name in LOGGERS)

_KEYS: list[str] = []
_LOCK = threading.Lock()


def register(secret: Secret | str) -> None:
    """Scrub this key (and its long substrings, in any case) from every HTTP log record from now on."""
    value = secret.reveal() if isinstance(secret, Secret) else secret
    if value:
        with _LOCK:
            if value not in _KEYS:
                _KEYS.append(value)


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        safe = redact_line(scrub_exact(message, tuple(_KEYS)))
        if safe != message:
            record.msg = safe
            record.args = ()
        return True


_FILTER = RedactingFilter()


def install() -> None:
    """Attach the filter to every HTTP client logger (the named ones, and all existing loggers
    whose name starts with one of their packages)."""
    names = set(LOGGERS) | {name for name in list(logging.Logger.manager.loggerDict) if name.split(".")[0] in _PREFIXES}
    for name in sorted(names):
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
