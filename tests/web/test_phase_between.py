"""A phase's page reads its own row and its neighbours' ids: the same prev/next as the whole history gives."""

from __future__ import annotations

from pathlib import Path

from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from websupport import Site


def test_a_phase_and_its_neighbours_match_the_history(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    site.new_game("g", movement="2d")
    site.new_game("h", movement="2d")
    for _ in range(3):
        store_processing.process(site.web.store, "g", now=site.clock(), force=True)
    access = site.web.access
    history = access.phases("g")
    ids = [p.id for p in history]
    assert len(ids) >= 4
    for i, phase in enumerate(history):
        got = access.phase_between("g", phase.id)
        assert got is not None
        found, before, after = got
        assert found == phase
        assert before == (ids[i - 1] if i > 0 else None)
        assert after == (ids[i + 1] if i + 1 < len(ids) else None)
    other = access.phases("h")[0].id
    assert access.phase_between("g", other) is None  # another game's phase
    assert access.phase_between("g", max(ids) + 1000) is None
    assert site.browser().get(f"/games/g/phases/{max(ids) + 1000}").status_code == 404


def test_the_phases_times_are_the_phases_own_rolled_back_ones_too(tmp_path: Path) -> None:
    """What a calendar feed lists is read without the phases' positions: the same phases, times and standing."""
    site = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    site.new_game("g", movement="2d")
    for _ in range(3):
        store_processing.process(site.web.store, "g", now=site.clock(), force=True)
    store_history.rollback(site.web.store, "g", "Fall 1901 Movement", now=site.clock())
    access = site.web.access
    whole = [(p.id, p.name, p.status, p.deadline, p.processed_at) for p in access.phases("g")]
    assert "abandoned" in {status for _, _, status, _, _ in whole}
    assert [(t.id, t.name, t.status, t.deadline, t.processed_at) for t in access.phase_times("g")] == whole
