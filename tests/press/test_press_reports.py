"""Reports of press messages are bounded (one per power and message, :data:`REPORTS_PER_DAY` per power in
any 24 hours) and reach the coordinator only: the public game file does not say who reported what."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import dippouch.store.press.messages as press
from dippouch.game import GameError
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import transfer as store_transfer
from websupport import Site

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    store_games.create_game(s, "g", "standard", now=T0)
    for p in POWERS:
        store_games.assign(s, "g", p, f"{p} player", now=T0)
    yield s
    s.close()


def _events(store: GameStore) -> list[str]:
    return [e["kind"] for e in store_transfer.export_game(store, "g")["events"] if e["kind"] == "press-report"]


def test_a_message_is_reported_once_by_each_power(store: GameStore) -> None:
    m = press.send(store, "g", "England", ["France", "Germany"], "rude words", now=T0)
    press.report(store, "g", "France", m.id, "abusive", now=T0)
    # The review's flood: the same message again and again, 2,000 characters each.
    for i in range(40):
        with pytest.raises(GameError, match=rf"France reported message {m.id} already, on 2026-12-01 at 09:00 UTC"):
            press.report(store, "g", "France", m.id, "x" * 2000, now=T0 + timedelta(minutes=i))
    press.report(store, "g", "Germany", m.id, "abusive to me too", now=T0)  # another reader may report it
    assert [(r["by"], r["reason"]) for r in press.reports(store, "g")] == [
        ("France", "abusive"),
        ("Germany", "abusive to me too"),
    ]
    assert len(_events(store)) == 2


def test_a_power_makes_at_most_the_days_number_of_reports(store: GameStore) -> None:
    earlier = T0 - timedelta(hours=1)  # a minute apart: the press rules' own flood limit is per minute
    sent = [
        press.send(store, "g", "England", ["France"], f"insult {i}", now=earlier + timedelta(minutes=i))
        for i in range(press.REPORTS_PER_DAY + 2)
    ]
    for i, m in enumerate(sent[: press.REPORTS_PER_DAY]):
        press.report(store, "g", "France", m.id, "abusive", now=T0 + timedelta(hours=i))
    over = sent[press.REPORTS_PER_DAY]
    late = T0 + timedelta(hours=press.REPORTS_PER_DAY)
    with pytest.raises(GameError) as e:
        press.report(store, "g", "France", over.id, "abusive", now=late)
    assert str(e.value) == (
        f"France has made {press.REPORTS_PER_DAY} reports in the last 24 hours, the most a power may; the next "
        "may be made from 2026-12-02 09:00 UTC (or write to the coordinator)"
    )
    # Another power's reports are counted apart.
    press.report(store, "g", "Germany", press.send(store, "g", "Italy", ["Germany"], "rude", now=T0).id, "", now=late)
    # Once the first report is 24 hours old, one more may be made.
    press.report(store, "g", "France", over.id, "abusive", now=T0 + timedelta(days=1, seconds=1))
    with pytest.raises(GameError, match="the most a power may"):
        press.report(store, "g", "France", sent[-1].id, "abusive", now=T0 + timedelta(days=1, seconds=2))
    assert len(press.reports(store, "g")) == press.REPORTS_PER_DAY + 2


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


def _p(power: str) -> str:
    return f"/api/games/demo/powers/{power}/press"


def test_the_public_game_file_has_no_report_and_the_coordinators_has_it(site: Site) -> None:
    en, it = site.player("demo", "England"), site.player("demo", "Italy")
    mid = site.api(en, _p("England"), {"to": ["Italy"], "text": "rude"}).json()["id"]
    assert site.api(it, _p("Italy") + f"/messages/{mid}/report", {"reason": "abuse"}).status_code == 200
    # The second report of the message: refused with the store's words, which the web shows.
    r = site.api(it, _p("Italy") + f"/messages/{mid}/report", {"reason": "abuse again"})
    assert r.status_code == 400 and f"Italy reported message {mid} already" in r.json()["error"]

    for reader in (site.browser(), en, it):
        public = reader.get("/api/games/demo/export")
        assert public.status_code == 200
        assert [e for e in public.json()["events"] if e["kind"] == "press-report"] == []
        assert "press-report" not in reader.get("/games/demo/export.json").text
    coordinator = site.coordinator.get("/api/games/demo/export").json()
    assert [e["detail"] for e in coordinator["events"] if e["kind"] == "press-report"] == [
        {"power": "Italy", "message": mid}
    ]
    reports = site.coordinator.get("/api/games/demo/press").json()["reports"]
    assert [(x["by"], x["reason"], x["message"]["text"]) for x in reports] == [("Italy", "abuse", "rude")]
