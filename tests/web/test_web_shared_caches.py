"""A submission from the player's page reuses what the page read: the phase's parsed position (one cache on the
database, shared by its reader, instead of one in the web and another in the store) and the game's variant
(kept while the hash of its stored copy stands, not only while no event is logged: seating a player logs one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.store import variant_copy
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("g")
    return s


def test_the_page_and_the_submission_parse_the_position_once(site: Site) -> None:
    france = site.player("g", "France")
    web = site.web
    assert web.store.positions is web.read.positions
    assert france.get("/games/g/play/France").status_code == 200
    (pid, (_, parsed)), *_ = web.read.positions.items()
    r = site.post_form(france, "/games/g/play/France/orders", {"orders": "A par - bur"})
    assert r.status_code == 303, r.text
    assert list(web.store.positions) == [pid] and web.store.positions[pid][1] is parsed


def test_the_variant_is_kept_across_a_seating(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    web = site.web
    v = web.variant_of("g")
    site.seat("g", "England", "Erin")  # logs an event: the marker's events change, the variant's hash does not
    web.touched("g")

    def no_read(db: object, name: str) -> None:
        raise AssertionError(f"the variant of {name} was read again")

    monkeypatch.setattr(variant_copy, "variant_of", no_read)
    assert web.variant_of("g") is v


def test_a_change_drops_the_game_page_in_every_language(site: Site) -> None:
    """The anonymous game page is kept once per language; a change to the game drops each of them at once."""
    for lang in ("en", "de", "fr"):
        r = site.browser().get("/games/g", headers={"Accept-Language": lang})
        assert r.status_code == 200
    kept = [k for k in site.web.pages if k[:2] == ("game", "g")]
    assert len(kept) == 3, kept
    site.web.touched("g")
    assert not [k for k in site.web.pages if k[:2] == ("game", "g")]


def test_the_pages_a_process_holds_are_bounded_and_let_go_whole(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process holds its visitors' pages within a bound of bytes (a page with its picture is some 56 KB held):
    past it every one is let go, and each is read again at its next reading; a change lets its game's pages go and
    counts them out."""
    from dippouch.web.http import service

    site.new_game("h")
    site.new_game("k")
    assert site.browser().get("/games/g").status_code == 200
    one = site.web.pages[("game", "g", "en")][3].size
    monkeypatch.setattr(service, "HELD_PAGE_BYTES", int(one * 2.5))
    for name in ("h", "g"):  # g again: held anew, not counted twice
        assert site.browser().get(f"/games/{name}").status_code == 200
    assert {k[1] for k in site.web.pages} == {"g", "h"}
    page = site.browser().get("/games/k")
    assert page.status_code == 200 and 'id="unit-par"' in page.text
    assert {k[1] for k in site.web.pages} == {"k"}  # past the bound: the others let go
    again = site.browser().get("/games/g")
    assert again.status_code == 200 and 'id="unit-par"' in again.text
    assert {k[1] for k in site.web.pages} == {"g", "k"}
    site.web.touched("k")
    site.browser().get("/games/h")
    assert {k[1] for k in site.web.pages} == {"g", "h"}  # k counted out: room for h


def test_the_submission_finds_the_variant_on_the_database(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page read the game's variant; the submission after it (and the processing) find it kept on the
    database, shared with its reader, without asking the catalogue again; a new copy (another hash) is built."""
    import dippouch.store.rows as rows

    france = site.player("g", "France")
    assert france.get("/games/g/play/France").status_code == 200
    assert site.web.store.variants is site.web.read.variants and site.web.store.variants
    asked: list[str] = []
    real = rows.built_variant  # type: ignore[attr-defined]

    def counted(digest: str, options: object = None) -> object:
        asked.append(digest)
        return real(digest, options)  # type: ignore[arg-type]

    monkeypatch.setattr(rows, "built_variant", counted)
    r = site.post_form(france, "/games/g/play/France/orders", {"orders": "A par - bur"})
    assert r.status_code == 303, r.text
    assert asked == []
    (gid, (digest, options, v)), *_ = site.web.store.variants.items()
    site.web.store.variants[gid] = ("another copy", options, v)  # as after `dippouch upgrade-variant`
    r = site.post_form(france, "/games/g/play/France/orders", {"orders": "A par - pic"})
    assert r.status_code == 303, r.text
    assert asked == [digest] and site.web.store.variants[gid][0] == digest
