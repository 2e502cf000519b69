"""A drawing refused while its asker's share of the server's work is spent (the players' trial: the GIF, then
the game book within a minute, answered 429 "Slow down") says how long to wait and asks again by itself once
the wait is over, with a way to stop it; a program's JSON refusal carries Retry-After alone."""

from __future__ import annotations

from pathlib import Path

from browsersupport import LiveSite
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.web.http.budget import WorkBudget
from websupport import Site


def test_a_refused_drawing_says_when_and_links_to_itself(tmp_path: Path) -> None:
    s = Site(f"sqlite:///{tmp_path / 'w.db'}")
    s.new_game("g")
    s.post_form(s.coordinator, "/games/g/coordinate/process", {"confirm": "yes"})
    s.app.state.budget = WorkBudget(0.5, 5.0)  # the GIF leaves a debt of some seconds
    c = s.browser()
    assert c.get("/games/g/replay.gif").status_code == 200
    r = c.get("/games/g/replay.webp")
    assert r.status_code == 429
    wait = int(r.headers["Retry-After"])
    assert f'id="retry" data-retry-in="{wait}"' in r.text
    assert f"This page asks again by itself in {wait} s." in r.text and 'href="/games/g/replay.webp"' in r.text
    german = c.get("/games/g/replay.webp", headers={"Accept-Language": "de"})
    assert german.status_code == 429 and 'id="retry"' in german.text and "asks again by itself" not in german.text
    assert 'id="retry"' not in c.get("/games/nosuch").text  # a page not there is not asked for again


def test_the_page_asks_again_by_itself_and_the_drawing_comes(live_site: LiveSite) -> None:
    store_games.create_game(live_site.store, "g", "standard", now=live_site.now())
    store_processing.process(live_site.store, "g", now=live_site.now(), force=True)
    live_site.app.state.budget = WorkBudget(0.5, 5.0)  # the GIF leaves a debt of some seconds
    page = live_site.context().new_page()
    assert page.goto(f"{live_site.base}/games/g/replay.gif").status == 200
    refused = page.goto(f"{live_site.base}/games/g/replay.webp")
    assert refused is not None and refused.status == 429
    page.locator("#retry-stop").wait_for()  # the script offers to stop it
    # The script reloads the page until the drawing comes (a reload may be refused again): wait for the reload
    # that loads it, since a refused page's timer would otherwise reload it under the next navigation.
    for _ in range(10):
        with page.expect_navigation(timeout=30_000) as reloaded:
            pass
        answer = reloaded.value
        if answer is not None and answer.status == 200:
            break
    else:
        raise AssertionError("the drawing never came")
    assert page.url.endswith("/games/g/replay.webp")
    # Stopped, it stays: no request made again once the wait is over.
    store_games.create_game(live_site.store, "h", "standard", now=live_site.now())
    store_processing.process(live_site.store, "h", now=live_site.now(), force=True)
    live_site.app.state.budget = WorkBudget(0.5, 5.0)  # a full share again
    assert page.goto(f"{live_site.base}/games/h/replay.gif").status == 200
    refused = page.goto(f"{live_site.base}/games/h/replay.webp")
    assert refused is not None and refused.status == 429
    page.locator("#retry-stop").click()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.wait_for_timeout((int(refused.headers["retry-after"]) + 2) * 1000)
    assert not [u for u in asked if "replay" in u] and page.locator("#retry").is_visible()
