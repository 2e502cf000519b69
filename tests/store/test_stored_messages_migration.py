"""Migration 0023: the line checks and results written before messages were values get, once, the message
today's code makes for the same line or result, beside their English; a text no template reads stays as it
is and is counted; the German of a converted row is German; the walk is idempotent and downgrade takes back
what it added.

The rows are written by today's store (a submission with refused lines of several kinds, a processed phase
with failed orders), then made as the store wrote them before: the message data taken out, and a refusal and
a reason no template reads put in. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import copy
import json
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from dippouch.catalog import load_variant
from dippouch.game import check_orders, stored_msg
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.db import alembic_config
from dippouch.store.legacy_text import add_messages, read_back

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
FRANCE = "\n".join(
    [
        "A par - burr",  # no province, with a did-you-mean
        "A par - mos",  # a nested reason with the closest legal orders
        "F bre - spa",  # the same, of a fleet
        "A mar - bur",
        "A mar - gas",  # a second order for the unit: the first counts
        "A xyz H",
    ]
)
GERMANY = "A mun - bur\nA ber - kie\nItaly: A ven - tyr"
UNREAD_LINE = "a refusal no template of that day wrote"
UNREAD_REASON = "the referee's own words"
LINE_KEYS = ("error_msg", "note_msg")


def _rows(engine: sa.Engine) -> tuple[dict[int, list[Any]], dict[int, list[Any]]]:
    """The stored lines of every submission and the results of every phase, by id."""
    with engine.connect() as conn:
        subs = {i: lines for i, lines in conn.execute(sa.text("SELECT id, lines FROM submissions"))}
        phases = {i: res for i, res in conn.execute(sa.text("SELECT id, results FROM phases"))}
    return ({i: _json(v) for i, v in subs.items()}, {i: _json(v) for i, v in phases.items() if v is not None})


def _json(value: Any) -> Any:
    # PostgreSQL's driver hands JSON back decoded, a raw SQLite query as its text.
    return json.loads(value) if isinstance(value, str) else value


def _write(engine: sa.Engine, subs: dict[int, list[Any]], phases: dict[int, list[Any]]) -> None:
    lines = sa.table("submissions", sa.column("id", sa.Integer()), sa.column("lines", sa.JSON()))
    results = sa.table("phases", sa.column("id", sa.Integer()), sa.column("results", sa.JSON()))
    with engine.begin() as conn:
        for i, v in subs.items():
            conn.execute(lines.update().where(lines.c.id == i).values(lines=v))
        for i, v in phases.items():
            conn.execute(results.update().where(results.c.id == i).values(results=v))


def _old(subs: dict[int, list[Any]], phases: dict[int, list[Any]]) -> tuple[dict[int, Any], dict[int, Any]]:
    """The rows as the store wrote them before messages were values (the English alone), with a refusal and
    a reason no template reads."""
    subs, phases = copy.deepcopy(subs), copy.deepcopy(phases)
    for lines in subs.values():
        for ln in lines:
            for key in LINE_KEYS:
                ln.pop(key, None)
    for results in phases.values():
        for r in results:
            r.pop("why", None)
    first = min(subs)
    subs[first].append({"line": 99, "text": "A par Q", "order": None, "error": UNREAD_LINE})
    failed = next(r for rs in phases.values() for r in rs if r.get("reason"))
    failed["reason"] = UNREAD_REASON
    return subs, phases


def _german(data: Any, text: Any = None) -> str:
    """A stored message as a German reader's door says it."""
    m = stored_msg(data, text)
    return "" if m is None else say(m, "de")


def _migrate(engine: sa.Engine, to: str, down: bool = False) -> None:
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, to)


def test_old_rows_get_the_messages_todays_code_makes(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    std = load_variant("standard")
    store = GameStore(db_url)
    try:
        store_games.create_game(store, "g", "standard", now=T0)
        store_submissions.submit(store, "g", "France", FRANCE, now=T0 + timedelta(minutes=1))
        store_submissions.submit(store, "g", "Germany", GERMANY, now=T0 + timedelta(minutes=2))
        store_processing.process(store, "g", now=T0 + timedelta(hours=1), force=True)
        engine = store.engine
        written, results = _rows(engine)

        # What today's code makes for these lines and this adjudication: the migration must make the same.
        today = {
            power: [m for c in check_orders(std, std.start, power, text) for m in (c.error, c.note) if m is not None]
            for power, text in (("France", FRANCE), ("Germany", GERMANY))
        }
        assert len(today["France"]) >= 5 and today["Germany"]
        made = [ln for lines in written.values() for ln in lines if ln.get("error") or ln.get("note")]
        assert sorted(str(m.to_data()) for ms in today.values() for m in ms) == sorted(
            str(ln.get("error_msg") or ln.get("note_msg")) for ln in made
        )
        ids = {m.id for ms in today.values() for m in ms}
        assert {
            "%(reason)s; did you mean %(options)s?",
            "%(reason)s; closest legal: %(orders)s",
            "%(reason)s on line %(line)d (the first order counts)",
            "no province %(token)s",
            "this line is headed %(power)s, but these are %(own)s's orders",
        } <= ids
        reasons = [r for rs in results.values() for r in rs if r.get("reason")]
        assert any("bounced" in r["reason"] for r in reasons), reasons
        assert all(r.get("why") for r in reasons)

        old_subs, old_phases = _old(written, results)
        _write(engine, old_subs, old_phases)
        _migrate(engine, "0022", down=True)
        assert _rows(engine) == (old_subs, old_phases)  # nothing of the old rows to take back

        with caplog.at_level(logging.INFO, logger="alembic.runtime.migration"):
            _migrate(engine, "head")
        subs, phases = _rows(engine)
        log = "\n".join(r.getMessage() for r in caplog.records if "stored messages" in r.getMessage())
        converted = len(made) + len(reasons) - 1  # one reason was made unreadable
        assert f"{converted} texts given their message, 2 read by no template (kept as text)" in log

        # The data is today's, the English is as it was, the unreadable text kept as it is without data.
        expected_subs = copy.deepcopy(written)
        expected_subs[min(written)].append({"line": 99, "text": "A par Q", "order": None, "error": UNREAD_LINE})
        assert subs == expected_subs
        unread = [r for rs in phases.values() for r in rs if r.get("reason") == UNREAD_REASON]
        assert len(unread) == 1 and "why" not in unread[0]
        for pid, rs in phases.items():
            for now, then in zip(rs, results[pid], strict=True):
                if now.get("reason") != UNREAD_REASON:
                    assert now == then

        # Said in German: the converted rows are German, the unreadable ones as they are.
        german = [_german(ln.get("error_msg"), ln.get("error")) for ln in subs[min(subs)]]
        for ln, de in zip(subs[min(subs)], german, strict=True):
            if ln.get("error") == UNREAD_LINE:
                assert de == UNREAD_LINE
            elif ln.get("error"):
                assert de != ln["error"] and de == _german(ln["error_msg"])
        assert any("keine Provinz 'burr'" in de for de in german), german
        bounced = next(r for rs in phases.values() for r in rs if "bounced" in (r.get("reason") or ""))
        assert _german(bounced["why"], bounced["reason"]) != bounced["reason"]

        # A second walk changes nothing.
        with engine.begin() as conn:
            again = add_messages(conn, batch=2)
        assert (again.converted, again.unreadable, again.rows) == (0, 2, 0)
        assert _rows(engine) == (subs, phases)

        # Downgrade takes back what the upgrade added, and only that.
        _migrate(engine, "0022", down=True)
        assert _rows(engine) == (old_subs, old_phases)
    finally:
        store.close()

    reopened = GameStore(db_url)  # dippouch upgrades a database it opens
    try:
        assert _rows(reopened.engine) == (subs, phases)
        rec = store_history.phase_record(reopened, "g", "Spring 1901 Movement")
        lines = [ln for s in rec["submissions"] for ln in s["lines"] if ln.get("error_msg")]
        assert lines and all(read_back(ln["error"]) == stored_msg(ln["error_msg"]) for ln in lines)
    finally:
        reopened.close()


@pytest.mark.parametrize(
    ("text", "data"),
    [
        (
            "no province 'x;y'; did you mean Burgundy (bur), Brest (bre) or Belgium (bel)?",
            {
                "id": "%(reason)s; did you mean %(options)s?",
                "args": {
                    "reason": {"msg": {"id": "no province %(token)s", "args": {"token": "'x;y'"}}},
                    "options": {"choices": ["Burgundy (bur)", "Brest (bre)", "Belgium (bel)"]},
                },
            },
        ),
        (
            "name the coast: North Coast or South Coast or West Coast",
            {
                "id": "name the coast: %(options)s",
                "args": {"options": {"choices": [{"choices": ["North Coast", "South Coast"]}, "West Coast"]}},
            },
        ),
        (
            "the unit in Paris is an army, not a fleet: the order is read for it as written here; the unit in "
            "Brest is a fleet, not an army: the order is read for it as written here; F Kiel already has an "
            "order; the first one counts",
            {
                "id": "%(first)s; %(then)s",
                "args": {
                    "first": {
                        "msg": {
                            "id": "%(first)s; %(then)s",
                            "args": {
                                "first": {
                                    "msg": {
                                        "id": "the unit in %(place)s is an army, not a fleet: the order is read "
                                        "for it as written here",
                                        "args": {"place": "Paris"},
                                    }
                                },
                                "then": {
                                    "msg": {
                                        "id": "the unit in %(place)s is a fleet, not an army: the order is read "
                                        "for it as written here",
                                        "args": {"place": "Brest"},
                                    }
                                },
                            },
                        }
                    },
                    "then": {
                        "msg": {
                            "id": "%(unit)s already has an order; the first one counts",
                            "args": {"unit": "F Kiel"},
                        }
                    },
                },
            },
        ),
        (
            "bounced off A Munich (1 vs 2)",
            {
                "id": "bounced off %(unit)s (%(attack)d vs %(defence)d)",
                "args": {"unit": "A Munich", "attack": 1, "defence": 2},
            },
        ),
        ("no unit in Paris; something no template says", None),
        ("", None),
    ],
)
def test_read_back(text: str, data: dict[str, Any] | None) -> None:
    """Nested messages, choices and numbers are read as the core made them; a text that is not wholly read is
    not read at all."""
    got = read_back(text)
    assert (got.to_data() if got is not None else None) == data
