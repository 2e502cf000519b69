"""The JSON API's answers: notifications: a signed-in person's own choices and targets (dippouch.web.routes.notify)."""

from __future__ import annotations

from pydantic import Field

from dippouch.web.views.answers.base import Answer

__all__ = ["NotifyChoice", "NotifyRemovedAnswer", "NotifySettingsAnswer", "NotifyTarget"]


# Notifications (web/routes/notify.py): a signed-in person's own choices and targets


class NotifyChoice(Answer):
    event: str
    label: str
    channels: dict[str, bool] = Field(description="Channel (email, push, webhook) -> wanted.")


class NotifyTarget(Answer):
    """A push subscription or webhook as its owner sees it: where it goes, never its secret address."""

    id: int
    channel: str
    kind: str
    label: str
    where: str


class NotifySettingsAnswer(Answer):
    events: list[NotifyChoice]
    deadline_hours: int
    vapid_public_key: str = Field(description="The installation's VAPID key, for PushManager.subscribe.")
    targets: list[NotifyTarget]


class NotifyRemovedAnswer(Answer):
    removed: int
