"""The result of decoding one provider response: a message, or an error with what arrived."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from conformance.model.errors import ProviderError
from conformance.model.messages import AssistantMessage


class Outcome(BaseModel):
    """`{"message": …}` on success; `{"error": …, "partial": …|null}` otherwise."""

    model_config = ConfigDict(extra="forbid")

    message: AssistantMessage | None = None
    error: ProviderError | None = None
    partial: AssistantMessage | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Outcome:
        if (self.message is None) == (self.error is None):
            raise ValueError("an outcome has exactly one of 'message' or 'error'")
        if self.message is not None and self.partial is not None:
            raise ValueError("'partial' goes only with 'error'")
        return self

    @classmethod
    def of(cls, message: AssistantMessage) -> Outcome:
        """Success, or error + partial when the message itself carries an error."""
        if message.error is not None:
            return cls(error=message.error, partial=message)
        return cls(message=message)

    def to_json(self) -> dict[str, Any]:
        """The contract's JSON form: null fields omitted inside, `partial` always present with an error."""
        out: dict[str, Any] = {}
        if self.message is not None:
            out["message"] = self.message.model_dump(mode="json", exclude_none=True)
        if self.error is not None:
            out["error"] = self.error.model_dump(mode="json", exclude_none=True)
            out["partial"] = None if self.partial is None else self.partial.model_dump(mode="json", exclude_none=True)
        return out
