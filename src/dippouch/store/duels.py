"""Quick one-on-one matchmaking, stored (docs/duels.md; the use case is :mod:`dippouch.play.duels`): a queue of
people waiting for an opponent, and the pairing of the first two into a new game of the ``duel`` variant.

**Exactly one game for two requests at once.** A request is taken in one transaction that first takes the
queue's lock: PostgreSQL's transaction-scoped advisory lock (:data:`DUEL_LOCK`), SQLite's write lock (every
transaction there begins ``IMMEDIATE``, :func:`dippouch.store.db.make_engine`). Under it the request finds the
oldest person waiting, and either joins the queue or makes the game, seats both, and marks both waits as paired,
all in that transaction: two requests at the same moment take turns, the second sees the first waiting and pairs
with them, and a crash half-way leaves nothing. A partial unique index keeps one waiting row per person.

**Told.** The game is opened for players with its clock held and both seats filled in the same transaction, so
the last seat filled logs the game's ``started`` event (:func:`dippouch.store.games.change_seat`): the person who
waited is told by the notification channels' ``game_starting`` as for any game, and the one who asked second
sees the game at once.
"""

from __future__ import annotations

import copy
import random
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, sessionmaker

from dippouch.core.messages import msg
from dippouch.game import GameError, GameSettings, as_utc
from dippouch.store.access import AccessStore
from dippouch.store.db import Database
from dippouch.store.games import change_seat, create_game
from dippouch.store.models import GameRow, PersonRow, PlayerRow
from dippouch.store.models_duels import DuelWaitRow
from dippouch.store.moderation.models import PersonBlockRow
from dippouch.store.openings import open_game
from dippouch.store.rows import game_row, game_variant

__all__ = [
    "DUEL_LOCK",
    "VARIANT",
    "DuelGame",
    "Taken",
    "Waiting",
    "ask",
    "duel_games",
    "export_person",
    "forget_person",
    "leave",
    "waiting",
    "waiting_count",
]

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

DUEL_LOCK = 0x6475_656C_7175_6575
"""PostgreSQL advisory lock key of the queue (``"duelqueu"`` in ASCII)."""

VARIANT = "duel"
"""The variant every paired game plays (src/dippouch/variants/duel.toml)."""

PAIRINGS = ("fva", "gvi", "evt")
"""The variant's pairings the game chooses among when neither person asked for France against Austria."""


@dataclass(frozen=True)
class Taken:
    """A request taken: either waiting (``game`` None) or paired into ``game``, playing ``power``."""

    game: str | None
    power: str | None
    opponent: str | None
    waiting_before: int
    """People who were waiting before this request (0: the queue was empty)."""


@dataclass(frozen=True)
class Waiting:
    """A person's wait in the queue."""

    pairing: str
    asked_at: datetime
    ahead: int
    """People waiting who asked earlier (0: first in the queue; the next request pairs with them)."""


@dataclass(frozen=True)
class DuelGame:
    """A one-on-one game a person plays, for their queue page."""

    game: str
    power: str
    status: str


def _joined(db: Database, s: Session) -> Database:
    """``db`` inside ``s``'s transaction: the game's creation and seating (which open sessions of their own)
    run on ``s``'s connection as savepoints, so they commit with the queue's rows or not at all."""
    s.flush()
    inner = copy.copy(db)
    inner.session = sessionmaker(bind=s.connection(), join_transaction_mode="create_savepoint", expire_on_commit=False)
    return inner


def _waiting_rows() -> sa.Select[DuelWaitRow]:
    return (
        sa.select(DuelWaitRow)
        .where(DuelWaitRow.left_at.is_(None), DuelWaitRow.game.is_(None))
        .order_by(DuelWaitRow.asked_at, DuelWaitRow.id)
    )


def _person(s: Session, person_id: int) -> PersonRow:
    p = s.get(PersonRow, person_id)
    if p is None or p.deleted_at is not None:
        raise GameError(msg("no person %(person)s", person=person_id))
    return p


def running_duels(s: Session, person_id: int) -> int:
    """One-on-one games ``person_id`` plays that are not finished."""
    return int(
        s.scalar(
            sa.select(sa.func.count())
            .select_from(PlayerRow)
            .join(GameRow, GameRow.id == PlayerRow.game_id)
            .where(
                PlayerRow.person_id == person_id,
                PlayerRow.replaced_at.is_(None),
                GameRow.variant == VARIANT,
                GameRow.status != "finished",
            )
        )
        or 0
    )


def ask(
    db: Database,
    person_id: int,
    pairing: str,
    *,
    now: datetime,
    most_running: int,
    deadlines: dict[str, str],
    rng: random.Random | None = None,
) -> Taken:
    """Take ``person_id``'s request for a one-on-one game (``pairing``: ``fva`` or ``any``): paired at once
    with the person waiting longest, or put in the queue (the module's note). Refused while they already wait,
    or play ``most_running`` one-on-one games not finished."""
    now = as_utc(now)
    rng = rng or random.Random(secrets.randbits(64))
    with db.session() as s, s.begin():
        if s.get_bind().dialect.name == "postgresql":
            s.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": DUEL_LOCK})
        me = _person(s, person_id)
        queue = list(s.scalars(_waiting_rows()))
        if any(r.person_id == person_id for r in queue):
            raise GameError(msg("you are already waiting for a one-on-one game"))
        running = running_duels(s, person_id)
        if running >= most_running:
            raise GameError(
                msg(
                    "you play %(count)d one-on-one games not finished (at most %(most)d): one frees its place "
                    "when it ends",
                    count=running,
                    most=most_running,
                )
            )
        other, them = _partner(s, person_id, queue, now)
        mine = DuelWaitRow(person_id=person_id, pairing=pairing, asked_at=now)
        s.add(mine)
        if other is None or them is None:
            return Taken(None, None, None, len(queue))
        chosen = "fva" if "fva" in (pairing, other.pairing) else rng.choice(PAIRINGS)
        name = f"duel-{secrets.token_hex(4)}"
        inner = _joined(db, s)
        create_game(
            inner, name, VARIANT, now=now, options={"pairing": chosen}, settings=GameSettings(deadlines=deadlines)
        )
        AccessStore(inner).set_visibility(name, "public")
        # Opened with its clock held, then both seats filled: the last fills it, which logs "started" (both told)
        # and starts the clock.
        open_game(inner, name, now=now, mode="coordinator")
        powers = sorted(_powers(inner, name))
        rng.shuffle(powers)
        for power, person in zip(powers, (me, them), strict=True):
            change_seat(inner, name, power, person.name, now=now, person_id=person.id, new_key=False)
        for row, power in ((mine, powers[0]), (other, powers[1])):
            row.game, row.power, row.paired_at = name, power, now
        return Taken(name, powers[0], them.name, len(queue))


def _partner(
    s: Session, person_id: int, queue: list[DuelWaitRow], now: datetime
) -> tuple[DuelWaitRow | None, PersonRow | None]:
    """The wait to pair ``person_id`` with: the oldest of a person still there with no block between the two
    either way (a block keeps two people out of each other's games, :mod:`dippouch.play.blocks`; neither is
    told: the one passed over keeps waiting for the next). A wait whose person deleted their data ends here."""
    blocked = set(s.scalars(sa.select(PersonBlockRow.other_id).where(PersonBlockRow.person_id == person_id))) | set(
        s.scalars(sa.select(PersonBlockRow.person_id).where(PersonBlockRow.other_id == person_id))
    )
    for row in queue:
        p = s.get(PersonRow, row.person_id)
        if p is None or p.deleted_at is not None:
            row.left_at = now
            continue
        if row.person_id not in blocked:
            return row, p
    return None, None


def _powers(db: Database, game: str) -> tuple[str, ...]:
    with db.session() as s:
        return game_variant(game_row(s, game)).power_names


def leave(db: Database, person_id: int, *, now: datetime) -> bool:
    """Take ``person_id`` out of the queue; False when they were not waiting (paired meanwhile, say)."""
    with db.session() as s, s.begin():
        if s.get_bind().dialect.name == "postgresql":
            s.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": DUEL_LOCK})
        row = s.scalars(_waiting_rows().where(DuelWaitRow.person_id == person_id)).first()
        if row is None:
            return False
        row.left_at = as_utc(now)
        return True


def waiting(db: Database, person_id: int) -> Waiting | None:
    """``person_id``'s wait in the queue, if they wait."""
    with db.session() as s:
        rows = list(s.scalars(_waiting_rows()))
    for i, r in enumerate(rows):
        if r.person_id == person_id:
            return Waiting(r.pairing, as_utc(r.asked_at), i)
    return None


def waiting_count(db: Database) -> int:
    """How many people wait for an opponent now."""
    with db.session() as s:
        return int(
            s.scalar(
                sa.select(sa.func.count())
                .select_from(DuelWaitRow)
                .where(DuelWaitRow.left_at.is_(None), DuelWaitRow.game.is_(None))
            )
            or 0
        )


def duel_games(db: Database, person_id: int) -> list[DuelGame]:
    """The one-on-one games ``person_id`` plays now (a seat held), the newest first."""
    with db.session() as s:
        rows = s.execute(
            sa.select(GameRow.name, PlayerRow.power, GameRow.status)
            .join(PlayerRow, PlayerRow.game_id == GameRow.id)
            .where(PlayerRow.person_id == person_id, PlayerRow.replaced_at.is_(None), GameRow.variant == VARIANT)
            .order_by(GameRow.id.desc())
        ).all()
    return [DuelGame(name, power, status) for name, power, status in rows]


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """The person's waits for a one-on-one game, for "download my data"."""
    with db.session() as s:
        rows = s.scalars(
            sa.select(DuelWaitRow).where(DuelWaitRow.person_id == person_id).order_by(DuelWaitRow.asked_at)
        ).all()
        return {
            "duel_waits": [
                {
                    "pairing": r.pairing,
                    "asked_at": as_utc(r.asked_at).isoformat(),
                    "left_at": as_utc(r.left_at).isoformat() if r.left_at else None,
                    "game": r.game,
                    "power": r.power,
                }
                for r in rows
            ]
        }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """What "delete my data" does here: the person's waits go, a wait in the queue with them (their games are
    the games' to keep, as every seat is)."""
    del now
    with db.session() as s, s.begin():
        s.execute(sa.delete(DuelWaitRow).where(DuelWaitRow.person_id == person_id))
