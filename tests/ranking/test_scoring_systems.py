"""Every shipped scoring system on hand-worked games (a solo, a 3-way draw, a seven-power game ending without a
result, with eliminations) and on the worked examples its sources publish; the totals the systems promise,
for any game hypothesis makes; and the files' and facts' mistakes named."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dippouch.ranking.scoring import (
    GameFacts,
    PowerFacts,
    ScoringError,
    load_system,
    parse_system,
    score,
    system_names,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "scoring.md"
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def game(
    centres: dict[str, int],
    *,
    solo: str | None = None,
    draw: tuple[str, ...] = (),
    fell: dict[str, int | None] | None = None,
    total: int | None = 34,
) -> GameFacts:
    """A standard game's facts: the powers not named in ``centres`` hold nothing and are eliminated, in the
    year ``fell`` gives (None: unknown)."""
    fell = fell or {}
    return GameFacts(
        powers=tuple(PowerFacts(p, centres.get(p, 0), centres.get(p, 0) == 0, fell.get(p)) for p in POWERS),
        victory_centres=18,
        solo=solo,
        draw=frozenset(draw),
        total_centres=total,
    )


def rounded(scores: dict[str, float], digits: int = 2) -> dict[str, float]:
    return {p: round(s, digits) for p, s in scores.items() if s}


SOLO = game({"Russia": 18, "Turkey": 3, "France": 6, "Germany": 4, "England": 3}, solo="Russia")
THREE_WAY = game({"England": 12, "Russia": 12, "Turkey": 10}, draw=("England", "Russia", "Turkey"))
NO_RESULT = game(
    {"Russia": 14, "Turkey": 7, "France": 6, "Germany": 4, "England": 3},
    fell={"Italy": 1906, "Austria": 1904},
)


def test_the_shipped_systems_are_the_six_the_issue_names_each_documented_with_its_source() -> None:
    assert system_names() == ["carnage", "centres", "dss", "opentribute", "sos", "tribute"]
    doc = DOC.read_text(encoding="utf-8")
    for name in system_names():
        system = load_system(name)
        assert system.source.startswith("https://"), name
        assert set(system.treats) == {"solo", "draw", "unresolved", "eliminated"}, name
        assert f"### {system.title} (`{name}`)" in doc, name
        assert f"<{system.source}>" in doc, name


@pytest.mark.parametrize(
    ("system", "want"),
    [
        ("dss", {"Russia": 100.0}),
        ("sos", {"Russia": 100.0}),
        ("carnage", {"Russia": 28034.0}),
        ("tribute", {"Russia": 100.0}),
        ("opentribute", {"Russia": 340.0}),
        ("centres", {"Russia": 34.0}),
    ],
)
def test_a_solo_takes_everything_under_every_system(system: str, want: dict[str, float]) -> None:
    assert rounded(score(system, SOLO)) == want


@pytest.mark.parametrize(
    ("system", "want"),
    [
        ("dss", {"England": 33.33, "Russia": 33.33, "Turkey": 33.33}),
        # 144 / (144 + 144 + 100) = 37.11 %
        ("sos", {"England": 37.11, "Russia": 37.11, "Turkey": 25.77}),
        # England and Russia split 1st and 2nd: (7000 + 6000) / 2 + 12; Turkey 3rd; the four fallen (year
        # unknown) split 4th to 7th: (4000 + 3000 + 2000 + 1000) / 4.
        (
            "carnage",
            {
                "England": 6512.0,
                "Russia": 6512.0,
                "Turkey": 5010.0,
                "Austria": 2500.0,
                "France": 2500.0,
                "Germany": 2500.0,
                "Italy": 2500.0,
            },
        ),
        # 22 each from the pool of 66; Turkey pays 12 − 6 = 6, which the two toppers split: 3 each.
        ("tribute", {"England": 37.0, "Russia": 37.0, "Turkey": 26.0}),
        # Tribute paid: Turkey 2, four fallen 12 each = 50; two toppers receive 50 / 2² each = 12.5.
        ("opentribute", {"England": 82.5, "Russia": 82.5, "Turkey": 62.0}),
        ("centres", {"England": 12.0, "Russia": 12.0, "Turkey": 10.0}),
    ],
)
def test_a_three_way_draw(system: str, want: dict[str, float]) -> None:
    assert rounded(score(system, THREE_WAY)) == want


@pytest.mark.parametrize(
    ("system", "want"),
    [
        # No result: shared by the five survivors.
        ("dss", {"Russia": 20.0, "Turkey": 20.0, "France": 20.0, "Germany": 20.0, "England": 20.0}),
        # 196 / (196 + 49 + 36 + 16 + 9) = 196 / 306
        ("sos", {"Russia": 64.05, "Turkey": 16.01, "France": 11.76, "Germany": 5.23, "England": 2.94}),
        # Italy fell in 1906, after Austria (1904): Italy 6th, Austria 7th.
        (
            "carnage",
            {
                "Russia": 7014.0,
                "Turkey": 6007.0,
                "France": 5006.0,
                "Germany": 4004.0,
                "England": 3003.0,
                "Italy": 2000.0,
                "Austria": 1000.0,
            },
        ),
        # 13.2 each; the four others pay Russia 14 − 6 = 8 each.
        ("tribute", {"Russia": 59.2, "Turkey": 12.2, "France": 11.2, "Germany": 9.2, "England": 8.2}),
        # Every centre owned: the lone topper 10 × 14; the others 34 + 4c − 14.
        ("opentribute", {"Russia": 140.0, "Turkey": 48.0, "France": 44.0, "Germany": 36.0, "England": 32.0}),
        ("centres", {"Russia": 14.0, "Turkey": 7.0, "France": 6.0, "Germany": 4.0, "England": 3.0}),
    ],
)
def test_a_seven_power_game_without_a_result(system: str, want: dict[str, float]) -> None:
    assert rounded(score(system, NO_RESULT)) == want


def test_carnage_published_examples() -> None:
    """The three examples of the Carnage post on webDiplomacy's forum (thread 1325258): a solo, a draw with
    two eliminations ranked by when they fell, and a shared board-top."""
    assert rounded(score("carnage", SOLO)) == {"Russia": 28034.0}
    assert score("carnage", NO_RESULT) == {
        "Austria": 1000.0,
        "England": 3003.0,
        "France": 5006.0,
        "Germany": 4004.0,
        "Italy": 2000.0,
        "Russia": 7014.0,
        "Turkey": 6007.0,
    }
    shared = game({"England": 8, "Russia": 8, "France": 7, "Turkey": 6, "Italy": 4, "Austria": 1})
    assert score("carnage", shared) == {
        "Austria": 2001.0,
        "England": 6508.0,
        "France": 5007.0,
        "Germany": 1000.0,
        "Italy": 3004.0,
        "Russia": 6508.0,
        "Turkey": 4006.0,
    }


def test_sum_of_squares_published_examples() -> None:
    """The same board under sum of squares, as webDiplomacy's forum works it (thread 1335078), and the
    12-9-8-5 draw The Embassy's supply-centre post works (45.86, 25.8, 20.38, 7.96)."""
    shared = game({"England": 8, "Russia": 8, "France": 7, "Turkey": 6, "Italy": 4, "Austria": 1})
    assert rounded(score("sos", shared)) == {
        "England": 27.83,
        "Russia": 27.83,
        "France": 21.3,
        "Turkey": 15.65,
        "Italy": 6.96,
        "Austria": 0.43,
    }
    four = game({"England": 12, "Russia": 9, "Turkey": 8, "Italy": 5})
    assert rounded(score("sos", four)) == {"England": 45.86, "Russia": 25.8, "Turkey": 20.38, "Italy": 7.96}


@pytest.mark.parametrize(("size", "share"), [(7, 9.4), (6, 11.0), (5, 13.2), (4, 16.5), (3, 22.0), (2, 33.0)])
def test_tribute_draw_shares_as_published(size: int, share: float) -> None:
    """The Tribute page's table of draw-size shares of the 66 points, with nobody owing tribute (a board
    topped with 6 centres owes none)."""
    holders = POWERS[:size]
    centres = dict.fromkeys(holders, 1)
    centres[holders[0]] = 6
    got = score("tribute", game(centres, draw=holders, total=None))
    assert round(got[holders[1]] - 1, 1) == share


def test_tribute_owed_never_exceeds_the_draw_share() -> None:
    """A 16-centre topper is owed 10 a payer, but in a 7-way draw each payer holds only 66 / 7 = 9.43 of the
    pool: that is all it pays."""
    seven = dict.fromkeys(POWERS, 3)
    seven["Russia"] = 16
    got = score("tribute", game(seven, draw=POWERS, total=None))
    assert round(got["France"], 2) == round(3 + 66 / 7 - 66 / 7, 2) == 3.0
    assert round(got["Russia"], 2) == round(16 + 66 / 7 * 7, 2)


def test_opentribute_published_shortcuts() -> None:
    """Once every centre is owned: a lone topper scores 10 × centres, the others 34 + 4 × centres − the
    topper's centres, the eliminated 0 (the OpenTribute page's simplification)."""
    board = {"Russia": 11, "Turkey": 9, "France": 8, "England": 6}
    got = score("opentribute", game(board))
    assert got["Russia"] == 10 * 11
    for power in ("Turkey", "France", "England"):
        assert got[power] == 34 + 4 * board[power] - 11
    assert got["Austria"] == got["Italy"] == got["Germany"] == 0


def test_dss_shares_only_among_the_named_draw() -> None:
    """Draws need not include all survivors: Turkey, left out, scores 0 under DSS but keeps its centres
    under sum of squares, whose scores the draw's membership does not change."""
    two = game({"England": 12, "Russia": 12, "Turkey": 10}, draw=("England", "Russia"))
    assert rounded(score("dss", two)) == {"England": 50.0, "Russia": 50.0}
    assert score("sos", two) == score("sos", THREE_WAY)


def test_an_eliminated_power_of_unknown_year_ranks_below_one_whose_year_is_known() -> None:
    got = score("carnage", game({"Russia": 20, "Turkey": 14}, fell={"Italy": 1910}))
    assert got["Italy"] == 5000.0
    assert got["Austria"] == (4000 + 3000 + 2000 + 1000) / 4


PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""Generation time depends on how busy the machine is, not on the code under test."""

# ---- properties --------------------------------------------------------------------------------------


@st.composite
def finished_games(draw: st.DrawFn) -> GameFacts:
    """Any finished game of two to nine powers: centres (0 meaning eliminated, with or without a year) and
    a solo, a draw among some survivors, or no result."""
    n = draw(st.integers(2, 9))
    names = [f"P{i}" for i in range(n)]
    centres = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n).filter(lambda cs: any(cs)))
    powers = tuple(
        PowerFacts(name, c, c == 0, draw(st.none() | st.integers(1901, 1920)) if c == 0 else None)
        for name, c in zip(names, centres, strict=True)
    )
    alive = [p.power for p in powers if not p.eliminated]
    ending = draw(st.sampled_from(["solo", "draw", "none"]))
    solo = draw(st.sampled_from(alive)) if ending == "solo" else None
    drawn = frozenset(draw(st.sets(st.sampled_from(alive), min_size=1))) if ending == "draw" else frozenset()
    spare = draw(st.integers(0, 10))
    return GameFacts(powers, 18, solo, drawn, sum(centres) + spare)


@PROPERTY
@given(finished_games())
def test_dss_and_sum_of_squares_always_give_out_exactly_100(facts: GameFacts) -> None:
    for name in ("dss", "sos"):
        got = score(name, facts)
        assert abs(sum(got.values()) - 100) < 1e-9, (name, got)
        assert all(s >= 0 for s in got.values())


@PROPERTY
@given(finished_games())
def test_tribute_moves_points_but_never_makes_or_spoils_them(facts: GameFacts) -> None:
    """Tribute's total is the draw pool plus a point a centre held (100 on a full standard board); a
    solo is 100."""
    got = score("tribute", facts)
    want = 100 if facts.solo else 66 + sum(p.centres for p in facts.powers)
    assert abs(sum(got.values()) - want) < 1e-9
    assert all(s >= -1e-9 for s in got.values())


@PROPERTY
@given(finished_games())
def test_carnage_ranks_never_invert_and_give_out_the_whole_value(facts: GameFacts) -> None:
    got = score("carnage", facts)
    n = len(facts.powers)
    if facts.solo is None:
        assert sum(got.values()) == 1000 * n * (n + 1) / 2 + sum(p.centres for p in facts.powers)
        alive = [p for p in facts.powers if not p.eliminated]
        for a in alive:
            for b in alive:
                if a.centres > b.centres:
                    assert got[a.power] > got[b.power]
    else:
        assert got[facts.solo] == 1000 * n * (n + 1) / 2 + facts.board_centres


@PROPERTY
@given(finished_games())
def test_every_system_scores_every_power_and_a_soloist_alone(facts: GameFacts) -> None:
    for name in system_names():
        got = score(name, facts)
        assert list(got) == [p.power for p in facts.powers]
        assert all(got[p.power] == 0 for p in facts.powers if p.eliminated and name != "carnage")
        if facts.solo is not None:
            assert [p for p, s in got.items() if s] == [facts.solo]


# ---- mistakes named --------------------------------------------------------------------------------


def test_an_unknown_system_names_the_closest() -> None:
    with pytest.raises(
        ScoringError,
        match=r"no scoring system 'sum of squars' \(did you mean '\w+'\?\); the systems are carnage, centres",
    ):
        load_system("sum of squars")
    with pytest.raises(ScoringError, match="did you mean 'opentribute'"):
        load_system("open-tribute")
    with pytest.raises(ScoringError, match="did you mean 'carnage'"):
        score("Carnag", SOLO)
    assert load_system(" DSS ").name == "dss"


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        (lambda: game({"Russia": 18}, solo="Russia", draw=("Russia",)), "solo or a draw, not both"),
        (lambda: game({"Russia": 18}, solo="Prussia"), "winner 'Prussia' is not one of the powers"),
        (lambda: game({"Russia": 10}, draw=("Russia", "Italy")), "eliminated power cannot share"),
        (lambda: game({"Russia": 10}, draw=("Russia", "Spain")), "draw names powers not in the game: Spain"),
        (lambda: game({"Russia": 40}), "board has 34 centres but the powers hold 40"),
        (lambda: GameFacts((PowerFacts("A", 1, eliminated=True),), 18), "A is eliminated but holds 1"),
        (lambda: GameFacts((PowerFacts("A", 1), PowerFacts("A", 2)), 18), "listed twice: A"),
    ],
)
def test_facts_that_cannot_be_scored_are_refused(facts: object, message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        facts()  # type: ignore[operator]


def test_a_system_file_with_a_mistake_is_refused_with_its_name() -> None:
    params: dict[str, object] = {"solo": 100, "draw_pool": 66, "per_centre": 1, "threshold": 6, "rate": 0.5}
    good: dict[str, object] = {
        "name": "half-tribute",
        "title": "Half-Tribute",
        "source": "https://windycityweasels.org/half-tribute-scoring-system/",
        "formula": "tribute",
        "parameters": params,
        "treats": dict.fromkeys(("solo", "draw", "unresolved", "eliminated"), "words"),
    }
    half = parse_system(good)
    # A system that only changes numbers is a file, not code: Half-Tribute's payers pay half.
    assert rounded(half.score(NO_RESULT)) == {
        "Russia": 14 + 13.2 + 4 * 4,
        "Turkey": 7 + 13.2 - 4,
        "France": 6 + 13.2 - 4,
        "Germany": 4 + 13.2 - 4,
        "England": 3 + 13.2 - 4,
    }
    with pytest.raises(ScoringError, match="unknown formula 'tribut' \\(did you mean 'tribute'\\?\\)"):
        parse_system({**good, "formula": "tribut"})
    with pytest.raises(ScoringError, match="unknown: bonus"):
        parse_system({**good, "parameters": {**params, "bonus": 1}})
    with pytest.raises(ScoringError, match="missing: rate"):
        parse_system({**good, "parameters": {k: v for k, v in params.items() if k != "rate"}})
    with pytest.raises(ScoringError, match="parameter rate must be a number"):
        parse_system({**good, "parameters": {**params, "rate": "half"}})
    with pytest.raises(ScoringError, match="missing source"):
        parse_system({k: v for k, v in good.items() if k != "source"})
