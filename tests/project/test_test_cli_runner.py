"""typer's test runner with the command built once (tests/conftest.py): built again whenever the app's commands
change, as ``dippouch.cli`` registers its commands module by module and narrows them while one runs."""

from __future__ import annotations

import pytest
import typer
import typer.main
from typer.testing import CliRunner


def test_a_command_registered_after_a_first_run_is_found_and_an_unchanged_app_is_built_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    builds: list[typer.Typer] = []
    build = typer.main.get_command

    def counted(app: typer.Typer) -> object:
        builds.append(app)
        return build(app)

    monkeypatch.setattr(typer.main, "get_command", counted)
    app = typer.Typer()

    @app.command()
    def one() -> None:
        typer.echo("one")

    @app.command()
    def two() -> None:
        typer.echo("two")

    runner = CliRunner()
    assert runner.invoke(app, ["one"]).output == "one\n"
    assert runner.invoke(app, ["two"]).output == "two\n"
    assert len(builds) == 1

    @app.command()
    def three() -> None:
        typer.echo("three")

    assert runner.invoke(app, ["three"]).output == "three\n"
    assert len(builds) == 2
    app.registered_commands = app.registered_commands[:1]  # narrowed, as dippouch.cli does while one runs
    assert runner.invoke(app, []).output == "one\n"  # a lone command: typer makes it the program itself
    assert len(builds) == 3
