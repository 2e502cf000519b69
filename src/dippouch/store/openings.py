"""Open games as stored: a game a coordinator opened for sign-up, the people who signed up with their power
wishes, the powers given out (by the coordinator, or by the game from the wishes when it is full), and the
replacement pool of abandoned seats.

Seats are given with the game's own :func:`~dippouch.store.games.assign` and named with
:func:`~dippouch.store.people.persons.seat_person`, so a seat taken here is an ordinary seat: the game's history
(who played what, when) is the same as a coordinator's. Every check that decides who may take a seat runs
under the game's row lock, so two people never get one seat, and only the first of two claims wins.

A sign-up with its draw, a claim, or a coordinator's choice is one transaction with the seating it does
(:func:`_joined`): a process that dies half-way leaves the game as it was, never a seat claimed but not
handed over or sign-ups given powers nobody was seated in, and a sign-up waiting for the game's lock sees
the seats the draw before it filled. Nothing here reads the clock: every write takes ``now``.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from dippouch.core.messages import msg
from dippouch.game import GameError, GameSettings, as_utc
from dippouch.people.assign import ANY, assign_powers
from dippouch.people.reliability import PROBATION_SEATS, Record, is_newcomer, meets, on_probation
from dippouch.press.rules import PressRules, describe
from dippouch.store.access import AccessStore, hash_secret, new_secret, revoke_power_keys_in
from dippouch.store.db import Database
from dippouch.store.deadlines import pause
from dippouch.store.games import assign as seat_power
from dippouch.store.games import change_seat, create_game
from dippouch.store.models import EventRow, GameRow, PersonRow, PhaseRow, PlayerRow
from dippouch.store.models_openings import OpeningRow, SignupRow, VacancyRow
from dippouch.store.models_web import GameWebRow
from dippouch.store.people.persons import seat_person
from dippouch.store.people.reliability import record_of, records_in, reliabilities, scores_in
from dippouch.store.press.messages import rules_in, set_press_rules
from dippouch.store.readiness import powers_in_civil_disorder
from dippouch.store.rows import current_phase, game_row, game_settings, game_variant, log_event, power_name

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAX_CREATED",
    "MAX_PRESS",
    "MAX_SIGNUPS",
    "MODES",
    "LeftSeat",
    "Offer",
    "Opening",
    "PendingSignup",
    "Resigned",
    "SignUp",
    "assign_signup",
    "check_creator",
    "claim_seat",
    "created_games",
    "draw_when_full",
    "export_person",
    "fill_from_preferences",
    "forget_person",
    "free_seat",
    "invited",
    "new_invitation",
    "offered_seats",
    "open_game",
    "open_games",
    "open_new_game",
    "opening",
    "players_in",
    "resign",
    "seats_left_by",
    "sign_up",
    "signups_of",
    "starting_for",
    "withdraw",
]

MODES = ("coordinator", "preferences")
"""How an open game's powers are given out: by its coordinator, or by the game from the wishes when full."""

MAX_CREATED = 3
"""Games one person may have started from a template and not finished, whatever their seats hold (people,
bots, nobody yet): enough to host a few, too few to fill the list of open games alone or to keep the machine
busy with games of bots (a game whose every seat holds a bot no longer waits for players, but it still plays)."""

MAX_SIGNUPS = 10
"""Games one person may wait in for a power at once (sign-ups not seated yet, waiting lists included, of games
not finished): enough to find a game soon, too few to hold a place in every open game."""

MAX_PRESS = 2000
"""Characters of press rules (a paragraph or two: the press engine will read its own settings)."""


@dataclass(frozen=True)
class SignUp:
    person_id: int
    name: str
    preferences: list[str]
    signed_at: datetime
    reliability: int | None
    seated_as: str | None


@dataclass(frozen=True)
class Opening:
    """An open game as its list and its desk show it."""

    game: str
    variant: str
    press: str
    min_reliability: int
    mode: str
    opened_at: datetime
    closed_at: datetime | None
    powers: list[str]
    empty: list[str]
    """Powers nobody plays yet: the seats sign-up is for."""
    deadlines: dict[str, str]
    """The game's phase lengths by kind (``movement: 3d``...)."""
    deadline: datetime | None
    """The open phase's deadline (``None`` while the clock is held)."""
    signups: list[SignUp] = field(default_factory=list)
    draw: dict[str, Any] | None = None
    creator_id: int | None = None
    """The person who started it from a template (they coordinate it), or ``None``."""
    press_rules: PressRules | None = None
    """The rules :attr:`press` describes in English: a page describes them in its reader's language."""
    newcomers: bool = True
    """Whether newcomers may join (the game's ``GameSettings.newcomers``, its creator's choice)."""

    @property
    def waiting(self) -> list[SignUp]:
        """Sign-ups not seated yet (those beyond the empty powers are its waiting list)."""
        return [x for x in self.signups if x.seated_as is None]

    @property
    def taken(self) -> int:
        """Seats filled: powers someone (a person, a named player or a bot) plays now. Sign-ups waiting are
        counted apart (:attr:`waiting`), never as seats: a sign-up is not a seat until the draw."""
        return len(self.powers) - len(self.empty)

    @property
    def needed(self) -> int:
        """Sign-ups still wanted before every empty power has someone waiting for it (0: it starts now)."""
        return max(0, len(self.empty) - len(self.waiting))

    @property
    def waiting_list(self) -> int:
        """Sign-ups beyond the empty powers: they get a power as one comes free."""
        return max(0, len(self.waiting) - len(self.empty))


@dataclass(frozen=True)
class Offer:
    """A seat in the replacement pool."""

    game: str
    variant: str
    power: str
    reason: str
    """``disorder`` or ``freed``."""
    min_reliability: int
    deadline: datetime | None
    seat: int = 0
    """The player's row given up (``players.id``): each vacancy of a power has its own, so a seat taken and
    abandoned again is a new offer (the notifications' mark is per vacancy)."""


# --------------------------------------------------------------------------------------------------
# Reading


def _opening_row(s: Session, g: GameRow) -> OpeningRow | None:
    return s.get(OpeningRow, g.id)


def _empty(g: GameRow, powers: Sequence[str]) -> list[str]:
    seated = {r.power for r in g.players if r.replaced_at is None}
    return [p for p in powers if p not in seated]


def _opening(s: Session, g: GameRow, o: OpeningRow, *, scores: bool = True) -> Opening:
    """``scores``: read each sign-up's reliability (the desk shows it; the public list does not)."""
    v = game_variant(g)
    ph = current_phase(s, g)
    rows = list(
        s.execute(
            sa.select(SignupRow, PersonRow.name)
            .join(PersonRow, PersonRow.id == SignupRow.person_id)
            .where(SignupRow.game_id == g.id, SignupRow.withdrawn_at.is_(None))
            .order_by(SignupRow.signed_at, SignupRow.id)
        )
    )
    found = scores_in(s, [r.person_id for r, _ in rows]) if rows and scores else {}
    rules = rules_in(s, g)  # the game's rules, which every door checks (not a text of its own)
    return Opening(
        game=g.name,
        variant=g.variant,
        press=" ".join(describe(rules)),
        min_reliability=o.min_reliability,
        mode=o.mode,
        opened_at=o.opened_at,
        closed_at=o.closed_at,
        powers=list(v.power_names),
        empty=_empty(g, v.power_names),
        deadlines=dict(game_settings(g).deadlines),
        deadline=ph.deadline if ph is not None else None,
        signups=[
            SignUp(r.person_id, name, list(r.preferences), r.signed_at, found.get(r.person_id), r.seated_as)
            for r, name in rows
        ],
        draw=o.draw,
        creator_id=o.creator_id,
        press_rules=rules,
        newcomers=game_settings(g).newcomers,
    )


def opening(db: Database, game: str, *, scores: bool = True) -> Opening | None:
    """The game's opening, or ``None`` if it was never opened (``scores``: with the sign-ups' reliability)."""
    with db.session() as s:
        g = game_row(s, game)
        o = _opening_row(s, g)
        return None if o is None else _opening(s, g, o, scores=scores)


def _listed() -> sa.Select[OpeningRow, GameRow]:
    """Openings of live games that are not private (a private game is never listed, even as open)."""
    return (
        sa.select(OpeningRow, GameRow)
        .join(GameRow, GameRow.id == OpeningRow.game_id)
        .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
        .where(
            GameRow.status != "finished", sa.or_(GameWebRow.visibility.is_(None), GameWebRow.visibility != "private")
        )
        .order_by(OpeningRow.opened_at, GameRow.name)
    )


def open_games(db: Database) -> list[Opening]:
    """Games waiting for players: opened, sign-up not ended, seats still empty."""
    with db.session() as s:
        out = []
        for o, g in s.execute(_listed().where(OpeningRow.closed_at.is_(None))):
            got = _opening(s, g, o, scores=False)
            if got.empty:
                out.append(got)
        return out


def _offers(s: Session, g: GameRow, o: OpeningRow | None) -> list[tuple[str, str, PlayerRow]]:
    """(power, reason, seat) of the game's seats in the pool now: freed by the coordinator and not claimed,
    or (in an opened game) its power in civil disorder, unless a claim on that very seat is under way."""
    current = {r.power: r for r in g.players if r.replaced_at is None}
    if not current:
        return []
    rows = {
        r.player_id: r
        for r in s.scalars(sa.select(VacancyRow).where(VacancyRow.player_id.in_([r.id for r in current.values()])))
    }
    out = []
    cd = powers_in_civil_disorder(s, g, game_variant(g)) if o is not None and g.status == "active" else set()
    for power, seat in sorted(current.items()):
        row = rows.get(seat.id)
        if row is not None:
            if row.claimed_at is None:
                out.append((power, row.reason, seat))
        elif power in cd:
            out.append((power, "disorder", seat))
    return out


def offered_seats(db: Database, game: str | None = None) -> list[Offer]:
    """The replacement pool: every listed game's abandoned seats waiting for a player (or ``game``'s only)."""
    q = _listed() if game is None else _listed().where(GameRow.name == game)
    with db.read_session() as s:
        out = []
        for o, g in s.execute(q):
            ph = current_phase(s, g)
            for power, reason, seat in _offers(s, g, o):
                out.append(
                    Offer(
                        g.name,
                        g.variant,
                        power,
                        reason,
                        o.min_reliability,
                        ph.deadline if ph is not None else None,
                        seat=seat.id,
                    )
                )
        return out


def pool_people(db: Database, game: str, *, since: datetime, minimum: int = 0) -> list[int]:
    """Who a seat of ``game`` in the replacement pool is offered to: people who signed up for an open game
    since ``since`` (they want to play) and did not withdraw, do not play in ``game`` already, are not
    deleted, and reach the game's minimum reliability."""
    with db.session() as s:
        g = game_row(s, game)
        seated = {r.person_id for r in g.players if r.replaced_at is None and r.person_id is not None}
        q = (
            sa.select(SignupRow.person_id)
            .join(PersonRow, PersonRow.id == SignupRow.person_id)
            .where(
                SignupRow.signed_at >= as_utc(since), SignupRow.withdrawn_at.is_(None), PersonRow.deleted_at.is_(None)
            )
            .distinct()
        )
        people = sorted({int(p) for p in s.scalars(q)} - seated)
        newcomers = game_settings(g).newcomers
        if (minimum <= 0 and newcomers) or not people:
            return people
        scores = scores_in(s, people)
        records = records_in(s, people)
        if not newcomers:  # a seat of a game not for newcomers is not offered to one
            people = [p for p in people if not is_newcomer(records[p])]
        return [p for p in people if meets(scores.get(p), minimum, probation=newcomers and on_probation(records[p]))]


@dataclass(frozen=True)
class PendingSignup:
    """A person's sign-up waiting for a power, as their own page lists it."""

    game: str
    variant: str
    preferences: list[str]
    signed_at: datetime
    mode: str
    empty: int
    """Powers nobody plays yet."""
    ahead: int
    """Sign-ups before this one still waiting: at or beyond :attr:`empty`, it is on the waiting list."""

    @property
    def on_waiting_list(self) -> bool:
        return self.ahead >= self.empty


def signups_of(db: Database, person_id: int) -> list[PendingSignup]:
    """``person_id``'s sign-ups not seated, withdrawn, nor in a finished game, oldest first."""
    with db.session() as s:
        out = []
        rows = s.execute(
            sa.select(SignupRow, OpeningRow, GameRow)
            .join(OpeningRow, OpeningRow.game_id == SignupRow.game_id)
            .join(GameRow, GameRow.id == SignupRow.game_id)
            .where(
                SignupRow.person_id == person_id,
                SignupRow.withdrawn_at.is_(None),
                SignupRow.seated_as.is_(None),
                GameRow.status != "finished",
            )
            .order_by(SignupRow.signed_at, SignupRow.id)
        )
        for r, o, g in rows:
            ahead = s.scalar(
                sa.select(sa.func.count()).where(
                    SignupRow.game_id == o.game_id,
                    SignupRow.withdrawn_at.is_(None),
                    SignupRow.seated_as.is_(None),
                    sa.or_(
                        SignupRow.signed_at < r.signed_at,
                        sa.and_(SignupRow.signed_at == r.signed_at, SignupRow.id < r.id),
                    ),
                )
            )
            empty = len(_empty(g, game_variant(g).power_names))
            out.append(
                PendingSignup(g.name, g.variant, list(r.preferences), r.signed_at, o.mode, empty, int(ahead or 0))
            )
        return out


@dataclass(frozen=True)
class LeftSeat:
    """A seat a person gave up or lost to the pool: why (``resigned``, ``freed`` by the coordinator,
    ``disorder``), and whether someone took it."""

    game: str
    power: str
    reason: str
    at: datetime
    taken_at: datetime | None


def seats_left_by(db: Database, person_id: int) -> list[LeftSeat]:
    """The seats ``person_id`` left through the replacement pool, newest first: what their own page tells
    them (resigned, or replaced after the coordinator freed the seat), never "civil disorder" for a seat the
    coordinator freed."""
    with db.session() as s:
        q = (
            sa.select(VacancyRow, GameRow.name)
            .join(GameRow, GameRow.id == VacancyRow.game_id)
            .where(VacancyRow.from_person_id == person_id)
            .order_by(VacancyRow.offered_at.desc(), VacancyRow.id.desc())
        )
        return [LeftSeat(name, r.power, r.reason, r.offered_at, r.claimed_at) for r, name in s.execute(q)]


def starting_for(db: Database, person_id: int) -> dict[str, datetime]:
    """Games ``person_id`` plays whose sign-up just filled them (a ``started`` event) and that have not
    played their first phase yet: game -> when it started. Every seated person is told, not only the last to
    join."""
    with db.session() as s:
        q = (
            sa.select(GameRow.name, sa.func.max(EventRow.at))
            .join(PlayerRow, PlayerRow.game_id == GameRow.id)
            .join(EventRow, EventRow.game_id == GameRow.id)
            .where(
                PlayerRow.person_id == person_id,
                PlayerRow.replaced_at.is_(None),
                EventRow.kind == "started",
                GameRow.status != "finished",
                ~sa.exists().where(PhaseRow.game_id == GameRow.id, PhaseRow.status == "processed"),
            )
            .group_by(GameRow.name)
        )
        return {name: at for name, at in s.execute(q)}


def created_games(db: Database, person_id: int) -> list[str]:
    """Games ``person_id`` started from a template (they coordinate them)."""
    with db.session() as s:
        q = (
            sa.select(GameRow.name)
            .join(OpeningRow, OpeningRow.game_id == GameRow.id)
            .where(OpeningRow.creator_id == person_id)
            .order_by(GameRow.name)
        )
        return list(s.scalars(q))


def new_invitation(db: Database, game: str) -> str:
    """A new invitation link's secret for ``game``'s opening (the one before stops working); shown once, kept
    only as its hash."""
    secret = new_secret()
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        _require_opening(s, g).invite_hash = hash_secret(secret)
    return secret


def invited(db: Database, game: str, secret: str | None, person_id: int | None) -> bool:
    """Whether a reader may see ``game``'s opening though the game is private: they hold its invitation link
    (``secret``), or they signed up to it already (and wait for their power)."""
    with db.session() as s:
        g = s.scalars(sa.select(GameRow).where(GameRow.name == game)).first()
        o = None if g is None else _opening_row(s, g)
        if o is None:
            return False
        if secret and o.invite_hash is not None and secrets.compare_digest(o.invite_hash, hash_secret(secret)):
            return True
        if person_id is None:
            return False
        return (
            s.scalar(
                sa.select(SignupRow.id).where(
                    SignupRow.game_id == o.game_id, SignupRow.person_id == person_id, SignupRow.withdrawn_at.is_(None)
                )
            )
            is not None
        )


# --------------------------------------------------------------------------------------------------
# The coordinator


def _checked(press: str, mode: str, min_reliability: int) -> tuple[str, int]:
    """What an opening asks, checked before anything is locked: the press rules' text and the reliability."""
    press = str(press).strip()
    if len(press) > MAX_PRESS:
        raise GameError(
            msg("the press rules are %(length)s characters; at most %(most)s", length=len(press), most=MAX_PRESS)
        )
    if mode not in MODES:
        raise GameError(
            msg("unknown assignment mode %(mode)s: choose %(modes)s", mode=repr(mode), modes=" or ".join(MODES))
        )
    if not 0 <= int(min_reliability) <= 100:
        raise GameError(
            msg("the minimum reliability is a percentage from 0 to 100, not %(value)s", value=min_reliability)
        )
    return press, int(min_reliability)


def open_game(
    db: Database,
    game: str,
    *,
    now: datetime,
    press: str = "",
    min_reliability: int = 0,
    mode: str = "coordinator",
    creator_id: int | None = None,
) -> Opening:
    """Open ``game`` for players (or change what its opening asks). A game that has not played a phase yet
    has its clock held until its seats are filled, so nobody misses the first deadline waiting for others.
    ``creator_id``: the person who started it from a template, who coordinates it from then on (at most
    :data:`MAX_CREATED` of theirs not finished; :func:`open_new_game` makes such a game and opens it at once)."""
    now = as_utc(now)
    press, minimum = _checked(press, mode, min_reliability)
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        if creator_id is not None and _opening_row(s, g) is None:
            _check_creator(s, creator_id)
        _open(db, s, g, now=now, press=press, min_reliability=minimum, mode=mode, creator_id=creator_id)
    got = opening(db, game)
    assert got is not None
    return got


def _open(
    db: Database,
    s: Session,
    g: GameRow,
    *,
    now: datetime,
    press: str,
    min_reliability: int,
    mode: str,
    creator_id: int | None,
) -> None:
    """:func:`open_game`'s writes, in ``s``'s transaction, which holds the game's lock (and, for a person's
    game, the person's: :func:`_check_creator` counted under it)."""
    if g.status == "finished":
        raise GameError(msg("%(game)s is over: it cannot be opened for players", game=g.name))
    hold = False
    o = _opening_row(s, g)
    if o is None:
        played = s.scalar(sa.select(sa.func.count()).where(PhaseRow.game_id == g.id, PhaseRow.status == "processed"))
        hold = g.status == "active" and not played and bool(_empty(g, game_variant(g).power_names))
        o = OpeningRow(game_id=g.id, opened_at=now, closed_at=None, held_clock=hold, draw=None, creator_id=creator_id)
        s.add(o)
    elif o.closed_at is not None and _empty(g, game_variant(g).power_names):
        o.closed_at = None  # reopened: seats are empty again
    if o.mode != mode and o.draw is not None:
        raise GameError(msg("the powers were already drawn from the wishes; the mode cannot change now"))
    o.press, o.min_reliability, o.mode = press, min_reliability, mode
    log_event(s, g, now, "opened", mode=mode, min_reliability=min_reliability)
    if hold:
        pause(_joined(db, s), g.name, now=now)


def open_new_game(
    db: Database,
    person_id: int,
    name: str,
    variant: str,
    *,
    now: datetime,
    settings: GameSettings,
    press_rules: Mapping[str, Any] | None = None,
    visibility: str = "public",
    min_reliability: int = 0,
    mode: str = "preferences",
) -> Opening:
    """Make ``person_id``'s own game (``press_rules``: its press rules' data; ``visibility``: public, unlisted
    or private) and open it for players, in one transaction that first locks the person's row and counts their
    games not finished under that lock (:data:`MAX_CREATED`). Creations by one person at the same moment, in
    any process, take turns: the second counts the first's game, so the cap holds exactly (PostgreSQL: the
    person's row ``FOR UPDATE``; SQLite: the write lock every transaction takes). A refusal leaves nothing
    behind, and so does a process that dies half-way."""
    now = as_utc(now)
    _, minimum = _checked("", mode, min_reliability)
    if db.reads_without_lock:
        # SQLite: one at the cap is refused from a snapshot, without the file's write lock (a person hammering
        # "new game" held every player's submission up); a count under the cap is counted again under the lock.
        check_creator(db, person_id)
    with db.session() as s, s.begin():
        _check_creator(s, person_id, lock=True)
        inner = _joined(db, s)
        create_game(inner, name, variant, now=now, settings=settings)
        if press_rules:
            set_press_rules(inner, name, press_rules, now=now)
        AccessStore(inner).set_visibility(name, visibility)
        g = game_row(s, name, lock=True)
        _open(db, s, g, now=now, press="", min_reliability=minimum, mode=mode, creator_id=person_id)
    got = opening(db, name)
    assert got is not None
    return got


def check_creator(db: Database, person_id: int) -> None:
    """Refuse ``person_id`` a new game of their own when :data:`MAX_CREATED` of theirs are not finished (a
    look for a page; :func:`open_new_game` counts again under the person's lock)."""
    with db.read_session() as s:
        _check_creator(s, person_id)


def players_in(db: Database, game: str) -> set[int]:
    """The people who play a power of ``game`` now."""
    with db.session() as s:
        g = game_row(s, game)
        return {r.person_id for r in g.players if r.replaced_at is None and r.person_id is not None}


def _person(s: Session, person_id: int, *, lock: bool = False) -> PersonRow:
    """The person's row (``lock``: ``FOR UPDATE``, what a cap on their things is counted under), or a refusal
    for one that does not exist or deleted their data."""
    q = sa.select(PersonRow).where(PersonRow.id == person_id)
    p = s.scalars(q.with_for_update() if lock else q).first()
    if p is None or p.deleted_at is not None:
        raise GameError(msg("no person %(person)s", person=person_id))
    return p


def _check_creator(s: Session, person_id: int, *, lock: bool = False) -> None:
    """Refuse a new game of ``person_id``'s own while :data:`MAX_CREATED` of theirs are not finished: waiting
    for players or under way, played by people or by bots (``lock``: counted under their row's lock)."""
    _person(s, person_id, lock=lock)
    made = s.scalar(
        sa.select(sa.func.count())
        .select_from(OpeningRow)
        .join(GameRow, GameRow.id == OpeningRow.game_id)
        .where(OpeningRow.creator_id == person_id, GameRow.status != "finished")
    )
    if (made or 0) >= MAX_CREATED:
        raise GameError(
            msg(
                "you have %(count)d games of your own not finished (at most %(most)d), whoever plays them: one frees "
                "its place when it ends (a solo, a draw its players vote for, its last year)",
                count=made or 0,
                most=MAX_CREATED,
            )
        )


def _joined(db: Database, s: Session) -> Database:
    """``db`` inside ``s``'s transaction: every session the seating functions (:func:`seat_power`,
    :func:`seat_person`, the clock's :func:`pause` and :func:`~dippouch.store.deadlines.resume`) open on it
    runs on ``s``'s connection as a savepoint, so what they write commits with ``s`` or not at all, and the
    game's lock ``s`` holds is theirs. ``s`` is flushed first (they read what it wrote) and must not write
    rows they change afterwards (its copies of them are stale)."""
    s.flush()
    inner = copy.copy(db)
    inner.session = sessionmaker(bind=s.connection(), join_transaction_mode="create_savepoint", expire_on_commit=False)
    return inner


def _require_opening(s: Session, g: GameRow) -> OpeningRow:
    o = _opening_row(s, g)
    if o is None:
        raise GameError(msg("%(game)s is not open for players", game=g.name))
    return o


def assign_signup(db: Database, game: str, person_id: int, power: str, *, now: datetime) -> str:
    """The coordinator gives ``power`` (empty) to a person who signed up."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        o = _require_opening(s, g)
        power = power_name(game_variant(g), power)
        row = s.scalars(
            sa.select(SignupRow).where(
                SignupRow.game_id == o.game_id, SignupRow.person_id == person_id, SignupRow.withdrawn_at.is_(None)
            )
        ).first()
        if row is None:
            raise GameError(
                msg("person %(person)s has not signed up to %(game)s (or withdrew)", person=person_id, game=g.name)
            )
        if row.seated_as is not None:
            raise GameError(msg("they already play %(power)s in %(game)s", power=row.seated_as, game=g.name))
        if power not in _empty(g, game_variant(g).power_names):
            raise GameError(
                msg("%(power)s is already played in %(game)s; choose an empty power", power=power, game=g.name)
            )
        name = s.get(PersonRow, person_id)
        assert name is not None
        row.seated_as = power
        inner = _joined(db, s)
        seat_power(inner, game, power, name.name, now=now)  # the last empty power ends sign-up, restarts the clock
        seat_person(inner, game, power, person_id, now=now)
    return power


def _newcomer_let_in(g: GameRow, record: Record) -> bool:
    """Whether the person with ``record`` joins ``g`` on probation (past its minimum reliability); a newcomer
    in a game its creator kept from newcomers is refused here, with the count they lack."""
    if game_settings(g).newcomers:
        return on_probation(record)
    if is_newcomer(record):
        raise GameError(
            msg(
                "%(game)s is not for newcomers: its creator asks for players with at least %(least)d games behind "
                "them (you have %(count)d); games open to newcomers are marked so on Open games",
                game=g.name,
                least=PROBATION_SEATS,
                count=record.seats,
            )
        )
    return False


def sign_up(
    db: Database, game: str, person_id: int, preferences: Sequence[str], *, now: datetime, wait: bool = False
) -> Opening:
    """Sign ``person_id`` up with ranked power wishes (``any`` for the rest); signing up again changes the
    wishes. In an automatic game the sign-up that fills the empty seats draws the powers at once.

    A game whose seats are all played or promised refuses a sign-up unless ``wait``: then the person joins its
    waiting list, first come first served, for a power that comes free before the game starts (a player
    resigns), and is offered the seats its players leave later."""
    now = as_utc(now)
    score = reliabilities(db, [person_id]).get(person_id)
    record = record_of(db, person_id)
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        o = _require_opening(s, g)
        v = game_variant(g)
        newcomer = _newcomer_let_in(g, record)
        # The person's lock after the game's (as every sign-up takes them): their sign-ups in other games at the
        # same moment wait, so the cap on them holds.
        _person(s, person_id, lock=True)
        _check_signups(s, person_id, o.game_id)
        if o.closed_at is not None and not wait:
            raise GameError(
                msg(
                    "sign-up to %(game)s has ended: every power is played (join its waiting list to be offered a seat "
                    "its player leaves)",
                    game=g.name,
                )
            )
        if any(r.person_id == person_id and r.replaced_at is None for r in g.players):
            raise GameError(msg("you already play a power in %(game)s", game=g.name))
        if not meets(score, o.min_reliability, probation=newcomer):
            if score is None:
                raise GameError(
                    msg(
                        "%(game)s asks a reliability of at least %(least)d%%; yours is no record yet (orders on time "
                        "in other games raise it; an anonymous game counts once it ends)",
                        game=g.name,
                        least=o.min_reliability,
                    )
                )
            raise GameError(
                msg(
                    "%(game)s asks a reliability of at least %(least)d%%; yours is %(score)d%% (orders on time in "
                    "other games raise it; an anonymous game counts once it ends)",
                    game=g.name,
                    least=o.min_reliability,
                    score=score,
                )
            )
        wishes: list[str] = []
        for text in preferences:
            text = str(text).strip()
            if not text:
                continue
            name = ANY if text.lower() == ANY else power_name(v, text)
            if name in wishes:
                raise GameError(msg("%(power)s is in your wishes twice; rank each power once", power=name))
            if name != ANY and name not in v.power_names:
                raise GameError(msg("no power %(power)s in %(game)s", power=repr(text), game=g.name))
            wishes.append(name)
        empty = _empty(g, v.power_names)
        row = s.scalars(
            sa.select(SignupRow).where(SignupRow.game_id == o.game_id, SignupRow.person_id == person_id)
        ).first()
        waiting = s.scalar(
            sa.select(sa.func.count()).where(
                SignupRow.game_id == o.game_id,
                SignupRow.withdrawn_at.is_(None),
                SignupRow.seated_as.is_(None),
                SignupRow.person_id != person_id,
            )
        )
        full = o.closed_at is not None or (o.mode == "preferences" and (waiting or 0) >= len(empty))
        if full and not wait:
            raise GameError(
                msg(
                    "%(game)s is full: its %(count)d empty seats are being given out (join its waiting list instead)",
                    game=g.name,
                    count=len(empty),
                )
            )
        if row is None:
            s.add(SignupRow(game_id=o.game_id, person_id=person_id, preferences=wishes, signed_at=now))
        else:
            row.preferences, row.withdrawn_at, row.seated_as = wishes, None, None
            row.signed_at = now
        if not full and o.mode == "preferences" and (waiting or 0) + 1 == len(empty):
            # Drawn under the lock this sign-up holds: one waiting for it finds the seats filled.
            _draw(db, s, g, o, now=now, seed=secrets.randbits(32))
    got = opening(db, game, scores=False)
    assert got is not None
    return got


def _check_signups(s: Session, person_id: int, game_id: int) -> None:
    """Refuse a sign-up to one more game while ``person_id`` waits for a power in :data:`MAX_SIGNUPS` others
    (signing up again to a game they wait in changes their wishes, and is not refused)."""
    waiting = s.scalar(
        sa.select(sa.func.count())
        .select_from(SignupRow)
        .join(GameRow, GameRow.id == SignupRow.game_id)
        .where(
            SignupRow.person_id == person_id,
            SignupRow.game_id != game_id,
            SignupRow.withdrawn_at.is_(None),
            SignupRow.seated_as.is_(None),
            GameRow.status != "finished",
        )
    )
    if (waiting or 0) >= MAX_SIGNUPS:
        raise GameError(
            msg(
                "you wait for a power in %(count)d games already (at most %(most)d): withdraw from one of them "
                "(Withdraw, on its page; My games lists them) before you sign up to another",
                count=waiting or 0,
                most=MAX_SIGNUPS,
            )
        )


def withdraw(db: Database, game: str, person_id: int, *, now: datetime) -> None:
    """Take back a sign-up not yet seated."""
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        o = _require_opening(s, g)
        row = s.scalars(
            sa.select(SignupRow).where(
                SignupRow.game_id == o.game_id, SignupRow.person_id == person_id, SignupRow.withdrawn_at.is_(None)
            )
        ).first()
        if row is None:
            raise GameError(msg("you have not signed up to %(game)s", game=g.name))
        if row.seated_as is not None:
            raise GameError(
                msg(
                    "you play %(power)s in %(game)s already: resign to leave the game", power=row.seated_as, game=g.name
                )
            )
        row.withdrawn_at = as_utc(now)


def fill_from_preferences(db: Database, game: str, *, now: datetime, seed: int | None = None) -> dict[int, str]:
    """Draw the empty powers for the waiting sign-ups from their wishes (:func:`assign_powers`) and seat
    them. The seed (new at random unless given) and the outcome are recorded with the opening."""
    now = as_utc(now)
    seed = secrets.randbits(32) if seed is None else seed
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        return _draw(db, s, g, _require_opening(s, g), now=now, seed=seed)


def _draw(db: Database, s: Session, g: GameRow, o: OpeningRow, *, now: datetime, seed: int) -> dict[int, str]:
    """:func:`fill_from_preferences` in ``s``'s transaction, which holds the game's lock: the powers are
    marked and seated there, so they are all given or none is."""
    rows = list(
        s.execute(
            sa.select(SignupRow, PersonRow.name)
            .join(PersonRow, PersonRow.id == SignupRow.person_id)
            .where(SignupRow.game_id == o.game_id, SignupRow.withdrawn_at.is_(None), SignupRow.seated_as.is_(None))
            .order_by(SignupRow.signed_at, SignupRow.id)
        )
    )
    empty = _empty(g, game_variant(g).power_names)
    # More people than powers: the first to sign up are drawn, the rest stay on the waiting list in order.
    rows = rows[: len(empty)]
    if not rows:
        return {}
    got = assign_powers(empty, {r.person_id: list(r.preferences) for r, _ in rows}, seed)
    names = {r.person_id: name for r, name in rows}
    for r, _ in rows:
        r.seated_as = got.powers[r.person_id]
    earlier = (
        [] if o.draw is None else [*o.draw.get("earlier", []), {k: v for k, v in o.draw.items() if k != "earlier"}]
    )
    o.draw = {
        "seed": seed,
        "at": now.isoformat(),
        "powers": {str(k): v for k, v in sorted(got.powers.items())},
        "ranks": {str(k): v for k, v in sorted(got.ranks.items())},
        **({"earlier": earlier} if earlier else {}),
    }
    # The log (part of the game file) says which powers were drawn and with what seed, not who wished
    # for what: sign-ups are shown to the coordinator only.
    log_event(s, g, now, "drawn", seed=seed, powers=sorted(got.powers.values()))
    inner = _joined(db, s)
    for person_id, power in sorted(got.powers.items()):
        seat_power(inner, g.name, power, names[person_id], now=now)  # the last ends sign-up (store.games.assign)
        seat_person(inner, g.name, power, person_id, now=now)
    return dict(got.powers)


def draw_when_full(db: Database, game: str, *, now: datetime) -> dict[int, str]:
    """Draw the powers of an automatic game whose empty powers all have someone waiting (a bot or a player
    the coordinator seated took the last power sign-up was short of): it starts as a sign-up filling it would
    start it, without a button. Nothing happens otherwise (an empty dict)."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        o = _opening_row(s, g)
        if o is None or o.mode != "preferences" or o.closed_at is not None or g.status == "finished":
            return {}
        empty = _empty(g, game_variant(g).power_names)
        waiting = s.scalar(
            sa.select(sa.func.count()).where(
                SignupRow.game_id == o.game_id, SignupRow.withdrawn_at.is_(None), SignupRow.seated_as.is_(None)
            )
        )
        if not empty or (waiting or 0) < len(empty):
            return {}
        return _draw(db, s, g, o, now=now, seed=secrets.randbits(32))


# --------------------------------------------------------------------------------------------------
# Leaving


@dataclass(frozen=True)
class Resigned:
    """What a resignation did: ``withdrawn`` (a sign-up taken back), ``freed`` (a seat given up before the
    game started: its power is empty again, or drawn at once for the waiting list) or ``pool`` (a seat given
    up during the game: offered to the replacement pool; the player keeps it until someone claims it)."""

    game: str
    power: str | None
    how: str
    drawn: dict[int, str] = field(default_factory=dict)


def _started(s: Session, g: GameRow, o: OpeningRow | None) -> bool:
    """A game has started once its sign-up ended (every power filled: its clock runs) or it played a phase."""
    if o is None or o.closed_at is not None:
        return True
    played = s.scalar(sa.select(sa.func.count()).where(PhaseRow.game_id == g.id, PhaseRow.status == "processed"))
    return bool(played)


def resign(db: Database, game: str, person_id: int, *, now: datetime) -> Resigned:
    """``person_id`` leaves ``game`` of their own will. A sign-up not seated is withdrawn; a seat taken before
    the game started is freed (the power is empty again and, in an automatic game, drawn for the first on the
    waiting list); a seat in a game under way goes to the replacement pool and counts as abandoned in the
    person's reliability (:mod:`dippouch.store.people.reliability`). A ``resigned`` event is written in the same
    transaction for the notification channels."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        o = _opening_row(s, g)
        seat = next((r for r in g.players if r.person_id == person_id and r.replaced_at is None), None)
        row = (
            None
            if o is None
            else s.scalars(
                sa.select(SignupRow).where(
                    SignupRow.game_id == o.game_id, SignupRow.person_id == person_id, SignupRow.withdrawn_at.is_(None)
                )
            ).first()
        )
        if g.status == "finished":
            raise GameError(msg("%(game)s is over: there is nothing to resign from", game=g.name))
        if seat is None:
            if row is None:
                raise GameError(msg("you neither play a power in %(game)s nor signed up to it", game=g.name))
            row.withdrawn_at = now
            return Resigned(g.name, None, "withdrawn")
        if not _started(s, g, o):
            assert o is not None
            seat.replaced_at = now
            revoke_power_keys_in(s, g.id, seat.power, now=now)  # a freed seat takes its links with it, at once
            if row is not None:
                row.withdrawn_at = now
            log_event(s, g, now, "resigned", power=seat.power, person=person_id, player=seat.name, started=False)
            drawn = (
                _draw(db, s, g, o, now=now, seed=secrets.randbits(32))
                if o.mode == "preferences" and _waiting_count(s, o) >= len(_empty(g, game_variant(g).power_names))
                else {}
            )
            return Resigned(g.name, seat.power, "freed", drawn)
        if o is None:
            raise GameError(
                msg(
                    "%(game)s was not opened for players, so it has no replacement pool: ask its coordinator to hand "
                    "your seat (%(power)s) on",
                    game=g.name,
                    power=seat.power,
                )
            )
        if s.scalar(sa.select(VacancyRow.id).where(VacancyRow.player_id == seat.id)) is not None:
            raise GameError(
                msg("%(power)s's seat is in the replacement pool already: it waits for a new player", power=seat.power)
            )
        s.add(
            VacancyRow(
                game_id=g.id,
                power=seat.power,
                player_id=seat.id,
                reason="resigned",
                from_person_id=person_id,
                offered_at=now,
            )
        )
        log_event(s, g, now, "resigned", power=seat.power, person=person_id, player=seat.name, started=True)
        return Resigned(g.name, seat.power, "pool")


def _waiting_count(s: Session, o: OpeningRow) -> int:
    return int(
        s.scalar(
            sa.select(sa.func.count()).where(
                SignupRow.game_id == o.game_id, SignupRow.withdrawn_at.is_(None), SignupRow.seated_as.is_(None)
            )
        )
        or 0
    )


# --------------------------------------------------------------------------------------------------
# The replacement pool


def free_seat(db: Database, game: str, power: str, *, now: datetime) -> str:
    """The coordinator offers a played seat to the pool (the player left, or asked to be replaced). The
    player keeps it until someone claims it: the game never has a power without a player for this."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        _require_opening(s, g)
        power = power_name(game_variant(g), power)
        seat = next((r for r in g.players if r.power == power and r.replaced_at is None), None)
        if seat is None:
            raise GameError(
                msg(
                    "nobody plays %(power)s in %(game)s: an empty power is filled by sign-up, not the pool",
                    power=power,
                    game=g.name,
                )
            )
        if s.scalar(sa.select(VacancyRow.id).where(VacancyRow.player_id == seat.id)) is not None:
            raise GameError(msg("%(power)s's seat is in the pool already", power=power))
        s.add(
            VacancyRow(
                game_id=g.id,
                power=power,
                player_id=seat.id,
                reason="freed",
                from_person_id=seat.person_id,
                offered_at=now,
            )
        )
        # ``person``: whom the channels tell that their seat is offered (an anonymous game's log hides it).
        log_event(s, g, now, "freed", power=power, player=seat.name, person=seat.person_id)
        return power


def claim_seat(db: Database, game: str, power: str, person_id: int, *, now: datetime) -> str:
    """``person_id`` takes a seat from the pool: the first claim wins (checked under the game's lock, and by
    the one pool row a seat may have), and the seat is handed over as a replacement, so the game keeps its
    history (:func:`~dippouch.store.games.change_seat`: the old player's keys for the power are revoked in
    the same transaction)."""
    now = as_utc(now)
    score = reliabilities(db, [person_id]).get(person_id)
    record = record_of(db, person_id)
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        o = _opening_row(s, g)
        power = power_name(game_variant(g), power)
        p = s.get(PersonRow, person_id)
        if p is None or p.deleted_at is not None:
            raise GameError(msg("no person %(person)s", person=person_id))
        seat = next((r for r in g.players if r.power == power and r.replaced_at is None), None)
        offered = {pw: (reason, st) for pw, reason, st in _offers(s, g, o)}
        if power not in offered or seat is None:
            raise GameError(
                msg(
                    "%(power)s in %(game)s is not offered to the replacement pool (or was just taken)",
                    power=power,
                    game=g.name,
                )
            )
        if seat.person_id == person_id:
            raise GameError(msg("you are %(power)s's player already: send orders to take it back", power=power))
        if any(r.person_id == person_id and r.replaced_at is None for r in g.players):
            raise GameError(msg("you already play a power in %(game)s", game=g.name))
        minimum = o.min_reliability if o is not None else 0
        newcomer = _newcomer_let_in(g, record)
        if not meets(score, minimum, probation=newcomer):
            if score is None:
                raise GameError(
                    msg(
                        "%(game)s asks a reliability of at least %(least)d%%; yours is no record yet",
                        game=g.name,
                        least=minimum,
                    )
                )
            raise GameError(
                msg(
                    "%(game)s asks a reliability of at least %(least)d%%; yours is %(score)d%%",
                    game=g.name,
                    least=minimum,
                    score=score,
                )
            )
        row = s.scalars(sa.select(VacancyRow).where(VacancyRow.player_id == seat.id)).first()
        if row is None:
            row = VacancyRow(
                game_id=g.id,
                power=power,
                player_id=seat.id,
                reason=offered[power][0],
                from_person_id=seat.person_id,
                offered_at=now,
            )
            s.add(row)
        # The seat's one pool row, set only where nobody set it: a second claim finds it claimed, or
        # (a race on a seat in civil disorder) fails to insert the row the first made.
        row.claimed_by, row.claimed_at = person_id, now
        try:
            s.flush()
        except IntegrityError:
            raise GameError(
                msg("%(power)s in %(game)s was just claimed by someone else", power=power, game=g.name)
            ) from None
        log_event(s, g, now, "claimed", power=power, reason=row.reason)
        # Handed over in the claim's transaction: a claim recorded is a seat handed over, the old player's
        # links revoked and the person whose seat it was told (``seat_replaced``), all at once.
        change_seat(_joined(db, s), game, power, p.name, now=now, replace=True, person_id=person_id, reason=row.reason)
    return power


# --------------------------------------------------------------------------------------------------
# Privacy


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """The person's own data here: their sign-ups with their wishes, the seats they took from or gave to the
    pool, and the games they started from a template (for "download my data")."""
    with db.session() as s:
        signups = [
            {
                "game": name,
                "preferences": list(r.preferences),
                "signed_at": r.signed_at.isoformat(),
                "withdrawn_at": r.withdrawn_at.isoformat() if r.withdrawn_at else None,
                "seated_as": r.seated_as,
            }
            for r, name in s.execute(
                sa.select(SignupRow, GameRow.name)
                .join(GameRow, GameRow.id == SignupRow.game_id)
                .where(SignupRow.person_id == person_id)
                .order_by(SignupRow.id)
            )
        ]
        pool = [
            {
                "game": name,
                "power": r.power,
                "left": r.from_person_id == person_id,
                "claimed": r.claimed_by == person_id,
                "reason": r.reason,
                "offered_at": r.offered_at.isoformat(),
                "claimed_at": r.claimed_at.isoformat() if r.claimed_at else None,
            }
            for r, name in s.execute(
                sa.select(VacancyRow, GameRow.name)
                .join(GameRow, GameRow.id == VacancyRow.game_id)
                .where(sa.or_(VacancyRow.from_person_id == person_id, VacancyRow.claimed_by == person_id))
                .order_by(VacancyRow.id)
            )
        ]
        created = list(
            s.scalars(
                sa.select(GameRow.name)
                .join(OpeningRow, OpeningRow.game_id == GameRow.id)
                .where(OpeningRow.creator_id == person_id)
                .order_by(GameRow.name)
            )
        )
        return {"signups": signups, "replacement_pool": pool, "games_started": created}


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """Delete the person's sign-ups (with their wishes) and their name on pool rows; the seats themselves
    stay the games' history (the person's row is emptied by the accounts' own deletion)."""
    with db.session() as s, s.begin():
        s.execute(sa.delete(SignupRow).where(SignupRow.person_id == person_id))
        s.execute(sa.update(VacancyRow).where(VacancyRow.from_person_id == person_id).values(from_person_id=None))
        s.execute(sa.update(VacancyRow).where(VacancyRow.claimed_by == person_id).values(claimed_by=None))
        s.execute(sa.update(OpeningRow).where(OpeningRow.creator_id == person_id).values(creator_id=None))
