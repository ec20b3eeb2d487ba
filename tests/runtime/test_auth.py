"""Auth: each style puts the key in one place, keys come from the environment, and the pool
rotates, cools down and refreshes without ever showing a key."""

from __future__ import annotations

import pickle

import pytest

from conformance.capabilities import get_profile
from conformance.codecs import WireRequest
from conformance.exceptions import InputError, MissingKeyError
from conformance.runtime.auth import AuthPool, apply_auth, fingerprint, resolve_key
from conformance.secrets import Secret, key_fingerprint

REQUEST = WireRequest("POST", "/chat/completions", {"model": "m"}, {"content-type": "application/json"})


@pytest.mark.parametrize(
    ("provider", "header", "value"),
    [
        ("openai", "authorization", "Bearer sk-canary"),
        ("anthropic", "x-api-key", "sk-canary"),
        ("gemini", "x-goog-api-key", "sk-canary"),
    ],
)
def test_each_auth_style_puts_the_key_in_one_place(provider: str, header: str, value: str) -> None:
    url, headers = apply_auth(REQUEST, get_profile(provider), "sk-canary")
    assert headers[header] == value
    assert "sk-canary" not in url
    assert sum("sk-canary" in v for v in headers.values()) == 1


def test_query_key_style() -> None:
    profile = get_profile("gemini").model_copy(update={"auth_style": "query-key"})
    url, headers = apply_auth(REQUEST, profile, "sk-canary")
    assert url.endswith("/chat/completions?key=sk-canary")
    assert all("sk-canary" not in v for v in headers.values())


def test_keys_come_from_the_environment() -> None:
    key = resolve_key(get_profile("gemini"), {"GOOGLE_API_KEY": "g-1"})
    assert key == Secret("g-1") and key is not None and key.reveal() == "g-1"
    assert "g-1" not in repr(key) + str(key) + f"{key}" + f"{key!r:>40}" and key_fingerprint("g-1") in repr(key)
    with pytest.raises(TypeError, match="not pickled"):
        pickle.dumps(key)
    assert resolve_key(get_profile("ollama"), {}) is None
    with pytest.raises(MissingKeyError, match="set GEMINI_API_KEY or GOOGLE_API_KEY"):
        resolve_key(get_profile("gemini"), {"GEMINI_API_KEY": "  "})


def test_pool_cooldown_rotation_and_refresh() -> None:
    pool = AuthPool.of(["sk-one-secret", "sk-two-secret"])
    assert "secret" not in repr(pool)
    assert pool.pick(0.0) == 0
    pool.cool_down(0, until=20.0)
    assert pool.pick(0.0) == 1
    pool.cool_down(1, until=5.0)
    assert pool.pick(0.0) is None
    assert pool.next_ready(0.0) == 5.0
    assert pool.pick(5.0) == 1
    pool.mark_refresh(1)
    assert pool.pick(6.0) is None and pool.next_ready(6.0) == 20.0
    assert pool.pick(20.0) == 0
    with pytest.raises(InputError, match="non-empty API key"):
        AuthPool.of(["ok", ""])


def test_no_auth_style_sends_no_key() -> None:
    url, headers = apply_auth(REQUEST, get_profile("ollama"), "sk-canary")
    assert "sk-canary" not in url and all("sk-canary" not in v for v in headers.values())
    assert headers == REQUEST.headers


def test_query_key_joins_an_existing_query() -> None:
    profile = get_profile("gemini").model_copy(update={"auth_style": "query-key"})
    stream = WireRequest("POST", "/models/m:streamGenerateContent?alt=sse", {}, {})
    url, _ = apply_auth(stream, profile, "k&1")
    assert url.endswith(":streamGenerateContent?alt=sse&key=k%261")


def test_apply_auth_leaves_the_request_alone() -> None:
    before = dict(REQUEST.headers)
    apply_auth(REQUEST, get_profile("openai"), "sk-canary")
    assert REQUEST.headers == before


def test_resolve_key_prefers_the_first_variable_and_names_them_all() -> None:
    env = {"GEMINI_API_KEY": "g-first", "GOOGLE_API_KEY": "g-second"}
    assert resolve_key(get_profile("gemini"), env) == Secret("g-first")
    with pytest.raises(MissingKeyError) as info:
        resolve_key(get_profile("openai"), {"OPENAI_API_KEY": ""})
    assert "OPENAI_API_KEY" in str(info.value)


def test_pool_shows_fingerprints_only() -> None:
    pool = AuthPool.of(["sk-alpha-SECRET-1", "sk-beta-SECRET-2"])
    shown = [repr(pool), str(pool), f"{pool}", repr(pool.slots)]
    assert all("SECRET" not in s for s in shown)
    assert repr(pool).startswith("AuthPool(key#") and "current=0" in repr(pool)
    assert fingerprint("sk-alpha-SECRET-1") in repr(pool)


def test_all_cooling_down_reports_the_shortest_wait() -> None:
    pool = AuthPool.of(["a", "b", "c"])
    pool.cool_down(0, until=30.0)
    pool.cool_down(1, until=12.0)
    pool.cool_down(2, until=45.0)
    assert pool.pick(0.0) is None and pool.next_ready(0.0) == 12.0
    assert pool.pick(12.0) == 1


def test_a_profile_to_refresh_is_skipped_until_refreshed() -> None:
    pool = AuthPool.of(["old", "other"])
    pool.mark_refresh(0)
    pool.mark_refresh(1)
    assert pool.pick(1e9) is None and pool.next_ready(1e9) is None
    pool.refreshed(0, "new")
    assert pool.pick(0.0) == 0 and pool.key(0) == "new"


@pytest.mark.parametrize("key", ["sk-abc\n", "Bearer sk-abc", "sk-\tabc", "sk-abc\x00", "   "])
def test_a_key_that_cannot_be_a_key_is_refused_before_use_without_showing_it(key: str) -> None:
    from conformance.runtime.auth import validate_key

    with pytest.raises(InputError) as info:
        validate_key(key, where="OPENAI_API_KEY")
    assert "sk-abc" not in str(info.value)
    with pytest.raises(InputError):
        AuthPool.of(["sk-good", key])
    with pytest.raises(InputError):
        apply_auth(WireRequest("POST", "/chat/completions", {}), get_profile("openai"), key)
    if key.strip() and key.strip() != "sk-abc":  # a variable's surrounding whitespace is trimmed first
        with pytest.raises(InputError):
            resolve_key(get_profile("openai"), {"OPENAI_API_KEY": key})


def test_a_well_formed_key_is_used_as_it_is() -> None:
    from conformance.runtime.auth import validate_key

    assert validate_key("sk-proj-AbC_123-xyz") == "sk-proj-AbC_123-xyz"
    _, headers = apply_auth(WireRequest("POST", "/chat/completions", {}), get_profile("openai"), "sk-proj-AbC")
    assert headers["authorization"] == "Bearer sk-proj-AbC"
