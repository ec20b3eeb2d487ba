"""Model compatibility flags applied before encoding (`ModelInfo` in `capabilities`).

- `system_message: False` (OpenAI o1-mini, Gemma on the Gemini API): there is no system role, so
  the system prompt is put first in the first user message (``<system>\\n\\n<user text>``), or is
  the first user message when the history does not start with one;
- `streaming: False`: a request that asks for a stream is an `UnsupportedFeatureError`;
- `tool_use: False`: a request with tools or a tool choice is an `UnsupportedFeatureError` (models
  with prompt-based tools are `native_tools: False` instead);
- `options.server_tools` on a dialect whose codec sends none (`Codec.server_tools`) is an
  `UnsupportedFeatureError`, not an unknown field in the body or a silent drop;
- `accepts_temperature: False` / `accepts_stop: False`: a request with `temperature` or `top_p` /
  `stop` is an `UnsupportedFeatureError` naming `options.<field>`, unless it sets
  `options.drop_unsupported`: then `runtime.budget.filter_options` removes them with a warning.

The o-series rules live in the same table: `system_role: developer`, `accepts_temperature: False`
and `accepts_stop: False`, and `reasoning_max_tokens_field` (`max_completion_tokens`).
"""

from __future__ import annotations

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for
from conformance.codecs.server_tools import OPTION as SERVER_TOOLS
from conformance.codecs.server_tools import server_tool_specs
from conformance.exceptions import UnsupportedFeatureError
from conformance.model import Conversation, Message, SystemMessage, TextBlock, UserMessage
from conformance.runtime.budget import check_options


def check_features(conv: Conversation, profile: ProviderProfile) -> None:
    """Raise `UnsupportedFeatureError` for a feature the request asks for and the model lacks."""
    model = conv.model or profile.default_model
    info = profile.model_info(model)
    if conv.options.stream and not info.streaming:
        raise UnsupportedFeatureError(f"{profile.name} model {model!r} does not stream", where="options.stream")
    if not info.tool_use and (conv.tools or conv.options.tool_choice is not None):
        raise UnsupportedFeatureError(f"{profile.name} model {model!r} takes no tools", where="tools")
    if server_tool_specs(conv.options) and not codec_for(profile).server_tools:
        raise UnsupportedFeatureError(
            f"{profile.name} runs no tools of its own in the {profile.dialect} dialect",
            where=f"options.{SERVER_TOOLS}",
        )
    check_options(conv.options, profile, model)


def fold_system(messages: list[Message], profile: ProviderProfile, model: str) -> tuple[list[Message], int]:
    """Messages without system messages for a model that has no system role, and how many were folded."""
    if profile.model_info(model).system_message:
        return messages, 0
    system = [m for m in messages if isinstance(m, SystemMessage)]
    if not system:
        return messages, 0
    prompt = "\n\n".join("".join(b.text for b in m.content) for m in system)
    rest = [m for m in messages if not isinstance(m, SystemMessage)]
    if rest and isinstance(rest[0], UserMessage):
        first = rest[0]
        blocks = list(first.content)
        if blocks and isinstance(blocks[0], TextBlock):
            blocks[0] = TextBlock(text=f"{prompt}\n\n{blocks[0].text}")
        else:
            blocks.insert(0, TextBlock(text=prompt))
        return [first.model_copy(update={"content": blocks}), *rest[1:]], len(system)
    return [UserMessage(content=[TextBlock(text=prompt)]), *rest], len(system)
