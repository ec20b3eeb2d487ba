"""The output-token limit a runtime sends when the conversation asks for none, judged once.

A provider that requires a limit (the profile's `max_tokens_required`: Anthropic's Messages API
answers 400 without `max_tokens`) must get one, and a runtime may choose the provider's default or
the model's own output limit (both are documented practice: the reference sends the profile's
default, pydantic-ai the model's limit). So the value is tolerated, not compared: present where
required, a positive integer, at most the model's output limit (`ModelInfo.max_output`); where the
field is optional, absent or such an integer.

Rows that name this question (`judge_token_limit: true`) judge it here; every other encode row
leaves the field out of its comparison when its conversation asks for no limit, so one wrong
default turns one row red, not every request row. The rules and their sources are the rule book's
(`conformance.codecs.token_limits`).
"""

from __future__ import annotations

from conformance.codecs.token_limits import token_limit_findings, token_limit_keys, window_findings, without_token_limit

__all__ = ["token_limit_findings", "token_limit_keys", "window_findings", "without_token_limit"]
