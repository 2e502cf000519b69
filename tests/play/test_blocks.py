"""Blocks between people (issue 56): a block hides press both ways in every game, the blocked person is never
told, and it holds in the lobby (no joining a game the other is in; the blocker is warned and may join all the
same). A second account signed in on the same device is refused into a game; a person the moderators stopped
from press is refused in every game. On SQLite and PostgreSQL (the press store's send reads it all in one
statement, written per dialect)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import dippouch.store.press.messages as store_press
from dippouch.game import GameError, GameSettings
from dippouch.play import blocks, moderation
from dippouch.play import openings as play_openings
from dippouch.play.press import PressRefused, send_press
from dippouch.play.seats import seat
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store.moderation import stored as store_moderation
from dippouch.store.people.persons import create_person
from dippouch.store.repository import GameStore

T0 = datetime(2030, 3, 1, 12, tzinfo=UTC)


def _people(store: GameStore, *names: str) -> list[int]:
    return [create_person(store, n, now=T0, email=f"{n.lower()}@example.org") for n in names]


def _game(store: GameStore, seats: dict[str, str]) -> None:
    """A standard game ``g`` with these powers played by these people (by their address, as the desk seats)."""
    store_games.create_game(store, "g", "standard", settings=GameSettings(deadlines={"movement": "2d"}), now=T0)
    for power, name in seats.items():
        seat(store, "g", power, name, now=T0, email=f"{name.lower()}@example.org")


def _texts(store: GameStore, power: str) -> set[str]:
    """Every message ``power`` reads in ``g``, by each read: the stream, the threads' pages and the panel."""
    streamed = {m.text for m in store_press.messages_since(store, "g", power, 0)}
    paged = {
        m.text
        for t in store_press.threads(store, "g", power=power)
        if t.id
        for m in store_press.channel_page(store, "g", t.id, power=power).messages
    }
    panel = store_press.overview(store, "g", power, recent=10)
    recent = {m.text for ms in panel.recent.values() for m in ms}
    assert streamed == paged == recent, (streamed, paged, recent)
    return streamed


def test_a_block_hides_press_both_ways_in_every_game_and_the_blocked_is_never_told(store: GameStore) -> None:
    ann, bob, cy = _people(store, "Ann", "Bob", "Cy")
    _game(store, {"England": "Ann", "France": "Bob", "Germany": "Cy"})
    send_press(store, "g", "France", "before the block", to=["England"], now=T0, via="web")
    blocks.block(store, ann, bob, now=T0)
    # Bob's messages still go through for him (no refusal tells him), but reach neither Ann's threads nor copies.
    sent = send_press(store, "g", "France", "from the blocked", to=["all"], now=T0 + timedelta(minutes=1), via="web")
    assert sent.id > 0 and not sent.held
    send_press(store, "g", "England", "from the blocker", to=["all"], now=T0 + timedelta(minutes=2), via="web")
    send_press(store, "g", "Germany", "from a third", to=["all"], now=T0 + timedelta(minutes=3), via="web")
    assert _texts(store, "England") == {"from the blocker", "from a third"}
    assert _texts(store, "France") == {"before the block", "from the blocked", "from a third"}
    assert _texts(store, "Germany") == {"from the blocked", "from the blocker", "from a third"}
    unread = {t.kind: t.unread for t in store_press.threads(store, "g", power="England")}
    assert unread.get("public") == 1  # Cy's message; Bob's is not counted
    # A private message to the blocker alone: stored, not refused, never shown to her.
    send_press(store, "g", "France", "psst", to=["England"], now=T0 + timedelta(minutes=4), via="api")
    assert "psst" not in _texts(store, "England")
    # Unblocked: press passes again.
    assert blocks.unblock(store, ann, bob) and not blocks.unblock(store, ann, bob)
    assert "from the blocked" in _texts(store, "England")
    assert blocks.blocked_people(store, ann) == []
    assert cy  # a third person, unaffected


def test_blocking_oneself_or_nobody_is_refused(store: GameStore) -> None:
    (ann,) = _people(store, "Ann")
    with pytest.raises(GameError, match="cannot block yourself"):
        blocks.block(store, ann, ann, now=T0)
    with pytest.raises(GameError, match="no person 999"):
        blocks.block(store, ann, 999, now=T0)


def _opening(store: GameStore, creator: int) -> str:
    got = play_openings.create_from_template(
        store, creator, play_openings.TemplateChoices("standard-1d-full", name="lobby"), now=T0
    )
    return got.game


def test_a_block_holds_in_the_lobby(store: GameStore) -> None:
    ann, bob, cy, dee = _people(store, "Ann", "Bob", "Cy", "Dee")
    game = _opening(store, dee)
    blocks.block(store, ann, bob, now=T0)
    play_openings.sign_up(store, game, ann, ["any"], now=T0)
    # The blocked person is refused in words that never name the block.
    with pytest.raises(GameError) as e:
        play_openings.sign_up(store, game, bob, ["any"], now=T0)
    said = str(e.value)
    assert "cannot take your sign-up" in said and "block" not in said
    # Quick play passes the game over for him as it would a full one.
    with pytest.raises(GameError, match="no open game with these settings"):
        play_openings.quick_play(store, bob, now=T0)
    assert play_openings.quick_play(store, cy, now=T0).game == game
    # The other way round: the blocked person joined first; the blocker is warned, and joins only when she says so.
    other = play_openings.create_from_template(
        store, dee, play_openings.TemplateChoices("standard-1d-full", name="second"), now=T0
    ).game
    play_openings.sign_up(store, other, bob, ["any"], now=T0)
    warning = blocks.join_warning(store, other, ann)
    assert warning is not None and "someone you block" in str(warning)
    assert blocks.join_warning(store, other, bob) is None and blocks.join_warning(store, game, bob) is None
    with pytest.raises(GameError, match="someone you block is in this game"):
        play_openings.sign_up(store, other, ann, ["any"], now=T0)
    assert play_openings.sign_up(store, other, ann, ["any"], now=T0, despite_block=True).game == other
    opened = store_openings.opening(store, other)
    assert opened is not None and ann in {s.person_id for s in opened.signups}


def test_a_claim_from_the_pool_is_refused_as_a_sign_up_is(store: GameStore) -> None:
    ann, bob, zed = _people(store, "Ann", "Bob", "Zed")
    store_games.create_game(store, "g", "hundred3", now=T0, settings=GameSettings(deadlines={"movement": "2d"}))
    store_openings.open_game(store, "g", now=T0, mode="coordinator")
    for who, power in ((ann, "England"), (zed, "France")):
        store_openings.sign_up(store, "g", who, [power], now=T0)
        store_openings.assign_signup(store, "g", who, power, now=T0)
    store_openings.free_seat(store, "g", "France", now=T0)
    blocks.block(store, ann, bob, now=T0)
    with pytest.raises(GameError, match="cannot take your sign-up"):
        play_openings.claim(store, "g", "France", bob, now=T0)
    blocks.unblock(store, ann, bob)
    assert play_openings.claim(store, "g", "France", bob, now=T0) == "France"


def test_a_second_account_from_one_device_is_refused_into_the_same_game(store: GameStore) -> None:
    ann, alt, cy, dee = _people(store, "Ann", "Alt", "Cy", "Dee")
    for who in (ann, alt):
        moderation.record_sign_in(store, who, device="d" * 40, address="203.0.113.7", now=T0)
    moderation.record_sign_in(store, cy, device="c" * 40, address="203.0.113.9", now=T0)
    game = _opening(store, dee)
    play_openings.sign_up(store, game, ann, ["any"], now=T0)
    with pytest.raises(GameError, match="another account signed in on this device is in this game"):
        play_openings.sign_up(store, game, alt, ["any"], now=T0, despite_block=True)
    play_openings.sign_up(store, game, cy, ["any"], now=T0)  # another device, the same network: joins
    kinds = {s.kind: s.people for s in store_moderation.signals(store, now=T0)}
    assert kinds["device"] == (ann, alt)
    assert kinds["network"] == (ann, cy)  # one /24, and in one game together


def test_a_person_the_moderators_stopped_from_press_is_refused_in_every_game(store: GameStore) -> None:
    ann, bob = _people(store, "Ann", "Bob")
    _game(store, {"England": "Ann", "France": "Bob"})
    store_moderation.ban(store, bob, "press", "spam", now=T0, by="test")
    with pytest.raises(PressRefused) as e:
        send_press(store, "g", "France", "buy now", to=["England"], now=T0, via="web")
    assert "moderators have stopped your press" in str(e.value.refusal.message)
    send_press(store, "g", "England", "still here", to=["France"], now=T0, via="web")
    store_moderation.unban(store, bob, "press", now=T0, by="test")
    send_press(store, "g", "France", "sorry", to=["England"], now=T0 + timedelta(minutes=1), via="web")
    assert ann


def test_my_data_holds_my_blocks_and_deleting_it_lifts_them_both_ways(store: GameStore) -> None:
    from dippouch.store.people import data as people_data

    ann, bob, cy = _people(store, "Ann", "Bob", "Cy")
    blocks.block(store, ann, bob, now=T0)
    blocks.block(store, cy, ann, now=T0)
    moderation.record_sign_in(store, ann, device="d" * 40, address="2001:db8::1", now=T0)
    mine = people_data.export_all(store, ann)["moderation"]
    assert [b["person"] for b in mine["blocks"]] == [bob]  # who blocks her is not hers to read
    assert len(mine["devices"]) == 1 and "d" * 40 not in str(mine)
    people_data.forget_all(store, ann, now=T0)
    assert blocks.blocked_people(store, ann) == [] and blocks.blocked_people(store, cy) == []
    assert people_data.export_all(store, ann)["moderation"]["devices"] == []
