"""``dippouch score GAME [--system NAME] [--all] [--choose NAME]``: a finished game's scores table under its own
system, another, or every shipped one; the game's choice of system; and the refusals, each one line with exit
status 2 (an unknown system naming the closest, an unfinished game, --system with --all)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch.cli import app, register_commands
from dippouch.ranking.scoring import systems
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A database with ``drawn`` (every power voted a draw at the start: Russia holds 4 centres, the rest 3)
    and ``running`` (not finished)."""
    migrated_sqlite(tmp_path / "g.db")
    url = f"sqlite:///{tmp_path / 'g.db'}"
    store = GameStore(url)
    store_games.create_game(store, "drawn", "standard", now=NOW)
    for power in POWERS:
        if store_status.status(store, "drawn", now=NOW).state != "finished":
            store_votes.vote(store, "drawn", power, True, now=NOW)
    assert store_status.status(store, "drawn", now=NOW).state == "finished"
    store_games.create_game(store, "running", "standard", now=NOW)
    return url


def _run(db: str, *args: str) -> tuple[int, str]:
    register_commands()
    result = CliRunner().invoke(app, ["score", *args, "--db", db, "--now", NOW.isoformat()])
    return result.exit_code, " ".join(str(result.output).split())


def _rows(text: str) -> dict[str, str]:
    return dict(re.findall(r"│ (\w+) │ \d+ │ ([\d.]+) │", text))


def test_the_game_s_own_system_is_draw_size_unless_chosen(db: str) -> None:
    code, said = _run(db, "drawn")
    assert code == 0, said
    assert "drawn: Draw-size scoring (the game's system)" in said
    assert _rows(said) == dict.fromkeys(POWERS, "14.29")
    assert "Draw agreed" in said


def test_another_system_is_asked_for_by_name(db: str) -> None:
    code, said = _run(db, "drawn", "--system", "Centres")
    assert code == 0, said
    assert "Centre count" in said and "(the game's system)" not in said
    assert _rows(said) == {**dict.fromkeys(POWERS, "3.00"), "Russia": "4.00"}


def test_all_prints_a_table_for_every_system(db: str) -> None:
    code, said = _run(db, "drawn", "--all")
    assert code == 0, said
    titles = re.findall(r"drawn: ([A-Za-z -]+?)(?: \(the game's system\))? ┏", said)
    assert sorted(titles) == sorted(s.title for s in systems().values())
    assert titles[0] == "Draw-size scoring"  # the game's own first


def test_choosing_a_system_makes_it_the_game_s_own(db: str) -> None:
    code, said = _run(db, "drawn", "--choose", "sos")
    assert code == 0 and "is scored under Sum of squares (sos)" in said, said
    code, said = _run(db, "drawn")
    assert "drawn: Sum of squares (the game's system)" in said
    assert _rows(said)["Russia"] == "22.86"  # 100 × 16 / (6 × 9 + 16)
    code, said = _run(db, "drawn", "--choose", "default")
    assert code == 0 and "Draw-size scoring" in said, said


@pytest.mark.parametrize(
    "args",
    [("drawn", "--system", "tribut"), ("drawn", "--all", "--system", "tribut"), ("drawn", "--choose", "tribut")],
)
def test_an_unknown_system_is_refused_naming_the_closest(db: str, args: tuple[str, ...]) -> None:
    code, said = _run(db, *args)
    assert code == 2, said
    assert "error: no scoring system 'tribut' (did you mean 'tribute'?)" in said
    assert "Traceback" not in said


def test_an_unfinished_game_is_not_scored(db: str) -> None:
    code, said = _run(db, "running")
    assert code == 2, said
    assert "error: game 'running': the game is not finished: it is scored once it ends" in said


def test_system_and_all_together_are_refused(db: str) -> None:
    code, said = _run(db, "drawn", "--all", "--system", "sos")
    assert code == 2 and "give --system NAME or --all, not both" in said, said


def test_an_unknown_game_is_refused_naming_the_closest(db: str) -> None:
    code, said = _run(db, "drawm")
    assert code == 2 and "no game 'drawm'" in said and "did you mean 'drawn'" in said, said


def test_a_new_game_chooses_its_system_and_is_scored_under_it(db: str) -> None:
    """``dippouch new --scoring``: the system chosen when the game is made is the one its end is scored under;
    an unknown name is refused naming the closest, and no game is made."""
    register_commands()
    made = CliRunner().invoke(app, ["new", "sos", "--scoring", "SoS", "--db", db, "--now", NOW.isoformat()])
    assert made.exit_code == 0, made.output
    assert "Scored at its end under Sum of squares" in " ".join(made.output.split())
    store = GameStore(db)
    for power in POWERS:
        if store_status.status(store, "sos", now=NOW).state != "finished":
            store_votes.vote(store, "sos", power, True, now=NOW)
    code, said = _run(db, "sos")
    assert code == 0, said
    assert "sos: Sum of squares (the game's system)" in said
    refused = CliRunner().invoke(app, ["new", "typo", "--scoring", "carnge", "--db", db, "--now", NOW.isoformat()])
    assert refused.exit_code == 2 and "did you mean 'carnage'" in refused.output
    assert "typo" not in {g[0] for g in store_games.games(store)}


def test_a_new_game_chooses_the_language_of_its_mail(db: str) -> None:
    register_commands()
    made = CliRunner().invoke(app, ["new", "de", "--language", "DE", "--db", db, "--now", NOW.isoformat()])
    assert made.exit_code == 0, made.output
    assert store_status.status(GameStore(db), "de", now=NOW).settings.language == "de"
    refused = CliRunner().invoke(app, ["new", "xx", "--language", "xx", "--db", db, "--now", NOW.isoformat()])
    assert refused.exit_code == 2 and "no language 'xx'; languages: en, de, fr" in refused.output
