"""Migration 0033: what became of a message taken in, stored by the mail log as English alone, gets once the
message that says the same English, so the command line and the review page say it in German; a reason no
sentence reads stays as it is and is counted; a second walk changes nothing and downgrade drops the column,
the English kept. On SQLite and PostgreSQL.

The rows are written as dippouch.mail.intake wrote them before its reasons were message values.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from dippouch.core.messages import Msg, PhaseName
from dippouch.i18n import translations
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store.db import alembic_config
from dippouch.store.mail.inbox import messages
from dippouch.store.mail.legacy import TEMPLATES, add_reason_messages, reason_read_back

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

OLD = {
    1: "version 2 recorded (5 accepted, 1 rejected)",
    2: "Spring 1901 Movement has already been processed; the game is now in Fall 1901 Movement",
    3: "applied on the player's confirmation's word as France version 3",
    4: "version 1 recorded (3 accepted, 0 rejected); every power was ready: Spring 1901 Movement processed",
    5: "no province 'xyz' on line 2 (the first order counts)",
    6: "",
    7: "confirms held message #3: France version 3",
}
"""Each message's stored reason; the fifth (a refusal of the game rules) no sentence of the mail log reads, the
sixth is a message still being taken in; the seventh confirmed the third."""


def _rows(engine: sa.Engine) -> dict[int, tuple[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT id, reason, reason_msg FROM mail_messages")).all()
    return {int(i): (r, json.loads(w) if isinstance(w, str) else w) for i, r, w in rows}


def _migrate(engine: sa.Engine, to: str, down: bool = False) -> None:
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, to)


def test_old_reasons_get_the_message_that_says_them(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    store = GameStore(db_url)
    try:
        engine = store.engine
        _migrate(engine, "0032", down=True)
        with engine.begin() as conn:
            for mid, reason in OLD.items():
                conn.execute(
                    sa.text(
                        "INSERT INTO mail_messages (id, digest, origin, sender, subject, received_at, fetched_at, "
                        "status, reason, reading, raw) VALUES (:id, :digest, 'test', 'a@example.org', 's', :at, "
                        ":at, 'accepted', :reason, '{}', :raw)"
                    ),
                    {"id": mid, "digest": f"{mid:064d}", "at": T0, "reason": reason, "raw": b"x"},
                )
        with caplog.at_level(logging.INFO, logger="alembic.runtime.migration"):
            _migrate(engine, "head")
        log = "\n".join(r.getMessage() for r in caplog.records if "mail reasons" in r.getMessage())
        assert "5 given their message, 1 read by no sentence (kept as text), 5 messages written" in log, log

        got = _rows(engine)
        assert got[5] == (OLD[5], None) and got[6] == ("", None)
        assert {mid: reason for mid, (reason, _) in got.items()} == OLD  # the English stays
        assert Msg.from_data(got[2][1]) == Msg(
            "%(phase)s has already been processed; the game is now in %(current)s",
            {"phase": PhaseName("Spring 1901 Movement"), "current": PhaseName("Fall 1901 Movement")},
        )
        assert got[7][1]["args"]["reason"]["msg"]["id"] == "%(power)s version %(version)d"
        nested = got[3][1]
        assert nested["id"] == "applied on %(by)s's word as %(power)s version %(version)d"
        assert nested["args"]["by"]["msg"]["id"] == "the player's confirmation"
        assert nested["args"]["version"] == 3

        # Read back as the command line and the review page read them, and said in German; the unread as it is.
        info = {m.id: m for m in messages(store)}
        assert info[1].why is not None and say(info[1].why, "de") == "Version 2 erfasst (5 angenommen, 1 abgelehnt)"
        assert info[2].why is not None and say(info[2].why, "de") == (
            "Frühjahr 1901 Bewegung wurde bereits ausgewertet; die Partie ist jetzt in Herbst 1901 Bewegung"
        )
        assert info[5].why is None and info[5].reason == OLD[5]

        # A second walk changes nothing.
        with engine.begin() as conn:
            again = add_reason_messages(conn, batch=2)
        assert (again.converted, again.unreadable, again.rows) == (0, 1, 0)
        assert _rows(engine) == got

        # Downgrade drops the messages and keeps the English.
        _migrate(engine, "0032", down=True)
        with engine.connect() as conn:
            rows: dict[int, str] = dict(conn.execute(sa.text("SELECT id, reason FROM mail_messages")).all())
        assert rows == OLD
        _migrate(engine, "head")
    finally:
        store.close()


def test_every_frozen_sentence_reads_back_what_it_says() -> None:
    """A template the reader cannot read back (a placeholder it splits wrongly) would leave its rows as text."""
    for template, kinds in TEMPLATES:
        args: dict[str, Any] = {}
        for part in template.split("%(")[1:]:
            name, conv = part.split(")", 1)[0], part.split(")", 1)[1][0]
            kind = dict(k.split("=") for k in kinds.split()).get(name, "s")
            args[name] = (
                7
                if conv == "d"
                else PhaseName("Fall 1902 Retreat")
                if kind == "p"
                else Msg("the coordinator")
                if kind == "m"
                else f"value-{name}"
            )
        said = Msg(template, args)
        assert reason_read_back(str(said)) == said, template
        # Today's writers use the same ids, so the catalogues translate a converted row like a new one (German
        # words each of them otherwise; French writes "%(power)s version %(version)d" as English does).
        assert translations("de").gettext(template) != template, template
