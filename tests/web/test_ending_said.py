"""A game's ending is a message value (issue 53): its page and its last report say it in the reader's language
("Draw agreed by ..." stayed English on German pages: the players' trial), and its English is as before; an
ending stored before endings were values (text alone) is shown as it was written."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.core.messages import msg
from dippouch.game import Ending, GameError, draw_agreed
from dippouch.saying import say
from dippouch.store import deadlines as store_deadlines
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from websupport import Site, page_text


def test_a_drawn_game_says_its_ending_in_german_and_english(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'w.db'}")
    site.new_game("g")
    store = site.web.store
    store_processing.process(store, "g", now=site.clock(), force=True)
    for power in load_variant("standard").power_names:
        store_votes.vote(store, "g", power, True, now=site.clock())
    ending = store_status.status(store, "g", now=site.clock()).ending
    assert ending is not None and ending.kind == "draw" and ending.why is not None
    # Every survivor voted yes: the powers are named once, not as voters and again as sharers.
    english = "Draw agreed and shared by Austria, England, France, Germany, Italy, Russia, Turkey."
    assert ending.text == english
    german = say(ending.message, "de")
    assert german.startswith("Remis vereinbart und geteilt von Austria, England")
    c = site.browser()
    assert german in c.get("/games/g", headers={"Accept-Language": "de"}).text
    assert ending.text in c.get("/games/g", headers={"Accept-Language": "en"}).text
    assert c.get("/api/games/g").json()["ending"] == ending.text  # the API's English, as before


def test_an_ending_stored_as_text_alone_is_said_as_written() -> None:
    old = Ending.from_data({"kind": "draw", "powers": ["France"], "text": "Draw agreed by France; shared by France."})
    assert old.why is None and say(old.message, "de") == "Draw agreed by France; shared by France."
    new = Ending.of(
        "draw", ("France",), msg("Draw agreed by %(voters)s; shared by %(powers)s.", voters="France", powers="France")
    )
    assert Ending.from_data(new.to_data()) == new and new.text == old.text


def test_a_draw_some_of_whose_sharers_did_not_vote_names_both_lists() -> None:
    assert say(draw_agreed(["France", "Germany"], ["Germany", "France"]), "en") == (
        "Draw agreed and shared by Germany, France."
    )
    assert (
        say(draw_agreed(["France"], ["France", "Germany"]), "en") == "Draw agreed by France; shared by France, Germany."
    )


def test_the_vote_that_ends_a_game_and_a_later_refusal_say_the_ending_in_the_players_language(tmp_path: Path) -> None:
    """The last vote's notice and a refusal after the end named the ending in its stored English on a German page
    ("Draw agreed by ..."); they say it as the page does."""
    site = Site(f"sqlite:///{tmp_path / 'w.db'}")
    site.new_game("g")
    france = site.player("g", "France", "Fran")
    store = site.web.store
    store_processing.process(store, "g", now=site.clock(), force=True)
    for power in load_variant("standard").power_names:
        if power != "France":
            store_votes.vote(store, "g", power, True, now=site.clock())
    de = {"Accept-Language": "de"}
    r = site.post_form(france, "/games/g/play/France/vote", {"draw": "1"}, headers=de)
    assert r.status_code == 303, r.text
    page = page_text(france.get(r.headers["location"], headers=de).text)
    assert "Remis vereinbart und geteilt von Austria, England" in page and "Draw agreed" not in page, page
    # A coordinator's clock action after the end is refused naming the ending, in the reader's language.
    with pytest.raises(GameError) as refused:
        store_deadlines.extend(store, "g", timedelta(days=1), now=site.clock())
    assert say(refused.value.msg, "de").startswith(
        "die Partie 'g' ist beendet: Remis vereinbart und geteilt von Austria"
    )


def test_orders_sent_from_a_page_kept_open_after_the_end_are_refused_with_why_and_what_was_typed(
    tmp_path: Path,
) -> None:
    """The refusal stood only inside the orders card, which a finished game's page does not show: the player got
    their page back (400) with no word of what happened to the orders they had just sent, and the text gone."""
    site = Site(f"sqlite:///{tmp_path / 'w.db'}")
    site.new_game("g")
    france = site.player("g", "France", "Fran")
    store = site.web.store
    store_processing.process(store, "g", now=site.clock(), force=True)
    for power in load_variant("standard").power_names:
        store_votes.vote(store, "g", power, True, now=site.clock())
    de = {"Accept-Language": "de"}
    r = site.post_form(france, "/games/g/play/France/orders", {"orders": "A Par - Bur\nF Bre - Mao"}, headers=de)
    assert r.status_code == 400
    refusal = re.search(r'<section class="card refusal" role="alert" id="refusal"[^>]*>(.*?)</section>', r.text, re.S)
    assert refusal is not None, r.text
    said = page_text(refusal.group(1))
    assert "Nicht gespeichert: Die Partie 'g' endete, bevor diese Befehle ankamen: Remis vereinbart" in " ".join(
        html.unescape(said).split()
    )
    assert "A Par - Bur\nF Bre - Mao" in html.unescape(refusal.group(1))
