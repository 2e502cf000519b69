"""Two use cases, every door.

"Process now" (:func:`dippouch.play.processing.process_now`): the coordinator's desk, the JSON API's
``process`` action and ``dippouch process GAME --force`` process the open phase and let the bots seated in the
game order the phase that opens (the desk and the API processed the phase alone and left the bots to the next
worker's look, while the command line let them play).

"Process what is due" (:func:`dippouch.play.processing.process_due`): a ``dippouch worker`` process, a
worker's look in a process that serves the site (its scheduler) and ``dippouch worker --once`` take the same
due phase, after the bots have ordered it."""

from __future__ import annotations

import html
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.bots.seats import play_seats, seat_bot
from dippouch.cli import app, register_commands
from dippouch.game import GameSettings
from dippouch.play.processing import ProcessedNow, process_now
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.web.http.scheduler import DeadlineScheduler
from dippouch.worker.service import Worker
from websupport import Site

BOTS = ("Austria", "England", "Germany", "Italy", "Russia", "Turkey")


def _site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    store = s.web.store
    # Opened two hours ago by the database's clock (what a worker without --now goes by): Spring is an hour late.
    # The site's clock (its scheduler's) is set to the database's: left at the tests' fixed start, the phase was
    # not due by it once the day of that start was more than an hour on.
    s.clock.at = store.clock()
    opened = store.clock() - timedelta(hours=2)
    settings = GameSettings(deadlines={"movement": "1h", "retreats": "1h", "adjustments": "1h"})
    store_games.create_game(store, "demo", "standard", now=opened, settings=settings)
    for power in BOTS:
        seat_bot(store, "demo", power, "hold", now=opened)
    store_games.assign(store, "demo", "France", "Fay", now=opened)
    return s


def _fall_ordered_by_bots(store: GameStore, now: object) -> dict[str, bool]:
    st = store_status.status(store, "demo", now=now)  # type: ignore[arg-type]
    return {ps.power: ps.version is not None for ps in st.powers}


@pytest.mark.parametrize("door", ("desk", "api", "cli"))
def test_process_now_processes_the_phase_and_the_bots_order_the_next_whichever_door(door: str, tmp_path: Path) -> None:
    site = _site(tmp_path)
    store: GameStore = site.web.store
    play_seats(store, now=site.clock(), games=["demo"])  # Spring's bot orders are in; France has none
    if door == "desk":
        r = site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
        assert r.status_code == 303, r.text
        said = html.unescape(site.coordinator.get(r.headers["location"]).text)
    elif door == "api":
        r = site.api(site.coordinator, "/api/games/demo/actions", {"action": "process"})
        assert r.status_code == 200, r.text
        said = str(r.json()["message"])
    else:
        register_commands()
        args = ["process", "demo", "--force", "--db", f"sqlite:///{tmp_path / 'g.db'}"]
        result = CliRunner().invoke(app, [*args, "--now", site.clock().isoformat()])
        assert result.exit_code == 0, result.output
        said = result.output
    st = store_status.status(store, "demo", now=site.clock())
    assert st.phase == "Fall 1901 Movement", (door, said)
    assert _fall_ordered_by_bots(store, site.clock()) == {"France": False, **dict.fromkeys(BOTS, True)}, door
    assert "Spring 1901" in said, (door, said)


def test_process_now_says_what_it_processed(tmp_path: Path) -> None:
    site = _site(tmp_path)
    got = process_now(site.web.store, "demo", now=site.clock(), force=True)
    assert got == ProcessedNow("demo", ("Spring 1901 Movement",))
    assert got.text == "Processed Spring 1901 Movement."
    assert process_now(site.web.store, "demo", now=site.clock()).text == "Nothing was processed."


@pytest.mark.parametrize("door", ("worker", "scheduler", "cli"))
def test_a_due_phase_is_processed_after_the_bots_ordered_it_whichever_process_looks(door: str, tmp_path: Path) -> None:
    site = _site(tmp_path)
    store: GameStore = site.web.store
    if door == "worker":
        Worker(store, fetch=None, tasks=[]).look()
    elif door == "scheduler":
        DeadlineScheduler(site.web, tasks=[]).tick()
    else:
        register_commands()
        result = CliRunner().invoke(app, ["worker", "--once", "--db", f"sqlite:///{tmp_path / 'g.db'}"])
        assert result.exit_code == 0, result.output
        assert "1 phase processed" in result.output, result.output
    spring = store_history.phase_record(store, "demo", "Spring 1901 Movement")
    assert spring["status"] == "processed", door
    # The bots' Spring orders were in before it was processed (they hold); France sent none.
    sent = {sub["power"] for sub in spring["submissions"]}
    assert sent == set(BOTS), (door, sent)
    assert store_status.status(store, "demo", now=site.clock()).phase == "Fall 1901 Movement", door
