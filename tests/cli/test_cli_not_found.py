"""The CLI's answer to a name that names nothing is one line and exit status 2; a bug's KeyError is not
disguised as the user's mistake (it keeps its traceback, so it gets reported and fixed)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from dippouch.cli import app, register_commands
from dippouch.cli.errors import user_problem
from dippouch.core.errors import NotFound
from dippouch.game import RecordNotFound
from dippouch.store import status as store_status
from dippouch.store.repository import GameStore

pytestmark = pytest.mark.empty_database

register_commands()

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _run(db: str, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--db", db])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("status", "nope"), "no game 'nope'"),
        (("players", "assign", "g", "Atlantis", "Zed"), "no power 'Atlantis'"),
        (("report", "g", "--id", "999"), "game 'g' has no phase with id 999"),
    ],
)
def test_a_missing_game_power_or_phase_is_one_line_and_status_2(
    tmp_path: Path, args: tuple[str, ...], words: str
) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    assert _run(db, "new", "g", "--now", T0.isoformat()).exit_code == 0
    r = _run(db, *args)
    assert r.exit_code == 2, r.output
    assert f"error: {words}" in r.output and "Traceback" not in r.output


def test_not_found_reads_as_its_sentence_and_a_bare_key_error_as_a_bug() -> None:
    assert user_problem(NotFound("no game 'x'")) == "no game 'x'"  # KeyError's str() would quote it
    assert user_problem(RecordNotFound("no person 7")) == "no person 7"
    assert user_problem(KeyError("dp_some_key")) is None


def test_a_bugs_key_error_in_a_command_is_not_shown_as_the_users_mistake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    assert _run(db, "new", "g", "--now", T0.isoformat()).exit_code == 0

    def broken(self: GameStore, *args: object, **kwargs: object) -> None:
        raise KeyError("dp_some_key")  # a bug inside the store: a dict read with a key it lacks

    monkeypatch.setattr(store_status, "status", broken)
    r = _run(db, "status", "g")
    assert isinstance(r.exception, KeyError)  # re-raised: a traceback, not "error: ..."
    assert r.exit_code != 0 and "error: dp_some_key" not in r.output
