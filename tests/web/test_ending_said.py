"""A game's ending is a message value (issue 53): its page and its last report say it in the reader's language
("Draw agreed by ..." stayed English on German pages: the players' trial), and its English is as before; an
ending stored before endings were values (text alone) is shown as it was written."""

from __future__ import annotations

from pathlib import Path

from dippouch.catalog import load_variant
from dippouch.core.messages import msg
from dippouch.game import Ending, draw_agreed
from dippouch.saying import say
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from websupport import Site


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
