"""Sealed until the deadline, whatever the coordinator does first: rolling the open phase back onto itself
sets it aside unprocessed (its orders carried into the new open phase); `export` and `show --id` of the
phase set aside must keep those orders sealed while the open phase is, as the web does."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game  # noqa: F401
from dippouch.cli import app


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about what mail becomes once its sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.output


def test_a_rollback_onto_the_open_phase_unseals_nothing(tmp_path: Path) -> None:
    db = "--db", f"sqlite:///{tmp_path / 'r.db'}"
    orders = tmp_path / "orders.txt"
    orders.write_text("A mun - tyr\nF kie - den\n")
    run("new", "r", *db, "--now", "2026-12-01T09:00:00+00:00")
    run("submit", "r", "Germany", str(orders), *db, "--now", "2026-12-01T10:00:00+00:00")
    run("rollback", "r", "Spring 1901 Movement", *db, "--now", "2026-12-01T11:00:00+00:00")
    before = "--now", "2026-12-02T09:00:00+00:00"
    for view in (
        ("export", "r"),
        ("show", "r", "--id", "1"),
        ("show", "r", "--id", "2"),
        ("show", "r", "--id", "1", "--json"),
    ):
        out = run(*view, *db, *before)
        assert "mun - tyr" not in out and "kie - den" not in out, view
    after = "--now", "2027-01-01T09:00:00+00:00"  # past every deadline: everything may be read
    assert "mun - tyr" in run("show", "r", "--id", "1", *db, *after)


def test_mail_show_after_a_rollback_onto_the_open_phase(tmp_path: Path) -> None:
    import dippouch.cli.mail  # noqa: F401

    db = "--db", f"sqlite:///{tmp_path / 'm.db'}"
    run("new", "m", *db, "--now", "2026-12-01T09:00:00+00:00")
    run(
        "players", "assign", "m", "Germany", "G", "--email", "de@example.org", *db, "--now", "2026-12-01T09:00:00+00:00"
    )
    msg = tmp_path / "a.eml"
    msg.write_bytes(
        b"From: de@example.org\r\nSubject: m - Germany - Spring 1901 Movement\r\nMessage-ID: <x1@example.org>\r\n"
        b"\r\nA mun - tyr\r\n"
    )
    assert "1 accepted" in run("mail", "fetch", str(msg), *db, "--now", "2026-12-01T10:00:00+00:00")
    run("rollback", "m", "Spring 1901 Movement", *db, "--now", "2026-12-01T11:00:00+00:00")
    shown = run("mail", "show", "1", *db, "--now", "2026-12-02T09:00:00+00:00")
    assert "mun - tyr" not in shown and "sealed until the deadline" in shown
    assert "mun - tyr" in run("mail", "show", "1", *db, "--now", "2027-01-01T09:00:00+00:00")
