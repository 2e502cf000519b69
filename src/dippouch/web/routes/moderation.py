"""Blocks, reports and the installation's review of accounts, on the web.

- A signed-in person blocks another from their public profile (``/people/{id}``) or from one of their messages
  (the player's page), and unblocks them from their account page (``/me``): :mod:`dippouch.play.blocks`.
- A signed-in person reports a message, a person or a game to the site's moderators (``/report``).
- The installation's coordinator reviews the signals that two accounts may be one person, merges and bans
  (``/desk/review/accounts``), and works through the reports (``/desk/review/reports``):
  :mod:`dippouch.play.moderation`. Everyone else is answered 404 there, as for a page that does not exist: the
  pages, and that they hold anything, are the coordinator's alone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.numbers import number_or_none
from dippouch.play import blocks as play_blocks
from dippouch.play import moderation as use
from dippouch.store.moderation import stored as store_moderation
from dippouch.store.people.persons import person
from dippouch.store.press.messages import readable
from dippouch.web.http.deps import (
    PersonDep,
    ViewerDep,
    WebDep,
    WriterDep,
    answers,
    game_url,
    layer_words,
    render,
    words,
)
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.security import BadInput, Viewer, WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views.answers.base import Answer

__all__ = ["moderation_of_me", "router"]

I18N_DOMAIN = "site"

router = APIRouter(tags=["api"])
"""The pages (left out of the OpenAPI document, each route by its own word) and the JSON calls (in it)."""


def _moderator(request: Request, web: Web, viewer: Viewer) -> str:
    """The installation's coordinator, named as the log names them (their key's id); anyone else: 404."""
    ids = [g.key_id for g in viewer.grants if g.role == "coordinator" and g.game is None]
    if not ids:
        raise WebNotFound(msg("no such page"))
    return f"installation key {ids[0]}"


def _number(text: str, what: str) -> int:
    n = number_or_none(text.strip())
    if n is None or n < 1:
        raise BadInput(msg("%(what)s: a number, not %(value)s", what=what, value=repr(text[:40])))
    return n


def moderation_of_me(web: Web, person_id: int | None) -> dict[str, Any]:
    """What the account page shows of moderation: the people one blocks, and the moderators' warnings."""
    if person_id is None:
        return {"blocked": [], "warnings": []}
    return {
        "blocked": play_blocks.blocked_people(web.read, person_id),
        "warnings": store_moderation.warnings(web.read, person_id),
    }


# --------------------------------------------------------------------------------------------------
# Blocks


@router.post("/people/{person_id}/block", include_in_schema=False)
def block_person(request: Request, person_id: int, form: FormDep, web: WebDep, me: PersonDep) -> Response:
    t = words(request)
    play_blocks.block(web.store, me, person_id, now=web.now())
    return redirect(
        f"/people/{person_id}",
        t.gettext("Blocked: no press passes between you in any game, and neither of you joins a game the other is in."),
    )


@router.post("/people/{person_id}/unblock", include_in_schema=False)
def unblock_person(request: Request, person_id: int, form: FormDep, web: WebDep, me: PersonDep) -> Response:
    t = words(request)
    play_blocks.unblock(web.store, me, person_id)
    back = "/me#blocks" if form.get("back", "") == "me" else f"/people/{person_id}"
    return redirect(back, t.gettext("Unblocked."))


@router.post("/games/{name}/play/{power}/press-block/{message_id}", include_in_schema=False)
def block_sender(
    request: Request, name: str, power: str, message_id: int, form: FormDep, web: WebDep, viewer: ViewerDep
) -> Response:
    """Block the person who sent a message the viewer's power may read (:func:`play_blocks.block_sender`: in a
    game that hides its players, the power in this game only)."""
    _variant, power, _ = web.require_seat(name, power, viewer)
    t = words(request)
    back = f"{game_url(name)}/play/{quote(power, safe='')}#press"
    if viewer.person_id is None:
        return redirect(back, t.gettext("sign in as a person to block someone (/signin)"), error=True)
    try:
        got = play_blocks.block_sender(web.store, name, power, message_id, viewer.person_id, now=web.now())
    except GameError as e:
        return redirect(back, layer_words(request, e), error=True)
    web.touched(name)
    if got == "power":
        return redirect(
            back,
            t.gettext(
                "Muted in this game: its players are hidden until it ends, so their person cannot be blocked in "
                "every game before then."
            ),
        )
    return redirect(
        back,
        t.gettext("Blocked: no press passes between you in any game, and neither of you joins a game the other is in."),
    )


def _readable(web: Web, name: str, power: str, message_id: int) -> bool:
    """Whether ``power`` may read the message (a report is of what one was shown)."""
    return readable(web.read, name, power, message_id)


# --------------------------------------------------------------------------------------------------
# Reports


def _report_target(web: Web, viewer: Viewer, q: dict[str, str]) -> dict[str, Any]:
    """What a report is about, from the query or the form: a person, a game, or a message the viewer's power may
    read (refused in the same words when it does not exist or is not theirs)."""
    kind = q.get("kind", "")
    if kind == "person":
        pid = _number(q.get("person", ""), "person")
        p = person(web.read, pid)
        if p is None or p.deleted:
            raise WebNotFound(msg("no person %(person)s", person=pid))
        return {"kind": kind, "person": pid, "label": p.name}
    if kind == "game":
        name = q.get("game", "")
        web.require_visible(name, viewer)
        return {"kind": kind, "game": name, "label": name}
    if kind == "message":
        name, power = q.get("game", ""), q.get("power", "")
        message = _number(q.get("message", ""), "message")
        _, power, _ = web.require_seat(name, power, viewer)
        if not _readable(web, name, power, message):
            raise WebNotFound(msg("no message %(message)s in %(game)s that you may read", message=message, game=name))
        return {"kind": kind, "game": name, "power": power, "message": message, "label": name}
    raise BadInput(msg("report a message, a person or a game (kind: message, person or game)"))


@router.get("/report", response_class=HTMLResponse, include_in_schema=False)
def report_page(request: Request, web: WebDep, viewer: ViewerDep, me: PersonDep) -> Response:
    target = _report_target(web, viewer, dict(request.query_params))
    resp = render(request, "moderation_report.html", {"target": target})
    resp.headers["Cache-Control"] = "no-store"
    return resp


@router.post("/report", include_in_schema=False)
def report_action(request: Request, form: FormDep, web: WebDep, viewer: ViewerDep, me: PersonDep) -> Response:
    target = _report_target(web, viewer, dict(form))
    reason = form.get("reason", "")
    if target["kind"] == "person":
        use.report_person(web.store, me, target["person"], reason, now=web.now())
    elif target["kind"] == "game":
        use.report_game(web.store, me, target["game"], reason, now=web.now())
    else:
        use.report_message(web.store, me, target["game"], target["power"], target["message"], reason, now=web.now())
    t = words(request)
    back = {"person": f"/people/{target.get('person')}", "game": game_url(str(target.get("game", "")))}.get(
        target["kind"], f"{game_url(str(target.get('game', '')))}/play/{quote(str(target.get('power', '')), safe='')}"
    )
    return redirect(back, t.gettext("Your report went to the site's moderators. Thank you."))


def report_url(**what: Any) -> str:
    """The report page's address for a target (templates build it the same way)."""
    return "/report?" + urlencode({k: v for k, v in what.items() if v is not None})


# --------------------------------------------------------------------------------------------------
# The installation's review


@router.get("/desk/review/accounts", response_class=HTMLResponse, include_in_schema=False)
def review_accounts(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    _moderator(request, web, viewer)
    context = {
        "signals": use.signals(web.read, now=web.now()),
        "bans": store_moderation.bans(web.read),
        "log": use.moderation_log(web.read),
    }
    resp = render(request, "moderation_accounts.html", context)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@router.post("/desk/review/accounts/{action}", include_in_schema=False)
def review_accounts_action(request: Request, action: str, form: FormDep, web: WebDep, viewer: ViewerDep) -> Response:
    by = _moderator(request, web, viewer)
    t = words(request)
    back = "/desk/review/accounts"
    if action == "merge":
        a = _number(form.get("from", ""), t.gettext("the account merged"))
        b = _number(form.get("into", ""), t.gettext("the account kept"))
        games = use.merge(web.store, a, b, now=web.now(), by=by)
        return redirect(
            back,
            t.gettext("Merged %(from)s into %(into)s (%(count)s games).") % {"from": a, "into": b, "count": len(games)},
        )
    if action in ("ban", "unban"):
        who = _number(form.get("person", ""), t.gettext("the person"))
        kind = form.get("kind", "signin")
        if action == "unban":
            use.lift_ban(web.store, who, kind, now=web.now(), by=by)
            return redirect(back, t.gettext("Ban lifted."))
        if kind != "signin":
            use.ban_from(web.store, who, kind, form.get("reason", ""), now=web.now(), by=by)
            return redirect(back, t.gettext("Banned; logged."))
        got = use.ban(web.store, who, form.get("reason", ""), now=web.now(), by=by)
        for game in got.left:
            web.touched(game)
        if got.kept:
            return redirect(
                back,
                t.gettext(
                    "Banned; logged. Their seats in %(games)s stay until those games' coordinators hand them on "
                    "(no replacement pool there)."
                )
                % {"games": ", ".join(got.kept)},
            )
        return redirect(back, t.gettext("Banned; logged."))
    raise WebNotFound(msg("no such page"))


@router.get("/desk/review/reports", response_class=HTMLResponse, include_in_schema=False)
def review_reports(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    _moderator(request, web, viewer)
    resp = render(request, "moderation_reports.html", {"reports": use.reports(web.read)})
    resp.headers["Cache-Control"] = "no-store"
    return resp


@router.post("/desk/review/reports/{report_id}", include_in_schema=False)
def review_report_action(request: Request, report_id: int, form: FormDep, web: WebDep, viewer: ViewerDep) -> Response:
    by = _moderator(request, web, viewer)
    t = words(request)
    try:
        use.act_on_report(web.store, report_id, form.get("action", ""), form.get("note", ""), now=web.now(), by=by)
    except GameError as e:
        return redirect("/desk/review/reports", layer_words(request, e), error=True)
    return redirect("/desk/review/reports", t.gettext("Done; logged."))


# --------------------------------------------------------------------------------------------------
# The JSON API: the same use cases as the pages above (:mod:`dippouch.play.blocks`, :mod:`dippouch.play.moderation`),
# for a person signed in (a session with X-CSRF-Token, or their bearer key) and, for the queue, the installation's
# coordinator (anyone else is answered 404, as on the pages).


class BlockedPerson(Answer):
    person_id: int
    name: str
    at: datetime = Field(description="When the block was made.")


class BlocksAnswer(Answer):
    """The people the signed-in person blocks (never shown to those blocked)."""

    blocked: list[BlockedPerson]


class ReportAsked(BaseModel):
    """What is reported: a ``person`` (their id), a ``game`` (its name), or a ``message`` (``game``, the
    reporter's ``power`` there and the message's id, which that power may read); and why."""

    kind: str = Field(max_length=20, description="person, game or message.")
    reason: str = Field(max_length=store_moderation.REASON_MOST + 1000)
    person: int | None = None
    game: str | None = Field(None, max_length=200)
    power: str | None = Field(None, max_length=100)
    message: int | None = None


class ReportMade(Answer):
    id: int = Field(description="The report's number in the moderators' queue.")


class ReportLine(Answer):
    """A report as the moderators' queue shows it, with its evidence."""

    id: int
    kind: str
    reporter_id: int
    reporter: str
    reason: str
    at: datetime
    status: str = Field(description="open, or what was done: dismiss, warn, mute or ban.")
    game: str | None
    person_id: int | None
    person: str | None
    message: str | None = Field(description="The reported message's words (a message report).")
    sender: str | None = Field(description="The power that sent the reported message.")
    phase: str | None = Field(description="The phase the reported message was written in.")


class ReportsAnswer(Answer):
    reports: list[ReportLine]


class ResolveIn(BaseModel):
    action: str = Field(max_length=20, description="dismiss, warn, mute or ban.")
    note: str = Field("", max_length=store_moderation.REASON_MOST)


def _blocks(web: Web, me: int) -> BlocksAnswer:
    return BlocksAnswer(
        blocked=[
            BlockedPerson(person_id=b.person_id, name=b.name, at=b.at) for b in play_blocks.blocked_people(web.read, me)
        ]
    )


def _report_line(r: use.Report) -> ReportLine:
    return ReportLine(
        id=r.id,
        kind=r.kind,
        reporter_id=r.reporter_id,
        reporter=r.reporter,
        reason=r.reason,
        at=r.at,
        status=r.status,
        game=r.game,
        person_id=r.person_id,
        person=r.person,
        message=r.message,
        sender=r.sender,
        phase=r.phase,
    )


@router.get("/api/me/blocks", **answers(BlocksAnswer))
def api_blocks(web: WebDep, me: PersonDep) -> BlocksAnswer:
    """The people the signed-in person blocks."""
    return _blocks(web, me)


@router.post("/api/people/{person_id}/block", **answers(BlocksAnswer))
def api_block(person_id: int, web: WebDep, _: WriterDep, me: PersonDep) -> BlocksAnswer:
    """Block a person in every game: no press passes between the two, neither joins a new game the other is
    in. The blocked person is never told. Blocking again changes nothing."""
    play_blocks.block(web.store, me, person_id, now=web.now())
    return _blocks(web, me)


@router.delete("/api/people/{person_id}/block", **answers(BlocksAnswer))
def api_unblock(person_id: int, web: WebDep, _: WriterDep, me: PersonDep) -> BlocksAnswer:
    """Lift a block (nothing happens when there was none); the blocks as they are then."""
    play_blocks.unblock(web.store, me, person_id)
    return _blocks(web, me)


@router.post("/api/reports", **answers(ReportMade))
def api_report(body: ReportAsked, web: WebDep, viewer: WriterDep, me: PersonDep) -> ReportMade:
    """Report a message, a person or a game to the installation's moderators."""
    fields = {k: str(v) for k, v in body.model_dump(exclude={"reason"}).items() if v is not None}
    target = _report_target(web, viewer, fields)
    if target["kind"] == "person":
        made = use.report_person(web.store, me, target["person"], body.reason, now=web.now())
    elif target["kind"] == "game":
        made = use.report_game(web.store, me, target["game"], body.reason, now=web.now())
    else:
        made = use.report_message(
            web.store, me, target["game"], target["power"], target["message"], body.reason, now=web.now()
        )
    return ReportMade(id=made)


@router.get("/api/reports", **answers(ReportsAnswer))
def api_reports(request: Request, web: WebDep, viewer: ViewerDep) -> ReportsAnswer:
    """The moderators' queue: the open reports, oldest first, with their evidence (the installation's
    coordinator only)."""
    _moderator(request, web, viewer)
    return ReportsAnswer(reports=[_report_line(r) for r in use.reports(web.read)])


@router.post("/api/reports/{report_id}", **answers(ReportLine))
def api_resolve(report_id: int, body: ResolveIn, request: Request, web: WebDep, viewer: WriterDep) -> ReportLine:
    """Close a report: dismissed, a warning, the person's press stopped (mute) or a ban from signing in;
    logged with who did it (the installation's coordinator only)."""
    by = _moderator(request, web, viewer)
    got = use.act_on_report(web.store, report_id, body.action, body.note, now=web.now(), by=by)
    return _report_line(got)
