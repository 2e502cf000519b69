"""The web app's hold on the game database: the store, access keys, the clock, the caches, and the lookups and
permission checks every page and API call starts with.

What the pages and the JSON API show and do lives in one module per room, as plain functions of this
:class:`Web` (so the HTML pages in :mod:`dippouch.web.pages` and the JSON in :mod:`dippouch.web.api` cannot
drift apart): :mod:`~dippouch.web.views.games` (the game page, its maps, the list of games),
:mod:`~dippouch.web.views.history` (a phase of the history, its submissions, export, the deadline calendar),
:mod:`~dippouch.web.views.player_page` (a power's orders and their line check),
:mod:`~dippouch.web.views.desk` (the coordinator's desk), :mod:`~dippouch.web.views.new_games` (creating and importing
games) and :mod:`~dippouch.web.views.variant_pages` (variants and the move browser). Every rule of the game comes from
the game layer; permissions are checked here, once, for both front ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar, cast

from dippouch.core.errors import DippouchError
from dippouch.core.errors import NotFound as NoPower
from dippouch.core.messages import Msg, msg
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.store import variant_copy as variant_copy
from dippouch.store.access import STAND_IN, AccessStore
from dippouch.store.loop_reads import LoopReads
from dippouch.store.records import StoredPhase
from dippouch.store.repository import GameStore
from dippouch.store.web_queries import game_exists, open_phase_id, phase_by_id
from dippouch.web.http.encoded import Gapped, Pieces
from dippouch.web.http.page_trust import PageTrust, Warrant
from dippouch.web.http.security import BadInput, Forbidden, Viewer, WebNotFound
from dippouch.web.views.maps import MapCache

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = ["HELD_PAGE_BYTES", "PAGE_TTL", "STATE_TTL", "HeldPage", "Web"]

PAGE_TTL = 1.0
"""Seconds an anonymous visitor's game page is served without looking at the database."""

STATE_TTL = 1.0
"""Seconds a game's change marker is trusted before it is read again (changes by other processes show up
within this time; this process's own changes at once)."""

T = TypeVar("T")


HELD_PAGE_BYTES = 100_000_000
"""The bound of the visitors' pages a process holds (:attr:`Web.pages`), in bytes of their parts: a standard game's
page with its picture is some 63 KB held (its pieces plain and deflated, every form of its deadline box), so some
1,600 pages (games times the languages they are read in) before every one is let go."""


class HeldPage(NamedTuple):
    """A visitor's game page this process holds (:attr:`Web.pages`)."""

    at: float
    """When it was made or confirmed (monotonic seconds): shown without a look for :data:`PAGE_TTL` after."""
    made: tuple[str, datetime | None]
    """Its version and when what it shows last changed (its ETag and Last-Modified)."""
    visibility: str
    page: Gapped
    """The page in parts with CSRF gaps, plain and deflated."""
    trust: tuple[Warrant, datetime | None] | None
    """(its warrant, its phase's deadline while that is ahead) or None: whether it is still the game's without
    asking (:class:`~dippouch.web.http.page_trust.PageTrust`)."""
    past: tuple[Pieces, tuple[str, datetime]] | None = None
    """Its pieces and the :attr:`made` it has once its deadline passes, where nothing else changes then (its phase
    waits for processing, which is heard of): shown past the deadline without asking (routes.games)."""

    @property
    def size(self) -> int:
        """Its bytes: its pieces, which the page shown is made of, where it holds them."""
        return self.past[0].size if self.past is not None else self.page.size


class Web:
    """The web app's view of the database: the game store, access keys, a clock, and caches."""

    def __init__(self, store: GameStore, clock: Callable[[], datetime] | None = None) -> None:
        self.store = store
        # Pages read through a second engine that never takes SQLite's write lock (see GameStore.reader).
        self.read = store.reader() if store.engine.dialect.name == "sqlite" else store
        self.access = AccessStore(store, self.read)
        self.clock = clock or (lambda: datetime.now(UTC))
        self.clock_given = clock is not None
        """A clock handed in (tests, "as of" runs); otherwise deadlines go by the database's clock."""
        self.maps = MapCache()
        """The pictures of this database's phases (and their PDFs): kept with the app, gone with it."""
        self._phase_names: dict[int, tuple[str, str]] = {}
        """Phase id -> (name, kind), beside the database's parsed positions (``read.positions``)."""
        self._state: dict[str, tuple[float, tuple[str, Any] | None]] = {}
        """Game -> (when the reading began, (visibility, change marker)); None for a game this process changed
        since (:meth:`touched`), whose next reading is asked for afresh."""
        self._variants: dict[str, tuple[Any, Variant]] = {}
        self._variant_hashes: dict[str, str | None] = {}
        self._page_locks: dict[str, threading.Lock] = {}
        self._kept: dict[str, Any] = {}
        self.pages: dict[Any, HeldPage] = {}
        """Rendered pages for anonymous visitors, by (page, game, language). The parts are held with the page,
        not looked up by its text in a cache of their own: a page carries its map (some 50 KB), and a thousand
        games' pages outgrew that cache, whose every drop had each page deflated again at its next reading."""
        self._held_bytes = 0
        """What :attr:`pages` holds, in bytes of its pages' parts (:meth:`hold_page`)."""
        self.page_trust = PageTrust()
        """What this process has heard of changed games (PostgreSQL's notices, while the app runs)."""
        self.loop_reads: LoopReads | None = None
        """Reads sent from the event loop (:mod:`dippouch.store.loop_reads`), while the app runs on PostgreSQL:
        opened and closed with the app (:func:`dippouch.web.app.create_app`'s lifespan)."""
        self.lock = threading.Lock()
        """Guards the caches' dictionaries (held for a moment, never while reading the database)."""
        self.stopping = threading.Event()
        """Set when the server is told to stop: an answer that would stay open for minutes (a press stream)
        ends at its next look, since the server waits for every open answer before it stops."""

    def now(self) -> datetime:
        return self.clock()

    def kept(self, room: str, make: Callable[[], T]) -> T:
        """The caches of one room of the web app (a module's own, by its name), made on first use and kept
        with this app: each room owns what it caches, and dropping the app drops them all."""
        got = self._kept.get(room)
        if got is None:
            with self.lock:
                got = self._kept.setdefault(room, make())
        return cast(T, got)

    # ----------------------------------------------------------------------------------------------
    # Change markers

    def state(self, name: str) -> tuple[str, Any] | None:
        """(visibility, change marker) of a game, or None; read at most once a second per game (this process
        marks a game it changes itself, whose next reading is asked for afresh: :meth:`touched`)."""
        if len(name) > 100:
            return None
        now = time.monotonic()
        hit = self._state.get(name)
        if hit is not None and hit[1] is not None and now - hit[0] < STATE_TTL:
            return hit[1]
        read = self.access.marker(name)
        if read is None:
            return None
        return self.saw(name, *read, began=now)

    def saw(
        self, name: str, visibility: str, marker: Any, variant_hash: str | None, *, began: float
    ) -> tuple[str, Any]:
        """Keep a reading of the game's marker (``began``: :func:`time.monotonic` when its query was sent) as
        this process's, unless one begun later is kept already, or the game was changed by this process after
        it began (:meth:`touched`): a thread's reading that straggled in after a newer one, or after this
        process's own change, would otherwise be taken for a second. A shared page's lookup brings a reading
        with every page (:func:`dippouch.web.views.page_cache.current`), which the rest of the request then
        takes rather than asking again."""
        got = visibility, marker
        with self.lock:
            if len(self._state) > 20_000:
                self._state.clear()
                self._variant_hashes.clear()
            kept = self._state.get(name)
            if kept is None or kept[0] <= began:
                self._state[name] = (began, got)
                self._variant_hashes[name] = variant_hash
        return got

    def hold_page(self, key: Any, entry: HeldPage) -> None:
        """Hold ``entry`` (:attr:`pages`'s) under ``key``, within :data:`HELD_PAGE_BYTES`: past it every page held
        is let go (each is read again as kept at its next reading, one query), so a process following more games
        than it can hold does not grow without end."""
        size = entry.size
        with self.lock:
            old = self.pages.get(key)
            self._held_bytes += size - (old.size if old is not None else 0)
            if self._held_bytes > HELD_PAGE_BYTES:
                self.pages.clear()
                self._held_bytes = size
            self.pages[key] = entry

    def touched(self, name: str, *, structural: bool = True) -> None:
        """This process just changed ``name``: read its marker afresh next time. A structural change (a
        phase processed, the clock, players, visibility) also drops the anonymous page at once; a new
        submission or vote only changes who has sent orders, which that page may show up to
        ``PAGE_TTL`` late (so a busy game's page is rebuilt at most once a second, however many orders
        arrive)."""
        with self.lock:
            self._state[name] = (time.monotonic(), None)  # a reading begun before this is never kept
        if structural:
            # The page is kept once per language (web/routes/games.py): every one of them goes, under the lock
            # that hold_page counts under, so the count is of what is held.
            with self.lock:
                for key in [k for k in self.pages if k[:2] == ("game", name)]:
                    self._held_bytes -= self.pages.pop(key).size

    def page_lock(self, name: str) -> threading.Lock:
        """The lock held while a game's anonymous page is made (one maker at a time per game)."""
        with self.lock:
            if len(self._page_locks) > 20_000:
                self._page_locks.clear()
            return self._page_locks.setdefault(name, threading.Lock())

    # ----------------------------------------------------------------------------------------------
    # Permissions

    def require_visible(self, name: str, viewer: Viewer, reading: tuple[str, Any] | None = None) -> tuple[str, Any]:
        """404 for a game that does not exist or that this viewer may not see (no difference shown). A private
        game is seen by its players, its coordinators and the stand-ins of its seats: a stand-in orders a seat
        while its player is away, and sees the board they order on (their grant is not a player's). ``reading``:
        the game's (visibility, marker) as the caller read them (:meth:`state`'s otherwise)."""
        st = self.state(name) if reading is None else reading
        if st is None or (
            st[0] == "private"
            and not (viewer.in_game(name) or any(g.role == STAND_IN and g.game == name for g in viewer.grants))
        ):
            raise WebNotFound(msg("no game %(game)s here", game=repr(name)))
        return st

    def _seat(self, name: str, power: str, viewer: Viewer) -> tuple[Variant, str]:
        """The game's variant and ``power`` by its own name, for a viewer who may see the game (404 otherwise)."""
        self.require_visible(name, viewer)
        v = self.variant_of(name)
        try:
            return v, v.power(power).name
        except NoPower as e:  # Variant.power's own words ("no power 'X' in standard; did you mean ...")
            raise WebNotFound(e.msg) from None

    def power_named(self, name: str, power: str) -> str:
        """``power`` by the game's own name for it, as a coordinator typed it (a 400 naming the powers when it
        names none)."""
        try:
            return self.variant_of(name).power(power).name
        except NoPower as e:  # Variant.power's own words ("no power 'X' in standard; did you mean ...")
            raise BadInput(e.msg) from None

    @staticmethod
    def _not_signed_in(name: str, power: str) -> Forbidden:
        return Forbidden(
            msg(
                "you are not signed in as %(power)s in %(game)s: open the link to your seat (the one mailed to you, "
                "or kept when you started the game), or sign in with its key",
                power=power,
                game=name,
            )
        )

    def require_player(self, name: str, power: str, viewer: Viewer) -> tuple[Variant, str]:
        v, power = self._seat(name, power, viewer)
        if not viewer.plays(name, power):
            raise self._not_signed_in(name, power)
        return v, power

    def require_seat(self, name: str, power: str, viewer: Viewer) -> tuple[Variant, str, bool]:
        """(variant, power, whether as its stand-in) for a viewer who may order ``power``: its player, or its
        stand-in while the player is away. Everything else of a seat (press, votes) asks
        :meth:`require_player`, which a stand-in's grant does not pass."""
        v, power = self._seat(name, power, viewer)
        if viewer.plays(name, power):
            return v, power, False
        if any(g.role == STAND_IN and g.game == name and g.power == power for g in viewer.grants):
            return v, power, True
        raise self._not_signed_in(name, power)

    def require_coordinator(self, name: str | None, viewer: Viewer) -> None:
        if name is not None:
            self.require_visible(name, viewer)
        if not viewer.coordinates(name):
            if name:
                raise Forbidden(
                    msg("you need a coordinator's key to coordinate %(game)s; sign in with it first", game=name)
                )
            raise Forbidden(msg("you need a coordinator's key to create or import games; sign in with it first"))

    def who(self, name: str, viewer: Viewer) -> Msg:
        """Who the viewer is, as the game's event log names them: their coordinator's key and its label."""
        ids = [g.key_id for g in viewer.grants if g.role == "coordinator" and g.game in (None, name)]
        if not ids:
            return msg("someone without a coordinator's key")
        keys = {k.id: k for k in self.access.keys(None) + self.access.keys(name)}
        k = keys.get(ids[0])
        if k is not None and k.label:
            return msg("the coordinator (key %(key)s, %(label)s)", key=ids[0], label=k.label)
        return msg("the coordinator (key %(key)s)", key=ids[0])

    # ----------------------------------------------------------------------------------------------
    # The game's variant and positions

    def variant_of(self, name: str) -> Variant:
        """The game's own variant, as the store reads it (the copy kept with the game). Kept while the hash of
        the game's stored copy stands, which the marker read brings (it changes only by ``dippouch
        upgrade-variant``); a game without a stored copy keeps it while its last event stands."""
        st = self.state(name)
        hit = self._variants.get(name)
        if hit is not None and st is not None and hit[0] == self._variant_key(name, st):
            return hit[1]
        try:
            v = variant_copy.variant_of(self.read, name)
        except DippouchError:
            if not game_exists(self.read, name):
                raise WebNotFound(msg("no game %(game)s here", game=repr(name))) from None
            raise
        if st is not None:
            self.keep_variant(name, st, v)
        return v

    def _variant_key(self, name: str, state: tuple[str, Any]) -> Any:
        digest = self._variant_hashes.get(name)
        return ("copy", digest) if digest is not None else ("events", state[1][0])

    def keep_variant(self, name: str, state: tuple[str, Any], v: Variant) -> None:
        """Keep ``v`` as game ``name``'s variant, as read when the game's state was ``state`` (a room that read
        the variant already hands it here, so the next lookup need not read it again)."""
        with self.lock:
            if len(self._variants) > 20_000:
                self._variants.clear()
            self._variants[name] = (self._variant_key(name, state), v)

    def position_of(self, v: Variant, ph: StoredPhase) -> tuple[Position, str, str]:
        """The position phase ``ph`` starts from, with the phase's name and kind: parsed once per phase and
        variant, in the database's one cache (which the store's submissions read too). For reading only:
        callers must not change the Position."""
        with self.lock:
            if len(self._phase_names) > 2000:
                self._phase_names.clear()
            self._phase_names[ph.id] = (ph.name, ph.kind)
        return self.read.position(v, ph.id, ph.position), ph.name, ph.kind

    def open_phase_position(self, name: str) -> tuple[int, Variant, Position, str, str]:
        """The game's open phase: (id, variant, position, name, kind), the position parsed once per phase."""
        pid = open_phase_id(self.read, name)
        if pid is None:
            raise BadInput(msg("game %(game)s has no open phase (it is over, or not started)", game=repr(name)))
        v = self.variant_of(name)
        named = self._phase_names.get(pid)
        kept = self.read.positions.get(pid)
        if named is not None and kept is not None and kept[0] is v:
            return pid, v, kept[1], named[0], named[1]
        ph = phase_by_id(self.read, pid)
        if ph is None:  # rolled back or deleted since: as if there were none
            raise BadInput(msg("game %(game)s has no open phase (it is over, or not started)", game=repr(name)))
        pos, pname, kind = self.position_of(v, ph)
        return pid, v, pos, pname, kind
