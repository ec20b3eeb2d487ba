"""The runtime's declaration: undeclared offers everything; declared sets narrow it."""

from __future__ import annotations

from typing import ClassVar

from conformance.runtime.protocol import Declaration, declaration_of


class _Bare:
    name = "bare"


class _Declared:
    name = "lib"
    declaration: ClassVar[dict[str, object]] = {
        "name": "lib",
        "version": "1.2",
        "providers": ["openai"],
        "not_offered": ["auth_rotation"],
    }


def test_undeclared_offers_everything() -> None:
    decl = declaration_of(_Bare())
    assert decl.name == "bare"
    assert decl.offers_provider("gemini")
    assert decl.offers_feature("compaction")
    assert decl.exposes("message.raw_stop_reason")


def test_declared_dict_narrows() -> None:
    decl = declaration_of(_Declared())
    assert decl.version == "1.2"
    assert decl.offers_provider("openai")
    assert not decl.offers_provider("anthropic")
    assert not decl.offers_feature("auth_rotation")
    assert decl.offers_feature("text")


def test_exposed_fields_only_limit_optional_paths() -> None:
    decl = Declaration(name="x", exposed_fields=frozenset({"error.retry_after_s"}))
    assert decl.exposes("error.retry_after_s")
    assert not decl.exposes("message.raw_stop_reason")
    assert decl.exposes("message.content")  # not optional: always compared


def test_json_round_trip() -> None:
    decl = Declaration(name="x", version="2", providers=frozenset({"a", "b"}), not_offered=frozenset({"f"}))
    assert Declaration.from_json(decl.to_json()) == decl


def test_a_declared_policy_round_trips_through_the_handshake_form() -> None:
    decl = Declaration.from_json(
        {"name": "lib", "policy": {"max_attempts": "settable", "max_wait_s": "unavailable", "backoff_growth": 2}}
    )
    assert decl.policy_value("max_attempts") == "settable"
    assert decl.policy_value("backoff_growth") == 2.0
    assert decl.policy_value("clamp_max_tokens") is None
    assert Declaration.from_json(decl.to_json()) == decl
    assert declaration_of(_Bare()).policy is None


def test_a_policy_that_does_not_read_is_refused_naming_the_setting() -> None:
    import pytest

    with pytest.raises(ValueError, match=r"policy\.max_wait is not a policy setting"):
        Declaration.from_json({"policy": {"max_wait": 60}})
    with pytest.raises(ValueError, match=r"policy\.max_wait_s must be"):
        Declaration.from_json({"policy": {"max_wait_s": "sometimes"}})
