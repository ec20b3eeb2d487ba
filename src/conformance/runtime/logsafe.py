"""Keys never reach a log line: a filter on the HTTP client loggers that redacts key-shaped values
and `key=` query parameters (httpx logs every request URL, and Gemini-style auth puts the key
there). Installed once, when the runtime's auth module is imported."""

from __future__ import annotations

import logging

from conformance.secrets import redact_line

__all__ = ["LOGGERS", "RedactingFilter", "install", "redact_line"]
LOGGERS = ("httpx", "httpcore", "httpx2", "httpcore2")


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        safe = redact_line(message)
        if safe != message:
            record.msg = safe
            record.args = ()
        return True


_FILTER = RedactingFilter()


def install() -> None:
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
