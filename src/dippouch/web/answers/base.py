"""What every answer of the JSON API shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Answer", "ErrorAnswer"]


class Answer(BaseModel):
    """Every answer's base: fields not named here are kept, never dropped (see the module's docstring)."""

    model_config = ConfigDict(extra="allow")


class ErrorAnswer(Answer):
    """Every refusal: what is wrong and what to do, with the HTTP status repeated."""

    error: str
    status: int
