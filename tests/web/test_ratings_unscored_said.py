"""The ratings page says why a counted game was not scored in its reader's language, from the message value the
ratings stored (rating_games.why); a problem stored as English alone (one migration 0032 could not read) is
shown as it is. The JSON API speaks English."""

from __future__ import annotations

import html
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from dippouch.core.messages import msg
from websupport import Site, page_words

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_the_ratings_page_says_why_a_game_was_not_scored_in_german(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    why = msg(
        "game %(game)s cannot be scored under %(system)s: %(reason)s",
        game="'alpha'",
        system="dss",
        reason=msg("nobody survived to share the game"),
    )
    rows = sa.table(
        "rating_games",
        *(sa.column(c) for c in ("game_id", "name", "variant", "branch", "scoring", "visibility", "counted")),
        *(sa.column(c) for c in ("ended_at", "problem", "rated", "weight")),
        sa.column("why", sa.JSON(none_as_null=True)),
    )
    common = {"variant": "standard", "branch": 0, "scoring": "", "visibility": "public", "counted": True}
    common |= {"rated": False, "weight": 1.0}
    with site.web.store.engine.begin() as conn:
        conn.execute(
            rows.insert(),
            [
                {**common, "game_id": 1, "name": "alpha", "ended_at": T0, "problem": str(why), "why": why.to_data()},
                {**common, "game_id": 2, "name": "beta", "ended_at": T0, "problem": "an old note", "why": None},
            ],
        )
    visitor = site.browser()
    visitor.cookies.set("lang", "de")
    words = html.unescape(page_words(visitor.get("/ratings").text))
    assert "alpha: die Partie 'alpha' kann nach dss nicht gewertet werden: niemand hat überlebt" in words, words
    assert "beta: an old note" in words
    english = site.browser().get("/api/ratings").json()["unscored"]
    assert english == [f"alpha: {why}", "beta: an old note"]
