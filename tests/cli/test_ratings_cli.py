"""``dippouch ratings update`` and ``dippouch ratings check [--fix]``: the finished games taken in by hand, a
check that says the stored ratings equal a recomputation (exit 0) or names each difference (exit 1), and
``--fix`` that rewrites them; refusals are one line with exit status 2."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch.cli import app, register_commands
from dippouch.play.records import choose_scoring
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person, seat_person
from dippouch.store.ratings import ledger as stored

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


@pytest.fixture
def db(tmp_path: Path) -> str:
    """Two draws of seven people (every power voted a draw at the start: Russia holds 4 centres, the rest 3),
    under sum of squares, so Russia's player does better than the rest."""
    url = migrated_sqlite(tmp_path / "g.db")
    store = GameStore(url)
    people = [create_person(store, f"P{i}", now=NOW) for i in range(8)]
    for n, seated in enumerate((people[:7], people[1:])):
        game = f"d{n}"
        store_games.create_game(store, game, "standard", now=NOW)
        choose_scoring(store, game, "sos", now=NOW)
        for power, person in zip(POWERS, seated, strict=True):
            store_games.assign(store, game, power, f"{game} {power}", now=NOW)
            seat_person(store, game, power, person, now=NOW)
        for power in POWERS:
            store_votes.vote(store, game, power, True, now=NOW + timedelta(hours=n + 1))
    return url


def _run(db: str, *args: str) -> tuple[int, str]:
    register_commands()
    result = CliRunner().invoke(app, ["ratings", *args, "--db", db], env={"COLUMNS": "200"})
    return result.exit_code, " ".join(str(result.output).split())


def test_update_takes_the_finished_games_in_once(db: str) -> None:
    code, said = _run(db)
    assert code == 0 and "Nobody is rated yet" in said
    code, said = _run(db, "update")
    assert code == 0 and "2 games taken in, 0 taken out; the standings continued" in said, said
    assert _run(db, "update") == (0, "The ratings are up to date.")
    code, said = _run(db)
    assert code == 0 and "Overall: 2 rated games, 8 people" in said and "Variant standard" in said


def test_check_says_equal_or_names_each_difference_and_fix_rewrites(db: str) -> None:
    code, said = _run(db, "check")
    assert code == 1, said  # nothing taken in yet: each finished game is a difference, and pending
    assert "2 games are not taken in as they stand now" in said and "game d0: finished, not taken in" in said
    _run(db, "update")
    code, said = _run(db, "check")
    assert code == 0 and "2 finished games, 2 rated somebody; 8 people rated overall." in said, said
    assert "The stored ratings equal the recomputation." in said
    # A fault in a stored double: the check names the person and both numbers, to the last bit.
    store = GameStore(db)
    person, st = stored.leaderboard(store, stored.OVERALL, limit=1)[0]
    with stored.writing(store, None) as w:
        w.put(
            stored.OVERALL,
            {person: stored.PoolStanding(st.rating * (1 + 2**-52), st.games, st.known, st.steady)},
            known=[person],
            games=0,
        )
    code, said = _run(db, "check")
    assert code == 1 and f"overall: person {person}: stored PoolStanding(rating={st.rating * (1 + 2**-52)!r}" in said
    code, said = _run(db, "check", "--fix")
    assert code == 0 and "Rewritten from the recomputation: the stored ratings now equal it." in said, said
    assert _run(db, "check")[0] == 0


def test_bad_options_are_refused_in_one_line(db: str) -> None:
    code, said = _run(db, "--page", "0")
    assert code == 2 and "--page" in said and "Traceback" not in said
    code, said = _run(db, "check", "--fixx")
    assert code == 2 and "No such option: --fixx" in said
