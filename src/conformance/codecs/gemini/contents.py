"""Canonical messages → Gemini `systemInstruction` + `contents` (strict user/model alternation).

- System messages are hoisted into `systemInstruction` (Gemini has no system role in
  `contents`), in order.
- Tool results become `functionResponse` parts of a user turn; consecutive results share one.
- `thoughtSignature` goes back on the same part it came with (text, functionCall, thought); for a
  model that requires one on each function-call step (Gemini 3), a turn whose first call is
  unsigned gets the placeholder Google documents for calls the model did not make.
- Consecutive same-role turns are merged, except after a model turn that made function calls:
  that turn must stay whole, so a filler user turn goes between it and the next model turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from conformance.capabilities import ProviderProfile
from conformance.codecs.gemini.tables import DIALECT
from conformance.exceptions import InputError
from conformance.model import (
    AssistantMessage,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    ServerToolBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)

# Gemini documents no filler turn. An empty text part is the neutral choice: it adds no words
# for the model to read (a placeholder such as "Continue." would change the conversation).
FILLER_USER_TURN: dict[str, Any] = {"role": "user", "parts": [{"text": ""}]}

# The builder's ids for id-less calls (`call_<n>`): made up on our side, so never sent back.
_SYNTHETIC_ID = re.compile(r"call_\d+")
_DATA_URL = re.compile(r"data:(?P<mime>[^;,]+);base64,(?P<data>.*)", re.DOTALL)


@dataclass
class _Turn:
    role: str
    parts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def has_calls(self) -> bool:
        return any("functionCall" in p for p in self.parts)


def wire_id(call_id: str | None) -> str | None:
    return None if call_id is None or _SYNTHETIC_ID.fullmatch(call_id) else call_id


def image_part(block: ImageBlock, where: str) -> dict[str, Any]:
    if block.data:
        if not block.media_type:
            raise InputError("an inline image needs media_type", where=where)
        return {"inlineData": {"mimeType": block.media_type, "data": block.data}}
    if block.url:
        if match := _DATA_URL.fullmatch(block.url):
            return {"inlineData": {"mimeType": match["mime"], "data": match["data"]}}
        part: dict[str, Any] = {"fileUri": block.url}
        if block.media_type:
            part["mimeType"] = block.media_type
        return {"fileData": part}
    raise InputError("an image needs data or url", where=where)


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def _assistant_parts(
    msg: AssistantMessage, where: str, *, reasoning: bool, sentinel: str | None = None
) -> list[dict[str, Any]]:
    """`sentinel`: the signature for the turn's first call when it has none (see
    `ModelInfo.call_signature_sentinel`); later parallel calls of the turn need none."""
    parts: list[dict[str, Any]] = []
    first_call = True
    for j, block in enumerate(msg.content):
        if isinstance(block, ThinkingBlock):
            if reasoning:
                parts.append(_signed({"text": block.thinking, "thought": True}, block.signature))
        elif isinstance(block, ServerToolBlock) and block.dialect == DIALECT:
            parts.append(dict(block.data))  # Google's own tool work goes back as it came, signature included
        elif isinstance(block, RedactedThinkingBlock | ServerToolBlock):
            continue  # opaque data of another provider: Gemini has no part that can carry it
        elif isinstance(block, TextBlock):
            if block.text or block.signature is not None:
                parts.append(_signed({"text": block.text}, block.signature))
        elif isinstance(block, ToolCallBlock):
            if not block.name:
                raise InputError("a tool call needs a name", where=f"{where}.content[{j}].name")
            call: dict[str, Any] = {"name": block.name, "args": block.arguments}
            if (call_id := wire_id(block.id)) is not None:
                call["id"] = call_id
            signature = block.signature if block.signature is not None or not first_call else sentinel
            first_call = False
            parts.append(_signed({"functionCall": call}, signature))
        else:
            parts.append(image_part(block, f"{where}.content[{j}]"))
    return parts


def _user_parts(msg: UserMessage, where: str) -> list[dict[str, Any]]:
    return [
        {"text": b.text} if isinstance(b, TextBlock) else image_part(b, f"{where}.content[{j}]")
        for j, b in enumerate(msg.content)
        if not isinstance(b, ServerToolBlock)  # another provider's wire item: Gemini has no part for it
    ]


def _result_parts(msg: ToolResultMessage, where: str, names: dict[str, str]) -> list[dict[str, Any]]:
    name = msg.tool_name or names.get(msg.tool_call_id)
    if not name:
        raise InputError(
            f"no tool_name, and no earlier tool call has id {msg.tool_call_id!r}", where=f"{where}.tool_name"
        )
    text = "".join(b.text for b in msg.content if isinstance(b, TextBlock))
    response: dict[str, Any] = {"name": name, "response": {"error" if msg.is_error else "output": text}}
    if (call_id := wire_id(msg.tool_call_id)) is not None:
        response["id"] = call_id
    parts: list[dict[str, Any]] = [{"functionResponse": response}]
    for j, block in enumerate(msg.content):
        if isinstance(block, ImageBlock):
            parts.append(image_part(block, f"{where}.content[{j}]"))
    return parts


def build_contents(
    messages: list[Message], profile: ProviderProfile, model: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(systemInstruction parts, contents)."""
    info = profile.model_info(model)
    reasoning = profile.send_reasoning_back if info.send_reasoning_back is None else info.send_reasoning_back
    names = {
        b.id: b.name
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolCallBlock)
    }
    system: list[dict[str, Any]] = []
    turns: list[_Turn] = []
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if isinstance(msg, SystemMessage):
            system.extend({"text": b.text} for b in msg.content)
            continue
        if isinstance(msg, AssistantMessage):
            turn = _Turn(
                "model", _assistant_parts(msg, where, reasoning=reasoning, sentinel=info.call_signature_sentinel)
            )
        elif isinstance(msg, UserMessage):
            turn = _Turn("user", _user_parts(msg, where))
        else:
            turn = _Turn("user", _result_parts(msg, where, names))
        if not turn.parts:
            continue  # nothing to send (e.g. an empty assistant message)
        _append(turns, turn, strict=profile.strict_alternation)
    return system, [{"role": t.role, "parts": t.parts} for t in turns]


def _append(turns: list[_Turn], turn: _Turn, *, strict: bool) -> None:
    if turns and turns[-1].role == turn.role:
        previous = turns[-1]
        if turn.role == "user" or not previous.has_calls:
            previous.parts.extend(turn.parts)
            return
        if strict:
            filler = FILLER_USER_TURN
            turns.append(_Turn(filler["role"], [dict(p) for p in filler["parts"]]))
    turns.append(turn)
