"""Press on the web: the press panel of a player's page, a channel's page, the forms that send, mute, block
and report, the coordinator's announcements and rules, the live stream of arriving messages (server-sent
events), and the JSON API for all of it (bots and clients).

Every send goes through :func:`dippouch.store.press.messages.send`, which asks the press rules; a refusal answers 400
with the rule's name and words (``not sent (public press only): ...``). Message text is plain text: the
templates escape it and the page's script inserts it as text, never as HTML.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import asdict
from typing import Annotated, Any
from urllib.parse import quote, unquote

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from pydantic import BaseModel, Field
from starlette.requests import Request

import dippouch.play.press as press_cases
import dippouch.store.press.messages as store_press
from dippouch.core.errors import DippouchError
from dippouch.core.messages import N_, msg
from dippouch.i18n import translations
from dippouch.play.press import MessageSent, send_press
from dippouch.press.rules import PressRules, describe, quiet_now
from dippouch.saying import say
from dippouch.store.people.persons import seat_people
from dippouch.web.http.deps import (
    OrderingSeat,
    SeatDep,
    ViewerDep,
    WebDep,
    WriterDep,
    answers,
    game_url,
    language,
    layer_words,
    render,
    set_private_cookie,
    words,
)
from dippouch.web.http.forms import Form, posted, redirect
from dippouch.web.http.inputs import number, number_or_none
from dippouch.web.http.security import (
    HOST_PREFIX,
    BadInput,
    Forbidden,
    Viewer,
    WebError,
    WebNotFound,
    over_https,
)
from dippouch.web.http.service import Web
from dippouch.web.views.answers.play import PlayerView
from dippouch.web.views.answers.press import (
    PressBlocks,
    PressChannelView,
    PressDesk,
    PressMessages,
    PressRead,
    PressReport,
    PressRulesAnswer,
    PressSent,
    PressView,
)
from dippouch.web.views.player_page import require_seat, seat_page

__all__ = ["orders_draft", "panel", "play_context", "play_press", "router", "rules_of_form"]

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(tags=["api"])
"""The pages and forms, and the JSON calls."""

MAX_ID = 2**63 - 1
"""The largest message id the live stream starts after: the databases' 64-bit integers. The stream reads after
its head is sent, when a number the database refuses could only cut it (every other route reads before it
answers, and the app answers an overflow there with a 400)."""
After = Annotated[int, Query(ge=-MAX_ID, le=MAX_ID)]
"""The live stream's ``after`` (422 past :data:`MAX_ID` either way)."""

STREAM_POLL = 1.0
"""Seconds between the live stream's looks for new messages (one indexed query each)."""
STREAM_LIFE = 300.0
"""Seconds a stream stays open; the browser reconnects by itself, from the last id it got."""
STREAM_RECHECK = 2.0
"""Seconds between the live stream's looks at its grant while nothing arrives (it is looked at before any
message is sent too): a key revoked or a session signed out ends the stream within this."""


def _not_stand_in(seat: OrderingSeat) -> OrderingSeat:
    """The seat's stand-in is refused in words of their own (they order the seat; its letters, before the
    absence and during it, and its name are the player's)."""
    if seat.stand_in:
        raise Forbidden(
            msg(
                "%(power)s's press is its player's own: as their stand-in you order the seat while they are away, "
                "but do not read its letters or write in its name",
                power=seat.power,
            )
        )
    return seat


def _player(web: Web, name: str, power: str, viewer: Viewer) -> OrderingSeat:
    """:meth:`Web.require_seat` for what is not a route (the stream's look at its grant): its player only."""
    v, power, stand_in = require_seat(web, name, power, viewer)
    return _not_stand_in(OrderingSeat(name, power, v, stand_in))


def player_seat(seat: SeatDep) -> OrderingSeat:
    """The seat of the path for every press route: its player only (:func:`_not_stand_in`)."""
    return _not_stand_in(seat)


PlayerSeat = Annotated[OrderingSeat, Depends(player_seat)]
"""The seat in the path (``name``, ``power``), whose press the viewer reads and writes as its player."""


# --------------------------------------------------------------------------------------------------
# What the pages and the API share


def _message(m: store_press.Message) -> dict[str, Any]:
    return {
        "id": m.id,
        "channel": m.channel_id,
        "sender": m.sender,
        "text": m.text,
        "sent_at": m.sent_at.isoformat(),
        "held": m.held,
        "mine": m.mine,
        "kind": m.kind,
        "members": list(m.members),
        "phase": m.phase,
    }


def _thread(t: store_press.Thread) -> dict[str, Any]:
    d = asdict(t)
    d["last_at"] = t.last_at.isoformat() if t.last_at else None
    return d


INLINE = 8
"""Messages of each thread the player's page shows inline, beside the board (the rest on the thread's page)."""
INLINE_THREADS = 12
"""Threads the player's page shows inline, the most recent first (older ones are links to their pages): each
has a reply box, which the orders form posts along."""


def panel(
    web: Web,
    seat: OrderingSeat,
    viewer: Viewer,
    *,
    recent: int = 0,
    lang: str = "en",
    shared: Mapping[str, Any] | None = None,
) -> PressView:
    """The press panel of the seat's page (and the API's view): rules, powers, threads with unread counts;
    with ``recent``, each thread's latest messages too (the player's page shows them inline, and only it).

    For the seat's player (:data:`PlayerSeat`): the seat's letters, before an absence and during it, are its
    player's, and so is what is written in its name; its stand-in's page shows no press (:func:`play_press`).
    ``shared``: the player's page's shared part (:func:`dippouch.web.views.player_page.seat_page`), which names the
    seats' people and the open phase's board already: the panel does not ask for them again."""
    name, power, v = seat.game, seat.power, seat.variant
    o = store_press.overview(web.read, name, power, recent=recent)
    hide = o.rules.anonymous and not o.finished
    seen = {power} if hide and not viewer.coordinates(name) else set(v.power_names)  # your own name is yours
    people = dict(shared["people"]) if shared is not None else seat_people(web.read, name)
    # A power with no unit and no centre left is out of the game: nobody to write to (the players' trial found
    # eliminated powers offered as recipients). The open phase's board, kept parsed (Web.open_phase_position).
    out_of_game: set[str] = set()
    phase_kind: str | None = None
    if o.finished:
        pass
    elif shared is not None:
        if (board := shared.get("open_board")) is not None:
            phase_kind, out_of_game = board["kind"], set(board["out"])
    else:
        with contextlib.suppress(BadInput):  # no open phase: not started, or over
            _, _, pos, _, phase_kind = web.open_phase_position(name)
            out_of_game = {p for p in v.power_names if not pos.units_of(p) and not pos.centres_of(p)}
    out = {
        "game": name,
        "power": power,
        "rules": o.rules.to_data(),
        "rules_text": describe(o.rules, translations(lang).gettext),  # in the page's language (the API's in English)
        "powers": [
            {
                "power": p,
                **({"player": o.players[p], "person_id": people.get(p)} if p in o.players and p in seen else {}),
                **({"eliminated": True} if p in out_of_game else {}),
            }
            for p in v.power_names
        ],
        "threads": [_thread(t) for t in o.threads],
        "blocks": o.blocks,
        "latest": max((t.last_id for t in o.threads), default=0),
        "by_mail": store_press.mail_copies_for(web.read, name, power),
    }
    if recent:
        out["recent"] = {c: [_message(m) for m in ms] for c, ms in o.recent.items()}
        # A quiet phase (no press in it): the page says so where the box would be, rather than refusing what
        # was typed (the players' trial).
        quiet = None if o.finished else quiet_now(o.rules, phase_kind)
        out["sendable"] = _sendable(o.rules, o.finished, quiet is not None)
        out["quiet"] = say(quiet, lang) if quiet is not None else None
        out["inline_threads"] = INLINE_THREADS
    return PressView.model_validate(out)


def _sendable(rules: PressRules, finished: bool, quiet: bool = False) -> dict[str, bool]:
    """Which ways of writing the compose form offers, from the game's rules (the rules still decide each send:
    this only leaves out what they would refuse whatever was written, such as ticking one power where only
    public press is allowed)."""
    talk = rules.kind != "none" and not quiet
    only_public = finished or rules.kind == "public" or not ({"private", "group"} & set(rules.channels))
    return {
        "any": talk and (finished or "public" in rules.channels or not only_public),
        "choose": talk and not only_public,
        "public": talk and (finished or rules.kind == "public" or "public" in rules.channels),
    }


def _channel(web: Web, seat: OrderingSeat, channel_id: int, before: int | None) -> PressChannelView:
    try:
        page = store_press.channel_page(web.read, seat.game, channel_id, power=seat.power, before=before)
    except store_press.NoChannel as e:
        raise WebNotFound(e.msg) from None
    return PressChannelView.model_validate(
        {
            "thread": _thread(page.thread),
            "messages": [_message(m) for m in page.messages],
            "more": page.more,
            "read_up_to": page.read_up_to,
        }
    )


def _send(web: Web, seat: OrderingSeat, to: list[str], text: str, via: str, channel: int | None = None) -> MessageSent:
    return send_press(web.store, seat.game, seat.power, text, to=to, channel=channel, now=web.now(), via=via)


def _sent(sent: MessageSent) -> PressSent:
    return PressSent(id=sent.id, channel=sent.channel, kind=sent.kind, held=sent.held, mailed=sent.mailed)


# --------------------------------------------------------------------------------------------------
# The JSON API (a player's)


class PressIn(BaseModel):
    to: list[str] = Field(max_length=50, description='Power names, or ["all"] for every power.')
    text: str = Field(max_length=100_000, description="Plain text; the game's rules bound its length.")


class ReplyIn(BaseModel):
    text: str = Field(max_length=100_000)


class ReadIn(BaseModel):
    up_to: int | None = Field(None, description="The last message id read (default: all of the channel).")


class BlockIn(BaseModel):
    power: str = Field(max_length=100)
    choice: str = Field(description="mute, block or none", max_length=10)


class ReportIn(BaseModel):
    reason: str = Field("", max_length=2000)


class RulesIn(BaseModel):
    rules: dict[str, Any] = Field(description="Press settings to change (kind, channels, quiet_phases, ...).")


class AnnounceIn(BaseModel):
    text: str = Field(max_length=100_000)


_P = "/games/{name}/powers/{power}/press"

# A state-changing call names its caller (WriterDep) before its seat: a caller with no key is told so (401),
# not that the seat is not theirs.


@router.get("/api" + _P, **answers(PressView))
def api_panel(web: WebDep, viewer: ViewerDep, seat: PlayerSeat) -> PressView:
    """The power's press: the game's rules (in words too), the powers, channels with unread counts."""
    return panel(web, seat, viewer)


@router.get("/api" + _P + "/channels/{channel_id}", **answers(PressChannelView))
def api_channel(web: WebDep, seat: PlayerSeat, channel_id: int, before: int | None = None) -> PressChannelView:
    """A channel's latest messages (50, oldest first; ``before`` pages back). Another pair's channel answers
    404 like one that does not exist."""
    return _channel(web, seat, channel_id, before)


@router.get("/api" + _P + "/since/{after}", **answers(PressMessages))
def api_since(web: WebDep, seat: PlayerSeat, after: int) -> PressMessages:
    """Every message the power may read with an id above ``after`` (at most 500): polling for bots."""
    got = store_press.messages_since(web.read, seat.game, seat.power, after)
    return PressMessages.model_validate({"messages": [_message(m) for m in got]})


@router.post("/api" + _P, **answers(PressSent))
def api_send(viewer: WriterDep, seat: PlayerSeat, web: WebDep, body: PressIn) -> PressSent:
    """Send a message to one power (private), several (group) or all (public), as the game's rules allow."""
    return _sent(_send(web, seat, body.to, body.text, "api"))


@router.post("/api" + _P + "/channels/{channel_id}", **answers(PressSent))
def api_reply(viewer: WriterDep, seat: PlayerSeat, web: WebDep, channel_id: int, body: ReplyIn) -> PressSent:
    """Write in a channel the power is in (to its members)."""
    return _sent(_send(web, seat, [], body.text, "api", channel_id))


@router.post("/api" + _P + "/channels/{channel_id}/read", **answers(PressRead))
def api_read(viewer: WriterDep, seat: PlayerSeat, web: WebDep, channel_id: int, body: ReadIn) -> PressRead:
    """Mark a channel read (up to a message)."""
    mark = press_cases.mark_read(web.store, seat.game, seat.power, channel_id, body.up_to)
    return PressRead(channel=channel_id, read_up_to=mark)


@router.post("/api" + _P + "/blocks", **answers(PressBlocks))
def api_block(viewer: WriterDep, seat: PlayerSeat, web: WebDep, body: BlockIn) -> PressBlocks:
    """Mute (hide their messages), block (hide them and take no private message from them) or let through."""
    press_cases.set_sender_block(web.store, seat.game, seat.power, body.power, body.choice, now=web.now())
    return PressBlocks(blocks=store_press.blocks(web.store, seat.game, seat.power))


@router.post("/api" + _P + "/messages/{message_id}/report", **answers(PressReport))
def api_report(viewer: WriterDep, seat: PlayerSeat, web: WebDep, message_id: int, body: ReportIn) -> PressReport:
    """Report a message the power may read to the coordinator."""
    rid = press_cases.report_message(web.store, seat.game, seat.power, message_id, body.reason, now=web.now())
    return PressReport(report=rid)


# --------------------------------------------------------------------------------------------------
# The JSON API (the coordinator's)


def _desk(web: Web, name: str, viewer: Viewer, lang: str = "en") -> PressDesk:
    web.require_coordinator(name, viewer)
    rules = store_press.press_rules(web.read, name)
    threads = store_press.threads(web.read, name, power=None, coordinator=True)
    return PressDesk.model_validate(
        {
            "game": name,
            "rules": rules.to_data(),
            "rules_text": describe(rules, translations(lang).gettext),
            "threads": [_thread(t) for t in threads],
            "reports": store_press.reports(web.read, name),
        }
    )


@router.get("/api/games/{name}/press", **answers(PressDesk))
def api_desk(web: WebDep, viewer: ViewerDep, name: str) -> PressDesk:
    """The coordinator's press: the rules, the channels the rules let them read, and reported messages."""
    return _desk(web, name, viewer)


@router.post("/api/games/{name}/press/rules", **answers(PressRulesAnswer))
def api_rules(viewer: WriterDep, web: WebDep, name: str, body: RulesIn) -> PressRulesAnswer:
    """Declare the game's press rules (settings left out stay as they are)."""
    web.require_coordinator(name, viewer)
    rules = press_cases.set_press_rules(web.store, name, body.rules, now=web.now())
    web.touched(name)  # anonymity is the game's: its page names players, or no longer
    return PressRulesAnswer(rules=rules.to_data(), rules_text=describe(rules))


@router.post("/api/games/{name}/press/announce", **answers(PressSent))
def api_announce(viewer: WriterDep, web: WebDep, name: str, body: AnnounceIn) -> PressSent:
    """An announcement from the coordinator to every power."""
    web.require_coordinator(name, viewer)
    sent = press_cases.announce(web.store, name, body.text, now=web.now())
    return _sent(sent)


# --------------------------------------------------------------------------------------------------
# Pages and forms


def _play(name: str, power: str) -> str:
    return f"{game_url(name)}/play/{quote(power, safe='')}"


MAX_PART_SIZE = 200_000
"""Bytes a press form's text may hold (a letter; the store measures it again and says so in words)."""
MAX_FIELDS = 300
"""Fields a press form may post: from the player's page it is the orders form (its picks, one a unit, and the
press boxes of the threads shown inline, :data:`INLINE_THREADS` at most)."""


DRAFT_COOKIE = "dp_orders_draft"
"""The orders a player had typed, not sent, when they sent press from their page without JavaScript (the press
box is part of the orders form then, so they came along): carried back to the page the send returns to."""
MAX_DRAFT = 3500
"""Bytes the draft's cookie may take (a browser keeps about 4 KB a cookie); a longer draft is kept by answering
with the page itself instead of a redirect."""
DRAFT_LIFE = 3600
"""Seconds a carried-back draft is offered (it is offered only while the seat's orders stay as they were)."""


def _draft_cookie(request: Request) -> str:
    """``__Host-`` prefixed over https, like the session: another host of the domain cannot fill the order box."""
    return HOST_PREFIX + DRAFT_COOKIE if over_https(request) else DRAFT_COOKIE


SendForm = Annotated[Form, Depends(posted(max_fields=MAX_FIELDS, max_part_size=MAX_PART_SIZE))]
"""A message's form: from the player's page, the orders form with its press boxes (:data:`MAX_FIELDS`)."""
PressForm = Annotated[Form, Depends(posted(max_part_size=MAX_PART_SIZE))]
"""The press's other forms (mute or block, report, the coordinator's rules and announcements)."""


def _draft_of(form: Form, name: str, power: str) -> dict[str, Any] | None:
    """The orders draft a press form posted along (its controls belong to the orders form), or ``None``."""
    if "orders" not in form:
        return None
    text = form.get("orders", "")
    # The pick lists' choices, below the text, as the orders form's own send adds them.
    picks = [v for k, v in form.items() if k.startswith("pick:") and v.strip()]
    if picks:
        text = "\n".join([text.rstrip(), *picks]).strip("\n")
    return {
        "game": name,
        "power": power,
        "phase": form.get("phase", ""),
        "based_on": form.get("based_on", ""),
        "orders": text,
        "ready": form.get("ready", "") in ("1", "on", "true"),
    }


def orders_draft(request: Request, pv: PlayerView) -> dict[str, Any] | None:
    """The draft a press send carried back for this page (:data:`DRAFT_COOKIE`): only for the seat and phase it
    was typed for, and while the seat's orders are the ones it was typed over (orders sent since replace it)."""
    raw = request.cookies.get(_draft_cookie(request))
    if not raw or not pv.open:
        return None
    try:
        got = json.loads(unquote(raw))
    except ValueError:
        return None  # the browser's to send: its shape is checked, never trusted
    if not isinstance(got, dict) or not all(isinstance(got.get(k), str) for k in ("game", "power", "phase", "orders")):
        return None
    latest = str(pv.latest_version)
    if (got["game"], got["power"], got["phase"]) != (pv.game.name, pv.power, pv.phase):
        return None
    if str(got.get("based_on", "")) != latest:
        return None
    return {"orders": got["orders"], "ready": bool(got.get("ready"))}


def play_press(
    request: Request, web: Web, pv: PlayerView, viewer: Viewer, shared: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What the player's page shows of the press: the panel with its threads inline (``None`` for the seat's
    stand-in, whose page shows no press: the seat's letters are its player's), the thread to open (the one a
    send from this page went into), and the orders draft a send without JavaScript carried back. ``shared``:
    the page's shared part (:func:`dippouch.web.views.player_page.seat_page`)."""
    name = pv.game.name
    v, power, stand_in = require_seat(web, name, pv.power, viewer)
    seat = OrderingSeat(name, power, v, False)
    shown = None if stand_in else panel(web, seat, viewer, recent=INLINE, lang=language(request), shared=shared)
    thread = number_or_none(request.query_params.get("thread", ""))
    return {"press": shown, "press_open": thread, "draft": orders_draft(request, pv) if shown else None}


def play_context(
    request: Request,
    web: Web,
    pv: PlayerView,
    viewer: Viewer,
    shared: Mapping[str, Any] | None = None,
    **more: Any,
) -> dict[str, Any]:
    """What play.html is handed, by every route that shows the player's page (its own, a refused order's, a
    refused or long press send's): the player's view and its game, the legal orders as the page's script reads
    them (plain data, as the API sends them), the press (:func:`play_press`, given the page's ``shared`` part)
    and no refusal unless ``more`` (``refused``, ``press_refused``, ``press_open``, ``draft``, ``flash``) says
    otherwise."""
    return {
        "p": pv,
        "g": pv.game,
        "legal": [u.model_dump(exclude_unset=True) for u in pv.legal],
        "refused": None,
        "press_refused": None,
        **play_press(request, web, pv, viewer, shared),
        **more,
    }


def _press_refused_page(
    request: Request,
    web: Web,
    seat: OrderingSeat,
    viewer: Viewer,
    form: Form,
    channel: int | None,
    text: str,
    message: str,
) -> Response:
    """A message the rules (or its form) refused, sent from the player's page without JavaScript: the page
    again, the refusal beside the box it came from, the message, its ticks and the orders as typed (nothing
    stored; a redirect would have had to carry all of it)."""
    pv, shared = seat_page(web, seat.game, seat.power, viewer, language(request))
    draft = _draft_of(form, seat.game, seat.power)
    refused = {
        "message": message,
        "text": text,
        "channel": channel,
        "to": form.all("to"),
        "all": form.get("all", "") in ("1", "on"),
    }
    more: dict[str, Any] = {"press_refused": refused, "press_open": channel}
    if draft is not None:
        more["draft"] = {"orders": draft["orders"], "ready": draft["ready"]}
    return render(request, "play.html", play_context(request, web, pv, viewer, shared, **more), status=400)


@router.post("/games/{name}/play/{power}/press", include_in_schema=False)
def form_send(request: Request, form: SendForm, seat: PlayerSeat, web: WebDep, viewer: ViewerDep) -> Response:
    """A message from a press form: new (to the powers ticked, or all), or into a channel (a reply).

    From the player's page its controls belong to the orders form, so the orders typed there come along and
    come back as typed (:func:`orders_draft`): sending press never loses them. The page's script sends in
    place through the JSON API instead; this is the way without it. From a channel's page (``from=channel``)
    the answer is that page again."""
    to = form.all("to")
    if form.get("all", "") in ("1", "on"):
        to = ["all"]
    typed = form.get("channel", "").strip()
    channel = number(typed, "channel", lo=1, say=str) if typed else None  # a field the page fills itself
    # A reply box on the player's page is named for its channel (every box of the page posts with the orders).
    text = form.get(f"text-{channel}", form.get("text", "")) if channel is not None else form.get("text", "")
    on_channel_page = form.get("from", "") == "channel"
    play = _play(seat.game, seat.power)
    try:
        sent = _send(web, seat, to, text, "web", channel)
    except DippouchError as e:
        if on_channel_page:
            return redirect(f"{play}/press/{channel}#press-reply-form", layer_words(request, e), error=True)
        return _press_refused_page(request, web, seat, viewer, form, channel, text, layer_words(request, e))
    if on_channel_page:
        return redirect(f"{play}/press/{sent.channel}#press-reply-form", say(sent.said, language(request)))
    resp = redirect(f"{play}?thread={sent.channel}#thread-{sent.channel}", say(sent.said, language(request)))
    draft = _draft_of(form, seat.game, seat.power)
    if draft is not None:
        value = quote(json.dumps(draft, separators=(",", ":")))
        if len(value) > MAX_DRAFT:
            # Too long for a cookie: the page itself answers, with the draft in its box.
            return _sent_page(request, web, seat, viewer, sent, draft)
        set_private_cookie(request, resp, _draft_cookie(request), value, DRAFT_LIFE)
    return resp


def _sent_page(
    request: Request, web: Web, seat: OrderingSeat, viewer: Viewer, sent: MessageSent, draft: Mapping[str, Any]
) -> Response:
    """The player's page after a send whose orders draft does not fit a cookie: shown at once, with the draft."""
    pv, shared = seat_page(web, seat.game, seat.power, viewer, language(request))
    more = {
        "press_open": sent.channel,
        "draft": {"orders": draft["orders"], "ready": draft["ready"]},
        "flash": say(sent.said, language(request)),
    }
    return render(request, "play.html", play_context(request, web, pv, viewer, shared, **more))


@router.get("/games/{name}/play/{power}/press/{channel_id}", include_in_schema=False, response_class=HTMLResponse)
def channel_page(
    request: Request, web: WebDep, viewer: ViewerDep, seat: PlayerSeat, channel_id: int, before: int | None = None
) -> Response:
    ch = _channel(web, seat, channel_id, before)
    if ch.messages and before is None and ch.messages[-1].id > ch.read_up_to:
        press_cases.mark_read(web.store, seat.game, seat.power, channel_id, ch.messages[-1].id)
    pnl = panel(web, seat, viewer, lang=language(request))
    return render(request, "press_channel.html", {"ch": ch, "press": pnl, "name": seat.game, "power": seat.power})


@router.post("/games/{name}/play/{power}/press-blocks", include_in_schema=False)
def form_block(request: Request, form: PressForm, seat: PlayerSeat, web: WebDep) -> Response:
    other, choice = form.get("other", ""), form.get("choice", "").strip().lower()
    back = _play(seat.game, seat.power) + "#press"
    try:
        press_cases.set_sender_block(web.store, seat.game, seat.power, other, choice, now=web.now())
    except DippouchError as e:
        return redirect(back, layer_words(request, e), error=True)
    _ = words(request).gettext
    said = {
        "mute": _("%(power)s is muted."),
        "block": _("%(power)s is blocked."),
    }.get(choice, _("%(power)s is let through."))
    return redirect(back, said % {"power": other})


@router.post("/games/{name}/play/{power}/press-report/{message_id}", include_in_schema=False)
def form_report(request: Request, form: PressForm, seat: PlayerSeat, web: WebDep, message_id: int) -> Response:
    back = _play(seat.game, seat.power) + "#press"
    try:
        press_cases.report_message(web.store, seat.game, seat.power, message_id, form.get("reason", ""), now=web.now())
    except DippouchError as e:
        return redirect(back, layer_words(request, e), error=True)
    return redirect(back, words(request).gettext("Reported to the coordinator."))


@router.post("/games/{name}/coordinate/press", include_in_schema=False)
def form_announce(request: Request, form: PressForm, web: WebDep, viewer: ViewerDep, name: str) -> Response:
    web.require_coordinator(name, viewer)
    back = f"{game_url(name)}/coordinate/press"
    try:
        if form.get("kind", ""):
            press_cases.set_press_rules(web.store, name, rules_of_form(form), now=web.now())
            web.touched(name)  # anonymity is the game's: its page names players, or no longer
            return redirect(back, words(request).gettext("Press rules saved."))
        press_cases.announce(web.store, name, form.get("text", ""), now=web.now())
    except DippouchError as e:
        return redirect(back, layer_words(request, e), error=True)
    return redirect(back, words(request).gettext("Announcement sent."))


FREE_PRESS_TEXT = N_(
    "the opening takes no press text of its own: the lobby shows the game's press rules, which every door "
    "enforces; set them with the opening's press fields, press_rules in the API (for example "
    '{"kind": "white", "quiet_phases": ["adjustments"]}) or the game\'s press desk'
)
"""Why a free text for the press is refused (the trial: "no press during adjustments", shown in the lobby and
enforced by nothing, let a Winter message through)."""


def rules_of_form(form: Form) -> dict[str, Any]:
    """The press rules a coordinator's form sets (templates/_press.html ``rules_fields``): the one reading of
    that form, on the press desk and on the opening's desk, whose rules the lobby shows and every door checks."""
    return {
        "kind": form.get("kind", ""),
        "coordinator_reads_private": form.get("coordinator_reads_private", "") == "on",
        "anonymous": form.get("anonymous", "") == "on",
        "channels": form.all("channels"),
        "quiet_phases": form.all("quiet_phases"),
    }


@router.get("/games/{name}/coordinate/press", include_in_schema=False, response_class=HTMLResponse)
def desk_page(request: Request, web: WebDep, viewer: ViewerDep, name: str) -> Response:
    return render(request, "press_desk.html", {"d": _desk(web, name, viewer, language(request)), "name": name})


def _still_plays(web: Web, request: Request, name: str, power: str, viewer: Viewer) -> bool:
    """Whether the caller's credentials, read again from the database, still open ``power``'s press: the
    bearer key not revoked, the session not signed out or expired, the seat still theirs. The viewer the
    request started with is a snapshot; a stream outlives it."""
    if viewer.by_bearer:
        auth = request.headers.get("authorization", "")
        grant = web.access.find_key(auth[7:].strip()) if auth.lower().startswith("bearer ") else None
        fresh = None if grant is None else Viewer([grant], by_bearer=True)
    elif viewer.session_token:
        info = web.access.session_info(viewer.session_token, now=web.now())
        fresh = None if info is None else Viewer(info[0], session_token=viewer.session_token, person_id=info[1])
    else:
        fresh = None
    if fresh is None:
        return False
    try:
        _player(web, name, power, fresh)
    except WebError:
        return False
    return True


def _open_press(web: Web, name: str, viewer: Viewer, lang: str = "en") -> dict[str, Any] | None:
    """Every channel a visitor may read, each with its messages, and the rules that opened them in words, in
    ``lang`` (``None``: nothing open yet). A game the viewer may not see answers as one that does not exist,
    before its end and after (a private game's press is never public, and "not open yet" would tell that it
    exists). The store decides what is open (the game over and its rules opening its public press, or all of
    it, after the end), as for the public game file (which keeps the rules in English)."""
    web.require_visible(name, viewer)
    data = store_press.export_press(web.read, name, coordinator=False)
    if data is None:
        return None
    said: dict[int, list[dict[str, Any]]] = {}
    for m in data["messages"]:
        said.setdefault(m["channel"], []).append(m)
    return {
        "rules_text": describe(PressRules.from_data(data["rules"]), translations(lang).gettext),
        "channels": [{**c, "messages": said.get(c["id"], [])} for c in data["channels"]],
    }


@router.get("/games/{name}/press", include_in_schema=False, response_class=HTMLResponse)
def open_press_page(request: Request, web: WebDep, viewer: ViewerDep, name: str) -> Response:
    """A game's press as anyone who may see the game reads it once the game is over (what its rules open then),
    under the rules in the page's language."""
    got = _open_press(web, name, viewer, language(request))
    context = {"name": name, "channels": None, "rules_text": []} if got is None else {"name": name, **got}
    return render(request, "press_open.html", context)


@router.get("/games/{name}/play/{power}/press-events", include_in_schema=False)
async def events(request: Request, web: WebDep, viewer: ViewerDep, seat: PlayerSeat, after: After = 0) -> Response:
    """Messages as they arrive (server-sent events): each an ``event: press`` with the message as JSON and
    its id, so a browser that reconnects (``Last-Event-ID``) misses nothing and gets nothing twice.

    The grant is read again before any message is sent and every :data:`STREAM_RECHECK` seconds: a key
    revoked or a session signed out ends the stream (with an ``event: denied``) and nothing is sent after
    it; the browser's reconnect is then refused like any request without the grant."""
    name, power = seat.game, seat.power
    # A browser sends back the id it got last: anything else is refused here, before the stream's head is
    # sent (after it, an error could only cut the stream).
    last = request.headers.get("last-event-id", "")
    start = number(last, "the Last-Event-ID header", lo=0, say=str) if last.strip() else max(after, 0)  # a browser's

    async def stream() -> AsyncIterator[str]:
        seen = start
        yield "retry: 2000\n\n"
        waited = 0.0
        checked = 0.0
        while waited < STREAM_LIFE and not web.stopping.is_set():  # the browser reconnects to the next server
            if await request.is_disconnected():
                return
            got = await run_in_threadpool(store_press.messages_since, web.read, name, power, seen)
            # Looked at after the read: a grant found standing now stood when the messages were read.
            if got or waited - checked >= STREAM_RECHECK:
                if not await run_in_threadpool(_still_plays, web, request, name, power, viewer):
                    yield "event: denied\ndata: {}\n\n"
                    return
                checked = waited
            for m in got:
                seen = max(seen, m.id)
                yield f"id: {m.id}\nevent: press\ndata: {json.dumps(_message(m))}\n\n"
            if not got:
                yield ": waiting\n\n"
            await asyncio.sleep(STREAM_POLL)
            waited += STREAM_POLL

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )
