"""The output-token limit a runtime sends when the conversation asks for none, judged once.

A provider that requires a limit (the profile's `max_tokens_required`: Anthropic's Messages API
answers 400 without `max_tokens`) must get one, and a runtime may choose the provider's default or
the model's own output limit (both are documented practice: the reference sends the profile's
default, pydantic-ai the model's limit). So the value is tolerated, not compared: present where
required, a positive integer, at most the model's output limit (`ModelInfo.max_output`); where the
field is optional, absent or such an integer.

Rows that name this question (`judge_token_limit: true`) judge it here; every other encode row
leaves the field out of its comparison when its conversation asks for no limit, so one wrong
default turns one row red, not every request row.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.request_form import RequestFinding, request_table


def token_limit_keys(profile: ProviderProfile) -> frozenset[str]:
    """Every key the provider reads as its output-token limit (its fields and their documented spellings)."""
    fields = {profile.max_tokens_field}
    if profile.reasoning_max_tokens_field:
        fields.add(profile.reasoning_max_tokens_field)
    table = request_table(profile.dialect)
    # a rename is read both ways: Groq's field is max_tokens, and it reads max_completion_tokens alike
    aliases = {
        r.path if r.to in fields else r.to
        for r in table.renames
        if (r.to in fields or r.path in fields)
        and "." not in r.path
        and (r.when is None or getattr(profile, r.when, False))
    }
    return frozenset(fields | aliases)


def _holder(body: Any, at: str) -> dict[str, Any] | None:
    if not isinstance(body, dict):
        return None
    for key in [k for k in at.split(".") if k]:
        body = body.get(key)
        if not isinstance(body, dict):
            return None
    return body


def without_token_limit(body: Any, profile: ProviderProfile) -> Any:
    """`body` without its token-limit keys (a copy of the objects changed; an emptied holder removed)."""
    at = request_table(profile.dialect).token_limit_at
    holder = _holder(body, at)
    keys = token_limit_keys(profile)
    if holder is None or not keys & holder.keys():
        return body
    trimmed = {k: v for k, v in holder.items() if k not in keys}
    if not at:
        return trimmed
    parts = at.split(".")
    return _replace(body, parts, trimmed)


def _replace(body: dict[str, Any], parts: list[str], value: dict[str, Any]) -> dict[str, Any]:
    head, *rest = parts
    inner = _replace(body[head], rest, value) if rest else value
    out = {k: v for k, v in body.items() if k != head}
    if inner:  # an emptied generationConfig / options reads as left out
        out[head] = inner
    return out


def token_limit_findings(body: Any, profile: ProviderProfile, model: str | None) -> list[RequestFinding]:
    """What is wrong with the token limit of `body` (empty: tolerated), as typed request findings."""
    at = request_table(profile.dialect).token_limit_at
    holder = _holder(body, at) or {}
    keys = sorted(token_limit_keys(profile) & holder.keys())
    limit = profile.model_info(model).max_output
    prefix = f"{at}." if at else ""
    out: list[RequestFinding] = []
    if not keys and profile.max_tokens_required:
        fact = f"{profile.name} requires a token limit on every request and rejects one without it"
        field = prefix + profile.max_tokens_field
        out.append(RequestFinding(path=field, expected=f"1..{limit}", verdict="fail", fact=fact))
    for key in keys:
        value = holder[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            fact = "a token limit is a positive integer"
        elif value > limit:
            writer = model or profile.default_model
            fact = f"{writer} writes at most {limit} tokens; {profile.name} rejects a larger limit"
        else:
            continue
        out.append(RequestFinding(path=prefix + key, expected=f"1..{limit}", actual=value, verdict="fail", fact=fact))
    return out


def window_findings(body: Any, profile: ProviderProfile, model: str | None, prompt_floor: int) -> list[RequestFinding]:
    """What is wrong with the token limit of `body` when the prompt takes at least `prompt_floor`
    tokens of the model's context window (empty: tolerated). The provider rejects a request whose
    prompt and limit together exceed the window, so the limit must fit what the window leaves; the
    prompt's exact count depends on the tokenizer, so any value from half that room up to it passes."""
    at = request_table(profile.dialect).token_limit_at
    holder = _holder(body, at) or {}
    keys = sorted(token_limit_keys(profile) & holder.keys())
    info = profile.model_info(model)
    room = info.context_window - prompt_floor
    high = min(info.max_output, room)
    low = max(1, room // 2)
    bound = f"{low}..{high}"
    writer = model or profile.default_model
    prefix = f"{at}." if at else ""
    if not keys:
        fact = "the conversation asks for a limit, and the provider's default may not fit what the window leaves"
        field = prefix + profile.max_tokens_field
        return [RequestFinding(path=field, expected=bound, verdict="fail", fact=fact)]
    out: list[RequestFinding] = []
    for key in keys:
        value = holder[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            fact = f"a prompt of a few dozen tokens leaves {writer} more than {low} tokens to write"
        elif value > high:
            fact = (
                f"{writer}'s {info.context_window}-token window holds the prompt (at least {prompt_floor} tokens) "
                f"and the output together; {profile.name} rejects a limit above what it leaves"
            )
        else:
            continue
        out.append(RequestFinding(path=prefix + key, expected=bound, actual=value, verdict="fail", fact=fact))
    return out


__all__ = ["token_limit_findings", "token_limit_keys", "window_findings", "without_token_limit"]
