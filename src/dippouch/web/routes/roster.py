"""The player list on the web: a person's postal addresses and holidays (their own pages), the rosters of a game
and of the installation (page, CSV, PDF), each game's roster and absence settings, and the JSON API for all of it.

Who reads addresses is decided here and only here (:func:`may_read_addresses`), from the game's
``roster_visibility`` and the caller's grants: the game's coordinator always when it says ``coordinator`` or
``co-players``, its players when it says ``co-players``, nobody when it says ``nobody``. Everyone else gets the
roster without a single address or e-mail address, whatever the format; a caller with no part in the game gets
no roster at all. The game page shows who is away (days, never the reason) through :mod:`dippouch.web.views.games`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from datetime import date
from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.core.errors import NotFound
from dippouch.core.messages import N_, Days, Msg, msg, nmsg, quantity
from dippouch.game import GameError
from dippouch.numbers import number_or_none
from dippouch.people.absences import POLICIES
from dippouch.people.addresses import address_in_force
from dippouch.people.anonymity import HIDDEN
from dippouch.people.dates import DateError, day_range
from dippouch.play import roster as roster_cases
from dippouch.store.people import absences as absence_store
from dippouch.store.people import addresses as address_store
from dippouch.store.people.persons import person_by_email
from dippouch.web.http.deps import (
    PersonDep,
    ViewerDep,
    WebDep,
    answers,
    api_language,
    game_url,
    language,
    layer_words,
    render,
    words,
    writer,
)
from dippouch.web.http.forms import Form, posted, redirect
from dippouch.web.http.security import BadInput, Forbidden, NeedsKey, Viewer, WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views.anonymity import absences_seen, seen_powers, stand_in_used, takes_part
from dippouch.web.views.answers.base import web_said
from dippouch.web.views.answers.roster import (
    AbsenceAnswer,
    AbsencesAnswer,
    AddressAnswer,
    AddressesAnswer,
    AllyAnswer,
    DoneAnswer,
    GameAbsencesAnswer,
    RosterAnswer,
    RosterSettingsAnswer,
)
from dippouch.web.views.fog import fogged

__all__ = ["absences_view", "game_absences_view", "may_read_addresses", "policy_words", "router", "visibility_words"]

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(tags=["api"])


def visibility_words(_: Callable[[str], str]) -> dict[str, str]:
    """Who reads a game's addresses (``address_store.VISIBILITIES``, same keys and order) in the reader's words:
    the store keeps the English, which is the message id here (a test keeps the two alike)."""
    return {
        "coordinator": _("the game's coordinator only"),
        "co-players": _("the game's players and its coordinator"),
        "nobody": _("nobody (each person sees only their own)"),
    }


def policy_words(_: Callable[[str], str]) -> dict[str, str]:
    """What a game does while a player is away (``POLICIES``, same keys and order) in the reader's words."""
    return {
        "none": _("nothing: missed orders are missed"),
        "extend": _("extend the deadline from the player's budget of days"),
        "stand_in": _("a named stand-in orders the seat"),
        "standing": _("the player's last orders of that kind carry; units without one hold"),
        "proxy": _("an ally the player names orders their units (proxy orders)"),
    }


"""Its pages, and its JSON calls under ``/api``."""


MAX_FIELDS = 40
"""Fields a roster form may post."""
MAX_FORM = 20_000
"""Bytes one of its fields may hold (an address is at most 2,000 characters: the store says so in words)."""
NEED_SIGN_IN = N_("this call needs a sign-in: a person's session (with X-CSRF-Token) or a bearer key")
"""What a state-changing call here tells a caller with no credentials: addresses and absences are a person's."""

RosterForm = Annotated[Form, Depends(posted(max_fields=MAX_FIELDS, max_part_size=MAX_FORM))]
"""A roster form, read under these limits."""


def _writer(request: Request) -> Viewer:
    return writer(request, NEED_SIGN_IN)


WriterDep = Annotated[Viewer, Depends(_writer)]
"""The caller of a state-changing call here, refused in this room's words; a call on a person's own record
declares :data:`PersonDep` after it."""


# ------------------------------------------------------------------------------------------------ who


def may_read_addresses(viewer: Viewer, game: str, visibility: str) -> bool:
    """Whether ``viewer`` reads the postal and e-mail addresses in ``game``'s roster."""
    if visibility == "coordinator":
        return viewer.coordinates(game)
    if visibility == "co-players":
        return viewer.coordinates(game) or bool(viewer.powers(game))
    return False


def _in_game(viewer: Viewer, game: str) -> bool:
    return viewer.in_game(game) or viewer.coordinates(None)


def _require_roster(viewer: Viewer, game: str) -> None:
    if not viewer.signed_in:
        raise NeedsKey(msg("the roster of %(game)s is for its players and coordinator: sign in first", game=game))
    if not _in_game(viewer, game):
        raise Forbidden(msg("the roster of %(game)s is for its players and coordinator", game=game))


# ------------------------------------------------------------------------------------------------ views


def the_days(first: date, last: date) -> Msg:
    """A span of days, said as the reader's language writes dates."""
    return msg("%(days)s", days=Days(first.isoformat(), last.isoformat()))


def _address_view(a: Any, in_force: Any) -> dict[str, Any]:
    return {
        "id": a.id,
        "address": a.text,
        "primary": a.primary,
        "first_day": a.first_day.isoformat() if a.first_day else None,
        "last_day": a.last_day.isoformat() if a.last_day else None,
        "when": "primary" if a.primary else the_days(a.first_day, a.last_day),
        "in_force": in_force is not None and in_force.id == a.id,
    }


def addresses_view(web: Web, person_id: int) -> dict[str, Any]:
    mine = address_store.addresses_of(web.store, person_id)
    today = web.now().date()
    now = address_in_force(mine, today)
    return {"today": today.isoformat(), "addresses": [_address_view(a, now) for a in mine]}


def _entry(e: address_store.RosterEntry, shown: bool, away: dict[str, Msg]) -> dict[str, Any]:
    out: dict[str, Any] = {"power": e.power, "player": e.player, "person_id": e.person_id}
    if e.power in away:
        out["away"] = away[e.power]
    if shown:
        out["emails"] = list(e.emails)
        out["address"] = e.address
        out["until"] = e.until.isoformat() if e.until else None
        out["changes"] = [{"first_day": d.isoformat(), "address": text} for d, text in e.changes]
    return out


def _hidden_entry(e: address_store.RosterEntry) -> dict[str, Any]:
    """A seat of an anonymous game whose player the reader may not know: the power only (not even its days
    away, which a game naming the player would show too: :func:`dippouch.web.views.anonymity.absences_seen`)."""
    return {"power": e.power, "player": None, "person_id": None}


def _roster_views(web: Web, viewer: Viewer, games: list[str] | None) -> list[dict[str, Any]]:
    today = web.now().date()
    out = []
    for r in address_store.roster(web.store, games, today):
        if not _in_game(viewer, r.game):
            continue
        shown = may_read_addresses(viewer, r.game, r.visibility)
        away = {a.power: a.text for a in absence_store.game_absences(web.store, r.game, today)}
        # An anonymous game before its end: a co-player reads their own row only (whose address is whose
        # would name the players); the coordinator reads every row as the setting says.
        seen = seen_powers(web, r.game, viewer)
        out.append(
            {
                **({"names_hidden": True} if seen is not None else {}),
                "game": r.game,
                "variant": r.variant,
                "status": r.status,
                "visibility": r.visibility,
                "visibility_text": address_store.VISIBILITIES[r.visibility],
                "addresses_shown": shown,
                "day": today.isoformat(),
                "entries": [
                    _entry(e, shown, away) if seen is None or e.power in seen else _hidden_entry(e) for e in r.entries
                ],
            }
        )
    return out


def game_roster(web: Web, name: str, viewer: Viewer) -> dict[str, Any]:
    _require_roster(viewer, name)
    got = _roster_views(web, viewer, [name])
    if not got:
        raise WebNotFound(msg("no game %(game)s", game=repr(name)))
    return got[0]


def installation_roster(web: Web, viewer: Viewer) -> list[dict[str, Any]]:
    if not viewer.signed_in:
        raise NeedsKey(msg("the roster is for the games' players and coordinators: sign in first"))
    return _roster_views(web, viewer, None)


def game_absences_view(web: Web, name: str) -> dict[str, Any]:
    """What the game page and the API show of absences: the policy, who is away (days only), what was done."""
    return absences_view(
        absence_store.absence_policy(web.store, name),
        absence_store.game_absences(web.store, name, web.now().date()),
        absence_store.absence_uses(web.store, name),
        fog=fogged(web, name),
    )


def absences_view(
    pol: absence_store.AbsencePolicy,
    away: list[absence_store.GameAway],
    uses: list[absence_store.Use],
    *,
    fog: bool = False,
) -> dict[str, Any]:
    """:func:`game_absences_view` of what was read already (the game page reads them with its other reads), its
    texts as message values' data (the game page's shared part is kept as JSON; said where shown). ``fog``: a fog-of-war game still running, where what was done never says how many units a power has."""
    return {
        "policy": pol.policy,
        "policy_text": POLICIES.get(pol.policy, pol.policy),
        "budget_days": pol.budget_days,
        "stand_in": pol.stand_in_name,
        "stand_in_person_id": pol.stand_in_person_id,
        "away": [
            {"power": a.power, "player": a.player, "person_id": a.person_id, "text": a.text.to_data(), "now": a.now}
            for a in away
        ],
        "applied": [
            {
                "phase": u.phase,
                "power": u.power,
                "policy": u.policy,
                "days": u.days,
                "text": _use_text(u, fog).to_data(),
            }
            for u in uses
        ],
    }


def _use_text(u: absence_store.Use, fog: bool = False) -> Msg:
    """What the game did for an absent power at a deadline, said in the reader's language where it is shown."""
    d = u.detail
    if u.policy == "extend":
        if "deadline" in d:
            when = d["deadline"][:16].replace("T", " ")
            return msg(
                "%(power)s was away: deadline extended by %(days)s days to %(when)s UTC",
                power=u.power,
                days=quantity(u.days),
                when=when,
            )
        note = u.note
        if note is None:
            return msg("%(power)s was away: no extension", power=u.power)
        return msg("%(power)s was away: %(note)s", power=u.power, note=note)
    if u.policy == "standing":
        carried = d.get("carried") or []
        if fog:  # how many orders were carried would tell how many units the power has
            return msg("%(power)s was away: their standing orders were carried, other units hold", power=u.power)
        return nmsg(
            "%(power)s was away: %(num)d standing order carried, other units hold",
            "%(power)s was away: %(num)d standing orders carried, other units hold",
            len(carried),
            power=u.power,
        )
    if u.policy == "stand_in":
        if d.get("stand_in"):
            return msg("%(power)s was away: %(stand_in)s could order for them", power=u.power, stand_in=d["stand_in"])
        return stand_in_used(u.power)
    return msg("%(power)s was away", power=u.power)


def _absences_view(web: Web, person_id: int) -> dict[str, Any]:
    today = web.now().date()
    from dippouch.store.people.persons import seats_of

    games = []
    allies = absence_store.proxy_allies(web.store, person_id)
    for seat in seats_of(web.store, person_id):
        pol = absence_store.absence_policy(web.store, seat.game)
        game: dict[str, Any] = {
            "game": seat.game,
            "power": seat.power,
            "policy": pol.policy,
            "policy_text": POLICIES[pol.policy],
            "proxy_orders": pol.proxy_orders,
            "ally": allies.get(seat.game),
        }
        if pol.proxy_orders:
            game["powers"] = [p for p in web.variant_of(seat.game).power_names if p != seat.power]
        games.append(game)
    return {
        "today": today.isoformat(),
        "absences": [
            {
                "id": a.id,
                "first_day": a.first_day.isoformat(),
                "last_day": a.last_day.isoformat(),
                "text": a.text,
                "reason": a.reason,
            }
            for a in absence_store.absences_of(web.store, person_id)
            if a.last_day >= today
        ],
        "games": games,
    }


# ------------------------------------------------------------------------------------------------ files


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A cell beginning with one of these is a formula to a spreadsheet (OWASP, "CSV injection")."""


def csv_cell(value: object) -> str:
    """``value`` as a cell no spreadsheet runs: names and addresses are typed by players, and a cell such
    as ``=HYPERLINK(...)`` in the file the coordinator opens would become a live link or formula. The
    leading ``'`` makes it text (OWASP's advice); the cell is otherwise unchanged."""
    text = "" if value is None else str(value)  # as csv.writer writes None
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def roster_csv(views: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")

    def write(cells: list[Any]) -> None:
        w.writerow([csv_cell(c) for c in cells])  # every cell, so none can be forgotten

    shown = any(v["addresses_shown"] for v in views)
    head = ["game", "power", "player", "away"]
    if shown:
        head += ["e-mail", "address in force", "until", "upcoming changes"]
    write(head)
    for v in views:
        for e in v["entries"]:
            row = [v["game"], e["power"], e["player"] or HIDDEN, e.get("away", "")]
            if shown:
                if v["addresses_shown"] and "emails" in e:
                    changes = "; ".join(
                        f"from {c['first_day']}: {(c['address'] or 'no address').replace(chr(10), ', ')}"
                        for c in e["changes"]
                    )
                    row += [
                        " ".join(e["emails"]),
                        (e["address"] or "").replace("\n", ", "),
                        e["until"] or "",
                        changes,
                    ]
                else:
                    row += ["", "", "", ""]
            write(row)
    return out.getvalue()


_PX = 96 / 25.4


def _lines(views: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(style, text) lines of the printed roster: ``h`` a game's heading, ``b`` a player, ``t`` text."""
    out: list[tuple[str, str]] = []
    for v in views:
        out.append(("h", f"{v['game']} ({v['variant']})"))
        if not v["addresses_shown"]:
            out.append(("t", f"Addresses are read by {v['visibility_text']}."))
        for e in v["entries"]:
            who = e["player"] or HIDDEN
            out.append(("b", f"{e['power']}: {who}" + (f" ({e['away']})" if e.get("away") else "")))
            if v["addresses_shown"] and "emails" in e:
                if e["emails"]:
                    out.append(("t", "    " + ", ".join(e["emails"])))
                for line in (e["address"] or "no postal address given").split("\n"):
                    out.append(("t", "    " + line))
                if e["until"]:
                    out.append(("t", f"    (until {e['until']})"))
                for c in e["changes"]:
                    where = (c["address"] or "no address").replace("\n", ", ")
                    out.append(("t", f"    from {c['first_day']}: {where}"))
        out.append(("t", ""))
    return out


def roster_pdf(title: str, views: list[dict[str, Any]]) -> bytes:
    """The roster on A4 pages, drawn as SVG and turned into PDF as the results are (cairosvg)."""
    from dippouch.render.output import pdf_pages

    width, height = 210 * _PX, 297 * _PX
    margin, step, top = 15 * _PX, 15.0, 15 * _PX + 34
    per_page = int((height - top - margin) / step)
    lines = [(style, text[:110]) for style, text in _lines(views)] or [("t", "No games.")]
    pages = []
    for start in range(0, len(lines), per_page):
        body = [
            f'<text x="{margin:.1f}" y="{margin + 12:.1f}" font-size="16" font-weight="bold">{escape(title)}</text>'
        ]
        for row, (style, text) in enumerate(lines[start : start + per_page]):
            weight = ' font-weight="bold"' if style in ("h", "b") else ""
            size = 13 if style == "h" else 10.5
            body.append(
                f'<text x="{margin:.1f}" y="{top + row * step:.1f}" font-size="{size}"{weight} xml:space="preserve">'
                f"{escape(text)}</text>"
            )
        pages.append(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm" viewBox="0 0 {width:.1f} {height:.1f}"'
            f' font-family="DejaVu Sans, Verdana, sans-serif"><rect width="100%" height="100%" fill="#ffffff"/>'
            + "".join(body)
            + "</svg>"
        )
    return pdf_pages(pages)


_PRIVATE = {"Cache-Control": "no-store, private", "X-Content-Type-Options": "nosniff"}


def _file(data: str | bytes, media: str, filename: str) -> Response:
    return Response(
        data, media_type=media, headers={**_PRIVATE, "Content-Disposition": f'attachment; filename="{filename}"'}
    )


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:60] or "game"


# ------------------------------------------------------------------------------------------------ pages


def _days_of(data: Mapping[str, str]) -> tuple[date | None, date | None]:
    first, last = data.get("from", "").strip(), data.get("to", "").strip()
    if not first and not last:
        return None, None
    if not first or not last:
        raise DateError(
            msg(
                "%(field)s: give both days of an alternate address (or neither, for the primary)",
                field="from" if not first else "to",
            )
        )
    return day_range(first, last)


def _addresses_page(
    request: Request, web: Web, pid: int, *, error: str | None = None, typed: Mapping[str, str] | None = None
) -> Response:
    ctx = {
        "v": AddressesAnswer.model_validate(addresses_view(web, pid), context={"lang": language(request)}),
        "error": error,
        "typed": typed or {},
    }
    return render(request, "addresses.html", ctx, status=400 if error else 200)


@router.get("/me/addresses", include_in_schema=False, response_class=HTMLResponse)
def addresses_page(request: Request, web: WebDep, pid: PersonDep) -> Response:
    return _addresses_page(request, web, pid)


@router.post("/me/addresses", include_in_schema=False)
def add_address_form(request: Request, data: RosterForm, web: WebDep, pid: PersonDep) -> Response:
    def add() -> str:
        first, last = _days_of(data)
        roster_cases.add_address(web.store, pid, data.get("address", ""), first_day=first, last_day=last, now=web.now())
        return words(request).gettext("Address added.")

    return _change(
        request, add, lambda error: _addresses_page(request, web, pid, error=error, typed=data), "/me/addresses"
    )


@router.post("/me/addresses/{address_id}", include_in_schema=False)
def edit_address_form(request: Request, address_id: int, data: RosterForm, web: WebDep, pid: PersonDep) -> Response:
    def edit() -> str:
        first, last = _days_of(data)
        roster_cases.edit_address(web.store, pid, address_id, data.get("address", ""), first_day=first, last_day=last)
        return words(request).gettext("Address saved.")

    typed = {**data, "id": str(address_id)}
    where = words(request).gettext("address #%(id)s: %(reason)s")
    return _change(
        request,
        edit,
        lambda error: _addresses_page(request, web, pid, error=error, typed=typed),
        "/me/addresses",
        where=lambda reason: where % {"id": address_id, "reason": reason},
    )


@router.post("/me/addresses/{address_id}/delete", include_in_schema=False)
def delete_address_form(request: Request, address_id: int, _: RosterForm, web: WebDep, pid: PersonDep) -> Response:
    def remove() -> str:
        roster_cases.remove_address(web.store, pid, address_id)
        return words(request).gettext("Address removed.")

    return _change(request, remove, lambda error: _addresses_page(request, web, pid, error=error), "/me/addresses")


def _absences_page(
    request: Request, web: Web, pid: int, *, error: str | None = None, typed: Mapping[str, str] | None = None
) -> Response:
    ctx = {
        "v": AbsencesAnswer.model_validate(_absences_view(web, pid), context={"lang": language(request)}),
        "error": error,
        "typed": typed or {},
    }
    return render(request, "absences.html", ctx, status=400 if error else 200)


@router.get("/me/absences", include_in_schema=False, response_class=HTMLResponse)
def absences_page(request: Request, web: WebDep, pid: PersonDep) -> Response:
    return _absences_page(request, web, pid)


@router.post("/me/absences", include_in_schema=False)
def add_absence_form(request: Request, data: RosterForm, web: WebDep, pid: PersonDep) -> Response:
    def add() -> str:
        first, last = day_range(data.get("from", ""), data.get("to", ""))
        roster_cases.record_absence(web.store, pid, first, last, reason=data.get("reason", ""), now=web.now())
        _touch_seats(web, pid)
        said = words(request).gettext("Away %(days)s: recorded for all your games.")
        return said % {"days": layer_words(request, the_days(first, last))}

    return _change(
        request, add, lambda error: _absences_page(request, web, pid, error=error, typed=data), "/me/absences"
    )


@router.post("/me/absences/ally", include_in_schema=False)
def ally_form(request: Request, data: RosterForm, web: WebDep, pid: PersonDep) -> Response:
    game = data.get("game", "")

    def name_ally() -> str:
        ally = roster_cases.choose_proxy_ally(web.store, pid, game, data.get("ally") or None, now=web.now())
        w = words(request)
        if ally:
            said = w.gettext("%(game)s: %(ally)s gives proxy orders for your units while you are away.")
            return said % {"game": game, "ally": ally}
        return w.gettext("%(game)s: nobody gives proxy orders for your units while you are away.") % {"game": game}

    where = words(request).gettext("%(game)s: %(reason)s")
    return _change(
        request,
        name_ally,
        lambda error: _absences_page(request, web, pid, error=error, typed=data),
        "/me/absences",
        where=lambda reason: where % {"game": game, "reason": reason} if game else reason,
    )


@router.post("/me/absences/{absence_id}/delete", include_in_schema=False)
def delete_absence_form(request: Request, absence_id: int, _: RosterForm, web: WebDep, pid: PersonDep) -> Response:
    def remove() -> str:
        roster_cases.remove_absence(web.store, pid, absence_id, now=web.now())
        _touch_seats(web, pid)
        return words(request).gettext("Absence removed.")

    return _change(request, remove, lambda error: _absences_page(request, web, pid, error=error), "/me/absences")


def _change(
    request: Request,
    change: Callable[[], str],
    page: Callable[[str], Response],
    url: str,
    *,
    where: Callable[[str], str] | None = None,
) -> Response:
    """A form on the signed-in person's own page (addresses, absences): ``change`` alters their record and
    says what it did, shown on ``url``'s page after a redirect (so a reload does not send the form again). A
    refusal (bad input, another person's record) shows the same page again (``page``) with why, in the page's
    language (the layer's message value, :func:`dippouch.saying.say`), wrapped by ``where`` in the record it
    concerns ("address #3: ...", a game's name before a proxy ally refused: the request's own words around the
    said reason), and the form as they typed it, status 400: nothing is stored, and nothing they typed is lost."""
    try:
        flash = change()
    except (GameError, DateError) as e:
        reason = layer_words(request, e)
        return page(where(reason) if where is not None else reason)
    return redirect(url, flash)


def _touch_seats(web: Web, pid: int) -> None:
    """A person's absences show on the pages of every game they play: those pages are drawn again."""
    from dippouch.store.people.persons import seats_of

    for game in sorted({s.game for s in seats_of(web.store, pid)}):
        web.touched(game)


def _roster_page(request: Request, web: Web, viewer: Viewer, name: str | None, *, error: str | None = None) -> Response:
    views = [game_roster(web, name, viewer)] if name is not None else installation_roster(web, viewer)
    ctx: dict[str, Any] = {
        "views": [RosterAnswer.model_validate(v, context={"lang": language(request)}) for v in views],
        "game": name,
        "error": error,
        "gurl": game_url(name) if name else None,
        "visibility_words": visibility_words(words(request).gettext),
    }
    if name is not None and viewer.coordinates(name):
        ctx["settings"] = _settings_view(web, name)
        ctx["visibilities"] = visibility_words(words(request).gettext)
        ctx["policies"] = policy_words(words(request).gettext)
    return render(request, "roster.html", ctx, status=400 if error else 200)


@router.get("/games/{name}/roster", include_in_schema=False, response_class=HTMLResponse)
def game_roster_page(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    return _roster_page(request, web, viewer, name)


@router.get("/roster", include_in_schema=False, response_class=HTMLResponse)
def roster_page(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    return _roster_page(request, web, viewer, None)


@router.get("/games/{name}/roster.csv", include_in_schema=False)
def game_roster_csv(name: str, web: WebDep, viewer: ViewerDep) -> Response:
    views = [game_roster(web, name, viewer)]
    return _file(roster_csv(views), "text/csv; charset=utf-8", f"roster-{_safe(name)}.csv")


@router.get("/roster.csv", include_in_schema=False)
def roster_csv_file(web: WebDep, viewer: ViewerDep) -> Response:
    views = installation_roster(web, viewer)
    return _file(roster_csv(views), "text/csv; charset=utf-8", "roster.csv")


@router.get("/games/{name}/roster.pdf", include_in_schema=False)
def game_roster_pdf(name: str, web: WebDep, viewer: ViewerDep) -> Response:
    view = game_roster(web, name, viewer)
    return _file(roster_pdf(f"{name}: players", [view]), "application/pdf", f"roster-{_safe(name)}.pdf")


@router.get("/roster.pdf", include_in_schema=False)
def roster_pdf_file(web: WebDep, viewer: ViewerDep) -> Response:
    views = installation_roster(web, viewer)
    return _file(roster_pdf("Players of every game", views), "application/pdf", "roster.pdf")


def _settings_view(web: Web, name: str) -> dict[str, Any]:
    pol = absence_store.absence_policy(web.store, name)
    return {
        "roster_visibility": address_store.roster_visibility(web.store, name),
        "absence_policy": pol.policy,
        "budget_days": pol.budget_days,
        "stand_in": pol.stand_in_name,
        "proxy_orders": pol.proxy_orders,
    }


def _apply_settings(
    web: Web, name: str, viewer: Viewer, data: Mapping[str, Any], *, say: Callable[[str], str] = str
) -> dict[str, Any]:
    """Apply the roster's settings; a refusal of the form's own in ``say``'s language (a page passes its
    reader's gettext; the JSON API answers in English)."""
    _ = say
    web.require_coordinator(name, viewer)
    now = web.now()
    visibility = str(data.get("roster_visibility") or "").strip()
    policy = str(data.get("absence_policy") or "").strip()
    budget_text = str(data.get("budget_days") if data.get("budget_days") is not None else "").strip()
    stand_in = str(data.get("stand_in") or "").strip()
    budget: int | None = None
    if budget_text:
        budget = number_or_none(budget_text)
        if budget is None:
            raise BadInput(
                msg("budget_days: %(value)s is not a whole number of days; write e.g. 14", value=repr(budget_text))
            )
    stand_in_id: int | None = None
    if policy.replace("-", "_") == "stand_in":
        if not stand_in:
            raise BadInput(_("stand_in: give the e-mail address of the person who stands in for absent players"))
        who = person_by_email(web.store, stand_in)
        if who is None:
            raise BadInput(
                msg(
                    "stand_in: nobody has signed up with %(address)s; ask them to sign in once, then name them here",
                    address=repr(stand_in),
                )
            )
        stand_in_id = who.id
    roster_cases.set_roster_settings(
        web.store,
        name,
        visibility=visibility,
        policy=policy,
        budget_days=budget,
        stand_in_person_id=stand_in_id,
        now=now,
    )
    web.touched(name)
    return _settings_view(web, name)


@router.post("/games/{name}/roster/settings", include_in_schema=False)
def settings_form(request: Request, name: str, data: RosterForm, web: WebDep, viewer: ViewerDep) -> Response:
    try:
        _apply_settings(web, name, viewer, data, say=words(request).gettext)
    except (GameError, BadInput) as e:
        if isinstance(e, NotFound):  # the game itself is not there: its 404, not the form again
            raise
        message = layer_words(request, e)
        return _roster_page(request, web, viewer, name, error=message)
    return redirect(game_url(name) + "/roster", words(request).gettext("Settings saved."))


# ------------------------------------------------------------------------------------------------ API


class AddressIn(BaseModel):
    address: str = Field(max_length=2000, description="The address, one line of the envelope a line.")
    first_day: str = Field("", max_length=40, description="First day (2026-08-03); empty: the primary.")
    last_day: str = Field("", max_length=40, description="Last day, inclusive; empty: the primary.")


class AbsenceIn(BaseModel):
    first_day: str = Field(max_length=40, description="First day away (2026-08-03).")
    last_day: str = Field(max_length=40, description="Last day away, inclusive.")
    reason: str = Field("", max_length=200, description="For you only; games show the days.")


class RosterSettingsIn(BaseModel):
    roster_visibility: str = Field("", max_length=20, description="coordinator, co-players or nobody")
    absence_policy: str = Field("", max_length=20, description="none, extend, stand_in or standing")
    budget_days: int | None = Field(None, description="Days of extension each player may take (extend).")
    stand_in: str = Field("", max_length=320, description="The stand-in's e-mail address (stand_in).")


_API_FIELDS = {"from": "first_day", "to": "last_day"}
"""The JSON API's names of the fields the forms call from and to."""

_API_DAYS_OUT_OF_ORDER = {
    "to: %(last)s is before 'from' (%(first)s); did you mean from %(last)s to %(first)s?": N_(
        "last_day: %(last)s is before 'first_day' (%(first)s); did you mean from %(last)s to %(first)s?"
    )
}
"""The one day's message that names both fields in its words: the API's own wording, by the form's id."""


def _api_error(e: DateError) -> BadInput:
    """A day's message with the API's field names (the forms say from and to): its field value renamed, or the
    API's wording of a message that names the fields in its text."""
    m = e.msg
    args = {k: _API_FIELDS.get(v, v) if k == "field" and isinstance(v, str) else v for k, v in m.args.items()}
    return BadInput(Msg(_API_DAYS_OUT_OF_ORDER.get(m.id, m.id), args, m.plural, m.context))


def _api_days(first: str, last: str) -> tuple[date | None, date | None]:
    try:
        return _days_of({"from": first, "to": last})
    except DateError as e:
        raise _api_error(e) from None


def _address(web: Web, pid: int, address_id: int) -> AddressAnswer:
    return AddressAnswer.model_validate(next(a for a in addresses_view(web, pid)["addresses"] if a["id"] == address_id))


@router.get("/api/me/addresses", **answers(AddressesAnswer))
def api_addresses(web: WebDep, pid: PersonDep) -> AddressesAnswer:
    """The signed-in person's postal addresses, with the one in force today."""
    return AddressesAnswer.model_validate(addresses_view(web, pid))


@router.post("/api/me/addresses", **answers(AddressAnswer))
def api_add_address(body: AddressIn, web: WebDep, _: WriterDep, pid: PersonDep) -> AddressAnswer:
    """Add a postal address: the primary (no days) or an alternate preferred from ``from`` to ``to``."""
    first, last = _api_days(body.first_day, body.last_day)
    new = roster_cases.add_address(web.store, pid, body.address, first_day=first, last_day=last, now=web.now())
    return _address(web, pid, new)


@router.post("/api/me/addresses/{address_id}", **answers(AddressAnswer))
def api_edit_address(address_id: int, body: AddressIn, web: WebDep, _: WriterDep, pid: PersonDep) -> AddressAnswer:
    """Change one of the signed-in person's addresses."""
    first, last = _api_days(body.first_day, body.last_day)
    roster_cases.edit_address(web.store, pid, address_id, body.address, first_day=first, last_day=last)
    return _address(web, pid, address_id)


def _done(request: Request, message: Msg) -> DoneAnswer:
    """What the JSON API answers a change it made: its message said in the language the caller asked for
    (``?lang=``; English, the language programs read, otherwise), with its code and values to branch on."""
    return DoneAnswer(
        message=web_said(message, api_language(request)),
        code=message.code,
        params=message.to_data().get("args", {}),
    )


@router.delete("/api/me/addresses/{address_id}", **answers(DoneAnswer))
def api_remove_address(request: Request, address_id: int, web: WebDep, _: WriterDep, pid: PersonDep) -> DoneAnswer:
    roster_cases.remove_address(web.store, pid, address_id)
    return _done(request, msg("address #%(id)s removed", id=address_id))


@router.get("/api/me/absences", **answers(AbsencesAnswer))
def api_absences(web: WebDep, pid: PersonDep) -> AbsencesAnswer:
    """The signed-in person's holidays to come, and each of their games' policy for them."""
    return AbsencesAnswer.model_validate(_absences_view(web, pid))


@router.post("/api/me/absences", **answers(AbsenceAnswer))
def api_add_absence(body: AbsenceIn, web: WebDep, _: WriterDep, pid: PersonDep) -> AbsenceAnswer:
    """Record a holiday once, for every game the person plays."""
    try:
        first, last = day_range(body.first_day, body.last_day)
    except DateError as e:
        raise _api_error(e) from None
    new = roster_cases.record_absence(web.store, pid, first, last, reason=body.reason, now=web.now())
    _touch_seats(web, pid)
    return AbsenceAnswer.model_validate(next(a for a in _absences_view(web, pid)["absences"] if a["id"] == new))


@router.delete("/api/me/absences/{absence_id}", **answers(DoneAnswer))
def api_remove_absence(request: Request, absence_id: int, web: WebDep, _: WriterDep, pid: PersonDep) -> DoneAnswer:
    roster_cases.remove_absence(web.store, pid, absence_id, now=web.now())
    _touch_seats(web, pid)
    return _done(request, msg("absence #%(id)s removed", id=absence_id))


@router.get("/api/games/{name}/roster", **answers(RosterAnswer))
def api_game_roster(name: str, web: WebDep, viewer: ViewerDep) -> RosterAnswer:
    """The game's roster: every power and its player; addresses only for those the game's setting allows."""
    return RosterAnswer.model_validate(game_roster(web, name, viewer))


@router.get("/api/roster", **answers(list[RosterAnswer]))
def api_roster(web: WebDep, viewer: ViewerDep) -> list[RosterAnswer]:
    """The rosters of every game the caller plays or coordinates."""
    return [RosterAnswer.model_validate(v) for v in installation_roster(web, viewer)]


@router.get("/api/games/{name}/absences", **answers(GameAbsencesAnswer))
def api_game_absences(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> GameAbsencesAnswer:
    """The game's absence policy and what it did at past deadlines, as public as the game; who is away when, only
    to those who take part in it (as the game page shows it)."""
    web.require_visible(name, viewer)
    seen = absences_seen(game_absences_view(web, name), seen_powers(web, name, viewer), member=takes_part(viewer, name))
    lang = api_language(request)
    applied = [{**u, "text": web_said(Msg.from_data(u["text"]), lang)} for u in seen["applied"]]
    away = [{**a, "text": web_said(Msg.from_data(a["text"]), lang)} for a in seen["away"]]
    return GameAbsencesAnswer.model_validate({**seen, "applied": applied, "away": away})


@router.post("/api/games/{name}/roster/settings", **answers(RosterSettingsAnswer))
def api_roster_settings(name: str, body: RosterSettingsIn, web: WebDep, viewer: WriterDep) -> RosterSettingsAnswer:
    """The coordinator sets who reads the roster's addresses and what the game does for absent players."""
    return RosterSettingsAnswer.model_validate(_apply_settings(web, name, viewer, body.model_dump()))


class AllyIn(BaseModel):
    game: str = Field(max_length=100)
    ally: str = Field(
        "", max_length=100, description="The power that orders your units while you are away; empty: none."
    )


@router.post("/api/me/absences/ally", **answers(AllyAnswer))
def api_ally(body: AllyIn, web: WebDep, _: WriterDep, pid: PersonDep) -> AllyAnswer:
    """In a game whose rules allow proxy orders (W3K), name the ally who orders your units while you are away."""
    ally = roster_cases.choose_proxy_ally(web.store, pid, body.game, body.ally or None, now=web.now())
    return AllyAnswer(game=body.game, ally=ally)
