"""Exceptions: raised only for misuse or corrupt input, never for what a provider returns.

What a provider returns (a 400, a 429, a truncated stream) is data: a `ProviderError` inside an
`Outcome`. Exceptions say what the *user* gave us that cannot be used, and where it is::

    ConformanceError
    ├── InputError            a file or value the user supplied is malformed (names file/line/field)
    │   ├── ScenarioError     a scenario file is invalid
    │   ├── CassetteError     a cassette file is invalid or cannot be replayed
    │   ├── TranscriptError   a transcript cannot be read
    │   ├── WireFormatError   bytes that no decoder can frame (e.g. a non-UTF-8 SSE stream)
    │   └── UnsupportedFeatureError  a feature asked for explicitly that the model does not have
    ├── UnknownProviderError  a provider name that the registry does not hold
    ├── MissingKeyError       no API key in the environment for a live recording
    ├── SchemaError           a tool schema that cannot be sanitized (e.g. a recursive $ref)
    ├── ContextBudgetError    no room left for output in the context window (fail-early budgeting)
    └── WorkerCrashedError    a worker process of a parallel run died
"""

from __future__ import annotations

__all__ = [
    "CassetteError",
    "ConformanceError",
    "ContextBudgetError",
    "InputError",
    "MissingKeyError",
    "ScenarioError",
    "SchemaError",
    "TranscriptError",
    "UnknownProviderError",
    "UnsupportedFeatureError",
    "WireFormatError",
    "WorkerCrashedError",
]


class ConformanceError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(ConformanceError):
    """Malformed user input. `where` names the file, line or field."""

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class ScenarioError(InputError):
    """A scenario file that cannot be loaded."""


class CassetteError(InputError):
    """A cassette that cannot be loaded or replayed."""


class TranscriptError(InputError):
    """A transcript file that cannot be read at all."""


class WireFormatError(InputError):
    """Bytes that cannot be framed by any decoder."""


class UnsupportedFeatureError(InputError):
    """A feature the request asks for explicitly (streaming, tools) that the model does not have:
    an error rather than a request silently sent without it."""


class UnknownProviderError(ConformanceError):
    """A provider name that is not in the registry."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        super().__init__(f"unknown provider {name!r}; known providers: {', '.join(known)}")


class MissingKeyError(ConformanceError):
    """No API key for a live request."""

    def __init__(self, provider: str, variables: tuple[str, ...]) -> None:
        self.provider = provider
        self.variables = variables
        names = " or ".join(variables)
        super().__init__(f"{provider}: no API key; set {names} in the environment")


class SchemaError(InputError):
    """A tool JSON schema that cannot be sanitized for a provider."""


class ContextBudgetError(InputError):
    """The estimated input leaves no room for output in the model's context window."""


def one_line(exc: Exception) -> str:
    """A one-line account of `exc`: the first problem of a pydantic `ValidationError` (with its
    field and how many more there are), otherwise the message with its whitespace collapsed."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        problems = errors()
        if problems:
            first = problems[0]
            field = ".".join(str(p) for p in first.get("loc", ())) or "(top level)"
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            return f"{field}: {first.get('msg', '')}{more}"
    return " ".join(str(exc).split())


class WorkerCrashedError(ConformanceError):
    """A worker process of `run --jobs N` died (killed, out of memory, a crash in native code)."""
