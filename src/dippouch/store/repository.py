"""Games in a database: every coordinator action is one short transaction here.

The guarantees the coordinator relies on live in this module:

- A submission is committed before :meth:`GameStore.submit` returns, so an acknowledged submission is never
  lost.
- Processing a phase (:meth:`GameStore.process_phase`) reads, adjudicates and writes in one transaction. A
  crash anywhere leaves the game before the phase or after it; processing an already processed phase is a
  no-op, and the unique ``(game, branch, seq)`` key stops two processes from both writing the next phase.
- Nothing is deleted: resubmissions are new versions, a rollback abandons phases instead of removing them.
- Several processes (web servers, deadline workers, the coordinator's commands) may share one database.
  Whatever writes a game locks its ``games`` row first (submissions share that lock; processing, votes
  and coordinator actions take it alone), so a submission and the processing of its phase never
  interleave: the submission lands before processing starts, and is used, or after it has committed,
  when it names a phase that is no longer open it is refused. Workers claim a game for processing by
  locking its row with ``SKIP LOCKED`` (:meth:`GameStore.process_next_due`), so they never wait for each
  other.

Every method takes ``now``; the store never reads the clock, except where a method says that a missing
``now`` means the database's clock (:meth:`GameStore.clock`), which is what deadline workers go by.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, defer, load_only, object_session, sessionmaker

from dippouch.catalog import built_variant, load_variant, variant_from_data
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError, VariantError
from dippouch.core.position import Position
from dippouch.core.variant import Variant, content_hash, play_hash
from dippouch.game import (
    Ending,
    GameError,
    LineCheck,
    Settings,
    as_utc,
    check_orders,
    civil_disorder_streak,
    draw_needs,
    draw_reached,
    game_end,
    may_submit,
    position_from_data,
    position_to_data,
    powers_to_act,
    read_version_lines,
    ready_refusal,
    submission_stands,
    unordered,
)
from dippouch.store.db import make_engine, upgrade
from dippouch.store.gamefile import SOURCES, check_game_file, check_new_game, check_variant_name, clean_address
from dippouch.store.models import EventRow, GameRow, PhaseRow, PlayerRow, SubmissionRow, VoteRow

__all__ = [
    "GAME_FILE_FORMAT",
    "SOURCES",
    "Carried",
    "DuePhase",
    "GameStore",
    "PhaseFailed",
    "PowerStatus",
    "Status",
    "SubmitResult",
    "VariantDrift",
    "clean_address",
]

GAME_FILE_FORMAT = "dippouch-game"
IDLE_PHASES = 6
"""How many phases in a row one ``process`` call runs before their deadlines because nobody has anything to
decide in them; the rest wait for their deadlines (or the next call)."""
GAME_FILE_VERSION = 1


def _review() -> Any:
    """store/review.py, imported when a phase's due-ness is first asked: it maps the mail tables, which a
    command that only submits never needs (tests/test_cli_startup.py). It never imports this module."""
    import dippouch.store.review

    return dippouch.store.review


def _crash_point(name: str) -> None:
    """Die here, abruptly, when ``DIPPOUCH_CRASH_AT`` names this point: the crash tests' kill switch.

    ``DIPPOUCH_CRASH_CHANCE`` (0 to 1, default 1) makes the death random, for tests that kill workers
    now and then while they keep going; ``DIPPOUCH_CRASH_SIGKILL=1`` dies by SIGKILL, as the kernel's
    out-of-memory killer or ``kill -9`` would, instead of ``os._exit``.
    """
    if os.environ.get("DIPPOUCH_CRASH_AT") != name:
        return
    chance = float(os.environ.get("DIPPOUCH_CRASH_CHANCE", "1"))
    if chance < 1:
        import random

        if random.random() >= chance:
            return
    import sys

    print(f"dippouch: dying at crash point {name}", file=sys.stderr, flush=True)  # the tests count these
    if os.environ.get("DIPPOUCH_CRASH_SIGKILL"):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    os._exit(70)


def _pause_point(name: str) -> None:
    """Stop here until told to go, when ``DIPPOUCH_PAUSE_AT`` names this point: the race tests' brake.

    The process leaves ``<name>.reached`` in ``DIPPOUCH_PAUSE_DIR`` and waits (at most two minutes) for
    ``<name>.go`` there, holding whatever locks its transaction holds, so a test can put another action in
    exactly that gap.
    """
    if os.environ.get("DIPPOUCH_PAUSE_AT") != name:
        return
    import time
    from pathlib import Path

    folder = Path(os.environ["DIPPOUCH_PAUSE_DIR"])
    safe = name.replace(":", "-")
    (folder / f"{safe}.reached").touch()
    end = time.monotonic() + 120
    while not (folder / f"{safe}.go").exists() and time.monotonic() < end:
        time.sleep(0.01)


@dataclass(frozen=True)
class SubmitResult:
    phase: str
    power: str
    version: int
    lines: list[LineCheck]
    late: bool
    ready: bool
    deadline: datetime | None
    label: str | None = None
    """The player's own number for this version, if they gave one."""
    reinstates: int | None = None
    """Our version number of the earlier submission this one says stands ("version 2 stands")."""
    standing: int | None = None
    """The version that now stands for the power (on time), after this submission."""
    notes: tuple[str, ...] = ()
    """Version lines read from the submission."""
    stands: bool = True
    """Whether this version replaced the earlier ones (see :func:`dippouch.game.submission_stands`)."""
    standing_orders: list[str] = field(default_factory=list)
    """The orders of the standing version, as they will be carried out."""
    unordered: list[tuple[list[str], str]] = field(default_factory=list)
    """What happens to the units (or builds) the standing orders leave out: (units, what happens) pairs."""
    ready_refused: str | None = None
    """Why ``--ready`` was refused (the submission is recorded, not ready)."""
    variant: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    """The game's variant and options, to write the orders for reading."""
    game_variant: Variant | None = field(default=None, compare=False, repr=False)
    """The variant the game plays (its stored copy), to write the orders for reading: the file of a user
    variant may be out of reach of the process that reads the receipt."""
    received: datetime | None = None
    """The arrival time recorded (the database's clock, read under the power's lock, unless given)."""


@dataclass(frozen=True)
class Carried:
    """A submission a rollback carried forward into the reopened phase."""

    power: str
    version: int
    """Its version in the phase it came from (it is version 1 of the reopened phase)."""
    submitted_at: datetime
    orders: int
    late: bool


@dataclass(frozen=True)
class PowerStatus:
    power: str
    player: str | None
    must_act: bool
    version: int | None
    """Latest submission's version (``None``: nothing sent yet)."""
    accepted: int
    rejected: int
    ready: bool
    late: bool
    civil_disorder: bool
    missed_in_a_row: int
    units: int
    centres: int
    draw_vote: bool
    borrowed: int = 0
    """Of ``accepted``, orders for units of other powers (W3K hand-overs): they count only if handed over."""
    unordered: tuple[str, ...] = ()
    """The power's own units the standing orders leave out (movement: they hold; retreats: disbanded), in
    canonical text (``A par``); empty before the power has sent anything."""


@dataclass(frozen=True)
class VariantDrift:
    """How a game's stored variant compares with its file on disk today."""

    game: str
    variant: str
    stored_hash: str | None
    """``None``: a game from before migration 0004 whose file could not be read then (loaded by name)."""
    file_hash: str | None
    """``None`` when the file cannot be loaded now (``problem`` says why)."""
    problem: str | None = None
    same_rules: bool | None = None
    """Whether the two agree on everything but how the map is drawn (``None``: no stored data to compare)."""

    @property
    def changed(self) -> bool:
        """Whether the file now plays differently: drawing keys alone (shapes, colours) do not count."""
        if self.stored_hash is None or self.file_hash is None or self.file_hash == self.stored_hash:
            return False
        return self.same_rules is not True

    @property
    def note(self) -> str | None:
        """One line for ``status``, or ``None`` when the file and the game's copy agree."""
        if self.stored_hash is None:
            return None
        if self.problem is not None:
            return (
                f"the variant file of {self.variant!r} cannot be loaded now ({self.problem.splitlines()[0]}); "
                "the game plays from its stored copy"
            )
        if self.changed:
            return (
                f"the variant file of {self.variant!r} has changed since this game began (game's copy "
                f"{self.stored_hash[:12]}, file {str(self.file_hash)[:12]}); the game plays its own copy until "
                f"`dippouch upgrade-variant {self.game}`"
            )
        return None


_POSITION_KEYS = (
    "variant",
    "options",
    "phase",
    "units",
    "dislodged",
    "supply_centers",
    "home_centers",
    "state",
    "orders",
)


def start_position(v: Variant, data: Any) -> Any:
    """Read a starting position in the adjudication contract's request shape (docs/coordinator.md).

    What is omitted comes from the variant's start, as ``dippouch adjudicate`` does: without
    ``home_centers`` each power keeps its home centres, without ``supply_centers`` the starting owners.
    """
    from dippouch.core.jsonio import JsonInputError, position_from_json

    if not isinstance(data, Mapping):
        raise GameError('a position is a JSON object like {"phase": "Spring 1901 Movement", "units": [...]}')
    for key in data:
        if key not in _POSITION_KEYS:
            close = difflib.get_close_matches(str(key), _POSITION_KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise GameError(f"position: unknown key {key!r}{hint} Keys: {', '.join(_POSITION_KEYS)}")
    named = data.get("variant")
    if named is not None and str(named).lower() != v.name.lower():
        raise GameError(
            f"position: it is a position of {named!r}, but the game plays {v.name!r} (use --variant {named})"
        )
    opts = data.get("options")
    if opts and dict(opts) != {k: val for k, val in v.options.items() if k in dict(opts)}:
        raise GameError(f"position: its options {dict(opts)} differ from the game's; pass them with -o KEY=VALUE")
    if data.get("orders"):
        raise GameError(
            'position: a starting position has no orders; remove "orders" (or start from a request\'s "next")'
        )
    try:
        return position_from_json(v, data)
    except JsonInputError as e:
        raise GameError(f"position: {e}") from None


@dataclass(frozen=True)
class Status:
    game: str
    variant: str
    state: str
    phase: str | None
    kind: str | None
    deadline: datetime | None
    paused_remaining: timedelta | None
    due: bool
    powers: list[PowerStatus]
    ending: Ending | None
    settings: Settings
    variant_note: str | None = None
    """Set when the variant file on disk no longer matches the game's stored copy (or cannot be loaded)."""
    due_why: str | None = None
    """Why the phase is due before its deadline: ``"ready"`` (every power that must act is ready) or
    ``"nobody"`` (nobody has anything to decide); ``None`` when due by the clock or not due."""
    game_variant: Variant | None = field(default=None, compare=False, repr=False)
    """The variant the game plays (its stored copy), to write places for reading."""


@dataclass(frozen=True)
class DuePhase:
    """An open phase that is, or may be, due: what a worker's scan finds (see :meth:`GameStore.due_phases`)."""

    phase_id: int
    game: str
    variant: str
    phase: str
    deadline: datetime | None
    past_deadline: bool
    """True: due by the clock. False: some power is ready, so everyone may be (checked under the lock)."""
    stamp: tuple[int, int]
    """(newest submission id, newest player id): readiness can only change when one of these does."""


class PhaseFailed(GameError):
    """Processing one phase failed with an error (rolled back): which phase, and why."""

    def __init__(self, phase_id: int, game: str, phase: str, error: BaseException) -> None:
        super().__init__(f"cannot process {game}: {phase}: {type(error).__name__}: {error}")
        self.phase_id = phase_id
        self.game = game
        self.phase = phase


class GameStore:
    """All games in one database (SQLite file by default; any SQLAlchemy URL, e.g. PostgreSQL)."""

    def __init__(self, url: str | None = None) -> None:
        self.engine = make_engine(url)
        try:
            upgrade(self.engine)
        except OperationalError as e:
            raise GameError(f"cannot open the game database {self.engine.url!r}: {e.orig}") from None
        self.session = sessionmaker(self.engine, expire_on_commit=False)
        self._positions: OrderedDict[int, tuple[Variant, Position]] = OrderedDict()

    def _position(self, v: Variant, ph: PhaseRow) -> Position:
        """The position a phase starts from, parsed once per phase (and variant): a phase's position never
        changes, and every submission and status reads it (parsing a standard position costs a millisecond).
        For reading only: callers must not change the Position."""
        if ph.id is None:  # not flushed yet
            return position_from_data(v, ph.position)
        hit = self._positions.get(ph.id)
        if hit is not None and hit[0] is v:
            return hit[1]
        pos = position_from_data(v, ph.position)
        self._positions[ph.id] = (v, pos)
        while len(self._positions) > 4096:
            self._positions.popitem(last=False)
        return pos

    def close(self) -> None:
        self.engine.dispose()

    def clock(self) -> datetime:
        """Now, by the database's clock: what decides whether a deadline has passed, whichever machine asks.

        PostgreSQL's ``clock_timestamp()`` (one clock for every web server and worker, so a machine whose
        clock is behind or ahead never processes early or late). SQLite has no server: its processes all
        run on one machine, and the local clock is that machine's clock.
        """
        with self.session() as s:
            return self._db_now(s)

    @staticmethod
    def _db_now(s: Session) -> datetime:
        if s.get_bind().dialect.name == "postgresql":
            moment: datetime = s.execute(sa.select(sa.func.clock_timestamp())).scalar_one()
            return as_utc(moment)
        return datetime.now(UTC)

    def reader(self) -> GameStore:
        """A second store on the same database for reads only (a busy web server's pages): on SQLite its
        transactions do not take the write lock, so readers neither wait for writers nor hold them up.
        Use it only for methods that do not write; the schema is already at head (this store made sure)."""
        from dippouch.store.db import make_engine

        other = GameStore.__new__(GameStore)
        other.engine = make_engine(str(self.engine.url.render_as_string(hide_password=False)), write_lock=False)
        other.session = sessionmaker(other.engine, expire_on_commit=False)
        other._positions = OrderedDict()
        return other

    # ----------------------------------------------------------------------------------------------
    # Lookup helpers

    def _game(self, s: Session, name: str, *, lock: bool = False, share: bool = False) -> GameRow:
        """The game's row; ``lock`` locks it alone (processing, votes, coordinator actions), ``share``
        together with other ``share`` holders (submissions), so both wait for a phase being processed."""
        # The variant's stored copy (kilobytes of JSON) is read only when the variant is not built already
        # (:meth:`_variant`): every submission and status reads this row.
        q = sa.select(GameRow).options(defer(GameRow.variant_data)).where(GameRow.name == name)
        if lock:
            q = q.with_for_update()
        elif share:
            q = q.with_for_update(read=True)
        g = s.scalars(q).first()
        if g is None:
            names = list(s.scalars(sa.select(GameRow.name)))
            close = difflib.get_close_matches(name, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else "."
            known = (
                f" Games: {', '.join(sorted(names))}"
                if names
                else " There are no games yet: create one with `dippouch new`."
            )
            raise GameError(f"no game {name!r}{hint}{known}")
        return g

    @staticmethod
    def _variant(g: GameRow) -> Variant:
        """The game's own variant: the copy stored at creation, or (older games without one) its file. Built
        once per stored copy and options (its hash names the copy), without reading the copy again."""
        hit = built_variant(g.variant_hash, g.options) if g.variant_hash else None
        if hit is not None:
            return hit
        if g.variant_data is None:
            return load_variant(g.variant, g.options)
        try:
            return variant_from_data(
                g.variant_data, g.options, source=f"{g.variant} (the copy stored with {g.name})", digest=g.variant_hash
            )
        except VariantError as e:
            raise GameError(
                f"the copy of variant {g.variant!r} stored with game {g.name!r} no longer loads: {e}; "
                f"`dippouch upgrade-variant {g.name}` switches the game to the variant file"
            ) from None

    @staticmethod
    def _settings(g: GameRow) -> Settings:
        return Settings.from_data(g.settings)

    @staticmethod
    def _active(s: Session, g: GameRow) -> list[PhaseRow]:
        q = sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status != "abandoned").order_by(PhaseRow.seq)
        return list(s.scalars(q))

    def _current(self, s: Session, g: GameRow, *, lock: bool = False) -> PhaseRow | None:
        q = sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status == "open")
        if lock:
            q = q.with_for_update()
        return s.scalars(q).first()

    def _require_current_for(self, s: Session, g: GameRow, v: Variant, phase: str | None) -> PhaseRow:
        """The open phase, which must be ``phase`` when one is named."""
        if phase is None:
            return self._require_current(s, g)
        try:
            wanted = v.calendar.name(v.calendar.parse(phase))
        except DippouchError as e:
            raise GameError(f"cannot read the phase {phase!r}: {e}") from None
        ph = self._current(s, g)
        if ph is not None and ph.name == wanted:
            return ph
        done = s.scalars(
            sa.select(PhaseRow)
            .where(PhaseRow.game_id == g.id, PhaseRow.branch == g.branch, PhaseRow.name == wanted)
            .order_by(PhaseRow.seq.desc())
        ).first()
        if ph is None:
            now_open = f"game {g.name!r} is over (roll back to reopen it)"
        else:
            when = f", deadline {ph.deadline:%Y-%m-%d %H:%M} UTC" if ph.deadline else " (paused)"
            now_open = f"the open phase is {ph.name}{when}; send orders for that phase"
        if done is not None and done.status == "processed":
            at = f" at {done.processed_at:%Y-%m-%d %H:%M:%S} UTC" if done.processed_at else ""
            raise GameError(
                f"{wanted} was processed{at}, before these orders arrived; they were not recorded. {now_open[0].upper()}{now_open[1:]}."
            )
        raise GameError(
            f"{wanted} is not open in game {g.name!r}; these orders were not recorded. {now_open[0].upper()}{now_open[1:]}."
        )

    def _require_current(self, s: Session, g: GameRow) -> PhaseRow:
        ph = self._current(s, g)
        if ph is None:
            ending = Ending.from_data(g.ending) if g.ending else None
            raise GameError(f"game {g.name!r} is over{': ' + ending.text if ending else ''} (roll back to reopen it)")
        return ph

    @staticmethod
    def _lock_power(s: Session, phase_id: int, power: str) -> None:
        """Hold the power's versions of the phase until this transaction ends: the next version number is
        read, and the arrival time stamped, by one submission of the power at a time.

        Submissions share the game's row lock (they do not hold each other up), so two versions of one power
        arriving at once would both read the same highest version and the second would hit the unique key.
        PostgreSQL: a transaction-scoped advisory lock on (phase, power): powers do not wait for each other,
        and it is released at commit or rollback. SQLite: the transaction's write lock (``BEGIN IMMEDIATE``)
        already lets one writer in at a time."""
        if s.get_bind().dialect.name != "postgresql":
            return
        key = zlib.crc32(power.encode("utf-8")) - 2**31  # PostgreSQL's int4 range
        s.execute(
            sa.text("SELECT pg_advisory_xact_lock(CAST(:phase AS integer), CAST(:power AS integer))"),
            {"phase": phase_id, "power": key},
        )

    @staticmethod
    def _event(s: Session, g: GameRow, now: datetime, kind: str, **detail: Any) -> None:
        s.add(EventRow(game_id=g.id, at=now, kind=kind, detail=detail))

    @staticmethod
    def _power(v: Variant, text: str) -> str:
        try:
            return v.power(text).name
        except KeyError as e:
            raise GameError(str(e.args[0])) from None

    # ----------------------------------------------------------------------------------------------
    # Games and players

    def create_game(
        self,
        name: str,
        variant: str,
        *,
        now: datetime,
        options: Mapping[str, Any] | None = None,
        settings: Settings | None = None,
        position: Mapping[str, Any] | None = None,
    ) -> str:
        """Create a game at the variant's start (or at ``position``, in the stored-position shape). The
        checks of a new game are those an imported one gets (:func:`dippouch.store.gamefile.check_new_game`)."""
        now = as_utc(now)
        v = load_variant(variant, options)
        name, settings = check_new_game(name, v, settings or Settings())
        start = start_position(v, position) if position is not None else v.start
        data = dict(v.data)
        with self.session() as s, s.begin():
            if s.scalars(sa.select(GameRow.id).where(GameRow.name == name)).first() is not None:
                raise GameError(f"a game named {name!r} already exists; choose another name")
            g = GameRow(
                name=name,
                variant=v.name,
                variant_data=data,
                variant_hash=content_hash(data),
                options=dict(v.options),
                settings=settings.to_data(),
                status="active",
                ending=None,
                branch=0,
                paused_remaining=None,
                created_at=now,
            )
            s.add(g)
            s.flush()
            self._open_phase(s, g, v, settings, start_data=position_to_data(v, start), seq=0, now=now)
            self._event(s, g, now, "created", variant=v.name, options=dict(v.options), variant_hash=g.variant_hash)
        return name

    def _open_phase(
        self,
        s: Session,
        g: GameRow,
        v: Variant,
        settings: Settings,
        *,
        start_data: dict[str, Any],
        seq: int,
        now: datetime,
    ) -> PhaseRow:
        pos = position_from_data(v, start_data)
        kind = v.calendar.kind(pos.phase)
        ph = PhaseRow(
            game_id=g.id,
            branch=g.branch,
            seq=seq,
            name=v.calendar.name(pos.phase),
            kind=kind.value,
            status="open",
            position=start_data,
            opened_at=now,
            deadline=None if g.status == "paused" else settings.deadline(kind, now),
        )
        if g.status == "paused":
            g.paused_remaining = settings.duration(kind).total_seconds()
        s.add(ph)
        s.flush()
        return ph

    def variant(self, name: str) -> Variant:
        """The variant game ``name`` plays: its stored copy (see :meth:`_variant`)."""
        with self.session() as s:
            return self._variant(self._game(s, name))

    def variant_drift(self, name: str) -> VariantDrift:
        """Compare the game's stored variant with its file as it is now."""
        with self.session() as s:
            g = self._game(s, name)
            stored, variant, options = g.variant_hash, g.variant, dict(g.options)
            stored_data = g.variant_data
        try:
            now = load_variant(variant, options)
        except DippouchError as e:
            return VariantDrift(name, variant, stored, None, str(e))
        # Rules are compared without the drawing keys: a redrawn or recoloured map changes no running game.
        same_rules = None if stored_data is None else play_hash(stored_data) == play_hash(dict(now.data))
        return VariantDrift(name, variant, stored, content_hash(dict(now.data)), same_rules=same_rules)

    def upgrade_variant(self, name: str, *, now: datetime, check_only: bool = False) -> tuple[VariantDrift, list[str]]:
        """Switch a game to its variant file as it is now, if the game's position still fits the new data.

        Returns the comparison as it was before (``changed`` false: nothing to do) and the problems found.

        Every unit, dislodged unit, owned and home centre of the current position (and every seated power)
        must exist on the new map: otherwise nothing changes and the problems are returned. The copy the
        game played until now is kept in the event log (``variant_upgraded``), so nothing stored is lost.
        """
        now = as_utc(now)
        drift = self.variant_drift(name)
        if drift.problem is not None:
            raise GameError(f"cannot upgrade {name!r}: {drift.problem}")
        if drift.stored_hash is not None and not drift.changed:
            return drift, []
        new = load_variant(drift.variant, self._options_of(name))
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            ph = self._current(s, g)
            if ph is not None:
                pos_data = ph.position
            else:
                last = self._active(s, g)[-1]
                pos_data = last.next_position or last.position
            problems = _position_fits(new, pos_data)
            for r in g.players:
                if r.replaced_at is None:
                    try:
                        new.power(r.power)
                    except KeyError as e:
                        problems.append(f"player {r.name}: {e.args[0]}")
            if problems or check_only:
                return drift, problems
            data = dict(new.data)
            old = {"hash": g.variant_hash, "data": g.variant_data}
            g.variant_data = data
            g.variant_hash = content_hash(data)
            self._event(
                s,
                g,
                now,
                "variant_upgraded",
                previous_hash=old["hash"],
                new_hash=g.variant_hash,
                previous_data=old["data"],
            )
        return drift, []

    def _options_of(self, name: str) -> dict[str, Any]:
        with self.session() as s:
            return dict(self._game(s, name).options)

    def games(self) -> list[tuple[str, str, str, str | None]]:
        """(name, variant, state, current phase) for every game."""
        with self.session() as s:
            out = []
            for g in s.scalars(sa.select(GameRow).order_by(GameRow.name)):
                ph = self._current(s, g)
                out.append((g.name, g.variant, g.status, ph.name if ph else None))
            return out

    def players(self, name: str) -> list[tuple[str, str | None, list[tuple[str, datetime, datetime | None]]]]:
        """(power, current player, full list of (player, from, until)) for every power."""
        with self.session() as s:
            g = self._game(s, name)
            v = self._variant(g)
            out = []
            for p in v.power_names:
                rows = [r for r in g.players if r.power == p]
                current = next((r.name for r in rows if r.replaced_at is None), None)
                out.append((p, current, [(r.name, r.assigned_at, r.replaced_at) for r in rows]))
            return out

    def assign(
        self, name: str, power: str, player: str, *, now: datetime, replace: bool = False, email: str | None = None
    ) -> str:
        """Give ``power`` to ``player``. ``replace`` hands it over from the current player (or from civil
        disorder), which is how a power in civil disorder comes back into the game."""
        now = as_utc(now)
        player = player.strip()
        if not player:
            raise GameError("a player needs a name")
        address = clean_address(email) if email is not None else None
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            v = self._variant(g)
            power = self._power(v, power)
            current = [r for r in g.players if r.power == power and r.replaced_at is None]
            if current and not replace:
                raise GameError(
                    f"{power} is already played by {current[0].name}; use `dippouch players replace` to hand it over"
                )
            if not current and replace:
                pass  # taking over an unassigned power (e.g. one left in civil disorder) is a replacement too
            for r in current:
                r.replaced_at = now
            s.add(PlayerRow(game_id=g.id, power=power, name=player, assigned_at=now, replaced_at=None, email=address))
            self._event(s, g, now, "replace" if replace else "assign", power=power, player=player)
        return power

    def set_email(self, name: str, power: str, email: str | None, *, now: datetime) -> str:
        """Give the current player of ``power`` an e-mail address (``None`` removes it)."""
        now = as_utc(now)
        address = clean_address(email) if email else None
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            power = self._power(self._variant(g), power)
            current = [r for r in g.players if r.power == power and r.replaced_at is None]
            if not current:
                raise GameError(f"nobody plays {power} in {g.name}; seat a player first (`dippouch players assign`)")
            current[0].email = address
            self._event(s, g, now, "email", power=power, player=current[0].name)
            return power

    def emails(self, name: str) -> dict[str, tuple[str, str | None]]:
        """Power -> (current player, e-mail address) for every seated power."""
        with self.session() as s:
            g = self._game(s, name)
            return {r.power: (r.name, r.email) for r in g.players if r.replaced_at is None}

    # ----------------------------------------------------------------------------------------------
    # Submissions and votes

    def submit(
        self,
        name: str,
        power: str,
        text: str,
        *,
        now: datetime | None,
        ready: bool = False,
        phase: str | None = None,
        source: str = "cli",
        recorded_at: datetime | None = None,
        label: str | None = None,
        reinstates: int | None = None,
        replace_with_nothing: bool = False,
    ) -> SubmitResult:
        """Record a submission (a new version), checked line by line; committed before returning.

        ``now`` is when it was *received*: that decides whether it is on time and, between versions, which
        came last (a letter received on the 5th and typed in on the 13th comes before an e-mail of the
        10th); ``None`` is the database's clock. ``recorded_at`` is when it was typed in, when that is later
        (post). Version lines in the text ("Version 2", "Version 2 stands";
        :func:`dippouch.game.read_version_lines`) or ``label`` and ``reinstates`` give the player's numbering
        and say which earlier version stands.

        ``phase`` names the phase the orders were written for (a web form, an e-mail subject): when that
        phase is no longer open (it was processed while the orders were on their way) the orders are
        refused with a message saying so, rather than recorded for a phase they were not written for.
        Without ``phase`` they go to whichever phase is open.

        The game's row is locked (shared with other submissions) before the open phase is read, so a
        phase being processed is either seen before processing starts (and this submission is used if on
        time) or after it has committed.

        A version with no accepted order is recorded but does not replace the earlier orders unless
        ``replace_with_nothing`` (or a line "no orders") says it does; ``ready`` is then refused too (see
        :func:`dippouch.game.submission_stands`). The result says which version now stands.
        """
        if source not in SOURCES:
            raise GameError(f"unknown source {source!r}; choose one of {', '.join(SOURCES)}")
        with self.session() as s, s.begin():
            g = self._game(s, name, share=True)
            v = self._variant(g)
            power = self._power(v, power)
            ph = self._require_current_for(s, g, v, phase)
            self._lock_power(s, ph.id, power)
            # The arrival time is read once the power's lock is held, so versions and times agree.
            now = self._db_now(s) if now is None else as_utc(now)
            _pause_point("submit:locked")
            pos = self._position(v, ph)
            if not may_submit(v, pos, power):
                raise GameError(f"{power} has nothing to order in {ph.name}")
            if recorded_at is not None and as_utc(recorded_at) < now:
                raise GameError(
                    f"received {now:%Y-%m-%d %H:%M} UTC is after it was typed in ({as_utc(recorded_at):%Y-%m-%d %H:%M}"
                    " UTC); check the --received time"
                )
            versions = read_version_lines(text)
            label = label if label is not None else versions.label
            wanted = reinstates if reinstates is not None else versions.reinstates
            lines = check_orders(v, pos, power, versions.text)
            # Only the rows the version rules need, by indexed lookups: a busy phase holds hundreds of one
            # power's versions, and loading them all (text and line checks) made each submission O(versions).
            mine = (SubmissionRow.phase_id == ph.id, SubmissionRow.power == power)
            target: SubmissionRow | None = None
            if wanted is not None:
                if lines:
                    raise GameError(
                        f"this submission says version {wanted} stands and also gives orders; send either the "
                        "orders (a new version) or the instruction, not both"
                    )
                target = _named_version_of(s, mine, wanted)
                if target is None:
                    earlier = s.scalars(
                        sa.select(SubmissionRow)
                        .options(load_only(SubmissionRow.version, SubmissionRow.label))
                        .where(*mine)
                        .order_by(SubmissionRow.version)
                    )
                    known = ", ".join(_version_name(r) for r in earlier) or "none yet"
                    raise GameError(f"{power} has no version {wanted} in {ph.name} to stand (versions: {known})")
                if target.reinstates is not None:
                    raise GameError(
                        f"version {target.version} of {power} is itself an instruction (version "
                        f"{target.reinstates} stands); name the version with the orders"
                    )
            version = (s.scalar(sa.select(sa.func.max(SubmissionRow.version)).where(*mine)) or 0) + 1
            if target is not None:
                # "Version 2 stands" counts as a submission that replaces (it names the orders that stand).
                stands = True
                named_lines = [LineCheck.from_data(d) for d in target.lines]
                refused = ready_refusal(named_lines, False) if ready else None
            else:
                stands = submission_stands(lines, replace_with_nothing)
                refused = ready_refusal(lines, replace_with_nothing) if ready else None
            row = SubmissionRow(
                phase_id=ph.id,
                power=power,
                version=version,
                submitted_at=now,
                text=text,
                lines=[line.to_data() for line in lines],
                ready=ready and refused is None,
                stands=stands,
                source=source,
                recorded_at=as_utc(recorded_at) if recorded_at is not None else None,
                label=label,
                reinstates=target.version if target is not None else None,
            )
            s.add(row)
            s.flush()
            late = ph.deadline is not None and now > ph.deadline
            standing = _standing_in_sql(s, ph.id, ph.deadline, power=power).get(power)
            standing_lines = [LineCheck.from_data(d) for d in standing.lines] if standing else []
            return SubmitResult(
                ph.name,
                power,
                version,
                lines,
                late,
                ready and refused is None,
                ph.deadline,
                label=label,
                reinstates=target.version if target is not None else None,
                standing=standing.version if standing is not None else None,
                notes=versions.notes,
                stands=stands,
                standing_orders=[ln.order for ln in standing_lines if ln.accepted and ln.order is not None],
                unordered=unordered(v, pos, power, standing_lines),
                ready_refused=refused,
                variant=g.variant,
                options=dict(g.options),
                game_variant=v,
                received=now,
            )

    def vote(self, name: str, power: str, draw: bool, *, now: datetime) -> Ending | None:
        """Record a draw vote; when every surviving power (not in civil disorder) says yes, the game ends."""
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            v = self._variant(g)
            settings = self._settings(g)
            power = self._power(v, power)
            ph = self._require_current(s, g)
            if draw and not (settings.draws and v.victory.get("draws", True)):
                raise GameError(f"draws are not allowed in game {g.name!r}")
            pos = position_from_data(v, ph.position)
            cd = self._civil_disorder(s, g, v)
            needs = draw_needs(v, pos, settings, {}, cd)
            if draw and not needs.possible:
                # A yes that cannot count would be taken for a vote that does (ten W3K powers voted and nothing
                # happened, with nothing said): refused with the rule's words, nothing recorded.
                raise GameError(f"no draw is possible now: {needs.why_not} Your vote was not recorded.")
            s.add(VoteRow(game_id=g.id, power=power, draw=draw, at=now))
            s.flush()
            ending = draw_reached(v, pos, settings, self._votes(s, g), cd)
            if ending is not None:
                self._finish(s, g, ph, ending, now)
            self._event(s, g, now, "vote", power=power, draw=draw)
            return ending

    def vote_history(self, name: str) -> list[tuple[str, bool, datetime]]:
        """Every draw vote of a game, oldest first: (power, yes, when). A secret ballot shows others a
        power's vote only as it stood when the phase it was cast in was processed."""
        with self.session() as s:
            g = self._game(s, name)
            rows = s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id))
            return [(r.power, r.draw, as_utc(r.at)) for r in rows]

    @staticmethod
    def _votes(s: Session, g: GameRow) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for r in s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id)):
            out[r.power] = r.draw
        return out

    def _finish(self, s: Session, g: GameRow, ph: PhaseRow, ending: Ending, now: datetime) -> None:
        """End the game at an open phase (a draw): the phase is closed as abandoned-by-ending."""
        g.status = "finished"
        g.ending = ending.to_data()
        ph.status = "processed"
        ph.processed_at = now
        ph.orders = {}
        ph.results = []
        ph.next_position = None
        ph.missed = []

    # ----------------------------------------------------------------------------------------------
    # Civil disorder and readiness

    def _civil_disorder(self, s: Session, g: GameRow, v: Variant) -> set[str]:
        """Powers that missed ``missed_limit`` movement phases in a row since their current player took over."""
        limit = self._settings(g).missed_limit
        if limit <= 0:
            return set()
        return {p for p, n in self._streaks(s, g, v).items() if n >= limit}

    def _streaks(self, s: Session, g: GameRow, v: Variant) -> dict[str, int]:
        # Only the columns the streak needs: every status (a game page after each change) reads this, and
        # a long game's positions, orders and results are most of its phases' bytes.
        q = (
            sa.select(PhaseRow)
            .options(load_only(PhaseRow.seq, PhaseRow.processed_at, PhaseRow.missed))
            .where(
                PhaseRow.game_id == g.id,
                PhaseRow.status == "processed",
                PhaseRow.kind == PhaseKind.MOVEMENT.value,
            )
            .order_by(PhaseRow.seq)
        )
        phases = list(s.scalars(q))
        out = {}
        for power in v.power_names:
            since = max((r.assigned_at for r in g.players if r.power == power and r.replaced_at is None), default=None)
            relevant = [p for p in phases if since is None or (p.processed_at is not None and p.processed_at > since)]
            out[power] = civil_disorder_streak(power in (p.missed or []) for p in relevant)
        return out

    @staticmethod
    def _latest(ph: PhaseRow, *, on_time_only: bool) -> dict[str, SubmissionRow]:
        """The submission that stands for each power of the phase (:func:`_standing`). Unless the phase's
        versions are loaded already, asked of the database, which answers a row or two a power instead of
        every version (a game page's status after each submission read hundreds)."""
        s = object_session(ph)
        if s is None or "submissions" not in sa.inspect(ph).unloaded:
            return _standing(ph.submissions, ph.deadline, on_time_only=on_time_only)
        return _standing_in_sql(s, ph.id, ph.deadline if on_time_only else None)

    def _due(
        self, s: Session, g: GameRow, v: Variant, ph: PhaseRow, now: datetime, *, cd: set[str] | None = None
    ) -> bool:
        """``cd``: the powers in civil disorder, when the caller has them already."""
        if g.status != "active":
            return False
        if _review().holds(s, ph, now):
            return False  # photographs or held mail wait for the coordinator (store/review.py)
        if ph.deadline is not None and now >= ph.deadline:
            return True
        pos = self._position(v, ph)
        cd = self._civil_disorder(s, g, v) if cd is None else cd
        latest = self._latest(ph, on_time_only=True)
        must = powers_to_act(v, pos)
        if not must:
            return True  # nobody has anything to decide
        voters = [p for p in must if p not in cd]
        # Powers in civil disorder do not hold the game up, but they alone never make it run early.
        return bool(voters) and all(p in latest and latest[p].ready for p in voters)

    def status(self, name: str, *, now: datetime, drift: bool = True, due: bool = True) -> Status:
        """The game's state now; ``drift=False`` leaves out the comparison of the game's copy of its variant
        with the variant's file (``variant_note``), which reads and builds the file: a web page rebuilt after
        every phase does not show it. ``due=False`` leaves out whether the phase is due now (``due`` is
        then False), which costs two more queries: the game page does not show it."""
        st = self._status(name, now=now, due=due)
        if not drift:
            return st
        # After the status's own transaction: the comparison loads the file and opens a session of its own.
        return dataclasses.replace(st, variant_note=self.variant_drift(name).note)

    def _status(self, name: str, *, now: datetime, due: bool = True) -> Status:
        now = as_utc(now)
        with self.session() as s:
            g = self._game(s, name)
            v = self._variant(g)
            settings = self._settings(g)
            ph = self._current(s, g)
            ending = Ending.from_data(g.ending) if g.ending else None
            if ph is None:
                last = self._active(s, g)[-1]
                pos_data = last.next_position or last.position
                pos = position_from_data(v, pos_data)
                must: list[str] = []
                latest: dict[str, SubmissionRow] = {}
            else:
                pos = self._position(v, ph)
                must = powers_to_act(v, pos)
                latest = self._latest(ph, on_time_only=False)
            streaks = self._streaks(s, g, v)
            cd = {p for p, n in streaks.items() if settings.missed_limit > 0 and n >= settings.missed_limit}
            votes = self._votes(s, g)
            players = {r.power: r.name for r in g.players if r.replaced_at is None}
            rows = []
            for p in v.power_names:
                sub = latest.get(p)
                lines = [LineCheck.from_data(d) for d in sub.lines] if sub else []
                borrowed, left = self._orders_shape(v, pos, p, lines) if sub and ph is not None else (0, ())
                rows.append(
                    PowerStatus(
                        power=p,
                        player=players.get(p),
                        must_act=p in must,
                        version=sub.version if sub else None,
                        accepted=sum(1 for ln in lines if ln.accepted and ln.order is not None),
                        rejected=sum(1 for ln in lines if not ln.accepted),
                        ready=bool(sub and sub.ready),
                        late=bool(
                            sub and ph is not None and ph.deadline is not None and sub.submitted_at > ph.deadline
                        ),
                        civil_disorder=p in cd,
                        missed_in_a_row=streaks.get(p, 0),
                        units=len(pos.units_of(p)),
                        centres=len(pos.centres_of(p)),
                        draw_vote=votes.get(p, False),
                        borrowed=borrowed,
                        unordered=left,
                    )
                )
            due = bool(ph and due and self._due(s, g, v, ph, now, cd=cd))
            due_why = None
            if due and ph is not None and ph.deadline is not None and now < ph.deadline:
                due_why = "ready" if must else "nobody"
            return Status(
                game=g.name,
                variant=g.variant,
                state=g.status,
                phase=ph.name if ph else None,
                kind=ph.kind if ph else None,
                deadline=ph.deadline if ph else None,
                paused_remaining=timedelta(seconds=g.paused_remaining) if g.paused_remaining is not None else None,
                due=due,
                powers=rows,
                ending=ending,
                settings=settings,
                due_why=due_why,
                game_variant=v,
            )

    @staticmethod
    def _orders_shape(v: Variant, pos: Position, power: str, lines: Sequence[LineCheck]) -> tuple[int, tuple[str, ...]]:
        """(orders for other powers' units, own units left without an order) of a standing submission."""
        from dippouch.core.notation import parse_order

        kind = v.calendar.kind(pos.phase)
        borrowed = 0
        if kind == PhaseKind.MOVEMENT:
            for ln in lines:
                if ln.accepted and ln.order is not None:
                    loc = parse_order(v, ln.order, phase_kind=kind).unit_loc
                    unit = pos.units.get(v.map.province_of(loc)) if loc is not None else None
                    if unit is not None and unit.power != power:
                        borrowed += 1
        left = tuple(u for units, _ in unordered(v, pos, power, lines) for u in units)
        return borrowed, left

    # ----------------------------------------------------------------------------------------------
    # Processing

    def process(self, name: str, *, now: datetime, force: bool = False, limit: int = 1000) -> list[str]:
        """Process every phase that is due (deadline passed, or everyone who must act is ready).

        ``force`` processes the current phase even if it is not due (the coordinator's call). Returns the
        names of the phases processed, in order. Whether a phase is due is checked again under the game's
        lock, so a deadline extended meanwhile is respected.
        """
        now = as_utc(now)
        done: list[str] = []
        idle = 0
        for _ in range(limit):
            with self.session() as s:
                g = self._game(s, name)
                if g.status == "paused" and force and not done:
                    raise GameError(f"game {name!r} is paused; resume it before processing")
                ph = self._current(s, g)
                if ph is None:
                    if not done and force:
                        self._require_current(s, g)
                    break
                v = self._variant(g)
                forced = force and not done
                if not forced and not self._due(s, g, v, ph, now):
                    break
                if not forced and (ph.deadline is None or now < ph.deadline):
                    # Due early because nobody has anything to decide (or everyone is ready). A board where
                    # nobody can ever act again would otherwise run phase after phase to the end of time:
                    # a few such phases in a row are normal (an empty retreat, an empty Winter), more wait.
                    if not powers_to_act(v, self._position(v, ph)):
                        idle += 1
                        if idle > IDLE_PHASES:
                            break
                    else:
                        idle = 0
                phase_id, phase_name = ph.id, ph.name
            if self.process_phase(phase_id, now=now, only_if_due=not forced):
                done.append(phase_name)
            else:
                break
        return done

    def due_phases(
        self, *, now: datetime | None = None, limit: int = 100, past: bool = True, ready: bool = True
    ) -> list[DuePhase]:
        """Open phases of active games that are due by the clock (``past``), oldest deadline first, then
        (``ready``) phases in which some power has said it is ready (candidates for "everyone is ready";
        only :meth:`is_due` or processing with ``only_if_due`` decides). ``now=None``: the database's clock.

        One indexed query each, however many games there are; nothing is locked.
        """
        with self.session() as s:
            now = self._db_now(s) if now is None else as_utc(now)
            newest_sub = (
                sa.select(sa.func.coalesce(sa.func.max(SubmissionRow.id), 0))
                .where(SubmissionRow.phase_id == PhaseRow.id)
                .scalar_subquery()
            )
            newest_player = (
                sa.select(sa.func.coalesce(sa.func.max(PlayerRow.id), 0))
                .where(PlayerRow.game_id == GameRow.id)
                .scalar_subquery()
            )
            cols = (
                PhaseRow.id,
                GameRow.name,
                GameRow.variant,
                PhaseRow.name,
                PhaseRow.deadline,
                newest_sub,
                newest_player,
            )
            base = sa.select(*cols).join(GameRow, GameRow.id == PhaseRow.game_id)
            base = base.where(PhaseRow.status == "open", GameRow.status == "active")
            held = _review().held_phase_ids(s, now)
            if held:
                base = base.where(PhaseRow.id.not_in(held))
            overdue = (
                s.execute(
                    base.where(PhaseRow.deadline <= now).order_by(PhaseRow.deadline, PhaseRow.id).limit(limit)
                ).all()
                if past
                else []
            )
            ready_sub = sa.exists().where(
                SubmissionRow.phase_id == PhaseRow.id,
                SubmissionRow.ready.is_(True),
                SubmissionRow.submitted_at <= PhaseRow.deadline,
            )
            early = (
                s.execute(
                    base.where(PhaseRow.deadline > now, ready_sub).order_by(PhaseRow.deadline, PhaseRow.id).limit(limit)
                ).all()
                if ready
                else []
            )
            return [
                DuePhase(r[0], r[1], r[2], r[3], r[4], past_deadline=flag, stamp=(int(r[5]), int(r[6])))
                for rows, flag in ((overdue, True), (early, False))
                for r in rows
            ]

    def due_count(self, *, now: datetime | None = None) -> int:
        """How many open phases of active games are past their deadline: the workers' queue depth."""
        with self.session() as s:
            now = self._db_now(s) if now is None else as_utc(now)
            held = _review().held_phase_ids(s, now)
            q = (
                sa.select(sa.func.count())
                .select_from(PhaseRow)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(PhaseRow.status == "open", GameRow.status == "active", PhaseRow.deadline <= now)
                .where(PhaseRow.id.not_in(held) if held else sa.true())
            )
            return int(s.execute(q).scalar_one())

    def is_due(self, phase_id: int, *, now: datetime | None = None) -> bool:
        """Whether this phase is open and due (deadline passed, or everyone who must act is ready)."""
        with self.session() as s:
            now = self._db_now(s) if now is None else as_utc(now)
            ph = s.get(PhaseRow, phase_id)
            if ph is None or ph.status != "open":
                return False
            g = s.get(GameRow, ph.game_id)
            assert g is not None
            return self._due(s, g, self._variant(g), ph, now)

    def process_phase(
        self, phase_id: int, *, now: datetime | None = None, only_if_due: bool = False, claim: bool = False
    ) -> bool:
        """Adjudicate one open phase and open the next, in one transaction. True if this call processed it.

        Locks the game's row, then the phase's (every writer locks the game first, so no two wait for
        each other in a circle), and checks under those locks that the phase is still open and, with
        ``only_if_due``, due. ``now=None`` reads the database's clock once the locks are held.

        ``claim`` is for deadline workers: the game's row is locked with ``SKIP LOCKED`` (PostgreSQL), so
        a game another process is processing (or writing to) is skipped at once instead of waited for.
        """
        try:
            with self.session() as s, s.begin():
                game_id = s.scalar(sa.select(PhaseRow.game_id).where(PhaseRow.id == phase_id))
                if game_id is None:
                    return False
                q = sa.select(GameRow).where(GameRow.id == game_id).execution_options(populate_existing=True)
                g = s.scalars(q.with_for_update(skip_locked=claim)).first()
                if g is None:
                    return False  # claimed by another process (only with ``claim``)
                return self._process_locked(s, g, phase_id, now, only_if_due=only_if_due)
        except IntegrityError:
            # Another process wrote the next phase first: the phase has been processed, which is what we wanted.
            return False

    def process_next_due(self, *, now: datetime | None = None, skip: Sequence[int] = ()) -> DuePhase | None:
        """Claim the open phase with the oldest deadline that has passed and is not in another process's
        hands, and process it, in one transaction; the phase processed, or ``None`` if there was none.

        The claim is one query, ``SELECT ... ORDER BY deadline LIMIT 1 FOR UPDATE OF games SKIP LOCKED``
        on PostgreSQL: several workers calling this at once each get a different game, with no waiting and
        no wasted attempts, and a worker that dies mid-phase releases its claim with its transaction.
        (SQLite: the transaction's write lock lets one process in at a time.) ``now=None``: the database's
        clock, read in the query itself. ``skip``: phase ids to leave alone (ones that failed just now).

        A phase that cannot be processed (a game whose variant no longer loads, a bug) raises
        :class:`PhaseFailed` naming it, so the caller can skip it and go on with the others.
        """
        while True:
            try:
                with self.session() as s, s.begin():
                    pg = s.get_bind().dialect.name == "postgresql"
                    at = (sa.func.clock_timestamp() if pg else self._db_now(s)) if now is None else as_utc(now)
                    held = _review().held_phase_ids(s, self._db_now(s) if now is None else as_utc(now))
                    skip = [*skip, *held]
                    q = (
                        sa.select(
                            PhaseRow.id, GameRow.id, GameRow.name, GameRow.variant, PhaseRow.name, PhaseRow.deadline
                        )
                        .join(GameRow, GameRow.id == PhaseRow.game_id)
                        .where(PhaseRow.status == "open", GameRow.status == "active", PhaseRow.deadline <= at)
                        .where(PhaseRow.id.not_in(list(skip)) if skip else sa.true())
                        .order_by(PhaseRow.deadline, PhaseRow.id)
                        .limit(1)
                        .with_for_update(of=GameRow, skip_locked=True)
                    )
                    row = s.execute(q).first()
                    if row is None:
                        return None
                    phase_id, game_id, game, variant, phase, deadline = row
                    g = s.get(GameRow, game_id, populate_existing=True)  # locked by the query above
                    assert g is not None
                    try:
                        ok = self._process_locked(s, g, phase_id, now, only_if_due=True)
                    except (sa.exc.SQLAlchemyError, PhaseFailed):
                        raise
                    except Exception as e:  # rolled back; the caller skips this phase and goes on
                        raise PhaseFailed(phase_id, game, phase, e) from e
                    if ok:
                        return DuePhase(phase_id, game, variant, phase, deadline, past_deadline=True, stamp=(0, 0))
                # Lost a race: the phase was processed between the query's snapshot and its lock. Next one.
            except IntegrityError:
                continue

    def _process_locked(
        self, s: Session, g: GameRow, phase_id: int, now: datetime | None, *, only_if_due: bool
    ) -> bool:
        """Process the phase of a game whose row this transaction has locked (see :meth:`process_phase`)."""
        from dippouch.core.adjudicator import adjudicate
        from dippouch.core.notation import OrderParseError, format_order, parse_order

        ph = s.get(PhaseRow, phase_id, with_for_update=True, populate_existing=True)
        if ph is None or ph.status != "open" or ph.game_id != g.id:
            return False
        now = self._db_now(s) if now is None else as_utc(now)
        v = self._variant(g)
        if only_if_due and not self._due(s, g, v, ph, now):
            return False
        _pause_point("process:locked")
        settings = self._settings(g)
        pos = position_from_data(v, ph.position)
        kind = v.calendar.kind(pos.phase)
        latest = self._latest(ph, on_time_only=True)
        orders: dict[str, list[Any]] = {}
        used: dict[str, list[str]] = {}
        for power, sub in sorted(latest.items()):
            accepted = [LineCheck.from_data(d) for d in sub.lines]
            parsed = []
            for line in accepted:
                if not line.accepted or line.order is None:
                    continue
                try:
                    parsed.append(parse_order(v, line.order, phase_kind=kind))
                except OrderParseError:  # pragma: no cover - a canonical order always reads back
                    continue
            orders[power] = parsed
            used[power] = [format_order(v, o, phase_kind=kind) for o in parsed]
        must = powers_to_act(v, pos)
        # A power with a standing submission on time has taken part ("no orders" counts; chat does not).
        sent_photos = _review().photo_powers(s, ph)  # taken part, whatever the coordinator made of them
        missed = [p for p in must if p not in latest and p not in sent_photos]
        resolution = adjudicate(v, pos, orders)
        results = [_result_to_data(v, r, kind) for r in resolution.results]
        nxt = resolution.next
        ph.status = "processed"
        ph.processed_at = now
        ph.orders = used
        ph.results = results
        ph.next_position = position_to_data(v, nxt)
        ph.missed = missed
        s.flush()
        _crash_point("process:after-results")
        ending = game_end(v, nxt)
        if ending is not None:
            g.status = "finished"
            g.ending = ending.to_data()
        else:
            self._open_phase(s, g, v, settings, start_data=ph.next_position, seq=ph.seq + 1, now=now)
        self._event(s, g, now, "processed", phase=ph.name, seq=ph.seq, branch=ph.branch)
        s.flush()
        _crash_point("process:before-commit")
        _pause_point("process:before-commit")
        return True

    # ----------------------------------------------------------------------------------------------
    # Deadlines

    def extend(self, name: str, by: timedelta, *, now: datetime) -> datetime | timedelta:
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            ph = self._require_current(s, g)
            if g.status == "paused":
                g.paused_remaining = (g.paused_remaining or 0) + by.total_seconds()
                self._event(s, g, now, "extend", phase=ph.name, by=by.total_seconds())
                return timedelta(seconds=g.paused_remaining)
            assert ph.deadline is not None
            ph.deadline = ph.deadline + by
            self._event(s, g, now, "extend", phase=ph.name, by=by.total_seconds(), deadline=ph.deadline.isoformat())
            return ph.deadline

    def set_deadlines(self, name: str, deadlines: Mapping[str, str], *, now: datetime) -> Settings:
        """Change the time each kind of phase gets, for phases opened from now on (the running deadline stays)."""
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            old = self._settings(g)
            new = Settings.from_data({**old.to_data(), "deadlines": {**old.deadlines, **dict(deadlines)}})
            g.settings = new.to_data()
            self._event(s, g, now, "deadlines", deadlines=dict(new.deadlines))
            return new

    def pause(self, name: str, *, now: datetime) -> timedelta:
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            ph = self._require_current(s, g)
            if g.status == "paused":
                raise GameError(f"game {name!r} is already paused")
            assert ph.deadline is not None
            remaining = max(ph.deadline - now, timedelta(0))
            g.status = "paused"
            g.paused_remaining = remaining.total_seconds()
            ph.deadline = None
            self._event(s, g, now, "pause", phase=ph.name, remaining=remaining.total_seconds())
            return remaining

    def resume(self, name: str, *, now: datetime) -> datetime:
        """Restart the clock with the time that was left, rounded up to the game's time of day."""
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            ph = self._require_current(s, g)
            if g.status != "paused":
                raise GameError(f"game {name!r} is not paused")
            settings = self._settings(g)
            ph.deadline = settings.round_up(now + timedelta(seconds=g.paused_remaining or 0))
            g.status = "active"
            g.paused_remaining = None
            self._event(s, g, now, "resume", phase=ph.name, deadline=ph.deadline.isoformat())
            return ph.deadline

    # ----------------------------------------------------------------------------------------------
    # History, rollback, reports

    def history(self, name: str) -> list[PhaseRow]:
        """Every phase ever opened, abandoned ones included, in the order they were opened."""
        with self.session() as s:
            g = self._game(s, name)
            rows = list(s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id).order_by(PhaseRow.id)))
            for r in rows:
                _ = r.submissions
            return rows

    def _find_phase(
        self, s: Session, g: GameRow, v: Variant, phase: str | None, phase_id: int | None, *, open_ok: bool = False
    ) -> PhaseRow:
        """The phase named (or with ``phase_id``); by default the latest processed one, or with ``open_ok``
        the open phase of a game that has processed none yet."""
        if phase_id is not None:
            # An id no database column can hold is simply not there (SQLite would raise OverflowError).
            ph = s.get(PhaseRow, phase_id) if 0 < phase_id < 2**63 else None
            if ph is None or ph.game_id != g.id:
                raise GameError(f"game {g.name!r} has no phase with id {phase_id} (see `dippouch history`)")
            return ph
        active = self._active(s, g)
        if phase is None:
            processed = [p for p in active if p.status == "processed" and p.next_position is not None]
            if not processed and open_ok and active:
                return active[-1]
            if not processed:
                raise GameError(f"game {g.name!r} has no processed phase yet")
            return processed[-1]
        try:
            wanted = v.calendar.name(v.calendar.parse(phase))
        except DippouchError as e:
            raise GameError(str(e)) from None
        for p in active:
            if p.name == wanted:
                return p
        names = ", ".join(p.name for p in active)
        raise GameError(f"game {g.name!r} has no phase {wanted!r} in its current line of play; phases: {names}")

    def phase_record(
        self,
        name: str,
        phase: str | None = None,
        phase_id: int | None = None,
        *,
        sealed_at: datetime | None = None,
        open_ok: bool = False,
        submissions: bool = True,
    ) -> dict[str, Any]:
        """Everything about one phase as plain data: position, submissions (unless not ``submissions``: then
        an empty list), orders used, results, next.

        With ``sealed_at`` (the coordinator's views pass the time), a phase still open before its deadline
        is *sealed*: each submission shows who sent which version and when, never its text or lines
        (``"sealed": true``). W3K: "the Coordinator will not be able to review submissions prior to the
        deadline".
        """
        with self.session() as s:
            g = self._game(s, name)
            v = self._variant(g)
            ph = self._find_phase(s, g, v, phase, phase_id, open_ok=open_ok)
            nxt = s.scalars(
                sa.select(PhaseRow).where(
                    PhaseRow.game_id == g.id, PhaseRow.branch == ph.branch, PhaseRow.seq == ph.seq + 1
                )
            ).first()
            rec = phase_record_of(
                g.name,
                ph,
                nxt,
                settings=g.settings,
                ending=g.ending,
                submissions=submissions,
                variant=g.variant,
                options=g.options,
            )
            sealed = sealed_at is not None and is_sealed(ph.status, ph.deadline, sealed_at)
            if sealed_at is not None and not sealed and ph.status == "abandoned" and ph.processed_at is None:
                # Set aside unprocessed (the open phase rolled back onto itself): its orders were carried into
                # the open phase, so they stay sealed as long as that one is.
                op = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status == "open")).first()
                sealed = op is not None and is_sealed(op.status, op.deadline, sealed_at)
            if sealed:
                rec["submissions"] = [seal_submission(sub) for sub in rec["submissions"]]
                rec["sealed"] = True
            return rec

    def report(self, name: str, phase: str | None = None, phase_id: int | None = None, *, full: bool = True) -> str:
        """A phase's report (:func:`dippouch.report.phase_report`): full names, or abbreviations if not ``full``."""
        from dippouch.report import phase_report

        # With the submissions: a report names the lines a power sent that were not accepted (never the others).
        rec = self.phase_record(name, phase, phase_id)
        return phase_report(self.variant(name), rec, full=full)

    def replay(self, name: str, phase: str | None = None, phase_id: int | None = None) -> tuple[bool, list[str]]:
        """Adjudicate a processed phase again from its stored position and orders; compare with the record."""
        from dippouch.core.adjudicator import adjudicate
        from dippouch.core.notation import parse_order

        rec = self.phase_record(name, phase, phase_id)
        if rec["status"] != "processed" or rec["next_position"] is None:
            raise GameError(f"{rec['name']} has not been processed; there is nothing to replay")
        v = self.variant(name)
        pos = position_from_data(v, rec["position"])
        kind = v.calendar.kind(pos.phase)
        orders = {p: [parse_order(v, t, phase_kind=kind) for t in ts] for p, ts in rec["orders"].items()}
        res = adjudicate(v, pos, orders)
        diffs = []
        again = [_result_to_data(v, r, kind) for r in res.results]
        if again != rec["results"]:
            diffs.append("results differ")
        if position_to_data(v, res.next) != rec["next_position"]:
            diffs.append("next position differs")
        return not diffs, diffs

    def rollback(self, name: str, phase: str, *, now: datetime) -> tuple[str, list[Carried]]:
        """Reopen ``phase`` with its original position; the phases after it stay in history as abandoned.

        Each power's standing submission of the phase is carried into the reopened phase as it stood (its
        text, time and verdicts, checked again; not ready, since the clock starts again), so nothing sent
        for the phase is lost; a version that arrived after the old deadline is carried too (it is the
        power's latest word, and the phase is open again). Returns the phase's name and what was carried.
        """
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            v = self._variant(g)
            target = self._find_phase(s, g, v, phase, None)
            carried_subs = sorted(self._latest(target, on_time_only=False).values(), key=lambda r: r.power)
            old_deadline = target.deadline
            for p in self._active(s, g):
                if p.seq >= target.seq:
                    p.status = "abandoned"
            g.branch += 1
            # Draw votes were cast about the line of play being undone: they lapse.
            for power, yes in self._votes(s, g).items():
                if yes:
                    s.add(VoteRow(game_id=g.id, power=power, draw=False, at=now))
            if g.status == "finished":
                g.status = "active"
            g.ending = None
            s.flush()
            reopened = self._open_phase(
                s, g, v, self._settings(g), start_data=dict(target.position), seq=target.seq, now=now
            )
            pos = position_from_data(v, reopened.position)
            carried: list[Carried] = []
            for sub in carried_subs:
                lines = check_orders(v, pos, sub.power, read_version_lines(sub.text).text)
                stands = submission_stands(lines, replace_with_nothing=True)
                s.add(
                    SubmissionRow(
                        phase_id=reopened.id,
                        power=sub.power,
                        version=1,
                        submitted_at=sub.submitted_at,
                        text=sub.text,
                        lines=[line.to_data() for line in lines],
                        ready=False,
                        stands=stands,
                        carried_from=sub.id,
                        source=sub.source,
                        recorded_at=sub.recorded_at,
                        label=sub.label,
                    )
                )
                late = old_deadline is not None and sub.submitted_at > old_deadline
                count = sum(1 for ln in lines if ln.accepted and ln.order is not None)
                carried.append(Carried(sub.power, sub.version, sub.submitted_at, count, late))
            self._event(
                s,
                g,
                now,
                "rollback",
                phase=target.name,
                branch=g.branch,
                carried={c.power: c.version for c in carried},
            )
            return target.name, carried

    # ----------------------------------------------------------------------------------------------
    # Game files

    def game_file(
        self, name: str, *, view: str, now: datetime, who: str | None = None, reason: str | None = None
    ) -> dict[str, Any]:
        """The game file as each reader may have it; every front end's export comes from here.

        ``public``: no submission and no player's e-mail address (anyone who may see the game gets it).
        ``coordinator``: everything, but the open phase's submissions sealed until its deadline (who sent
        which version and when, not what). ``unsealed``: everything, to move a running game; while the
        open phase is sealed this opens the seal, which is recorded in the game's event log (``who``, when,
        ``reason``: required) for the players to see, in the same transaction as the file is read.
        """
        now = as_utc(now)
        if view == "public":
            data = self.export_game(name)
            for r in data["players"]:
                r.pop("email", None)
            data.pop("mail", None)  # addresses, tokens, orders in photographs: the coordinator's only
            for ph in data["phases"]:
                ph["submissions"] = []
            data["sealed"] = "submissions and players' addresses are left out; the coordinator's export has them"
            return data
        if view == "coordinator":
            data = self.export_game(name)
            from dippouch.store.mailbox import seal_mail_record  # mail tables only where a file is made

            open_sealed = any(is_sealed(str(p["status"]), _dt(p.get("deadline")), now) for p in data["phases"])
            seal_mail_record(
                data, {i for i, p in enumerate(data["phases"]) if open_sealed and p["status"] != "processed"}
            )
            if seal_export(data, now):
                data["sealed"] = (
                    "the open phase's submissions are sealed until its deadline; an unsealed export (with a "
                    "reason, shown to the players) has them"
                )
            return data
        if view != "unsealed":
            raise GameError(f"unknown view of a game file {view!r}; choose public, coordinator or unsealed")
        self.record_unsealing(name, who=who or "the coordinator", reason=reason, now=now, what="unsealed export")
        return self.export_game(name)

    def record_unsealing(
        self,
        name: str,
        *,
        who: str,
        reason: str | None,
        now: datetime,
        what: str,
        power: str | None = None,
        seated_only: bool = False,
    ) -> bool:
        """Record in the game's event log that ``who`` opened the sealed orders of the open phase (``what``:
        an unsealed export, a new key for ``power``'s player), with their ``reason``, if the phase is sealed
        now; True if it was (and is now recorded). Without a reason, nothing is opened: a clear error.

        ``seated_only``: only when ``power`` has a player now (a key for an empty seat reads nobody's orders).
        The players see these records on the game page (:meth:`unsealings`)."""
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name, lock=True)
            ph = self._current(s, g)
            if ph is None or not is_sealed(ph.status, ph.deadline, now):
                return False
            if power is not None:
                power = self._power(self._variant(g), power)
                if seated_only and not any(r.power == power and r.replaced_at is None for r in g.players):
                    return False
            text = check_reason(reason, what)
            self._event(s, g, now, "unsealed", phase=ph.name, who=str(who)[:200], reason=text, what=what, power=power)
            return True

    def unsealings(self, name: str) -> list[dict[str, Any]]:
        """Every time the seal was opened (:meth:`record_unsealing`), oldest first: at, who, what, reason."""
        with self.session() as s:
            g = self._game(s, name)
            rows = s.scalars(
                sa.select(EventRow).where(EventRow.game_id == g.id, EventRow.kind == "unsealed").order_by(EventRow.id)
            )
            return [{"at": r.at, **r.detail} for r in rows]

    def export_game(self, name: str) -> dict[str, Any]:
        """The whole game as JSON-ready data: settings, players, every phase with its submissions, votes, log,
        and its mail record (store/mailbox.py)."""
        from dippouch.store.mailbox import export_mail_record  # mail tables only where a file is made

        with self.session() as s:
            g = self._game(s, name)
            phases = list(s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id).order_by(PhaseRow.id)))
            votes = s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id))
            events = list(s.scalars(sa.select(EventRow).where(EventRow.game_id == g.id).order_by(EventRow.id)))
            return {
                "format": GAME_FILE_FORMAT,
                "version": GAME_FILE_VERSION,
                "game": {
                    "name": g.name,
                    "variant": g.variant,
                    "variant_data": g.variant_data,
                    "variant_hash": g.variant_hash,
                    "options": g.options,
                    "settings": g.settings,
                    "status": g.status,
                    "ending": g.ending,
                    "branch": g.branch,
                    "paused_remaining": g.paused_remaining,
                    "created_at": g.created_at.isoformat(),
                },
                "players": [
                    {
                        "power": r.power,
                        "name": r.name,
                        "assigned_at": r.assigned_at.isoformat(),
                        "replaced_at": _iso(r.replaced_at),
                        "email": r.email,
                    }
                    for r in g.players
                ],
                "phases": [_phase_to_data(p) for p in phases],
                "votes": [{"power": r.power, "draw": r.draw, "at": r.at.isoformat()} for r in votes],
                "events": [{"at": r.at.isoformat(), "kind": r.kind, "detail": r.detail} for r in events],
                "mail": export_mail_record(s, g.id, [p.id for p in phases], [r.id for r in events]),
            }

    def import_game(self, data: Mapping[str, Any], *, name: str | None = None) -> str:
        """Recreate a game from :meth:`export_game`'s data (under ``name`` if given)."""
        from dippouch.store.mailbox import import_mail_record  # mail tables only where a file is read

        if not isinstance(data, Mapping) or data.get("format") != GAME_FILE_FORMAT:
            raise GameError(f'not a dippouch game file (expected "format": "{GAME_FILE_FORMAT}")')
        version = data.get("version", GAME_FILE_VERSION)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise GameError(f"game file: version {version!r} is not a game file version (this dippouch writes 1)"[:200])
        if version > GAME_FILE_VERSION:
            raise GameError(f"game file version {version} is newer than this dippouch understands")
        try:
            gd = data.get("game")
            if not isinstance(gd, Mapping):
                raise GameError('game file: no "game" object (name, variant, settings, status)')
            if gd.get("variant") is None:
                raise GameError("game.variant: missing; a game file names the variant its game plays (like standard)")
            try:
                named = check_variant_name(gd.get("variant"))
            except GameError as e:
                raise GameError(f"game.variant: {e}") from None
            options = gd.get("options") or {}
            if not isinstance(options, Mapping):
                raise GameError("game.options: expected an object of variant options")
            stored = gd.get("variant_data")
            try:
                if stored is not None:
                    # The game's own copy travels with it: a game of a user variant imports without the file.
                    if not isinstance(stored, Mapping):
                        raise GameError("game.variant_data: expected the variant as an object")
                    if gd.get("variant_hash") is not None and content_hash(stored) != gd["variant_hash"]:
                        raise GameError(
                            "game file: its variant data does not match its variant_hash (edited or damaged)"
                        )
                    v = variant_from_data(stored, options, source=f"{named} (from the game file)")
                else:
                    v = load_variant(named, options)
            except GameError:
                raise
            except DippouchError as e:
                raise GameError(f"game file: its variant {named!r} does not load: {e}") from None
            if v.name != named:
                raise GameError(f"game.variant: the file says {named!r}, but its variant data is {v.name!r}")
            # The checks a game created here gets, then what only a file can get wrong; nothing is written
            # before both have passed.
            new_name, settings = check_new_game(name if name is not None else gd.get("name"), v, gd.get("settings", {}))
            check_game_file(data, v)
            with self.session() as s, s.begin():
                if s.scalars(sa.select(GameRow.id).where(GameRow.name == new_name)).first() is not None:
                    raise GameError(f"a game named {new_name!r} already exists; import it with --name NEW")
                data_v = dict(v.data)
                g = GameRow(
                    name=new_name,
                    variant=v.name,
                    variant_data=data_v,
                    variant_hash=content_hash(data_v),
                    options=dict(v.options),
                    settings=settings.to_data(),
                    status=gd["status"],
                    ending=gd.get("ending"),
                    branch=int(gd.get("branch", 0)),
                    paused_remaining=float(gd["paused_remaining"]) if gd.get("paused_remaining") is not None else None,
                    created_at=_dt(gd["created_at"]),
                )
                s.add(g)
                s.flush()
                for r in data.get("players", []):
                    s.add(
                        PlayerRow(
                            game_id=g.id,
                            power=self._power(v, r["power"]),
                            name=r["name"].strip(),
                            assigned_at=_dt(r["assigned_at"]),
                            replaced_at=_dt(r.get("replaced_at")),
                            email=r.get("email"),
                        )
                    )
                new_ids: dict[int, int] = {}  # submission id in the file -> id here (for carried_from)
                new_phases: list[int] = []
                for p in data["phases"]:
                    row = PhaseRow(
                        game_id=g.id,
                        branch=int(p["branch"]),
                        seq=int(p["seq"]),
                        name=p["name"],
                        kind=p["kind"],
                        status=p["status"],
                        position=p["position"],
                        opened_at=_dt(p["opened_at"]),
                        deadline=_dt(p.get("deadline")),
                        processed_at=_dt(p.get("processed_at")),
                        orders=p.get("orders"),
                        results=p.get("results"),
                        next_position=p.get("next_position"),
                        missed=p.get("missed"),
                    )
                    s.add(row)
                    s.flush()
                    new_phases.append(row.id)
                    for sub in p.get("submissions", []):
                        if sub.get("sealed"):
                            raise GameError(
                                "this game file was exported with the open phase's orders sealed; export it again "
                                "with `dippouch export --unsealed` to move a running game"
                            )
                        old_from = sub.get("carried_from")
                        copy = SubmissionRow(
                            phase_id=row.id,
                            power=sub["power"],
                            version=int(sub["version"]),
                            submitted_at=_dt(sub["submitted_at"]),
                            text=sub["text"],
                            lines=sub["lines"],
                            ready=bool(sub.get("ready", False)),
                            stands=bool(sub.get("stands", True)),
                            carried_from=new_ids.get(int(old_from)) if old_from is not None else None,
                            source=str(sub.get("source", "cli")),
                            recorded_at=_dt(sub.get("recorded_at")),
                            label=sub.get("label"),
                            reinstates=sub.get("reinstates"),
                        )
                        s.add(copy)
                        if sub.get("id") is not None:
                            s.flush()
                            new_ids[int(sub["id"])] = copy.id
                for r in data.get("votes", []):
                    s.add(VoteRow(game_id=g.id, power=r["power"], draw=bool(r["draw"]), at=_dt(r["at"])))
                new_events = [
                    EventRow(game_id=g.id, at=_dt(r["at"]), kind=r["kind"], detail=r.get("detail", {}))
                    for r in data.get("events", [])
                ]
                s.add_all(new_events)
                s.flush()
                import_mail_record(s, g.id, data.get("mail"), new_phases, [e.id for e in new_events], new_ids)
            return new_name
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
            raise GameError(f"game file is incomplete or damaged: {type(e).__name__} {e}"[:300]) from None
        except IntegrityError:
            raise GameError(f"a game named {new_name!r} already exists; import it with --name NEW") from None
        except sa.exc.SQLAlchemyError as e:
            raise GameError(f"the game file could not be stored ({type(e).__name__}); nothing was imported") from None


# --------------------------------------------------------------------------------------------------


def is_sealed(status: str, deadline: datetime | None, now: datetime) -> bool:
    """Orders of a phase are sealed from the coordinator while it is open and its deadline has not passed
    (a paused game has no deadline running: still sealed)."""
    return status == "open" and (deadline is None or as_utc(now) < as_utc(deadline))


def seal_submission(sub: Mapping[str, Any]) -> dict[str, Any]:
    """A submission as a sealed view shows it: who, which version, when, from where; no text, no lines."""
    keep = ("id", "power", "version", "submitted_at", "ready", "late", "source", "recorded_at", "label")
    return {**{k: sub[k] for k in keep if k in sub}, "text": None, "lines": None, "sealed": True}


def seal_export(data: dict[str, Any], now: datetime) -> int:
    """Seal the open phase's submissions in an exported game file (in place), and those of a phase set aside
    unprocessed while the open phase is sealed (their orders were carried into it); returns how many."""
    n = 0
    phases = data.get("phases", [])
    open_sealed = any(is_sealed(str(ph.get("status")), _dt(ph.get("deadline")), now) for ph in phases)
    for ph in phases:
        deadline = _dt(ph.get("deadline"))
        set_aside = ph.get("status") == "abandoned" and ph.get("processed_at") is None
        if is_sealed(str(ph.get("status")), deadline, now) or (set_aside and open_sealed):
            ph["submissions"] = [seal_submission(sub) for sub in ph.get("submissions", [])]
            n += len(ph["submissions"])
    return n


MAX_REASON = 500


def check_reason(reason: str | None, what: str) -> str:
    """The reason given for opening sealed orders, as recorded and shown to the players, or a clear error."""
    text = " ".join(str(reason or "").split())
    if not text:
        raise GameError(
            f"the open phase's orders are sealed until its deadline: an {what} opens them, and the players are "
            "told who did it, when and why; give the reason (e.g. --reason 'moving the game to a new server')"
            if what.startswith("unsealed")
            else f"the open phase's orders are sealed until its deadline: a {what} opens them, and the players "
            "are told who did it, when and why; give the reason"
        )
    if len(text) > MAX_REASON:
        raise GameError(f"the reason is {len(text):,} characters long; at most {MAX_REASON} are kept")
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise GameError("the reason contains control characters; write it as plain text")
    return text


def _version_name(r: SubmissionRow) -> str:
    return f"{r.version}" + (f" (your v{r.label})" if r.label and r.label != str(r.version) else "")


def _named_version_of(s: Session, mine: tuple[sa.ColumnElement[bool], ...], wanted: int) -> SubmissionRow | None:
    """The version a player means by number: their own numbering (label) first, the last received of
    that label (they cannot know ours), then ours. At most two rows read, however many versions there are."""
    by_label = s.scalars(
        sa.select(SubmissionRow)
        .where(*mine, SubmissionRow.label == str(wanted))
        .order_by(SubmissionRow.submitted_at.desc(), SubmissionRow.version.desc())
        .limit(1)
    ).first()
    if by_label is not None:
        return by_label
    return s.scalars(sa.select(SubmissionRow).where(*mine, SubmissionRow.version == wanted).limit(1)).first()


def _standing_in_sql(
    s: Session, phase_id: int, deadline: datetime | None, *, power: str | None = None
) -> dict[str, SubmissionRow]:
    """:func:`_standing` for every power of a phase (or only ``power``), by the ``deadline`` if one is given,
    in two queries: each power's last received version among those that replaced the earlier ones, then the
    versions that instructions among them name. A row or two a power, however many versions there are."""
    counted = [SubmissionRow.phase_id == phase_id, SubmissionRow.stands.is_(True)]
    if power is not None:
        counted.append(SubmissionRow.power == power)
    if deadline is not None:
        counted.append(SubmissionRow.submitted_at <= deadline)
    received_last = (SubmissionRow.submitted_at.desc(), SubmissionRow.version.desc())
    last: list[SubmissionRow]
    if power is not None:  # one power: its newest row, by the index (cheaper than ranking)
        newest = s.scalars(sa.select(SubmissionRow).where(*counted).order_by(*received_last).limit(1)).first()
        last = [newest] if newest is not None else []
    else:
        rank = sa.func.row_number().over(partition_by=SubmissionRow.power, order_by=received_last).label("rank")
        ranked = sa.select(SubmissionRow.id, rank).where(*counted).subquery()
        last = list(
            s.scalars(sa.select(SubmissionRow).join(ranked, ranked.c.id == SubmissionRow.id).where(ranked.c.rank == 1))
        )
    out = {r.power: r for r in last if r.reinstates is None}
    wanted = [(r.power, r.reinstates) for r in last if r.reinstates is not None]
    if wanted:
        pairs = [sa.and_(SubmissionRow.power == p, SubmissionRow.version == v) for p, v in wanted]
        # A named version that was late (or replaced nothing) is not among them: nothing of that power stands.
        for r in s.scalars(sa.select(SubmissionRow).where(*counted, sa.or_(*pairs))):
            out[r.power] = r
    return out


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def _dt(text: str | None) -> datetime | None:
    return as_utc(datetime.fromisoformat(text)) if text else None


def phase_record_of(
    game: str,
    ph: PhaseRow,
    nxt: PhaseRow | None,
    *,
    settings: Mapping[str, Any],
    ending: Mapping[str, Any] | None,
    submissions: bool = True,
    **about: Any,
) -> dict[str, Any]:
    """One phase as the plain record a report reads (:meth:`GameStore.phase_record`), from rows already
    loaded: the phase, the one after it in its line (``nxt``), the game's settings, and its ending, shown
    only after the last phase processed. ``about`` adds keys about the game (its variant, options)."""
    return {
        "game": game,
        **about,
        "settings": settings,
        "ending": ending if (nxt is None and ph.status == "processed") else None,
        **_phase_to_data(ph, submissions=submissions),
        "next_deadline": nxt.deadline.isoformat() if nxt is not None and nxt.deadline else None,
        "next_phase": nxt.name if nxt is not None else None,
    }


def _phase_to_data(p: PhaseRow, *, submissions: bool = True) -> dict[str, Any]:
    return {
        "id": p.id,
        "branch": p.branch,
        "seq": p.seq,
        "name": p.name,
        "kind": p.kind,
        "status": p.status,
        "position": p.position,
        "opened_at": p.opened_at.isoformat(),
        "deadline": _iso(p.deadline),
        "processed_at": _iso(p.processed_at),
        "orders": p.orders,
        "results": p.results,
        "next_position": p.next_position,
        "missed": p.missed,
        "submissions": [
            {
                "id": sub.id,
                "power": sub.power,
                "version": sub.version,
                "submitted_at": sub.submitted_at.isoformat(),
                "text": sub.text,
                "lines": sub.lines,
                "ready": sub.ready,
                "late": p.deadline is not None and sub.submitted_at > p.deadline,
                "source": sub.source,
                "recorded_at": _iso(sub.recorded_at),
                "label": sub.label,
                "reinstates": sub.reinstates,
                "stands": sub.stands,
                "carried_from": sub.carried_from,
            }
            for sub in (p.submissions if submissions else ())
        ],
    }


def _standing(
    submissions: Iterable[SubmissionRow], deadline: datetime | None, *, on_time_only: bool
) -> dict[str, SubmissionRow]:
    """The submission that stands for each power: the one received last (by the deadline, if
    ``on_time_only``), or, when that one is a version instruction ("version 2 stands"), the version it
    names. Received time, not the order of typing in, decides: post is typed in late."""
    by_power: dict[str, list[SubmissionRow]] = {}
    for sub in submissions:
        if not sub.stands:
            continue  # recorded, but it replaced nothing
        if on_time_only and deadline is not None and sub.submitted_at > deadline:
            continue
        by_power.setdefault(sub.power, []).append(sub)
    out: dict[str, SubmissionRow] = {}
    for power, subs in by_power.items():
        last = max(subs, key=lambda r: (r.submitted_at, r.version))
        if last.reinstates is not None:
            named = next((r for r in subs if r.version == last.reinstates), None)
            if named is None:
                continue  # the version it names was late: nothing of this power's stands
            last = named
        out[power] = last
    return out


def _result_to_data(v: Variant, r: Any, kind: PhaseKind) -> dict[str, Any]:
    from dippouch.core.jsonio import result_to_json

    return result_to_json(v, r, kind)


def results_by_power(results: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        out.setdefault(str(r["power"]), []).append(r)
    return out


def _position_fits(v: Variant, data: Mapping[str, Any]) -> list[str]:
    """Every reason the stored position ``data`` cannot be read on variant ``v`` (empty when it fits).

    Each unit, dislodged unit and centre is read on its own, so one missing province does not hide the rest.
    """
    from dippouch.core.jsonio import JsonInputError, position_from_json

    problems: list[str] = []

    def attempt(label: str, part: dict[str, Any]) -> bool:
        try:
            position_from_json(v, {"phase": data.get("phase"), "units": [], "supply_centers": {}, **part})
        except JsonInputError as e:
            problems.append(f"{label}: {e}")
            return False
        return True

    if not attempt("phase", {}):
        return problems
    for u in data.get("units", []):
        attempt(f"unit {u.get('unit')} ({u.get('power')})", {"units": [u]})
    for d in data.get("dislodged", []):
        attempt(f"dislodged {d.get('unit')} ({d.get('power')})", {"dislodged": [d]})
    for key, label in (("supply_centers", "centre"), ("home_centers", "home centre")):
        for power, provs in dict(data.get(key, {})).items():
            for p in provs:
                attempt(f"{label} {p} ({power})", {key: {power: [p]}})
    return problems
