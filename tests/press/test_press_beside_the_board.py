"""The press beside the board (issue 40): the player's page shows each thread inline with its latest messages and
a reply box, and a message sent from it never loses the orders typed and not sent. Without JavaScript the press
controls belong to the orders form, so a send posts the orders along and the page comes back with them in the
box (a refusal too, with the message as typed beside its box); orders sent meanwhile replace the draft."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from websupport import Site

ORDERS = "A Lvp - Yor\nF Lon - Nth"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


def _box(html: str) -> str:
    m = re.search(r'<textarea id="orders"[^>]*>(.*?)</textarea>', html, re.S)
    assert m, html
    return m.group(1)


def _linked_send(site: Site, who: object, **press: str) -> object:
    """What the browser posts when Send is pressed under the board without JavaScript: the orders form's fields
    (its token, phase, version, the orders typed, a pick, the ready box) and the press box's."""
    fields = {
        "phase": "Spring 1901 Movement",
        "based_on": "0",
        "orders": ORDERS,
        "pick:edi": "F Edi - Nrg",
        "ready": "1",
        **press,
    }
    return site.post_form(who, "/games/demo/play/England/press", fields)  # type: ignore[arg-type]


def test_the_press_controls_belong_to_the_orders_form_and_post_to_the_press(site: Site) -> None:
    en = site.player("demo", "England")
    page = en.get("/games/demo/play/England").text
    compose = page[page.index('id="press-compose"') :]
    assert '<textarea id="press-text" name="text" rows="3"' in compose and 'form="orders-form"' in compose
    assert 'formaction="/games/demo/play/England/press"' in compose
    # Beside the board: the panel follows the orders form in the column beside the map, before the rest.
    assert page.index('id="orders-form"') < page.index('id="press"') < page.index("<h2>Draw</h2>")


def test_a_press_send_without_javascript_comes_back_with_the_orders_as_typed(site: Site) -> None:
    en = site.player("demo", "England")
    r = _linked_send(site, en, to="France", text="Shall we keep the Channel empty?")
    assert r.status_code == 303, r.text  # type: ignore[attr-defined]
    back = r.headers["location"]  # type: ignore[attr-defined]
    assert back.startswith("/games/demo/play/England?thread=")
    page = en.get(back).text
    assert _box(page) == ORDERS + "\nF Edi - Nrg"  # the orders typed, and the pick, still unsent
    assert re.search(r'name="ready" value="1" checked', page)
    # The message is in its thread, shown open inline on the player's page.
    thread = page[page.index('class="press-thread"') :]
    assert thread.startswith('class="press-thread" data-channel="1" open') and "Shall we keep the Channel" in thread
    # Orders sent since replace the draft: the page shows the version that stands.
    r = site.post_form(en, "/games/demo/play/England/orders", {"orders": "A Lvp H", "phase": "Spring 1901 Movement"})
    assert r.status_code == 303
    assert _box(en.get("/games/demo/play/England").text) == "A Lvp H"


def test_a_refused_press_send_without_javascript_keeps_both_the_message_and_the_orders(site: Site) -> None:
    en = site.player("demo", "England")
    r = _linked_send(site, en, text="To nobody at all")
    assert r.status_code == 400  # type: ignore[attr-defined]
    page = r.text  # type: ignore[attr-defined]
    assert _box(page) == ORDERS + "\nF Edi - Nrg"
    compose = page[page.index('id="press-compose"') :]
    assert "choose at least one other power" in compose  # the refusal beside the box it came from
    assert ">To nobody at all</textarea>" in compose


def test_a_reply_box_of_each_thread_sends_into_it_and_the_other_side_reads_it_inline(site: Site) -> None:
    en, fr = site.player("demo", "England"), site.player("demo", "France", "Fay")
    r = site.api(en, "/api/games/demo/powers/England/press", {"to": ["France"], "text": "North Sea is mine?"})
    channel = r.json()["channel"]
    page = fr.get("/games/demo/play/France").text
    thread = page[page.index(f'id="thread-{channel}"') :]
    assert "North Sea is mine?" in thread and "1 unread" in thread  # unread: shown open, with its message
    assert f'name="text-{channel}"' in thread  # the reply box of this thread, in the orders form
    r = site.post_form(
        fr,
        "/games/demo/play/France/press",
        {
            "orders": "",
            "phase": "Spring 1901 Movement",
            "based_on": "0",
            "channel": str(channel),
            f"text-{channel}": "Only if Belgium is mine.",
        },
    )
    assert r.status_code == 303
    assert "Only if Belgium is mine." in en.get("/games/demo/play/England").text


def test_the_draft_is_the_seats_own(site: Site) -> None:
    # A draft cookie is offered only to the seat and phase it was typed for.
    en, fr = site.player("demo", "England"), site.player("demo", "France", "Fay")
    r = _linked_send(site, en, to="France", text="Hello")
    cookie = r.cookies.get("dp_orders_draft")  # type: ignore[attr-defined]
    assert cookie
    fr.cookies.set("dp_orders_draft", cookie)
    assert ORDERS not in fr.get("/games/demo/play/France").text
