"""A broken variant file in the user's folder is listed with its error; every other variant stays usable."""

from __future__ import annotations

from pathlib import Path

import pytest

from websupport import Site

BROKEN = """\
[variant]
name = "wrecked"
title = "Wrecked"
extends = "standard"

[powers.France]
home_centres = ["par", "nowhere"]
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    folder = tmp_path / "variants"
    folder.mkdir()
    (folder / "wrecked.toml").write_text(BROKEN, encoding="utf-8")
    (folder / "undrawn.toml").write_text(
        '[variant]\nname = "undrawn"\ntitle = "Undrawn"\nextends = "standard"\n', encoding="utf-8"
    )
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_a_broken_variant_file_leaves_the_desk_and_the_lists_working(site: Site) -> None:
    desk = site.coordinator.get("/coordinate")
    assert desk.status_code == 200, desk.text[:500]
    assert 'value="standard"' in desk.text and 'value="wrecked"' not in desk.text
    assert "wrecked" in desk.text and "nowhere" in desk.text  # named, with its problem

    page = site.browser().get("/variants")
    assert page.status_code == 200 and "Wrecked" not in page.text.split("do not load")[0]
    assert "nowhere" in page.text

    api = site.browser().get("/api/variants")
    assert api.status_code == 200
    rows = {row["name"]: row for row in api.json()}
    assert rows["standard"]["centres"] == 34
    assert rows["wrecked"]["broken"] is True and any("nowhere" in p for p in rows["wrecked"]["problems"])

    assert site.browser().get("/").status_code == 200
    site.new_game("still-works", variant="standard")
    assert site.browser().get("/api/games/still-works").json()["phase"] == "Spring 1901 Movement"


def test_a_variant_without_a_built_map_says_so_not_that_the_renderer_is_missing(site: Site) -> None:
    site.new_game("words", variant="undrawn")
    page = site.browser().get("/games/words").text
    assert "renderer is not installed" not in page
    assert "No picture of this variant&#39;s map has been built" in page or "No picture of this variant's map" in page


def test_the_board_file_of_a_variant_without_a_built_map_is_a_clear_404(site: Site) -> None:
    """The variant's board file (which the pages of a variant with a map draw over) of a variant without one:
    refused with the reason, in the reader's language; a variant that does not load is refused with its
    problem."""
    r = site.browser().get("/variants/undrawn/board-0000000000000000.svg")
    assert r.status_code == 404 and "geometry is missing" in r.text
    de = site.browser().get("/variants/undrawn/board-0000000000000000.svg", headers={"Accept-Language": "de"})
    assert de.status_code == 404 and "geometry is missing" not in de.text
    wrecked = site.browser().get("/variants/wrecked/board-0000000000000000.svg")
    assert wrecked.status_code == 400 and "nowhere" in wrecked.text


def test_every_door_refuses_a_map_that_cannot_be_drawn_with_one_message_said_in_the_reader_s_language(
    site: Site,
) -> None:
    """The game's map, its PDF, its board file, the variant's board file and its thumbnail of a variant without a
    built map: one refusal, the same English to a reader who asks in English and to the JSON API, German to a
    German reader (the thumbnail and the variant's board file said it in their own catalogue's words, left English
    where those had none)."""
    site.new_game("words", variant="undrawn")
    english = "no map can be drawn for this game yet"
    for path in (
        "/games/words/map.svg",
        "/games/words/map.pdf",
        "/games/words/board-0000000000000000.svg",
        "/variants/undrawn/board-0000000000000000.svg",
        "/variants/undrawn/thumbnail.png",
    ):
        en = site.browser().get(path)
        assert en.status_code == 404 and english in en.text, (path, en.text[:300])
        de = site.browser().get(path, headers={"Accept-Language": "de"})
        assert de.status_code == 404 and english not in de.text and "Karte" in de.text, (path, de.text[:300])
        api = site.browser().get(path, headers={"Accept": "application/json", "Accept-Language": "de"})
        assert api.status_code == 404 and english in api.json()["error"], (path, api.text[:300])
