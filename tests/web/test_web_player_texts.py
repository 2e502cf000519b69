"""What the player's page and the coordinator's desk say: true and helpful (units left without an order, an
example order of this game, refused orders in the report, refusals that keep the typed text, web hints,
confirmations, seating many players, special rules in words, draws and secret ballots)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from dippouch.catalog import load_variant
from dippouch.play.reports import stored_report
from dippouch.store import games as store_games
from mailservers import SmtpServer
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
    site.post_form(
        france, "/games/demo/play/France/orders", {"orders": "A Paris - Burgandy\nF Brest - English Channel"}
    )
    r = site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303, r.text
    report = site.browser().get("/api/games/demo").json()["last_report"]
    paris = next(ln for ln in report.splitlines() if ln.startswith("France:") and "Paris" in ln)
    assert "no order accepted" in paris and "no order received" not in paris, report
    assert "sent but not accepted: 'A Paris - Burgandy' -- no province 'Burgandy'" in report, report
    munich = next(ln for ln in report.splitlines() if ln.startswith("Germany:") and "Munich" in ln)
    assert "no order received" in munich, report
    # The same words in the report the store makes (mail, the command line).
    assert "sent but not accepted: 'A Paris - Burgandy'" in stored_report(
        site.web.store, "demo", "Spring 1901 Movement"
    )


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
    assert "may agree a draw by unanimous vote." not in w3k.replace(
        "then the survivors may agree it by unanimous vote.", ""
    )


# --------------------------------------------------------------------------------------------------
# Units without an order


def test_units_without_an_order_are_named_after_a_submission_and_by_the_line_check(site: Site) -> None:
    site.new_game("demo")
    france = site.player("demo", "France")
    r = site.post_form(france, "/games/demo/play/France/orders", {"orders": "A Paris - Burgundy"})
    assert r.status_code == 303
    flash = _flash(r)
    assert "Without an order: Army Marseilles, Fleet Brest: no order, they hold." in flash, flash
    page = france.get("/games/demo/play/France").text
    assert "Without an order in your orders as they stand" in page and "Army Marseilles, Fleet Brest" in page
    api = site.api(france, "/api/games/demo/powers/France/orders", {"text": "A par - bur\nF bre - mao"}).json()
    assert api["unordered"] == ["Army Marseilles"], api
    checked = site.api(france, "/api/games/demo/powers/France/check", {"text": "F bre - mao"}).json()
    assert checked["unordered"] == ["Army Marseilles", "Army Paris"], checked
    assert checked["unordered_notes"] == ["Army Marseilles, Army Paris: no order, they hold"], checked
    done = site.api(france, "/api/games/demo/powers/France/check", {"text": "A par H\nA mar H\nF bre H"}).json()
    assert done["unordered"] == [] and done["unordered_notes"] == []


def test_builds_not_ordered_are_said_in_an_adjustment_phase(site: Site) -> None:
    site.new_game("ad", variant="1000ad")
    v = load_variant("1000ad")
    power = v.power_names[0]
    client = site.player("ad", power)
    checked = site.api(client, f"/api/games/ad/powers/{power}/check", {"text": ""}).json()
    assert checked["unordered"] == [] and re.fullmatch(
        r"\d+ builds? not ordered: waived", checked["unordered_notes"][0]
    )


# --------------------------------------------------------------------------------------------------
# The order box's example


def _placeholder(page: str) -> str:
    m = re.search(r'<textarea id="orders"[^>]*placeholder="([^"]*)"', page, re.S)
    assert m, page
    return m.group(1)


@pytest.mark.parametrize("variant", ["w3k", "1000ad", "standard"])
def test_the_order_box_example_is_a_real_order_of_this_power_now(site: Site, variant: str) -> None:
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.notation import format_order

    site.new_game("g", variant=variant)
    v = load_variant(variant)
    power = v.power_names[0]
    page = site.player("g", power).get(f"/games/g/play/{power}").text
    example = _placeholder(page).replace("&#39;", "'").splitlines()
    assert (example and "A Paris - Burgundy" not in example) or (variant == "standard" and power == "France")
    _, _, pos, _, kind = site.web.open_phase_position("g")
    legal = {
        format_order(v, o, phase_kind=kind, full=True) for os_ in legal_orders(v, pos, power).values() for o in os_
    }
    assert set(example) <= legal, (example, kind)
    if kind == "adjustments":
        assert all(line.startswith("Build ") for line in example), example
    else:
        assert all(" - " in line for line in example), example


def test_the_order_box_example_in_a_retreat_phase_is_a_retreat(site: Site) -> None:
    from websupport import START

    v = load_variant("standard")
    position = {
        "phase": "Spring 1901 Retreats",
        "units": [{"power": "France", "unit": "A bur"}, {"power": "Germany", "unit": "A par"}],
        "supply_centers": {"France": ["bre", "mar"], "Germany": ["ber", "kie", "mun", "par"]},
        "home_centers": {p: sorted(v.map.provinces[h].abbr for h in hs) for p, hs in v.start.homes.items()},
        "dislodged": [{"power": "France", "unit": "A par", "retreats": ["gas", "pic"], "attacker_from": "bur"}],
    }
    store_games.create_game(site.web.store, "r", "standard", now=START, position=position)
    page = site.player("r", "France").get("/games/r/play/France").text
    assert _placeholder(page).splitlines() == ["A Paris R Gascony"], _placeholder(page)


# --------------------------------------------------------------------------------------------------
# A refused submission keeps the text


def test_a_refused_submission_shows_the_page_again_with_the_text_and_every_line(site: Site) -> None:
    site.new_game("demo")
    france = site.player("demo", "France")
    r = site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303
    typed = "A Paris - Burgandy\nF Brest - Picardy\nA Marseilles - Spain"
    r = site.post_form(france, "/games/demo/play/France/orders", {"orders": typed, "phase": "Spring 1901 Movement"})
    assert r.status_code == 400, r.text
    page = r.text
    assert "Not recorded:" in page and "Spring 1901 Movement" in page and "Fall 1901 Movement" in page
    assert ">A Paris - Burgandy\nF Brest - Picardy\nA Marseilles - Spain</textarea>" in page
    assert "no province &#39;Burgandy&#39;" in page  # each line's verdict against the phase open now
    assert page.count('<li class="ok">') == 2 and page.count('<li class="bad">') == 1, page
    assert france.get("/api/games/demo/powers/France").json()["versions"] == []  # nothing stored

    # Text the web refuses as it stands (a NUL): 400, the page again, nothing stored.
    r = site.post_form(france, "/games/demo/play/France/orders", {"orders": "A par - bur\x00"})
    assert r.status_code == 400 and "Not recorded:" in r.text and "not text" in r.text
    assert france.get("/api/games/demo/powers/France").json()["versions"] == []


# --------------------------------------------------------------------------------------------------
# Refusals on the web say what to do on the web


def test_refusals_on_the_desk_name_the_web_way_not_a_command(site: Site) -> None:
    import json

    site.new_game("demo")
    site.seat("demo", "France", "Bruno")
    r = site.post_form(site.coordinator, "/games/demo/coordinate/assign", {"power": "France", "player": "Anna"})
    assert r.status_code == 400 and "dippouch players" not in r.text, r.text
    assert "use Replace on the game&#39;s coordinator page" in r.text
    r = site.post_form(site.coordinator, "/games/demo/coordinate/email", {"power": "Italy", "email": "i@example.org"})
    assert r.status_code == 400 and "seat a player first (Seat, on the game&#39;s coordinator page)" in r.text, r.text
    # The API says the same.
    r = site.api(site.coordinator, "/api/games/demo/players", {"power": "France", "player": "Anna"})
    assert r.status_code == 400 and "`dippouch" not in r.json()["error"] and "Replace" in r.json()["error"]
    # Importing under a name in use.
    data = site.coordinator.get("/api/games/demo/export").json()
    r = site.coordinator.post(
        "/coordinate/import",
        data={"csrf": site.csrf(site.coordinator)},
        files={"file": ("demo.json", json.dumps(data), "application/json")},
        follow_redirects=False,
    )
    assert r.status_code == 400 and "--name" not in r.text and "the form&#39;s &#34;As name&#34;" in r.text, r.text


# --------------------------------------------------------------------------------------------------
# Confirmations


def test_process_now_asks_first_and_does_nothing_until_confirmed(site: Site) -> None:
    site.new_game("demo")
    site.player("demo", "France")
    r = site.post_form(site.coordinator, "/games/demo/coordinate/process")
    assert r.status_code == 200 and "Process Spring 1901 Movement now?" in r.text
    assert 'name="confirm" value="yes"' in r.text and "No orders yet from" in r.text
    assert site.browser().get("/api/games/demo").json()["phase"] == "Spring 1901 Movement"  # not processed
    r = site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303 and "Processed Spring 1901 Movement" in _flash(r)
    assert site.browser().get("/api/games/demo").json()["phase"] == "Fall 1901 Movement"


def test_roll_back_asks_first_and_does_nothing_until_confirmed(site: Site) -> None:
    site.new_game("demo")
    site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    r = site.post_form(site.coordinator, "/games/demo/coordinate/rollback", {"phase": "Spring 1901 Movement"})
    assert r.status_code == 200 and "Roll back to Spring 1901 Movement?" in r.text
    assert '<input type="hidden" name="phase" value="Spring 1901 Movement">' in r.text
    assert site.browser().get("/api/games/demo").json()["phase"] == "Fall 1901 Movement"  # not rolled back
    r = site.post_form(site.coordinator, "/games/demo/coordinate/rollback", {"phase": "Spring 1901", "confirm": "yes"})
    assert r.status_code == 303 and "Rolled back to Spring 1901 Movement" in _flash(r)
    assert site.browser().get("/api/games/demo").json()["phase"] == "Spring 1901 Movement"
    # A phase that does not exist is refused on the confirmation already.
    r = site.post_form(site.coordinator, "/games/demo/coordinate/rollback", {"phase": "Summer 1901"})
    assert r.status_code == 400


def test_the_desk_s_roll_back_list_says_the_phases_in_the_reader_s_language_the_last_before_the_open_one_chosen(
    site: Site,
) -> None:
    """The list showed the phases' English names on a German desk, and chose the game's first phase."""
    from dippouch.i18n import phase_words

    site.new_game("demo")
    for _ in range(2):
        site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    open_phase = site.browser().get("/api/games/demo").json()["phase"]
    page = site.coordinator.get("/games/demo/coordinate", headers={"Accept-Language": "de"}).text
    listed = re.search(r'<select name="phase">(.*?)</select>', page, re.S)
    assert listed, page[:500]
    options = re.findall(r'<option value="([^"]+)"( selected)?>([^<]+)</option>', listed.group(1))
    names = [value for value, _, _ in options]
    assert names[0] == "Spring 1901 Movement" and names[-1] == open_phase and len(names) == 3, options
    assert [label for _, _, label in options] == [phase_words(n, "de") for n in names]
    assert all(label != value for value, _, label in options), "a phase left in English"
    assert [value for value, chosen, _ in options if chosen] == [names[-2]]


def test_a_german_desk_is_asked_and_told_of_processing_and_rolling_back_with_german_phase_names(site: Site) -> None:
    """The confirmations, and what was done, named the phases in English on a German desk (and the processing's
    receipt was English whole)."""
    german = {"Accept-Language": "de"}
    site.new_game("demo")
    r = site.post_form(site.coordinator, "/games/demo/coordinate/process", headers=german)
    assert "Frühjahr 1901 Bewegung jetzt auswerten?" in html.unescape(r.text), r.text[:300]
    r = site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"}, headers=german)
    assert _flash(r).startswith("Frühjahr 1901 Bewegung ausgewertet."), _flash(r)
    r = site.post_form(
        site.coordinator, "/games/demo/coordinate/rollback", {"phase": "Spring 1901 Movement"}, headers=german
    )
    page = html.unescape(r.text)
    assert "Auf Frühjahr 1901 Bewegung zurücksetzen?" in page and "Spring 1901" not in page.split("<form")[0]
    r = site.post_form(
        site.coordinator,
        "/games/demo/coordinate/rollback",
        {"phase": "Spring 1901 Movement", "confirm": "yes"},
        headers=german,
    )
    assert _flash(r).startswith("Zurückgesetzt auf Frühjahr 1901 Bewegung;"), _flash(r)


def test_revoke_asks_first_and_the_link_works_until_confirmed(site: Site) -> None:
    site.new_game("demo")
    key = site.seat("demo", "France", "Bruno")
    france = site.browser(key)
    kid = next(k.id for k in site.web.access.keys("demo") if k.power == "France")
    r = site.post_form(site.coordinator, "/games/demo/coordinate/revoke", {"key": str(kid)})
    assert r.status_code == 200 and f"Revoke key {kid}?" in r.text and "France&#39;s player (Bruno)" in r.text
    assert france.get("/games/demo/play/France").status_code == 200  # still works
    r = site.post_form(site.coordinator, "/games/demo/coordinate/revoke", {"key": str(kid), "confirm": "yes"})
    assert r.status_code == 303
    assert france.get("/games/demo/play/France").status_code == 403
    # Another power's session cannot even ask for the confirmation page.
    italy = site.player("demo", "Italy")
    assert site.post_form(italy, "/games/demo/coordinate/revoke", {"key": str(kid)}).status_code == 403


# --------------------------------------------------------------------------------------------------
# Draws


def test_w3k_draw_votes_that_cannot_count_are_refused_with_the_rule_and_the_page_says_so(site: Site) -> None:
    """Ten W3K powers voted for a draw at the start, and nothing happened, with nothing said: a draw there is
    only between kingdoms. A yes that cannot count is refused with the rule's words, nothing recorded; the
    page says no draw is possible now and why, instead of offering the vote."""
    site.new_game("w", variant="w3k")
    v = load_variant("w3k")
    clients = {p: site.player("w", p) for p in v.power_names}
    for p, c in clients.items():
        r = site.api(c, f"/api/games/w/powers/{p}/vote", {"draw": True})
        assert r.status_code == 400, r.text
        assert "A draw is only between kingdoms" in r.json()["error"] and "not recorded" in r.json()["error"]
    game = site.browser().get("/api/games/w").json()
    assert game["state"] == "active" and not any(p["draw_vote"] for p in game["powers"])
    assert game["draw"]["possible"] is False and "both capitals of one kingdom" in game["draw"]["why_not"]
    page = clients["Crown"].get("/games/w/play/Crown").text
    assert "No draw is possible now:" in page and "Vote for a draw" not in page
    assert "A draw needs every surviving power&#39;s vote" not in page


def test_a_w3k_draw_between_kingdoms_passes_when_all_vote(site: Site) -> None:
    from websupport import START

    v = load_variant("w3k")
    position = {
        "phase": "Summer 1650 Movement",
        "units": [{"power": "Crown", "unit": "A oxf"}, {"power": "Argyll", "unit": "A arg"}],
        "supply_centers": {"Crown": ["lon", "yor"], "Argyll": ["edi", "gls"]},
        "home_centers": {p: [] for p in v.power_names},
    }
    store_games.create_game(site.web.store, "k", "w3k", now=START, position=position)
    crown, argyll = site.player("k", "Crown"), site.player("k", "Argyll")
    r = site.api(crown, "/api/games/k/powers/Crown/vote", {"draw": True})
    assert r.status_code == 200 and r.json()["ending"] is None
    page = argyll.get("/games/k/play/Argyll").text
    assert "Not voted yes yet: Argyll." in page  # public ballot: who has not voted yes
    assert "Draw proposed: still needs Argyll." in site.browser().get("/games/k").text
    r = site.api(argyll, "/api/games/k/powers/Argyll/vote", {"draw": True})
    assert r.status_code == 200 and r.json()["ending"].startswith("Draw agreed and shared by Crown, Argyll"), r.json()
    assert site.browser().get("/api/games/k").json()["state"] == "finished"


def test_a_secret_ballot_shows_a_vote_to_its_voter_only_until_the_phase_is_processed(site: Site) -> None:
    site.new_game("s", secret_ballot="on")
    france = site.player("s", "France")
    germany = site.player("s", "Germany")
    italy_key = site.seat("s", "Italy", "Ines")
    r = site.post_form(france, "/games/s/play/France/vote", {"draw": "yes"})
    assert r.status_code == 303
    # The voter sees their vote.
    mine = france.get("/games/s/play/France").text
    assert "You vote for a draw (only you see this" in mine and "Vote against the draw" in mine
    assert france.get("/api/games/s/powers/France").json()["me"]["draw_vote"] is True
    # Nobody else does: not the public page or API, not another power, not the coordinator, not the export.
    for who in (site.browser(), germany, site.coordinator):
        game = who.get("/api/games/s").json()
        assert not any(p["draw_vote"] for p in game["powers"]), game["powers"]
        assert game["draw"]["missing"] is None and game["draw"]["missing_count"] == 6
        assert "France" not in who.get("/games/s").text.split("Draw proposed:")[1].split("</p>")[0]
        assert who.get("/api/games/s/export").json()["votes"] == []
    page = germany.get("/games/s/play/Germany").text
    assert "6 more yes votes needed" in page and "You vote for a draw" not in page
    # Another power's session and API key cannot read France's page.
    assert germany.get("/api/games/s/powers/France").status_code == 403
    assert germany.get("/games/s/play/France").status_code == 403
    bearer = site.browser()
    r = bearer.get("/api/games/s/powers/France", headers={"Authorization": f"Bearer {italy_key}"})
    assert r.status_code == 403
    r = bearer.get("/api/games/s", headers={"Authorization": f"Bearer {italy_key}"})
    assert not any(p["draw_vote"] for p in r.json()["powers"])
    # Moving the game on purpose (the coordinator, unsealed) keeps the votes.
    assert [
        v["power"]
        for v in site.api(site.coordinator, "/api/games/s/export", {"reason": "moving the game"}).json()["votes"]
    ] == ["France"]
    # Once the phase is processed, the vote is revealed.
    site.clock.advance(hours=1)
    site.post_form(site.coordinator, "/games/s/coordinate/process", {"confirm": "yes"})
    game = site.browser().get("/api/games/s").json()
    assert [p["power"] for p in game["powers"] if p["draw_vote"]] == ["France"]
    # The draw lapsed with its phase: France's page offers a new vote, not the old one as standing.
    mine = france.get("/games/s/play/France").text
    assert "You vote for a draw" not in mine and "Vote for a draw" in mine


def test_votes_are_public_by_default(site: Site) -> None:
    site.new_game("p")
    france = site.player("p", "France")
    site.post_form(france, "/games/p/play/France/vote", {"draw": "yes"})
    game = site.browser().get("/api/games/p").json()
    assert [p["power"] for p in game["powers"] if p["draw_vote"]] == ["France"]
    assert game["draw"]["missing"] == ["Austria", "England", "Germany", "Italy", "Russia", "Turkey"]


# --------------------------------------------------------------------------------------------------
# Seating many players at once, links mailed


def _seat_form(rows: dict[str, tuple[str, str]]) -> dict[str, str]:
    form: dict[str, str] = {}
    for power, (player, email) in rows.items():
        form[f"player:{power}"] = player
        form[f"email:{power}"] = email
    return form


def test_seating_several_players_at_once_mails_their_links(
    site: Site,
    smtp: SmtpServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dippouch.mail.outbox import send_due

    for k, val in {
        "DIPPOUCH_SMTP_HOST": smtp.host,
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": "orders@w3k.example",
    }.items():
        monkeypatch.setenv(k, val)
    monkeypatch.delenv("DIPPOUCH_MAIL_CONFIG", raising=False)
    site.new_game("w", variant="w3k")
    desk = site.coordinator.get("/games/w/coordinate").text
    assert 'id="seat-many"' in desk and 'name="player:Crown"' in desk and 'name="email:Argyll"' in desk
    rows = {
        "Crown": ("Carl", "carl@example.org"),
        "Argyll": ("Ada", "ada@example.org"),
        "Ormond": ("Olaf", ""),
        "Hamilton": ("", ""),
    }
    r = site.post_form(site.coordinator, "/games/w/coordinate/seat-many", _seat_form(rows))
    assert r.status_code == 200, r.text
    links = dict(
        re.findall(r'value="(http://testserver/k/dp_[\w-]+)" aria-label="(\w[\w ]*)(?:\'|&#39;)s link"', r.text)
    )
    by_power = {p: link for link, p in links.items()}
    assert set(by_power) == {"Crown", "Argyll", "Ormond"}, r.text
    assert r.text.count(">queued<") == 2 and "no address" in r.text and "not configured" not in r.text
    # Each link signs its player in.
    assert site.browser(by_power["Argyll"].rsplit("/", 1)[1]).get("/games/w/play/Argyll").status_code == 200
    players = {p["power"]: p["player"] for p in site.coordinator.get("/api/games/w/coordinate").json()["players"]}
    assert players["Crown"] == "Carl" and players["Ormond"] == "Olaf" and players["Hamilton"] is None
    # The outbox sends them: a real SMTP server receives each link at its address.
    report = send_due(site.web.store, site.clock())
    assert len(report.sent) == 2, report
    for power, addr in (("Crown", "carl@example.org"), ("Argyll", "ada@example.org")):
        (msg,) = smtp.to(addr)
        assert by_power[power] in msg.get_content() and power in str(msg["Subject"])


def test_why_mail_cannot_be_sent_is_said_in_the_reader_s_language_on_every_page_that_says_it(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reason was English inside German sentences (the desk, the seating, the mail setup, the outbox)."""
    for k in ("DIPPOUCH_SMTP_HOST", "DIPPOUCH_MAIL_FROM", "DIPPOUCH_MAIL_CONFIG"):
        monkeypatch.delenv(k, raising=False)
    german = {"Accept-Language": "de"}
    site.new_game("demo")
    pages = {
        "desk": site.coordinator.get("/games/demo/coordinate", headers=german).text,
        "mail setup": site.coordinator.get("/coordinate/mail", headers=german).text,
        "outbox": site.coordinator.get("/coordinate/outbox", headers=german).text,
        "seated": site.post_form(
            site.coordinator,
            "/games/demo/coordinate/seat-many",
            _seat_form({"France": ("Bruno", "bruno@example.org")}),
            headers=german,
        ).text,
    }
    for page, text in pages.items():
        assert "kein SMTP-Server ist eingerichtet" in text or "Kein SMTP-Server ist eingerichtet" in text, page
        assert "no SMTP server" not in text, page
    coordinate = site.coordinator.get("/api/games/demo/coordinate").json()  # the API: English, as programs read
    assert coordinate["mail_unavailable"].startswith("no SMTP server is configured")


def test_seating_many_says_when_mail_is_not_configured_and_refuses_mistakes_whole(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k in ("DIPPOUCH_SMTP_HOST", "DIPPOUCH_MAIL_FROM", "DIPPOUCH_MAIL_CONFIG"):
        monkeypatch.delenv(k, raising=False)
    site.new_game("demo")
    assert "Mail is not configured on this server" in site.coordinator.get("/games/demo/coordinate").text
    rows = {"France": ("Bruno", "bruno@example.org"), "Italy": ("Ines", "")}
    r = site.post_form(site.coordinator, "/games/demo/coordinate/seat-many", _seat_form(rows))
    assert r.status_code == 200 and "Mail is not configured on this server, so no link was mailed" in r.text
    assert "not mailed" in r.text and r.text.count("/k/dp_") == 2
    # A mistake in one row seats nobody.
    rows = {"Germany": ("Gerd", "not-an-address"), "Russia": ("Rita", "")}
    r = site.post_form(site.coordinator, "/games/demo/coordinate/seat-many", _seat_form(rows))
    assert r.status_code == 400 and "Germany" in r.text
    players = {p["power"]: p["player"] for p in site.coordinator.get("/api/games/demo/coordinate").json()["players"]}
    assert players["Russia"] is None and players["Germany"] is None
    # Only a coordinator may.
    france = site.browser(site.seat("demo", "Austria", "Anna"))
    assert (
        site.post_form(france, "/games/demo/coordinate/seat-many", _seat_form({"Turkey": ("T", "")})).status_code == 403
    )


def test_draw_refusal_and_secret_ballot_on_sqlite_and_postgresql(db_url: str) -> None:
    site = Site(db_url)
    site.new_game("w", variant="w3k")
    crown = site.player("w", "Crown")
    r = site.api(crown, "/api/games/w/powers/Crown/vote", {"draw": True})
    assert r.status_code == 400 and "only between kingdoms" in r.json()["error"]
    site.new_game("s", secret_ballot="on")
    france = site.player("s", "France")
    assert site.api(france, "/api/games/s/powers/France/vote", {"draw": True}).status_code == 200
    assert not any(p["draw_vote"] for p in site.browser().get("/api/games/s").json()["powers"])
    assert france.get("/api/games/s/powers/France").json()["me"]["draw_vote"] is True
    site.clock.advance(hours=1)
    site.post_form(site.coordinator, "/games/s/coordinate/process", {"confirm": "yes"})
    assert [p["power"] for p in site.browser().get("/api/games/s").json()["powers"] if p["draw_vote"]] == ["France"]
