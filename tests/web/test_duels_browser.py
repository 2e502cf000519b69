"""The one-on-one queue in a browser at phone size: Ann asks and waits, Bob asks and is taken to the new game,
Ann's page then lists it; Cy asks and leaves the queue; axe finds no serious or critical violation on the page
in its three states (not signed in, the form, waiting), in light and dark colour schemes, and no page is wider
than the phone's screen. Screenshots of the waiting and paired pages are kept for a person to look
at (test-artifacts/duels/, when ``DIPPOUCH_SCREENSHOTS=1`` asks for them)."""

from __future__ import annotations

from typing import Any

from browsersupport import PHONE, LiveSite, shoot
from dippouch.store.people.persons import create_person

GRAVE = ("serious", "critical")


def _violations(page: Any, where: str) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    options: dict[str, Any] = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}
    found = []
    for v in Axe().run(page, options=options).response["violations"]:
        if v["impact"] in GRAVE:
            for node in v["nodes"]:
                found.append(f"{where}: {v['id']} ({v['impact']}) at {node['target']}: {node['failureSummary'][:200]}")
    return found


def _signed_in(site: LiveSite, pid: int, **options: Any) -> Any:
    ctx = site.context(PHONE, **options)
    token = site.web.access.start_session([], now=site.now(), person_id=pid)
    ctx.add_cookies([{"name": "dp_session", "value": token, "url": site.base}])
    return ctx.new_page()


def _check(page: Any, where: str, found: list[str]) -> None:
    page.wait_for_load_state("networkidle")
    found.extend(_violations(page, where))
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"] + 1, f"{where} is {wide} px wide on a {PHONE['width']} px screen"


def test_two_people_are_paired_from_the_queue_page_on_a_phone(live_site: LiveSite) -> None:
    site = live_site
    now = site.now()
    ann, bob, cy = (create_person(site.store, n, now=now) for n in ("Ann", "Bob", "Cy"))
    found: list[str] = []
    anyone = site.context(PHONE).new_page()
    pages = {
        "ann": _signed_in(site, ann),
        "bob": _signed_in(site, bob, color_scheme="dark"),
        "cy": _signed_in(site, cy),
    }
    try:
        anyone.goto(f"{site.base}/duels")
        assert "Sign in" in anyone.locator("#duel-queue").inner_text()
        _check(anyone, "anyone", found)

        page = pages["ann"]
        page.goto(f"{site.base}/duels")
        _check(page, "ann's form", found)
        page.locator("#duel-ask").get_by_role("button", name="Find me an opponent").click()
        page.wait_for_url(f"{site.base}/duels")
        assert "You are waiting for an opponent" in page.locator("#flash").inner_text()
        assert page.locator("#duel-waiting").is_visible()
        _check(page, "ann waiting", found)
        shoot(page, "duels", "duels-waiting-phone")

        bob_page = pages["bob"]
        bob_page.goto(f"{site.base}/duels")
        _check(bob_page, "bob's form, dark", found)
        bob_page.locator("#duel-ask").get_by_label("Let the game choose").check()
        bob_page.locator("#duel-ask").get_by_role("button", name="Find me an opponent").click()
        bob_page.wait_for_url(f"{site.base}/games/duel-*")
        game = bob_page.url.rsplit("/", 1)[1]
        said = bob_page.locator("#flash").inner_text()
        # Ann asked for France against Austria: that is the game.
        assert f"{game} starts now: you play" in said and "against Ann" in said
        assert any(p in said for p in ("France", "Austria"))

        page.goto(f"{site.base}/duels")
        assert page.locator("#duel-waiting").count() == 0
        assert page.locator("#duel-games").get_by_role("link", name=game).count() == 1
        shoot(page, "duels", "duels-paired-phone")

        cy_page = pages["cy"]
        cy_page.goto(f"{site.base}/duels")
        cy_page.locator("#duel-ask").get_by_role("button", name="Find me an opponent").click()
        cy_page.wait_for_url(f"{site.base}/duels")
        cy_page.get_by_role("button", name="Leave the queue").click()
        cy_page.wait_for_url(f"{site.base}/duels")
        assert "You left the queue" in cy_page.locator("#flash").inner_text()
        assert cy_page.locator("#duel-ask").is_visible()
    finally:
        anyone.context.close()
        for p in pages.values():
            p.context.close()
    assert not found, "\n".join(found)
