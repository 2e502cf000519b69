"""A person's reliability, read from what the games store already: for every seat they held, the phases they
held it in (on time, late, missed, or excused by an absence they announced) and whether they abandoned it.

The arithmetic is :mod:`dippouch.people.reliability`'s; this module only gathers the counts. Nothing is
stored for it: a rollback or a coordinator's correction changes the record as it changes the game.

**Which phases are a seat's.** A phase is the seat's whose player it was when the phase was processed: from
the seat's assignment to its hand-over (to a person, a bot, or back to the pool's claimer). The order is read
from the game's event log (``assign``/``replace`` and ``processed`` events, in the order they were written
under the game's lock), not from their times: a bot run processes many phases with one "now", the very
instant its seat was taken, and a window of times would give the bot's phases to the person it replaced. A
game whose log does not match its seats (an old import) falls back to times, a phase processed at the
instant of a hand-over going to the seat it was opened under.

A phase counts for the seat when its power had to act: orders that stood by the deadline (on time), or the
power among the phase's ``missed`` (late when something came after the deadline, else missed). It is
**excused** instead when the person had recorded, before the orders were taken, an absence covering that
day, or the game applied its absence policy to them at that deadline (``absence_uses``, except an extension,
which moved the deadline to a day they were back): a stand-in's or standing orders, or nobody's.

**Abandoned**, once per seat (:func:`dippouch.people.reliability.abandoned`): the person's time on it ended
(or stands) in civil disorder, the game's ``missed_limit`` of movement phases missed in a row; or the
coordinator freed it to the replacement pool (:func:`dippouch.store.openings.free_seat`), or its player
resigned it while the game was under way (:func:`dippouch.store.openings.resign`); or it was handed
to someone else after a phase they sent nothing for.

A **practice game** (against bots) never counts: not its seats, not its phases. A game that hides its
players' names (:func:`dippouch.people.anonymity.names_hidden`) counts for nobody's
public record until it ends: not its seats, not its phases. Else a person's page, watched while the game runs,
would move as its phases are processed and name its player. A private game counts for nobody's public record
at all, before its end or after: its existence is not shown outside it, and "3 games" where the list shows two
would show it. Every reading takes ``shown``: the hidden and private games the reader may see counted anyway
(the person's own, or those they coordinate; ``None``: all), by default none. The public record is also what a game's minimum reliability judges, so a sign-up taken or refused tells
nothing more than the desk shows.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeAlias

import sqlalchemy as sa
from sqlalchemy.orm import selectinload

from dippouch.core.calendar import PhaseKind
from dippouch.game import as_utc, civil_disorder_streak
from dippouch.people.anonymity import names_hidden
from dippouch.people.reliability import Mark, Record, abandoned, score, tally
from dippouch.store.db import Database
from dippouch.store.models import EventRow, GameRow, PersonRow, PhaseRow, PlayerRow, SubmissionRow
from dippouch.store.models_openings import VacancyRow
from dippouch.store.models_web import GameWebRow
from dippouch.store.people.models import AbsenceRow, AbsenceUseRow
from dippouch.store.rows import game_settings

__all__ = ["ALL", "Profile", "Shown", "profile", "record_of", "reliabilities", "scores_in"]

Shown: TypeAlias = Collection[str] | None
"""Games hiding their players' names that count for this reader anyway (their names); ``None``: every one."""

ALL: Shown = None
"""Every game counts: for the person themselves, or the installation's coordinator."""


@dataclass(frozen=True)
class Profile:
    """What anyone may see of a person: their name, how many games they played, and their record. Never an
    address of any kind."""

    id: int
    name: str
    games: int
    record: Record
    reliability: int | None
    hidden_games: int = 0
    """Games counted here that hide their players' names (only those ``shown`` to the reader): 0 on the
    public profile, which never says that anything is left out."""


@dataclass(frozen=True)
class _Phase:
    id: int
    branch: int
    seq: int
    kind: str
    opened_at: datetime
    deadline: datetime | None
    processed_at: datetime
    missed: frozenset[str]

    @property
    def taken(self) -> datetime:
        """When its orders were taken: the deadline, or earlier when the coordinator processed it before."""
        return self.processed_at if self.deadline is None else min(self.deadline, self.processed_at)

    def before(self, at: datetime) -> bool:
        """Whether this phase was done before a seat changed hands at ``at``: processed earlier, or in the same
        instant but opened before it (a phase opened at that instant is the new player's)."""
        return self.processed_at < at or (self.processed_at == at and self.opened_at < at)


_SEATING = ("assign", "replace")


def _holders_from_log(
    s: sa.orm.Session, game_id: int, phases: list[_Phase], seats: dict[str, list[PlayerRow]]
) -> dict[int, dict[str, int]] | None:
    """Phase id -> power -> id of the seat that held it when the phase was processed, replayed from the game's
    event log; ``None`` when the log does not account for every seat and phase (then times decide)."""
    by_key = {(p.branch, p.seq): p.id for p in phases}
    taken: dict[str, int] = {}  # power -> how many of its seats the log has made so far
    holding: dict[str, int] = {}
    out: dict[int, dict[str, int]] = {}
    events = s.execute(
        sa.select(EventRow.kind, EventRow.detail)
        .where(EventRow.game_id == game_id, EventRow.kind.in_((*_SEATING, "processed")))
        .order_by(EventRow.id)
    )
    for kind, detail in events:
        if not isinstance(detail, dict):
            return None
        if kind == "processed":
            branch, seq = detail.get("branch"), detail.get("seq")
            if not isinstance(branch, int) or not isinstance(seq, int):
                return None
            phase = by_key.get((branch, seq))
            if phase is not None:
                out[phase] = dict(holding)
            continue
        power = detail.get("power")
        rows = seats.get(power) if isinstance(power, str) else None
        n = taken.get(str(power), 0)
        if rows is None or n >= len(rows):
            return None
        holding[rows[n].power] = rows[n].id
        taken[rows[n].power] = n + 1
    if any(taken.get(power, 0) != len(rows) for power, rows in seats.items()) or len(out) != len(phases):
        return None
    return out


def _holders_by_time(phases: list[_Phase], seats: dict[str, list[PlayerRow]]) -> dict[int, dict[str, int]]:
    out: dict[int, dict[str, int]] = {p.id: {} for p in phases}
    for power, rows in seats.items():
        for r in rows:
            start, end = as_utc(r.assigned_at), None if r.replaced_at is None else as_utc(r.replaced_at)
            for p in phases:
                if not p.before(start) and (end is None or p.before(end)):
                    out[p.id][power] = r.id
    return out


def _game_records(
    s: sa.orm.Session, game: GameRow, mine: list[PlayerRow], freed: set[int], away: dict[int, list[AbsenceRow]]
) -> dict[int, Record]:
    """Seat id -> record, for the seats ``mine`` of one game (``freed``: seats the coordinator freed to the
    pool; ``away``: person -> the absences they recorded)."""
    phases = [
        _Phase(
            r.id,
            r.branch,
            r.seq,
            r.kind,
            as_utc(r.opened_at),
            None if r.deadline is None else as_utc(r.deadline),
            as_utc(r.processed_at),
            frozenset(str(x) for x in (r.missed or [])),
        )
        for r in s.execute(
            sa.select(
                PhaseRow.id,
                PhaseRow.branch,
                PhaseRow.seq,
                PhaseRow.kind,
                PhaseRow.opened_at,
                PhaseRow.deadline,
                PhaseRow.processed_at,
                PhaseRow.missed,
            )
            .where(PhaseRow.game_id == game.id, PhaseRow.status == "processed", PhaseRow.processed_at.is_not(None))
            .order_by(PhaseRow.seq)
        )
    ]
    seats: dict[str, list[PlayerRow]] = {}
    for r in sorted(game.players, key=lambda r: r.id):
        seats.setdefault(r.power, []).append(r)
    holders = _holders_from_log(s, game.id, phases, seats) if phases else {}
    if holders is None:
        holders = _holders_by_time(phases, seats)
    held = {seat.id: [p for p in phases if holders[p.id].get(seat.power) == seat.id] for seat in mine}
    ids = [p.id for ps in held.values() for p in ps]
    sent: dict[tuple[int, str], tuple[bool, bool]] = {}
    excused: set[tuple[int, str]] = set()
    if ids:
        deadlines = {p.id: p.deadline for p in phases}
        subs = s.execute(
            sa.select(
                SubmissionRow.phase_id, SubmissionRow.power, SubmissionRow.submitted_at, SubmissionRow.stands
            ).where(SubmissionRow.phase_id.in_(ids), SubmissionRow.power.in_({seat.power for seat in mine}))
        )
        for phase_id, power, at, stands in subs:
            deadline = deadlines[phase_id]
            on_time, late = sent.get((phase_id, power), (False, False))
            if deadline is None or as_utc(at) <= deadline:
                on_time = on_time or bool(stands)
            else:
                late = True
            sent[(phase_id, power)] = (on_time, late)
        uses = s.execute(
            sa.select(AbsenceUseRow.phase_id, AbsenceUseRow.power).where(
                AbsenceUseRow.phase_id.in_(ids), AbsenceUseRow.policy != "extend"
            )
        )
        excused = {(phase_id, power) for phase_id, power in uses}
    limit = game_settings(game).missed_limit
    out: dict[int, Record] = {}
    for seat in mine:
        assert seat.person_id is not None
        absences = away.get(seat.person_id, [])
        marks: list[Mark] = []
        movement: list[bool] = []
        for p in held[seat.id]:
            missed = seat.power in p.missed
            on_time, late = sent.get((p.id, seat.power), (False, False))
            if not missed and not on_time:
                continue  # nothing to do for this power in this phase
            day = p.taken.date()
            gone = (p.id, seat.power) in excused or any(
                a.first_day <= day <= a.last_day and as_utc(a.created_at) <= p.taken for a in absences
            )
            marks.append(Mark(not missed, missed and late, gone))
            if p.kind == PhaseKind.MOVEMENT.value:
                movement.append(missed)
        after = seats[seat.power][seats[seat.power].index(seat) + 1 :]
        handed_over = seat.replaced_at is not None and not (after and after[0].person_id == seat.person_id)
        gave_up = abandoned(
            bool(marks) and marks[-1].missed,
            disorder=limit > 0 and civil_disorder_streak(movement) >= limit,
            freed=seat.id in freed,
            handed_over=handed_over,
        )
        out[seat.id] = tally(marks, abandoned=gave_up)
    return out


def _counts(game: GameRow, shown: Shown, private: Collection[int]) -> bool:
    """Whether the seats of ``game`` count for this reader now (``private``: the ids of private games)."""
    if shown is None or game.name in shown:
        return True
    return game.id not in private and not names_hidden(game.settings, str(game.status))


KEPT_GAMES = 50_000
"""Finished games whose seat records a database keeps (:attr:`Database.finished_records`)."""


def _records(
    s: sa.orm.Session,
    person_ids: Iterable[int],
    shown: Shown,
    kept: dict[tuple[int, int], dict[int, Any]] | None = None,
) -> dict[int, tuple[Record, int, int]]:
    """Person -> (record, games played, of those the games that hide their players' names). ``kept``: the seat
    records of finished games read before (a database's :attr:`~Database.finished_records`), by the game's
    last event, so a leaderboard of people with hundreds of games each reads only what changed."""
    ids = list(set(person_ids))
    out: dict[int, tuple[Record, int, int]] = {p: (Record(), 0, 0) for p in ids}
    if not ids:
        return out
    held = list(
        s.scalars(
            sa.select(PlayerRow)
            .where(PlayerRow.person_id.in_(ids))
            .order_by(PlayerRow.id)
            .options(
                # A game's stored variant copy is kilobytes of JSON that a record never reads.
                selectinload(PlayerRow.game)
                .load_only(GameRow.id, GameRow.name, GameRow.status, GameRow.settings)
                .selectinload(GameRow.players)
            )
        )
    )
    private: set[int] = set()
    if shown is not None and held:
        private = set(
            s.scalars(
                sa.select(GameWebRow.game_id).where(
                    GameWebRow.game_id.in_({r.game_id for r in held}), GameWebRow.visibility == "private"
                )
            )
        )
    seats = [r for r in held if _counts(r.game, shown, private) and not game_settings(r.game).practice]
    freed = {
        seat
        for seat in s.scalars(
            sa.select(VacancyRow.player_id).where(
                VacancyRow.reason.in_(("freed", "resigned")), VacancyRow.player_id.in_([r.id for r in seats])
            )
        )
        if seat is not None
    }
    away: dict[int, list[AbsenceRow]] = {}
    for a in s.scalars(sa.select(AbsenceRow).where(AbsenceRow.person_id.in_(ids))):
        away.setdefault(a.person_id, []).append(a)
    by_game: dict[int, list[PlayerRow]] = {}
    for seat in seats:
        by_game.setdefault(seat.game_id, []).append(seat)
    records = {p: Record() for p in ids}
    games: dict[int, set[int]] = {p: set() for p in ids}
    hidden: dict[int, set[int]] = {p: set() for p in ids}
    finished = [g for g in by_game if kept is not None and by_game[g][0].game.status == "finished"]
    last_event: dict[int, int] = {}
    if finished:
        last_event = {
            game_id: int(event)
            for game_id, event in s.execute(
                sa.select(EventRow.game_id, sa.func.max(EventRow.id))
                .where(EventRow.game_id.in_(finished))
                .group_by(EventRow.game_id)
            )
        }
    for game_id, mine in by_game.items():
        game = mine[0].game
        key = (game_id, last_event.get(game_id, 0))
        hit = kept.get(key) if kept is not None and game_id in last_event else None
        if hit is not None and all(seat.id in hit for seat in mine):
            got = hit
        else:
            got = _game_records(s, game, mine, freed, away)
            if kept is not None and game_id in last_event:
                if len(kept) > KEPT_GAMES:
                    kept.clear()
                kept.setdefault(key, {}).update(got)
        for seat in mine:
            assert seat.person_id is not None
            records[seat.person_id] += got[seat.id]
            games[seat.person_id].add(seat.game_id)
            if names_hidden(game.settings, str(game.status)):
                hidden[seat.person_id].add(seat.game_id)
    return {p: (records[p], len(games[p]), len(hidden[p])) for p in ids}


def record_of(db: Database, person_id: int, *, shown: Shown = ()) -> Record:
    with db.session() as s:
        return _records(s, [person_id], shown, db.finished_records)[person_id][0]


def records_in(s: sa.orm.Session, person_ids: Iterable[int], *, shown: Shown = ()) -> dict[int, Record]:
    """Person -> record, inside a session already open (who a seat is offered to: newcomers on probation too)."""
    return {p: r[0] for p, r in _records(s, person_ids, shown).items()}


def reliabilities(db: Database, person_ids: Iterable[int], *, shown: Shown = ()) -> dict[int, int | None]:
    """Person -> reliability in percent (``None``: no record yet), for lists of sign-ups."""
    with db.session() as s:
        return scores_in(s, person_ids, shown=shown, kept=db.finished_records)


def scores_in(
    s: sa.orm.Session,
    person_ids: Iterable[int],
    *,
    shown: Shown = (),
    kept: dict[tuple[int, int], dict[int, Any]] | None = None,
) -> dict[int, int | None]:
    """:func:`reliabilities` inside a session the caller holds (on SQLite a second one would wait for it)."""
    return {p: score(rec) for p, (rec, _, _) in _records(s, person_ids, shown, kept).items()}


def profile(db: Database, person_id: int, *, shown: Shown = ()) -> Profile | None:
    """A person's profile as a reader sees it (``shown``: the module's note), or ``None`` for nobody (or
    someone who deleted their data)."""
    with db.session() as s:
        p = s.get(PersonRow, person_id)
        if p is None or p.deleted_at is not None:
            return None
        rec, games, hidden = _records(s, [person_id], shown, db.finished_records)[person_id]
        return Profile(p.id, p.name, games, rec, score(rec), hidden)
