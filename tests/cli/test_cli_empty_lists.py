"""A list with nothing in it says so and what would fill it, in the locale's language: `mail list`, `mail outbox`
and `puzzles list` printed an empty table's frame (or, for the puzzles, nothing at all), which reads as a fault."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch import settings
from dippouch.cli import app, register_commands


def _said(db: str, *args: str) -> str:
    register_commands()
    r = CliRunner().invoke(app, [*args, "--db", db])
    assert r.exit_code == 0, r.output
    return r.output.strip()


def test_empty_lists_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = migrated_sqlite(tmp_path / "e.db")
    _said(db, "new", "g")
    assert _said(db, "mail", "list") == ("No message has been taken in yet: `dippouch mail fetch` reads the mailbox.")
    assert _said(db, "mail", "list", "g") == "No message for g has been taken in."
    assert _said(db, "mail", "list", "--status", "held") == "No message with status held."
    assert _said(db, "mail", "outbox") == "Nothing is waiting to be sent."
    assert _said(db, "mail", "outbox", "--all") == "The outbox is empty: nothing was ever queued."
    assert _said(db, "puzzles", "list") == (
        "No puzzle yet: `dippouch puzzles generate` looks for them in the finished games."
    )
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    settings.reread()
    try:
        assert _said(db, "mail", "outbox") == "Nichts wartet auf den Versand."
        assert _said(db, "puzzles", "list").startswith("Noch kein Rätsel:")
    finally:
        monkeypatch.delenv("LC_ALL")
        settings.reread()
