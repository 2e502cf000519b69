"""Press in the store, on SQLite and PostgreSQL: channels, unread counts, the rules applied on every send,
postal press released with the phase's results, mutes and blocks, reports, copies by mail in the outbox."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

import dippouch.store.press.messages as press
from dippouch.game import GameError
from dippouch.mail.notices import setup as mail_setup
from dippouch.notify.events import save_preferences
from dippouch.press.rules import COORDINATOR
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import transfer as store_transfer
from dippouch.store import votes as store_votes
from dippouch.store.mail.models import OutboxRow
from dippouch.store.people.persons import create_person, seat_person

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
OTHERS = ["Austria", "France", "Germany", "Italy", "Russia", "Turkey"]


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    store_games.create_game(s, "g", "standard", now=T0)
    for p in ["England", *OTHERS]:
        store_games.assign(s, "g", p, f"{p} player", now=T0)
    mail_setup(s, "g", now=T0, changes={})  # the game's mail takes replies: copies go
    yield s
    s.close()


def _outbox(store: GameStore) -> list[OutboxRow]:
    with store.session() as s:
        return list(s.scalars(sa.select(OutboxRow).where(OutboxRow.kind == "press").order_by(OutboxRow.id)))


def test_private_group_and_public_channels_with_unread_counts(store: GameStore) -> None:
    a = press.send(store, "g", "England", ["France"], "Channel?", now=T0)
    b = press.send(store, "g", "France", ["England"], "Agreed.", now=T0)
    assert a.channel_id == b.channel_id and a.kind == "private"
    g = press.send(store, "g", "England", ["France", "Germany"], "Triple?", now=T0)
    assert g.kind == "group" and g.channel_id != a.channel_id
    p = press.send(store, "g", "Italy", [*OTHERS, "England"], "Peace to all", now=T0)
    assert p.kind == "public"
    england = {t.id: t.unread for t in press.threads(store, "g", power="England")}
    assert england[a.channel_id] == 1 and england[g.channel_id] == 0 and england[p.channel_id] == 1
    germany = {t.id: t.unread for t in press.threads(store, "g", power="Germany")}
    assert a.channel_id not in germany and germany[g.channel_id] == 1
    press.mark_read(store, "g", a.channel_id, "England")
    assert {t.id: t.unread for t in press.threads(store, "g", power="England")}[a.channel_id] == 0


def test_another_pairs_channel_reads_as_if_it_did_not_exist(store: GameStore) -> None:
    a = press.send(store, "g", "England", ["France"], "secret", now=T0)
    with pytest.raises(GameError, match="that you may read") as seen:
        press.channel_page(store, "g", a.channel_id, power="Germany")
    with pytest.raises(GameError) as missing:
        press.channel_page(store, "g", 9999, power="Germany")
    assert str(seen.value).replace(str(a.channel_id), "N") == str(missing.value).replace("9999", "N")
    assert press.messages_since(store, "g", "Germany", 0) == []
    # The coordinator does not read it unless the game declares so.
    with pytest.raises(GameError):
        press.channel_page(store, "g", a.channel_id, power=None, coordinator=True)
    press.set_press_rules(store, "g", {"coordinator_reads_private": True}, now=T0)
    page = press.channel_page(store, "g", a.channel_id, power=None, coordinator=True)
    assert [m.text for m in page.messages] == ["secret"]


def test_a_reply_into_a_channel_is_only_for_its_members(store: GameStore) -> None:
    a = press.send(store, "g", "England", ["France"], "hi", now=T0)
    with pytest.raises(press.PressRefused):
        press.send(store, "g", "Germany", [], "let me in", now=T0, in_channel=a.channel_id)
    r = press.send(store, "g", "France", [], "hello", now=T0, in_channel=a.channel_id)
    assert r.channel_id == a.channel_id


def test_the_rules_refuse_in_the_store_and_nothing_is_stored(store: GameStore) -> None:
    press.set_press_rules(store, "g", {"kind": "public"}, now=T0)
    with pytest.raises(press.PressRefused) as e:
        press.send(store, "g", "England", ["France"], "psst", now=T0)
    assert e.value.refusal.rule.id == "public press only"
    assert press.messages_since(store, "g", "France", 0) == []
    press.set_press_rules(store, "g", {"kind": "none"}, now=T0)
    with pytest.raises(press.PressRefused, match="no press"):
        press.send(store, "g", "England", OTHERS, "hello all", now=T0)
    # The coordinator's announcements reach everyone, even in a gunboat game.
    press.announce(store, "g", "Deadline moved", now=T0)
    got = press.messages_since(store, "g", "France", 0)
    assert [(m.sender, m.text) for m in got] == [(COORDINATOR, "Deadline moved")]


def test_flooding_is_refused_after_the_rate_per_minute(store: GameStore) -> None:
    press.set_press_rules(store, "g", {"per_minute": 3}, now=T0)
    for i in range(3):
        press.send(store, "g", "England", ["France"], f"m{i}", now=T0 + timedelta(seconds=i))
    with pytest.raises(press.PressRefused) as e:
        press.send(store, "g", "England", ["France"], "m3", now=T0 + timedelta(seconds=5.5))
    assert e.value.refusal.rule.id == "rate"
    # The first of the three leaves the minute at T0 + 60 s: 54.5 s from the refused send, said rounded up.
    assert "send again in 55 seconds" in str(e.value)
    with pytest.raises(press.PressRefused, match=r"send again in 1 second$"):
        press.send(store, "g", "England", ["France"], "m3", now=T0 + timedelta(seconds=59.5))
    press.send(store, "g", "England", ["France"], "on time", now=T0 + timedelta(seconds=60))


def test_postal_press_is_held_until_the_phase_is_processed(store: GameStore) -> None:
    store_games.set_email(store, "g", "France", "france@example.org", now=T0)
    press.set_press_rules(store, "g", {"kind": "postal"}, now=T0)
    sent = press.send(store, "g", "England", ["France"], "By post", now=T0)
    assert sent.held and sent.mailed == 0
    assert press.messages_since(store, "g", "France", 0) == []
    mine = press.messages_since(store, "g", "England", 0)
    assert [(m.text, m.held) for m in mine] == [("By post", True)]
    assert _outbox(store) == []
    store_processing.process(store, "g", now=T0 + timedelta(days=30), force=True)
    got = press.messages_since(store, "g", "France", 0)
    assert [(m.text, m.held) for m in got] == [("By post", False)]
    assert [r.to_addr for r in _outbox(store)] == ["france@example.org"]


def test_grey_press_hides_the_sender(store: GameStore) -> None:
    press.set_press_rules(store, "g", {"kind": "grey"}, now=T0)
    press.send(store, "g", "England", ["France"], "guess who", now=T0)
    assert [m.sender for m in press.messages_since(store, "g", "France", 0)] == ["Anonymous"]
    assert [m.sender for m in press.messages_since(store, "g", "England", 0)] == ["England"]


def test_grey_press_does_not_name_the_sender_through_the_channel(store: GameStore) -> None:
    """A private channel named "England, France" would tell France who wrote: in grey press the channel is
    the starter's, its other members see the starter as Anonymous everywhere (threads, pages, the live
    stream, the copy by mail); a letter the other way is another channel; the end of the game names all."""
    press.set_press_rules(store, "g", {"kind": "grey"}, now=T0)
    store_games.set_email(store, "g", "France", "france@example.org", now=T0)
    a = press.send(store, "g", "England", ["France"], "guess who", now=T0)
    g = press.send(store, "g", "England", ["France", "Germany"], "and a group", now=T0)

    def members(power: str) -> dict[int, list[str]]:
        return {t.id: t.members for t in press.threads(store, "g", power=power) if t.kind != "announcement"}

    assert members("France") == {
        a.channel_id: ["France", "Anonymous"],
        g.channel_id: ["France", "Germany", "Anonymous"],
    }
    assert members("England") == {a.channel_id: ["England", "France"], g.channel_id: ["England", "France", "Germany"]}
    page = press.channel_page(store, "g", a.channel_id, power="France")
    assert page.thread.members == ["France", "Anonymous"] and [m.sender for m in page.messages] == ["Anonymous"]
    assert {m.members for m in press.messages_since(store, "g", "France", 0)} == {
        ("France", "Anonymous"),
        ("France", "Germany", "Anonymous"),
    }
    copies = [r.subject + r.body for r in _outbox(store)]
    assert len(copies) == 2 and all("guess who" in c or "and a group" in c for c in copies)
    assert not any("England" in c for c in copies)
    # France answers in the channel: the same channel; France's own letter to England is another.
    reply = press.send(store, "g", "France", [], "not telling", now=T0, in_channel=a.channel_id)
    assert reply.channel_id == a.channel_id
    back = press.send(store, "g", "France", ["England"], "and who are you?", now=T0)
    assert back.channel_id not in (a.channel_id, g.channel_id)
    assert members("England")[back.channel_id] == ["England", "Anonymous"]
    assert members("France")[back.channel_id] == ["England", "France"]
    for power in ["England", *OTHERS]:  # a draw all vote for ends the game
        store_votes.vote(store, "g", power, True, now=T0)
    assert members("France")[a.channel_id] == ["England", "France"]
    assert [m.sender for m in press.channel_page(store, "g", a.channel_id, power="France").messages] == [
        "England",
        "France",
    ]


def test_mute_hides_and_block_refuses_private_messages(store: GameStore) -> None:
    press.set_block(store, "g", "France", "England", "mute", now=T0)
    press.send(store, "g", "England", ["France"], "muted", now=T0)
    assert press.messages_since(store, "g", "France", 0) == []
    press.set_block(store, "g", "France", "England", "block", now=T0)
    with pytest.raises(press.PressRefused) as e:
        press.send(store, "g", "England", ["France"], "again", now=T0)
    assert e.value.refusal.rule.id == "blocked"
    press.set_block(store, "g", "France", "England", None, now=T0)
    assert [m.text for m in press.messages_since(store, "g", "France", 0)] == ["muted"]


def test_a_report_reaches_the_coordinator_with_the_message(store: GameStore) -> None:
    a = press.send(store, "g", "England", ["France"], "rude words", now=T0)
    with pytest.raises(GameError):
        press.report(store, "g", "Germany", a.id, "not mine to see", now=T0)
    press.report(store, "g", "France", a.id, "abusive", now=T0)
    (r,) = press.reports(store, "g")
    assert r["by"] == "France" and r["message"]["text"] == "rude words"


def test_each_recipient_with_an_address_gets_one_copy_with_its_own_token(store: GameStore) -> None:
    store_games.set_email(store, "g", "France", "france@example.org", now=T0)
    store_games.set_email(store, "g", "Germany", "germany@example.org", now=T0)
    sent = press.send(store, "g", "England", ["France", "Germany"], "hello both", now=T0)
    assert sent.mailed == 2
    rows = _outbox(store)
    assert sorted(r.to_addr for r in rows) == ["france@example.org", "germany@example.org"]
    tokens = {r.to_addr: r.subject.rsplit("[press ", 1)[1].rstrip("]") for r in rows}
    assert len(set(tokens.values())) == 2
    owner = press.token_owner(store, tokens["france@example.org"])
    assert owner is not None and (owner.power, owner.channel_id) == ("France", sent.channel_id)


def test_copies_go_only_where_the_games_mail_takes_replies_and_to_those_who_take_press_by_mail(
    store: GameStore,
) -> None:
    store_games.create_game(store, "nomail", "standard", now=T0)
    store_games.assign(store, "nomail", "France", "Fran", now=T0)
    store_games.set_email(store, "nomail", "France", "france@example.org", now=T0)
    sent = press.send(store, "nomail", "England", ["France"], "no replies read here", now=T0)
    assert sent.mailed == 0 and _outbox(store) == []
    assert press.mail_copies_for(store, "nomail", "France") is None
    # In the game whose mail is set up: a seat with an address and no person gets copies; a person's seat
    # only by their choice of press by e-mail (off until chosen).
    store_games.set_email(store, "g", "France", "france@example.org", now=T0)
    store_games.set_email(store, "g", "Germany", "germany@example.org", now=T0)
    gerd = create_person(store, "Gerd", now=T0)
    seat_person(store, "g", "Germany", gerd, now=T0)
    assert press.mail_copies_for(store, "g", "France") == "france@example.org"
    assert press.mail_copies_for(store, "g", "Germany") is None
    assert press.send(store, "g", "England", ["France", "Germany"], "one copy", now=T0).mailed == 1
    save_preferences(store, gerd, {("message_received", "email"): True}, deadline_hours=None)
    assert press.mail_copies_for(store, "g", "Germany") == "germany@example.org"
    assert press.send(store, "g", "England", ["France", "Germany"], "two copies", now=T0).mailed == 2


def test_export_carries_private_press_only_once_the_game_is_over_and_open(store: GameStore) -> None:
    press.send(store, "g", "England", ["France"], "private", now=T0)
    press.send(store, "g", "England", OTHERS, "public", now=T0)
    data = press.export_press(store, "g", coordinator=True)
    assert data is not None and [m["text"] for m in data["messages"]] == ["public"]


def test_the_game_file_carries_press_only_as_the_rules_allow(store: GameStore) -> None:
    press.send(store, "g", "England", ["France"], "private", now=T0)
    press.send(store, "g", "England", OTHERS, "public", now=T0)
    public = store_transfer.game_file(store, "g", view="public", now=T0)
    assert "press" not in public
    coordinator = store_transfer.game_file(store, "g", view="coordinator", now=T0)
    assert [m["text"] for m in coordinator["press"]["messages"]] == ["public"]
    for p in ["England", *OTHERS]:
        store_votes.vote(store, "g", p, True, now=T0)
    after = store_transfer.game_file(store, "g", view="public", now=T0)
    assert [m["text"] for m in after["press"]["messages"]] == ["public"]  # a letter stays a letter
    press.set_press_rules(store, "g", {"open_private_after_end": True}, now=T0)
    declared = store_transfer.game_file(store, "g", view="public", now=T0)
    assert [m["text"] for m in declared["press"]["messages"]] == ["private", "public"]
    press.set_press_rules(store, "g", {"open_after_end": False, "open_private_after_end": False}, now=T0)
    assert "press" not in store_transfer.game_file(store, "g", view="public", now=T0)


def test_one_power_sending_in_parallel_cannot_overrun_the_rate(store: GameStore) -> None:
    """Twelve sends of one power at the same moment, three a minute allowed: exactly three are stored, each
    refused send names the rate rule. (On PostgreSQL each send once counted the last minute in its own snapshot,
    so parallel sends all counted none of the others and every one got through.)"""
    press.set_press_rules(store, "g", {"per_minute": 3}, now=T0)
    start = threading.Barrier(12)
    refused: list[str] = []
    errors: list[BaseException] = []

    def one(i: int) -> None:
        start.wait()
        try:
            press.send(store, "g", "England", ["France"], f"m{i}", now=T0 + timedelta(seconds=1))
        except press.PressRefused as e:
            refused.append(e.refusal.rule.id)
        except BaseException as e:  # handed to the test's thread
            errors.append(e)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    stored = [m for m in press.messages_since(store, "g", "France", 0) if m.sender == "England"]
    assert len(stored) == 3
    assert refused == ["rate"] * 9


def test_every_power_sending_at_once_is_stored_once_with_each_senders_own_mark(store: GameStore) -> None:
    """Seven powers write to everyone at the same moment, the public channel not made yet: each message is
    stored, one channel is made, and each sender has read up to their own last message (the read marks are
    moved by many writers at once)."""
    powers = ["England", *OTHERS]
    start = threading.Barrier(len(powers))
    errors: list[BaseException] = []

    def talk(power: str) -> None:
        start.wait()
        try:
            for i in range(4):
                press.send(store, "g", power, [p for p in powers if p != power], f"{power} {i}", now=T0)
        except BaseException as e:  # handed to the test's thread
            errors.append(e)

    threads = [threading.Thread(target=talk, args=(p,)) for p in powers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    channels = {t.id for p in powers for t in press.threads(store, "g", power=p) if t.kind == "public"}
    assert len(channels) == 1
    everything = press.messages_since(store, "g", "England", 0)
    assert len(everything) == 4 * len(powers)
    for p in powers:
        (thread,) = [t for t in press.threads(store, "g", power=p) if t.kind == "public"]
        last_own = max(m.id for m in everything if m.sender == p)
        assert thread.unread == sum(1 for m in everything if m.sender != p and m.id > last_own)


def test_a_channel_made_by_another_sender_in_the_meantime_is_the_one_used(store: GameStore) -> None:
    """A send's read found no channel, and another sender made it before this send's insert (the race the
    threads above provoke only sometimes): the insert gives way, and the send uses the channel that exists."""
    first = press.send(store, "g", "England", ["France"], "hello", now=T0)
    key = press._members_key("private", ["England", "France"])
    with store.session() as s, s.begin():
        game_id = s.scalar(sa.text("SELECT game_id FROM press_channels WHERE id = :id"), {"id": first.channel_id})
        assert press._new_channel(s, game_id, "private", key, T0) == first.channel_id
    with store.session() as s:
        assert s.scalar(sa.text("SELECT count(*) FROM press_channels")) == 1


def test_a_read_mark_never_moves_back(store: GameStore) -> None:
    a = press.send(store, "g", "France", ["England"], "one", now=T0)
    press.send(store, "g", "France", ["England"], "two", now=T0)
    assert press.mark_read(store, "g", a.channel_id, "England") > a.id
    press.mark_read(store, "g", a.channel_id, "England", up_to=a.id)
    assert {t.id: t.unread for t in press.threads(store, "g", power="England")}[a.channel_id] == 0


def test_the_panel_reads_each_threads_latest_messages_as_the_reader_may(store: GameStore) -> None:
    """The player's page shows each thread inline: its latest messages, oldest first, as the reader may read
    them (muted senders left out), in one read whichever the database."""
    fr = press.send(store, "g", "England", ["France"], "one", now=T0)
    for i in range(5):
        press.send(store, "g", "France", ["England"], f"reply {i}", now=T0 + timedelta(minutes=1 + i))
    pub = press.send(store, "g", "Germany", list(_OTHERS_OF_GERMANY), "to all", now=T0)
    press.send(store, "g", "Italy", ["Austria"], "not England's", now=T0)
    o = press.overview(store, "g", "England", recent=3)
    assert [m.text for m in o.recent[fr.channel_id]] == ["reply 2", "reply 3", "reply 4"]
    assert [m.text for m in o.recent[pub.channel_id]] == ["to all"]
    assert set(o.recent) == {fr.channel_id, pub.channel_id}  # Italy and Austria's letter is not England's
    press.set_block(store, "g", "England", "Germany", "mute", now=T0)
    assert pub.channel_id not in press.overview(store, "g", "England", recent=3).recent
    assert press.overview(store, "g", "England").recent == {}  # only when asked


_OTHERS_OF_GERMANY = ("Austria", "England", "France", "Italy", "Russia", "Turkey")
