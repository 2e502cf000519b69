"""Games in a database: every coordinator action is one short transaction here.

The guarantees the coordinator relies on live in this module:

- A submission is committed before :meth:`GameStore.submit` returns, so an acknowledged submission is never
  lost.
- Processing a phase (:meth:`GameStore.process_phase`) reads, adjudicates and writes in one transaction. A
  crash anywhere leaves the game before the phase or after it; processing an already processed phase is a
  no-op, and the unique ``(game, branch, seq)`` key stops two processes from both writing the next phase.
- Nothing is deleted: resubmissions are new versions, a rollback abandons phases instead of removing them.

Every method takes ``now``; the store never reads the clock.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.variant import Variant, load_variant
from dippouch.game import (
    Ending,
    GameError,
    LineCheck,
    Settings,
    as_utc,
    check_orders,
    civil_disorder_streak,
    draw_reached,
    game_end,
    may_submit,
    position_from_data,
    position_to_data,
    powers_to_act,
    ready_refusal,
    submission_stands,
    unordered,
)
from dippouch.store.db import make_engine, upgrade
from dippouch.store.models import EventRow, GameRow, PhaseRow, PlayerRow, SubmissionRow, VoteRow

__all__ = ["GAME_FILE_FORMAT", "Carried", "GameStore", "PowerStatus", "Status", "SubmitResult"]

GAME_FILE_FORMAT = "dippouch-game"
GAME_FILE_VERSION = 1


def _crash_point(name: str) -> None:
    """Die here, abruptly, when ``DIPPOUCH_CRASH_AT`` names this point: the crash tests' kill switch."""
    if os.environ.get("DIPPOUCH_CRASH_AT") == name:
        os._exit(70)


@dataclass(frozen=True)
class SubmitResult:
    phase: str
    power: str
    version: int
    lines: list[LineCheck]
    late: bool
    ready: bool
    deadline: datetime | None
    stands: bool = True
    """Whether this version replaced the earlier ones (see :func:`dippouch.game.submission_stands`)."""
    standing: int | None = None
    """The version that now stands for the power (this one, an earlier one, or none)."""
    standing_orders: list[str] = field(default_factory=list)
    """The orders of the standing version, as they will be carried out."""
    unordered: list[tuple[list[str], str]] = field(default_factory=list)
    """What happens to the units (or builds) the standing orders leave out: (units, what happens) pairs."""
    ready_refused: str | None = None
    """Why ``--ready`` was refused (the submission is recorded, not ready)."""
    variant: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    """The game's variant and options, to write the orders for reading."""


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


class GameStore:
    """All games in one database (SQLite file by default; any SQLAlchemy URL, e.g. PostgreSQL)."""

    def __init__(self, url: str | None = None) -> None:
        self.engine = make_engine(url)
        try:
            upgrade(self.engine)
        except OperationalError as e:
            raise GameError(f"cannot open the game database {self.engine.url!r}: {e.orig}") from None
        self.session = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    # ----------------------------------------------------------------------------------------------
    # Lookup helpers

    def _game(self, s: Session, name: str, *, lock: bool = False) -> GameRow:
        q = sa.select(GameRow).where(GameRow.name == name)
        if lock:
            q = q.with_for_update()
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
        return load_variant(g.variant, g.options)

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

    def _require_current(self, s: Session, g: GameRow) -> PhaseRow:
        ph = self._current(s, g)
        if ph is None:
            ending = Ending.from_data(g.ending) if g.ending else None
            raise GameError(f"game {g.name!r} is over{': ' + ending.text if ending else ''} (roll back to reopen it)")
        return ph

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
        """Create a game at the variant's start (or at ``position``, in the stored-position shape)."""
        name = name.strip()
        if not name or len(name) > 100:
            raise GameError("a game needs a name of 1 to 100 characters")
        now = as_utc(now)
        v = load_variant(variant, options)
        settings = settings or Settings()
        start = position_from_data(v, position) if position is not None else v.start
        with self.session() as s, s.begin():
            if s.scalars(sa.select(GameRow.id).where(GameRow.name == name)).first() is not None:
                raise GameError(f"a game named {name!r} already exists; choose another name")
            g = GameRow(
                name=name,
                variant=variant,
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
            self._event(s, g, now, "created", variant=variant, options=dict(v.options))
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

    def assign(self, name: str, power: str, player: str, *, now: datetime, replace: bool = False) -> str:
        """Give ``power`` to ``player``. ``replace`` hands it over from the current player (or from civil
        disorder), which is how a power in civil disorder comes back into the game."""
        now = as_utc(now)
        player = player.strip()
        if not player:
            raise GameError("a player needs a name")
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
            s.add(PlayerRow(game_id=g.id, power=power, name=player, assigned_at=now, replaced_at=None))
            self._event(s, g, now, "replace" if replace else "assign", power=power, player=player)
        return power

    # ----------------------------------------------------------------------------------------------
    # Submissions and votes

    def submit(
        self,
        name: str,
        power: str,
        text: str,
        *,
        now: datetime,
        ready: bool = False,
        replace_with_nothing: bool = False,
    ) -> SubmitResult:
        """Record a submission (a new version), checked line by line; committed before returning.

        A version with no accepted order is recorded but does not replace the earlier orders unless
        ``replace_with_nothing`` (or a line "no orders") says it does; ``ready`` is then refused too (see
        :func:`dippouch.game.submission_stands`). The result says which version now stands.
        """
        now = as_utc(now)
        with self.session() as s, s.begin():
            g = self._game(s, name)
            v = self._variant(g)
            power = self._power(v, power)
            ph = self._require_current(s, g)
            pos = position_from_data(v, ph.position)
            if not may_submit(v, pos, power):
                raise GameError(f"{power} has nothing to order in {ph.name}")
            lines = check_orders(v, pos, power, text)
            stands = submission_stands(lines, replace_with_nothing)
            refused = ready_refusal(lines, replace_with_nothing) if ready else None
            last = s.scalars(
                sa.select(sa.func.max(SubmissionRow.version)).where(
                    SubmissionRow.phase_id == ph.id, SubmissionRow.power == power
                )
            ).first()
            version = (last or 0) + 1
            s.add(
                SubmissionRow(
                    phase_id=ph.id,
                    power=power,
                    version=version,
                    submitted_at=now,
                    text=text,
                    lines=[line.to_data() for line in lines],
                    ready=ready and refused is None,
                    stands=stands,
                )
            )
            s.flush()
            s.refresh(ph)
            standing = self._latest(ph, on_time_only=False).get(power)
            standing_lines = [LineCheck.from_data(d) for d in standing.lines] if standing else []
            late = ph.deadline is not None and now > ph.deadline
            return SubmitResult(
                ph.name,
                power,
                version,
                lines,
                late,
                ready and refused is None,
                ph.deadline,
                stands=stands,
                standing=standing.version if standing else None,
                standing_orders=[ln.order for ln in standing_lines if ln.accepted and ln.order is not None],
                unordered=unordered(v, pos, power, standing_lines),
                ready_refused=refused,
                variant=g.variant,
                options=dict(g.options),
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
            s.add(VoteRow(game_id=g.id, power=power, draw=draw, at=now))
            s.flush()
            pos = position_from_data(v, ph.position)
            ending = draw_reached(v, pos, settings, self._votes(s, g), self._civil_disorder(s, g, v))
            if ending is not None:
                self._finish(s, g, ph, ending, now)
            self._event(s, g, now, "vote", power=power, draw=draw)
            return ending

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
        phases = [p for p in self._active(s, g) if p.status == "processed" and p.kind == PhaseKind.MOVEMENT.value]
        out = {}
        for power in v.power_names:
            since = max((r.assigned_at for r in g.players if r.power == power and r.replaced_at is None), default=None)
            relevant = [p for p in phases if since is None or (p.processed_at is not None and p.processed_at > since)]
            out[power] = civil_disorder_streak(power in (p.missed or []) for p in relevant)
        return out

    @staticmethod
    def _latest(ph: PhaseRow, *, on_time_only: bool) -> dict[str, SubmissionRow]:
        """The standing submission of each power: its latest version that replaced the earlier ones (and
        arrived by the deadline, if ``on_time_only``)."""
        out: dict[str, SubmissionRow] = {}
        for sub in ph.submissions:
            if not sub.stands:
                continue  # recorded, but it replaced nothing
            if on_time_only and ph.deadline is not None and sub.submitted_at > ph.deadline:
                continue
            prev = out.get(sub.power)
            if prev is None or sub.version > prev.version:
                out[sub.power] = sub
        return out

    def _due(self, s: Session, g: GameRow, v: Variant, ph: PhaseRow, now: datetime) -> bool:
        if g.status != "active":
            return False
        if ph.deadline is not None and now >= ph.deadline:
            return True
        pos = position_from_data(v, ph.position)
        cd = self._civil_disorder(s, g, v)
        latest = self._latest(ph, on_time_only=True)
        must = powers_to_act(v, pos)
        if not must:
            return True  # nobody has anything to decide
        voters = [p for p in must if p not in cd]
        # Powers in civil disorder do not hold the game up, but they alone never make it run early.
        return bool(voters) and all(p in latest and latest[p].ready for p in voters)

    def status(self, name: str, *, now: datetime) -> Status:
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
                pos = position_from_data(v, ph.position)
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
                    )
                )
            return Status(
                game=g.name,
                variant=g.variant,
                state=g.status,
                phase=ph.name if ph else None,
                kind=ph.kind if ph else None,
                deadline=ph.deadline if ph else None,
                paused_remaining=timedelta(seconds=g.paused_remaining) if g.paused_remaining is not None else None,
                due=bool(ph and self._due(s, g, v, ph, now)),
                powers=rows,
                ending=ending,
                settings=settings,
            )

    # ----------------------------------------------------------------------------------------------
    # Processing

    def process(self, name: str, *, now: datetime, force: bool = False, limit: int = 1000) -> list[str]:
        """Process every phase that is due (deadline passed, or everyone who must act is ready).

        ``force`` processes the current phase even if it is not due (the coordinator's call). Returns the
        names of the phases processed, in order.
        """
        now = as_utc(now)
        done: list[str] = []
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
                if not (force and not done) and not self._due(s, g, v, ph, now):
                    break
                phase_id, phase_name = ph.id, ph.name
            if self.process_phase(phase_id, now=now):
                done.append(phase_name)
            else:
                break
        return done

    def process_phase(self, phase_id: int, *, now: datetime) -> bool:
        """Adjudicate one open phase and open the next, in one transaction. False if it was not open."""
        from dippouch.core.adjudicator import adjudicate
        from dippouch.core.notation import OrderParseError, format_order, parse_order

        now = as_utc(now)
        try:
            with self.session() as s, s.begin():
                ph = s.get(PhaseRow, phase_id, with_for_update=True)
                if ph is None or ph.status != "open":
                    return False
                g = s.get(GameRow, ph.game_id, with_for_update=True)
                assert g is not None
                v = self._variant(g)
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
                missed = [p for p in must if p not in latest]
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
            return True
        except IntegrityError:
            # Another process wrote the next phase first: the phase has been processed, which is what we wanted.
            return False

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

    def _find_phase(self, s: Session, g: GameRow, v: Variant, phase: str | None, phase_id: int | None) -> PhaseRow:
        if phase_id is not None:
            ph = s.get(PhaseRow, phase_id)
            if ph is None or ph.game_id != g.id:
                raise GameError(f"game {g.name!r} has no phase with id {phase_id} (see `dippouch history`)")
            return ph
        active = self._active(s, g)
        if phase is None:
            processed = [p for p in active if p.status == "processed" and p.next_position is not None]
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

    def phase_record(self, name: str, phase: str | None = None, phase_id: int | None = None) -> dict[str, Any]:
        """Everything about one phase as plain data: position, submissions, orders used, results, next."""
        with self.session() as s:
            g = self._game(s, name)
            v = self._variant(g)
            ph = self._find_phase(s, g, v, phase, phase_id)
            nxt = s.scalars(
                sa.select(PhaseRow).where(
                    PhaseRow.game_id == g.id, PhaseRow.branch == ph.branch, PhaseRow.seq == ph.seq + 1
                )
            ).first()
            return {
                "game": g.name,
                "variant": g.variant,
                "options": g.options,
                "settings": g.settings,
                "ending": g.ending if (nxt is None and ph.status == "processed") else None,
                **_phase_to_data(ph),
                "next_deadline": nxt.deadline.isoformat() if nxt is not None and nxt.deadline else None,
                "next_phase": nxt.name if nxt is not None else None,
            }

    def report(self, name: str, phase: str | None = None, phase_id: int | None = None, *, full: bool = True) -> str:
        """A phase's report (:func:`dippouch.report.phase_report`): full names, or abbreviations if not ``full``."""
        from dippouch.report import phase_report

        rec = self.phase_record(name, phase, phase_id)
        return phase_report(load_variant(rec["variant"], rec["options"]), rec, full=full)

    def replay(self, name: str, phase: str | None = None, phase_id: int | None = None) -> tuple[bool, list[str]]:
        """Adjudicate a processed phase again from its stored position and orders; compare with the record."""
        from dippouch.core.adjudicator import adjudicate
        from dippouch.core.notation import parse_order

        rec = self.phase_record(name, phase, phase_id)
        if rec["status"] != "processed" or rec["next_position"] is None:
            raise GameError(f"{rec['name']} has not been processed; there is nothing to replay")
        v = load_variant(rec["variant"], rec["options"])
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
                lines = check_orders(v, pos, sub.power, sub.text)
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

    def export_game(self, name: str) -> dict[str, Any]:
        """The whole game as JSON-ready data: settings, players, every phase with its submissions, votes, log."""
        with self.session() as s:
            g = self._game(s, name)
            phases = list(s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id).order_by(PhaseRow.id)))
            votes = s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id))
            events = s.scalars(sa.select(EventRow).where(EventRow.game_id == g.id).order_by(EventRow.id))
            return {
                "format": GAME_FILE_FORMAT,
                "version": GAME_FILE_VERSION,
                "game": {
                    "name": g.name,
                    "variant": g.variant,
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
                    }
                    for r in g.players
                ],
                "phases": [_phase_to_data(p) for p in phases],
                "votes": [{"power": r.power, "draw": r.draw, "at": r.at.isoformat()} for r in votes],
                "events": [{"at": r.at.isoformat(), "kind": r.kind, "detail": r.detail} for r in events],
            }

    def import_game(self, data: Mapping[str, Any], *, name: str | None = None) -> str:
        """Recreate a game from :meth:`export_game`'s data (under ``name`` if given)."""
        if not isinstance(data, Mapping) or data.get("format") != GAME_FILE_FORMAT:
            raise GameError(f'not a dippouch game file (expected "format": "{GAME_FILE_FORMAT}")')
        if int(data.get("version", 0)) > GAME_FILE_VERSION:
            raise GameError(f"game file version {data.get('version')} is newer than this dippouch understands")
        try:
            gd = data["game"]
            new_name = (name or gd["name"]).strip()
            v = load_variant(gd["variant"], gd.get("options") or {})
            for ph in data["phases"]:
                position_from_data(v, ph["position"])  # validates names before anything is written
            with self.session() as s, s.begin():
                if s.scalars(sa.select(GameRow.id).where(GameRow.name == new_name)).first() is not None:
                    raise GameError(f"a game named {new_name!r} already exists; import it with --name NEW")
                g = GameRow(
                    name=new_name,
                    variant=gd["variant"],
                    options=dict(v.options),
                    settings=Settings.from_data(gd.get("settings", {})).to_data(),
                    status=gd["status"],
                    ending=gd.get("ending"),
                    branch=int(gd.get("branch", 0)),
                    paused_remaining=gd.get("paused_remaining"),
                    created_at=_dt(gd["created_at"]),
                )
                s.add(g)
                s.flush()
                for r in data.get("players", []):
                    s.add(
                        PlayerRow(
                            game_id=g.id,
                            power=self._power(v, r["power"]),
                            name=r["name"],
                            assigned_at=_dt(r["assigned_at"]),
                            replaced_at=_dt(r.get("replaced_at")),
                        )
                    )
                new_ids: dict[int, int] = {}  # submission id in the file -> id here (for carried_from)
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
                    for sub in p.get("submissions", []):
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
                        )
                        s.add(copy)
                        if sub.get("id") is not None:
                            s.flush()
                            new_ids[int(sub["id"])] = copy.id
                for r in data.get("votes", []):
                    s.add(VoteRow(game_id=g.id, power=r["power"], draw=bool(r["draw"]), at=_dt(r["at"])))
                for r in data.get("events", []):
                    s.add(EventRow(game_id=g.id, at=_dt(r["at"]), kind=r["kind"], detail=r.get("detail", {})))
            return new_name
        except (KeyError, TypeError, ValueError) as e:
            raise GameError(f"game file is incomplete or damaged: {type(e).__name__} {e}") from None


# --------------------------------------------------------------------------------------------------


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def _dt(text: str | None) -> datetime | None:
    return as_utc(datetime.fromisoformat(text)) if text else None


def _phase_to_data(p: PhaseRow) -> dict[str, Any]:
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
                "stands": sub.stands,
                "carried_from": sub.carried_from,
            }
            for sub in p.submissions
        ],
    }


def _result_to_data(v: Variant, r: Any, kind: PhaseKind) -> dict[str, Any]:
    from dippouch.core.notation import format_order

    return {
        "power": r.power,
        "order": format_order(v, r.order, phase_kind=kind),
        "result": str(r.result),
        "dislodged": bool(r.dislodged),
        "destroyed": bool(r.destroyed),
        "automatic": bool(r.automatic),
        "reason": r.reason,
        "index": r.index,
    }


def results_by_power(results: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        out.setdefault(str(r["power"]), []).append(r)
    return out
