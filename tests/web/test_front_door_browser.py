"""The front door in Chromium (issue 55, items 9 and 10): /new-game's templates under their variants, the open
games' variant filter by title and a newcomer's standing on a game asking a reliability, on a phone and a
desktop, light and dark: no serious axe finding (WCAG 2.2's 24 px targets on the phone), no page wider than
the phone. Screenshots in test-artifacts/front-door/."""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.store.people import create_person


def _axe(page: Any, where: str, phone: bool) -> list[str]:
    """axe's serious and critical findings on ``page``, with the 24 px target size on a phone."""
    from axe_playwright_python.sync_playwright import Axe

    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if phone:
        options["rules"] = {"target-size": {"enabled": True}}
    return [
        f"{where}: {v['id']} ({v['impact']}) at {' '.join(map(str, n['target']))}"
        for v in Axe().run(page, options=options).response["violations"]
        if v["impact"] in ("serious", "critical")
        for n in v["nodes"]
    ]


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_front_door_pages_at_both_sizes(live_site: LiveSite, scheme: str) -> None:
    from dippouch.store.openings import open_game

    site, base = live_site, live_site.base
    now = site.now()
    ivan = create_person(site.store, "Ivan", now=now)
    site.store.create_game("rel3", "hundred3", now=now)
    open_game(site.store, "rel3", now=now, min_reliability=50, mode="preferences")
    found: list[str] = []
    for size in (PHONE, DESKTOP):
        phone = size is PHONE
        tag = f"{'phone' if phone else 'desktop'}-{scheme}"
        page = site.person(ivan, size, color_scheme=scheme).new_page()
        errors = watch_errors(page)
        for path, name in (
            ("/new-game", "new-game"),
            ("/open?variant=fiveman", "open-filter"),
            ("/games/rel3/opening", "opening"),
        ):
            page.goto(base + path)
            wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert wide <= 0, f"{path} is {wide} px wider than the {tag} screen"
            shoot(page, "front-door", f"{name}-{tag}", full_page=False)
            found += _axe(page, f"{path} ({tag})", phone)
        page.goto(base + "/new-game")
        page.locator("#variant-w3k").scroll_into_view_if_needed()
        shoot(page, "front-door", f"new-game-w3k-{tag}", full_page=False)
        assert errors == [], errors
    assert found == [], found
