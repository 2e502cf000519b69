"""The way in for players (issue 55, the players' trial's item 9): /new-game was 43 radio rows in one list, 40 of
them "X, 2 days, the variant's press"; the open games' variant filter showed file names ("fiveman"); a visitor
on /new-game met a bare 401. Now the templates stand under their variant (its title, size and description, a
link to its rules and map), the filter names variants by their titles, and the visitor's refusal offers to sign
in and come back to /new-game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dippouch.catalog import variants_usable
from dippouch.play import openings as play_openings
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _person(site: Site, name: str) -> Any:
    pid = create_person(site.web.store, name, now=site.clock())
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def test_new_game_groups_its_templates_by_variant(site: Site) -> None:
    page = _person(site, "Ann").get("/new-game").text
    groups = re.findall(r'<fieldset class="variant-group" id="variant-([^"]+)"', page)
    variants = {t.variant for t in play_openings.templates()}
    assert sorted(groups) == sorted(variants) and len(groups) == len(set(groups)), groups
    assert len(groups) < len(play_openings.templates())
    # Each template is a row inside its own variant's group.
    for name in groups:
        block = page.split(f'id="variant-{name}"', 1)[1].split("</fieldset>", 1)[0]
        keys = re.findall(r'name="template" value="([^"]+)"', block)
        assert keys == [t.key for t in play_openings.templates() if t.variant == name], (name, keys)
    standard = page.split('id="variant-standard"', 1)[1].split("</fieldset>", 1)[0]
    assert "<legend>Standard Diplomacy</legend>" in standard or "<legend>Standard" in standard, standard[:300]
    assert "7 powers" in standard and 'href="/variants/standard"' in standard
    assert len(re.findall(r'name="template"[^>]* checked', page)) == 1


def test_the_open_games_variant_filter_names_variants_by_title(site: Site) -> None:
    page = _person(site, "Ann").get("/open").text
    select = page.split('<select name="variant">', 1)[1].split("</select>", 1)[0]
    titles = {v.name: v.title for v in variants_usable()[0]}
    assert '<option value="fiveman">Five-Man</option>' in select, select[:500]
    assert ">fiveman<" not in select
    assert f'<option value="w3k">{titles["w3k"]}</option>' in select
    # The filter still filters by the file's name, and keeps it chosen.
    chosen = site.browser().get("/open?variant=fiveman").text
    assert '<option value="fiveman" selected>Five-Man</option>' in chosen


def test_a_visitor_on_new_game_is_asked_to_sign_in_and_comes_back(site: Site) -> None:
    visitor = site.browser()
    r = visitor.get("/new-game")
    assert r.status_code == 401
    assert 'href="/signin?next=/new-game"' in r.text or 'href="/signin?next=%2Fnew-game"' in r.text, r.text
    assert "Sign in to go on" in r.text
    r = visitor.get("/signin?next=/new-game")
    assert r.status_code == 200 and "dp_next" in r.headers.get("set-cookie", ""), r.headers
