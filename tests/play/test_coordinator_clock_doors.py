"""One clock, every door (issue 54): pause, resume, extend, process now and roll back are the use cases of
``play/clock.py``, and the coordinator's desk (its forms), the JSON API (``POST /api/games/{name}/actions``)
and the command line (``dippouch pause/resume/extend/process --force/rollback``, run in process) each call them:
the same effect on the game, and the same refusal in the same words. (The mail and DAIDE doors offer no clock.)
"""

from __future__ import annotations

import html
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from websupport import Site

DOORS = ("desk", "api", "cli")
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("demo")
    for power in POWERS:
        store_games.assign(s.web.store, "demo", power, f"{power} player", now=s.clock())
    return s


def act(site: Site, door: str, action: str, arg: str = "") -> tuple[int, str]:
    """The installation's coordinator asks ``action`` through ``door``: (0 or 200 when done, else the status
    or exit code; what the door said, refusals included)."""
    if door == "cli":
        register_commands()
        words = {"process": ["process", "demo", "--force"], "extend": ["extend", "demo", arg]}
        args = words.get(action, [action, "demo", *([arg] if arg else [])])
        db = str(site.web.store.engine.url)
        got = CliRunner().invoke(app, [*args, "--db", db, "--now", site.clock().isoformat()])
        return (0 if got.exit_code == 0 else got.exit_code), str(got.output)
    if door == "api":
        r = site.api(site.coordinator, "/api/games/demo/actions", {"action": action, "arg": arg})
        return (0 if r.status_code == 200 else r.status_code), html.unescape(r.text)
    field = {"extend": "by", "rollback": "phase"}.get(action, "arg")
    r = site.post_form(
        site.coordinator,
        f"/games/demo/coordinate/{action}",
        {field: arg, "confirm": "yes"},
        headers={"Accept": "text/html"},
    )
    if r.status_code == 303:
        return 0, html.unescape(site.coordinator.get(r.headers["location"]).text)
    return r.status_code, html.unescape(r.text)


def state(store: GameStore, site: Site) -> tuple[str, str | None]:
    st = store_status.status(store, "demo", now=site.clock())
    return st.state, st.phase


@pytest.mark.parametrize("door", DOORS)
def test_pause_and_resume_stop_and_restart_the_clock_through_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    before = store_status.status(store, "demo", now=site.clock()).deadline
    assert before is not None
    code, said = act(site, door, "pause")
    assert code == 0, said
    assert state(store, site)[0] == "paused", door
    # The same refusal, in the same words, at each door.
    code, said = act(site, door, "pause")
    assert code != 0 and "game 'demo' is already paused" in said, (door, said)
    code, said = act(site, door, "resume")
    assert code == 0, said
    st = store_status.status(store, "demo", now=site.clock())
    assert st.state == "active" and st.deadline is not None and st.deadline >= before, door


@pytest.mark.parametrize("door", DOORS)
def test_extend_moves_the_deadline_through_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    before = store_status.status(store, "demo", now=site.clock()).deadline
    assert before is not None
    code, said = act(site, door, "extend", "1d")
    assert code == 0, said
    assert store_status.status(store, "demo", now=site.clock()).deadline == before + timedelta(days=1), door
    code, said = act(site, door, "extend", "366d")
    assert code != 0 and "an extension is between one second and a year" in said, (door, said)
    assert store_status.status(store, "demo", now=site.clock()).deadline == before + timedelta(days=1), door


@pytest.mark.parametrize("door", DOORS)
def test_process_now_and_roll_back_through_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    code, said = act(site, door, "process")
    assert code == 0, said
    assert state(store, site)[1] == "Fall 1901 Movement", (door, said)
    code, said = act(site, door, "rollback", "Spring 1901 Movement")
    assert code == 0, said
    assert state(store, site)[1] == "Spring 1901 Movement", door
    code, said = act(site, door, "rollback", "Spring 1950 Movement")
    assert code != 0 and "Spring 1950" in said, (door, said)
    assert state(store, site)[1] == "Spring 1901 Movement", door
