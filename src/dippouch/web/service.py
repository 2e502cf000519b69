"""What the pages and the JSON API show and do, as plain data: one function per view or action.

Both front ends (HTML in :mod:`dippouch.web.pages`, JSON in :mod:`dippouch.web.api`) call these, so
they cannot drift apart, and every rule of the game comes from the game layer: the line check is
:func:`dippouch.game.check_orders`, the very function :meth:`GameStore.submit` runs on arrival; legal
orders come from :func:`dippouch.core.legal.legal_orders`; reports from :mod:`dippouch.report`.
Permissions are checked here too, once, for both front ends.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa

from dippouch.catalog import load_variant, variant_names
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.notation import OrderParseError, parse_unit
from dippouch.core.orders import Move, Order, Retreat
from dippouch.core.position import Position, Unit
from dippouch.core.variant import Variant
from dippouch.game import (
    LineCheck,
    Settings,
    adjustment_delta,
    as_utc,
    check_orders,
    draw_needs,
    parse_duration,
    position_from_data,
    unordered,
)
from dippouch.report import phase_report
from dippouch.store.access import VISIBILITIES, AccessStore
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.repository import GameStore, phase_record_of
from dippouch.web.maps import map_available, phase_svg, position_svg
from dippouch.web.security import BadInput, Forbidden, NotFound, Viewer, bound_orders

MAP_VIEWS = ("board", "orders", "after", "after-orders")
"""The pictures of a phase: its position (board), with its orders and results drawn (orders, once processed),
and the position it led to (after), with those orders (after-orders)."""

PAGE_TTL = 1.0
"""Seconds an anonymous visitor's game page is served without looking at the database."""

STATE_TTL = 1.0
"""Seconds a game's change marker is trusted before it is read again (changes by other processes show up
within this time; this process's own changes at once)."""

MAX_ORDER_TEXT = 20_000
"""Characters of order text accepted in one submission (a W3K power's orders are under 3,000)."""


# The game layer's messages end with what to do at the command line; on the web each says what to do there.
_WEB_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (
            r"use `dippouch players replace` to hand it over",
            "use Replace on the game's coordinator page to hand it over",
        ),
        (
            r"seat a player first \(`dippouch players assign`\)",
            "seat a player first (Seat, on the game's coordinator page)",
        ),
        (r"create one with `dippouch new`", "create one on the Coordinate page"),
        (r"import it with --name NEW", 'import it under another name (the form\'s "As name")'),
        (
            r"export it again with `dippouch export --unsealed(?: --reason TEXT)?`",
            "export it again from that game's coordinator page with \"Export with this phase's orders unsealed\" (export.json?unsealed=1 with a reason, which its players are shown)",
        ),
        (r"`dippouch upgrade-variant [^`]*`", "the game's coordinator runs upgrade-variant on the server"),
        (r" \(see `dippouch history`\)", " (the game page's history lists its phases)"),
        (r" \(use --variant ([\w-]+)\)", r" (create the game with variant \1)"),
    )
)


def web_words(message: str) -> str:
    """A game layer message as a web visitor should read it: a command-line hint becomes the page and button
    that do the same on the web (the rule and the refusal stay the game layer's own words)."""
    for pattern, words in _WEB_WORDS:
        message = pattern.sub(words, message)
    return message


def _names(value: str, what: str, limit: int = 100) -> str:
    text = str(value).strip()
    if not text or len(text) > limit:
        raise BadInput(f"{what} must be 1 to {limit} characters")
    if any(ord(c) < 32 for c in text) or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise BadInput(f"{what} contains control characters")
    return text


def _text(value: str, what: str = "order text") -> str:
    if len(value) > MAX_ORDER_TEXT:
        raise BadInput(f"the {what} is {len(value):,} characters long; at most {MAX_ORDER_TEXT:,} are accepted")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value) or "\x00" in value:
        raise BadInput(f"the {what} contains characters that are not text (NUL or lone surrogates)")
    bound_orders(value)  # lines and line length: what keeps a check of misspelt orders from taking seconds
    return value


def _duration(text: str, what: str) -> timedelta:
    try:
        td = parse_duration(_names(text, what, 20))
    except OverflowError:
        raise BadInput(f"{what} {text!r} is far too long") from None
    if td > timedelta(days=3650):
        raise BadInput(f"{what} {text!r} is more than ten years")
    return td


@dataclass
class _Cached:
    marker: Any
    data: Any


class Web:
    """The web app's view of the database: the game store, access keys, a clock, and caches."""

    def __init__(self, store: GameStore, clock: Callable[[], datetime] | None = None) -> None:
        self.store = store
        # Pages read through a second engine that never takes SQLite's write lock (see GameStore.reader).
        self.read = store.reader() if store.engine.dialect.name == "sqlite" else store
        self.access = AccessStore(store, self.read)
        self._building: dict[str, threading.Lock] = {}
        # SQLite lets one writer in at a time and makes the others retry with growing sleeps, which
        # starves some requests for seconds under load; queueing this process's writers here first
        # keeps the wait short and fair. (PostgreSQL locks rows itself: no queue.)
        self._writes: Any = threading.Lock() if store.engine.dialect.name == "sqlite" else contextlib.nullcontext()
        self.clock = clock or (lambda: datetime.now(UTC))
        self.clock_given = clock is not None
        """A clock handed in (tests, "as of" runs); otherwise deadlines go by the database's clock."""
        self._game_cache: dict[str, _Cached] = {}
        self._phase_cache: dict[int, tuple[Variant, Position, str, str]] = {}
        self._state: dict[str, tuple[float, tuple[str, Any]]] = {}
        self._variants: dict[str, tuple[Any, Variant]] = {}
        self._reports: dict[tuple[Any, ...], str] = {}
        self._page_locks: dict[str, threading.Lock] = {}
        self.pages: dict[Any, tuple[float, Any, str, str]] = {}
        """Rendered pages for anonymous visitors, by (page, game): (built or confirmed at (monotonic
        seconds), marker, visibility, HTML with a CSRF placeholder)."""
        self._lock = threading.Lock()

    def now(self) -> datetime:
        return self.clock()

    # ----------------------------------------------------------------------------------------------
    # Lookups and permissions

    def game_exists(self, name: str) -> bool:
        with self.read.session() as s:
            return s.scalar(sa.select(GameRow.id).where(GameRow.name == name)) is not None

    def state(self, name: str, *, fresh: bool = False) -> tuple[str, Any] | None:
        """(visibility, change marker) of a game, or None; read at most once a second per game unless
        ``fresh`` (this process drops a game's entry whenever it changes the game itself)."""
        if len(name) > 100:
            return None
        now = time.monotonic()
        hit = self._state.get(name)
        if hit is not None and not fresh and now - hit[0] < STATE_TTL:
            return hit[1]
        got = self.access.marker(name)
        if got is not None:
            with self._lock:
                if len(self._state) > 20_000:
                    self._state.clear()
                self._state[name] = (now, got)
        return got

    def fresh_state(self, name: str) -> tuple[str, Any] | None:
        """The cached (visibility, marker) if read within the last second, else None (no database access)."""
        hit = self._state.get(name)
        if hit is not None and time.monotonic() - hit[0] < STATE_TTL:
            return hit[1]
        return None

    def touched(self, name: str, *, structural: bool = True) -> None:
        """This process just changed ``name``: read its marker afresh next time. A structural change (a
        phase processed, the clock, players, visibility) also drops the anonymous page at once; a new
        submission or vote only changes who has sent orders, which that page may show up to
        ``PAGE_TTL`` late (so a busy game's page is rebuilt at most once a second, however many orders
        arrive)."""
        self._state.pop(name, None)
        if structural:
            self.pages.pop(("game", name), None)

    def page_lock(self, name: str) -> threading.Lock:
        """The lock held while a game's anonymous page is made (one maker at a time per game)."""
        with self._lock:
            if len(self._page_locks) > 20_000:
                self._page_locks.clear()
            return self._page_locks.setdefault(name, threading.Lock())

    def require_visible(self, name: str, viewer: Viewer) -> tuple[str, Any]:
        """404 for a game that does not exist or that this viewer may not see (no difference shown)."""
        st = self.state(name)
        if st is None or (st[0] == "private" and not viewer.in_game(name)):
            raise NotFound(f"no game {name!r} here")
        return st

    def require_player(self, name: str, power: str, viewer: Viewer) -> tuple[Variant, str]:
        self.require_visible(name, viewer)
        v = self._variant_of(name)
        try:
            power = v.power(power).name
        except KeyError as e:
            raise NotFound(str(e.args[0])) from None
        if not viewer.plays(name, power):
            raise Forbidden(
                f"you are not signed in as {power} in {name}: open the link your coordinator sent you, or sign in with its key"
            )
        return v, power

    def require_coordinator(self, name: str | None, viewer: Viewer) -> None:
        if name is not None:
            self.require_visible(name, viewer)
        if not viewer.coordinates(name):
            what = f"coordinate {name}" if name else "create or import games"
            raise Forbidden(f"you need a coordinator's key to {what}; sign in with it first")

    def _variant_of(self, name: str) -> Variant:
        """The game's own variant, as the store reads it (the copy kept with the game). It changes only by
        ``dippouch upgrade-variant``, which logs an event, so it is kept while the game's last event stands
        (not the whole marker: every submission changes that, and reading the variant costs more than the
        check a submission runs)."""
        st = self.state(name)
        events = st[1][0] if st is not None else None
        hit = self._variants.get(name)
        if hit is not None and st is not None and hit[0] == events:
            return hit[1]
        with self.read.session() as s:
            g = s.scalars(sa.select(GameRow).where(GameRow.name == name)).first()
            if g is None:
                raise NotFound(f"no game {name!r} here")
            v = GameStore._variant(g)
        if len(self._variants) > 20_000:
            self._variants.clear()
        if st is not None:
            self._variants[name] = (events, v)
        return v

    def open_phase(self, name: str) -> tuple[int, Variant, Position, str, str]:
        """The game's open phase: (id, variant, position, name, kind), the position parsed once per phase."""
        with self.read.session() as s:
            row = s.execute(
                sa.select(PhaseRow.id)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(GameRow.name == name, PhaseRow.status == "open")
            ).first()
            if row is None:
                raise BadInput(f"game {name!r} has no open phase (it is over, or not started)")
            pid = int(row[0])
            hit = self._phase_cache.get(pid)
            if hit is None:
                ph = s.get(PhaseRow, pid)
                assert ph is not None
                v = self._variant_of(name)
                hit = (v, position_from_data(v, ph.position), ph.name, ph.kind)
                with self._lock:
                    if len(self._phase_cache) > 2000:
                        self._phase_cache.clear()
                    self._phase_cache[pid] = hit
        v, pos, pname, kind = hit
        return pid, v, pos, pname, kind

    # ----------------------------------------------------------------------------------------------
    # Lists

    def games_list(self, viewer: Viewer) -> list[dict[str, Any]]:
        listed = {r[0]: r for r in self.access.listed_games()}
        # A signed-in player or coordinator also sees the unlisted and private games they belong to.
        mine = {g.game for g in viewer.grants if g.game} | (
            {n for n, *_ in self.read.games()} if viewer.coordinates(None) else set()
        )
        rows = dict(listed)
        if mine - set(listed):
            for name, variant, state, phase in self.read.games():
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

    # ----------------------------------------------------------------------------------------------
    # The game page

    def game_view(self, name: str, viewer: Viewer) -> dict[str, Any]:
        """Everything public about a game: phase, deadline, who has sent orders (never what), centres,
        the last report, the history. Cached until anything in the game changes."""
        visibility, marker = self.require_visible(name, viewer)
        hit = self._game_cache.get(name)
        if hit is not None and hit.marker == marker:
            return dict(hit.data)
        # One thread builds a game's view at a time; the others that arrive meanwhile wait and take it
        # (after a change, every reader of a busy game would otherwise rebuild it at once).
        with self._lock:
            building = self._building.setdefault(name, threading.Lock())
        with building:
            hit = self._game_cache.get(name)
            if hit is not None and hit.marker == marker:
                return dict(hit.data)
            data = self._build_game_view(name, visibility)
            data["marker"] = marker
            v = data.pop("_variant")
            if v is not None:  # the page's map, asked for next, draws with it
                self._variants[name] = (marker[0], v)
            with self._lock:
                if len(self._game_cache) > 5000:
                    self._game_cache.clear()
                    self._building.clear()
                self._game_cache[name] = _Cached(marker, data)
        return dict(data)

    def _build_game_view(self, name: str, visibility: str) -> dict[str, Any]:
        now = self.now()
        st = self.read.status(name, now=now, drift=False, due=False)
        v = st.game_variant or self._variant_of(name)  # the status read the game's variant already
        hist = self.access.phases(name)
        line = [h for h in hist if h.status != "abandoned"]
        processed = [h for h in line if h.status == "processed" and h.next_position is not None]
        current = next((h for h in hist if h.status == "open"), None)
        colours = {p.name: p.colour for p in v.powers}
        secret = bool(st.settings.secret_ballot) and st.state != "finished"
        shown_votes = self._shown_votes(name, current) if secret else {}
        powers = [
            {
                "power": p.power,
                "colour": colours.get(p.power, "#888"),
                "player": p.player,
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
        last_report = self._report(name, st, hist, processed[-1]) if processed else None
        shown = current if current is not None else line[-1]
        after = current is None and shown.next_position is not None
        position = shown.next_position if after and shown.next_position is not None else shown.position
        # The map is its own resource (MAP_VIEWS), fetched by the page: the page stays small and is remade
        # after a change without drawing, and the picture, the same for as long as the phase exists, is
        # kept by the browser.
        view = "after" if after else "board"
        map_url = f"/games/{quote(name, safe='')}/phases/{shown.id}/map-{view}.svg" if map_available(v) else None
        pos = self.read._position(v, shown) if not after else position_from_data(v, position)
        m = v.map
        board = [
            {
                "power": p,
                "units": [
                    f"{_kind_name(u.kind)} {m.locations[u.loc].name}"
                    for u in sorted(pos.units_of(p), key=lambda u: m.locations[u.loc].name)
                ]
                + [
                    f"{_kind_name(d.unit.kind)} {m.locations[d.unit.loc].name} (dislodged)"
                    for d in pos.dislodged.values()
                    if d.unit.power == p
                ],
                "centres": sorted(m.provinces[c].name for c in pos.centres_of(p)),
            }
            for p in v.power_names
        ]
        draw = None
        if current is not None and st.state != "finished":
            needs = draw_needs(
                v,
                pos,
                st.settings,
                {p.power: p.draw_vote for p in st.powers},
                [p.power for p in st.powers if p.civil_disorder],
            )
            draw = {
                "possible": needs.possible,
                "why_not": needs.why_not,
                "secret": secret,
                "voters": len(needs.voters),
                "missing_count": len(needs.missing),
                # Who has not voted yes, unless the ballot is secret (then only how many).
                "missing": None if secret else list(needs.missing),
            }
        return {
            "_variant": v,
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
            "paused_remaining": _duration_text(st.paused_remaining) if st.paused_remaining is not None else None,
            "timezone": st.settings.timezone,
            "powers": powers,
            "ending": st.ending.text if st.ending else None,
            "last_report": last_report,
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
            "map_phase": (shown.id, view),
            "visibility": visibility,
            "settings": st.settings.to_data(),
            # Every time the coordinator opened sealed orders: the players are told who, when and why.
            "unsealings": [
                {
                    "at": u["at"].isoformat(),
                    "at_text": st.settings.describe(u["at"]),
                    "phase": u.get("phase"),
                    "who": u.get("who"),
                    "what": u.get("what"),
                    "reason": u.get("reason"),
                }
                for u in self.read.unsealings(name)
            ],
        }

    def _shown_votes(self, name: str, current: PhaseRow | None) -> dict[str, bool]:
        """Each power's draw vote as others may see it under a secret ballot: as it stood when the open phase
        opened (the votes of a processed phase are revealed; those cast since are the voter's alone)."""
        opened = current.opened_at if current is not None else None
        out: dict[str, bool] = {}
        for power, yes, at in self.read.vote_history(name):
            if opened is not None and at >= as_utc(opened):
                break
            out[power] = yes
        return out

    def _report(self, name: str, st: Any, hist: list[PhaseRow], ph: PhaseRow) -> str:
        """A processed phase's report, made once: it reads every version sent in the phase, and the game page
        is rebuilt after every submission. It changes only with what it shows besides the phase itself: the
        next phase and its deadline (extended, paused), the game's ending, its settings (time zone)."""
        nxt = next((h for h in hist if h.branch == ph.branch and h.seq == ph.seq + 1), None)
        key = (
            name,
            ph.id,
            ph.status,
            ph.processed_at,
            (nxt.id, nxt.name, nxt.deadline) if nxt is not None else None,
            st.ending.text if st.ending is not None else None,
            repr(st.settings.to_data()),
        )
        hit = self._reports.get(key)
        if hit is None:
            # The record GameStore.report reads, made of the rows the page has loaded already (the phase, the
            # next one) and the status (settings, ending), without the five queries it would take again.
            rec = phase_record_of(
                name,
                ph,
                nxt,
                settings=st.settings.to_data(),
                ending=st.ending.to_data() if st.ending is not None else None,
                submissions=False,
            )
            # The versions sent, read once per phase: the report names the lines that were not accepted.
            rec["submissions"] = self.read.phase_record(name, phase_id=ph.id)["submissions"]
            hit = phase_report(st.game_variant or self._variant_of(name), rec)
            with self._lock:
                if len(self._reports) > 2000:
                    self._reports.clear()
                self._reports[key] = hit
        return hit

    def phase_map(self, name: str, phase_id: int, view: str, viewer: Viewer) -> str:
        """One picture of a phase (:data:`MAP_VIEWS`) as SVG, for anyone who may see the game. Never a
        power's own orders before processing (those are drawn only on that power's page), and never any
        orders of a phase still open: those views do not exist until it is processed (404). So each address
        always answers the same picture once it answers at all, and may be cached for good."""
        self.require_visible(name, viewer)
        if view not in MAP_VIEWS:
            raise NotFound(f"no map view {view[:40]!r}; views: {', '.join(MAP_VIEWS)}")
        with self.read.session() as s:
            h = s.scalars(
                sa.select(PhaseRow)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(GameRow.name == name, PhaseRow.id == phase_id)
            ).first()
        if h is None:
            raise NotFound(f"game {name!r} has no phase with id {phase_id}")
        return self._phase_map(name, h, view)

    def _phase_map(self, name: str, h: PhaseRow, view: str) -> str:
        orders = view in ("orders", "after-orders")
        after = view in ("after", "after-orders")
        if orders and h.status == "open":
            raise NotFound(f"the orders of {h.name} are sealed until it is processed; its map is map-board.svg")
        if after and h.next_position is None:
            raise NotFound(f"{h.name} has not been processed: there is no position after it yet")
        svg = phase_svg(self._variant_of(name), (name, h.id, h.status), _record(name, h), after=after, orders=orders)
        if svg is None:
            raise NotFound(
                "no map can be drawn for this game yet (the map renderer or this variant's geometry is missing)"
            )
        return svg

    def game_map(self, name: str, viewer: Viewer) -> str | None:
        """The game page's map as SVG (None where none can be drawn)."""
        g = self.game_view(name, viewer)
        if g["map_url"] is None:
            return None
        phase_id, view = g["map_phase"]
        return self.phase_map(name, phase_id, view, viewer)

    def phase_view(self, name: str, phase_id: int, viewer: Viewer) -> dict[str, Any]:
        """One phase of the history: its map with orders and results drawn, its report, prev/next."""
        self.require_visible(name, viewer)
        hist = self.access.phases(name)
        ids = [h.id for h in hist]
        if phase_id not in ids:
            raise NotFound(f"game {name!r} has no phase with id {phase_id}")
        h = hist[ids.index(phase_id)]
        v = self._variant_of(name)
        i = ids.index(phase_id)
        revealed = h.status != "open"
        report = self.read.report(name, phase_id=phase_id) if h.processed_at is not None else None
        rec = _record(name, h)
        svg = phase_svg(v, (name, h.id, h.status), rec, orders=revealed)
        after = phase_svg(v, (name, h.id, h.status), rec, after=True) if h.next_position else None
        return {
            "game": name,
            "id": h.id,
            "name": h.name,
            "status": h.status,
            "kind": h.kind,
            "deadline": h.deadline.isoformat() if h.deadline else None,
            "processed_at": h.processed_at.isoformat() if h.processed_at else None,
            "orders": h.orders if revealed else None,
            "results": h.results if revealed else None,
            "missed": h.missed,
            "report": report,
            "map_svg": svg,
            "after_svg": after,
            "prev": ids[i - 1] if i > 0 else None,
            "next": ids[i + 1] if i + 1 < len(ids) else None,
            "position": h.position,
            "next_position": h.next_position,
        }

    def phase_submissions(self, name: str, phase_id: int, viewer: Viewer) -> dict[str, Any] | None:
        """Every version each power sent in a phase, for its coordinator (None for anyone else): who, when,
        how (web, mail, post, photo) and, once the deadline has passed, the text with its line verdicts."""
        from dippouch.store.repository import seal_submission

        if not viewer.coordinates(name):
            return None
        rec = self.read.phase_record(name, phase_id=phase_id, sealed_at=self.now(), open_ok=True)
        sealed = bool(rec.get("sealed"))
        if not sealed and _set_aside_unprocessed(rec) and self._open_phase_sealed(name):
            rec["submissions"] = [seal_submission(sub) for sub in rec["submissions"]]
            sealed = True
        keep = ("power", "version", "label", "submitted_at", "source", "ready", "late", "stands", "text", "lines")
        subs = [{k: sub.get(k) for k in keep} for sub in rec["submissions"]]
        return {"sealed": sealed, "submissions": subs}

    def _open_phase_sealed(self, name: str) -> bool:
        """Is the game's open phase sealed now (before its deadline, or paused)?"""
        from dippouch.store.repository import is_sealed

        with self.read.session() as s:
            row = s.execute(
                sa.select(PhaseRow.status, PhaseRow.deadline)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(GameRow.name == name, PhaseRow.status == "open")
            ).first()
        return row is not None and is_sealed(row[0], row[1], self.now())

    def calendar_ics(self, name: str, viewer: Viewer) -> bytes:
        from dippouch.report import calendar_rows, deadlines_ical, upcoming_deadlines

        self.require_visible(name, viewer)
        st = self.read.status(name, now=self.now())
        rows = calendar_rows(self.access.phases(name))
        upcoming = []
        if st.state == "active" and st.phase and st.deadline and st.game_variant is not None:
            upcoming = upcoming_deadlines(st.game_variant.calendar, st.settings, st.phase, st.deadline)
        return deadlines_ical(name, st.settings, rows, upcoming=upcoming)

    def export(self, name: str, viewer: Viewer, *, unsealed: bool = False, reason: str = "") -> dict[str, Any]:
        """The game file (:meth:`GameStore.game_file`): anyone who may see the game gets it without
        submissions or players' addresses; a coordinator gets them, but the open phase's only as who and
        when until its deadline (the W3K rule, as `dippouch export` keeps it), unless they ask for them
        ``unsealed`` with a ``reason``, which is recorded and shown to the players."""
        self.require_visible(name, viewer)
        if not viewer.coordinates(name) or not unsealed:
            view = "coordinator" if viewer.coordinates(name) else "public"
            sealed = self.read.game_file(name, view=view, now=self.now())
            _seal_votes(sealed)
            return sealed
        try:
            data = self.store.game_file(
                name, view="unsealed", now=self.now(), who=self.who(name, viewer), reason=reason
            )
        finally:
            self.touched(name)
        return data

    def who(self, name: str, viewer: Viewer) -> str:
        """Who the viewer is, as the game's event log names them: their coordinator's key and its label."""
        ids = [g.key_id for g in viewer.grants if g.role == "coordinator" and g.game in (None, name)]
        if not ids:
            return "someone without a coordinator's key"
        keys = {k.id: k for k in self.access.keys(None) + self.access.keys(name)}
        k = keys.get(ids[0])
        label = f", {k.label}" if k is not None and k.label else ""
        return f"the coordinator (key {ids[0]}{label})"

    # ----------------------------------------------------------------------------------------------
    # The player page

    def player_view(self, name: str, power: str, viewer: Viewer) -> dict[str, Any]:
        from dippouch.core.legal import legal_orders
        from dippouch.core.notation import format_order

        v, power = self.require_player(name, power, viewer)
        game = self.game_view(name, viewer)
        out: dict[str, Any] = {"game": game, "power": power, "variant": v.name}
        me = next(p for p in game["powers"] if p["power"] == power)
        if game.get("draw") and game["draw"]["secret"]:
            # The voter sees their own vote, as it stands now (the game page shows others' as processed).
            my_votes = [yes for p, yes, _ in self.read.vote_history(name) if p == power]
            me = {**me, "draw_vote": bool(my_votes and my_votes[-1])}
        out["me"] = me
        out["colour"] = me["colour"]
        out["power_index"] = v.power_names.index(power)
        if game["phase_id"] is None:
            out["game"] = {**game, "map_svg": self.game_map(name, viewer)}
            out.update(
                open=False,
                units=[],
                legal=[],
                versions=[],
                latest_text="",
                must_act=False,
                example="",
                unordered=_no_left_out(),
            )
            return out
        pid, _, pos, pname, kind = self.open_phase(name)
        m = v.map
        units = _units_of(v, pos, power, kind)
        legal: list[dict[str, Any]] = []
        example: list[str] = []
        if me["must_act"]:
            table = legal_orders(v, pos, power)
            example = _example_orders(v, table, kind)
            for loc, orders in sorted(table.items(), key=lambda kv: m.locations[kv[0]].abbr):
                label = _unit_label(v, pos, loc, kind)
                legal.append(
                    {
                        "loc": m.locations[loc].abbr,
                        "province": m.provinces[m.province_of(loc)].abbr,
                        "label": label,
                        "orders": [_order_entry(v, o, kind, format_order) for o in orders],
                    }
                )
        rec = self.read.phase_record(name, phase_id=pid)
        mine = [sub for sub in rec["submissions"] if sub["power"] == power]
        standing = [sub for sub in mine if sub.get("stands", True) and not sub["late"]]
        for sub in mine:
            sub["counts"] = bool(standing) and sub is standing[-1]
        # The player's own standing orders drawn on the map (theirs only: the others' stay sealed).
        own = standing[-1] if standing else None
        drafts = [ln["order"] for ln in own["lines"] if ln.get("order") and not ln.get("error")] if own else []
        # Inline (click entry finds provinces and units in the page), and never cached where another viewer
        # could be served it: the draft's key names the power and version, and only this page asks for it.
        svg: str | None = None
        if drafts and own is not None:
            ph_rec = {"game": name, "name": pname, "status": "open", "position": rec["position"]}
            svg = phase_svg(v, (name, pid, "draft", power, own["version"]), ph_rec, draft={power: drafts})
        if svg is None and game["map_url"] is not None:
            svg = self.phase_map(name, game["map_phase"][0], game["map_phase"][1], viewer)
        out["game"] = game = {**game, "map_svg": svg}
        out.update(
            open=True,
            phase_id=pid,
            phase=pname,
            kind=kind,
            units=units,
            legal=legal,
            versions=list(reversed(mine)),
            latest_text=(standing[-1] if standing else mine[-1])["text"] if mine else "",
            ready=bool(standing and standing[-1]["ready"]),
            must_act=me["must_act"],
            example="\n".join(example),
            unordered=_left_out(v, pos, power, own["lines"] if own else []) if me["must_act"] else _no_left_out(),
            # Builds (positive) or removals owed: a Winter's task, which the map alone does not tell.
            adjust=adjustment_delta(v, pos, power) if kind == PhaseKind.ADJUSTMENTS.value else 0,
        )
        return out

    def check_lines(self, name: str, power: str, text: str, viewer: Viewer) -> list[LineCheck]:
        """The arrival check, without recording anything: the very verdicts a submission would get."""
        _, power = self.require_player(name, power, viewer)
        _, v, pos, _, _ = self.open_phase(name)
        return check_orders(v, pos, power, _text(text))

    def check_view(self, name: str, power: str, text: str, viewer: Viewer) -> dict[str, Any]:
        """The line check as the order page shows it: each line's verdict (and note) with its subject (see
        :func:`order_subject`), and what happens to what the orders leave out (units without an order)."""
        from dippouch.core.notation import parse_order

        _, power = self.require_player(name, power, viewer)
        text = _text(text)
        _, v, pos, _, _ = self.open_phase(name)
        kind = v.calendar.kind(pos.phase)
        lines = check_orders(v, pos, power, text)
        out = []
        for ln in lines:
            data = ln.to_data()
            # The canonical text parses back to the order (the arrival check wrote it); a line that could
            # not be read has none, and no subject.
            data["subject"] = None if ln.order is None else order_subject(v, parse_order(v, ln.order, phase_kind=kind))
            out.append(data)
        # ``unordered``: the power's units these lines give no order (full names); ``unordered_notes``: what
        # happens to them, and builds or removals not ordered.
        return {"lines": out, **_left_out_of(v, unordered(v, pos, power, lines))}

    def submit(
        self, name: str, power: str, text: str, ready: bool, viewer: Viewer, *, phase: str | None = None
    ) -> dict[str, Any]:
        """``phase``: the phase the orders were written for; processed meanwhile, they are refused (GameError
        saying so and naming the open phase), never moved to the next phase unseen (issue 15)."""
        _, power = self.require_player(name, power, viewer)
        text = _text(text)
        # The arrival time is the store's, read once this submission holds the power's lock (a time read
        # here, before queueing for it, could make a later version older than an earlier one).
        given = self.now() if self.clock_given else None
        with self._writes:
            res = self.store.submit(name, power, text, now=given, ready=ready, source="web", phase=phase or None)
        now = given or res.received or self.now()
        processed: list[str] = []
        if ready:
            with self._writes:
                processed = self.store.process(name, now=now)  # only if every power that must act is ready
        self.touched(name, structural=bool(processed))
        return {
            "phase": res.phase,
            "power": res.power,
            "version": res.version,
            "late": res.late,
            "ready": res.ready,
            "lines": [ln.to_data() for ln in res.lines],
            # Fields of the store's newer receipts (issue 11), when it gives them: whether this version
            # replaced the earlier ones, which version stands, and why "ready" was refused.
            "stands": bool(getattr(res, "stands", True)),
            "standing": getattr(res, "standing", res.version),
            "ready_refused": getattr(res, "ready_refused", None),
            "accepted": sum(1 for ln in res.lines if ln.accepted),
            "rejected": sum(1 for ln in res.lines if not ln.accepted),
            "processed": processed,
            # What the standing version leaves without an order, as the store's receipt counts it.
            **_left_out_of(res.game_variant or self._variant_of(name), res.unordered),
        }

    def vote(self, name: str, power: str, draw: bool, viewer: Viewer) -> str | None:
        _, power = self.require_player(name, power, viewer)
        with self._writes:
            ending = self.store.vote(name, power, draw, now=self.now())
        self.touched(name, structural=ending is not None)
        return ending.text if ending else None

    # ----------------------------------------------------------------------------------------------
    # The coordinator

    def coordinator_view(self, name: str, viewer: Viewer) -> dict[str, Any]:
        self.require_coordinator(name, viewer)
        now = self.now()
        game = self.game_view(name, viewer)
        players = self.read.players(name)
        emails = self.read.emails(name)
        keys = self.access.keys(name)
        subs: list[dict[str, Any]] = []
        sealed = False
        if game["phase_id"] is not None:
            rec = self.read.phase_record(name, phase_id=game["phase_id"])
            deadline = rec["deadline"]
            # Sealed until the deadline (the W3K rulebook): who and when, never what.
            sealed = deadline is None or now < datetime.fromisoformat(deadline)
            for sub in rec["submissions"]:
                entry = {k: sub[k] for k in ("power", "version", "submitted_at", "ready", "late", "source")}
                entry["count"] = len(sub["lines"])
                if not sealed:
                    entry["text"] = sub["text"]
                    entry["lines"] = sub["lines"]
                subs.append(entry)
        return {
            "game": game,
            "players": [
                {
                    "power": p,
                    "player": cur,
                    "email": emails.get(p, (None, None))[1],
                    "history": [(n, a.isoformat(), r.isoformat() if r else None) for n, a, r in hist],
                }
                for p, cur, hist in players
            ],
            "keys": [
                {
                    "id": k.id,
                    "role": k.role,
                    "power": k.power,
                    "label": k.label,
                    "created_at": k.created_at.isoformat(),
                    "revoked": k.revoked_at is not None,
                }
                for k in keys
            ],
            "submissions": subs,
            "sealed": sealed,
            "visibilities": list(VISIBILITIES),
            "unseated": [p for p, cur, _ in players if not cur],
            "mail_unavailable": _mail_unavailable(),
        }

    def create_game(self, viewer: Viewer, form: Mapping[str, Any]) -> str:
        self.require_coordinator(None, viewer)
        name = _names(form.get("name", ""), "the game's name")
        if "/" in name or name.startswith("."):
            raise BadInput("a game's name cannot contain '/' or start with '.'")
        variant = str(form.get("variant", "standard"))
        if variant not in variant_names():
            raise BadInput(f"no variant {variant!r}; choose one of {', '.join(variant_names())}")
        v = load_variant(variant)
        options: dict[str, Any] = {}
        for key, spec in v.data.get("options", {}).items():
            raw = form.get(f"option_{variant}_{key}", form.get(f"option_{key}"))
            default = spec.get("default")
            if raw is None or raw == "":
                value = False if isinstance(default, bool) else default
            elif isinstance(default, bool):
                value = str(raw).lower() in ("1", "true", "on", "yes")
            else:
                value = str(raw)
            if value != default:
                options[key] = value
        missed = str(form.get("missed", "2")).strip() or "2"
        if not missed.isdigit() or len(missed) > 3:
            raise BadInput(f"missed phases before civil disorder must be a whole number, not {missed!r}")
        settings = Settings(
            deadlines={
                k: str(form.get(k) or d) for k, d in (("movement", "12d"), ("retreats", "2d"), ("adjustments", "2d"))
            },
            timezone=str(form.get("timezone") or "UTC"),
            time_of_day=str(form["time_of_day"]) if form.get("time_of_day") else None,
            missed_limit=int(missed),
            draws=str(form.get("draws", "on")).lower() in ("1", "true", "on", "yes"),
            secret_ballot=str(form.get("secret_ballot", "")).lower() in ("1", "true", "on", "yes"),
        )
        for k in ("movement", "retreats", "adjustments"):
            if _duration(settings.deadlines[k], f"the {k} deadline") < timedelta(minutes=1):
                raise BadInput(f"the {k} deadline must be at least one minute")
        visibility = str(form.get("visibility") or "public")
        if visibility not in VISIBILITIES:
            raise BadInput(f"visibility must be one of {', '.join(VISIBILITIES)}")
        self.store.create_game(name, variant, now=self.now(), options=options, settings=settings)
        self.access.set_visibility(name, visibility)
        self.touched(name)
        return name

    def assign(
        self, name: str, viewer: Viewer, power: str, player: str, replace: bool, email: str = ""
    ) -> tuple[str, str]:
        """Seat a player and hand out their link (a replacement's old links are revoked). ``email`` is the
        address their orders by mail must come from (optional)."""
        self.require_coordinator(name, viewer)
        power, _, secret = self._assign(name, power, player, replace, email)
        return power, secret

    def _assign(self, name: str, power: str, player: str, replace: bool, email: str) -> tuple[str, int, str]:
        player = _names(player, "the player's name", 200)
        address = _names(email, "the e-mail address", 320) if email.strip() else None
        v = self._variant_of(name)
        try:
            power = v.power(power).name
        except KeyError as e:
            raise BadInput(str(e.args[0])) from None
        now = self.now()
        self.store.assign(name, power, player, now=now, replace=replace, email=address)
        self.touched(name)
        if replace:
            self.access.revoke_power_keys(name, power, now=now)
        key_id, secret = self.access.create_key("player", game=name, power=power, label=player, now=now)
        return power, int(key_id), secret

    def seat_bot(self, name: str, viewer: Viewer, power: str, level: str) -> dict[str, Any]:
        """Seat a bot on a power (docs/bots.md): the power's player links are revoked, and the bot sends its
        orders for the open phase at once."""
        from dippouch.bots.seats import play_seats
        from dippouch.store.bots import bot_player, seat_bot

        self.require_coordinator(name, viewer)
        v = self._variant_of(name)
        try:
            power = v.power(power).name
        except KeyError as e:
            raise BadInput(str(e.args[0])) from None
        now = self.now()
        seat_bot(self.store, name, power, level, now=now)
        self.access.revoke_power_keys(name, power, now=now)
        moves = play_seats(self.store, now=now, games=[name])
        self.touched(name)
        sent = next((m for m in moves if m.power == power and m.version is not None), None)
        return {"power": power, "player": bot_player(level), "version": sent.version if sent else None}

    def set_bot_policy(self, name: str, viewer: Viewer, level: str | None) -> str:
        """Hand powers in civil disorder to a bot of ``level`` (``None``: no longer)."""
        from dippouch.store.bots import set_disorder_bot

        self.require_coordinator(name, viewer)
        chosen = set_disorder_bot(self.store, name, level, now=self.now())
        self.touched(name)
        if chosen is None:
            return "Powers in civil disorder are no longer handed to a bot."
        return f"Powers in civil disorder are handed to a {chosen} bot until a person takes the seat."

    def seat_many(self, name: str, viewer: Viewer, rows: list[tuple[str, str, str]], base: str) -> dict[str, Any]:
        """Seat several powers at once from (power, player, e-mail) rows (rows without a player are skipped).
        Every row is checked before anyone is seated, so a mistake seats nobody. Each new link is shown once;
        where an address is given it is also queued to it through the mail outbox (when mail is configured;
        otherwise the answer says so and the coordinator sends the links)."""
        from dippouch.mail.notices import mail_unavailable, queue_player_link

        self.require_coordinator(name, viewer)
        v = self._variant_of(name)
        seated = {p for p, cur, _ in self.read.players(name) if cur}
        todo: list[tuple[str, str, str]] = []
        for power, player, email in rows:
            if not player.strip():
                continue
            try:
                power = v.power(power).name
            except KeyError as e:
                raise BadInput(str(e.args[0])) from None
            _names(player, f"{power}'s player's name", 200)
            if email.strip():
                address = _names(email, f"{power}'s e-mail address", 320)
                if "@" not in address.strip("@") or any(c.isspace() for c in address):
                    raise BadInput(f"{power}'s e-mail address {address!r} is not an address (name@example.org)")
            if power in seated:
                raise BadInput(f"{power} is already played; use Replace in its row to hand it over. Nobody was seated.")
            todo.append((power, player, email.strip()))
        if not todo:
            raise BadInput("give a player's name for at least one power")
        no_mail = mail_unavailable() if any(e for _, _, e in todo) else None
        out = []
        for power, player, email in todo:
            power, key_id, secret = self._assign(name, power, player, False, email)
            link = f"{base}/k/{secret}"
            mailed = False
            if email and no_mail is None:
                mailed = queue_player_link(self.store, name, power, player, email, link, key_id, self.now())
            out.append(
                {
                    "power": power,
                    "player": player,
                    "email": email or None,
                    "link": link,
                    "key": secret,
                    "mailed": mailed,
                }
            )
        return {"seated": out, "mail_unavailable": no_mail}

    def set_email(self, name: str, viewer: Viewer, power: str, email: str) -> str:
        """Change (or, empty, remove) the address a seated player's orders by mail must come from."""
        self.require_coordinator(name, viewer)
        address = _names(email, "the e-mail address", 320) if email.strip() else None
        power = self.store.set_email(name, power, address, now=self.now())
        self.touched(name)
        return f"{power}'s orders by mail now come from {address}." if address else f"{power} has no address now."

    def new_player_link(self, name: str, viewer: Viewer, power: str, reason: str = "") -> tuple[str, str]:
        """A new key for a power's player. For a seated power while the phase is sealed, the key reads the
        player's orders before the deadline: it needs a reason, recorded and shown to the players."""
        self.require_coordinator(name, viewer)
        v = self._variant_of(name)
        try:
            power = v.power(power).name
        except KeyError as e:
            raise BadInput(str(e.args[0])) from None
        try:
            self.store.record_unsealing(
                name,
                who=self.who(name, viewer),
                reason=reason,
                now=self.now(),
                what=f"new key for {power}'s player",
                power=power,
                seated_only=True,
            )
        finally:
            self.touched(name)
        players = dict((p, cur) for p, cur, _ in self.read.players(name))
        _, secret = self.access.create_key(
            "player", game=name, power=power, label=players.get(power) or "", now=self.now()
        )
        return power, secret

    def new_coordinator_key(self, name: str, viewer: Viewer, label: str) -> str:
        self.require_coordinator(name, viewer)
        _, secret = self.access.create_key("coordinator", game=name, label=label[:200], now=self.now())
        return secret

    def revoke(self, name: str, viewer: Viewer, key_id: int) -> None:
        self.require_coordinator(name, viewer)
        self.access.revoke_key(key_id, game=name, now=self.now())

    def clock_action(self, name: str, viewer: Viewer, action: str, arg: str = "") -> str:
        """extend / pause / resume / process / rollback / visibility: one line saying what happened."""
        self.require_coordinator(name, viewer)
        try:
            return self._clock_action(name, action, arg)
        finally:
            self.touched(name)

    def _clock_action(self, name: str, action: str, arg: str) -> str:
        now = self.now()
        s = self.store
        if action == "extend":
            by = _duration(arg, "the extension")
            if by <= timedelta(0) or by > timedelta(days=365):
                raise BadInput("an extension is between one second and a year")
            got = s.extend(name, by, now=now)
            return f"Deadline extended to {got:%Y-%m-%d %H:%M} UTC." if isinstance(got, datetime) else "Extended."
        if action == "pause":
            left = s.pause(name, now=now)
            return f"Paused with {_duration_text(left)} left on the clock."
        if action == "resume":
            due = s.resume(name, now=now)
            return f"Resumed; due {due:%Y-%m-%d %H:%M} UTC."
        if action == "process":
            done = s.process(name, now=now, force=True)
            return f"Processed {', '.join(done)}." if done else "Nothing was processed."
        if action == "rollback":
            phase = _names(arg, "the phase", 100)
            rolled: Any = s.rollback(name, phase, now=now)
            back, carried = rolled if isinstance(rolled, tuple) else (rolled, [])
            kept = f" {len(carried)} submission(s) carried forward." if carried else ""
            return f"Rolled back to {back}; its orders are due again.{kept}"
        if action == "visibility":
            self.access.set_visibility(name, arg)
            return f"The game is now {arg}."
        raise NotFound(f"no coordinator action {action!r}")

    def confirm_view(self, name: str, viewer: Viewer, action: str, arg: str) -> dict[str, Any]:
        """What a coordinator's action that cannot be taken back (process now, roll back, revoke) will do, for
        the page that asks them to confirm it. Checked as the action itself would be (a key of another game, a
        phase that does not exist are refused here already), but nothing is changed."""
        self.require_coordinator(name, viewer)
        game = self.game_view(name, viewer)
        if action == "process":
            if game["phase_id"] is None:
                raise BadInput(f"game {name!r} has no open phase to process (it is over)")
            waiting = [p["power"] for p in game["powers"] if p["must_act"] and not p["submitted"]]
            lines = [
                f"{game['phase']} will be adjudicated now, before its deadline ({game['deadline_text'] or 'none'})."
            ]
            lines.append(
                f"No orders yet from {', '.join(waiting)}: their units hold, retreats are disbanded and builds "
                "waived, as at the deadline."
                if waiting
                else "Every power that must act has sent orders."
            )
            lines.append("This cannot be undone except by rolling the game back to this phase.")
            return {"title": f"Process {game['phase']} now?", "lines": lines, "button": "Process now", "fields": {}}
        if action == "rollback":
            phase = _names(arg, "the phase", 100)
            rec = self.read.phase_record(name, phase, submissions=False)
            lines = [
                f"{rec['name']} opens again with its position as it was; the phases played after it stay in the "
                "history, marked rolled back.",
                "Each power's orders for it are carried into it again (not ready); draw votes lapse.",
            ]
            return {
                "title": f"Roll back to {rec['name']}?",
                "lines": lines,
                "button": "Roll back",
                "fields": {"phase": rec["name"]},
            }
        if action == "revoke":
            if not arg.isdigit() or len(arg) > 12:
                raise BadInput("which key? (its number)")
            key = next((k for k in self.access.keys(name) if k.id == int(arg)), None)
            if key is None:
                raise BadInput(f"no key {arg} in this game")
            holder = f"{key.power}'s player" if key.power else "a coordinator"
            label = f" ({key.label})" if key.label else ""
            lines = [
                f"Key {key.id}, for {holder}{label}: its links stop working at once, in every browser signed in "
                "with it.",
                "A player who still needs a link gets a new one with New link.",
            ]
            if key.revoked_at is not None:
                lines = [f"Key {key.id} is revoked already."]
            return {
                "title": f"Revoke key {key.id}?",
                "lines": lines,
                "button": "Revoke",
                "fields": {"key": str(key.id)},
            }
        raise NotFound(f"no coordinator action {action!r} to confirm")

    def set_deadlines(self, name: str, viewer: Viewer, form: Mapping[str, Any]) -> str:
        self.require_coordinator(name, viewer)
        deadlines = {k: str(form.get(k) or "").strip() for k in ("movement", "retreats", "adjustments")}
        deadlines = {k: t for k, t in deadlines.items() if t}
        for k, t in deadlines.items():
            if _duration(t, f"the {k} deadline") < timedelta(minutes=1):
                raise BadInput(f"the {k} deadline must be at least one minute")
        self.store.set_deadlines(name, deadlines, now=self.now())
        self.touched(name)
        return "Deadlines for the phases to come: " + ", ".join(f"{k} {t}" for k, t in deadlines.items()) + "."

    def import_game(self, viewer: Viewer, data: Any, name: str | None) -> str:
        self.require_coordinator(None, viewer)
        if name:
            name = _names(name, "the game's name")
        try:
            return self.store.import_game(data, name=name or None)
        except (AttributeError, TypeError, ValueError, KeyError) as e:
            raise BadInput(
                f"the game file is incomplete or in the wrong shape ({type(e).__name__}: {e})"[:300]
            ) from None

    # ----------------------------------------------------------------------------------------------
    # Variants and the move browser

    def variant_view(self, name: str) -> dict[str, Any]:
        from dippouch.web.summary import rules_summary

        v = _variant(name)
        m = v.map
        key = [
            {
                "abbr": p.abbr,
                "name": p.name,
                "kind": p.kind.value,
                "centre": p.supply_centre,
                "coasts": [m.locations[c].abbr for c in p.coasts],
                "aliases": list(p.aliases),
                "owner": next((pw for c, pw in v.start.centres.items() if c == p.id), None),
            }
            for p in sorted(m.provinces, key=lambda p: p.name.lower())
            if p.kind != ProvinceKind.IMPASSABLE
        ]
        powers = [
            {
                "name": p.name,
                "adjective": p.adjective,
                "letter": p.letter,
                "colour": p.colour,
                "homes": sorted(m.provinces[h].name for h in v.start.homes.get(p.name, ())),
                "units": [f"{u.kind} {m.locations[u.loc].name}" for u in v.start.units_of(p.name)],
                "centres": len(v.start.centres_of(p.name)),
            }
            for p in v.powers
        ]
        rules = v.data.get("rules")
        # Where a power with no fixed home centres builds: in any centre it owns (W3K, Hundred Years' War),
        # or in homes it chooses as the game goes (1897).
        builds_anywhere = isinstance(rules, Mapping) and rules.get("build_sites") == "owned"
        return {
            "name": v.name,
            "title": v.title,
            "description": v.description,
            "summary": rules_summary(v),
            "powers": powers,
            "builds_anywhere": builds_anywhere,
            "centres": sorted(m.provinces[c].name for c in m.supply_centres),
            "key": key,
            "options": [
                {
                    "key": k,
                    "default": spec.get("default"),
                    "description": spec.get("description", ""),
                    "values": list(spec.get("values", {})),
                }
                for k, spec in v.data.get("options", {}).items()
            ],
            "map_svg": position_svg(v, ("variant", v.name), v.start, f"{v.title}: the opening position"),
        }

    def moves(self, variant: str, query: str) -> dict[str, Any]:
        """Every valid move from a territory for an army, a fleet, and a fleet on each coast."""
        v = _variant(variant)
        m = v.map
        q = query.strip()
        if len(q) > 100:
            raise BadInput("a territory name is at most 100 characters")
        out: dict[str, Any] = {"variant": v.name, "query": q, "province": None, "matches": [], "units": []}
        if not q:
            return out
        prov = _find_province(v, q)
        if prov is None:
            out["matches"] = _search(v, q)
            if len(out["matches"]) == 1:
                prov = m.provinces[m.province_of(m.loc(out["matches"][0]["abbr"]))].id
            else:
                if not out["matches"]:
                    close = difflib.get_close_matches(q.lower(), list(m.names), n=3, cutoff=0.6)
                    out["suggestions"] = [m.locations[m.names[c]].name for c in close]
                return out
        p = m.provinces[prov]
        out["province"] = {"abbr": p.abbr, "name": p.name, "kind": p.kind.value, "centre": p.supply_centre}
        out["units"] = _moves_from(v, prov)
        return out

    def search(self, variant: str, query: str) -> list[dict[str, str]]:
        v = _variant(variant)
        return _search(v, query.strip()[:100]) if query.strip() else []


# --------------------------------------------------------------------------------------------------


def _mail_unavailable() -> str | None:
    from dippouch.mail.notices import mail_unavailable

    return mail_unavailable()


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


def _record(game: str, ph: PhaseRow) -> dict[str, Any]:
    """A phase as the renderer reads it (``GameStore.phase_record``'s keys), never with its submissions."""
    return {
        "game": game,
        "name": ph.name,
        "status": ph.status,
        "position": ph.position,
        "next_position": ph.next_position,
        "orders": ph.orders,
        "results": ph.results,
    }


def _duration_text(td: timedelta) -> str:
    total = int(td.total_seconds())
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [f"{days}d"] if days else []
    if hours or days:
        parts.append(f"{hours}h")
    parts.append(f"{minutes}m")
    return " ".join(parts)


def _variant(name: str) -> Variant:
    if name not in variant_names():
        close = difflib.get_close_matches(name.lower()[:100], variant_names(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise NotFound(f"no variant {name[:100]!r}{hint} Variants: {', '.join(variant_names())}")
    return load_variant(name)


def _unit_label(v: Variant, pos: Position, loc: int, kind: str) -> str:
    m = v.map
    prov = m.province_of(loc)
    if kind == PhaseKind.ADJUSTMENTS.value and prov not in pos.units:
        return f"Build site {m.provinces[prov].name}"
    unit = (
        pos.dislodged[prov].unit if kind == PhaseKind.RETREATS.value and prov in pos.dislodged else pos.units.get(prov)
    )
    if unit is None:
        return m.locations[loc].name
    return f"{_kind_name(unit.kind)} {m.locations[unit.loc].name}"


def _order_entry(v: Variant, o: Any, kind: str, fmt: Callable[..., str]) -> dict[str, Any]:
    """A legal order as the click-entry script needs it: its text, kind, and the provinces it names."""
    m = v.map

    def prov(loc: int | None) -> str | None:
        return None if loc is None else m.provinces[m.province_of(loc)].abbr

    entry: dict[str, Any] = {
        "text": fmt(v, o, phase_kind=kind),
        "type": type(o).__name__.lower(),
        "subject": order_subject(v, o),
        "dest": prov(getattr(o, "dest", None)),
        "target": prov(getattr(o, "target", None)),
        "via": bool(getattr(o, "via_convoy", False)),
    }
    if isinstance(o, Move | Retreat) and m.locations[o.dest].coast is not None:
        # A click on a province cannot say which coast: the page offers the coasts by these names.
        entry["coast"] = m.locations[o.dest].name
    return entry


def order_subject(v: Variant, order: Order) -> str | None:
    """What an order is *about*, the key by which a newly picked order replaces a line in the order box: the
    province of the unit it orders (or of the site it builds on), as the adjudicator matches units by
    province; ``None`` for orders about no unit or site (waive, W3K supply transfers), which each stand alone.
    The pick lists and the line check both answer with it, so the page never guesses it from the text."""
    loc = order.unit_loc
    return None if loc is None else v.map.provinces[v.map.province_of(loc)].abbr


def _full_unit(v: Variant, text: str) -> str:
    """``A par`` -> ``Army Paris`` (a variant's own kinds by their name: ``Defensive army ...``)."""
    from dippouch.core.notation import OrderParseError, format_place, parse_unit
    from dippouch.names import kind_word

    try:
        kind, loc = parse_unit(v, text)
    except OrderParseError:
        return text
    return f"{kind_word(v, kind or '').capitalize()} {format_place(v, loc, full=True)}" if kind else text


def _no_left_out() -> dict[str, Any]:
    return {"units": [], "notes": []}


def _left_out_of(v: Variant, pairs: Any) -> dict[str, Any]:
    """The game layer's ``unordered`` pairs (units in canonical text, what happens to them) for people:
    ``unordered``, the units by full name, and ``unordered_notes``, one sentence per group."""
    units: list[str] = []
    notes: list[str] = []
    for group, what in pairs or []:
        names = [_full_unit(v, u) for u in group]
        units += names
        notes.append(f"{', '.join(names)}: {what}" if names else what[0].upper() + what[1:])
    return {"unordered": units, "unordered_notes": notes}


def _left_out(v: Variant, pos: Position, power: str, lines: Any) -> dict[str, Any]:
    """What ``lines`` (line checks as data) leave without an order, by :func:`dippouch.game.unordered`:
    ``{"units": [...], "notes": [...]}``."""
    got = _left_out_of(v, unordered(v, pos, power, [LineCheck.from_data(d) for d in lines]))
    return {"units": got["unordered"], "notes": got["unordered_notes"]}


_EXAMPLE_KINDS = {
    PhaseKind.MOVEMENT.value: ("Move", "Support", "Hold"),
    PhaseKind.RETREATS.value: ("Retreat", "Disband"),
    PhaseKind.ADJUSTMENTS.value: ("Build", "Disband", "Waive"),
}


def _example_orders(v: Variant, table: Mapping[int, Any], kind: str, most: int = 3) -> list[str]:
    """A few real orders of this power now, for the order box's example: one per unit or site (the first
    legal order of the kind that phase is about: a move, a retreat, a build or a removal), in full names."""
    from dippouch.core.notation import format_order

    prefer = _EXAMPLE_KINDS.get(kind, ())
    out: list[str] = []
    for _, orders in sorted(table.items(), key=lambda kv: v.map.locations[kv[0]].abbr):
        plain = [o for o in orders if not getattr(o, "via_convoy", False)]
        for wanted in prefer:
            got = next((o for o in plain if type(o).__name__ == wanted), None)
            if got is not None:
                out.append(format_order(v, got, phase_kind=kind, full=True))
                break
        if len(out) >= most:
            break
    return out


def _kind_name(kind: str) -> str:
    return {"A": "Army", "F": "Fleet", "D": "Defensive army"}.get(kind, kind)


def _units_of(v: Variant, pos: Position, power: str, kind: str) -> list[dict[str, str]]:
    m = v.map
    units = pos.units_of(power)
    out = [
        {
            "unit": f"{u.kind} {m.locations[u.loc].abbr}",
            "name": f"{_kind_name(u.kind)} {m.locations[u.loc].name}",
            "loc": m.locations[u.loc].abbr,
        }
        for u in sorted(units, key=lambda u: m.locations[u.loc].abbr)
    ]
    if kind == PhaseKind.RETREATS.value:
        for d in pos.dislodged.values():
            if d.unit.power == power:
                u = d.unit
                out.append(
                    {
                        "unit": f"{u.kind} {m.locations[u.loc].abbr}",
                        "name": f"{_kind_name(u.kind)} {m.locations[u.loc].name} (dislodged)",
                        "loc": m.locations[u.loc].abbr,
                    }
                )
    return out


def _find_province(v: Variant, q: str) -> int | None:
    """The province a name means, read as orders read it: every name the pages show (a coast's
    "Caernarfonshire (South Coast)"), abbreviations, aliases, "the", any apostrophe."""
    try:
        return v.map.province_of(v.map.loc(q))
    except KeyError:
        pass
    try:
        return v.map.province_of(parse_unit(v, q)[1])
    except OrderParseError:
        return None


def _folded(text: str) -> str:
    """Lower case without accents, apostrophes or brackets, one space between words: how a name is searched."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c) and c not in "'\u2019\u2018`()")
    return " ".join(text.replace("/", " ").split())


def _search(v: Variant, q: str) -> list[dict[str, str]]:
    """Places whose abbreviation, name or an alias contains the text, best first; a coast by its own name
    (``Caernarfonshire (South Coast)``, ``cae/sc``), as the move lists show it."""
    t = _folded(q)
    m = v.map
    hits: list[tuple[int, str, dict[str, str]]] = []
    for p in m.provinces:
        if p.kind == ProvinceKind.IMPASSABLE:
            continue
        places = [(p.abbr, p.name, [p.abbr, p.name, *p.aliases])]
        places += [
            (m.locations[c].abbr, m.locations[c].name, [m.locations[c].abbr, m.locations[c].name]) for c in p.coasts
        ]
        for abbr, name, words in places:
            folded = [_folded(w) for w in words]
            if any(t in w for w in folded):
                exact = t in (_folded(abbr), _folded(name))
                rank = 0 if exact else 1 if _folded(name).startswith(t) else 2
                hits.append((rank, name, {"abbr": abbr, "name": name}))
    return [h[2] for h in sorted(hits, key=lambda h: (h[0], h[1]))[:30]]


def _movement_phase(v: Variant) -> Any:
    p = v.start.phase
    for _ in range(len(v.calendar.steps) + 1):
        if v.calendar.kind(p) == PhaseKind.MOVEMENT:
            return p
        p = v.calendar.next(p)
    return v.start.phase


def _moves_from(v: Variant, prov: int) -> list[dict[str, Any]]:
    """Moves of a lone unit, as the legal-order generator lists them (so variant rules apply)."""
    from dippouch.core.legal import legal_orders
    from dippouch.core.orders import Move

    m = v.map
    p = m.provinces[prov]
    power = v.power_names[0]
    phase = _movement_phase(v)
    out: list[dict[str, Any]] = []
    spots: list[tuple[str, int, str]] = []
    if p.kind in (ProvinceKind.LAND, ProvinceKind.COAST):
        spots.append(("A", prov, f"Army in {p.name}"))
    for loc in m.fleet_locations(prov):
        spots.append(("F", loc, f"Fleet in {m.locations[loc].name}"))
    for kind, loc, label in spots:
        pos = Position(phase, {prov: Unit(power, kind, loc)}, dict(v.start.centres), dict(v.start.homes))
        try:
            table = legal_orders(v, pos, power)
        except DippouchError:
            table = {}
        dests = sorted(
            {o.dest for os_ in table.values() for o in os_ if isinstance(o, Move) and not o.via_convoy},
            key=lambda d: m.locations[d].name,
        )
        out.append(
            {
                "unit": kind,
                "location": m.locations[loc].abbr,
                "label": label,
                "moves": [{"abbr": m.locations[d].abbr, "name": m.locations[d].name} for d in dests],
            }
        )
    return out
