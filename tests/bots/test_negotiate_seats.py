"""Bots seated in stored games answer press through the same use case as anyone (play.press.send_press), only
where the game's press rules allow, and order the supports they accepted; silent in gunboat games and wherever
the rules forbid their reply."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta

import pytest

import dippouch.store.press.messages as store_press
from dippouch.bots.seats import answer_press, play_seats, seat_bot
from dippouch.game import GameSettings
from dippouch.play.press import PressRefused, send_press
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
BOTS = ("Austria", "England", "Germany", "Italy", "Russia", "Turkey")
ASK = "Will you support my A Paris to Burgundy?"


def _game(url: str, press: dict[str, object] | None = None, language: str = "en") -> GameStore:
    """Standard, France a person, the six others heuristic bots that have sent their Spring 1901 orders."""
    store = GameStore(url)
    store_games.create_game(store, "g", "standard", settings=GameSettings(language=language), now=T0)
    if press is not None:
        store_press.set_press_rules(store, "g", press, now=T0)
    for power in BOTS:
        seat_bot(store, "g", power, "heuristic", now=T0)
    store_games.assign(store, "g", "France", "Alice", now=T0)
    play_seats(store, now=T0)
    return store


def _said(store: GameStore, power: str = "France") -> list[tuple[str, str]]:
    return [(m.sender, m.text) for m in store_press.messages_since(store, "g", power, 0)]


def _orders(store: GameStore, power: str) -> tuple[int, list[str]]:
    rec = store_history.phase_record(store, "g", "Spring 1901 Movement", open_ok=True)
    last = [s for s in rec["submissions"] if s["power"] == power][-1]
    return int(last["version"]), sorted(str(last["text"]).splitlines())


def test_a_bot_answers_yes_in_the_same_channel_and_orders_the_support(db_url: str) -> None:
    store = _game(db_url)
    assert _orders(store, "Germany")[0] == 1
    sent = send_press(store, "g", "France", ASK, to=["Germany"], now=T0 + timedelta(minutes=1), via="web")
    said = _said(store)
    assert said == [
        ("France", ASK),
        ("Germany", "Yes: I will support your A Paris to Burgundy.\n[dippouch] YES SUP A par - bur"),
    ]
    reply = store_press.channel_page(store, "g", sent.channel, power="France").messages[-1]
    assert reply.channel_id == sent.channel and reply.kind == "private"
    version, orders = _orders(store, "Germany")
    assert version == 2 and "A mun S A par - bur" in orders
    # The phase processes with the support ordered and given.
    store_submissions.submit(
        store, "g", "France", "A par - bur\nA mar - spa\nF bre - mao", now=T0 + timedelta(minutes=2), ready=True
    )
    assert store_processing.process(store, "g", now=T0 + timedelta(minutes=3), force=True) == ["Spring 1901 Movement"]
    results = {
        r["order"]: r["result"] for r in (store_history.history(store, "g")[0].results or []) if r["power"] == "Germany"
    }
    assert results["A mun S A par - bur"] == "given"
    # The next phase: the bots order afresh (the promise was for Spring 1901 only).
    assert play_seats(store, now=T0 + timedelta(minutes=4))  # Fall 1901: the bots order afresh


def test_a_refusal_says_why_and_changes_nothing(db_url: str) -> None:
    store = _game(db_url)
    send_press(store, "g", "France", "support my F Brest to Mid-Atlantic Ocean", to=["Germany"], now=T0, via="web")
    assert _said(store)[-1] == (
        "Germany",
        "No: I will not support your F Brest to Mid-Atlantic Ocean. None of my units can give that support.\n"
        "[dippouch] NO SUP F bre - mao",
    )
    assert _orders(store, "Germany")[0] == 1


def test_the_reply_is_in_the_games_language_and_mail_is_answered_alike(db_url: str) -> None:
    store = _game(db_url, language="de")
    send_press(store, "g", "France", "Frieden?", to=["Germany"], now=T0, via="mail")
    assert _said(store)[-1] == ("Germany", "Ja: Frieden zwischen uns.\n[dippouch] YES PEACE WITH France")


def test_a_bot_says_nothing_in_a_gunboat_game(db_url: str) -> None:
    store = _game(db_url, press={"kind": "none"})
    with pytest.raises(PressRefused):
        send_press(store, "g", "France", ASK, to=["Germany"], now=T0, via="web")
    # Even asked directly (a door that skipped the rules), the bot stays silent and orders nothing new.
    assert answer_press(store, "g", "France", ASK, 1, now=T0, send=lambda bot, said: 0) == []
    assert _said(store) == [] and _orders(store, "Germany")[0] == 1


def test_public_press_only_the_bot_answers_in_public_and_only_when_it_is_asked(db_url: str) -> None:
    store = _game(db_url, press={"kind": "public"})
    with pytest.raises(PressRefused):
        send_press(store, "g", "France", ASK, to=["Germany"], now=T0, via="web")
    send_press(store, "g", "France", "peace, anyone?", to=["all"], now=T0, via="web")
    assert [s for s, _ in _said(store)] == ["France"]  # names nobody: six bots do not all answer
    send_press(store, "g", "France", ASK, to=["all"], now=T0 + timedelta(seconds=1), via="web")
    # Only Germany can give that support: only Germany answers, and in public.
    said = _said(store)
    assert [s for s, _ in said] == ["France", "France", "Germany"]
    assert all(m.kind == "public" for m in store_press.messages_since(store, "g", "France", 0))
    send_press(store, "g", "France", "Russia: peace?", to=["all"], now=T0 + timedelta(seconds=2), via="web")
    assert _said(store)[-1] == ("Russia", "Yes: peace between us.\n[dippouch] YES PEACE WITH France")


@pytest.mark.parametrize("press", [{"kind": "postal"}, {"quiet_phases": ["movement"]}])
def test_the_bot_is_silent_where_the_rules_hold_or_forbid_press(db_url: str, press: dict[str, object]) -> None:
    store = _game(db_url, press=press)
    with contextlib.suppress(PressRefused):  # quiet phases: the person's message itself is refused
        send_press(store, "g", "France", ASK, to=["Germany"], now=T0, via="web")
    assert [s for s, _ in _said(store)] in ([], ["France"])
    assert _orders(store, "Germany")[0] == 1


def test_a_bot_blocked_by_the_asker_sends_nothing_private(db_url: str) -> None:
    store = _game(db_url)
    store_press.set_block(store, "g", "France", "Germany", "block", now=T0)
    send_press(store, "g", "France", ASK, to=["Germany"], now=T0, via="web")
    assert [s for s, _ in _said(store)] == ["France"]


def test_bots_do_not_answer_bots_and_the_coordinator_reads_their_press(db_url: str) -> None:
    store = _game(db_url, press={"coordinator_reads_private": True})
    send_press(store, "g", "Russia", "Germany, peace?", to=["Germany"], now=T0, via="web")
    assert [s for s, _ in _said(store, "Germany")] == ["Russia"]
    send_press(store, "g", "France", "hello", to=["Germany"], now=T0, via="web")
    coordinator = [(m.sender, m.text) for m in store_press.messages_since(store, "g", None, 0, coordinator=True)]
    assert coordinator[-1][0] == "Germany" and coordinator[-1][1].startswith("I did not understand.")


def test_grey_press_the_bot_does_not_make_peace_with_an_unknown_sender(db_url: str) -> None:
    store = _game(db_url, press={"kind": "grey"})
    send_press(store, "g", "France", "peace? and support my A Paris to Burgundy", to=["Germany"], now=T0, via="web")
    reply = _said(store)[-1][1]
    # The support is asked for a unit on the board (France's): given; peace with someone unnamed: no.
    assert "[dippouch] YES SUP A par - bur" in reply and "[dippouch] NO PEACE" in reply
    assert "WITH France" not in reply
