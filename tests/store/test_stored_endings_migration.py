"""Migration 0031: a game's ending written before messages were values (its English text alone) gets, once, the
message that says the same English, so a German page and report say it in German; an ending no sentence of its
kind reads stays as it is and is counted; the walk is idempotent and downgrade takes back what it added. On
SQLite and PostgreSQL.

The endings are written as :mod:`dippouch.game` wrote them before endings were message values (the five
sentences of commit 83dde29e's parent), into games made by today's store.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from dippouch.core.messages import nmsg
from dippouch.game import Ending, draw_agreed
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.db import alembic_config
from dippouch.store.legacy_text import add_ending_messages

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

OLD = {
    "victory": {"kind": "victory", "powers": ["France"], "text": "France wins with 18 supply centres."},
    "ranked": {
        "kind": "ranked",
        "powers": ["Crown", "Parliament"],
        "text": "Only 2 powers remain; they rank by size: Crown (9), Parliament (4).",
    },
    "no_powers": {
        "kind": "no_powers",
        "powers": [],
        "text": "No power has a unit or a supply centre left: the game ends with no winner.",
    },
    "last_year": {
        "kind": "last_year",
        "powers": ["England", "Russia"],
        "text": "The game ends after 1907, its last year; surviving: England, Russia.",
    },
    "draw": {
        "kind": "draw",
        "powers": ["England", "France"],
        "text": "Draw agreed by England, France; shared by England, France.",
    },
    "imported": {"kind": "draw", "powers": ["England"], "text": "Called by the referee after the club closed."},
}
"""One game's stored ending per name, as the store wrote it then; the last one no sentence reads."""

GERMAN = {
    "victory": "France gewinnt mit 18 Versorgungszentren.",
    "no_powers": "Keine Macht hat noch eine Einheit oder ein Versorgungszentrum: die Partie endet ohne Sieger.",
    "draw": "Remis vereinbart von England, France; geteilt von England, France.",
}


def _endings(engine: sa.Engine) -> dict[str, Any]:
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT name, ending FROM games")).all()
    return {name: json.loads(e) if isinstance(e, str) else e for name, e in rows}


def _migrate(engine: sa.Engine, to: str, down: bool = False) -> None:
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, to)


def test_old_endings_get_the_message_that_says_them(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    store = GameStore(db_url)
    try:
        games = sa.table("games", sa.column("name", sa.String()), sa.column("ending", sa.JSON()))
        for name in OLD:
            store_games.create_game(store, name, "standard", now=T0)
        store_games.create_game(store, "running", "standard", now=T0)
        engine = store.engine
        with engine.begin() as conn:
            for name, ending in OLD.items():
                conn.execute(games.update().where(games.c.name == name).values(ending=ending))
        _migrate(engine, "0030", down=True)
        assert _endings(engine) == {**OLD, "running": None}  # nothing of the old rows to take back

        with caplog.at_level(logging.INFO, logger="alembic.runtime.migration"):
            _migrate(engine, "head")
        log = "\n".join(r.getMessage() for r in caplog.records if "stored endings" in r.getMessage())
        assert "5 given their message, 1 read by no sentence (kept as text), 5 games written" in log, log

        got = _endings(engine)
        assert got["running"] is None and got["imported"] == OLD["imported"]
        for name, old in OLD.items():
            ended = Ending.from_data(got[name])
            assert ended.text == old["text"] and list(ended.powers) == old["powers"]
            # The message says the English as it was stored, and is the one today's code makes for it.
            assert str(ended.message) == old["text"], name
        victory = Ending.from_data(got["victory"]).why
        assert victory == nmsg(
            "%(power)s wins with %(num)d supply centre.",
            "%(power)s wins with %(num)d supply centres.",
            18,
            power="France",
        )
        draw = Ending.from_data(got["draw"]).why
        assert draw is not None and draw.id == "Draw agreed by %(voters)s; shared by %(powers)s."
        assert str(draw_agreed(["England", "France"], ["England", "France"])) != str(draw)  # today's wording differs

        # Said in German, as a German page and report say an ending; the unread one as it is.
        for name, de in GERMAN.items():
            assert say(Ending.from_data(got[name]).message, "de") == de
        assert say(Ending.from_data(got["imported"]).message, "de") == OLD["imported"]["text"]
        assert "Partie endet nach 1907" in say(Ending.from_data(got["last_year"]).message, "de")

        # A second walk changes nothing.
        with engine.begin() as conn:
            again = add_ending_messages(conn, batch=2)
        assert (again.converted, again.unreadable, again.rows) == (0, 1, 0)
        assert _endings(engine) == got

        # Downgrade takes back what the upgrade added, and only that: an ending written with its message by
        # today's code keeps it.
        with engine.begin() as conn:
            today = Ending.of("no_powers", (), draw_agreed(["Italy"], ["Italy"])).to_data()
            conn.execute(games.update().where(games.c.name == "running").values(ending=today))
        _migrate(engine, "0030", down=True)
        assert _endings(engine) == {**OLD, "running": today}
    finally:
        store.close()
