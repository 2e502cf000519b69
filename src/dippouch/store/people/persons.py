"""People as stored: a person, the seats they play, and finding them by their address.

A person is known by a name and, optionally, an e-mail address (sign-in links go there). A seat names its
person in ``players.person_id``; a signed-in browser in ``web_sessions.person_id``
(:mod:`dippouch.store.access`). Nothing here reads the clock: every write takes ``now``.

Only the store speaks SQL; the web, the mail and the CLI call these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from dippouch.core.messages import hint, msg
from dippouch.game import GameError, RecordNotFound, as_utc, read_time_zone
from dippouch.i18n import LANGUAGES
from dippouch.people import anonymity
from dippouch.store.db import Database
from dippouch.store.gamefile import clean_address
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow
from dippouch.store.rows import game_row, game_variant, log_event, power_name

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAX_NAME",
    "Person",
    "Preferences",
    "Seat",
    "clean_name",
    "clean_time_zone",
    "create_person",
    "names_hidden",
    "person",
    "person_by_email",
    "preferences",
    "preferences_of",
    "rename_person",
    "seat_people",
    "seat_person",
    "seats_of",
    "set_language",
    "set_time_zone",
]

MAX_NAME = 200


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    email: str | None
    created_at: datetime
    deleted: bool


@dataclass(frozen=True)
class Seat:
    """A seat a person plays now: the game, its power, and what the game is doing."""

    game: str
    variant: str
    power: str
    status: str
    """The game's state (``active``, ``paused``, ``finished``...)."""
    phase: str | None
    """The open phase's name, if one is open."""
    deadline: datetime | None
    since: datetime


def _person(r: PersonRow) -> Person:
    return Person(r.id, r.name, r.email, r.created_at, r.deleted_at is not None)


def clean_name(name: str) -> str:
    """A person's name as stored: spaces folded, 1 to :data:`MAX_NAME` characters, or a clear error."""
    name = " ".join(str(name).split())
    if not name:
        raise GameError(msg("a person needs a name"))
    if len(name) > MAX_NAME:
        raise GameError(
            msg("a name is at most %(most)s characters (this one has %(length)s)", most=MAX_NAME, length=len(name))
        )
    return name


def create_person(db: Database, name: str, *, now: datetime, email: str | None = None) -> int:
    """A new person; their e-mail address (lower-cased) must not be another person's."""
    name = clean_name(name)
    address = clean_address(email).lower() if email else None
    with db.session() as s, s.begin():
        if address is not None and s.scalar(sa.select(PersonRow.id).where(PersonRow.email == address)) is not None:
            raise GameError(
                msg(
                    "%(address)s already belongs to a person: sign in with a link mailed there instead", address=address
                )
            )
        row = PersonRow(name=name, email=address, created_at=as_utc(now), deleted_at=None)
        s.add(row)
        s.flush()
        return row.id


def person(db: Database, person_id: int) -> Person | None:
    with db.session() as s:
        r = s.get(PersonRow, person_id)
        return None if r is None else _person(r)


def person_by_email(db: Database, email: str) -> Person | None:
    """The live person whose address this is (case ignored), or None."""
    try:
        address = clean_address(email).lower()
    except GameError:
        return None
    with db.session() as s:
        r = s.scalars(sa.select(PersonRow).where(PersonRow.email == address, PersonRow.deleted_at.is_(None))).first()
        return None if r is None else _person(r)


def rename_person(db: Database, person_id: int, name: str) -> None:
    name = clean_name(name)
    with db.session() as s, s.begin():
        r = s.get(PersonRow, person_id)
        if r is None or r.deleted_at is not None:
            raise RecordNotFound(msg("no person %(person)s", person=person_id))
        r.name = name


@dataclass(frozen=True)
class Preferences:
    """How a person reads: the language of their pages, mail and notices (a code of
    :data:`dippouch.i18n.LANGUAGES`) and the time zone their dates are shown in (an IANA name such as
    ``Europe/Berlin``); ``None`` where they chose nothing (the browser's language, the game's zone)."""

    language: str | None = None
    time_zone: str | None = None


def preferences(db: Database, person_id: int) -> Preferences:
    """A person's choices (none for a person who does not exist or whose data is deleted)."""
    return preferences_of(db, [person_id]).get(person_id, Preferences())


def preferences_of(db: Database, person_ids: list[int]) -> dict[int, Preferences]:
    """The choices of several people in one read (a notice to a game's players), by person id; people who
    chose nothing, or do not exist, are left out."""
    ids = sorted(set(person_ids))
    if not ids:
        return {}
    with db.session() as s:
        q = sa.select(PersonRow.id, PersonRow.language, PersonRow.time_zone).where(
            PersonRow.id.in_(ids),
            PersonRow.deleted_at.is_(None),
            sa.or_(PersonRow.language.is_not(None), PersonRow.time_zone.is_not(None)),
        )
        return {pid: Preferences(lang, zone) for pid, lang, zone in s.execute(q)}


def set_language(db: Database, person_id: int, language: str | None) -> None:
    """Keep ``language`` as the person's (``None``: back to their browser's)."""
    if language is not None and language not in LANGUAGES:
        raise GameError(
            msg(
                "no language %(language)s; languages: %(languages)s",
                language=repr(language),
                languages=", ".join(LANGUAGES),
            )
        )
    _set(db, person_id, language=language)


def clean_time_zone(zone: str) -> str:
    """An IANA time zone name as the zone database spells it, or a clear error: read as a game's zone is
    (``Europe``, a folder of the zone database, is an unknown zone, not an OSError)."""
    return read_time_zone(str(zone).strip()).key


def set_time_zone(db: Database, person_id: int, zone: str | None) -> None:
    """Keep ``zone`` as the person's time zone (``None``: the game's, else UTC)."""
    _set(db, person_id, time_zone=None if zone is None else clean_time_zone(zone))


def _set(db: Database, person_id: int, **values: str | None) -> None:
    with db.session() as s, s.begin():
        r = s.get(PersonRow, person_id)
        if r is None or r.deleted_at is not None:
            raise RecordNotFound(msg("no person %(person)s", person=person_id))
        for name, value in values.items():
            setattr(r, name, value)


def seat_person(db: Database, game: str, power: str, person_id: int, *, now: datetime) -> str:
    """Name ``person_id`` as the player of the seat ``power`` holds now (seated already, by name)."""
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        power = power_name(game_variant(g), power)
        p = s.get(PersonRow, person_id)
        if p is None or p.deleted_at is not None:
            raise RecordNotFound(msg("no person %(person)s", person=person_id))
        current = [r for r in g.players if r.power == power and r.replaced_at is None]
        if not current:
            raise GameError(
                msg(
                    "nobody plays %(power)s in %(game)s; %(hint)s",
                    power=power,
                    game=g.name,
                    hint=hint("assign", "seat a player first (`dippouch players assign`)"),
                )
            )
        current[0].person_id = person_id
        log_event(s, g, as_utc(now), "person", power=power, player=current[0].name)
        return power


def seats_of(db: Database, person_id: int) -> list[Seat]:
    """The seats ``person_id`` plays now, by game name."""
    open_phase = (
        sa.select(PhaseRow.game_id, PhaseRow.name, PhaseRow.deadline).where(PhaseRow.status == "open").subquery()
    )
    q = (
        sa.select(
            GameRow.name,
            GameRow.variant,
            PlayerRow.power,
            GameRow.status,
            open_phase.c.name,
            open_phase.c.deadline,
            PlayerRow.assigned_at,
        )
        .join(GameRow, GameRow.id == PlayerRow.game_id)
        .outerjoin(open_phase, open_phase.c.game_id == GameRow.id)
        .where(PlayerRow.person_id == person_id, PlayerRow.replaced_at.is_(None))
        .order_by(GameRow.name, PlayerRow.power)
    )
    with db.session() as s:
        return [Seat(*row) for row in s.execute(q)]


def seat_people(db: Database, game: str) -> dict[str, int]:
    """The person who plays each of ``game``'s seats now, by power: the pages link a player's name to their
    person page with it. A seat held by a name only (a desk's seat, a bot) or by a person who deleted their
    data has none; the caller decides who may know (an anonymous game's names are hidden)."""
    q = (
        sa.select(PlayerRow.power, PlayerRow.person_id)
        .join(GameRow, GameRow.id == PlayerRow.game_id)
        .join(PersonRow, PersonRow.id == PlayerRow.person_id)
        .where(GameRow.name == game, PlayerRow.replaced_at.is_(None), PersonRow.deleted_at.is_(None))
    )
    with db.session() as s:
        return {str(power): int(pid) for power, pid in s.execute(q) if pid is not None}


def names_hidden(db: Database, game: str) -> bool:
    """Whether ``game`` hides its players' names now (anonymous and not finished:
    :func:`dippouch.people.anonymity.names_hidden`); an unknown game hides nothing (it shows nothing)."""
    with db.session() as s:
        row = s.execute(sa.select(GameRow.settings, GameRow.status).where(GameRow.name == game)).first()
    return row is not None and anonymity.names_hidden(row.settings, str(row.status))
