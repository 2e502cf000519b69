"""What every answer of the JSON API shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Answer", "ErrorAnswer"]


class Answer(BaseModel):
    """Every answer's base: a field not named here is refused, so the model is the one description of what is sent
    (the OpenAPI document says exactly what the answer holds)."""

    model_config = ConfigDict(extra="forbid")


class ErrorAnswer(Answer):
    """Every refusal: what is wrong and what to do, with the HTTP status repeated."""

    error: str
    status: int
