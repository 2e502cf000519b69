"""A deadline worker asks the domains whether they have anything for the phase it holds (an absence policy, mail,
postal press) in one statement, and calls only the hooks that have: each asked for itself in a statement of its own,
three round trips of every phase at a thousand games, nearly always to learn there was nothing (issue 57). The
hooks that have something still do their part: a held letter goes out with the results, a game with an absence
policy has it applied, mail taken in holds its phase."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

import dippouch.store.press.messages as press
from dbsupport import stored_message
from dippouch.store import GameStore, domains
from dippouch.store import claims as store_claims
from dippouch.store import games as store_games
from dippouch.store import rows as store_rows
from dippouch.store.mail.inbox import record_message
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.people import absences

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    for name in ("plain", "postal", "away", "mailed"):
        store_games.create_game(s, name, "standard", now=T0)
        for p in POWERS:
            store_games.assign(s, name, p, f"{p} player", now=T0)
    yield s
    s.close()


class Sent:
    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.statements: list[str] = []

    def _add(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.statements.append(" ".join(statement.split()))

    def __enter__(self) -> Sent:
        sa.event.listen(self.store.engine, "before_cursor_execute", self._add)
        return self

    def __exit__(self, *exc: object) -> None:
        sa.event.remove(self.store.engine, "before_cursor_execute", self._add)


def _due(store: GameStore, *names: str) -> None:
    """The named games' open phases past their deadline by the database's clock, the others' a day off."""
    with store.engine.begin() as conn:
        ids = {str(name): int(game_id) for name, game_id in conn.execute(sa.select(GameRow.name, GameRow.id))}
        for name, game_id in ids.items():
            at = datetime.now(UTC) + (timedelta(minutes=-1) if name in names else timedelta(days=1))
            conn.execute(
                sa.update(PhaseRow).where(PhaseRow.game_id == game_id, PhaseRow.status == "open").values(deadline=at)
            )


def test_a_phase_with_nothing_for_any_domain_asks_them_all_in_one_statement(store: GameStore) -> None:
    _due(store, "plain")
    with Sent(store) as sent:
        due = store_claims.process_next_due(store)
    assert due is not None and due.game == "plain"
    asked = [s for s in sent.statements if "FROM game_roster" in s or "FROM press_messages" in s]
    # One statement asks the absence policy, the phase's mail and its postal press; none asks again.
    assert len(asked) == 1, sent.statements
    assert "FROM mail_messages" in asked[0]
    assert not any(s.startswith(("SELECT game_roster.", "SELECT press_messages.")) for s in sent.statements)


def test_the_domains_that_have_something_do_their_part(store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    press.set_press_rules(store, "postal", {"kind": "postal"}, now=T0)
    letter = press.send(store, "postal", "England", ["France"], "By post", now=T0)
    assert letter.held
    absences.set_absence_policy(store, "away", "standing", now=T0)
    applied: list[str] = []
    real = absences.apply_locked

    def recorded(db: Any, s: Any, g: Any, *args: Any, **kwargs: Any) -> Any:
        applied.append(g.name)
        return real(db, s, g, *args, **kwargs)

    monkeypatch.setattr(absences, "apply_locked", recorded)
    with store.session() as s:
        g = store_rows.game_row(s, "mailed")
        ph = store_rows.current_phase(s, g)
        assert ph is not None
        game_id, phase_id = g.id, ph.id
    mail_id = stored_message(store, "held", "france@example.org", T0)
    record_message(store, mail_id, status="held", game_id=game_id, phase_id=phase_id, power="France", was=None)
    _due(store, "plain", "postal", "away", "mailed")

    processed = []
    while (due := store_claims.process_next_due(store)) is not None:
        processed.append(due.game)
    # The held message holds its phase for the coordinator; the others are processed.
    assert sorted(processed) == ["away", "plain", "postal"]
    # The letter went out with the results; the policy was applied to its game alone.
    letters = press.messages_since(store, "postal", "France", 0)
    assert [(m.text, m.held) for m in letters if m.text == "By post"] == [("By post", False)]
    assert applied == ["away"]


def test_a_hook_is_skipped_only_where_its_condition_was_asked_and_false(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a worker's claim (the coordinator's "process now", the command line) nothing was asked, and every
    hook is called as before; a condition registered with a hook is asked with the others."""
    called: list[str] = []
    monkeypatch.setitem(domains._processed, "probe", lambda s, g, ph, now: called.append(g.name))
    monkeypatch.setitem(domains._conditions, ("processed", "probe"), lambda: sa.literal(False))
    monkeypatch.setattr(domains, "_asking", [])
    _due(store, "plain", "postal")
    first = store_claims.process_next_due(store)
    assert first is not None and called == []  # asked, false: not called
    monkeypatch.setitem(domains._conditions, ("processed", "probe"), lambda: sa.literal(True))
    monkeypatch.setattr(domains, "_asking", [])
    second = store_claims.process_next_due(store)
    assert second is not None and called == [second.game]  # asked, true: called
    monkeypatch.setitem(domains._conditions, ("processed", "probe"), lambda: sa.literal(False))
    monkeypatch.setattr(domains, "_asking", [])
    from dippouch.store import processing

    assert processing.process(store, "mailed", now=T0 + timedelta(days=40), force=True) == ["Spring 1901 Movement"]
    assert called == [second.game, "mailed"]  # not asked: called
