"""A session's grants in one statement (issue 52: every signed-in request read its session, its keys, its person's
seats and the games they made in four statements, each a wait for the interpreter where other threads compute),
with the stand-ins a second statement for a person: the same grants as before, on both databases, and none for a
session revoked, expired or unknown."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.access import SESSION_LIFETIME, AccessStore, Grant
from dippouch.store.people import accounts

NOW = datetime(2026, 11, 27, 12, tzinfo=UTC)


def _person(store: GameStore, email: str, name: str) -> int:
    tokens: list[str] = []

    def compose(token: str, who: str | None, known: bool) -> tuple[str, str]:
        tokens.append(token)
        return "Sign in", token

    accounts.create_signin_link(store, email, now=NOW, name=name, compose=compose)
    return accounts.use_link(store, tokens[0], now=NOW)


def _statements(store: GameStore) -> list[str]:
    seen: list[str] = []
    engines = {store.engine, store.read_engine}
    for engine in engines:
        sa.event.listen(engine, "before_cursor_execute", lambda *a: seen.append(str(a[2]).split()[0]))
    return seen


def _reads(seen: list[str]) -> list[str]:
    return [s for s in seen if s.upper() not in ("BEGIN", "COMMIT", "ROLLBACK", "PRAGMA")]


def test_a_session_s_keys_seats_and_nothing_after_its_end(store: GameStore) -> None:
    access = AccessStore(store)
    for name in ("alpha", "beta"):
        store_games.create_game(store, name, "standard", now=NOW)
    ann = _person(store, "ann@example.org", "Ann")
    store_games.assign(store, "alpha", "France", "Ann", now=NOW)
    accounts.claim_seat(store, "alpha", "France", ann, now=NOW)
    store_games.assign(store, "beta", "Italy", "Ann", now=NOW)
    accounts.claim_seat(store, "beta", "Italy", ann, now=NOW)
    player_id, _ = access.create_key("player", game="alpha", power="France", now=NOW)
    coord_id, _ = access.create_key("coordinator", game="beta", now=NOW)
    gone_id, _ = access.create_key("player", game="beta", power="Russia", now=NOW)
    token = access.start_session([player_id, coord_id, gone_id], now=NOW, person_id=ann)
    access.revoke_key(gone_id, now=NOW)

    seen = _statements(store)
    got = access.session_info(token, now=NOW + timedelta(hours=1))
    assert got is not None
    grants, person = got
    assert person == ann
    assert grants == [
        Grant(player_id, "player", "alpha", "France"),
        Grant(coord_id, "coordinator", "beta", None),
        Grant(0, "player", "beta", "Italy"),  # France in alpha is held by its key already
    ]
    assert _reads(seen) == ["WITH", "SELECT"]  # the session's, the stand-ins'

    keys_only = access.start_session([player_id], now=NOW)
    seen.clear()
    assert access.session_info(keys_only, now=NOW) == ([Grant(player_id, "player", "alpha", "France")], None)
    assert _reads(seen) == ["WITH"]

    assert access.session_info(token, now=NOW + SESSION_LIFETIME) is None  # expired
    access.end_session(token, now=NOW)
    assert access.session_info(token, now=NOW) is None  # revoked
    assert access.session_info("dp_" + "x" * 40, now=NOW) is None
    assert access.session_info("not a token", now=NOW) is None
