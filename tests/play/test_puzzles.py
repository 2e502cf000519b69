"""Puzzles from recorded games (:mod:`dippouch.play.puzzles`): the stored set (tests/data/puzzles/puzzles.json,
found in the recorded corpus tests/data/puzzles/corpus.jsonl.gz) has at least 50, each one searched again
whole: its answer wins against every reply and no other set of the units' orders does; the generator finds the
same first puzzles again; a wrong answer is refused with the reply that beats it; an answer the puzzle cannot
read is refused naming the line."""

from __future__ import annotations

import itertools
import json
from datetime import date
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.core.jsonio import position_from_json
from dippouch.core.notation import format_order
from dippouch.play import puzzles as pz
from dippouch.play.puzzles import (
    AnswerError,
    Puzzle,
    Source,
    check_answer,
    corpus_sources,
    daily_index,
    find_puzzles,
    read_answer,
    solve,
)

DATA = Path(__file__).parents[1] / "data" / "puzzles"
CORPUS = DATA / "corpus.jsonl.gz"
STORED = [Puzzle.from_json(d) for d in json.loads((DATA / "puzzles.json").read_text(encoding="utf-8"))]


def test_at_least_fifty_puzzles_of_every_difficulty_found() -> None:
    assert len(STORED) >= 50
    assert len({p.key for p in STORED}) == len(STORED)
    assert {p.difficulty for p in STORED} >= {1, 3}, "puzzles of one difficulty only"


@pytest.mark.parametrize("p", STORED, ids=[p.key for p in STORED])
def test_the_answer_is_the_one_set_that_wins_against_every_reply(p: Puzzle) -> None:
    # The whole search again: every candidate set of the units' orders against every reply.
    again = solve(Source(p.source, p.variant, p.position), p.power, p.goal, p.target)
    assert again is not None, "no longer a puzzle"
    assert again.answer == p.answer and again.units == p.units and again.replies == p.replies
    given = read_answer(p, "\n".join(p.answer))
    checked = check_answer(p, given)
    assert checked.solved and checked.replies == p.replies


def _winners(p: Puzzle) -> list[tuple[str, ...]]:
    """Every candidate set that wins, by brute force: each set of the corner's orders against each reply, no
    pruning and no reply tried first (what :func:`pz._search` does faster)."""
    v = load_variant(p.variant)
    pos = position_from_json(v, p.position)
    c = pz._corner(v, pos, p.power, p.goal, v.map.province_of(v.map.loc(p.target)))
    assert c is not None
    return [
        tuple(sorted(format_order(v, o) for o in cand))
        for cand in itertools.product(*c.mine_orders)
        if pz._wins(c, cand, range(len(c.replies))) is None
    ]


def test_brute_force_finds_the_same_single_answer_in_small_puzzles() -> None:
    small = [p for p in STORED if p.candidates <= 60][:3]
    assert small
    for p in small:
        wins = _winners(p)
        answer = set(p.answer)
        assert wins and all(answer <= set(w) for w in wins), (p.key, wins)


def test_the_generator_finds_the_same_first_puzzles_again() -> None:
    again = list(find_puzzles(itertools.islice(corpus_sources(CORPUS), 60), limit=3))
    assert [p.as_json() for p in again] == [p.as_json() for p in STORED[:3]]


def test_a_wrong_answer_is_refused_with_the_reply_that_beats_it() -> None:
    p = next(q for q in STORED if "support" in q.skills)
    move = [o for o in p.answer if " S " not in o]
    checked = check_answer(p, read_answer(p, "\n".join(move)))  # the move without its support
    assert not checked.solved
    assert checked.reply and all(":" in line for line in checked.reply)
    failed = [r for r in checked.results if r.result.value == "fails"]
    assert failed and failed[0].reason  # why the move failed against that reply


def test_an_unreadable_or_foreign_answer_is_refused_naming_the_line() -> None:
    p = STORED[0]
    with pytest.raises(AnswerError, match="line 1"):
        read_answer(p, "A xyz - qqq")
    with pytest.raises(AnswerError, match="not an order for one of the puzzle's units"):
        read_answer(p, "A mos - stp" if p.power != "Russia" else "A par - bur")


def test_the_daily_puzzle_is_the_same_all_day_and_changes_with_the_day() -> None:
    days = [date(2026, 11, d) for d in range(1, 29)]
    picks = [daily_index(d, 50) for d in days]
    assert picks == [daily_index(d, 50) for d in days]
    assert len(set(picks)) > 10
    with pytest.raises(ValueError):
        daily_index(days[0], 0)
