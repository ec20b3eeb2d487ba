"""The extension points are open: a third-party check and a third-party codec (a new wire dialect),
registered from here, are usable from scenario files like the built-in ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from conformance import capabilities
from conformance.capabilities import ProviderProfile
from conformance.codecs import _CODECS, Codec, WireRequest, register_codec
from conformance.codecs.validation import Violation
from conformance.compare import ScenarioResult
from conformance.harness import CHECK_REGISTRY, HarnessContext, judge, register_check, run_check
from conformance.model import AssistantMessage, Conversation, ProviderError, TextBlock
from conformance.runtime.reference import ReferenceRuntime
from conformance.scenarios import Scenario, load_scenario
from conformance.scenarios import schema as scenario_schema

# a toy dialect: the request is {"prompt": <last user text>}, the answer {"reply": <text>}


def _encode(conv: Conversation, profile: ProviderProfile) -> WireRequest:
    last = conv.messages[-1]
    text = "".join(b.text for b in last.content if isinstance(b, TextBlock))
    return WireRequest(method="POST", path="/reply", body={"prompt": text})


def _decode(data: Any, profile: ProviderProfile) -> AssistantMessage:
    return AssistantMessage(content=[TextBlock(text=data["reply"])], stop_reason="stop")


def _classify(status: int, headers: Any, body: bytes, profile: ProviderProfile) -> ProviderError:
    return ProviderError(kind="server", status=status, message=body.decode(errors="replace"))


def _validate(body: dict[str, Any], profile: ProviderProfile) -> list[Violation]:
    ok = isinstance(body.get("prompt"), str) and body["prompt"]
    return [] if ok else [Violation("prompt", "required", "a non-empty prompt")]


def _no_stream(profile: ProviderProfile, *, events: bool = True) -> Any:
    raise NotImplementedError("the echo dialect does not stream")


ECHO = Codec(
    dialect="echo",
    encode=_encode,
    decode=_decode,
    stream=_no_stream,
    classify=_classify,
    stream_content_types=(),
    validate=_validate,
)


def check_shout(scenario: Scenario, provider: str, ctx: HarnessContext) -> ScenarioResult:
    """A third-party check: the runtime's encoded body, upper-cased, against `expected`."""
    body = ctx.runtime.encode(scenario.conversation(provider), provider)
    return judge(scenario, provider, scenario.expected_for(provider), str(body).upper(), ctx=ctx)


@pytest.fixture
def extended() -> Iterator[None]:
    register_codec(ECHO)
    capabilities.register(
        ProviderProfile(
            name="echo", dialect="echo", base_url="https://echo.example/v1", auth_style="none", default_model="echo-1"
        )
    )
    register_check("shout", check_shout)
    yield
    _CODECS.pop("echo", None)
    capabilities._PROFILES.pop("echo", None)
    CHECK_REGISTRY.pop("shout", None)
    scenario_schema._CHECK_NAMES.discard("shout")


DECODE_SCENARIO = """\
title: A reply in the echo dialect
feature: text
check: decode
input:
  messages: [{role: user, content: "ping"}]
providers:
  echo: {}
expected:
  message:
    role: assistant
    content: [{type: text, text: "pong"}]
    stop_reason: stop
"""

ECHO_CASSETTE = {
    "meta": {"authored": "2026-11-23"},
    "interactions": [
        {
            "request": {"method": "POST", "uri": "https://echo.example/v1/reply", "body": '{"prompt": "ping"}'},
            "response": {"status": {"code": 200, "message": "OK"}, "body": {"string": '{"reply": "pong"}'}},
        }
    ],
    "version": 1,
}

SHOUT_SCENARIO = """\
title: The body, shouted
feature: encode_basic
check: shout
input:
  messages: [{role: user, content: "ping"}]
providers:
  echo: {}
expected: "{'PROMPT': 'PING'}"
"""


def _project(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "scenarios" / "ext" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_third_party_codec_is_usable_from_a_scenario_file(extended: None, tmp_path: Path) -> None:
    scenario = load_scenario(_project(tmp_path, "echo_reply", DECODE_SCENARIO))
    cassette = tmp_path / "cassettes" / "echo" / "echo_reply.yaml"
    cassette.parent.mkdir(parents=True)
    cassette.write_bytes(orjson.dumps(ECHO_CASSETTE))  # JSON is YAML
    ctx = HarnessContext(root=tmp_path, runtime=ReferenceRuntime())
    res = run_check(scenario, "echo", ctx)
    assert (res.verdict, res.reason) == ("pass", "matches the expected normalized form")


def test_a_third_party_check_is_usable_from_a_scenario_file(extended: None, tmp_path: Path) -> None:
    scenario = load_scenario(_project(tmp_path, "shout_body", SHOUT_SCENARIO))
    res = run_check(scenario, "echo", HarnessContext(root=tmp_path, runtime=ReferenceRuntime()))
    assert res.verdict == "pass", res.reason


def test_an_unregistered_check_is_a_load_error_naming_the_file(tmp_path: Path) -> None:
    from conformance.exceptions import ScenarioError

    path = _project(tmp_path, "shout_body", SHOUT_SCENARIO)
    with pytest.raises(ScenarioError, match=r"shout_body.yaml: check: .*unknown check 'shout'"):
        load_scenario(path)


def test_a_profile_of_an_unknown_dialect_is_a_typed_error() -> None:
    from conformance.codecs import codec_for
    from conformance.exceptions import InputError

    profile = ProviderProfile(
        name="mystery", dialect="mystery", base_url="https://m.example", auth_style="none", default_model="m-1"
    )
    with pytest.raises(InputError, match="provider mystery: no codec for dialect 'mystery'"):
        codec_for(profile)


def test_a_third_party_check_that_reads_every_cassette_is_scheduled_as_one() -> None:
    from conformance.harness.checks import WHOLE_CORPUS_CHECKS

    register_check("survey", check_shout, whole_corpus=True)
    try:
        assert "survey" in WHOLE_CORPUS_CHECKS
        register_check("survey", check_shout)  # registered again without it: a row check
        assert "survey" not in WHOLE_CORPUS_CHECKS
    finally:
        CHECK_REGISTRY.pop("survey", None)
        WHOLE_CORPUS_CHECKS.discard("survey")
        scenario_schema._CHECK_NAMES.discard("survey")
