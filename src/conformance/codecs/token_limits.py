"""The output-token limit of a request, as the provider reads it: where it sits, its spellings, and
the rule book's token-limit rules (`max_tokens_required`, `max_tokens_positive`, `max_output`,
`context_window`) applied to one body.

A provider that requires a limit (the profile's `max_tokens_required`: Anthropic) rejects a request
without one; every provider rejects a limit that is not a positive integer or exceeds what the
model writes (`ModelInfo.max_output`), and a prompt and limit that together exceed the model's
context window. Each finding carries its rule's source from the dialect's book.
"""

from __future__ import annotations

from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.request_form import RequestFinding, request_table
from conformance.codecs.rulebook import CHECKED, Rule, Scope, Source, rule_book


def token_limit_rules(*, required: Source | None, max_output: Source, window: Source) -> tuple[Rule, ...]:
    """A dialect's token-limit entries, with that dialect's sources (`required`: where a profile of
    the dialect may require a limit)."""
    needs = (
        (
            Rule(
                "token_limit_required",
                "answers 400 to a request without a token limit",
                (required,),
                scope=Scope(flag="max_tokens_required"),
                kind="token_limit",
                checked=CHECKED,
            ),
        )
        if required
        else ()
    )
    return (
        *needs,
        Rule(
            "max_tokens_positive",
            "answers 400 to a token limit that is not a positive integer",
            (max_output,),
            kind="token_limit",
            checked=CHECKED,
        ),
        Rule(
            "max_output",
            "answers 400 to a token limit above what the model writes (its output limit)",
            (max_output,),
            kind="token_limit",
            checked=CHECKED,
        ),
        Rule(
            "context_window",
            "answers 400 when the prompt and the token limit together exceed the model's context window",
            (window,),
            kind="token_limit",
            checked=CHECKED,
        ),
    )


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
    return _replace(body, at.split("."), trimmed)


def _replace(body: dict[str, Any], parts: list[str], value: dict[str, Any]) -> dict[str, Any]:
    head, *rest = parts
    inner = _replace(body[head], rest, value) if rest else value
    out = {k: v for k, v in body.items() if k != head}
    if inner:  # an emptied generationConfig / options reads as left out
        out[head] = inner
    return out


def _finding(profile: ProviderProfile, rule_id: str, path: str, fact: str, **kw: Any) -> RequestFinding:
    rule = rule_book(profile.dialect).rule(rule_id)
    sourced = rule is not None and rule.sourced
    source = rule.source_text() if rule is not None else ""
    return RequestFinding(
        path=path, verdict="fail" if sourced else "note", fact=f"{fact} ({rule_id})", source=source, **kw
    )


def token_limit_findings(
    body: Any, profile: ProviderProfile, model: str | None, *, presence: bool = True
) -> list[RequestFinding]:
    """What is wrong with the token limit of `body` (empty: tolerated), as typed request findings.
    `presence=False`: only the value is judged (the dialect's validator judges a missing limit)."""
    at = request_table(profile.dialect).token_limit_at
    holder = _holder(body, at) or {}
    keys = sorted(token_limit_keys(profile) & holder.keys())
    limit = profile.model_info(model).max_output
    prefix = f"{at}." if at else ""
    out: list[RequestFinding] = []
    if presence and not keys and profile.max_tokens_required:
        fact = f"{profile.name} requires a token limit on every request and rejects one without it"
        out.append(
            _finding(
                profile,
                "token_limit_required",
                prefix + profile.max_tokens_field,
                fact,
                expected=f"1..{limit}",
            )
        )
    for key in keys:
        value = holder[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            rule, fact = "max_tokens_positive", "a token limit is a positive integer"
        elif value > limit:
            writer = model or profile.default_model
            rule, fact = "max_output", f"{writer} writes at most {limit} tokens; {profile.name} rejects a larger limit"
        else:
            continue
        out.append(_finding(profile, rule, prefix + key, fact, expected=f"1..{limit}", actual=value))
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
        return [_finding(profile, "context_window", prefix + profile.max_tokens_field, fact, expected=bound)]
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
        out.append(_finding(profile, "context_window", prefix + key, fact, expected=bound, actual=value))
    return out
