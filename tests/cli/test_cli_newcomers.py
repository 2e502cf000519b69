"""``dippouch new --no-newcomers``: the command line keeps a game from newcomers as the web's forms do (issue 55),
stored in the game's settings, said when the game is made, and held against a newcomer's sign-up."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.game import GameError
from dippouch.play import openings as play_openings
from dippouch.store import GameStore
from dippouch.store import openings as store_openings
from dippouch.store import status as store_status
from dippouch.store.people.persons import create_person

register_commands()
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_new_no_newcomers_keeps_a_newcomer_out_and_new_lets_them_in(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.db'}"
    r = CliRunner().invoke(app, ["new", "vets", "--variant", "hundred3", "--no-newcomers", "--db", db])
    assert r.exit_code == 0, r.output
    assert "Not for newcomers" in r.output
    r = CliRunner().invoke(app, ["new", "all", "--variant", "hundred3", "--db", db])
    assert r.exit_code == 0 and "newcomers" not in r.output, r.output
    store = GameStore(db)
    assert store_status.status(store, "vets", now=T0).settings.newcomers is False
    for game in ("vets", "all"):
        store_openings.open_game(store, game, now=T0, press="", min_reliability=0, mode="preferences")
    ivan = create_person(store, "Ivan", now=T0)
    with pytest.raises(GameError) as refused:
        play_openings.sign_up(store, "vets", ivan, ["England"], now=T0)
    assert "vets is not for newcomers" in str(refused.value)
    assert play_openings.sign_up(store, "all", ivan, ["England"], now=T0).game == "all"
