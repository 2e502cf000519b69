"""The finished games in one query of their own: each one's name, variant, end time and what decides how it
counts, as values (the ratings' check compares them with the facts the stored ratings are computed from,
:mod:`dippouch.play.ratings_check`); and the display names of the people a leaderboard shows.

A game's **end time** is when its last phase was closed: the phase a solo or a year limit ended is processed
then, and a draw closes the open phase it was voted in at that same moment (:func:`dippouch.store.votes.finish`).
Nothing new is stored for it: a rollback of a finished game reopens it and its end moves with its line of play.

Each game's **visibility** is listed with it: the ratings leave private games out (their existence is not
shown outside them, as a person's public record leaves them out: :mod:`dippouch.store.people.reliability`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from dippouch.game import as_utc
from dippouch.people.anonymity import names_hidden
from dippouch.store.db import Database
from dippouch.store.finished import SCORING_KEY
from dippouch.store.models import GameRow, PersonRow, PhaseRow
from dippouch.store.models_web import GameWebRow

__all__ = ["FinishedGame", "PersonName", "finished_games", "person_names"]


@dataclass(frozen=True)
class FinishedGame:
    """A finished game: enough to order the games, choose which count, and know when the list has changed."""

    name: str
    variant: str
    ended_at: datetime
    """When its last phase was closed (UTC)."""
    scoring: str | None
    """The scoring system it chose (as stored), or None for the default: a new choice rescores it."""
    practice: bool
    visibility: str
    """``public``, ``unlisted`` or ``private`` (the web's setting; ``public`` when it has none)."""
    names_hidden: bool
    """Whether its players' names are hidden now (an anonymous game reveals them at its end: False for every
    finished game today, kept so a rule that hides longer is obeyed here at once)."""


@dataclass(frozen=True)
class PersonName:
    id: int
    name: str
    deleted: bool
    """The person deleted their data: the row stays, emptied, and is shown without a link."""


def finished_games(db: Database) -> tuple[FinishedGame, ...]:
    """Every finished game (one that ended without any processed phase has no end time and is left out),
    in order of end time, then name."""
    # The end per game first, then the games joined to it: PostgreSQL cannot group by a JSON column.
    ends = (
        sa.select(PhaseRow.game_id, sa.func.max(PhaseRow.processed_at).label("ended"))
        .where(PhaseRow.status == "processed", PhaseRow.processed_at.is_not(None))
        .group_by(PhaseRow.game_id)
        .subquery()
    )
    q = (
        sa.select(GameRow.name, GameRow.variant, GameRow.settings, GameRow.status, GameWebRow.visibility, ends.c.ended)
        .join(ends, ends.c.game_id == GameRow.id)
        .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
        .where(GameRow.status == "finished")
    )
    with db.session() as s:
        rows = s.execute(q).all()
    out = []
    for name, variant, settings, status, visibility, at in rows:
        data = dict(settings or {})
        chosen = data.get(SCORING_KEY)
        out.append(
            FinishedGame(
                name=str(name),
                variant=str(variant),
                ended_at=as_utc(at),
                scoring=str(chosen) if chosen else None,
                practice=bool(data.get("practice")),
                visibility=str(visibility or "public"),
                names_hidden=names_hidden(data, str(status)),
            )
        )
    return tuple(sorted(out, key=lambda g: (g.ended_at, g.name)))


def person_names(db: Database, ids: Iterable[int]) -> dict[int, PersonName]:
    """Person id -> their display name now (ids of nobody are left out)."""
    wanted = sorted(set(ids))
    out: dict[int, PersonName] = {}
    with db.session() as s:
        # In slices: a long leaderboard's ids stay under every database's limit of bound parameters.
        for i in range(0, len(wanted), 500):
            q = sa.select(PersonRow.id, PersonRow.name, PersonRow.deleted_at).where(
                PersonRow.id.in_(wanted[i : i + 500])
            )
            for pid, name, deleted in s.execute(q):
                out[int(pid)] = PersonName(int(pid), str(name), deleted is not None)
    return out
