"""Games and their seats: creating a game at its variant's start (or a given position), listing games,
and who plays each power (seating, handing over, e-mail addresses).

A game stores the variant it was created with (:mod:`dippouch.store.variant_copy`); a seat is never
overwritten: handing a power over closes the old player's row and opens a new one, and revokes the old
player's keys in the same transaction (:func:`change_seat`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.catalog import load_variant
from dippouch.core.messages import hint, msg
from dippouch.core.variant import Variant, content_hash
from dippouch.game import GameError, GameSettings, RecordNotFound, as_utc, position_to_data
from dippouch.store.db import Database
from dippouch.store.deadlines import resume
from dippouch.store.gamefile import check_new_game, clean_address
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow
from dippouch.store.models_openings import OpeningRow
from dippouch.store.rows import current_phase, game_row, game_variant, log_event, open_next_phase, power_name

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "SeatChange",
    "assign",
    "change_seat",
    "create_game",
    "emails",
    "games",
    "paused",
    "players",
    "set_email",
    "start_position",
]


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
        raise GameError(msg('a position is a JSON object like {"phase": "Spring 1901 Movement", "units": [...]}'))
    for key in data:
        if key not in _POSITION_KEYS:
            close = difflib.get_close_matches(str(key), _POSITION_KEYS, n=1)
            keys = ", ".join(_POSITION_KEYS)
            if close:
                raise GameError(
                    msg(
                        "position: unknown key %(key)s; did you mean %(close)s? Keys: %(keys)s",
                        key=repr(key),
                        close=repr(close[0]),
                        keys=keys,
                    )
                )
            raise GameError(msg("position: unknown key %(key)s Keys: %(keys)s", key=repr(key), keys=keys))
    named = data.get("variant")
    if named is not None and str(named).lower() != v.name.lower():
        raise GameError(
            msg(
                "position: it is a position of %(variant)s, but the game plays %(plays)s (%(hint)s)",
                variant=repr(named),
                plays=repr(v.name),
                hint=hint("variant", "use --variant %(variant)s", variant=str(named)),
            )
        )
    opts = data.get("options")
    if opts and dict(opts) != {k: val for k, val in v.options.items() if k in dict(opts)}:
        raise GameError(
            msg(
                "position: its options %(options)s differ from the game's; pass them with -o KEY=VALUE",
                options=str(dict(opts)),
            )
        )
    if data.get("orders"):
        raise GameError(
            msg('position: a starting position has no orders; remove "orders" (or start from a request\'s "next")')
        )
    try:
        return position_from_json(v, data)
    except JsonInputError as e:
        raise GameError(msg("position: %(reason)s", reason=e.msg)) from None


def create_game(
    db: Database,
    name: str,
    variant: str,
    *,
    now: datetime,
    options: Mapping[str, Any] | None = None,
    settings: GameSettings | None = None,
    position: Mapping[str, Any] | None = None,
) -> str:
    """Create a game at the variant's start (or at ``position``, in the stored-position shape). The
    checks of a new game are those an imported one gets (:func:`dippouch.store.gamefile.check_new_game`)."""
    now = as_utc(now)
    v = load_variant(variant, options)
    name, settings = check_new_game(name, v, settings or GameSettings())
    start = start_position(v, position) if position is not None else v.start
    data = dict(v.data)
    with db.session() as s, s.begin():
        if s.scalars(sa.select(GameRow.id).where(GameRow.name == name)).first() is not None:
            raise GameError(msg("a game named %(game)s already exists; choose another name", game=repr(name)))
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
        open_next_phase(s, g, v, settings, start_data=position_to_data(v, start), seq=0, now=now)
        log_event(s, g, now, "created", variant=v.name, options=dict(v.options), variant_hash=g.variant_hash)
    return name


def paused(db: Database) -> list[str]:
    """The games paused now, by name: what the workers' looks for pauses that end by themselves go through (one
    query, where :func:`games` reads every game's row and open phase)."""
    with db.read_session() as s:
        return list(s.scalars(sa.select(GameRow.name).where(GameRow.status == "paused").order_by(GameRow.name)))


def games(db: Database) -> list[tuple[str, str, str, str | None]]:
    """(name, variant, state, current phase) for every game."""
    with db.session() as s:
        out = []
        for g in s.scalars(sa.select(GameRow).order_by(GameRow.name)):
            ph = current_phase(s, g)
            out.append((g.name, g.variant, g.status, ph.name if ph else None))
        return out


def players(db: Database, name: str) -> list[tuple[str, str | None, list[tuple[str, datetime, datetime | None]]]]:
    """(power, current player, full list of (player, from, until)) for every power."""
    with db.session() as s:
        g = game_row(s, name)
        v = game_variant(g)
        out = []
        for p in v.power_names:
            rows = [r for r in g.players if r.power == p]
            current = next((r.name for r in rows if r.replaced_at is None), None)
            out.append((p, current, [(r.name, r.assigned_at, r.replaced_at) for r in rows]))
        return out


@dataclass(frozen=True)
class SeatChange:
    """What handing a seat over did, in its one transaction: the seat's player before (``None``: it was empty)
    and the person behind them, how many of the power's player keys stopped working, and the new player's key
    (id, secret: shown once) when one was asked for."""

    power: str
    player: str
    previous: str | None
    previous_person: int | None
    revoked: int
    key: tuple[int, str] | None = None


def assign(
    db: Database,
    name: str,
    power: str,
    player: str,
    *,
    now: datetime,
    replace: bool = False,
    email: str | None = None,
    reason: str = "coordinator",
) -> str:
    """Give ``power`` to ``player`` (:func:`change_seat`); the power's name."""
    return change_seat(db, name, power, player, now=now, replace=replace, email=email, reason=reason).power


def change_seat(
    db: Database,
    name: str,
    power: str,
    player: str,
    *,
    now: datetime,
    replace: bool = False,
    email: str | None = None,
    person_id: int | None = None,
    reason: str = "coordinator",
    only_from: tuple[str, ...] | None = None,
    new_key: bool = False,
) -> SeatChange:
    """Give ``power`` to ``player``. ``replace`` hands it over from the current player (or from civil
    disorder), which is how a power in civil disorder comes back into the game.

    Every seat is made here, by the desk, the command line, a sign-up, a draw, a claim, a bot or a DAIDE client
    alike, and everything a seat changing hands implies is done in the one transaction that changes it, under
    the game's lock, so no crash or race leaves it half done:

    - the power's player keys are revoked when the seat is handed over (a player replaced keeps no link that
      orders for it; a browser signed in with one loses the seat at once);
    - the replaced player's person (if any) is told, by a ``seat_replaced`` event (``reason``: why) that the
      notification channels hand on as their ``seat_lost``;
    - ``person_id`` names the person who plays it now (their address matched, they claimed it);
    - ``only_from``: a seat held now is taken only from a player whose name starts with one of these (a
      program's seat: a bot's, a DAIDE client's) and who is no person, checked here, so a person seated a moment
      earlier keeps the seat;
    - ``new_key``: the new player's key is made with it;
    - a game opened for players (:mod:`dippouch.store.openings`) ends its sign-up when its last empty power is
      filled, and restarts the clock its opening held: the game starts the same way whoever filled it."""
    # The keys' tables are mapped only when a seat is given (a command that submits orders never needs them).
    from dippouch.store.access import add_key, revoke_power_keys_in

    now = as_utc(now)
    player = player.strip()
    if not player:
        raise GameError(msg("a player needs a name"))
    address = clean_address(email) if email is not None else None
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        v = game_variant(g)
        power = power_name(v, power)
        current = [r for r in g.players if r.power == power and r.replaced_at is None]
        if current and not replace:
            raise GameError(
                msg(
                    "%(power)s is already played by %(player)s; %(hint)s",
                    power=power,
                    player=current[0].name,
                    hint=hint("replace", "use `dippouch players replace` to hand it over"),
                )
            )
        if current and only_from is not None:
            held = current[0]
            if held.person_id is not None or not held.name.startswith(only_from):
                raise GameError(
                    msg(
                        "%(power)s is played by %(player)s now; a program takes only an empty seat or a bot's",
                        power=power,
                        player=held.name,
                    )
                )
        if person_id is not None:
            p = s.get(PersonRow, person_id)
            if p is None or p.deleted_at is not None:
                raise RecordNotFound(msg("no person %(person)s", person=person_id))
        for r in current:
            r.replaced_at = now
        s.add(
            PlayerRow(
                game_id=g.id,
                power=power,
                name=player,
                assigned_at=now,
                replaced_at=None,
                email=address,
                person_id=person_id,
            )
        )
        log_event(s, g, now, "replace" if replace else "assign", power=power, player=player)
        if person_id is not None:
            log_event(s, g, now, "person", power=power, player=player)
        # An empty seat taken over (``replace``) may still have links of a player from before: they go too.
        revoked = revoke_power_keys_in(s, g.id, power, now=now) if current or replace else 0
        before = current[0] if current else None
        if before is not None:
            # Told to the person whose seat it was (a seat held by a name or a program tells no one).
            log_event(s, g, now, "seat_replaced", power=power, reason=reason, person=before.person_id)
        key = add_key(s, "player", g.id, power, player, now=now) if new_key else None
        restart = _fill_opening(s, g, v, power, now)
    if restart:
        resume(db, name, now=now)
    return SeatChange(
        power,
        player,
        before.name if before is not None else None,
        before.person_id if before is not None else None,
        revoked,
        key,
    )


def _fill_opening(s: sa.orm.Session, g: GameRow, v: Variant, seated_now: str, now: datetime) -> bool:
    """Close the game's opening if ``seated_now`` filled its last empty power; True when the clock the
    opening held is to restart (it still is held: a coordinator may have resumed it by hand meanwhile)."""
    o = s.get(OpeningRow, g.id)
    if o is None or o.closed_at is not None:
        return False
    seated = {r.power for r in g.players if r.replaced_at is None} | {seated_now}
    if any(p not in seated for p in v.power_names):
        return False
    o.closed_at = now
    restart = bool(o.held_clock) and g.status == "paused"
    o.held_clock = False
    played = s.scalar(sa.select(sa.func.count()).where(PhaseRow.game_id == g.id, PhaseRow.status == "processed"))
    if not played:
        # Every seated person is told the game starts (their page, and the notification channels, which hand
        # a ``started`` row on as their ``game_starting``), in the transaction that filled the last power.
        ph = current_phase(s, g)
        due = ph.deadline.isoformat() if ph is not None and ph.deadline is not None else None
        log_event(s, g, now, "started", powers=sorted(seated), phase=ph.name if ph is not None else "", deadline=due)
    return restart


def set_email(db: Database, name: str, power: str, email: str | None, *, now: datetime) -> str:
    """Give the current player of ``power`` an e-mail address (``None`` removes it)."""
    now = as_utc(now)
    address = clean_address(email) if email else None
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        power = power_name(game_variant(g), power)
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
        current[0].email = address
        log_event(s, g, now, "email", power=power, player=current[0].name)
        return power


def emails(db: Database, name: str) -> dict[str, tuple[str, str | None]]:
    """Power -> (current player, e-mail address) for every seated power."""
    with db.session() as s:
        g = game_row(s, name)
        return {r.power: (r.name, r.email) for r in g.players if r.replaced_at is None}
