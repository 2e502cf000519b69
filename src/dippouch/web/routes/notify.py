"""A signed-in person's notifications: the settings page (choices per event and channel, the deadline lead,
push subscriptions and chat webhooks) and its JSON API.

Everything here is the person's own: there is no person id in any address, so nobody can ask for another's
choices, and a target id that is not the caller's is refused as a missing one. Webhook addresses and tokens
are secrets: pages and answers show where a target goes (its host), never the address itself.

Its JSON calls are in the API's OpenAPI document with their answers' shapes, like every other call.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.notify.events import CHANNELS, EVENTS, preferences, save_preferences
from dippouch.notify.targets import WEBHOOK_KINDS, add_push, add_webhook, remove_target
from dippouch.notify.transports import vapid_public_key
from dippouch.numbers import number_or_none
from dippouch.store.notify.stored import masked, targets
from dippouch.web.http.deps import ViewerDep, WebDep, answers, render, viewer_of, words
from dippouch.web.http.forms import Form, posted, redirect
from dippouch.web.http.security import CSRF_HEADER, BadInput, Forbidden, Viewer, check_csrf
from dippouch.web.http.service import Web
from dippouch.web.views.answers.notify import NotifyRemovedAnswer, NotifySettingsAnswer, NotifyTarget

__all__ = ["router"]

router = APIRouter(tags=["api"])

I18N_DOMAIN = "site"


def _page_words(request: Request) -> dict[str, dict[str, str]]:
    """The page's names for the events and channels in the reader's language (the JSON answer keeps the
    English labels of :mod:`dippouch.notify.events`); ``short`` names the table's heads, short enough for a
    phone's width."""
    t = words(request)
    # The labels of dippouch.notify.events are the catalogue's ids: one table, said here in the reader's language.
    short = {"email": t.gettext("E-mail"), "push": t.gettext("Push"), "webhook": t.gettext("Chat")}
    return {
        "events": {e: t.gettext(label) for e, label in EVENTS.items()},
        "channels": {c: t.gettext(label) for c, label in CHANNELS.items()},
        "short": {c: short.get(c, label) for c, label in CHANNELS.items()},
    }


def _person_of(request: Request, viewer: Viewer) -> int:
    """The signed-in person, or 403: a browser without one is refused as not allowed here (a key alone is a
    seat, and has no notifications), before any token of theirs is read."""
    if viewer.person_id is None:
        raise Forbidden(
            words(request).gettext(
                "notifications belong to a person: sign in with the link mailed to you (a game key alone is not a "
                "person)"
            )
        )
    return int(viewer.person_id)


def _reader(request: Request, viewer: ViewerDep) -> int:
    return _person_of(request, viewer)


def _writer(request: Request, viewer: ViewerDep) -> int:
    """The person changing their notifications by a JSON call: the person first, then (a browser's call) the
    page's token in ``X-CSRF-Token``."""
    pid = _person_of(request, viewer)
    if not viewer.by_bearer:
        check_csrf(request, request.headers.get(CSRF_HEADER))
    return pid


ReaderDep = Annotated[int, Depends(_reader)]
"""The signed-in person reading their notifications (403 otherwise)."""
WriterDep = Annotated[int, Depends(_writer)]
"""The signed-in person changing them by a JSON call (403 otherwise, and without the page's token)."""


def _settings(web: Web, person_id: int) -> dict[str, Any]:
    prefs = preferences(web.store, person_id)
    return {
        "events": [
            {"event": e, "label": label, "channels": {c: prefs.wants(e, c) for c in CHANNELS}}
            for e, label in EVENTS.items()
        ],
        "deadline_hours": prefs.deadline_hours,
        "vapid_public_key": vapid_public_key(web.store, web.now()),
        "targets": [
            {"id": t.id, "channel": t.channel, "kind": t.kind, "label": t.label, "where": masked(t)}
            for t in targets(web.store, person_id)
        ],
    }


# -- the page ----------------------------------------------------------------------------------------------


@router.get("/notifications", include_in_schema=False, response_class=HTMLResponse)
def notifications_page(request: Request, web: WebDep, pid: ReaderDep) -> Response:
    settings = NotifySettingsAnswer.model_validate(_settings(web, pid))
    return render(
        request,
        "notifications.html",
        {"s": settings, "kinds": WEBHOOK_KINDS, **_page_words(request)},
    )


def _form_token(request: Request, sent: str | None) -> None:
    """A form's CSRF check here is the person's: a browser without a person is refused as one before its token
    is read, a bearer caller needs none, and the token is the form's own, never a header's."""
    viewer = viewer_of(request)
    _person_of(request, viewer)
    if not viewer.by_bearer:
        check_csrf(request, sent or "")


NotifyForm = Annotated[Form, Depends(posted(max_part_size=10_000, csrf=_form_token))]
"""A notification form: short fields, checked as the person's (:func:`_form_token`)."""


def _hours(request: Request, text: str) -> int:
    hours = number_or_none(text)
    if hours is None:
        raise BadInput(
            msg("the deadline reminder is a whole number of hours (got %(got)s); try 12", got=repr(text[:20]))
        )
    return hours


@router.post("/notifications/preferences", include_in_schema=False)
def post_preferences(request: Request, data: NotifyForm, web: WebDep, pid: ReaderDep) -> Response:
    choices = {(e, c): f"c:{e}:{c}" in data for e in EVENTS for c in CHANNELS}
    save_preferences(web.store, pid, choices, _hours(request, data.get("deadline_hours", "12")))
    return redirect("/notifications", words(request).gettext("Your notification choices are saved."))


@router.post("/notifications/webhooks", include_in_schema=False)
def post_webhook(request: Request, data: NotifyForm, web: WebDep, pid: ReaderDep) -> Response:
    add_webhook(
        web.store,
        pid,
        data.get("kind", ""),
        url=data.get("url", ""),
        room=data.get("room", ""),
        token=data.get("token", ""),
        label=data.get("label", ""),
        now=web.now(),
    )
    return redirect("/notifications", words(request).gettext("The webhook is added."))


@router.post("/notifications/targets/{target_id}/remove", include_in_schema=False)
def post_remove(target_id: int, _: NotifyForm, web: WebDep, pid: ReaderDep) -> Response:
    remove_target(web.store, pid, target_id)
    return redirect("/notifications", "Removed.")


# -- the JSON API ------------------------------------------------------------------------------------------


class ChoiceIn(BaseModel):
    event: str = Field(max_length=30)
    channel: str = Field(max_length=20)
    enabled: bool


class SettingsIn(BaseModel):
    choices: list[ChoiceIn] = Field(default_factory=list, max_length=100)
    deadline_hours: int | None = Field(None, description="Hours before a deadline to be reminded (1 to 168).")


class PushKeysIn(BaseModel):
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)


class PushIn(BaseModel):
    """A browser's ``PushSubscription.toJSON()``."""

    endpoint: str = Field(max_length=2000)
    keys: PushKeysIn
    expirationTime: float | None = None


class WebhookIn(BaseModel):
    kind: str = Field(max_length=20, description="discord, slack or matrix")
    url: str = Field(max_length=2000, description="The webhook address (Matrix: the homeserver's address).")
    room: str = Field("", max_length=255, description="Matrix only: the room id, !abc:example.org.")
    token: str = Field("", max_length=500, description="Matrix only: the posting account's access token.")
    label: str = Field("", max_length=100)


def _target_answer(web: Web, person_id: int, target_id: int) -> NotifyTarget:
    for t in targets(web.store, person_id):
        if t.id == target_id:
            return NotifyTarget(id=t.id, channel=t.channel, kind=t.kind, label=t.label, where=masked(t))
    raise BadInput(msg("no push subscription or webhook #%(id)s", id=target_id))  # removed meanwhile


@router.get("/api/notify/settings", **answers(NotifySettingsAnswer))
def api_settings(web: WebDep, pid: ReaderDep) -> NotifySettingsAnswer:
    """Your notification choices (per event, per channel), the deadline lead, and your targets (masked)."""
    return NotifySettingsAnswer.model_validate(_settings(web, pid))


@router.post("/api/notify/settings", **answers(NotifySettingsAnswer))
def api_save_settings(body: SettingsIn, web: WebDep, pid: WriterDep) -> NotifySettingsAnswer:
    """Change some choices (those given; the others stay) and, if given, the deadline lead."""
    choices = {(c.event, c.channel): c.enabled for c in body.choices}
    save_preferences(web.store, pid, choices, body.deadline_hours)
    return NotifySettingsAnswer.model_validate(_settings(web, pid))


@router.post("/api/notify/push", **answers(NotifyTarget))
def api_push(body: PushIn, web: WebDep, pid: WriterDep) -> NotifyTarget:
    """Keep this browser's push subscription (the same endpoint again replaces its keys)."""
    sub = {"endpoint": body.endpoint, "keys": {"p256dh": body.keys.p256dh, "auth": body.keys.auth}}
    return _target_answer(web, pid, add_push(web.store, pid, sub, now=web.now()))


@router.post("/api/notify/webhooks", **answers(NotifyTarget))
def api_webhook(body: WebhookIn, web: WebDep, pid: WriterDep) -> NotifyTarget:
    """Add a Discord, Slack or Matrix webhook (its address is kept secret: answers show only its host)."""
    tid = add_webhook(
        web.store, pid, body.kind, url=body.url, room=body.room, token=body.token, label=body.label, now=web.now()
    )
    return _target_answer(web, pid, tid)


@router.delete("/api/notify/targets/{target_id}", **answers(NotifyRemovedAnswer))
def api_remove(target_id: int, web: WebDep, pid: WriterDep) -> NotifyRemovedAnswer:
    """Remove one of your push subscriptions or webhooks."""
    remove_target(web.store, pid, target_id)
    return NotifyRemovedAnswer(removed=target_id)
