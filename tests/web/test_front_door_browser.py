"""The front door in Chromium (issue 55, items 9 and 10): /new-game's templates under their variants, the open
games' variant filter by title and a newcomer's standing on a game asking a reliability, on a phone and a
desktop, light and dark: no serious axe finding (WCAG 2.2's 24 px targets on the phone), no page wider than
the phone. Screenshots in test-artifacts/front-door/."""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors, wider_than_window
from dippouch.store import games as store_games
from dippouch.store.people.persons import create_person


@pytest.mark.slow
def test_the_front_door_pages_at_both_sizes(live_site: LiveSite) -> None:
    """Each page loaded once a size and shot in both schemes: every axe rule in light colours, then axe's colour
    rules with the page turned dark, as test_axe_pages.py checks every page kind (the dark scheme changes colours
    only, which it also checks, so the width measured in light is dark's too)."""
    from test_axe_pages import _in_both_schemes

    from dippouch.store.openings import open_game

    site, base = live_site, live_site.base
    now = site.now()
    ivan = create_person(site.store, "Ivan", now=now)
    store_games.create_game(site.store, "rel3", "hundred3", now=now)
    open_game(site.store, "rel3", now=now, min_reliability=50, mode="preferences")
    found: list[str] = []
    for size in (PHONE, DESKTOP):
        phone = size is PHONE
        where = "phone" if phone else "desktop"
        page = site.person(ivan, size).new_page()
        errors = watch_errors(page)
        for path, name in (
            ("/new-game", "new-game"),
            ("/open?variant=fiveman", "open-filter"),
            ("/games/rel3/opening", "opening"),
        ):
            page.goto(base + path)
            wide = wider_than_window(page)
            assert wide <= 0, f"{path} is {wide} px wider than the {where} screen"
            _shoot_both(page, f"{name}-{where}")
            found += _in_both_schemes(page, f"{path} ({where})", phone)
        page.goto(base + "/new-game")
        page.locator("#variant-w3k").scroll_into_view_if_needed()
        _shoot_both(page, f"new-game-w3k-{where}")
        assert errors == [], errors
    assert found == [], found


def _shoot_both(page: Any, name: str) -> None:
    """What is in view, in light colours and turned dark (test-artifacts/front-door/NAME-light.png, -dark.png)."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        shoot(page, "front-door", f"{name}-{scheme}", full_page=False)
    page.emulate_media(color_scheme="light")
