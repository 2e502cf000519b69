"""A fog-of-war game (issue 58): no door of the web shows a unit outside the reader's sight while it runs, and
the whole game is shown once it has ended.

The routes are read off the app's own table (as the route fuzz reads them), so a page or JSON call of a game
added tomorrow is asked too: every GET route whose address names the game is asked at every real address
(each phase, each map view, the player's own power), by a visitor, who must see no unit at all, and by
France's player, who must see only what France's units and centres see (:mod:`dippouch.core.sight`). A unit
is looked for the ways the doors write one: the map's ``id="unit-..."``, the game file's and the API's
``A mos``, the pages' and reports' ``Army Moscow``.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from contextlib import nullcontext
from datetime import UTC, date, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute

from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.core.position import Unit
from dippouch.core.sight import sight
from dippouch.core.variant import Variant
from dippouch.game import GameError, GameSettings, position_from_data
from dippouch.mail.intake import take_in
from dippouch.mail.ocr import confirm, proposals
from dippouch.notify import summary as notify_summary
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.mail.photos import record_reading
from dippouch.store.people import absences
from dippouch.store.people.persons import create_person, seat_person
from dippouch.web.http.security import SESSION_COOKIE
from dippouch.web.views.games import MAP_VIEWS, board_url, kind_name
from dippouch.worker.service import process_due
from photosupport import photo
from websupport import Site, json_routes, page_routes

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

GAME = "fg"
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
ME = "France"

SPRING = {
    "France": "A par - bur\nA mar - spa\nF bre - mao",
    "Russia": "A mos - ukr\nF sev - bla\nA war - gal\nF stp/sc - bot",
    "Germany": "A mun - ruh\nF kie - hol\nA ber - kie",
    "England": "F lon - nth\nF edi - nwg\nA lvp - yor",
}
FALL = {
    "France": "A bur - bel\nA spa - por\nF mao - bre",
    "Russia": "A ukr - rum\nF bla - ank",
    "England": "F nth - nwy",
}


def _process(site: Site, orders: dict[str, str]) -> None:
    store, now = site.web.store, site.clock()
    for power, text in orders.items():
        store_submissions.submit(store, GAME, power, text, now=now)
    store_processing.process(store, GAME, now=now, force=True)
    site.web.touched(GAME)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    path: Path = tmp_path_factory.mktemp("fog") / "fog.db"
    s = Site(f"sqlite:///{path}", limits={})
    s.new_game(GAME, fog="on")
    for p in POWERS:
        store_games.assign(s.web.store, GAME, p, f"{p} Player", now=s.clock())
    _process(s, SPRING)
    _process(s, FALL)  # Winter 1901 Adjustments is open: three phases behind it
    return s


def _browser(site: Site, power: str | None) -> TestClient:
    if power is None:
        return site.browser()
    secret = site.web.access.create_key("player", game=GAME, power=power, now=site.clock())[1]
    return site.browser(secret)


def _units_everywhere(site: Site) -> tuple[Variant, list[tuple[Unit, bool]]]:
    """Every unit of every position of the game, each with whether France ever saw it (in any phase)."""
    v = site.web.variant_of(GAME)
    seen: set[Unit] = set()
    every: set[Unit] = set()
    for h in site.web.access.phases(GAME):
        for data in (h.position, h.next_position):
            if data is None:
                continue
            pos = position_from_data(v, data)
            every |= set(pos.units.values()) | {d.unit for d in pos.dislodged.values()}
            s = sight(v, pos, ME)
            seen |= set(s.units.values()) | {d.unit for d in s.dislodged.values()}
    return v, [(u, u in seen) for u in sorted(every, key=lambda u: (u.power, u.loc))]


def _finder(v: Variant, units: list[Unit]) -> re.Pattern[str]:
    """One pattern finding any of ``units`` the ways a door writes a unit (a page is read once, however many
    units are looked for): the map's ``id="unit-mos"``, the API's ``A mos``, the words' ``Army Moscow`` and the
    check's ``A Moscow``."""
    m = v.map

    def alt(words: set[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))

    abbrs = {m.provinces[m.province_of(u.loc)].abbr for u in units}
    by_kind: dict[str, set[str]] = {}
    named: dict[str, set[str]] = {}
    for u in units:
        by_kind.setdefault(u.kind, set()).update(
            (m.provinces[m.province_of(u.loc)].abbr, m.provinces[m.province_of(u.loc)].name)
        )
        named.setdefault(kind_name(u.kind), set()).add(m.locations[u.loc].name)
    short = "|".join(f"{k} (?:{alt(a)})" for k, a in by_kind.items())
    long = "|".join(f"{k} (?:{alt(n)})" for k, n in named.items())
    pattern = rf'id="(?:unit|dislodged)-(?:{alt(abbrs)})\b|(?<![\w-])(?:{short})(?![\w])|\b(?:{long})\b'
    return re.compile(pattern, re.I)


def _shown(text: str, finder: re.Pattern[str]) -> str | None:
    hit = finder.search(text)
    return None if hit is None else text[max(0, hit.start() - 80) : hit.end() + 80]


def _addresses(site: Site, power: str) -> Iterator[str]:
    """Every GET address of the game's routes at its real values (a value the site has none of: 1)."""
    phases = [h.id for h in site.web.access.phases(GAME)]
    board = board_url(site.web, GAME)
    digest = board.rsplit("board-", 1)[1].removesuffix(".svg") if board else "x"
    values: dict[str, list[str]] = {
        "name": [GAME],
        "phase_id": [str(p) for p in phases],
        "view": list(MAP_VIEWS),
        "power": [power],
        "digest": [digest],
        "fmt": ["gif"],
    }
    routes: list[APIRoute] = [*json_routes(), *page_routes()]
    for r in routes:
        if (
            "GET" not in (r.methods or set())
            or "{name}" not in r.path
            or not r.path.startswith(("/games/", "/api/games/"))
        ):
            continue
        addresses = [r.path]
        for param in re.findall(r"{(\w+)}", r.path):
            choices = values.get(param, ["1"])
            addresses = [a.replace("{" + param + "}", c, 1) for a in addresses for c in choices]
        yield from (a for a in addresses if not a.endswith(SKIPPED))
        if r.path == "/games/{name}/map.svg":
            yield from (f"/games/{GAME}/map.svg?phase={p}" for p in phases)


TEXT = ("text/", "application/json", "image/svg+xml")

SKIPPED = (".png", ".pdf", "/press-events")
"""Addresses not read: the pictures and PDFs made of the SVG maps read here (the same drawing, rasterised), and
the press's event stream (it stays open, and carries letters, never the board)."""


def _read(c: TestClient, address: str) -> str | None:
    r = c.get(address)
    assert r.status_code < 500, (address, r.status_code, r.text[:300])
    kind = r.headers.get("content-type", "")
    if r.status_code >= 300 or not kind.startswith(TEXT):
        return None
    return str(r.text)


_COUNTED_ROW = re.compile(
    r'class="power-name">(?P<power>[^<\s]+)(?:(?!</tr>).)*?</td>\s*<td class="num">(?P<centres>\d+)</td>', re.S
)
"""A row of the pages' table of powers that shows a number of centres (a hidden count is shown as '?')."""


def _counts_told(text: str, sight: frozenset[str]) -> str | None:
    """Where ``text`` tells how many units or centres a power outside ``sight`` has, or whether it has orders to
    give (in a retreat or adjustment phase: who was dislodged, who builds): any JSON object naming such a power
    with a number of units or centres or an order status, the pages' table of powers. A power out of the game
    may show its zeros (its elimination is public)."""
    for m in _COUNTED_ROW.finditer(text):
        if m["power"] not in sight and m["centres"] != "0":
            return text[max(0, m.start() - 80) : m.end() + 40]
    if not text.lstrip().startswith(("{", "[")):
        return None
    found: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            power, units, centres = x.get("power"), x.get("units"), x.get("centres")
            counts = [v for v in (units, centres) if isinstance(v, int) and not isinstance(v, bool)]
            status = [x[k] for k in ("must_act", "submitted", "ready") if x.get(k) is not None]
            if isinstance(power, str) and power not in sight and (counts or status) and (units, centres) != (0, 0):
                found.append(str(x))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads(text))
    return found[0] if found else None


def test_no_door_shows_a_visitor_any_unit_while_the_game_runs(site: Site) -> None:
    v, units = _units_everywhere(site)
    c = _browser(site, None)
    every = _finder(v, [u for u, _ in units])
    read = 0
    for address in _addresses(site, ME):
        text = _read(c, address)
        if text is None:
            continue
        read += 1
        leak = _shown(text, every)
        assert leak is None, f"{address} shows a unit to a visitor: ...{leak}..."
        told = _counts_told(text, frozenset())
        assert told is None, f"{address} tells a visitor a power's counts: {told}"
    assert read >= 8  # the game page, its JSON, its phases and their maps answered
    assert 'id="fog"' in c.get(f"/games/{GAME}").text  # the page says why the board is empty


def test_no_door_shows_a_player_a_unit_outside_their_sight(site: Site) -> None:
    v, units = _units_everywhere(site)
    hidden = [u for u, saw in units if not saw]
    mine = [u for u, _ in units if u.power == ME]
    assert len(hidden) >= 10 and mine
    # Russia's player reads every door first: what is kept for one reader (pages, maps, reports, turns) must never
    # be handed to another, who sees otherwise.
    russia = _browser(site, "Russia")
    for address in _addresses(site, "Russia"):
        _read(russia, address)
    c = _browser(site, ME)
    unseen, own = _finder(v, hidden), _finder(v, mine)
    own_shown = 0
    for address in _addresses(site, ME):
        text = _read(c, address)
        if text is None:
            continue
        leak = _shown(text, unseen)
        assert leak is None, f"{address} shows {ME} a unit out of its sight: ...{leak}..."
        told = _counts_told(text, frozenset({ME}))
        assert told is None, f"{address} tells {ME} another power's counts: {told}"
        own_shown += _shown(text, own) is not None
    # The fog hides what it must, not everything: France's own units are on its pages, maps and reports.
    assert own_shown >= 5


def test_a_player_sees_what_their_units_see_on_their_page(site: Site) -> None:
    """France's page draws France's units and the units next to them, but no unit far away."""
    c = _browser(site, ME)
    page = c.get(f"/games/{GAME}/play/{ME}").text
    assert 'id="unit-bel"' in page and 'id="unit-por"' in page  # its own armies, after the Fall
    assert 'id="unit-ank"' not in page and 'id="unit-rum"' not in page  # Russia's, far in the east
    # What France does not see is greyed, what it sees is not: an empty grey province may hold anything.
    assert re.search(r'id="r-mos"[^>]*class="region [a-z]+ fogged"', page)
    assert re.search(r'id="r-bel"[^>]*class="region [a-z]+"', page)
    board = c.get(f"/api/games/{GAME}").json()["board"]
    shown = {b["power"]: b["units"] for b in board}
    assert "Army Belgium" in shown[ME] and not shown["Russia"] and not shown["Turkey"]


def test_the_doors_that_show_the_whole_game_are_shut_until_the_end(site: Site) -> None:
    for power in (None, ME):
        c = _browser(site, power)
        for address in (
            f"/games/{GAME}/replay",
            f"/api/games/{GAME}/replay",
            f"/games/{GAME}/export.json",
            f"/api/games/{GAME}/export",
            f"/api/games/{GAME}/records",
        ):
            r = c.get(address)
            assert r.status_code == 403 and "fog of war" in r.text, (address, r.status_code)


def test_after_the_end_everyone_sees_the_whole_game(tmp_path: Path) -> None:
    s = Site(f"sqlite:///{tmp_path / 'ended.db'}", limits={})
    s.new_game(GAME, fog="on")
    for p in POWERS:
        store_games.assign(s.web.store, GAME, p, f"{p} Player", now=s.clock())
    _process(s, SPRING)
    visitor = _browser(s, None)
    assert "Army Ukraine" not in visitor.get(f"/api/games/{GAME}").text
    for p in POWERS:
        store_votes.vote(s.web.store, GAME, p, True, now=s.clock())
    s.web.touched(GAME)
    game = visitor.get(f"/api/games/{GAME}").json()
    assert game["state"] == "finished" and not game.get("fog")
    assert any("Army Ukraine" in b["units"] for b in game["board"])
    assert {p["power"]: p["units"] for p in game["powers"]}["Russia"] == 4  # the counts are told again
    replay = visitor.get(f"/api/games/{GAME}/replay")
    assert replay.status_code == 200
    pictures = [f["picture"] for f in replay.json()["frames"] if f.get("picture")]
    assert pictures and any('id="unit-ukr"' in visitor.get(u).text for u in pictures)
    assert visitor.get(f"/api/games/{GAME}/export").status_code == 200


def _verdicts(answer: dict[str, Any]) -> list[Any]:
    """What the check says of each line, without the line as the player typed it (which names what they wrote)."""
    return [[ln.get(k) for k in ("error", "note", "code", "params")] for ln in answer["lines"]]


def test_the_line_check_and_the_receipt_tell_of_no_unit_out_of_sight(tmp_path: Path) -> None:
    """Checking or sending a support of a unit France cannot see answers as for an empty province: neither the
    verdict nor its suggestions tell that Munich holds an army (the arrival check reads France's sight; on the
    whole board, a support of London's fleet into Picardy is refused naming it)."""
    s = Site(f"sqlite:///{tmp_path / 'check.db'}", limits={})
    s.new_game(GAME, fog="on")
    for p in POWERS:
        store_games.assign(s.web.store, GAME, p, f"{p} Player", now=s.clock())
    fr = _browser(s, ME)
    v = s.web.variant_of(GAME)
    unseen = _finder(v, [u for u in v.start.units.values() if u not in set(sight(v, v.start, ME).units.values())])
    base = f"/api/games/{GAME}/powers/{ME}"
    for hidden_unit, empty in (
        ("A mun - bur", "A pic - bur"),
        ("F lon - pic", "F pic - bur"),
        ("A ber - bur", "A gas - bur"),
    ):
        told = _verdicts(s.api(fr, f"{base}/check", {"text": f"A par S {hidden_unit}"}).json())
        alike = _verdicts(s.api(fr, f"{base}/check", {"text": f"A par S {empty}"}).json())
        assert _shown(str(told), unseen) is None, told
        assert [t[0] is None for t in told] == [a[0] is None for a in alike], (told, alike)
    sent = s.api(fr, f"{base}/orders", {"text": "A par S A ber - bur\nA mar S F lon - pic"}).json()
    assert _shown(str(_verdicts(sent)), unseen) is None, sent


def test_a_sandbox_opened_from_a_fog_game_holds_only_what_its_opener_sees(site: Site) -> None:
    """The one door that copies a board by POST: a sandbox started from a phase of the game."""
    v, units = _units_everywhere(site)
    hidden = _finder(v, [u for u, saw in units if not saw])
    every = _finder(v, [u for u, _ in units])
    phase = site.web.access.phases(GAME)[0].id
    for power, finder in ((None, every), (ME, hidden)):
        c = _browser(site, power)
        r = site.api(c, "/api/sandbox", {"game": GAME, "phase_id": phase})
        assert r.status_code == 200, r.text
        told = str(r.json()["sandbox"])
        assert _shown(told, finder) is None, (power, _shown(told, finder))
        # Its page: the map's units (its help text names example orders, such as A lon - bel).
        drawn = re.findall(r'id="unit-([a-z]+)', c.get(r.json()["edit"]).text)
        assert not [a for a in drawn if _shown(f'id="unit-{a}"', finder)], (power, drawn)
    mine = _browser(site, ME)
    started = site.api(mine, "/api/sandbox", {"game": GAME, "phase_id": phase}).json()
    assert 'id="unit-par"' in mine.get(started["edit"]).text  # France's own army, where it stood


def test_a_coordinator_sees_the_whole_board_unless_they_play(site: Site) -> None:
    """The coordinator of a fog game referees it and sees everything; one who also plays (the creator of a
    player-run game) sees as the player they are, on the desk too, and may not open the game file unsealed to see
    more."""
    whole = site.coordinator.get(f"/api/games/{GAME}").json()
    assert {b["power"]: b["units"] for b in whole["board"]}["Russia"] and not whole.get("fog")
    now = site.clock()
    coordinates = site.web.access.create_key("coordinator", game=GAME, label="creator", now=now)[0]
    plays = site.web.access.create_key("player", game=GAME, power=ME, now=now)[0]
    both = site.browser()
    both.cookies.set(SESSION_COOKIE, site.web.access.start_session([coordinates, plays], now=now))
    both.get("/")
    seen = both.get(f"/api/games/{GAME}").json()
    assert seen["fog"] is True and not {b["power"]: b["units"] for b in seen["board"]}["Russia"]
    counts = {p["power"]: (p["units"], p["centres"], p["must_act"]) for p in seen["powers"]}
    assert counts["Russia"] == (None, None, None) and counts[ME] == (3, 5, True)
    assert {p["power"]: p["units"] for p in whole["powers"]}["Russia"] == 4
    r = site.api(both, f"/api/games/{GAME}/export", {"reason": "to see the board"})
    assert r.status_code == 403 and "fog of war" in r.text
    # After the deadline a coordinator reads the orders sent: one who plays, only their own power's.
    store_submissions.submit(site.web.store, GAME, "Russia", "Build A mos", now=site.clock())
    store_submissions.submit(site.web.store, GAME, ME, "Waive", now=site.clock())
    site.clock.advance(days=3)
    site.web.touched(GAME)
    desk = both.get(f"/api/games/{GAME}/coordinate").json()
    assert "submissions" in desk, desk
    for told in (json.dumps(desk), both.get(f"/games/{GAME}/coordinate").text):
        assert _counts_told(told, frozenset({ME})) is None, _counts_told(told, frozenset({ME}))
    texts = {s["power"]: s.get("text") for s in desk["submissions"]}
    assert "Russia" not in texts and texts[ME]  # nor whether Russia sent any: that it builds would tell its count
    whole_desk = site.coordinator.get(f"/api/games/{GAME}/coordinate").json()["submissions"]
    assert {s["power"]: s.get("text") for s in whole_desk}["Russia"] == "Build A mos"


def _sheet_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, fog: bool, read: str) -> list[str]:
    """What the coordinator's review is told of a photograph France mailed whose engine read ``read``: each
    line's verdict and suggestion, the proposed text and the refusals (the reading is stored as a reader would
    keep it: no OCR engine is needed to decide the lines)."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    store = GameStore(migrated_sqlite(tmp_path / f"{'fog' if fog else 'clear'}.db"))
    t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    store_games.create_game(store, GAME, "standard", now=t0, settings=GameSettings(fog=fog))
    store_games.assign(store, GAME, ME, "Jane Smith", now=t0, email="jane@example.org")
    m = EmailMessage()
    m["From"], m["Subject"] = "jane@example.org", f"{GAME} - {ME} - Spring 1901 Movement"
    m.set_content("")
    m.add_attachment(photo(["A par H"], seed=1), maintype="image", subtype="jpeg", filename="orders.jpg")
    assert take_in(store, m.as_bytes(), now=t0 + timedelta(days=1), received=t0 + timedelta(days=1)).status == "photo"
    after = t0 + timedelta(days=13)
    (sealed,) = proposals(store, GAME, now=after, run=False)
    record_reading(store, sealed.attachment_id, read, now=after)
    (p,) = proposals(store, GAME, now=after, run=False)
    told = [r.text for r in p.readings] + [p.text or ""]
    told += [say(ln.error, "en") for ln in p.lines if ln.error is not None]
    with pytest.raises(GameError) if not (p.text or "").strip() else nullcontext():
        confirm(store, p.attachment_id, now=after)  # what confirming applies is what was proposed
    return told


def test_the_photo_reader_suggests_no_unit_out_of_sight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A photographed line read against the whole board would be repaired into a support of Munich's army; in
    fog it is read against what France sees, as its arrival check reads it: no suggestion names the army."""
    v = load_variant("standard")
    hidden = _finder(v, [u for u in v.start.units.values() if u not in set(sight(v, v.start, ME).units.values())])
    read = "A par S A rnun - bur\nA rnar - spa"
    clear = _sheet_read(tmp_path, monkeypatch, fog=False, read=read)
    assert _shown("\n".join(clear), hidden) is not None, clear  # without fog the reader names Munich's army
    fogged = _sheet_read(tmp_path, monkeypatch, fog=True, read=read)
    assert _shown("\n".join(fogged), hidden) is None, fogged
    assert any("Marseilles - Spain" in t for t in fogged), fogged  # France's own orders are still read


def test_standing_orders_carried_for_an_absent_player_are_checked_on_their_sight(tmp_path: Path) -> None:
    """The absence policy 'standing' enters a version for a player away at the deadline: it is checked as the
    player's own orders are, on what France sees, and what the game page tells of it counts nothing. France's
    Spring support of Munich's army was seen from Burgundy; once that army has gone to Belgium, Munich is out
    of sight, so the carried support is refused as of no unit there (on the whole board it would stand and tell
    France the army is still in Munich)."""
    site = Site(f"sqlite:///{tmp_path / 'away.db'}", limits={})
    store = site.web.store
    t0 = datetime(2026, 8, 1, 12, 0, tzinfo=UTC)
    deadlines = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
    position = {
        "phase": "Spring 1901 Movement",
        "units": [
            {"power": ME, "unit": "A bur"},
            {"power": ME, "unit": "A mar"},
            {"power": "Germany", "unit": "A mun"},
        ],
        "supply_centers": {ME: ["mar"], "Germany": ["mun"]},
    }
    store_games.create_game(
        store, GAME, "standard", now=t0, settings=GameSettings(deadlines=deadlines, fog=True), position=position
    )
    pid = create_person(store, "Ann", now=t0)
    store_games.assign(store, GAME, ME, "Ann", now=t0)
    seat_person(store, GAME, ME, pid, now=t0)
    absences.set_absence_policy(store, GAME, "standing", now=t0)
    store_submissions.submit(store, GAME, ME, "A bur - bel\nA mar S A mun - bur", now=t0)
    process_due(store, now=t0 + timedelta(days=2, minutes=1))
    assert store_history.phase_record(store, GAME, "S1901M")["orders"][ME] == ["A bur - bel", "A mar S A mun - bur"]
    absences.record_absence(store, pid, date(2026, 8, 4), date(2026, 8, 6), now=t0)
    process_due(store, now=datetime(2026, 8, 5, 12, 2, tzinfo=UTC))
    (use,) = absences.absence_uses(store, GAME)
    assert use.policy == "standing" and use.detail["carried"] == [], use.detail
    assert "A mar S A mun - bur" not in store_history.phase_record(store, GAME, "F1901M")["orders"].get(ME, [])
    # What the game page's JSON and the absences' tell of it: neither how many orders nor how many units.
    site.web.touched(GAME)
    for door in (f"/api/games/{GAME}", f"/api/games/{GAME}/absences"):
        answer = site.browser().get(door).json()
        (applied,) = (answer.get("absences") or answer)["applied"]
        assert "standing orders were carried" in applied["text"] and not re.search(r"\d", applied["text"]), answer


def test_the_report_tells_no_count_or_change_of_centres_out_of_sight(site: Site) -> None:
    """France saw Munich from Burgundy in the Spring, not from Belgium after the Fall: that it no longer sees
    Germany's centre there is no change of owner. Nor is a centre it cannot see unowned, nor are the centres and
    units it saw of Germany all Germany has, so the adjustments name France's alone."""
    report = _browser(site, ME).get(f"/api/games/{GAME}").json()["last_report"]
    assert "Ownership of supply centres:" in report and "Adjustments for Winter 1901" in report, report
    assert "loses Munich" not in report, report
    unowned = report.split("Unowned:", 1)[1].split("\n\n", 1)[0]
    assert "Berlin" not in unowned and "Moscow" not in unowned, report
    adjustments = report.split("Adjustments for Winter 1901", 1)[1].split("\n\n", 1)[0]
    assert f"{ME}:" in adjustments and "Germany" not in adjustments and "Russia" not in adjustments, report
    whole = site.coordinator.get(f"/api/games/{GAME}").json()["last_report"]
    assert "Germany:" in whole.split("Adjustments for Winter 1901", 1)[1], whole  # the whole board tells all


def test_the_notification_of_a_phase_tells_a_power_its_own_centres_only(site: Site) -> None:
    """The short note a player is sent after a phase (notify/summary.py: their orders' results and the centres)
    names no other power's count in fog, as the game page does not."""
    fall = next(h.id for h in site.web.access.phases(GAME) if h.name == "Fall 1901 Movement")
    summary = notify_summary.read(site.web.store, GAME, fall)
    assert summary is not None
    told = summary.text(ME, "en")
    assert "You hold 5 supply centres." in told and "Everyone" not in told, told
    for other in POWERS:
        assert other == ME or other not in told, told
    assert "Sie halten 5 Versorgungszentren." in summary.text(ME, "de")


def test_text_beside_a_photograph_is_judged_on_the_senders_sight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mail's text beside a photograph is taken as orders only if it holds one that stands: read on the whole
    board, a support of Munich's army would stand (so Munich holds an army) where a support of an empty province
    would not. In fog it is read on France's sight, and both are ignored alike."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")

    def taken(fog: bool, body: str) -> bool:
        store = GameStore(migrated_sqlite(tmp_path / f"{fog}-{body.split()[4]}.db"))
        t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
        store_games.create_game(store, GAME, "standard", now=t0, settings=GameSettings(fog=fog))
        store_games.assign(store, GAME, ME, "Jane Smith", now=t0, email="jane@example.org")
        m = EmailMessage()
        m["From"], m["Subject"] = "jane@example.org", f"{GAME} - {ME} - Spring 1901 Movement"
        m.set_content(body)
        m.add_attachment(photo(["A par H"], seed=1), maintype="image", subtype="jpeg", filename="orders.jpg")
        # "accepted": the text was taken as the orders (the photograph set aside); "photo": the text ignored.
        return (
            take_in(store, m.as_bytes(), now=t0 + timedelta(days=1), received=t0 + timedelta(days=1)).status
            == "accepted"
        )

    army, empty = "A par S A mun - bur", "A par S A pic - bur"
    assert taken(False, army) and not taken(False, empty)  # the whole board tells them apart
    assert taken(True, army) == taken(True, empty) is False
