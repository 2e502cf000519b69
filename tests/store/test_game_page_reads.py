"""The game page's reads skip what a game has none of (issue 57): whether it has a draw proposal, an unsealing, an
absence policy of its own or a use of one is read with its row, and each is read only where there is one. What the
page is given must not change: here each is stored in turn, and the reads compared with reads that ask everything."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore, web_queries
from dippouch.store import games as store_games
from dippouch.store.models import EventRow, GameRow, PhaseRow
from dippouch.store.models_votes import ProposalRow
from dippouch.store.people.models import AbsenceUseRow, GameRosterRow
from dippouch.store.rows import game_row_adding

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ASK_ALL = game_row_adding(sa.true(), sa.true(), sa.true(), sa.true())


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    store_games.create_game(s, "g", "standard", now=START)
    yield s
    s.close()


def _reads(store: GameStore, monkeypatch: pytest.MonkeyPatch, *, ask_all: bool) -> tuple[dict[str, Any], int]:
    sent: list[str] = []

    def seen(_c: Any, _cu: Any, statement: str, *_: Any) -> None:
        sent.append(statement)

    with monkeypatch.context() as m:
        if ask_all:
            m.setattr(web_queries, "_PAGE_GAME", ASK_ALL)
        engines = {id(e): e for e in (store.engine, store.read_engine)}.values()
        for e in engines:
            sa.event.listen(e, "before_cursor_execute", seen)
        try:
            got = web_queries.game_page_reads(store, "g", now=START, today=START.date())
        finally:
            for e in engines:
                sa.event.remove(e, "before_cursor_execute", seen)
    # The variant is the same object either way, and not copied as a dict is (its derived parts are not plain data).
    return asdict(replace(got, status=replace(got.status, game_variant=None))), len(sent)


def _add(store: GameStore, what: str) -> None:
    with store.session() as s, s.begin():
        g = s.scalars(sa.select(GameRow).where(GameRow.name == "g")).one()
        ph = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status == "open")).one()
        if what == "draw":
            s.add(
                ProposalRow(
                    game_id=g.id,
                    phase_id=ph.id,
                    kind="draw",
                    values={},
                    proposer="France",
                    ballots={"France": True, "Italy": False},
                    rule="unanimous",
                    status="open",
                    created_at=START,
                    expires_at=ph.deadline,
                )
            )
        elif what == "unsealing":
            s.add(EventRow(game_id=g.id, at=START, kind="unsealed", detail={"phase": ph.name, "who": "the GM"}))
        elif what == "policy":
            s.add(GameRosterRow(game_id=g.id, absence_policy="extend", budget_days=9))
        elif what == "use":
            s.add(
                AbsenceUseRow(
                    game_id=g.id,
                    phase_id=ph.id,
                    power="Italy",
                    person_id=None,
                    policy="extend",
                    days=1.5,
                    detail={},
                    applied_at=START + timedelta(hours=1),
                )
            )


def test_the_page_reads_skip_what_a_game_has_none_of_and_read_each_once_it_has_one(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _reads(store, monkeypatch, ask_all=False)  # the variant built first (its stored copy read once)
    bare, fewer = _reads(store, monkeypatch, ask_all=False)
    everything, more = _reads(store, monkeypatch, ask_all=True)
    assert bare == everything
    assert more - fewer == 4  # the draw's tally, the unsealings, the policy and its uses were not asked
    for what, shown in (
        ("draw", lambda r: r["status"]["powers"][2]["draw_vote"] is True),  # France, third of the powers
        ("unsealing", lambda r: len(r["unsealings"]) == 1),
        ("policy", lambda r: r["absence_policy"]["policy"] == "extend" and r["absence_policy"]["budget_days"] == 9),
        ("use", lambda r: [u["power"] for u in r["absences_used"]] == ["Italy"]),
    ):
        _add(store, what)
        got, _ = _reads(store, monkeypatch, ask_all=False)
        assert shown(got), (what, got)
        assert got == _reads(store, monkeypatch, ask_all=True)[0], what
