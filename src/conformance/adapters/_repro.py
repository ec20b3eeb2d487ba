"""What a runtime offers `conformance repro`: its library call, written out for a standalone script.

A runtime that can be reproduced without the harness has a `reproduction` attribute holding a
`Reproduction`. Its snippets are Python source that the script runs as it is, with only the
library installed:

- `decode`: defines `library_result(url: str) -> dict`, the library called as the adapter calls it
  for a decode row, against `url` (a loopback server answering every request with the recorded
  response, in the row's chunks), and its result (or raised exception) mapped to the normalized form;
- `encode`: defines `library_request(url: str) -> None`, the library asked for the row's request,
  sent to `url` (the server keeps the body and answers with an error the call may raise).

A snippet may read these names, set by the script: `PROVIDER`, `MODEL` (the row's model, or None),
`STREAM`, `CONVERSATION` (the scenario's conversation), `PATH` (the path of the provider's base
URL, `/v1`), `get_profile(PROVIDER)` (the provider's registry flags the copied code reads, baked
in). Every module-level definition of the adapter's module it names (functions, tables, constants)
is copied into the script with what they name in turn, so the mapping is the adapter's own code;
`setup` runs before the library is imported (environment switches).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reproduction:
    """A runtime's standalone library call (see the module docstring)."""

    module: str
    """The adapter's module, whose definitions the snippets name (`examples.openai_sdk`)."""
    decode: str | None = None
    """Source defining `library_result(url)`; None: no decode row can be reproduced."""
    encode: str | None = None
    """Source defining `library_request(url)`; None: no encode row can be reproduced."""
    setup: str = ""
    """Source run before the library is imported (e.g. `os.environ` switches)."""
    overrides: str = ""
    """Source run after the copied definitions, replacing the ones that reach for the harness
    (a client built on the harness's transport rebuilt on the default one)."""


__all__ = ["Reproduction"]
