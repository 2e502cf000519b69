"""A game's past, for whoever may see it: one phase of the history (its maps, orders, results and report),
every version each power sent in it (for the coordinator, once it may be read), the game file to download,
and the deadline calendar."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from dippouch.core.messages import msg
from dippouch.game import as_utc
from dippouch.names import phase_words
from dippouch.people.anonymity import redact_game_file
from dippouch.play.fairness import Actor, TableMustVote
from dippouch.play.games import export_file
from dippouch.play.reports import stored_report
from dippouch.report import calendar_rows, deadlines_ical, phase_report, upcoming_deadlines
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store import transfer as store_transfer
from dippouch.store.history import phase_record
from dippouch.store.repository import seal_submission
from dippouch.store.web_queries import open_phase_sealed
from dippouch.web.http.security import Forbidden, Viewer, WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views.anonymity import seen_powers
from dippouch.web.views.fog import fog_powers, fog_tag, fogged_record
from dippouch.web.views.games import record

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = ["calendar_ics", "export", "phase_submissions", "phase_view"]


def phase_view(
    web: Web, name: str, phase_id: int, viewer: Viewer, *, maps: bool = True, lang: str | None = None
) -> dict[str, Any]:
    """One phase of the history: its map with orders and results drawn, its report, prev/next. ``maps``
    False leaves the pictures undrawn (None), for the JSON answer, which does not carry them. The report is in
    ``lang`` (the reader's language on the page), else in the game's own (the JSON answer, like its mail)."""
    web.require_visible(name, viewer)
    found = web.access.phase_between(name, phase_id)
    if found is None:
        raise WebNotFound(msg("game %(game)s has no phase with id %(id)s", game=repr(name), id=phase_id))
    h, before, after_id = found
    v = web.variant_of(name)
    revealed = h.status != "open"
    sight = fog_powers(web, name, viewer)
    report = None
    if h.processed_at is not None:
        if sight is not None:
            # The report of what the reader's powers saw, in the game's language for the JSON answer.
            told = fogged_record(web, name, phase_record(web.read, name, phase_id=phase_id), sight)
            report = phase_report(v, told, lang=lang)
        elif lang is None:
            report = stored_report(web.read, name, phase_id=phase_id)
        else:
            report = phase_report(web.variant_of(name), phase_record(web.read, name, phase_id=phase_id), lang=lang)
    rec = fogged_record(web, name, record(name, h), sight)
    key = (name, h.id, h.status, fog_tag(sight))
    said = lang or "en"  # the map's own words: the page's language (the JSON answer draws none)
    svg = web.maps.phase_svg(v, key, rec, orders=revealed, lang=said) if maps else None
    after = web.maps.phase_svg(v, key, rec, after=True, lang=said) if maps and h.next_position else None
    return {
        "game": name,
        "id": h.id,
        # The phase's name in the reader's words on the page; as the calendar writes it for the JSON API.
        "name": h.name if lang is None else phase_words(h.name, lang),
        "status": h.status,
        "kind": h.kind,
        "deadline": h.deadline.isoformat() if h.deadline else None,
        "processed_at": h.processed_at.isoformat() if h.processed_at else None,
        "orders": rec["orders"] if revealed else None,
        "results": rec["results"] if revealed else None,
        "missed": h.missed,
        "report": report,
        "map_svg": svg,
        "after_svg": after,
        "prev": before,
        "next": after_id,
        "position": rec["position"],
        "next_position": rec["next_position"],
    }


def phase_submissions(web: Web, name: str, phase_id: int, viewer: Viewer) -> dict[str, Any] | None:
    """Every version each power sent in a phase, for its coordinator (None for anyone else): who, when,
    how (web, mail, post, photo) and, once the deadline has passed, the text with its line verdicts."""
    if not viewer.coordinates(name) or fog_powers(web, name, viewer) is not None:
        return None
    rec = store_history.phase_record(web.read, name, phase_id=phase_id, sealed_at=web.now(), open_ok=True)
    sealed = bool(rec.get("sealed"))
    if not sealed and _set_aside_unprocessed(rec) and open_phase_sealed(web.read, name, web.now()):
        rec["submissions"] = [seal_submission(sub) for sub in rec["submissions"]]
        sealed = True
    keep = ("power", "version", "label", "submitted_at", "source", "ready", "late", "stands", "text", "lines")
    subs = [{k: sub.get(k) for k in keep} for sub in rec["submissions"]]
    return {"sealed": sealed, "submissions": subs}


def calendar_ics(web: Web, name: str, viewer: Viewer) -> bytes:
    web.require_visible(name, viewer)
    st = store_status.status(web.read, name, now=web.now())
    rows = calendar_rows(web.access.phase_times(name))
    upcoming = []
    if st.state == "active" and st.phase and st.deadline and st.game_variant is not None:
        upcoming = upcoming_deadlines(st.game_variant.calendar, st.settings, st.phase, st.deadline)
    return deadlines_ical(name, st.settings, rows, upcoming=upcoming)


def export(web: Web, name: str, viewer: Viewer, *, unsealed: bool = False, reason: str = "") -> dict[str, Any]:
    """The game file (:func:`dippouch.store.transfer.game_file`): anyone who may see the game gets it without
    submissions or players' addresses; a coordinator gets them, but the open phase's only as who and
    when until its deadline (the W3K rule, as `dippouch export` keeps it), unless they ask for them
    ``unsealed`` with a ``reason``, which is recorded and shown to the players."""
    web.require_visible(name, viewer)
    if not viewer.coordinates(name) or not unsealed:
        view = "coordinator" if viewer.coordinates(name) else "public"
        sealed = store_transfer.game_file(web.read, name, view=view, now=web.now())
        _seal_votes(sealed)
        seen = seen_powers(web, name, viewer)
        if seen is not None:  # an anonymous game: nobody's name but the reader's own seats' until the end
            redact_game_file(sealed, seen)
        return sealed
    by = Actor(web.who(name, viewer), installation=viewer.coordinates(None), person_id=viewer.person_id)
    try:
        data = export_file(web.store, name, by=by, now=web.now(), unsealed=True, reason=reason)
    except TableMustVote as e:  # the creator who plays: the table decides (play.fairness)
        raise Forbidden(e.msg) from None
    finally:
        web.touched(name)
    return data


def _seal_votes(data: dict[str, Any]) -> None:
    """A game file under a secret ballot, for anyone but a coordinator moving it (``unsealed``): the draw
    votes cast since the open phase opened are left out, as the pages leave them out."""
    settings = (data.get("game") or {}).get("settings") or {}
    if not settings.get("secret_ballot") or (data.get("game") or {}).get("status") == "finished":
        return
    open_phase = next((ph for ph in data.get("phases", []) if ph.get("status") == "open"), None)
    if open_phase is None:
        return
    opened = as_utc(datetime.fromisoformat(open_phase["opened_at"]))
    votes = data.get("votes") or []
    kept = [v for v in votes if as_utc(datetime.fromisoformat(v["at"])) < opened]
    if len(kept) != len(votes):
        data["votes"] = kept
        data["votes_sealed"] = "secret ballot: the draw votes cast in the open phase are left out until it is processed"


def _set_aside_unprocessed(ph: Mapping[str, Any]) -> bool:
    """A phase set aside by a rollback before it was processed: its orders were never revealed."""
    return ph.get("status") == "abandoned" and ph.get("processed_at") is None
