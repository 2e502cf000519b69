"""docs/web.md's route map is the app's (issue 54): made again from the app's routers, it must be the table the
page shows, so a route added, moved or re-described without ``python -m dippouch.web.http.routemap`` fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import APIRouter

from dippouch.web.app import feature_routers
from dippouch.web.http.routemap import BEGIN, END, _first_sentence, route_map, with_map

DOC = Path(__file__).resolve().parents[2] / "docs" / "web.md"


def test_the_web_page_shows_the_apps_route_map() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert with_map(text, route_map()) == text, "docs/web.md's route map is stale: python -m dippouch.web.http.routemap"


def test_the_map_has_a_row_for_every_route_naming_its_module() -> None:
    rows = route_map().splitlines()[2:]
    routes = [r for router in feature_routers() for r in router.routes]
    assert len(rows) == len(routes) > 150
    assert "| GET, HEAD | `/games/{name}` | routes/games.py |" in route_map()  # a plain route answers HEAD too
    for row in rows:
        module = row.split(" | ")[2]
        assert module.startswith("routes/"), row
        assert (Path(__file__).resolve().parents[2] / "src" / "dippouch" / "web" / module).is_file(), row


def test_a_route_added_changes_the_map(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: one more route makes a different table, with the route's row last."""
    extra = APIRouter()

    @extra.get("/nowhere")
    def nowhere() -> None:
        """Answers nothing. Only for this test."""

    before = route_map()
    import dippouch.web.app as app

    monkeypatch.setattr(app, "feature_routers", lambda: (*feature_routers(), extra))
    after = route_map()
    assert after != before
    last = after.splitlines()[-1]
    assert last.startswith("| GET | `/nowhere` | ") and last.endswith(" | `nowhere` | Answers nothing. |")


def test_the_first_sentence_is_one_line_of_plain_markdown() -> None:
    doc = """A game's page (:mod:`dippouch.web.views.games`), with ``code`` | a pipe. Then more
    that the map leaves out.

    And a second paragraph."""
    assert _first_sentence(doc) == "A game's page (`dippouch.web.views.games`), with `code` \\| a pipe."
    assert _first_sentence(None) == ""


def test_a_page_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="markers"):
        with_map("# no map here\n", route_map())
    assert with_map(f"a\n{BEGIN}\nold\n{END}\nb\n", "| new |\n") == f"a\n{BEGIN}\n\n| new |\n\n{END}\nb\n"
