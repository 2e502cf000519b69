"""What every answer of the JSON API shares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo

from dippouch.core.messages import Msg
from dippouch.saying import say
from dippouch.web.http.inputs import WEB_HINTS  # noqa: F401 (imported, it words the layers' hints for the web: saying.DOOR_HINTS)

__all__ = ["Answer", "ErrorAnswer", "Said", "error_data", "web_said"]


def _said(value: object, info: ValidationInfo) -> object:
    if isinstance(value, Mapping) and "id" in value:  # a message kept as its data (a page's JSON)
        value = Msg.from_data(value)
    if not isinstance(value, Msg):
        return value
    return say(value, str((info.context or {}).get("lang") or "en"), "web")


Said = Annotated[str, BeforeValidator(_said)]
"""A text of the layers in an answer: a message value is said in the language the answer is validated for
(``Model.model_validate(data, context={"lang": lang})``: a page in its reader's, the JSON API in ``?lang=``'s),
English when none is named."""


class Answer(BaseModel):
    """Every answer's base: a field not named here is refused, so the model is the one description of what is sent
    (the OpenAPI document says exactly what the answer holds)."""

    model_config = ConfigDict(extra="forbid")


class ErrorAnswer(Answer):
    """Every refusal: what is wrong and what to do, with the HTTP status repeated; ``code`` and ``params`` for a
    program that reads the refusal rather than shows it (Django's ValidationError code and params)."""

    error: str
    """The refusal in words: English, or the language asked for with ``?lang=``."""
    status: int
    code: str
    """Which refusal it is: the message's id (its English template, ``game %(game)s is over ...``), the same
    whatever language ``error`` is in."""
    params: dict[str, Any]
    """The values the message's placeholders take, by name, as JSON data (:meth:`dippouch.core.messages.Msg.to_data`:
    a name or number as it is; a nested message, a list of choices, a phase or a hint as an object)."""


def error_data(message: Msg, lang: str, status: int) -> dict[str, Any]:
    """The JSON API's answer to a refusal: ``message`` said in ``lang`` (hints worded as the web words them: a
    JSON API's caller acts on the web, not at a command line), with its code and values."""
    return {
        "error": web_said(message, lang),
        "status": status,
        "code": message.code,
        "params": message.to_data().get("args", {}),
    }


def web_said(message: Msg, lang: str) -> str:
    """``message`` in ``lang`` as the web says it: by its id and values, each hint as the web words it
    (:data:`dippouch.web.http.inputs.WEB_HINTS`: the page and button, not the command line's). A plain text (a
    message with no values) is its own id: said as the catalogue translates it whole, else as it is."""
    return say(message, lang, "web")
