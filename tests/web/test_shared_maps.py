"""A phase's map drawn and compressed once for every web process (dippouch.store.shared_maps): the first process
asked for it, or the worker that processed the phase, keeps it; another process sends the kept bytes without
drawing; a phase processed since is drawn afresh (its status names another picture). On SQLite and PostgreSQL.

Issue 57: at a thousand games turning every 30 s nearly every map asked was a new one, drawn and compressed by each
web process asked for it, and the maps were most of the web's CPU."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from dippouch.store import GameStore
from dippouch.store import processing as store_processing
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.models_pages import SharedMapRow
from dippouch.web.app import create_app
from dippouch.web.views import games as views_games
from dippouch.web.views.prepared import PageMaker
from dippouch.worker.service import Worker
from websupport import TEST_SITE, TwoProcesses

ZSTD = {"Accept-Encoding": "zstd"}


@pytest.fixture
def pair(db_url: str) -> Iterator[TwoProcesses]:
    p = TwoProcesses(db_url)
    yield p
    p.other.close()


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every map drawn, by any process of the test."""
    seen: list[tuple[Any, ...]] = []
    real = views_games._phase_map

    def counted(*a: Any, **kw: Any) -> str:
        seen.append(a[1:4])
        return real(*a, **kw)

    monkeypatch.setattr(views_games, "_phase_map", counted)
    return seen


def _map_url(c: TestClient) -> str:
    found = re.search(r"/games/g/phases/\d+/map-board\.svg", c.get("/games/g").text)
    assert found is not None
    return found.group(0)


def _kept(store: GameStore) -> list[tuple[str, str, str]]:
    with store.session() as s:
        rows = s.execute(sa.select(SharedMapRow.key, SharedMapRow.coding, SharedMapRow.version)).all()
    return sorted((str(k), str(c), str(v).rsplit(" ", 1)[0]) for k, c, v in rows)  # without the code's digest


def test_a_map_drawn_by_one_process_is_sent_by_another_without_drawing(
    pair: TwoProcesses, draws: list[tuple[Any, ...]]
) -> None:
    a, b = pair.a.browser(), TestClient(pair.b_app)
    url = _map_url(a)
    first = a.get(url, headers=ZSTD)
    assert first.status_code == 200 and first.headers["content-encoding"] == "zstd"
    assert len(draws) == 1
    phase_id = int(url.split("/")[4])
    assert _kept(pair.other) == [("board//en", "zstd", f"{phase_id} open")]
    second = b.get(url, headers=ZSTD)
    assert second.status_code == 200 and second.content == first.content
    assert len(draws) == 1  # the other process sent the kept bytes
    assert b"<svg" in first.content[:500]  # the client decoded it
    # Another coding is drawn by whoever is asked for it first, and kept beside it.
    assert b.get(url, headers={"Accept-Encoding": "gzip"}).headers["content-encoding"] == "gzip"
    assert len(draws) == 2 and len(_kept(pair.other)) == 2


def test_a_phase_processed_since_is_drawn_afresh(pair: TwoProcesses, draws: list[tuple[Any, ...]]) -> None:
    a, b = pair.a.browser(), TestClient(pair.b_app)
    url = _map_url(a)
    before = a.get(url, headers=ZSTD).content
    store_processing.process(pair.other, "g", now=pair.a.clock(), force=True)
    pair.a.web.touched("g")
    # The phase's own address, now a processed phase: another picture (its status), drawn again, not the one kept.
    after = b.get(url, headers=ZSTD)
    assert after.status_code == 200 and len(draws) == 2
    phase_id = int(url.split("/")[4])
    assert ("board//en", "zstd", f"{phase_id} processed") in _kept(pair.other)
    # The new phase's map is its own.
    new_url = _map_url(TestClient(pair.b_app))
    assert new_url != url
    assert b.get(new_url, headers=ZSTD).content != before
    assert len(draws) == 3


def test_the_worker_that_processed_a_phase_draws_the_map_its_page_shows(
    pair: TwoProcesses, draws: list[tuple[Any, ...]]
) -> None:
    visitor = pair.a.browser()
    assert visitor.get("/games/g").status_code == 200  # read in English: the worker makes that page and its map
    with pair.other.engine.begin() as c:
        gid = c.scalar(sa.select(GameRow.id).where(GameRow.name == "g"))
        c.execute(
            sa.update(PhaseRow)
            .where(PhaseRow.game_id == gid, PhaseRow.status == "open")
            .values(deadline=pair.other.clock() - timedelta(minutes=1))
        )

    def app(store: GameStore) -> FastAPI:
        return create_app(store=store, clock=pair.a.clock, site=TEST_SITE)

    maker = PageMaker(app)
    assert [p.game for p in Worker(pair.other, tasks=[], fetch=None, after=[maker]).look()] == ["g"]
    assert maker.made == 1 and maker.maps == 1 and len(draws) == 1
    b = TestClient(pair.b_app)
    url = _map_url(b)
    r = b.get(url, headers=ZSTD)
    assert r.status_code == 200 and r.headers["content-encoding"] == "zstd"
    assert len(draws) == 1  # the web process drew nothing
    assert b"<svg" in r.content[:500]
