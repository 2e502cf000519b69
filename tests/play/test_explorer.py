"""The opening explorer (:mod:`dippouch.play.explorer`): its counts equal a recount from the stored games.

Games played for real through the store: three draws after different French openings (one written in another
order, one going on into 1902), a solo from a Spring 1901 board where France holds 18 centres and England and
Germany have nothing left, a private game, an unlisted one and an unfinished one with an opening of their own.
The recount reads the stored phases and endings straight from the tables, and walks every node of every power's
tree: each node's games, mean centres at the end of each year and outcomes equal the explorer's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from solo_board import solo_board

from dippouch.catalog import load_variant
from dippouch.play.explorer import Explored, PhaseOrders, UnknownChoice, explore, explorer_variants, path_text
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.access import AccessStore
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.models_web import GameWebRow

T = datetime(2026, 3, 2, 9, tzinfo=UTC)

OPENING_A = "A Par-Bur\nA Mar S A Par-Bur\nF Bre-Mao"
OPENING_A_AGAIN = "F Bre-Mao\nA Mar S A Par-Bur\nA Par-Bur"
OPENING_B = "A Par-Pic\nA Mar-Spa\nF Bre-Eng"
HIDDEN = "A Par-Gas\nA Mar H\nF Bre H"
GERMANY = "A Mun S A Par-Bur\nF Kie-Hol\nA Ber-Kie"
ENGLAND = "F Lon-Nth\nF Edi-Nwg\nA Lvp-Yor"


def _play(store: GameStore, game: str, turns: list[dict[str, str]], at: datetime, *, draw: bool = True) -> None:
    """``game`` (standard) played phase by phase with ``turns``' orders (France, Germany and England seated), then
    drawn by their votes unless not ``draw`` (after two phases the powers nobody plays are in civil disorder and
    their votes are not needed)."""
    store_games.create_game(store, game, "standard", now=at)
    for power in ("France", "Germany", "England"):
        store_games.assign(store, game, power, f"{game} {power}", now=at)
    for turn, orders in enumerate(turns, start=1):
        for power, text in orders.items():
            store_submissions.submit(store, game, power, text, now=at + timedelta(hours=turn))
        store_processing.process(store, game, now=at + timedelta(hours=turn, minutes=30), force=True)
    if draw:
        done = at + timedelta(hours=len(turns) + 1)
        for power in ("France", "Germany", "England"):
            if store_status.status(store, game, now=done).state != "finished":  # a power in civil disorder is not asked
                store_votes.vote(store, game, power, True, now=done)
        assert store_status.status(store, game, now=done).state == "finished"


def _spring_solo(store: GameStore, game: str, at: datetime) -> None:
    """France wins on reaching Fall 1901 from a Spring 1901 board where it holds 18 centres."""
    store_games.create_game(store, game, "standard", now=at, position={**solo_board(), "phase": "Spring 1901 Movement"})
    store_games.assign(store, game, "France", f"{game} France", now=at)
    store_submissions.submit(store, game, "France", "A Par H", now=at)
    store_processing.process(store, game, now=at + timedelta(minutes=30), force=True)
    assert store_status.status(store, game, now=at + timedelta(hours=1)).state == "finished"


@pytest.fixture
def played(store: GameStore) -> GameStore:
    fall_a = {"France": "A Bur-Bel\nA Mar-Spa\nF Mao-Por", "Germany": "A Mun-Bur\nA Kie-Den\nF Hol H"}
    _play(store, "a1", [{"France": OPENING_A, "Germany": GERMANY, "England": ENGLAND}, fall_a], T)
    # The same set of orders written in another order, another fall, then on into 1902 (a build left unsent).
    _play(
        store,
        "a2",
        [
            {"France": OPENING_A_AGAIN, "England": ENGLAND},
            {"France": "A Bur-Mun\nA Mar-Spa\nF Mao-Por", "England": "F Nth-Nwy\nA Yor H\nF Nwg H"},
            {},
            {"France": "A Mun H\nA Spa H\nF Por H"},
        ],
        T + timedelta(days=1),
    )
    _play(store, "b1", [{"France": OPENING_B, "Germany": GERMANY}, {}], T + timedelta(days=2))
    _spring_solo(store, "s1", T + timedelta(days=3))
    # Nobody outside these may count them: a private game, an unlisted one, and one still being played.
    access = AccessStore(store)
    for name, visibility in (("p1", "private"), ("u1", "unlisted")):
        _play(store, name, [{"France": HIDDEN}, {}], T + timedelta(days=4))
        access.set_visibility(name, visibility)
    _play(store, "r1", [{"France": HIDDEN}], T + timedelta(days=5), draw=False)
    return store


# ---- the recount: straight from the tables, not through the explorer's store module -------------------------


def _stored(store: GameStore) -> dict[str, tuple[dict[str, Any] | None, list[PhaseRow]]]:
    """Each public finished standard game's ending and line of play."""
    with store.session() as s:
        games = s.execute(
            sa.select(GameRow.id, GameRow.name, GameRow.ending)
            .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
            .where(GameRow.status == "finished", GameRow.variant == "standard")
            .where(sa.or_(GameWebRow.visibility.is_(None), GameWebRow.visibility == "public"))
        ).all()
        out = {}
        for gid, name, ending in games:
            phases = list(
                s.scalars(
                    sa.select(PhaseRow)
                    .where(PhaseRow.game_id == gid, PhaseRow.status != "abandoned")
                    .order_by(PhaseRow.seq)
                )
            )
            for p in phases:
                s.expunge(p)
            out[str(name)] = (ending, phases)
    return out


def _year(name: str) -> int:
    return int(name.split()[1])


def _recount_game(ending: Mapping[str, Any] | None, phases: list[PhaseRow], power: str) -> dict[str, Any]:
    steps = []
    for p in phases:
        if _year(p.name) > 1903:
            break
        mine = (p.orders or {}).get(power)
        if mine or power in (p.missed or []):
            steps.append(PhaseOrders(p.name, tuple(sorted(mine or ()))))
    last = phases[-1]
    final = last.next_position if last.status == "processed" and last.next_position else last.position
    centres = len(final["supply_centers"].get(power, []))
    units = sum(1 for u in final["units"] if u["power"] == power)
    kind = (ending or {}).get("kind")
    shared = (ending or {}).get("powers") or []
    if kind == "victory" and shared[0] == power:
        outcome = "wins"
    elif kind == "draw" and power in shared:
        outcome = "draws"
    elif centres == 0 and units == 0:
        outcome = "eliminations"
    else:
        outcome = "survivals"
    # The end of a year: the winter's board, or any board of a later year; a game ended within it: its last board.
    boards = [(p.name, p.position) for p in phases]
    if last.status == "processed" and last.next_position:
        boards.append((last.next_position["phase"], last.next_position))
    ends = {}
    for year in (1901, 1902, 1903):
        board = next((b for n, b in boards if _year(n) > year or n == f"Winter {year} Adjustments"), None)
        if board is None and _year(boards[-1][0]) == year:
            board = final
        if board is not None:
            ends[year] = len(board["supply_centers"].get(power, []))
    return {"steps": tuple(steps), "outcome": outcome, "ends": ends}


def _expected(lines: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes = Counter(line["outcome"] for line in lines)
    means = {}
    for year in (1901, 1902, 1903):
        got = [line["ends"][year] for line in lines if year in line["ends"]]
        means[year] = (round(sum(got) / len(got), 2) if got else None, len(got))
    return {
        "games": len(lines),
        "outcomes": {o: outcomes.get(o, 0) for o in ("wins", "draws", "survivals", "eliminations")},
        "centres": means,
    }


def _shown(node: Explored | Any) -> dict[str, Any]:
    f = node.figures
    return {
        "games": f.games,
        "outcomes": {o: f.count(o) for o in ("wins", "draws", "survivals", "eliminations")},
        "centres": {c.year: (c.mean, c.games) for c in f.centres},
    }


def test_the_explorers_counts_equal_a_recount_from_the_stored_games(played: GameStore) -> None:
    games = _stored(played)
    assert sorted(games) == ["a1", "a2", "b1", "s1"]
    nodes = 0
    for power in load_variant("standard").power_names:
        lines = [_recount_game(ending, phases, power) for ending, phases in games.values()]
        prefixes = {line["steps"][:n] for line in lines for n in range(len(line["steps"]) + 1)}
        for prefix in sorted(prefixes):
            node = explore(played, "standard", power, path_text(prefix))
            here = [line for line in lines if line["steps"][: len(prefix)] == prefix]
            assert node.total == 4 and _shown(node) == _expected(here), (power, prefix)
            nexts = Counter(line["steps"][len(prefix)] for line in here if len(line["steps"]) > len(prefix))
            assert {b.step: b.figures.games for b in node.branches} == dict(nexts), (power, prefix)
            for b in node.branches:
                went = [line for line in here if line["steps"][: len(prefix) + 1] == b.path]
                assert _shown(b) == _expected(went), (power, b.path)
                assert b.share == pytest.approx(len(went) / len(here))
            nodes += 1
    assert nodes > 20


def test_the_root_and_one_step_down_as_a_player_reads_them(played: GameStore) -> None:
    root = explore(played, "standard", "France")
    a = PhaseOrders("Spring 1901 Movement", ("A mar S A par - bur", "A par - bur", "F bre - mao"))
    # The same set sent in two orders is one opening; the solo's France held; nothing of the hidden games.
    assert [(b.step, b.figures.games) for b in root.branches] == [
        (a, 2),
        (PhaseOrders("Spring 1901 Movement", ("A mar - spa", "A par - pic", "F bre - eng")), 1),
        (PhaseOrders("Spring 1901 Movement", ("A par H",)), 1),
    ]
    assert not any("gas" in o for b in root.branches for o in b.step.orders)
    assert (root.figures.wins, root.figures.draws, root.figures.survivals, root.figures.eliminations) == (1, 3, 0, 0)
    # a1: Belgium, Spain, Portugal taken; a2: Munich held against France; b1: Spain; s1: the solo's 18.
    assert root.figures.centres[0].mean == pytest.approx((6 + 5 + 4 + 18) / 4)
    down = explore(played, "standard", "France", (a,))
    assert [b.figures.games for b in down.branches] == [1, 1] and down.figures.games == 2
    assert explore(played, "standard", "England").figures.eliminations == 1
    assert {v.name: v.games for v in explorer_variants(played)}["standard"] == 4


def test_an_unknown_variant_or_power_is_refused_naming_the_closest(played: GameStore) -> None:
    with pytest.raises(UnknownChoice, match="did you mean 'standard'"):
        explore(played, "standart", "France")
    with pytest.raises(UnknownChoice, match="did you mean 'France'"):
        explore(played, "standard", "Frnace")
    assert explore(played, "standard", "fRANCE").power == "France"
