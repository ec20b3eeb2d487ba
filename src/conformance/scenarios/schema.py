"""The scenario file schema. One YAML file per scenario under `scenarios/<topic>/`; id = stem.

```yaml
title: Streamed text with a multibyte character split across chunks
feature: stream_text            # a row of the feature catalog
check: decode                   # decode | encode | repair | retry | transcript | generated | handoff | agent
input:                          # the conversation the runtime encodes (CONVERSATION.json shape)
  messages: [{role: user, content: "Say hello"}]
  options: {stream: true, max_tokens: 64}
providers:                      # one entry per provider that has something to say
  openai: {}                    # cassette defaults to cassettes/<provider>/<id>.yaml
  anthropic: {cassette: cassettes/anthropic/other.yaml}
  gemini: {unsupported: "Gemini has no …"}
expected: {message: {...}}      # one normalized form shared by every provider
overrides:                      # deep-merged over `expected` for one provider
  anthropic: {message: {raw_stop_reason: end_turn}}
ignore: [message.usage]         # contract paths left out of the comparison
focus: [error.retry_after_s]    # what the row is about (default: the feature's, see harness.focus)
chunk_size: 3                   # replay stream bodies in 3-byte chunks
applies_to: [openai]            # only these providers (default: all); others are not listed
judge_token_limit: true         # encode: judge the token limit sent when the conversation sets none
token_limit_room: 20            # encode: the limit must fit the window left after a prompt of >= 20 tokens
request_rules: true             # encode: judged by the provider's request rules, `expected: {keeps: [...]}`
basis: provider                 # provider (default): a provider fact, with its `source`; policy: a recommendation
source: "https://… — 'quoted sentence'"   # where a provider fact comes from (doc + quote, a real 4xx, real 2xx);
                                # a provider's entry may carry its own `source` (it wins for that provider)
policy_settings: [max_wait_s]   # basis: policy — the settings of runtime.protocol.POLICY_SETTINGS it rests on
```
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from conformance.scenarios.catalog import known_feature_ids

BuiltinCheck = Literal[
    "decode", "encode", "repair", "retry", "transcript", "generated", "handoff", "context", "store", "agent"
]
CHECKS: tuple[str, ...] = get_args(BuiltinCheck)
"""The checks this package ships; `register_check_name` adds others (the harness's `register_check` does)."""

_CHECK_NAMES: set[str] = set(CHECKS)


def register_check_name(name: str) -> None:
    """Let scenario files name the check `name` (a third-party check registered with the harness)."""
    _CHECK_NAMES.add(name)


def known_checks() -> list[str]:
    """The check names a scenario file may use, sorted."""
    return sorted(_CHECK_NAMES)


class ProviderEntry(BaseModel):
    """A scenario's settings for one provider: cassette, model, options, or why it is unsupported."""

    model_config = ConfigDict(extra="forbid")

    cassette: str | None = None
    """Path relative to the project root; default `cassettes/<provider>/<scenario id>.yaml`."""
    unsupported: str | None = None
    """Why this provider cannot have this feature (a provider fact, not a missing cassette)."""
    model: str | None = None
    """Model to encode for; default: the conversation's, else the profile's default."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Extra runtime options for this provider (e.g. profile flags under test)."""
    source: str | None = None
    """Where this provider's fact comes from, when it is not the scenario's `source` (a provider
    document with the quoted sentence, a real recorded 4xx, real 2xx acceptance)."""


class ScenarioFile(BaseModel):
    """The content of one scenario file (docs/scenarios.md): what to run, on which providers, and what to expect."""

    model_config = ConfigDict(extra="forbid")

    title: str
    feature: str
    check: str
    description: str = ""
    input: dict[str, Any] = Field(default_factory=dict)
    providers: dict[str, ProviderEntry] = Field(default_factory=dict)
    expected: Any = None
    overrides: dict[str, Any] = Field(default_factory=dict)
    ignore: list[str] = Field(default_factory=list)
    chunk_size: int | None = Field(default=None, ge=1)
    """Replay stream bodies in chunks of this many bytes (e.g. 1 splits every multibyte character)."""
    focus: list[str] | None = None
    """The contract paths this row is about (default: its feature's, `harness.focus.FEATURE_FOCUS`). A
    runtime that declares it does not expose one of them gets `not_offered` for the row; optional
    fields it is not about are left out of the comparison where the runtime does not expose them."""
    applies_to: list[str] | None = None
    """The providers this scenario is about (default: every provider); others get no row at all."""
    judge_token_limit: bool = False
    """Encode rows whose conversation sets no token limit: judge the limit the runtime sends (present
    where the provider requires one, a positive integer at most the model's output limit) instead of
    leaving it out of the comparison (`harness.checks.token_limit`)."""
    token_limit_room: int | None = Field(default=None, ge=1)
    """Encode rows whose conversation asks for more output than the model's context window leaves:
    the fewest tokens the prompt can count (e.g. one per word, which every tokenizer reaches). The
    limit sent is judged, not compared (a runtime estimates the prompt its own way): a positive
    integer, at most the model's output limit and its window minus this many tokens, and at least
    half of that (`harness.checks.token_limit.window_findings`)."""
    request_rules: bool = False
    """Encode rows about what a provider rejects: the request is judged by the provider's request
    validator and must hold each string of `expected.keeps`, instead of being compared with an
    expected body (`harness.checks.request_rules`)."""
    sdk: dict[str, str] = Field(default_factory=dict)
    """Per provider: why the official SDK is known to disagree here (the SDK test asserts ours)."""
    basis: Literal["provider", "policy"] = "provider"
    """What the expectation rests on: a `provider` fact (cite it in `source`), or a `policy` of the
    harness — a wait ceiling, back-off growth, an attempt cap, a client-side clamp — named in
    `policy_settings` and judged against the policy the runtime declares (`Declaration.policy`)."""
    source: str | None = None
    """Where a provider fact comes from: a provider document (URL and the quoted sentence), a real
    recorded 4xx (its recording and message), or real 2xx acceptance. None: unsourced."""
    policy_settings: list[str] = Field(default_factory=list)
    """`basis: policy`: the policy settings the expectation follows (`runtime.protocol.POLICY_SETTINGS`)."""

    @field_validator("policy_settings")
    @classmethod
    def _known_settings(cls, value: list[str]) -> list[str]:
        from conformance.runtime.protocol import POLICY_SETTINGS

        unknown = [v for v in value if v not in POLICY_SETTINGS]
        if unknown:
            raise ValueError(f"unknown policy setting {unknown[0]!r}; known: {', '.join(POLICY_SETTINGS)}")
        return value

    @model_validator(mode="after")
    def _policy_named(self) -> ScenarioFile:
        if self.basis == "policy" and not self.policy_settings:
            raise ValueError("basis: policy needs policy_settings (the settings its expectation follows)")
        if self.basis == "provider" and self.policy_settings:
            raise ValueError("policy_settings is for basis: policy rows")
        return self

    @field_validator("applies_to", "providers", "overrides")
    @classmethod
    def _known_providers(cls, value: Any) -> Any:
        """A provider name anywhere in the scenario is one the harness knows: a mistyped one would
        silently drop the scenario's row (`applies_to`) or its entry or override."""
        import difflib

        from conformance.capabilities import provider_names

        known = provider_names()
        keys = value if isinstance(value, list) else list(value or {})
        for name in (n.strip() for key in keys for n in str(key).split(",") if n.strip()):  # "a, b" overrides
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise ValueError(f"unknown provider {name!r}; {hint}known: {', '.join(known)}")
        return value

    @field_validator("feature")
    @classmethod
    def _known_feature(cls, value: str) -> str:
        if value not in known_feature_ids():
            raise ValueError(
                f"unknown feature {value!r}; see the feature catalog in the README "
                "(a project declares its own in its root's conformance.yaml)"
            )
        return value

    @field_validator("check")
    @classmethod
    def _known_check(cls, value: str) -> str:
        if value not in _CHECK_NAMES:
            raise ValueError(f"unknown check {value!r}; known checks: {', '.join(known_checks())}")
        return value

    @field_validator("providers", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ({} if v is None else v) for k, v in value.items()}
        return value
