"""The worker's scan tells people of press they may read and of seats offered to the pool: each once, by
their choices, through the same queue as results and reminders (real webhook receiver on this machine)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from dippouch import notify
from dippouch.game import GameSettings
from dippouch.notify.events import save_preferences
from dippouch.notify.scan import scan
from dippouch.notify.targets import add_webhook
from dippouch.notify.task import NotifyTask
from dippouch.store import GameStore, openings
from dippouch.store import games as store_games
from dippouch.store.people.persons import create_person, seat_person
from dippouch.store.press import messages as press
from notifysupport import ChatReceiver, start_chat

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def store(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameStore]:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")  # the receiver is on this machine
    s = GameStore(db_url)
    yield s
    s.close()


@pytest.fixture
def chat() -> Iterator[ChatReceiver]:
    r = start_chat()
    yield r
    r.stop()


def _person(store: GameStore, name: str, chat: ChatReceiver) -> int:
    pid = create_person(store, name, now=T0)
    save_preferences(
        store, pid, {(e, c): c == "webhook" for e in notify.EVENTS for c in notify.CHANNELS}, deadline_hours=None
    )
    add_webhook(store, pid, "slack", url=f"{chat.base}/slack/{pid}", now=T0)
    return pid


def _titles(chat: ChatReceiver) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in chat.received:
        out.setdefault(r.path.rsplit("/", 1)[1], []).append(r.json["text"].split("\n")[0])
    return out


def _game(store: GameStore, seats: dict[str, int]) -> None:
    deadlines = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
    store_games.create_game(store, "demo", "standard", now=T0, settings=GameSettings(deadlines=deadlines))
    for power, pid in seats.items():
        store_games.assign(store, "demo", power, f"player {pid}", now=T0)
        seat_person(store, "demo", power, pid, now=T0)


def test_a_message_is_told_to_the_people_who_may_read_it_once_and_never_to_its_sender(
    store: GameStore, chat: ChatReceiver
) -> None:
    ann, bo, cy = (_person(store, n, chat) for n in ("Ann", "Bo", "Cy"))
    _game(store, {"France": ann, "England": bo, "Germany": cy})
    scan(store, T0)  # the game's start, told now, out of the way
    notify.deliver_due(store, T0)
    chat.received.clear()

    press.send(store, "demo", "France", ["England"], "Channel?  Shall we\nshare it", now=T0 + timedelta(minutes=5))
    found = scan(store, T0 + timedelta(minutes=6))
    assert found.messages == 1  # Bo only: Cy may not read a private message, Ann wrote it
    assert scan(store, T0 + timedelta(minutes=7)).messages == 0  # once, however often the worker looks
    notify.deliver_due(store, T0 + timedelta(minutes=7))
    assert _titles(chat) == {str(bo): ["demo: a message from France"]}
    assert "Channel? Shall we" in chat.received[0].json["text"]

    chat.received.clear()
    press.send(store, "demo", "Germany", ["France", "England", "Germany"], "To all", now=T0 + timedelta(minutes=8))
    assert scan(store, T0 + timedelta(minutes=9)).messages == 2
    notify.deliver_due(store, T0 + timedelta(minutes=9))
    assert sorted(_titles(chat)) == sorted([str(ann), str(bo)])


def test_a_seat_in_the_pool_is_offered_to_people_who_want_to_play_and_not_to_its_players(
    store: GameStore, chat: ChatReceiver
) -> None:
    ann, bo, keen, gone = (_person(store, n, chat) for n in ("Ann", "Bo", "Keen", "Withdrawn"))
    _game(store, {"France": ann, "England": bo})
    openings.open_game(store, "demo", now=T0)
    # Two people signed up for another open game: one still wants to play, one withdrew.
    deadlines = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
    store_games.create_game(store, "other", "standard", now=T0, settings=GameSettings(deadlines=deadlines))
    openings.open_game(store, "other", now=T0)
    openings.sign_up(store, "other", keen, ["any"], now=T0)
    openings.sign_up(store, "other", gone, ["any"], now=T0)
    openings.withdraw(store, "other", gone, now=T0)
    scan(store, T0)
    notify.deliver_due(store, T0)
    chat.received.clear()

    openings.free_seat(store, "demo", "England", now=T0 + timedelta(hours=1))
    found = scan(store, T0 + timedelta(hours=1, minutes=1))
    assert found.offers == 1
    assert scan(store, T0 + timedelta(hours=1, minutes=2)).offers == 0
    notify.deliver_due(store, T0 + timedelta(hours=1, minutes=2))
    # Keen is offered the seat; Bo, whose seat it is, is told it is offered (it stays his until it is taken).
    assert _titles(chat) == {
        str(keen): ["demo: a seat is offered to you"],
        str(bo): ["demo: your seat (England) is offered to others"],
    }


def test_a_seat_claimed_and_abandoned_again_is_offered_again_to_the_same_people(
    store: GameStore, chat: ChatReceiver
) -> None:
    ann, bo, keen, lee = (_person(store, n, chat) for n in ("Ann", "Bo", "Keen", "Lee"))
    _game(store, {"France": ann, "England": bo})
    openings.open_game(store, "demo", now=T0)
    deadlines = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
    store_games.create_game(store, "other", "standard", now=T0, settings=GameSettings(deadlines=deadlines))
    openings.open_game(store, "other", now=T0)
    for pid in (keen, lee):
        openings.sign_up(store, "other", pid, ["any"], now=T0)
    scan(store, T0)
    notify.deliver_due(store, T0)
    chat.received.clear()

    openings.free_seat(store, "demo", "England", now=T0 + timedelta(hours=1))
    assert scan(store, T0 + timedelta(hours=1, minutes=1)).offers == 2  # Keen and Lee
    openings.claim_seat(store, "demo", "England", keen, now=T0 + timedelta(hours=2))
    notify.deliver_due(store, T0 + timedelta(hours=2))
    chat.received.clear()
    # Keen gives the seat up in turn: a new vacancy of the same power, for the same reason.
    openings.free_seat(store, "demo", "England", now=T0 + timedelta(days=1))
    assert scan(store, T0 + timedelta(days=1, minutes=1)).offers == 1  # Lee again; Keen still holds it
    assert scan(store, T0 + timedelta(days=1, minutes=2)).offers == 0  # and once
    notify.deliver_due(store, T0 + timedelta(days=1, minutes=2))
    # Lee is offered it; Keen is told the seat he gave up is offered; Bo hears it was taken from him.
    assert _titles(chat) == {
        str(lee): ["demo: a seat is offered to you"],
        str(keen): ["demo: your seat (England) is offered to others"],
        str(bo): ["demo: England is no longer yours"],
    }


def test_the_replaced_player_is_told_by_email_once_with_a_link_to_their_games(store: GameStore) -> None:
    """By default (no choice made) the person whose seat was taken hears it by e-mail, once however often the
    dispatcher looks, and the one who took it is not told their own claim."""
    from dippouch.notify.dispatch import dispatch
    from dippouch.store.notify.stored import deliveries

    bo = create_person(store, "Bo", now=T0, email="bo@example.org")
    keen = create_person(store, "Keen", now=T0, email="keen@example.org")
    _game(store, {"England": bo})
    openings.open_game(store, "demo", now=T0)
    dispatch(store, T0)  # notifications start here
    openings.free_seat(store, "demo", "England", now=T0 + timedelta(hours=1))
    openings.claim_seat(store, "demo", "England", keen, now=T0 + timedelta(hours=2))
    for minutes in (1, 2):
        dispatch(store, T0 + timedelta(hours=2, minutes=minutes))
    lost = [d for d in deliveries(store) if d.event == "seat_lost"]
    assert sorted((d.person_id, d.channel, d.title) for d in lost) == [
        (bo, "email", "demo: England is no longer yours"),
        (bo, "email", "demo: your seat (England) is offered to others"),
    ]
    assert all(d.url.endswith("/me") for d in lost)


def test_what_is_told_about_ones_own_seat_opens_ones_own_page() -> None:
    from dippouch.notify.texts import compose

    facts = {"game": "evening tide", "power": "Burgundy", "phase": "Spring 1430", "next": "Fall 1430"}
    for event in ("phase_processed", "deadline", "game_starting"):
        assert compose(event, facts).url == "/games/evening%20tide/play/Burgundy", event
    assert compose("seat_offered", facts).url == "/games/evening%20tide"  # not their seat yet
    left = compose("seat_lost", {**facts, "how": "seat_replaced", "reason": "resigned", "url": "/me"})
    assert left.title == "evening tide: Burgundy has a new player" and "which you left" in left.body
    taken = compose("seat_lost", {**facts, "how": "seat_replaced", "reason": "disorder", "url": "/me"})
    assert "taken by a replacement" in taken.body and taken.url == "/me"


def test_the_workers_task_sends_every_look_s_webhooks_through_one_client(
    store: GameStore, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's notification task keeps its HTTP client from look to look (a client made for each look that had
    something to send cost 19 ms of CPU for its TLS context alone)."""
    made: list[httpx.Client] = []
    real = httpx.Client.__init__

    def counted(self: httpx.Client, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(httpx.Client, "__init__", counted)
    ann, bo = (_person(store, n, chat) for n in ("Ann", "Bo"))
    _game(store, {"France": ann, "England": bo})
    task = NotifyTask(every=0)
    _looks(task, store, T0 + timedelta(minutes=1))  # the game's start, told to both
    first = len(chat.received)
    press.send(store, "demo", "France", ["England"], "Hello", now=T0 + timedelta(minutes=5))
    _looks(task, store, T0 + timedelta(minutes=6))
    assert first >= 2 and len(chat.received) == first + 1, _titles(chat)
    assert made == [task.client], "a client was made for a look, not kept"


def test_a_look_whose_budget_is_spent_at_once_still_gets_past_what_it_has_told_already(
    store: GameStore, chat: ChatReceiver
) -> None:
    """The scan finds the game's start again on every pass, told already to everyone: a pass that stopped
    after it, having done nothing, would stop there on every pass, and the press after it would never be told
    (seen: a worker's one-second budget spent on a loaded machine before the press, look after look)."""
    ann, bo = (_person(store, n, chat) for n in ("Ann", "Bo"))
    _game(store, {"France": ann, "England": bo})
    task = NotifyTask(every=0, budget=0.0)
    _looks(task, store, T0 + timedelta(minutes=1))
    assert _titles(chat) == {str(ann): ["demo is starting"], str(bo): ["demo is starting"]}
    press.send(store, "demo", "France", ["England"], "Hello", now=T0 + timedelta(minutes=5))
    looks = _looks(task, store, T0 + timedelta(minutes=6))
    assert _titles(chat)[str(bo)][1:] == ["demo: a message from France"], _titles(chat)
    assert looks > 1, "the budget was not spent: the test shows nothing"


def _looks(task: NotifyTask, store: GameStore, now: datetime) -> int:
    """Call the task as the worker does, again at once while it is behind; how many calls it took."""
    for n in range(1, 21):
        task(store, now)
        if not task.behind:
            return n
    raise AssertionError("still behind after 20 looks")
