"""The game page: what anyone who may see a game is shown (phase, deadline, who has sent orders but never what,
the board, the last report, the history), the pictures of its phases, and the list of games."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any
from urllib.parse import quote

from dippouch.core.messages import PhaseName, msg
from dippouch.core.position import Position
from dippouch.core.sight import sight_of, veil
from dippouch.core.variant import Variant
from dippouch.game import GameError, as_utc, draw_needs, position_from_data
from dippouch.names import board_unit, phase_words
from dippouch.people.anonymity import names_hidden
from dippouch.report import ReportBasis, phase_report, report_basis
from dippouch.saying import say
from dippouch.store import games as store_games
from dippouch.store import votes as store_votes
from dippouch.store.mail.review import phase_held
from dippouch.store.page_cache import phase_submissions
from dippouch.store.records import StoredPhase
from dippouch.store.repository import phase_record_of
from dippouch.store.status import in_fog
from dippouch.store.web_queries import game_page_reads, game_phase
from dippouch.web.http.inputs import duration_text
from dippouch.web.http.security import Viewer, WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.routes.roster import absences_view
from dippouch.web.views.anonymity import game_view_seen, shown_marker, takes_part
from dippouch.web.views.fog import fog_powers, fog_tag, fogged_powers, fogged_record
from dippouch.web.views.maps import NO_MAP, board_file, map_available, variant_board

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = [
    "MAP_VIEWS",
    "board",
    "board_url",
    "game_map",
    "game_view",
    "games_list",
    "kind_name",
    "phase_map",
    "phase_map_encoded",
    "phase_map_record",
    "record",
    "view_drawn",
]

MAP_VIEWS = ("board", "orders", "after", "after-orders")
"""The pictures of a phase: its position (board), with its orders and results drawn (orders, once processed),
and the position it led to (after), with those orders (after-orders)."""


@dataclass
class _Cached:
    marker: Any
    data: Any


@dataclass
class _Caches:
    """What the game page keeps between requests (per app: :meth:`Web.kept`)."""

    views: dict[str, _Cached] = field(default_factory=dict)
    building: dict[str, threading.Lock] = field(default_factory=dict)
    reports: dict[tuple[Any, ...], str] = field(default_factory=dict)
    bases: dict[tuple[Any, ...], tuple[Variant, ReportBasis]] = field(default_factory=dict)


def _caches(web: Web) -> _Caches:
    return web.kept(__name__, _Caches)


def games_list(web: Web, viewer: Viewer) -> list[dict[str, Any]]:
    listed = {r[0]: r for r in web.access.listed_games()}
    # A signed-in player or coordinator also sees the unlisted and private games they belong to.
    mine = {g.game for g in viewer.grants if g.game} | (
        {n for n, *_ in store_games.games(web.read)} if viewer.coordinates(None) else set()
    )
    rows = dict(listed)
    if mine - set(listed):
        for name, variant, state, phase in store_games.games(web.read):
            if name in mine and name not in rows:
                rows[name] = (name, variant, state, phase, None)
    return [
        {
            "name": n,
            "variant": r[1],
            "state": r[2],
            "phase": r[3],
            "deadline": r[4].isoformat() if r[4] else None,
            "listed": n in listed,
            "mine": n in mine,
        }
        for n, r in sorted(rows.items())
    ]


def game_view(
    web: Web,
    name: str,
    viewer: Viewer,
    lang: str | None = None,
    *,
    reading: tuple[str, Any] | None = None,
    overdue: bool = True,
    picture: bool = False,
) -> dict[str, Any]:
    """Everything public about a game: phase, deadline, who has sent orders (never what), centres,
    the last report, the history. Cached until anything in the game changes; players' names as the reader
    may see them (an anonymous game: :mod:`dippouch.web.views.anonymity`).

    The last report is in ``lang``, the reader's language on a page; without one (the JSON API) in the
    game's own (the language of its mail), as the report mailed to the players is. ``reading``: the game's
    (visibility, change marker) as the caller read them (a page kept under the state it read is made of that
    very reading: :attr:`dippouch.web.views.page_cache.Current.reading`), else as this process last read them.
    Without ``overdue`` the view does not ask what a phase past its deadline waits for: a page kept across the
    deadline puts that in as it is served (:func:`dippouch.web.views.page_cache.deadline_shown`). With
    ``picture``, ``map_svg`` is the phase's picture as the page carries it inline: drawn over the board's file
    (:func:`board_url`), which the browser keeps, so a page a phase costs its units and colours, not a picture
    of the whole board (a standard map's 66 KB compressed, fetched anew every phase)."""
    data = _game_view(web, name, viewer, reading)
    map_in = data.pop("_map_in", None)
    report_in = data.pop("_report_in", None)
    board_in = data.pop("_board_in", None)
    fog_in = data.pop("_fog_in", None)
    ending = data.pop("_ending", None)
    draw_why = data.pop("_draw_why", None)
    unsealings = data.pop("_unsealings", None)
    if lang is not None and lang != "en":
        # The page's words: the board and the phases' names in the reader's language (new values: the
        # cached view is shared by every reader).
        if board_in is not None:
            data["board"] = board_in(lang)
        if data.get("phase"):
            data["phase"] = phase_words(str(data["phase"]), lang)
        data["history"] = [{**h, "name": phase_words(str(h["name"]), lang)} for h in data.get("history") or []]
        if ending is not None:
            data["ending"] = say(ending, lang)
        if draw_why is not None and data.get("draw"):
            data["draw"] = {**data["draw"], "why_not": say(draw_why, lang)}
        if data.get("map_url"):
            # The map's own words (the heading's phase, the legend) in the reader's language too: an address of
            # its own for each language, so each picture is kept for good under its address.
            data["map_url"] = f"{data['map_url']}?lang={lang}"
        if unsealings:
            data["unsealings"] = [
                {**shown, **_unsealing_words(u, lang)} for shown, u in zip(data["unsealings"], unsealings, strict=True)
            ]
    sight = fog_powers(web, name, viewer, (data["marker"], data.get("settings") or {}, str(data.get("state"))))
    if picture and map_in is not None:
        data["map_svg"] = map_in(board_url(web, name), sight, lang or "en")
    if sight is not None and fog_in is not None:
        data.update(fog_in(sight, lang, data))
    elif report_in is not None:
        # Made here for the one language asked for (None: the game's own), not with the view for every reader: a
        # report reads the phase's versions and is the dearest part of a page made afresh after processing.
        data["last_report"] = report_in(lang)
    data["overdue"] = _overdue(web, name, data) if overdue else None
    # Whether names are hidden, from the view's own settings and state (asking the store cost a query a page).
    hidden = names_hidden(data.get("settings"), str(data.get("state"))) and not viewer.coordinates(name)
    seen = frozenset(viewer.powers(name)) if hidden else None
    shown = game_view_seen(data, seen, member=takes_part(viewer, name))
    return {**shown, "marker": shown_marker(data["marker"], hidden=seen is not None)}


def waits_for(web: Web, name: str) -> str:
    """What a phase past its deadline waits for: ``review`` (the coordinator's, of mailed photographs or held
    mail, which may take hours) or ``processing`` (the worker, cron or the coordinator; also for a game gone
    meanwhile, whose page is refused at the next request)."""
    try:
        return "review" if phase_held(web.read, name, now=web.now()) else "processing"
    except GameError:
        return "processing"


def _overdue(web: Web, name: str, data: Mapping[str, Any]) -> str | None:
    """What the phase waits for once its deadline has passed (:func:`waits_for`), None before the deadline.
    Not in the cached view: the deadline passes, and mail is taken in by other processes, without the game
    changing. Asked only once the deadline has passed."""
    deadline = data.get("deadline")
    if data.get("state") != "active" or not deadline:
        return None
    now = web.now()
    if as_utc(now) < datetime.fromisoformat(deadline):
        return None
    return waits_for(web, name)


def _game_view(web: Web, name: str, viewer: Viewer, reading: tuple[str, Any] | None = None) -> dict[str, Any]:
    visibility, marker = web.require_visible(name, viewer, reading)
    caches = _caches(web)
    hit = caches.views.get(name)
    if hit is not None and hit.marker == marker:
        return dict(hit.data)
    # One thread builds a game's view at a time; the others that arrive meanwhile wait and take it
    # (after a change, every reader of a busy game would otherwise rebuild it at once).
    with web.lock:
        building = caches.building.setdefault(name, threading.Lock())
    with building:
        hit = caches.views.get(name)
        if hit is not None and hit.marker == marker:
            return dict(hit.data)
        data = _build_game_view(web, name, visibility)
        data["marker"] = marker
        v = data.pop("_variant")
        if v is not None:  # the page's map, asked for next, draws with it
            web.keep_variant(name, (visibility, marker), v)
        with web.lock:
            if len(caches.views) > 5000:
                caches.views.clear()
                caches.building.clear()
            caches.views[name] = _Cached(marker, data)
    return dict(data)


def _build_game_view(web: Web, name: str, visibility: str) -> dict[str, Any]:
    now = web.now()
    # One transaction for the status, the phases, the seats, the absences and the unsealings (they were a dozen
    # transactions, each reading the game's row again).
    reads = game_page_reads(web.read, name, now=now, today=now.date())
    st = reads.status
    v = st.game_variant or web.variant_of(name)  # the status read the game's variant already
    hist = reads.phases
    line = [h for h in hist if h.status != "abandoned"]
    processed = [h for h in line if h.id in reads.led_on]
    current = next((h for h in hist if h.status == "open"), None)
    colours = {p.name: p.colour for p in v.powers}
    secret = bool(st.settings.secret_ballot) and st.state != "finished"
    shown_votes = _shown_votes(web, name, current) if secret else {}
    people = {power: pid for power, _, pid in reads.seats}
    powers = [
        {
            "power": p.power,
            "colour": colours.get(p.power, "#888"),
            "player": p.player,
            "person_id": people.get(p.power),
            "must_act": p.must_act,
            "submitted": p.version is not None,
            "ready": p.ready,
            "units": p.units,
            "centres": p.centres,
            "civil_disorder": p.civil_disorder,
            # A secret ballot shows each vote as it stood when the last phase was processed.
            "draw_vote": shown_votes.get(p.power, False) if secret else p.draw_vote,
        }
        for p in st.powers
    ]
    # The last report, made when a reader asks for it in their language (game_view) and kept per language.
    last_subs = reads.last_submissions
    report_in = partial(_report, web, name, st, hist, processed[-1], submissions=last_subs) if processed else None
    shown = current if current is not None else line[-1]
    after = current is None and shown.next_position is not None
    position = shown.next_position if after and shown.next_position is not None else shown.position
    # The picture's own address (MAP_VIEWS) is for links, the preview and the JSON API; a page carries the
    # picture inline (game_view's ``picture``).
    view = "after" if after else "board"
    map_url = f"/games/{quote(name, safe='')}/phases/{shown.id}/map-{view}.svg" if map_available(v) else None
    preview_url = f"/games/{quote(name, safe='')}/phases/{shown.id}/preview-{view}.png" if map_url else None
    pos = web.position_of(v, shown)[0] if not after else position_from_data(v, position)
    board = _board(v, pos)
    draw = None
    needs_why = None
    if current is not None and st.state != "finished":
        needs = draw_needs(
            v,
            pos,
            st.settings,
            {p.power: p.draw_vote for p in st.powers},
            [p.power for p in st.powers if p.civil_disorder],
        )
        needs_why = needs.why_not
        draw = {
            "possible": needs.possible,
            "why_not": str(needs.why_not) if needs.why_not is not None else None,
            "secret": secret,
            "voters": len(needs.voters),
            "missing_count": len(needs.missing),
            # Under a majority rule the draw passes on more than half of the voters' yes (one tally with the
            # draw proposal), so fewer than every missing yes may be needed.
            "majority": st.settings.vote_rule == "majority",
            "more_needed": (
                max(0, len(needs.voters) // 2 + 1 - (len(needs.voters) - len(needs.missing)))
                if st.settings.vote_rule == "majority"
                else len(needs.missing)
            ),
            # Who has not voted yes, unless the ballot is secret (then only how many).
            "missing": None if secret else list(needs.missing),
        }
    return {
        "_variant": v,
        "_report_in": report_in,
        "_board_in": partial(_board, v, pos),
        "_map_in": partial(_phase_map, web, name, shown, view) if map_url else None,
        "_fog_in": partial(_fogged_view, web, name, st, hist, processed[-1] if processed else None, v, pos, last_subs),
        "absences": absences_view(
            reads.absence_policy, reads.away, reads.absences_used, fog=in_fog(st.settings.fog, st.state)
        ),
        "board": board,
        "draw": draw,
        "name": name,
        "variant": v.name,
        "variant_title": v.title,
        "state": st.state,
        "phase": st.phase,
        "phase_id": current.id if current else None,
        "kind": st.kind,
        "deadline": st.deadline.isoformat() if st.deadline else None,
        "deadline_text": st.settings.describe(st.deadline) if st.deadline else None,
        "when_ready": st.settings.when_ready,
        "paused_remaining": duration_text(st.paused_remaining) if st.paused_remaining is not None else None,
        "timezone": st.settings.timezone,
        "powers": powers,
        "ending": st.ending.text if st.ending else None,
        "_ending": st.ending.message if st.ending else None,
        "_draw_why": needs_why,
        "last_report": None,
        "last_processed_id": processed[-1].id if processed else None,
        "history": [
            {
                "id": h.id,
                "name": h.name,
                "status": h.status,
                "processed_at": h.processed_at.isoformat() if h.processed_at else None,
            }
            for h in hist
        ],
        "map_url": map_url,
        "preview_url": preview_url,
        "map_phase": (shown.id, view),
        "visibility": visibility,
        "settings": st.settings.to_data(),
        # Every time the coordinator opened sealed orders: the players are told who, when and why (in English
        # here, the JSON API's; a page says them again in its reader's language from the messages kept aside).
        "unsealings": [
            {
                "at": u["at"].isoformat(),
                "at_text": st.settings.describe(u["at"]),
                "phase": u.get("phase"),
                **_unsealing_words(u, "en"),
            }
            for u in reads.unsealings
        ],
        "_unsealings": reads.unsealings,
    }


def _unsealing_words(u: Mapping[str, Any], lang: str) -> dict[str, str | None]:
    """Who opened the seal, what opened it and why, in ``lang``: each kept as a message (said in the reader's
    words) or as a text (a person's reason, a name, a record from before: said as written)."""
    return {k: None if u.get(k) is None else say(u[k], lang) for k in ("who", "what", "reason")}


def _fogged_view(
    web: Web,
    name: str,
    st: Any,
    hist: list[StoredPhase],
    last: StoredPhase | None,
    v: Variant,
    pos: Position,
    submissions: list[dict[str, Any]],
    sight: frozenset[str],
    lang: str | None,
    data_urls: Mapping[str, Any],
) -> dict[str, Any]:
    """What of the game page a fog-of-war reader with ``sight`` (their powers) sees differently: the board, the
    last report, the other powers' counts (:func:`fogged_powers`) and the map's address (a picture of their own
    sight: :func:`phase_map` draws it for them)."""
    seen = veil(pos, sight_of(v, pos, sight))
    tag = fog_tag(sight)
    out: dict[str, Any] = {
        "board": _board(v, seen, lang),
        "last_report": (
            _report(web, name, st, hist, last, lang, sight=sight, submissions=submissions) if last is not None else None
        ),
        "powers": fogged_powers(data_urls["powers"], sight),
        "fog": True,
    }
    for key in ("map_url", "preview_url"):
        # Its own address for each sight: a browser keeps a phase's picture for good, and the whole board is
        # shown at the plain address once the game ends.
        url = data_urls.get(key)
        if url:
            out[key] = f"{url}{'&' if '?' in url else '?'}sight={tag}"
    return out


def _shown_votes(web: Web, name: str, current: StoredPhase | None) -> dict[str, bool]:
    """Each power's draw vote as others may see it under a secret ballot: as it stood when the open phase
    opened (the votes of a processed phase are revealed; those cast since are the voter's alone)."""
    opened = current.opened_at if current is not None else None
    out: dict[str, bool] = {}
    for power, yes, at in store_votes.vote_history(web.read, name):
        if opened is not None and at >= as_utc(opened):
            break
        out[power] = yes
    return out


def _report(
    web: Web,
    name: str,
    st: Any,
    hist: list[StoredPhase],
    ph: StoredPhase,
    lang: str | None = None,
    *,
    sight: frozenset[str] | None = None,
    submissions: list[dict[str, Any]] | None = None,
) -> str:
    """A processed phase's report, made once per language: it reads every version sent in the phase, and the
    game page is rebuilt after every submission. It changes only with what it shows besides the phase itself:
    the next phase and its deadline (extended, paused), the game's ending, its settings (time zone).
    ``lang``: the reader's language; None for the game's own (:attr:`dippouch.game.GameSettings.language`)."""
    nxt = next((h for h in hist if h.branch == ph.branch and h.seq == ph.seq + 1), None)
    key = (
        name,
        ph.id,
        ph.status,
        ph.processed_at,
        (nxt.id, nxt.name, nxt.deadline) if nxt is not None else None,
        st.ending.text if st.ending is not None else None,
        repr(st.settings.to_data()),
        lang,
        fog_tag(sight),
    )
    reports = _caches(web).reports
    hit = reports.get(key)
    if hit is None:
        # The record play.reports.stored_report reads, made of the rows the page has loaded already (the phase, the
        # next one) and the status (settings, ending), without the five queries it would take again.
        rec = phase_record_of(
            name,
            ph,
            nxt,
            settings=st.settings.to_data(),
            ending=st.ending.to_data() if st.ending is not None else None,
            submissions=False,
        )
        # The versions sent (read with the page's other reads, else here): the report names the lines that were
        # not accepted.
        rec["submissions"] = phase_submissions(web.read, ph.id) if submissions is None else submissions
        rec = fogged_record(web, name, rec, sight)
        v = st.game_variant or web.variant_of(name)
        hit = phase_report(
            v, rec, lang=lang, basis=_report_basis(web, name, v, ph, nxt, rec) if sight is None else None
        )
        with web.lock:
            if len(reports) > 2000:
                reports.clear()
            reports[key] = hit
    return hit


def _report_basis(
    web: Web, name: str, v: Variant, ph: StoredPhase, nxt: StoredPhase | None, rec: dict[str, Any]
) -> ReportBasis:
    """The whole board's report basis of processed phase ``ph``, made once for every language (a page is made in
    each language its readers read), of the positions this process keeps parsed per phase: the phase's own, and
    the next phase's, which is the position it led to (parsed by the status already)."""
    key = (name, ph.id, ph.processed_at)
    bases = _caches(web).bases
    kept = bases.get(key)
    if kept is not None and kept[0] is v:
        return kept[1]
    after = None
    if ph.next_position is not None:
        same = nxt is not None and nxt.position == ph.next_position
        after = web.position_of(v, nxt)[0] if nxt is not None and same else position_from_data(v, ph.next_position)
    hit = report_basis(v, rec, positions=(web.position_of(v, ph)[0], after))
    with web.lock:
        if len(bases) > 2000:
            bases.clear()
        bases[key] = (v, hit)
    return hit


def phase_map(
    web: Web, name: str, phase_id: int, view: str, viewer: Viewer, board: str | None = None, lang: str = "en"
) -> str:
    """One picture of a phase (:data:`MAP_VIEWS`) as SVG, for anyone who may see the game. Never a
    power's own orders before processing (those are drawn only on that power's page), and never any
    orders of a phase still open: those views do not exist until it is processed (404). So each address
    always answers the same picture once it answers at all, and may be cached for good. With ``board``
    (:func:`board_url`), the board's fixed parts are drawn by reference to its file. Its own words (the
    heading's phase, the legend) in ``lang``, the reader's."""
    h = _pictured(web, name, phase_id, view, viewer)
    return _phase_map(web, name, h, view, board, fog_powers(web, name, viewer), lang)


def phase_map_encoded(
    web: Web, name: str, phase_id: int, view: str, viewer: Viewer, coding: str, lang: str = "en"
) -> bytes:
    """:func:`phase_map` in ``coding`` (:data:`dippouch.web.http.encoded.OFFERED`), compressed once a process for each
    picture: its address answers the same picture for ever, so every reader after the first is served the kept
    bytes."""
    h = _pictured(web, name, phase_id, view, viewer)
    sight = fog_powers(web, name, viewer)
    key = (name, h.id, h.status, fog_tag(sight), view, lang)
    return web.maps.encoded(key, coding, lambda: _phase_map(web, name, h, view, None, sight, lang))


def _pictured(web: Web, name: str, phase_id: int, view: str, viewer: Viewer) -> StoredPhase:
    """The phase whose picture ``view`` is asked for, once that picture may be shown (else 404)."""
    web.require_visible(name, viewer)
    if view not in MAP_VIEWS:
        raise WebNotFound(
            msg("no map view %(view)s; views: %(views)s", view=repr(view[:40]), views=", ".join(MAP_VIEWS))
        )
    h = game_phase(web.read, name, phase_id)
    if h is None:
        raise WebNotFound(msg("game %(game)s has no phase with id %(id)s", game=repr(name), id=phase_id))
    after, orders = view_drawn(view)
    if orders and h.status == "open":
        raise WebNotFound(
            msg(
                "the orders of %(phase)s are sealed until it is processed; its map is map-board.svg",
                phase=PhaseName(h.name),
            )
        )
    if after and h.next_position is None:
        raise WebNotFound(
            msg("%(phase)s has not been processed: there is no position after it yet", phase=PhaseName(h.name))
        )
    return h


def view_drawn(view: str) -> tuple[bool, bool]:
    """What a map view draws: the position after the phase, and its orders and results."""
    return view in ("after", "after-orders"), view in ("orders", "after-orders")


def phase_map_record(web: Web, name: str, phase_id: int, view: str, viewer: Viewer) -> dict[str, Any]:
    """What :func:`phase_map` draws, undrawn: the phase as the renderer reads it, once its picture ``view`` may
    be shown (else 404), for a drawing made elsewhere (the work pool's, :mod:`dippouch.web.http.jobs`)."""
    rec = record(name, _pictured(web, name, phase_id, view, viewer))
    return fogged_record(web, name, rec, fog_powers(web, name, viewer))


def _phase_map(
    web: Web,
    name: str,
    h: StoredPhase,
    view: str,
    board: str | None = None,
    sight: frozenset[str] | None = None,
    lang: str = "en",
) -> str:
    after, orders = view_drawn(view)
    rec = fogged_record(web, name, record(name, h), sight)
    key = (name, h.id, h.status, fog_tag(sight))
    svg = web.maps.phase_svg(web.variant_of(name), key, rec, after=after, orders=orders, board=board, lang=lang)
    if svg is None:
        raise WebNotFound(NO_MAP)
    return svg


def board_url(web: Web, name: str) -> str | None:
    """The address of the game's board file (:func:`dippouch.web.views.maps.board_file`), naming its content's hash, or
    None where no map can be drawn: its variant's (``/variants/NAME/board-HASH.svg``, one file for every game of
    the variant, which a browser fetches once) where the game's copy of the variant draws the same board as the
    variant's file does now, else the game's own."""
    v = web.variant_of(name)
    made = board_file(v)
    if made is None:
        return None
    if variant_board(v.name) == made[0]:
        return f"/variants/{quote(v.name, safe='')}/board-{made[0]}.svg"
    return f"/games/{quote(name, safe='')}/board-{made[0]}.svg"


def board(web: Web, name: str, viewer: Viewer) -> tuple[str, str, str]:
    """The game's board file for anyone who may see the game: its hash, its text and the game's visibility."""
    visibility, _ = web.require_visible(name, viewer)
    made = board_file(web.variant_of(name))
    if made is None:
        raise WebNotFound(NO_MAP)
    return made[0], made[1], visibility


def game_map(web: Web, name: str, viewer: Viewer, board: str | None = None, lang: str = "en") -> str | None:
    """The game page's map as SVG (None where none can be drawn); with ``board``, drawn by reference to it; its
    own words in ``lang``."""
    g = game_view(web, name, viewer)
    if g["map_url"] is None:
        return None
    phase_id, view = g["map_phase"]
    return phase_map(web, name, phase_id, view, viewer, board, lang)


def record(game: str, ph: StoredPhase) -> dict[str, Any]:
    """A phase as the renderer reads it (``dippouch.store.history.phase_record``'s keys), never with its submissions."""
    return {
        "game": game,
        "name": ph.name,
        "status": ph.status,
        "position": ph.position,
        "next_position": ph.next_position,
        "orders": ph.orders,
        "results": ph.results,
    }


def _board(v: Variant, pos: Position, lang: str | None = None) -> list[dict[str, Any]]:
    """Each power's units and centres in words: in English (``Army Paris``, the JSON API's) without ``lang``,
    else in the reader's language (:func:`dippouch.names.board_unit`), powers and places as the variant file
    translates them (the JSON keeps the names as written: programs key on them)."""
    m = v.map

    def unit(kind: str, loc: int, dislodged: bool = False) -> str:
        if lang is None or lang == "en":
            return f"{kind_name(kind)} {m.locations[loc].name}" + (" (dislodged)" if dislodged else "")
        return board_unit(v, kind, loc, lang, dislodged=dislodged)

    return [
        {
            "power": v.name_in(p, lang),
            "units": [unit(u.kind, u.loc) for u in sorted(pos.units_of(p), key=lambda u: m.locations[u.loc].name)]
            + [unit(d.unit.kind, d.unit.loc, True) for d in pos.dislodged.values() if d.unit.power == p],
            "centres": sorted(v.name_in(m.provinces[c].name, lang) for c in pos.centres_of(p)),
        }
        for p in v.power_names
    ]


def kind_name(kind: str) -> str:
    return {"A": "Army", "F": "Fleet", "D": "Defensive army"}.get(kind, kind)
