"""The game page's one read (:func:`dippouch.store.web_queries.game_page_reads`) counts missed phases from the
phases it reads for the page, not with a query of its own: its status must say what the status's own read says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.status import status_now
from dippouch.store.web_queries import game_page_reads

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _streaks(store: GameStore, t: datetime) -> tuple[dict[str, tuple[int, bool]], dict[str, tuple[int, bool]]]:
    page = game_page_reads(store, "g", now=t, today=t.date()).status
    own = status_now(store, "g", now=t, due=False)
    return (
        {p.power: (p.missed_in_a_row, p.civil_disorder) for p in page.powers},
        {p.power: (p.missed_in_a_row, p.civil_disorder) for p in own.powers},
    )


def test_the_page_reads_the_same_missed_streaks_as_the_status(store: GameStore) -> None:
    deadlines = {"movement": "12d", "retreats": "2d", "adjustments": "2d"}
    store_games.create_game(store, "g", "standard", now=T0, settings=GameSettings(deadlines=deadlines, missed_limit=2))
    store_games.assign(store, "g", "England", "Ann", now=T0)
    others = ("Austria", "France", "Germany", "Italy", "Russia", "Turkey")
    t = T0
    for _ in range(3):  # movement phases missed by England, and the Winters between (not counted)
        for p in others:
            store_submissions.submit(store, "g", p, "no orders", now=t, ready=True)
        t += timedelta(days=13)
        assert store_processing.process(store, "g", now=t)
    page, own = _streaks(store, t)
    assert page == own
    assert page["England"][0] >= 2 and page["England"][1] and page["France"] == (0, False)
    store_games.assign(store, "g", "England", "Bea", now=t, replace=True)
    page, own = _streaks(store, t)
    assert page == own and page["England"] == (0, False)
