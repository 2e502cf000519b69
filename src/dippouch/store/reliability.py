"""A person's reliability, read from what the games store already: for every seat they held, the phases it
had to act in (on time, late, missed) and whether they left it in civil disorder.

The arithmetic is :mod:`dippouch.people.reliability`'s; this module only gathers the counts. Nothing is
stored for it: a rollback or a coordinator's correction changes the record as it changes the game.

A phase counts for a seat when it was processed while the seat was held and its power either had orders that
stood by the deadline (on time) or is among the phase's ``missed`` powers (late when something came after the
deadline, else missed). A seat counts as abandoned when its last movement phases were missed in a row up to
the game's civil-disorder limit, or when the coordinator freed it from the player
(:func:`dippouch.store.openings.free_seat`).

A game that hides its players' names (:func:`dippouch.people.anonymity.names_hidden`) counts for nobody's
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
from typing import TypeAlias

import sqlalchemy as sa

from dippouch.core.calendar import PhaseKind
from dippouch.game import civil_disorder_streak
from dippouch.people.anonymity import names_hidden
from dippouch.people.reliability import Mark, Record, score, tally
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow, SubmissionRow
from dippouch.store.models_openings import VacancyRow
from dippouch.store.models_web import GameWebRow
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


def _seat_record(s: sa.orm.Session, seat: PlayerRow, game: GameRow, freed: bool) -> Record:
    end = seat.replaced_at
    q = sa.select(PhaseRow.id, PhaseRow.kind, PhaseRow.deadline, PhaseRow.missed).where(
        PhaseRow.game_id == seat.game_id,
        PhaseRow.status == "processed",
        PhaseRow.processed_at > seat.assigned_at,
    )
    if end is not None:
        q = q.where(PhaseRow.processed_at <= end)
    phases = list(s.execute(q.order_by(PhaseRow.seq)))
    if not phases:
        return Record(seats=1, abandoned=1 if freed else 0)
    sent: dict[int, tuple[bool, bool]] = {}
    subs = s.execute(
        sa.select(SubmissionRow.phase_id, SubmissionRow.submitted_at, SubmissionRow.stands).where(
            SubmissionRow.phase_id.in_([p.id for p in phases]), SubmissionRow.power == seat.power
        )
    )
    deadlines = {p.id: p.deadline for p in phases}
    for phase_id, at, stands in subs:
        deadline = deadlines[phase_id]
        on_time, late = sent.get(phase_id, (False, False))
        if deadline is None or at <= deadline:
            on_time = on_time or bool(stands)
        else:
            late = True
        sent[phase_id] = (on_time, late)
    marks: list[Mark] = []
    movement: list[bool] = []
    for p in phases:
        missed = seat.power in (p.missed or [])
        on_time, late = sent.get(p.id, (False, False))
        if missed:
            marks.append(Mark(False, late))
        elif on_time:
            marks.append(Mark(True, False))
        if p.kind == PhaseKind.MOVEMENT.value:
            movement.append(missed)
    limit = game_settings(game).missed_limit
    disorder = limit > 0 and civil_disorder_streak(movement) >= limit
    return tally(marks, abandoned=disorder or freed)


def _counts(game: GameRow, shown: Shown, private: Collection[int]) -> bool:
    """Whether the seats of ``game`` count for this reader now (``private``: the ids of private games)."""
    if shown is None or game.name in shown:
        return True
    return game.id not in private and not names_hidden(game.settings, str(game.status))


def _records(s: sa.orm.Session, person_ids: Iterable[int], shown: Shown) -> dict[int, tuple[Record, int, int]]:
    """Person -> (record, games played, of those the games that hide their players' names)."""
    ids = list(set(person_ids))
    out: dict[int, tuple[Record, int, int]] = {p: (Record(), 0, 0) for p in ids}
    if not ids:
        return out
    held = list(s.scalars(sa.select(PlayerRow).where(PlayerRow.person_id.in_(ids)).order_by(PlayerRow.id)))
    private: set[int] = set()
    if shown is not None and held:
        private = set(
            s.scalars(
                sa.select(GameWebRow.game_id).where(
                    GameWebRow.game_id.in_({r.game_id for r in held}), GameWebRow.visibility == "private"
                )
            )
        )
    seats = [r for r in held if _counts(r.game, shown, private)]
    freed = set(
        s.scalars(
            sa.select(VacancyRow.player_id).where(
                VacancyRow.reason == "freed", VacancyRow.player_id.in_([r.id for r in seats])
            )
        )
    )
    records = {p: Record() for p in ids}
    games: dict[int, set[int]] = {p: set() for p in ids}
    hidden: dict[int, set[int]] = {p: set() for p in ids}
    for seat in seats:
        assert seat.person_id is not None
        records[seat.person_id] += _seat_record(s, seat, seat.game, seat.id in freed)
        games[seat.person_id].add(seat.game_id)
        if names_hidden(seat.game.settings, str(seat.game.status)):
            hidden[seat.person_id].add(seat.game_id)
    return {p: (records[p], len(games[p]), len(hidden[p])) for p in ids}


def record_of(db: Database, person_id: int, *, shown: Shown = ()) -> Record:
    with db.session() as s:
        return _records(s, [person_id], shown)[person_id][0]


def reliabilities(db: Database, person_ids: Iterable[int], *, shown: Shown = ()) -> dict[int, int | None]:
    """Person -> reliability in percent (``None``: no record yet), for lists of sign-ups."""
    with db.session() as s:
        return scores_in(s, person_ids, shown=shown)


def scores_in(s: sa.orm.Session, person_ids: Iterable[int], *, shown: Shown = ()) -> dict[int, int | None]:
    """:func:`reliabilities` inside a session the caller holds (on SQLite a second one would wait for it)."""
    return {p: score(rec) for p, (rec, _, _) in _records(s, person_ids, shown).items()}


def profile(db: Database, person_id: int, *, shown: Shown = ()) -> Profile | None:
    """A person's profile as a reader sees it (``shown``: the module's note), or ``None`` for nobody (or
    someone who deleted their data)."""
    with db.session() as s:
        p = s.get(PersonRow, person_id)
        if p is None or p.deleted_at is not None:
            return None
        rec, games, hidden = _records(s, [person_id], shown)[person_id]
        return Profile(p.id, p.name, games, rec, score(rec), hidden)
