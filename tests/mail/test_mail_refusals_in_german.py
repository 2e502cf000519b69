"""A refusal of orders sent by mail is said in the game's language (issue 53): the rules' refusal is a message
value, and the reply to a German game's player says it from the catalogue, its numbers as they were counted,
while the mail log keeps the English the coordinator's tools read."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.game import GameSettings
from dippouch.mail.intake import take_in
from dippouch.mail.notices import setup
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.mail.models import OutboxRow

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reply, not proof of the sender (test_mail_proof.py), is what this test reads."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


def _game(tmp_path: Path, language: str) -> GameStore:
    store = GameStore(migrated_sqlite(tmp_path / f"{language}.db"))
    store_games.create_game(store, "demo", "standard", now=T0, settings=GameSettings(language=language))
    store_games.assign(store, "demo", "France", "France player", now=T0, email="fr@example.org")
    setup(store, "demo", now=T0, changes={})
    return store


def _too_many_lines() -> bytes:
    body = "A par H\r\n" * 1001
    return (
        "From: fr@example.org\r\nTo: orders@example.org\r\nSubject: demo - France - Spring 1901 Movement\r\n"
        f"Message-ID: <many@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    ).encode()


def _reply(store: GameStore) -> str:
    with store.session() as s:
        return next(r.body for r in s.query(OutboxRow).order_by(OutboxRow.id.desc()) if r.kind == "reply")


ENGLISH = "1,001 lines of orders; at most 1,000 lines are sent or checked at once"


def test_a_german_sender_reads_the_refusal_in_german(tmp_path: Path) -> None:
    store = _game(tmp_path, "de")
    got = take_in(store, _too_many_lines(), now=T0)
    assert got.status == "refused"
    assert got.reason == ENGLISH  # the mail log, as the coordinator's tools read it
    body = _reply(store)
    assert "Grund: 1.001 Befehlszeilen; höchstens 1.000 Zeilen werden auf einmal gesendet oder geprüft.\n" in body
    assert "lines of orders" not in body


def test_an_english_sender_reads_the_english_it_always_did(tmp_path: Path) -> None:
    store = _game(tmp_path, "en")
    got = take_in(store, _too_many_lines(), now=T0)
    assert got.status == "refused"
    assert f"Why: {ENGLISH}.\n" in _reply(store)
