"""What the player's page and the coordinator's desk say: true and helpful (units left without an order, an
example order of this game, refused orders in the report, refusals that keep the typed text, web hints,
confirmations, seating many players, special rules in words, draws and secret ballots)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from dippouch.core.variant import load_variant
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _flash(r) -> str:  # type: ignore[no-untyped-def]
    return unquote(r.cookies.get("dp_flash", ""))


# --------------------------------------------------------------------------------------------------
# The report: sent but not accepted is not "no order received"


def test_report_tells_a_refused_order_from_no_order(site: Site) -> None:
    site.new_game("demo")
    france = site.player("demo", "France")
    site.player("demo", "Germany")
    site.post_form(france, "/games/demo/play/France/orders", {"orders": "A Paris - Burgandy\nF Brest - English Channel"})
    r = site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303, r.text
    report = site.browser().get("/api/games/demo").json()["last_report"]
    paris = next(ln for ln in report.splitlines() if ln.startswith("France:") and "Paris" in ln)
    assert "no order accepted" in paris and "no order received" not in paris, report
    assert "sent but not accepted: 'A Paris - Burgandy' -- no province 'Burgandy'" in report, report
    munich = next(ln for ln in report.splitlines() if ln.startswith("Germany:") and "Munich" in ln)
    assert "no order received" in munich, report
    # The same words in the report the store makes (mail, the command line).
    assert "sent but not accepted: 'A Paris - Burgandy'" in site.web.store.report("demo", "Spring 1901 Movement")


# --------------------------------------------------------------------------------------------------
# Special rules in words


@pytest.mark.parametrize("variant", ["standard", "1000ad", "w3k", "1897", "hundred", "hundred3"])
def test_variant_pages_describe_special_rules_in_words(site: Site, variant: str) -> None:
    page = site.browser().get(f"/variants/{variant}").text
    assert "Special rule:" not in page, re.findall(r"Special rule:[^<]*", page)
    assert "_" not in " ".join(re.findall(r"<p>([^<]*)</p>", page.split("Rules in brief")[1].split("</section>")[0]))


def test_1000ad_and_w3k_rules_pages_say_what_their_hooks_do(site: Site) -> None:
    ad = site.browser().get("/variants/1000ad").text
    assert "prepare_orders" not in ad and "ad1000_anarchy" not in ad
    assert "Anarchy (rule 13)" in ad and ad.count("Anarchy (rule 13)") == 1
    w3k = site.browser().get("/variants/w3k").text
    assert "A draw is only between kingdoms" in w3k
    assert "may agree a draw by unanimous vote." not in w3k.replace("then the survivors may agree it by unanimous vote.", "")
