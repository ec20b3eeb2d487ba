"""Server-tool blocks go back only to the dialect, provider and model that made them."""

from __future__ import annotations

from conformance.capabilities import get_profile
from conformance.model import AssistantMessage, ServerToolBlock, TextBlock, UserMessage
from conformance.runtime.repair import repair
from tests.runtime.builders import assistant, dumped, rules, run, thinking, user

SEARCH = ServerToolBlock(
    dialect="openai_responses",
    name="web_search_call",
    id="ws_1",
    status="completed",
    data={"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search"}},
)
OPENAI = {"provider": "openai_responses", "model": "gpt-5-mini"}


def test_kept_for_the_provider_and_model_that_made_it_in_the_order_received() -> None:
    messages = [user("q"), assistant(SEARCH, thinking(), "It is sunny.", **OPENAI), user("q2")]
    res = run(messages, "openai_responses", model="gpt-5-mini")
    assert dumped(res.messages) == dumped(messages)  # thinking is not moved before the item
    assert res.actions == []


def test_dropped_on_another_dialect_with_a_warning() -> None:
    messages = [user("q"), assistant(SEARCH, "It is sunny.", **OPENAI), user("q2")]
    res = run(messages, "anthropic")
    assert dumped(res.messages) == dumped([user("q"), assistant("It is sunny.", **OPENAI), user("q2")])
    assert rules(res) == ["foreign_server_tool"]
    assert res.warnings == [
        "foreign_server_tool (message 1): web_search_call dropped: openai_responses items cannot be replayed on the anthropic dialect"
    ]


def test_dropped_for_another_provider_of_the_same_dialect() -> None:
    messages = [user("q"), assistant(SEARCH, "It is sunny.", **OPENAI), user("q2")]
    res = run(messages, "xai_responses")
    assert rules(res) == ["foreign_server_tool"]
    kept = res.messages[1]
    assert isinstance(kept, AssistantMessage)
    assert not any(isinstance(b, ServerToolBlock) for b in kept.content)


def test_dropped_for_another_model_like_a_signature() -> None:
    messages = [user("q"), assistant(SEARCH, "It is sunny.", **OPENAI), user("q2")]
    assert rules(run(messages, "openai_responses", model="gpt-4.1")) == ["foreign_server_tool"]


def test_a_message_of_server_tools_only_goes_as_a_whole() -> None:
    messages = [user("q"), assistant(SEARCH, **OPENAI), user("q2")]
    res = run(messages, "gemini")
    assert rules(res)[:2] == ["foreign_server_tool", "drop_empty_message"]
    assert all(not isinstance(m, AssistantMessage) for m in res.messages)


def test_idempotent() -> None:
    messages = [user("q"), assistant(thinking(), SEARCH, "a", **OPENAI), user("q2")]
    profile = get_profile("openai")
    once = repair(messages, profile)
    assert repair(once.messages, profile).actions == []


def test_a_users_answer_goes_only_to_its_dialect() -> None:
    approve = ServerToolBlock(
        dialect="openai_responses",
        name="mcp_approval_response",
        data={"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
    )
    answer = UserMessage(content=[TextBlock(text="Yes."), approve])
    messages = [user("q"), assistant("Shall I ask the server?"), answer]
    assert run(messages, "openai_responses").actions == []  # a user's block has no origin to check
    res = run(messages, "anthropic")
    assert rules(res) == ["foreign_server_tool"]
    assert dumped(res.messages)[2] == dumped([user("Yes.")])[0]


def test_unsigned_thinking_written_as_text_stays_where_it_was_in_a_message_kept_in_order() -> None:
    from conformance.model import Message, RedactedThinkingBlock, ThinkingBlock
    from conformance.runtime.repair import RepairOptions
    from tests.runtime.canonical import canonical_violations

    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    blocks = [ServerToolBlock(dialect="anthropic", name=b["type"], id="srvtoolu_1", data=b) for b in (use, found)]
    made = {"provider": "anthropic", "model": get_profile("anthropic").default_model}
    content = [ThinkingBlock(thinking="plan"), RedactedThinkingBlock(data="opaque"), *blocks, TextBlock(text="ok")]
    messages: list[Message] = [user("q"), AssistantMessage(content=content, **made), user("q2")]
    res = repair(messages, get_profile("anthropic"), options=RepairOptions(foreign_thinking="text"))
    # an unsigned thinking block cannot go back to Anthropic: it becomes text in its place, and the
    # message keeps the order its server blocks came in (nothing is moved around them)
    assert [b.type for b in res.messages[1].content] == [
        "text",
        "redacted_thinking",
        "server_tool",
        "server_tool",
        "text",
    ]
    assert canonical_violations(res.messages, get_profile("anthropic"), made["model"]) == []


def test_thinking_at_the_end_of_a_message_kept_in_order_moves_to_the_front() -> None:
    # a provider's reasoning always leads to a later item: trailing thinking is damage
    messages = [user("q"), assistant(SEARCH, "It is sunny.", thinking(), **OPENAI), user("q2")]
    res = run(messages, "openai_responses", model="gpt-5-mini")
    assert [b.type for b in res.messages[1].content] == ["thinking", "server_tool", "text"]
    assert rules(res) == ["thinking_first"]
