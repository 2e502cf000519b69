"""A signed-in person's notifications: the settings page (choices per event and channel, the deadline lead,
push subscriptions and chat webhooks) and its JSON API.

Everything here is the person's own: there is no person id in any address, so nobody can ask for another's
choices, and a target id that is not the caller's is refused as a missing one. Webhook addresses and tokens
are secrets: pages and answers show where a target goes (its host), never the address itself.

Its JSON calls are in the API's OpenAPI document with their answers' shapes, like every other call.
"""

from __future__ import annotations

import functools
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.notify.events import CHANNELS, EVENTS, preferences, save_preferences
from dippouch.notify.targets import WEBHOOK_KINDS, add_push, add_webhook, remove_target
from dippouch.notify.transports import vapid_public_key
from dippouch.store.notify import masked, targets
from dippouch.web.answers import NotifyRemovedAnswer, NotifySettingsAnswer, NotifyTarget
from dippouch.web.deps import answers, render, viewer_of, web_of
from dippouch.web.forms import read_form, redirect
from dippouch.web.security import CSRF_HEADER, BadInput, Forbidden, check_csrf

__all__ = ["router"]

router = APIRouter(tags=["api"])

SHORT = {"email": "E-mail", "push": "Push", "webhook": "Chat"}
"""The channels as the table's heads name them (short enough for a phone's width)."""

NEED_PERSON = "notifications belong to a person: sign in with the link mailed to you (a game key alone is not a person)"


def _person(request: Request, *, write: bool = False, sent: str | None = None) -> int:
    viewer = viewer_of(request)
    if viewer.person_id is None:
        raise Forbidden(NEED_PERSON)
    if write and not viewer.by_bearer:
        check_csrf(request, sent if sent is not None else request.headers.get(CSRF_HEADER))
    return int(viewer.person_id)


def _settings(request: Request, person_id: int) -> dict[str, Any]:
    web = web_of(request)
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
def notifications_page(request: Request) -> Response:
    pid = _person(request)
    return render(
        request,
        "notifications.html",
        {"s": _settings(request, pid), "channels": CHANNELS, "short": SHORT, "kinds": WEBHOOK_KINDS},
    )


def _form_token(request: Request, sent: str | None) -> None:
    """A form's CSRF check here is the person's: a browser without a person is refused as one before its token
    is read, a bearer caller needs none, and the token is the form's own, never a header's."""
    _person(request, write=True, sent=sent or "")


_form = functools.partial(read_form, max_part_size=10_000, csrf=_form_token)
"""A notification form: short fields, checked as the person's."""


def _hours(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise BadInput(f"the deadline reminder is a whole number of hours (got {text[:20]!r}); try 12") from None


@router.post("/notifications/preferences", include_in_schema=False)
async def post_preferences(request: Request) -> Response:
    data = await _form(request)
    pid = _person(request)
    choices = {(e, c): f"c:{e}:{c}" in data for e in EVENTS for c in CHANNELS}
    save_preferences(web_of(request).store, pid, choices, _hours(data.get("deadline_hours", "12")))
    return redirect("/notifications", "Your notification choices are saved.")


@router.post("/notifications/webhooks", include_in_schema=False)
async def post_webhook(request: Request) -> Response:
    data = await _form(request)
    pid = _person(request)
    web = web_of(request)
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
    return redirect("/notifications", "The webhook is added.")


@router.post("/notifications/targets/{target_id}/remove", include_in_schema=False)
async def post_remove(request: Request, target_id: int) -> Response:
    await _form(request)
    remove_target(web_of(request).store, _person(request), target_id)
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


def _target_answer(request: Request, person_id: int, target_id: int) -> dict[str, Any]:
    for t in targets(web_of(request).store, person_id):
        if t.id == target_id:
            return {"id": t.id, "channel": t.channel, "kind": t.kind, "label": t.label, "where": masked(t)}
    raise BadInput(f"no push subscription or webhook #{target_id}")  # removed meanwhile


@router.get("/api/notify/settings", **answers(NotifySettingsAnswer))
def api_settings(request: Request) -> dict[str, Any]:
    """Your notification choices (per event, per channel), the deadline lead, and your targets (masked)."""
    return _settings(request, _person(request))


@router.post("/api/notify/settings", **answers(NotifySettingsAnswer))
def api_save_settings(request: Request, body: SettingsIn) -> dict[str, Any]:
    """Change some choices (those given; the others stay) and, if given, the deadline lead."""
    pid = _person(request, write=True)
    choices = {(c.event, c.channel): c.enabled for c in body.choices}
    save_preferences(web_of(request).store, pid, choices, body.deadline_hours)
    return _settings(request, pid)


@router.post("/api/notify/push", **answers(NotifyTarget))
def api_push(request: Request, body: PushIn) -> dict[str, Any]:
    """Keep this browser's push subscription (the same endpoint again replaces its keys)."""
    pid = _person(request, write=True)
    web = web_of(request)
    sub = {"endpoint": body.endpoint, "keys": {"p256dh": body.keys.p256dh, "auth": body.keys.auth}}
    return _target_answer(request, pid, add_push(web.store, pid, sub, now=web.now()))


@router.post("/api/notify/webhooks", **answers(NotifyTarget))
def api_webhook(request: Request, body: WebhookIn) -> dict[str, Any]:
    """Add a Discord, Slack or Matrix webhook (its address is kept secret: answers show only its host)."""
    pid = _person(request, write=True)
    web = web_of(request)
    tid = add_webhook(
        web.store, pid, body.kind, url=body.url, room=body.room, token=body.token, label=body.label, now=web.now()
    )
    return _target_answer(request, pid, tid)


@router.delete("/api/notify/targets/{target_id}", **answers(NotifyRemovedAnswer))
def api_remove(request: Request, target_id: int) -> dict[str, Any]:
    """Remove one of your push subscriptions or webhooks."""
    pid = _person(request, write=True)
    remove_target(web_of(request).store, pid, target_id)
    return {"removed": target_id}
