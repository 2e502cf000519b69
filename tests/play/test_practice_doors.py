"""Starting a practice game (:func:`dippouch.play.practice.start_practice`), whose one door is the home page's
form: the page starts the game the use case starts (unlisted, marked practice, bots in every other seat with
their first orders in, the visitor seated with a player key), and refuses a bad choice in the use case's own
words, with nothing stored."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from dippouch.core.errors import DippouchError
from dippouch.play.practice import PLAYER, PracticeCapReached, PracticeStarted, start_practice
from dippouch.store import GameStore
from dippouch.store import status as store_status
from dippouch.store.bots import open_practice_games
from websupport import Site

BAD: dict[str, dict[str, str]] = {
    "variant": {"variant": "no-such-variant"},
    "power": {"power": "Atlantis"},
    "level": {"level": "genius"},
    "pace": {"pace": "yearly"},
}


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})


def _started(store: GameStore, game: str, power: str, *, now: object) -> None:
    st = store_status.status(store, game, now=now)  # type: ignore[arg-type]
    seats = {ps.power: ps for ps in st.powers}
    assert seats[power].player == PLAYER and seats[power].version is None
    assert all(ps.player == "bot:hold" and ps.version is not None for p, ps in seats.items() if p != power)
    assert st.settings.practice and st.settings.deadlines["movement"] == "2m"


def test_the_home_page_starts_the_game_the_use_case_starts(site: Site) -> None:
    form = {"variant": "standard", "power": "Italy", "level": "hold", "pace": "2m"}
    r = site.post_form(site.browser(), "/practice", form)
    assert r.status_code == 303, r.text
    (web_game,) = open_practice_games(site.web.store)
    _started(site.web.store, web_game, "Italy", now=site.clock())
    got = start_practice(
        site.web.store, site.web.access, client="10.0.0.9", now=site.clock(), power="italy", level="hold", pace="2m"
    )
    assert isinstance(got, PracticeStarted) and got.power == "Italy" and got.secret.startswith("dp_")
    _started(site.web.store, got.game, "Italy", now=site.clock())
    assert site.web.access.visibility(got.game) == site.web.access.visibility(web_game) == "unlisted"


@pytest.mark.parametrize("bad", sorted(BAD))
def test_a_bad_choice_is_refused_in_the_use_cases_words_on_the_page(site: Site, bad: str) -> None:
    choice = {"variant": "standard", "power": "any", "level": "hold", "pace": "ready"} | BAD[bad]
    with pytest.raises(DippouchError) as refused:
        start_practice(
            site.web.store,
            site.web.access,
            client="10.0.0.9",
            now=site.clock(),
            variant=choice["variant"],
            power=choice["power"],
            level=choice["level"],
            pace=choice["pace"],
        )
    r = site.post_form(site.browser(), "/practice", BAD[bad])
    assert r.status_code == 400, (bad, r.status_code)
    assert str(refused.value) in html.unescape(r.text), (bad, str(refused.value))
    assert open_practice_games(site.web.store) == {}


def test_a_cap_reached_is_refused_with_the_time_to_wait(site: Site) -> None:
    start_practice(site.web.store, site.web.access, client="10.0.0.9", now=site.clock(), level="hold")
    with pytest.raises(PracticeCapReached, match=r"at most 1 at once") as refused:
        start_practice(site.web.store, site.web.access, client="10.0.0.9", now=site.clock(), per_client=1)
    assert refused.value.retry_after == 600
    assert len(open_practice_games(site.web.store)) == 1
