"""The rulebook's player list as stored: each person's postal addresses (a primary one and dated alternates),
each game's setting for who reads them, and the rosters built from them.

Addresses belong to a person and are typed once; which one is in force on a day is
:func:`dippouch.people.addresses.address_in_force`'s answer, never stored. Who may read a roster is decided by
the caller (the web) from :func:`roster_visibility`; this module hands rosters to whoever asks, so every
caller that shows one must ask first. Nothing here reads the clock: every write takes ``now``, every roster
its day.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import msg
from dippouch.game import GameError, RecordNotFound, as_utc
from dippouch.people.addresses import PostalAddress, address_in_force, changes_ahead
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PersonRow, PlayerRow
from dippouch.store.people.models import GameRosterRow, PostalAddressRow
from dippouch.store.rows import game_row, game_variant, log_event

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAX_ADDRESSES",
    "VISIBILITIES",
    "RosterEntry",
    "RosterGame",
    "add_address",
    "addresses_of",
    "edit_address",
    "export_person",
    "forget_person",
    "remove_address",
    "roster",
    "roster_visibility",
    "set_roster_visibility",
]

VISIBILITIES = {
    "coordinator": "the game's coordinator only",
    "co-players": "the game's players and its coordinator",
    "nobody": "nobody (each person sees only their own)",
}
MAX_ADDRESSES = 40
MAX_TEXT = 1000
MAX_LINES = 12


def _clean_text(text: str) -> str:
    lines = [" ".join(line.split()) for line in str(text).replace("\r\n", "\n").split("\n")]
    lines = [line for line in lines if line]
    if not lines:
        raise GameError(msg("address: write the address, one line per line of the envelope"))
    if len(lines) > MAX_LINES:
        raise GameError(
            msg(
                "address: at most %(most)s lines (this one has %(count)s); join the shortest lines",
                most=MAX_LINES,
                count=len(lines),
            )
        )
    out = "\n".join(lines)
    if len(out) > MAX_TEXT:
        raise GameError(
            msg("address: at most %(most)s characters (this one has %(count)s)", most=MAX_TEXT, count=len(out))
        )
    if any(ord(c) < 32 and c != "\n" for c in out):
        raise GameError(msg("address: control characters are not allowed; write plain text"))
    return out


def _days(first: date | None, last: date | None) -> tuple[date | None, date | None]:
    if (first is None) != (last is None):
        raise GameError(
            msg("an alternate address needs both days ('from' and 'to'); leave both empty for the primary address")
        )
    if first is not None and last is not None and last < first:
        raise GameError(
            msg(
                "to: %(last)s is before 'from' (%(first)s); did you mean from %(last)s to %(first)s?",
                last=last.isoformat(),
                first=first.isoformat(),
            )
        )
    return first, last


def _live_person(s: sa.orm.Session, person_id: int) -> PersonRow:
    p = s.get(PersonRow, person_id, with_for_update=True)
    if p is None or p.deleted_at is not None:
        raise RecordNotFound(msg("no person %(person)s", person=person_id))
    return p


def _primary_taken(s: sa.orm.Session, person_id: int, but: int | None = None) -> bool:
    q = sa.select(PostalAddressRow.id).where(
        PostalAddressRow.person_id == person_id, PostalAddressRow.first_day.is_(None)
    )
    if but is not None:
        q = q.where(PostalAddressRow.id != but)
    return s.scalar(q.limit(1)) is not None


def add_address(
    db: Database,
    person_id: int,
    text: str,
    *,
    now: datetime,
    first_day: date | None = None,
    last_day: date | None = None,
) -> int:
    """A new address of the person: the primary one (no days; one only) or an alternate for its days."""
    text = _clean_text(text)
    first_day, last_day = _days(first_day, last_day)
    with db.session() as s, s.begin():
        _live_person(s, person_id)
        count = s.scalar(sa.select(sa.func.count()).where(PostalAddressRow.person_id == person_id)) or 0
        if count >= MAX_ADDRESSES:
            raise GameError(
                msg(
                    "you have %(count)s addresses already (at most %(most)s); remove past ones first",
                    count=count,
                    most=MAX_ADDRESSES,
                )
            )
        if first_day is None and _primary_taken(s, person_id):
            raise GameError(
                msg("you have a primary address already; edit it, or give this one the days it is preferred on")
            )
        row = PostalAddressRow(
            person_id=person_id, text=text, first_day=first_day, last_day=last_day, created_at=as_utc(now)
        )
        s.add(row)
        s.flush()
        return row.id


def _mine(s: sa.orm.Session, person_id: int, address_id: int) -> PostalAddressRow:
    row = s.get(PostalAddressRow, address_id)
    if row is None or row.person_id != person_id:
        # Another person's address is "no such address", as a missing one: nothing to learn by guessing ids.
        raise GameError(msg("you have no address #%(id)s", id=address_id))
    return row


def edit_address(
    db: Database, person_id: int, address_id: int, text: str, *, first_day: date | None, last_day: date | None
) -> None:
    text = _clean_text(text)
    first_day, last_day = _days(first_day, last_day)
    with db.session() as s, s.begin():
        _live_person(s, person_id)
        row = _mine(s, person_id, address_id)
        if first_day is None and _primary_taken(s, person_id, but=address_id):
            raise GameError(msg("you have a primary address already; give this one the days it is preferred on"))
        row.text, row.first_day, row.last_day = text, first_day, last_day


def remove_address(db: Database, person_id: int, address_id: int) -> None:
    with db.session() as s, s.begin():
        s.delete(_mine(s, person_id, address_id))


def _address(r: PostalAddressRow) -> PostalAddress:
    return PostalAddress(r.id, r.text, r.first_day, r.last_day)


def addresses_of(db: Database, person_id: int) -> list[PostalAddress]:
    """The person's addresses: the primary first, then alternates by their first day."""
    with db.session() as s:
        rows = s.scalars(sa.select(PostalAddressRow).where(PostalAddressRow.person_id == person_id))
        out = [_address(r) for r in rows]
    return sorted(out, key=lambda a: (a.first_day is not None, a.first_day or date.min, a.id))


# ------------------------------------------------------------------------------------------------ settings


def _default_visibility(g: GameRow) -> str:
    data: Any = g.variant_data if g.variant_data is not None else game_variant(g).data
    value = (data.get("roster") or {}).get("visibility") if isinstance(data, dict) else None
    return value if value in VISIBILITIES else "coordinator"


def _settings_row(s: sa.orm.Session, g: GameRow) -> GameRosterRow:
    row = s.get(GameRosterRow, g.id)
    if row is None:
        row = GameRosterRow(game_id=g.id, roster_visibility=None, absence_policy="none", budget_days=14)
        s.add(row)
    return row


def roster_visibility(db: Database, game: str) -> str:
    """Who reads the game's player list: the game's own setting, else its variant's default (W3K: co-players)."""
    with db.session() as s:
        g = game_row(s, game)
        row = s.get(GameRosterRow, g.id)
        if row is not None and row.roster_visibility in VISIBILITIES:
            return row.roster_visibility
        return _default_visibility(g)


def set_roster_visibility(db: Database, game: str, value: str, *, now: datetime) -> str:
    value = str(value).strip().lower().replace("_", "-")
    if value not in VISIBILITIES:
        raise GameError(
            msg(
                "roster_visibility: %(value)s is not a choice; choose one of %(choices)s",
                value=repr(value),
                choices=", ".join(VISIBILITIES),
            )
        )
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        _settings_row(s, g).roster_visibility = value
        log_event(s, g, as_utc(now), "roster_visibility", visibility=value)
        return value


# ------------------------------------------------------------------------------------------------ rosters


@dataclass(frozen=True)
class RosterEntry:
    power: str
    player: str
    person_id: int | None
    emails: tuple[str, ...]
    """The person's sign-in address and the seat's mail address, once each."""
    address: str | None
    """The postal address in force on the roster's day."""
    until: date | None
    """The last day of a dated alternate in force, else None."""
    changes: tuple[tuple[date, str | None], ...] = ()
    """Upcoming changes: from this day, this address (None: no address)."""


@dataclass(frozen=True)
class RosterGame:
    game: str
    variant: str
    status: str
    visibility: str
    entries: list[RosterEntry] = field(default_factory=list)


def roster(db: Database, games: Sequence[str] | None, day: date) -> list[RosterGame]:
    """Every seated power of ``games`` (None: every game), with its player and, for a seat a person plays,
    the address in force on ``day`` and its changes ahead. The caller decides who may read it."""
    with db.session() as s:
        q = sa.select(GameRow).order_by(GameRow.name)
        if games is not None:
            q = q.where(GameRow.name.in_(list(games)))
        game_rows = list(s.scalars(q))
        ids = [g.id for g in game_rows]
        seats = s.execute(
            sa.select(PlayerRow.game_id, PlayerRow.power, PlayerRow.name, PlayerRow.email, PersonRow)
            .outerjoin(PersonRow, PersonRow.id == PlayerRow.person_id)
            .where(PlayerRow.game_id.in_(ids), PlayerRow.replaced_at.is_(None))
            .order_by(PlayerRow.game_id, PlayerRow.power)
        ).all()
        person_ids = {p.id for *_, p in seats if p is not None and p.deleted_at is None}
        by_person: dict[int, list[PostalAddress]] = {}
        if person_ids:
            for r in s.scalars(sa.select(PostalAddressRow).where(PostalAddressRow.person_id.in_(person_ids))):
                by_person.setdefault(r.person_id, []).append(_address(r))
        settings = {r.game_id: r for r in s.scalars(sa.select(GameRosterRow).where(GameRosterRow.game_id.in_(ids)))}
        out: dict[int, RosterGame] = {}
        for g in game_rows:
            row = settings.get(g.id)
            vis = row.roster_visibility if row is not None and row.roster_visibility else _default_visibility(g)
            out[g.id] = RosterGame(g.name, g.variant, g.status, vis)
        for game_id, power, name, seat_email, p in seats:
            live = p is not None and p.deleted_at is None
            mine = by_person.get(p.id, []) if live else []
            now_at = address_in_force(mine, day)
            emails = tuple(dict.fromkeys(e for e in ((p.email if live else None), seat_email) if e))
            out[game_id].entries.append(
                RosterEntry(
                    power=power,
                    player=p.name if live else name,
                    person_id=p.id if live else None,
                    emails=emails,
                    address=now_at.text if now_at else None,
                    until=now_at.last_day if now_at else None,
                    changes=tuple((d, a.text if a else None) for d, a in changes_ahead(mine, day)),
                )
            )
        return [out[g.id] for g in game_rows]


# ------------------------------------------------------------------------------------------------ privacy


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """The person's postal addresses, for "download my data"."""
    return {
        "postal_addresses": [
            {
                "id": a.id,
                "address": a.text,
                "from": a.first_day.isoformat() if a.first_day else None,
                "to": a.last_day.isoformat() if a.last_day else None,
            }
            for a in addresses_of(db, person_id)
        ]
    }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """Delete every postal address of the person ("delete my data"), and their name as a game's stand-in."""
    with db.session() as s, s.begin():
        s.execute(sa.delete(PostalAddressRow).where(PostalAddressRow.person_id == person_id))
        s.execute(
            sa.update(GameRosterRow)
            .where(GameRosterRow.stand_in_person_id == person_id)
            .values(stand_in_person_id=None)
        )
