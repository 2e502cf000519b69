"""Tournaments as stored (migration 0019; the table is :class:`~dippouch.store.tournaments.models.TournamentRow`): a name, the
scoring system its standings use, the one variant its games play (or any), who runs it, and its games with
their round numbers.

No score is stored: the standings are computed from the games each time (:mod:`dippouch.play.tournaments`).
What a system is, and which names are valid, is the ranking engine's to say: this module keeps the name the
use case checked and never imports the engine. The games are kept by name, as their pages address them; the
facts the use case reads about them (variant, status, practice, visibility) come from :func:`games_facts`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.messages import msg
from dippouch.game import GameError, RecordNotFound, as_utc
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PersonRow, PhaseRow
from dippouch.store.models_web import GameWebRow
from dippouch.store.records import iso_time, read_time
from dippouch.store.tournaments.models import TournamentRow

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "EMPTY_COUNTS",
    "MAX_GAMES",
    "MAX_RUNNING",
    "NAME_LIMIT",
    "Tournament",
    "TournamentGame",
    "TournamentGameFacts",
    "add_game",
    "check_tournament_name",
    "create_tournament",
    "export_person",
    "forget_person",
    "games_facts",
    "remove_game",
    "tournament",
    "tournaments",
]

NAME_LIMIT = 100
"""Characters a tournament's name may have (the column's width)."""
MAX_GAMES = 500
"""Games one tournament may hold: a season of a large club, and a bound on what one page scores."""
MAX_RUNNING = 5
"""Tournaments one person may run at once that are not over (a club's season and a few cups): each is listed
on a public page, and a person must not fill that list alone."""
EMPTY_COUNTS = timedelta(days=7)
"""How long a tournament without games counts as running: long enough to add its games, and one made and
left empty frees its place by itself."""


@dataclass(frozen=True)
class TournamentGame:
    """One game of a tournament."""

    game: str
    round: int | None
    """The round it is played in (1, 2, ...); ``None`` for a tournament without rounds."""
    added_at: datetime | None


@dataclass(frozen=True)
class Tournament:
    """A tournament as it leaves the store (no row: tests/project/test_store_values.py)."""

    id: int
    name: str
    system: str
    variant: str | None
    creator_id: int | None
    created_at: datetime
    games: tuple[TournamentGame, ...]
    """In the order they were added."""

    @classmethod
    def of(cls, r: TournamentRow) -> Tournament:
        return cls(
            r.id,
            r.name,
            r.system,
            r.variant,
            r.creator_id,
            r.created_at,
            tuple(_game(g) for g in r.games or [] if isinstance(g, dict) and isinstance(g.get("game"), str)),
        )

    def has(self, game: str) -> bool:
        return any(g.game == game for g in self.games)


def _game(data: dict[str, Any]) -> TournamentGame:
    rnd = data.get("round")
    return TournamentGame(
        str(data["game"]),
        rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None,
        read_time(data.get("added_at") or None),
    )


def check_tournament_name(name: Any) -> str:
    """A tournament's name as stored: it is part of its address (``/tournaments/NAME``) and of commands, so
    the rules are a game name's (no slash, no leading dot, printable, at most :data:`NAME_LIMIT` characters)."""
    if not isinstance(name, str):
        raise GameError(msg("a tournament's name is text, not %(type)s", type=type(name).__name__))
    text = name.strip()
    if not text:
        raise GameError(msg("a tournament needs a name (like 'Autumn Cup 2026')"))
    if len(text) > NAME_LIMIT:
        raise GameError(
            msg(
                "a tournament's name has at most %(most)s characters, not %(length)s", most=NAME_LIMIT, length=len(text)
            )
        )
    if any(not c.isprintable() for c in text):
        raise GameError(msg("a tournament's name cannot contain control characters or line breaks"))
    if "/" in text or "\\" in text:
        raise GameError(msg("a tournament's name cannot contain '/' or a backslash (%(name)s)", name=repr(text)))
    if text.startswith("."):
        raise GameError(msg("a tournament's name cannot start with '.' (%(name)s)", name=repr(text)))
    return text


def _row(s: Session, name: str, *, lock: bool = False) -> TournamentRow:
    q = sa.select(TournamentRow).where(TournamentRow.name == name)
    if lock:
        q = q.with_for_update()
    row = s.scalars(q).first()
    if row is None:
        names = list(s.scalars(sa.select(TournamentRow.name)))
        close = difflib.get_close_matches(name, names, n=1)
        known = ", ".join(sorted(names))
        if close:
            raise RecordNotFound(
                msg(
                    "no tournament %(name)s; did you mean %(close)s? Tournaments: %(names)s",
                    name=repr(name),
                    close=repr(close[0]),
                    names=known,
                )
            )
        if names:
            raise RecordNotFound(msg("no tournament %(name)s. Tournaments: %(names)s", name=repr(name), names=known))
        raise RecordNotFound(msg("no tournament %(name)s. There are no tournaments yet.", name=repr(name)))
    return row


def create_tournament(
    db: Database, name: str, *, system: str, variant: str | None, creator_id: int | None, now: datetime
) -> Tournament:
    """A new tournament with no games (``system`` and ``variant`` as the caller checked them); a name that is
    taken is refused."""
    text = check_tournament_name(name)
    with db.session() as s, s.begin():
        if creator_id is not None:
            _check_running(s, creator_id, as_utc(now))
        if s.scalars(sa.select(TournamentRow.id).where(TournamentRow.name == text)).first() is not None:
            raise GameError(msg("a tournament named %(name)s already exists; choose another name", name=repr(text)))
        row = TournamentRow(
            name=text, system=system, variant=variant, creator_id=creator_id, created_at=as_utc(now), games=[]
        )
        s.add(row)
        s.flush()
        return Tournament.of(row)


def _check_running(s: Session, person_id: int, now: datetime) -> None:
    """Refuse a new tournament to a person who runs :data:`MAX_RUNNING` that are not over: one holding a game
    not finished, or no game yet and made less than :data:`EMPTY_COUNTS` ago. Counted under the person's row
    lock (PostgreSQL; SQLite: the write lock), so tournaments made at the same instant count each other."""
    person = s.scalars(sa.select(PersonRow.id).where(PersonRow.id == person_id).with_for_update()).first()
    if person is None:
        raise GameError(msg("no person %(person)s", person=person_id))
    rows = list(s.scalars(sa.select(TournamentRow).where(TournamentRow.creator_id == person_id)))
    names = {str(g["game"]) for r in rows for g in r.games}
    done = set(
        s.scalars(sa.select(GameRow.name).where(GameRow.name.in_(sorted(names)), GameRow.status == "finished"))
        if names
        else []
    )
    running = [
        r
        for r in rows
        if any(str(g["game"]) not in done for g in r.games)
        or (not r.games and now - as_utc(r.created_at) < EMPTY_COUNTS)
    ]
    if len(running) >= MAX_RUNNING:
        raise GameError(
            msg(
                "you run %(count)d tournaments that are not over (at most %(most)d): one is over once every game in it "
                "has finished, and one without games stops counting %(days)d days after it was made",
                count=len(running),
                most=MAX_RUNNING,
                days=EMPTY_COUNTS.days,
            )
        )


def tournament(db: Database, name: str) -> Tournament:
    """The tournament ``name``; an unknown one is refused naming the closest."""
    with db.session() as s:
        return Tournament.of(_row(s, name))


def tournaments(db: Database) -> list[Tournament]:
    """Every tournament, the newest first."""
    with db.session() as s:
        rows = s.scalars(sa.select(TournamentRow).order_by(TournamentRow.created_at.desc(), TournamentRow.id.desc()))
        return [Tournament.of(r) for r in rows]


def add_game(db: Database, name: str, game: str, *, round_number: int | None, now: datetime) -> Tournament:
    """Add ``game`` (one the caller checked may join) to the tournament, in ``round_number``; a game already in it,
    or a tournament that is full (:data:`MAX_GAMES`), is refused."""
    with db.session() as s, s.begin():
        row = _row(s, name, lock=True)
        have = Tournament.of(row)
        if have.has(game):
            raise GameError(
                msg(
                    "game %(game)s is already in tournament %(tournament)s", game=repr(game), tournament=repr(have.name)
                )
            )
        if len(have.games) >= MAX_GAMES:
            raise GameError(
                msg(
                    "tournament %(tournament)s holds %(most)s games, the most one may hold",
                    tournament=repr(have.name),
                    most=MAX_GAMES,
                )
            )
        # A new list, not the old one changed in place: the JSON column is saved when it is assigned.
        row.games = [*(row.games or []), {"game": game, "round": round_number, "added_at": iso_time(as_utc(now))}]
        s.flush()
        return Tournament.of(row)


def remove_game(db: Database, name: str, game: str) -> Tournament:
    """Take ``game`` out of the tournament (the game itself is untouched); a game not in it is refused."""
    with db.session() as s, s.begin():
        row = _row(s, name, lock=True)
        have = Tournament.of(row)
        if not have.has(game):
            if not have.games:
                raise GameError(
                    msg(
                        "game %(game)s is not in tournament %(tournament)s (its games: none yet)",
                        game=repr(game),
                        tournament=repr(have.name),
                    )
                )
            raise GameError(
                msg(
                    "game %(game)s is not in tournament %(tournament)s (its games: %(games)s)",
                    game=repr(game),
                    tournament=repr(have.name),
                    games=", ".join(g.game for g in have.games),
                )
            )
        row.games = [g for g in row.games or [] if not (isinstance(g, dict) and g.get("game") == game)]
        s.flush()
        return Tournament.of(row)


@dataclass(frozen=True)
class TournamentGameFacts:
    """What decides whether and how a game may count in a tournament, read without its phases."""

    name: str
    variant: str
    status: str
    """``active``, ``paused`` or ``finished``."""
    practice: bool
    visibility: str
    """``public``, ``unlisted`` or ``private`` (the web's setting; ``public`` when it has none)."""
    ended_at: datetime | None = None
    """When its last phase was closed (:mod:`dippouch.store.finished_games`' end time), None before any was: with
    the status, what tells a finished game's result is the one scored before (a rollback and a new end move it)."""


def games_facts(db: Database, names: Iterable[str]) -> dict[str, TournamentGameFacts]:
    """Game name -> its facts, for the games of ``names`` that exist (a name of no game is left out)."""
    wanted = sorted(set(names))
    out: dict[str, TournamentGameFacts] = {}
    with db.session() as s:
        for i in range(0, len(wanted), 500):
            ids = sa.select(GameRow.id).where(GameRow.name.in_(wanted[i : i + 500]))
            # The end per game first, then the games joined to it: PostgreSQL cannot group by a JSON column.
            ends = (
                sa.select(PhaseRow.game_id, sa.func.max(PhaseRow.processed_at).label("ended"))
                .where(PhaseRow.game_id.in_(ids), PhaseRow.status == "processed", PhaseRow.processed_at.is_not(None))
                .group_by(PhaseRow.game_id)
                .subquery()
            )
            q = (
                sa.select(
                    GameRow.name,
                    GameRow.variant,
                    GameRow.status,
                    GameRow.settings,
                    GameWebRow.visibility,
                    ends.c.ended,
                )
                .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
                .outerjoin(ends, ends.c.game_id == GameRow.id)
                .where(GameRow.name.in_(wanted[i : i + 500]))
            )
            for name, variant, status, settings, visibility, ended in s.execute(q):
                out[str(name)] = TournamentGameFacts(
                    str(name),
                    str(variant),
                    str(status),
                    bool(dict(settings or {}).get("practice")),
                    str(visibility or "public"),
                    as_utc(ended) if ended is not None else None,
                )
    return out


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """The tournaments a person created, for "download my data" (their games and standings are public)."""
    with db.session() as s:
        rows = s.scalars(
            sa.select(TournamentRow).where(TournamentRow.creator_id == person_id).order_by(TournamentRow.id)
        )
        return {
            "tournaments": [
                {"name": r.name, "system": r.system, "variant": r.variant, "created_at": iso_time(r.created_at)}
                for r in rows
            ]
        }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """What "delete my data" does here: the person no longer runs their tournaments, which stay (they list
    other people's games and standings); the installation's coordinator runs them from then on."""
    with db.session() as s, s.begin():
        s.execute(sa.update(TournamentRow).where(TournamentRow.creator_id == person_id).values(creator_id=None))
