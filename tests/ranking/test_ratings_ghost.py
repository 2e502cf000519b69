"""Ghost Ratings' update on hand-worked games; the properties it promises (points conserved in every pool,
the same games in any order give the same ratings, bots and practice games never rated); per-group pools;
reliability beside the rating."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dippouch.ranking.ratings import (
    DIVISOR,
    START,
    PlayerResult,
    RatedGame,
    Rater,
    RatingError,
    Standing,
    compute_ratings,
    rate_game,
    rate_pool,
)
from dippouch.ranking.scoring import GameFacts, PowerFacts, score

T0 = datetime(2026, 1, 1, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def seven(name: str, scores: dict[str, float], *, hours: int = 0, **kw: object) -> RatedGame:
    """A seven-player game: person ``pN`` plays the N-th power; ``scores`` by person (others 0)."""
    players = tuple(PlayerResult(f"p{i}", power, scores.get(f"p{i}", 0.0)) for i, power in enumerate(POWERS))
    return RatedGame(name, T0 + timedelta(hours=hours), players, **kw)  # type: ignore[arg-type]


def test_a_first_solo_moves_six_sevenths_of_the_pool_over_17_5() -> None:
    """Seven new players (100 each, S = 700): the soloist expected 1/7 and got 1, so it gains
    700 / 17.5 × 6/7 = 34.29; each loser expected 1/7 and got 0: −700 / 17.5 / 7 = −5.71."""
    got = rate_pool([seven("g1", {"p5": 100.0})])
    assert round(got["p5"].rating, 2) == round(START + 700 / DIVISOR * 6 / 7, 2) == 134.29
    assert round(got["p0"].rating, 2) == 94.29
    assert all(r.games == 1 for r in got.values())


def test_a_draw_under_dss_gives_each_drawer_a_share() -> None:
    """A 3-way DSS draw among equals: each drawer +40 × (1/3 − 1/7) = +7.62; the four others −5.71."""
    got = rate_pool([seven("g1", {"p0": 100 / 3, "p1": 100 / 3, "p2": 100 / 3})])
    assert round(got["p0"].rating, 2) == 107.62
    assert round(got["p6"].rating, 2) == 94.29


def test_the_second_game_starts_from_the_first_ones_ratings() -> None:
    first = rate_pool([seven("g1", {"p5": 100.0})])
    both = rate_pool([seven("g1", {"p5": 100.0}), seven("g2", {"p0": 100.0}, hours=1)])
    s = sum(r.rating for r in first.values())
    want = first["p0"].rating + s / DIVISOR * (1 - first["p0"].rating / s)
    assert both["p0"].rating == pytest.approx(want)
    assert both["p0"].games == 2


def test_any_scoring_system_counts_by_its_shares() -> None:
    """Rated on each player's share of the game's points: Carnage's scores and the same scores halved rate
    alike, and sum of squares rates as Ghost Ratings' own SoS formula (c² / Σc²)."""
    facts = GameFacts(tuple(PowerFacts(p, c, c == 0) for p, c in zip(POWERS, (0, 3, 6, 4, 0, 14, 7), strict=True)), 18)
    for system in ("carnage", "sos", "tribute"):
        scores = score(system, facts)
        full = {f"p{i}": scores[p] for i, p in enumerate(POWERS)}
        half = {k: v / 2 for k, v in full.items()}
        a, b = rate_pool([seven("g", full)]), rate_pool([seven("g", half)])
        assert {k: round(v.rating, 9) for k, v in a.items()} == {k: round(v.rating, 9) for k, v in b.items()}


def test_bots_and_practice_games_are_never_rated() -> None:
    """A bot has no rating and its seat is left out of the shares: the humans are rated among themselves;
    a practice game changes nobody; a game with one human left tells nothing."""
    players = (
        PlayerResult("ann", "England", 50.0),
        PlayerResult("bob", "France", 0.0),
        PlayerResult("bot-1", "Germany", 50.0, bot=True),
    )
    got = rate_pool([RatedGame("g1", T0, players)])
    assert set(got) == {"ann", "bob"}
    # Among the two humans Ann holds the whole share: +200 / 17.5 × (1 − 1/2).
    assert got["ann"].rating == pytest.approx(START + 200 / DIVISOR / 2)
    assert rate_pool([RatedGame("g2", T0, players, practice=True)]) == {}
    lone = (PlayerResult("ann", "England", 0.0), PlayerResult("bot-1", "Germany", 100.0, bot=True))
    assert rate_pool([RatedGame("g3", T0, lone)]) == {}
    # A bot's solo over two humans: nothing to share among them, nothing learnt.
    beaten = (*lone, PlayerResult("bob", "France", 0.0))
    assert rate_pool([RatedGame("g4", T0, beaten)]) == {}


def test_overall_and_per_group_pools() -> None:
    games = [
        seven("std-1", {"p5": 100.0}, group="standard"),
        seven("w3k-1", {"p0": 100.0}, hours=1, group="w3k"),
    ]
    got = compute_ratings(games)
    assert set(got.by_group) == {"standard", "w3k"}
    assert got.by_group["standard"]["p5"].rating == pytest.approx(134.2857, abs=1e-4)
    assert got.by_group["w3k"]["p5"].rating < START
    assert got.overall["p5"].games == 2 and got.by_group["w3k"]["p5"].games == 1
    board = got.leaderboard("standard")
    assert board[0].person == "p5" and [r.person for r in board[1:]] == ["p0", "p1", "p2", "p3", "p4", "p6"]
    assert got.leaderboard("no such group") == []


def test_a_weight_moves_less() -> None:
    plain = rate_pool([seven("g", {"p5": 100.0})])["p5"].rating - START
    gunboat = rate_pool([seven("g", {"p5": 100.0}, weight=4.0)])["p5"].rating - START
    assert gunboat == pytest.approx(plain / 4)


def test_reliability_is_the_share_finished_without_civil_disorder() -> None:
    def game(name: str, hours: int, cd: bool | None) -> RatedGame:
        players = (PlayerResult("ann", "England", 50.0, civil_disorder=cd), PlayerResult("bob", "France", 50.0))
        return RatedGame(name, T0 + timedelta(hours=hours), players)

    got = rate_pool([game("a", 0, False), game("b", 1, True), game("c", 2, False), game("d", 3, None)])
    assert got["ann"].games == 4
    assert got["ann"].reliability == pytest.approx(2 / 3)
    assert got["bob"].reliability is None


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: RatedGame("", T0, ()), "needs a name"),
        (lambda: RatedGame("g", T0, (), weight=0.5), "weight must be at least 1"),
        (lambda: RatedGame("g", T0, (PlayerResult("a", "X", 1.0), PlayerResult("a", "Y", 1.0))), "two seats"),
        (lambda: RatedGame("g", T0, (PlayerResult("a", "X", -1.0),)), "below 0"),
        (lambda: rate_pool([seven("g", {}), seven("g", {}, hours=1)]), "game g is listed twice"),
    ],
)
def test_games_that_cannot_be_rated_are_refused(make: object, message: str) -> None:
    with pytest.raises(RatingError, match=message):
        make()  # type: ignore[operator]


PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""Generation time depends on how busy the machine is, not on the code under test. Fifty lists of games a run,
not hypothesis's default hundred (13 to 25 s a property on a loaded machine): the lists are drawn at random, so
each run tries others than the last."""

# ---- properties --------------------------------------------------------------------------------------

PEOPLE = [f"person{i}" for i in range(9)]


@st.composite
def game_lists(draw: st.DrawFn) -> list[RatedGame]:
    """Up to a dozen games among nine people (some of them bots in a game), some practice, several ending at
    the same moment, scored with any non-negative numbers."""
    out = []
    for i in range(draw(st.integers(1, 12))):
        seated = draw(st.lists(st.sampled_from(PEOPLE), min_size=2, max_size=7, unique=True))
        players = tuple(
            PlayerResult(
                person,
                f"power{j}",
                draw(st.sampled_from([0.0, 0.0, 1.0, 12.5, 33.3, 100.0])),
                bot=person == "person8",
                civil_disorder=draw(st.none() | st.booleans()),
            )
            for j, person in enumerate(seated)
        )
        out.append(
            RatedGame(
                f"game{i}",
                T0 + timedelta(hours=draw(st.integers(0, 3))),
                players,
                group=draw(st.sampled_from(["standard", "w3k"])),
                practice=draw(st.booleans()) and draw(st.booleans()),
                weight=draw(st.sampled_from([1.0, 2.0, 4.0])),
            )
        )
    return out


@PROPERTY
@given(game_lists())
def test_every_pool_conserves_its_points(games: list[RatedGame]) -> None:
    """What the system conserves: a game moves points between its players, so a pool's ratings always sum
    to 100 for each person rated in it."""
    got = compute_ratings(games)
    for pool in (got.overall, *got.by_group.values()):
        assert sum(r.rating for r in pool.values()) == pytest.approx(START * len(pool))
        assert all(r.rating > 0 for r in pool.values())


@PROPERTY
@given(
    game_lists(),
    st.lists(st.floats(min_value=0.5, max_value=400.0, allow_nan=False), min_size=9, max_size=9),
    st.lists(st.integers(0, 50), min_size=9, max_size=9),
)
def test_one_update_conserves_its_players_points_from_any_standings(
    games: list[RatedGame], ratings: list[float], played: list[int]
) -> None:
    """What the system conserves, one update at a time and from any standings a store may hold (not only those
    a history gives): the ratings a game's rated players bring sum to what they take away, each of them has
    one more game, and nobody else is touched."""
    before = {p: Standing(r, n, n // 2, n // 3) for p, r, n in zip(PEOPLE, ratings, played, strict=True)}
    for game in games:
        after = rate_game(game, before)
        rated = {p.person for p in game.players if not p.bot} if after else set()
        assert set(after) == rated
        if after:
            brought = math.fsum(before[p].rating for p in after)
            assert math.fsum(s.rating for s in after.values()) == pytest.approx(brought, rel=1e-12)
            assert all(after[p].games == before[p].games + 1 for p in after)
            assert all(s.rating > 0 for s in after.values())


@PROPERTY
@given(game_lists(), st.randoms(use_true_random=False))
def test_the_same_games_in_any_order_give_the_same_ratings(games: list[RatedGame], rnd: random.Random) -> None:
    """Recomputed from scratch in the games' (end time, name) order: the order they are handed in does not
    matter, even for games ending at the same moment; the result is exactly equal, not merely close."""
    shuffled = list(games)
    rnd.shuffle(shuffled)
    assert compute_ratings(shuffled) == compute_ratings(games)


@PROPERTY
@given(game_lists())
def test_a_bot_is_never_rated_and_practice_changes_nothing(games: list[RatedGame]) -> None:
    got = compute_ratings(games)
    assert all("person8" not in pool for pool in (got.overall, *got.by_group.values()))
    serious = [g for g in games if not g.practice]
    assert compute_ratings(serious) == got


def test_the_order_of_play_matters_when_end_times_differ() -> None:
    """Order-independence is of the input list, not of history: who won first changes the ratings."""
    a = seven("a", {"p0": 100.0})
    b = seven("b", {"p1": 100.0}, hours=1)
    b_first = seven("b", {"p1": 100.0})
    a_later = seven("a", {"p0": 100.0}, hours=1)
    assert rate_pool([a, b])["p0"].rating != rate_pool([b_first, a_later])["p0"].rating


@PROPERTY
@given(game_lists(), st.randoms(use_true_random=False))
def test_the_order_of_a_games_players_does_not_matter(games: list[RatedGame], rnd: random.Random) -> None:
    """Every player of a game is updated from the ratings they brought, with correctly rounded sums: seating
    the same players in another order gives exactly the same ratings."""
    reseated = []
    for g in games:
        players = list(g.players)
        rnd.shuffle(players)
        reseated.append(RatedGame(g.name, g.ended_at, tuple(players), g.group, g.practice, g.weight))
    assert compute_ratings(reseated) == compute_ratings(games)


def _random_games(rng: random.Random, count: int) -> list[RatedGame]:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    games = []
    for n in range(count):
        people = rng.sample([f"p{i}" for i in range(12)], rng.randint(2, 7))
        games.append(
            RatedGame(
                name=f"g{n:03d}",
                ended_at=start + timedelta(hours=rng.randint(0, 400)),
                players=tuple(
                    PlayerResult(p, f"P{i}", rng.choice((0.0, 1.0, 4.0, 9.0)), civil_disorder=rng.random() < 0.2)
                    for i, p in enumerate(people)
                ),
                group=rng.choice(("standard", "w3k", "1897")),
                practice=rng.random() < 0.1,
            )
        )
    return games


@pytest.mark.parametrize("seed", range(6))
def test_ratings_kept_up_to_date_are_exactly_those_from_scratch(seed: int) -> None:
    """The incremental rater continues when the new games end after those it has (the usual case: a game just
    ended), refuses when one ends earlier, and either way gives the same numbers, bit for bit, as from scratch."""
    rng = random.Random(seed)
    games = _random_games(rng, 120)
    whole = compute_ratings(games)
    ordered = sorted(games, key=lambda g: (g.ended_at, g.name))
    rater = Rater()
    cut = rng.randint(1, 119)
    assert rater.extend(ordered[:cut]) and rater.extend(ordered[cut:])
    assert rater.ratings() == whole
    assert rater.applied == {g.name for g in games}
    late = Rater()
    assert late.extend(ordered[cut:])
    assert not late.extend(ordered[:cut]) or ordered[cut - 1].ended_at == ordered[cut].ended_at
    with pytest.raises(RatingError, match="listed twice"):
        rater.extend([ordered[0]])
