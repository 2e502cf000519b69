"""Nothing a player sent is replaced or lost without their word.

* A submission with no order line (chat, an empty file) or whose lines all fail is recorded but does not
  replace the standing orders, unless it says "no orders" (or is sent with --replace-with-nothing).
* --ready on a submission with no accepted order is refused, with the reason.
* A rollback carries each power's standing orders into the reopened phase, marked as carried.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game  # noqa: F401  (registers the commands)
from dippouch.catalog import load_variant
from dippouch.cli import app
from dippouch.core.messages import Msg
from dippouch.game import GameSettings, position_to_data
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from helpers import board

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _new(store: GameStore, variant: str = "standard") -> None:
    store_games.create_game(
        store, "g", variant, now=T0, settings=GameSettings(deadlines={"movement": "2d", "adjustments": "2d"})
    )


def _standing_orders(store: GameStore) -> list[str]:
    store_processing.process(store, "g", now=T0 + timedelta(days=3))
    orders: list[str] = store_history.phase_record(store, "g", "Spring 1901 Movement")["orders"].get("France", [])
    return orders


@pytest.mark.parametrize(
    "chat",
    [
        "Sorry, I'll send my orders tomorrow!",
        "",
        "\n\n# nothing yet\n",
        "A par - mun\nF bre - lon",  # every line refused
        "> A par - pic\n> F bre - eng",  # quoted from the e-mail being replied to
    ],
)
def test_a_submission_with_no_accepted_order_does_not_replace_the_standing_one(store: GameStore, chat: str) -> None:
    _new(store)
    first = store_submissions.submit(store, "g", "France", "A par - bur\nF bre - mao", now=T0)
    assert first.stands and first.standing == 1
    second = store_submissions.submit(store, "g", "France", chat, now=T0 + timedelta(hours=1))
    assert second.version == 2 and not second.stands
    assert second.standing == 1 and second.standing_orders == ["A par - bur", "F bre - mao"]
    assert _standing_orders(store) == ["A par - bur", "F bre - mao"]
    subs = store_history.phase_record(store, "g", "Spring 1901 Movement")["submissions"]
    assert [(s["version"], s["stands"], s["text"]) for s in subs] == [
        (1, True, "A par - bur\nF bre - mao"),
        (2, False, chat),  # kept for the record
    ]


@pytest.mark.parametrize("how", ["line", "flag"])
def test_the_player_may_say_that_there_are_no_orders(store: GameStore, how: str) -> None:
    _new(store)
    store_submissions.submit(store, "g", "France", "A par - bur", now=T0)
    text = "No orders this turn." if how == "line" else "Sorry, nothing this time"
    r = store_submissions.submit(
        store, "g", "France", text, now=T0 + timedelta(hours=1), replace_with_nothing=how == "flag"
    )
    assert r.stands and r.standing == 2 and r.standing_orders == []
    assert _english(r.unordered) == [(["A mar", "A par", "F bre"], "no order, they hold")]
    assert _standing_orders(store) == []
    # Sending nothing but "no orders" is taking part: not a missed phase.
    assert "France" not in store_history.phase_record(store, "g", "Spring 1901 Movement")["missed"]


def test_a_partial_submission_replaces_the_earlier_one_in_full(store: GameStore) -> None:
    _new(store)
    store_submissions.submit(store, "g", "France", "A par - bur\nF bre - mao\nA mar H", now=T0)
    r = store_submissions.submit(store, "g", "France", "A par - pic\nF bre - lon", now=T0 + timedelta(hours=1))
    assert r.stands and r.standing == 2 and r.standing_orders == ["A par - pic"]
    assert _english(r.unordered) == [(["A mar", "F bre"], "no order, they hold")]
    assert _standing_orders(store) == ["A par - pic"]


def test_ready_needs_an_accepted_order(store: GameStore) -> None:
    _new(store)
    refused = store_submissions.submit(store, "g", "France", "A par - mun", now=T0, ready=True)
    assert not refused.ready and refused.ready_refused is not None
    assert "its 1 line was refused" in refused.ready_refused
    assert not store_status.status(store, "g", now=T0).powers[2].ready
    empty = store_submissions.submit(store, "g", "France", "", now=T0, ready=True)
    assert not empty.ready and "it has no order line" in (empty.ready_refused or "")
    ok = store_submissions.submit(store, "g", "France", "A par - bur", now=T0, ready=True)
    assert ok.ready and ok.ready_refused is None
    none = store_submissions.submit(store, "g", "France", "no orders", now=T0, ready=True)
    assert none.ready and none.standing_orders == []


def test_rollback_carries_the_orders_forward_as_they_stood(store: GameStore) -> None:
    """Finding 4: a rollback to Winter 1643 opened the phase with 0 submissions; every power's builds and a
    supply transfer were lost at the next process."""
    v = load_variant("w3k")
    winter = board(
        v,
        "Winter 1643",
        {"Crown": ["A glo"], "Manchester": ["A suf"]},
        {"Crown": ["glo", "oxf", "wor"], "Manchester": ["cam", "suf"]},
        homes={},
    )
    store_games.create_game(store, "g", "w3k", now=T0, position=position_to_data(v, winter))
    crown = store_submissions.submit(store, "g", "Crown", "Send 1 supply to Manchester\nBuild A Oxfordshire", now=T0)
    manchester = store_submissions.submit(store, "g", "Manchester", "Build A Cambridge\nBuild F Norfolk", now=T0)
    assert [ln.accepted for ln in manchester.lines] == [True, False]  # nor: not owned
    assert crown.standing_orders == ["Send 1 supply to Manchester", "Build A oxf"]
    manchester = store_submissions.submit(
        store, "g", "Manchester", "Build A Cambridge\nBuild A Suffolk", now=T0 + timedelta(minutes=5)
    )
    assert [ln.accepted for ln in manchester.lines] == [True, False]  # suf: occupied
    store_processing.process(store, "g", now=T0, force=True)
    first = store_history.phase_record(store, "g", "Winter 1643")
    name, carried = store_history.rollback(store, "g", "Winter 1643", now=T0 + timedelta(hours=1))
    assert name == "Winter 1643 Adjustments"
    assert [(c.power, c.version, c.orders) for c in carried] == [("Crown", 1, 2), ("Manchester", 2, 1)]
    rec = store_history.phase_record(store, "g", "Winter 1643")
    assert rec["status"] == "open"
    subs = {sub["power"]: sub for sub in rec["submissions"]}
    assert subs.keys() == {"Crown", "Manchester"}
    assert all(sub["carried_from"] is not None and sub["stands"] and not sub["ready"] for sub in subs.values())
    assert subs["Manchester"]["text"] == "Build A Cambridge\nBuild A Suffolk"
    store_processing.process(store, "g", now=T0 + timedelta(hours=2), force=True)
    again = store_history.phase_record(store, "g", phase_id=rec["id"])
    assert again["orders"] == first["orders"] and again["results"] == first["results"]
    assert again["orders"]["Crown"] == ["Send 1 supply to Manchester", "Build A oxf"]


def test_rollback_keeps_builds_and_a_supply_transfer(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=T0, settings=GameSettings(deadlines={"movement": "2d"}))
    store_submissions.submit(store, "g", "Germany", "F kie - den\nA mun - ruh", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    store_submissions.submit(store, "g", "Germany", "F den H\nA ruh - bel", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    assert store_status.status(store, "g", now=T0).phase == "Winter 1901 Adjustments"
    r = store_submissions.submit(store, "g", "Germany", "Build A mun\nBuild F kie", now=T0)
    assert r.standing_orders == ["Build A mun", "Build F kie"]
    store_processing.process(store, "g", now=T0, force=True)
    _, carried = store_history.rollback(store, "g", "Winter 1901", now=T0 + timedelta(hours=1))
    assert [(c.power, c.orders) for c in carried] == [("Germany", 2)]
    done = store_processing.process(store, "g", now=T0 + timedelta(days=3))
    assert done == ["Winter 1901 Adjustments"]
    rec = store_history.phase_record(store, "g", "Winter 1901")
    assert rec["orders"]["Germany"] == ["Build A mun", "Build F kie"]


def test_the_cli_says_what_stands_and_refuses_ready(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    runner = CliRunner()

    def run(*args: str, input: str | None = None) -> tuple[int, str]:
        r = runner.invoke(app, [*args, "--db", db, "--now", T0.isoformat()], input=input)
        return r.exit_code, r.output

    assert run("new", "g")[0] == 0
    assert run("submit", "g", "France", input="A par - bur\n")[0] == 0
    code, out = run("submit", "g", "France", input="Sorry, I'll send my orders tomorrow!\n")
    assert code == 0 and "NOT REPLACED" in out and "version 1 still stands" in out
    code, out = run("submit", "g", "France", "--ready", input="A par - mun\n")
    assert code == 2 and "not marked ready" in out
    code, out = run("submit", "g", "France", input="no orders\n")
    assert code == 0 and "Now standing: version 4, 0 orders" in out and "they hold" in out
    run("process", "g", "--force")
    code, out = run("rollback", "g", "Spring 1901")
    assert code == 0 and "France: version 4" in out and "carried forward" in out


def test_a_w3k_power_with_no_builds_of_its_own_may_order_builds_for_supply_it_is_sent(store: GameStore) -> None:
    v = load_variant("w3k")
    winter = board(
        v,
        "Winter 1643",
        {"Crown": ["A glo"], "Manchester": ["A suf"]},
        {"Crown": ["glo", "oxf"], "Manchester": ["cam"]},
        homes={},
    )
    store_games.create_game(store, "g", "w3k", now=T0, position=position_to_data(v, winter))
    assert [p.power for p in store_status.status(store, "g", now=T0).powers if p.must_act] == ["Crown"]
    store_submissions.submit(store, "g", "Crown", "Send 1 supply to Manchester", now=T0)
    r = store_submissions.submit(store, "g", "Manchester", "Build A Cambridge", now=T0)
    assert r.lines[0].accepted and "counts only if another power sends Manchester supply" in (r.lines[0].note or "")
    store_processing.process(store, "g", now=T0, force=True)
    results = store_history.phase_record(store, "g", "Winter 1643")["results"]
    assert {(x["power"], x["order"], x["result"]) for x in results if not x["automatic"]} == {
        ("Crown", "Send 1 supply to Manchester", "succeeds"),
        ("Manchester", "Build A cam", "succeeds"),
    }


def test_chat_alone_is_not_taking_part(store: GameStore) -> None:
    _new(store)
    r = store_submissions.submit(store, "g", "France", "Sorry, I'll send my orders tomorrow!", now=T0)
    assert not r.stands and r.standing is None
    store_processing.process(store, "g", now=T0 + timedelta(days=3))
    assert "France" in store_history.phase_record(store, "g", "Spring 1901 Movement")["missed"]


def test_a_mail_sent_in_the_same_second_as_a_web_version_comes_after_it(store: GameStore) -> None:
    """A mail's time is its Date line, to the whole second: sent a moment after the web's version, it carries
    a time a fraction of a second before it. The mail was read after the web's version, so it stands (the
    season walk with the worker had the web's orders counted, not the revision mailed after them)."""
    _new(store)
    sent = T0 + timedelta(hours=1)
    store_submissions.submit(store, "g", "France", "A Par - Bur", now=sent + timedelta(milliseconds=119), source="web")
    store_submissions.submit(store, "g", "France", "A Par - Pic", now=sent, source="mail")
    assert "a par - pic" in [o.lower() for o in _standing_orders(store)]


def test_a_mail_of_an_earlier_second_still_comes_before_a_later_web_version(store: GameStore) -> None:
    _new(store)
    sent = T0 + timedelta(hours=1)
    store_submissions.submit(
        store, "g", "France", "A Par - Bur", now=sent + timedelta(seconds=1, milliseconds=5), source="web"
    )
    store_submissions.submit(store, "g", "France", "A Par - Pic", now=sent, source="mail")
    assert "a par - bur" in [o.lower() for o in _standing_orders(store)]


def _english(pairs: list[tuple[list[str], Msg]]) -> list[tuple[list[str], str]]:
    """What the standing orders leave out, in English."""
    return [(units, str(what)) for units, what in pairs]
