"""Migration 0032: why a counted game could not be scored, stored by the ratings as English alone, gets once the
message that says the same English (the scoring's refusal inside "cannot be scored under"), so the ratings
page says it in German; a text no sentence reads stays as it is and is counted; a second walk changes nothing
and downgrade drops the column, the English kept. On SQLite and PostgreSQL.

The rows are written as dippouch.play.ratings wrote them before its problem was a message value.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from dippouch.core.messages import msg
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store.db import alembic_config
from dippouch.store.ratings import ledger as stored
from dippouch.store.ratings.legacy import add_problem_messages

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

OLD = {
    1: "game 'alpha' cannot be scored under dss: nobody survived to share the game",
    2: "game 'beta' cannot be scored under sos: no power holds a centre: sum of squares has nothing to share",
    3: "cannot be read: game 'gamma' cannot be scored under carnage: France is eliminated but holds 3 centres",
    4: "cannot be read: the variant file went missing on the old server",
    5: None,
}
"""Each game's stored problem (None: a game that was scored); the fourth no sentence reads whole."""


def _rows(engine: sa.Engine) -> dict[int, tuple[str | None, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT game_id, problem, why FROM rating_games")).all()
    return {int(i): (p, json.loads(w) if isinstance(w, str) else w) for i, p, w in rows}


def _migrate(engine: sa.Engine, to: str, down: bool = False) -> None:
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, to)


def test_old_problems_get_the_message_that_says_them(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    store = GameStore(db_url)
    try:
        engine = store.engine
        _migrate(engine, "0031", down=True)
        with engine.begin() as conn:
            for gid, problem in OLD.items():
                conn.execute(
                    sa.text(
                        "INSERT INTO rating_games (game_id, name, variant, branch, scoring, visibility, counted, "
                        "ended_at, problem, rated, weight) VALUES (:id, :name, 'standard', 0, '', 'public', "
                        ":counted, :at, :problem, false, 1.0)"
                    ),
                    {"id": gid, "name": f"g{gid}", "counted": True, "at": T0, "problem": problem},
                )
        with caplog.at_level(logging.INFO, logger="alembic.runtime.migration"):
            _migrate(engine, "head")
        log = "\n".join(r.getMessage() for r in caplog.records if "rating problems" in r.getMessage())
        assert "3 given their message, 1 read by no sentence (kept as text), 3 games written" in log, log

        got = _rows(engine)
        assert got[4] == (OLD[4], None) and got[5] == (None, None)
        # The English stays; the message says it again, and is the one today's code makes.
        assert got[1][0] == OLD[1]
        assert (
            got[1][1]
            == msg(
                "game %(game)s cannot be scored under %(system)s: %(reason)s",
                game="'alpha'",
                system="dss",
                reason=msg("nobody survived to share the game"),
            ).to_data()
        )
        third = got[3][1]
        assert third["id"] == "cannot be read: %(reason)s"
        assert third["args"]["reason"]["msg"]["args"]["reason"]["msg"]["args"] == {"power": "France", "centres": 3}

        # Read back as the ratings page reads them, and said in German; the unread one as it is.
        why = dict(stored.unscored(store, public=True))
        assert {str(w) for w in why.values()} == {OLD[1], OLD[2], OLD[3], OLD[4]}
        assert say(why["g1"], "de") == (
            "die Partie 'alpha' kann nach dss nicht gewertet werden: niemand hat überlebt, um die Partie zu teilen"
        )
        assert say(why["g3"], "de").startswith("nicht lesbar: die Partie 'gamma' kann nach carnage nicht")
        assert say(why["g4"], "de") == OLD[4]

        # A second walk changes nothing.
        with engine.begin() as conn:
            again = add_problem_messages(conn, batch=2)
        assert (again.converted, again.unreadable, again.rows) == (0, 1, 0)
        assert _rows(engine) == got

        # Downgrade drops the messages and keeps the English.
        _migrate(engine, "0031", down=True)
        with engine.connect() as conn:
            rows: dict[int, str | None] = dict(conn.execute(sa.text("SELECT game_id, problem FROM rating_games")).all())
        assert rows == OLD
        _migrate(engine, "head")
    finally:
        store.close()
