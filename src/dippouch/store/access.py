"""Who may do what on the web, and the few queries the web app needs beyond :class:`GameStore`.

Secrets are 256-bit random tokens handed out once (a player's link, a coordinator key, a session
cookie); the database keeps only their SHA-256. A fast hash is right here: the tokens are random and
long, so there is nothing to guess from a hash, and every request must check one without delay.
Revoking is a timestamp, checked on every request, so a revoked link stops working at once, in every
browser that signed in with it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import msg
from dippouch.game import GameError, RecordNotFound, as_utc
from dippouch.people.anonymity import PERSONAL_EVENTS
from dippouch.store.db import Database
from dippouch.store.domains import stand_in_seats
from dippouch.store.models import EventRow, GameRow, PersonRow, PhaseRow, PlayerRow, SubmissionRow, VoteRow
from dippouch.store.models_openings import OpeningRow
from dippouch.store.models_web import AccessKeyRow, GameWebRow, SessionKeyRow, WebSessionRow
from dippouch.store.records import PhaseTimes, StoredPhase

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "STAND_IN",
    "VISIBILITIES",
    "AccessStore",
    "Grant",
    "KeyInfo",
    "add_key",
    "hash_secret",
    "new_secret",
    "revoke_power_keys_in",
]

VISIBILITIES = ("public", "unlisted", "private")
SESSION_LIFETIME = timedelta(days=30)
SECRET_PREFIX = "dp_"
STAND_IN = "stand_in"
"""The role of a stand-in's grant: a seat to order while its player is away, not the player's own. Every check
of a player (``role == "player"``) leaves it out, so the seat's press, draw votes and sealed orders stay the
player's; only the pages that order a seat accept it (:func:`dippouch.web.views.player_page.require_seat`)."""


def new_secret() -> str:
    """A fresh secret: 32 random bytes, URL-safe (43 characters after the prefix)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def add_key(
    s: sa.orm.Session, role: str, game_id: int | None, power: str | None, label: str, *, now: datetime
) -> tuple[int, str]:
    """A new key in ``s``'s transaction (a seat handed over and its new player's key commit together): its id
    and its secret, returned once and never stored."""
    secret = new_secret()
    row = AccessKeyRow(
        key_hash=hash_secret(secret),
        role=role,
        game_id=game_id,
        power=power,
        label=label[:200],
        created_at=as_utc(now),
        revoked_at=None,
    )
    s.add(row)
    s.flush()
    return row.id, secret


def revoke_power_keys_in(s: sa.orm.Session, game_id: int, power: str, *, now: datetime) -> int:
    """Revoke every live player key of ``power`` in ``s``'s transaction, so a seat never changes hands while its
    old player's links still work (:func:`dippouch.store.games.change_seat`); how many were revoked. A session
    signed in with such a key loses the seat with it: its grants are read from live keys only."""
    rows = s.scalars(
        sa.select(AccessKeyRow).where(
            AccessKeyRow.game_id == game_id,
            AccessKeyRow.power == power,
            AccessKeyRow.role == "player",
            AccessKeyRow.revoked_at.is_(None),
        )
    ).all()
    for r in rows:
        r.revoked_at = as_utc(now)
    return len(rows)


@dataclass(frozen=True)
class Grant:
    """One thing a signed-in browser may do: play ``power`` in ``game``, order it as its stand-in
    (:data:`STAND_IN`), or coordinate ``game`` (None: all)."""

    key_id: int
    role: str
    game: str | None
    power: str | None


@dataclass(frozen=True)
class KeyInfo:
    id: int
    role: str
    game: str | None
    power: str | None
    label: str
    created_at: datetime
    revoked_at: datetime | None


class AccessStore:
    """Access keys, sessions and per-game web settings, in the game database."""

    def __init__(self, store: Database, reader: Database | None = None) -> None:
        self.store = store
        self.session = store.session
        self.reader = reader or store
        """Where the read-only methods read (a :meth:`GameStore.reader` on a busy SQLite server)."""

    # ----------------------------------------------------------------------------------------------
    # Keys

    def _game_id(self, s: sa.orm.Session, game: str) -> int:
        gid = s.scalars(sa.select(GameRow.id).where(GameRow.name == game)).first()
        if gid is None:
            raise RecordNotFound(msg("no game %(game)s", game=repr(game)))
        return gid

    def create_key(
        self, role: str, *, now: datetime, game: str | None = None, power: str | None = None, label: str = ""
    ) -> tuple[int, str]:
        """A new key; the secret is returned once and never stored."""
        if role not in ("player", "coordinator"):
            raise GameError(msg("unknown role %(role)s", role=repr(role)))
        if role == "player" and (game is None or power is None):
            raise GameError(msg("a player's key names a game and a power"))
        with self.session() as s, s.begin():
            gid = self._game_id(s, game) if game is not None else None
            return add_key(s, role, gid, power, label, now=now)

    def keys(self, game: str | None) -> list[KeyInfo]:
        """Keys of one game (or the installation's coordinator keys when ``game`` is None), newest last."""
        with self.reader.session() as s:
            q = sa.select(AccessKeyRow, GameRow.name).outerjoin(GameRow, GameRow.id == AccessKeyRow.game_id)
            q = q.where(AccessKeyRow.game_id.is_(None)) if game is None else q.where(GameRow.name == game)
            return [
                KeyInfo(r.id, r.role, name, r.power, r.label, r.created_at, r.revoked_at)
                for r, name in s.execute(q.order_by(AccessKeyRow.id))
            ]

    def coordinator_key_count(self) -> int:
        with self.reader.session() as s:
            q = sa.select(sa.func.count(AccessKeyRow.id)).where(
                AccessKeyRow.role == "coordinator", AccessKeyRow.revoked_at.is_(None)
            )
            return int(s.scalar(q) or 0)

    def revoke_key(self, key_id: int, *, now: datetime, game: str | None = None) -> KeyInfo:
        """Revoke a key (of ``game``, when given: a game's coordinator cannot revoke another game's keys)."""
        with self.session() as s, s.begin():
            row = s.get(AccessKeyRow, key_id)
            gname = s.scalar(sa.select(GameRow.name).where(GameRow.id == row.game_id)) if row and row.game_id else None
            if row is None or (game is not None and gname != game):
                raise GameError(msg("no key %(key)s in this game", key=key_id))
            if row.revoked_at is None:
                row.revoked_at = as_utc(now)
            return KeyInfo(row.id, row.role, gname, row.power, row.label, row.created_at, row.revoked_at)

    def revoke_power_keys(self, game: str, power: str, *, now: datetime) -> int:
        """Revoke every player key of a power (when the power is handed to a new player)."""
        with self.session() as s, s.begin():
            return revoke_power_keys_in(s, self._game_id(s, game), power, now=now)

    def find_key(self, secret: str) -> Grant | None:
        """The live key a secret opens, or None (unknown, malformed or revoked: the caller cannot tell which)."""
        if not secret.startswith(SECRET_PREFIX) or not 20 <= len(secret) <= 200:
            return None
        with self.reader.one_read.connect() as conn:
            hit = conn.execute(_KEY, {"h": hash_secret(secret)}).first()
            conn.rollback()
        if hit is None:
            return None
        return Grant(int(hit[0]), str(hit[1]), hit[2], hit[3])

    # ----------------------------------------------------------------------------------------------
    # Sessions

    def start_session(self, key_ids: Iterable[int], *, now: datetime, person_id: int | None = None) -> str:
        """A new session holding these keys (seat grants, key id 0, are not keys and are left out), signed
        in as ``person_id`` when given."""
        token = new_secret()
        now = as_utc(now)
        with self.session() as s, s.begin():
            row = WebSessionRow(
                token_hash=hash_secret(token),
                created_at=now,
                expires_at=now + SESSION_LIFETIME,
                revoked_at=None,
                person_id=person_id,
            )
            s.add(row)
            s.flush()
            for k in {k for k in key_ids if k > 0}:
                s.add(SessionKeyRow(session_id=row.id, key_id=k))
        return token

    def session_person(self, token: str, *, now: datetime) -> int | None:
        """The person signed in on a live session, or None."""
        with self.reader.session() as s:
            row = self._live_session(s, token, now)
            return None if row is None else row.person_id

    def _live_session(self, s: sa.orm.Session, token: str, now: datetime) -> WebSessionRow | None:
        if not token.startswith(SECRET_PREFIX) or len(token) > 200:
            return None
        row = s.scalars(sa.select(WebSessionRow).where(WebSessionRow.token_hash == hash_secret(token))).first()
        if row is None or row.revoked_at is not None or row.expires_at <= as_utc(now):
            return None
        return row

    def add_to_session(self, token: str, key_id: int, *, now: datetime) -> bool:
        """Add a key to a live session; False if the session is gone (start a new one)."""
        with self.session() as s, s.begin():
            row = self._live_session(s, token, now)
            if row is None:
                return False
            if s.get(SessionKeyRow, (row.id, key_id)) is None:
                s.add(SessionKeyRow(session_id=row.id, key_id=key_id))
            return True

    def session_grants(self, token: str, *, now: datetime) -> list[Grant] | None:
        """The live grants of a session (revoked keys drop out at once); None if no such live session."""
        info = self.session_info(token, now=now)
        return None if info is None else info[0]

    def session_info(self, token: str, *, now: datetime) -> tuple[list[Grant], int | None] | None:
        """(grants, person signed in) of a live session, in one read; None if no such live session. The
        grants are the session's live keys and, for a person, the seats they play now, the games they made
        (coordinator grants) and those they stand in for today (:data:`STAND_IN` grants).

        Every signed-in request asks this: the session, its keys, the person's seats and the games they made are
        one statement (:data:`_SESSION`, four before: each a round trip through the driver, and a wait for the
        interpreter where other threads compute); the stand-ins, which the domains register, a second for a
        person."""
        if not token.startswith(SECRET_PREFIX) or len(token) > 200:
            return None
        with self.reader.session() as s:
            rows = s.execute(_SESSION, {"h": hash_secret(token)}).all()
            head = next((r for r in rows if r[0] == 0), None)
            if head is None or head[6] is not None or as_utc(head[7]) <= as_utc(now):
                return None
            person = head[5]
            keys = [Grant(int(r[1]), str(r[2]), r[3], r[4]) for r in rows if r[0] == 1]
            grants = list(keys)
            if person is not None:
                have = {(g.game, g.power) for g in keys if g.role == "player"}
                grants += [Grant(0, "player", r[3], r[4]) for r in rows if r[0] == 2 and (r[3], r[4]) not in have]
                led = {g.game for g in keys if g.role == "coordinator"}
                grants += [Grant(0, "coordinator", r[3], None) for r in rows if r[0] == 3 and r[3] not in led]
                # A stand-in orders the seats of players away today, in games whose absence policy names them: a
                # grant of its own kind, never the player's (whose press, votes and sealed orders stay theirs).
                have = {(g.game, g.power) for g in grants if g.role == "player"}
                stand_ins = stand_in_seats(s, person, as_utc(now).date())
                grants += [Grant(0, STAND_IN, game, power) for game, power in stand_ins if (game, power) not in have]
            return grants, person

    def end_session(self, token: str, *, now: datetime) -> None:
        with self.session() as s, s.begin():
            row = self._live_session(s, token, now)
            if row is not None:
                row.revoked_at = as_utc(now)

    # ----------------------------------------------------------------------------------------------
    # Per-game web settings and cheap reads

    def visibility(self, game: str) -> str:
        with self.reader.session() as s:
            q = sa.select(GameWebRow.visibility).join(GameRow, GameRow.id == GameWebRow.game_id)
            return s.scalar(q.where(GameRow.name == game)) or "public"

    def set_visibility(self, game: str, visibility: str) -> None:
        if visibility not in VISIBILITIES:
            raise GameError(
                msg(
                    "visibility must be one of %(choices)s, not %(value)s",
                    choices=", ".join(VISIBILITIES),
                    value=repr(visibility),
                )
            )
        with self.session() as s, s.begin():
            gid = self._game_id(s, game)
            row = s.get(GameWebRow, gid)
            if row is None:
                s.add(GameWebRow(game_id=gid, visibility=visibility))
            else:
                row.visibility = visibility

    def listed_games(self) -> list[tuple[str, str, str, str | None, datetime | None]]:
        """(name, variant, state, current phase, deadline) of every public game, by name."""
        with self.reader.session() as s:
            open_phase = (
                sa.select(PhaseRow.game_id, PhaseRow.name, PhaseRow.deadline)
                .where(PhaseRow.status == "open")
                .subquery()
            )
            q = (
                sa.select(GameRow.name, GameRow.variant, GameRow.status, open_phase.c.name, open_phase.c.deadline)
                .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
                .outerjoin(open_phase, open_phase.c.game_id == GameRow.id)
                .where(sa.or_(GameWebRow.visibility.is_(None), GameWebRow.visibility == "public"))
                .order_by(GameRow.name)
            )
            return [(a, b, c, d, e) for a, b, c, d, e in s.execute(q)]

    def marker(self, game: str) -> tuple[str, tuple[int, int, int, int, int], str | None] | None:
        """(visibility, marker, the hash of the game's stored variant) of ``game`` in one query, or None if
        there is no such game. The hash names the variant the game plays: a reader keeps the variant it built
        while the hash stands (``None``: a game from before its variant was stored, read from its file).

        The marker changes whenever anything a page shows of the game changes (events, phases,
        submissions, votes), so a page can be served from a cache while it stands still, even when
        another process (the coordinator's CLI, a worker) changed the game. Its last number is the last
        event but a person's own (:data:`~dippouch.people.anonymity.PERSONAL_EVENTS`, written in every
        game they play at once): what a reader of an anonymous game is given in the first's place
        (:func:`dippouch.web.views.anonymity.shown_marker`).
        """
        with self.reader.one_read.connect() as conn:
            row = conn.execute(_MARKER, {"game": game}).first()
            conn.rollback()
        if row is None:
            return None
        return (row[0] or "public", (int(row[1]), int(row[2]), int(row[3]), int(row[4]), int(row[5])), row[6])

    def phases(self, game: str) -> list[StoredPhase]:
        """Every phase of a game, abandoned ones too, in the order opened, without their submissions or a
        count of them (``dippouch.store.history.history`` counts the versions of every phase, which a page does not need)."""
        with self.reader.session() as s:
            q = (
                sa.select(PhaseRow)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(GameRow.name == game)
                .order_by(PhaseRow.id)
            )
            return [StoredPhase.of(row) for row in s.scalars(q)]

    def phase_times(self, game: str) -> list[PhaseTimes]:
        """Every phase of a game as :meth:`phases` reads them, with their times alone: a calendar feed, which
        every subscribed calendar polls, read the positions and orders too (40 ms of JSON for a W3K game of 20
        years)."""
        with self.reader.session() as s:
            q = (
                sa.select(PhaseRow.id, PhaseRow.name, PhaseRow.status, PhaseRow.deadline, PhaseRow.processed_at)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(GameRow.name == game)
                .order_by(PhaseRow.id)
            )
            return [PhaseTimes(*row) for row in s.execute(q)]

    def phase_between(self, game: str, phase_id: int) -> tuple[StoredPhase, int | None, int | None] | None:
        """One phase of a game with the ids of the phases opened just before and after it (None: the first or the
        last), or None when the game has no such phase: a phase's page or map reads its own row, not every
        phase's positions and orders (7 ms for a game of six years, paid before the map's budget is asked)."""
        earlier, later = sa.orm.aliased(PhaseRow), sa.orm.aliased(PhaseRow)
        before = (
            sa.select(sa.func.max(earlier.id))
            .where(earlier.game_id == PhaseRow.game_id, earlier.id < PhaseRow.id)
            .scalar_subquery()
        )
        after = (
            sa.select(sa.func.min(later.id))
            .where(later.game_id == PhaseRow.game_id, later.id > PhaseRow.id)
            .scalar_subquery()
        )
        with self.reader.session() as s:
            got = s.execute(
                sa.select(PhaseRow, before, after)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(GameRow.name == game, PhaseRow.id == phase_id)
            ).first()
            if got is None:
                return None
            return StoredPhase.of(got[0]), got[1], got[2]


def _marker_query() -> sa.Select[Any]:
    """Built once: constructing this statement costs more than running it."""
    g = GameRow.__table__.alias("g")
    ev = sa.select(sa.func.coalesce(sa.func.max(EventRow.id), 0)).where(EventRow.game_id == g.c.id)
    ph = sa.select(sa.func.coalesce(sa.func.max(PhaseRow.id), 0)).where(PhaseRow.game_id == g.c.id)
    sub = (
        sa.select(sa.func.coalesce(sa.func.max(SubmissionRow.id), 0))
        .join(PhaseRow, PhaseRow.id == SubmissionRow.phase_id)
        .where(PhaseRow.game_id == g.c.id, PhaseRow.status == "open")
    )
    vo = sa.select(sa.func.coalesce(sa.func.max(VoteRow.id), 0)).where(VoteRow.game_id == g.c.id)
    game_ev = sa.select(sa.func.coalesce(sa.func.max(EventRow.id), 0)).where(
        EventRow.game_id == g.c.id, EventRow.kind.not_in(PERSONAL_EVENTS)
    )
    vis = sa.select(GameWebRow.visibility).where(GameWebRow.game_id == g.c.id)
    return sa.select(
        vis.scalar_subquery(),
        ev.scalar_subquery(),
        ph.scalar_subquery(),
        sub.scalar_subquery(),
        vo.scalar_subquery(),
        game_ev.scalar_subquery(),
        g.c.variant_hash,
    ).where(g.c.name == sa.bindparam("game"))


_MARKER = _marker_query()


def _session_query() -> sa.CompoundSelect[Any]:
    """A session and what it grants, in rows of one shape ``(part, key id, role, game, power, person, revoked,
    expires, order)``: part 0 the session itself, 1 its live keys (by id), 2 its person's seats, 3 the games its
    person made (by game and power). Built once, as :data:`_MARKER` is."""
    live = (
        sa.select(WebSessionRow.id, WebSessionRow.person_id, WebSessionRow.revoked_at, WebSessionRow.expires_at)
        .where(WebSessionRow.token_hash == sa.bindparam("h"))
        .cte("live")
    )
    text, number = sa.String(), sa.Integer()
    none_text = sa.cast(sa.null(), text)
    head = sa.select(  # the union's column names are this part's
        sa.literal(0, number).label("part"),
        live.c.id.label("key_id"),
        none_text.label("role"),
        none_text.label("game"),
        none_text.label("power"),
        live.c.person_id.label("person"),
        live.c.revoked_at.label("revoked"),
        live.c.expires_at.label("expires"),
        sa.literal(0, number).label("sort"),
    )
    keys = (
        sa.select(
            sa.literal(1, number),
            AccessKeyRow.id,
            AccessKeyRow.role,
            GameRow.name,
            AccessKeyRow.power,
            live.c.person_id,
            live.c.revoked_at,
            live.c.expires_at,
            AccessKeyRow.id,
        )
        .select_from(live)
        .join(SessionKeyRow, SessionKeyRow.session_id == live.c.id)
        .join(AccessKeyRow, AccessKeyRow.id == SessionKeyRow.key_id)
        .outerjoin(GameRow, GameRow.id == AccessKeyRow.game_id)
        .where(AccessKeyRow.revoked_at.is_(None))
    )
    seats = (
        sa.select(
            sa.literal(2, number),
            sa.literal(0, number),
            sa.literal("player", text),
            GameRow.name,
            PlayerRow.power,
            live.c.person_id,
            live.c.revoked_at,
            live.c.expires_at,
            sa.literal(0, number),
        )
        .select_from(live)
        .join(PlayerRow, PlayerRow.person_id == live.c.person_id)
        .join(GameRow, GameRow.id == PlayerRow.game_id)
        .join(PersonRow, PersonRow.id == PlayerRow.person_id)
        .where(PlayerRow.replaced_at.is_(None), PersonRow.deleted_at.is_(None))
    )
    made = (
        sa.select(
            sa.literal(3, number),
            sa.literal(0, number),
            sa.literal("coordinator", text),
            GameRow.name,
            none_text,
            live.c.person_id,
            live.c.revoked_at,
            live.c.expires_at,
            sa.literal(0, number),
        )
        .select_from(live)
        .join(OpeningRow, OpeningRow.creator_id == live.c.person_id)
        .join(GameRow, GameRow.id == OpeningRow.game_id)
        .join(PersonRow, PersonRow.id == OpeningRow.creator_id)
        .where(PersonRow.deleted_at.is_(None))
    )
    return sa.union_all(head, keys, seats, made).order_by(*map(sa.literal_column, ("part", "sort", "game", "power")))


_SESSION = _session_query()

_KEY = (
    sa.select(AccessKeyRow.id, AccessKeyRow.role, GameRow.name, AccessKeyRow.power)
    .outerjoin(GameRow, GameRow.id == AccessKeyRow.game_id)
    .where(AccessKeyRow.key_hash == sa.bindparam("h"), AccessKeyRow.revoked_at.is_(None))
)
