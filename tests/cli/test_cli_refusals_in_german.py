"""The command line says its refusals in the locale's language (issue 53): the rules of procedure's, the
store's and the command line's own are message values, said by ``dippouch.cli.errors`` from their catalogue
entry, so a German locale reads each as German, its values (a duration, a name, a number) as they were typed.
An English locale reads the English it always did."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.cli.errors import user_problem


def _run(args: list[str], locale: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LC_ALL", locale)
    settings.reread()  # the locale is read once a process
    register_commands()
    got = CliRunner().invoke(app, args)
    assert got.exit_code == 2, got.output
    return " ".join(got.output.removeprefix("error:").split())


@pytest.mark.parametrize(
    ("args", "german", "english"),
    [
        # dippouch.game: a duration that cannot be read
        (
            ["new", "demo", "--movement", "12x"],
            "die Dauer '12x' ist nicht lesbar; schreiben Sie sie etwa als 12d",
            "cannot read the duration '12x'; write it like 12d",
        ),
        # dippouch.game: a time zone with a close name
        (
            ["new", "demo", "--tz", "Europe/Berln"],
            "unbekannte Zeitzone 'Europe/Berln'",
            "unknown time zone 'Europe/Berln'; did you mean 'Europe/Berlin'?",
        ),
        # the command line's own: an option not written KEY=VALUE
        (
            ["new", "demo", "-o", "english_channel"],
            "die Option 'english_channel' muss KEY=VALUE lauten",
            "option 'english_channel' must read KEY=VALUE (e.g. -o english_channel=true)",
        ),
        # the command line's own: a game file that is not there
        (
            ["import", "/nowhere/demo.json"],
            "keine Datei '/nowhere/demo.json'",
            "no file '/nowhere/demo.json'",
        ),
    ],
)
def test_a_refusal_is_german_for_a_german_locale(
    args: list[str], german: str, english: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'g.db'}"]
    said = _run([*args, *db], "de_DE.UTF-8", monkeypatch)
    assert german in said
    assert english not in said
    assert english in _run([*args, *db], "C", monkeypatch)


def test_a_database_url_the_store_refuses_is_german(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said = _run(["status", "demo", "--db", "games.db"], "de_DE.UTF-8", monkeypatch)
    assert "'games.db' ist keine Datenbank-URL; für eine SQLite-Datei schreiben Sie sqlite:///games.db" in said


def test_a_system_error_is_said_in_german_with_the_systems_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    settings.reread()
    e = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    assert user_problem(e) == "der Text kann nicht als UTF-8 gelesen oder geschrieben werden (UnicodeDecodeError)"
    missing = FileNotFoundError(2, "No such file or directory", "/nowhere/x")
    assert user_problem(missing) == "No such file or directory: /nowhere/x"
