"""The `server_tools` option: tools the provider runs itself, declared in its own wire shape.

`options.server_tools` is a list of tool objects sent as they are, after the function tools
(`{"type": "web_search"}` on the Responses API, `{"type": "web_search_20250305", "name":
"web_search"}` on Anthropic). Only the dialects with server tools read it; what those tools did
comes back as `server_tool` blocks.
"""

from __future__ import annotations

from typing import Any

from conformance.exceptions import InputError
from conformance.model import Options

OPTION = "server_tools"


def server_tool_specs(options: Options) -> list[dict[str, Any]]:
    """The declared server tools (none when the option is absent); `InputError` naming the option
    when it is not a list of objects."""
    value = (options.model_extra or {}).get(OPTION)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError("must be a list of tool objects", where=f"options.{OPTION}")
    for n, tool in enumerate(value):
        if not isinstance(tool, dict) or not isinstance(tool.get("type"), str):
            raise InputError("a server tool is an object with a `type`", where=f"options.{OPTION}[{n}]")
    return [dict(tool) for tool in value]
