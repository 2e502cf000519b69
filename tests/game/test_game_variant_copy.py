"""A game keeps its variant, a changed file is reported and upgraded only on request,
old databases keep working, and ``new --position`` reads the contract's request shape with its defaults.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from dippouch import settings
from dippouch.catalog import load_variant
from dippouch.cli import app, register_commands
from dippouch.core.variant import content_hash
from dippouch.game import GameError
from dippouch.play.reports import stored_report
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import transfer as store_transfer
from dippouch.store import variant_copy as store_variant

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
runner = CliRunner()
register_commands()

V1898 = """[variant]
name = "v1898"
title = "1898 (one unit each)"
extends = "standard"

[calendar]
start_year = 1899

[powers.Austria]
centres = ["tri"]
units = ["A tri"]

[powers.England]
centres = ["edi"]
units = ["F edi"]

[powers.France]
centres = ["bre"]
units = ["A bre"]

[powers.Germany]
centres = ["kie"]
units = ["A kie"]

[powers.Italy]
centres = ["nap"]
units = ["A nap"]

[powers.Russia]
centres = ["stp"]
units = ["A stp"]

[powers.Turkey]
centres = ["smy"]
units = ["A smy"]
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    f = tmp_path / "variants"
    f.mkdir()
    (f / "v1898.toml").write_text(V1898)
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(f))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    return f


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


def test_a_game_of_a_user_variant_works_without_the_variable(
    folder: Path, store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_games.create_game(store, "g", "v1898", now=T0)
    monkeypatch.delenv("DIPPOUCH_VARIANT_PATH")
    settings.reread()
    with pytest.raises(Exception, match="no variant 'v1898'"):
        load_variant("v1898")  # the file is out of reach now...
    st = store_status.status(store, "g", now=T0)  # ...but the game has its own copy
    assert st.variant == "v1898" and st.phase == "Spring 1899 Movement"
    assert st.variant_note is not None and "cannot be loaded now" in str(st.variant_note)
    store_submissions.submit(store, "g", "Russia", "A stp - mos", now=T0)
    store_processing.process(store, "g", now=T0 + timedelta(days=30), force=True)
    assert "Russia" in stored_report(store, "g")
    ok, diffs = store_history.replay(store, "g")
    assert ok, diffs
    data = store_transfer.export_game(store, "g")
    assert data["game"]["variant_hash"] == content_hash(data["game"]["variant_data"])
    store_transfer.import_game(store, data, name="g2")  # imports without the file too
    assert store_status.status(store, "g2", now=T0).variant == "v1898"


def test_a_changed_file_is_reported_and_the_game_keeps_its_copy(folder: Path, store: GameStore) -> None:
    store_games.create_game(store, "g", "v1898", now=T0)
    assert store_status.status(store, "g", now=T0).variant_note is None
    (folder / "v1898.toml").write_text(V1898.replace('units = ["A stp"]', 'units = ["A mos"]'))
    st = store_status.status(store, "g", now=T0)
    assert st.variant_note is not None and "has changed since this game began" in str(st.variant_note)
    assert "upgrade-variant g" in str(st.variant_note)
    # The running game is not changed silently: Russia's army is still in St Petersburg.
    assert store_submissions.submit(store, "g", "Russia", "A stp - mos", now=T0).lines[0].accepted
    assert load_variant("v1898").start.units_of("Russia")[0].loc == load_variant("v1898").map.loc("mos")


def test_upgrade_checks_every_unit_and_centre_still_exists(folder: Path, store: GameStore) -> None:
    store_games.create_game(store, "g", "v1898", now=T0)
    # A new version of the file that drops Smyrna (a unit and a centre stand there) and Trieste's unit's home.
    text = (folder / "v1898.toml").read_text()
    standard = (Path(__file__).resolve().parents[2] / "src/dippouch/variants/standard.toml").read_text()
    smy = standard[standard.index("[provinces.smy]") :]
    smy = smy[: smy.index("\n\n")]
    broken = standard.replace(smy, "").replace('"smy", ', "").replace(', "smy"', "").replace('"smy"', "")
    broken = broken.replace('name = "standard"', 'name = "v1898"').replace(
        'units = ["F ank", "A con", "A smy"]', 'units = ["F ank", "A con"]'
    )
    (folder / "v1898.toml").write_text(broken)
    assert "smy" not in load_variant("v1898").map.names  # the file itself loads: a map without Smyrna is valid
    drift, problems = store_variant.upgrade_variant(store, "g", now=T0, check_only=True)
    assert drift.changed
    assert any("unit A smy (Turkey)" in p and "smy" in p for p in problems), problems
    assert any("centre smy (Turkey)" in p for p in problems), problems
    drift, problems = store_variant.upgrade_variant(store, "g", now=T0)
    assert problems  # refused: nothing changed
    assert store_transfer.export_game(store, "g")["game"]["variant_hash"] == drift.stored_hash
    # A compatible edit is taken on request, and the old copy is kept in the log.
    (folder / "v1898.toml").write_text(text.replace('title = "1898 (one unit each)"', 'title = "1898, revised"'))
    drift, problems = store_variant.upgrade_variant(store, "g", now=T0)
    assert not problems
    assert store_variant.variant_of(store, "g").title == "1898, revised"
    assert store_status.status(store, "g", now=T0).variant_note is None
    events = store_transfer.export_game(store, "g")["events"]
    up = [e for e in events if e["kind"] == "variant_upgraded"]
    assert len(up) == 1 and up[0]["detail"]["previous_data"]["variant"]["title"] == "1898 (one unit each)"


def test_cli_status_and_upgrade_variant(folder: Path, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    now = ["--now", "2026-03-01T12:00"]
    assert runner.invoke(app, ["new", "g", "--variant", "v1898", "--db", db, *now]).exit_code == 0
    (folder / "v1898.toml").write_text(V1898.replace("start_year = 1899", "start_year = 1899\nlast_year = 1920"))
    st = runner.invoke(app, ["status", "g", "--db", db, *now], env={"COLUMNS": "300"})
    assert "has changed since this game began" in st.output
    chk = runner.invoke(app, ["upgrade-variant", "g", "--check", "--db", db, *now])
    assert chk.exit_code == 0 and "fits the variant file" in chk.output
    up = runner.invoke(app, ["upgrade-variant", "g", "--db", db, *now])
    assert up.exit_code == 0 and "now plays the variant file" in up.output
    again = runner.invoke(app, ["upgrade-variant", "g", "--db", db, *now])
    assert "nothing to do" in again.output


def test_a_database_from_before_the_migration_keeps_working(folder: Path, tmp_path: Path) -> None:
    """Games written at revision 0001 (only the variant's name) get their data on upgrade, or load by name."""
    from alembic import command

    from dippouch.store.db import alembic_config, make_engine

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url)
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    v = load_variant("standard")
    from dippouch.game import position_to_data

    start = position_to_data(v, v.start)
    with engine.begin() as conn:
        for gid, name, variant in ((1, "old", "standard"), (2, "mine", "v1898"), (3, "ghost", "nosuchvariant")):
            conn.execute(
                sa.text(
                    "INSERT INTO games (id, name, variant, options, settings, status, branch, created_at) "
                    "VALUES (:id, :name, :variant, '{}', '{}', 'active', 0, :at)"
                ),
                {"id": gid, "name": name, "variant": variant, "at": T0.replace(tzinfo=None)},
            )
            pos = (
                start if variant == "standard" else position_to_data(load_variant("v1898"), load_variant("v1898").start)
            )
            conn.execute(
                sa.text(
                    "INSERT INTO phases (game_id, branch, seq, name, kind, status, position, opened_at, deadline) "
                    "VALUES (:g, 0, 0, :n, 'movement', 'open', :p, :at, :dl)"
                ),
                {
                    "g": gid,
                    "n": pos["phase"],
                    "p": json.dumps(pos),
                    "at": T0.replace(tzinfo=None),
                    "dl": (T0 + timedelta(days=12)).replace(tzinfo=None),
                },
            )
    engine.dispose()
    store = GameStore(url)  # migrates to head, filling the stored variants
    try:
        with store.engine.connect() as conn:
            rows = {r[0]: r[1:] for r in conn.execute(sa.text("SELECT name, variant_hash, variant_data FROM games"))}
        assert rows["old"][0] == content_hash(load_variant("standard").data)
        assert rows["mine"][0] == content_hash(load_variant("v1898").data)
        assert rows["ghost"][0] is None and rows["ghost"][1] is None  # its file is unknown: left to load by name
        assert store_status.status(store, "old", now=T0).phase == "Spring 1901 Movement"
        assert store_status.status(store, "mine", now=T0).phase == "Spring 1899 Movement"
        assert store_submissions.submit(store, "old", "France", "A par - bur", now=T0).lines[0].accepted
        with pytest.raises(Exception, match="no variant 'nosuchvariant'"):
            store_status.status(store, "ghost", now=T0)
    finally:
        store.close()


def test_new_position_in_the_contract_shape_fills_home_centres_from_the_variant(folder: Path, store: GameStore) -> None:
    # Without home_centers the powers used to get no home centres.
    position = {"phase": "Winter 1901 Adjustments", "units": [{"power": "France", "unit": "A par"}]}
    store_games.create_game(store, "g", "standard", now=T0, position=position)
    st = store_status.status(store, "g", now=T0)
    assert st.phase == "Winter 1901 Adjustments"
    france = next(p for p in st.powers if p.power == "France")
    assert france.units == 1 and france.centres == 3  # owners from the variant's start
    # Builds in the home centres work because the homes came from the variant.
    got = store_submissions.submit(store, "g", "France", "Build F bre\nBuild A mar", now=T0)
    assert all(ln.accepted for ln in got.lines), got.lines
    with pytest.raises(GameError, match="unknown key 'home_centres'; did you mean 'home_centers'"):
        store_games.create_game(store, "h", "standard", now=T0, position={"home_centres": {}})
    with pytest.raises(GameError, match="it is a position of 'hundred'"):
        store_games.create_game(store, "h", "standard", now=T0, position={"variant": "hundred"})
    with pytest.raises(GameError, match="has no orders"):
        store_games.create_game(store, "h", "standard", now=T0, position={"orders": {"France": ["A par H"]}})


def test_a_redrawn_map_is_no_change_to_a_running_game(folder: Path, store: GameStore) -> None:
    """Drawing keys (shapes, the [drawing] table, colours) change no rule: no 'variant changed' note;
    a rule edit beside them still is one."""
    store_games.create_game(store, "g", "v1898", now=T0)
    text = (folder / "v1898.toml").read_text()
    drawn = text.replace("[powers.Austria]\n", '[powers.Austria]\ncolour = "#123456"\n') + (
        '\n[provinces.tri]\nshape = [[14.0, 45.5]]\n\n[drawing]\nconnectors = [["den", "swe"]]\n'
    )
    (folder / "v1898.toml").write_text(drawn)
    assert (
        content_hash(dict(load_variant("v1898").data)) != store_transfer.export_game(store, "g")["game"]["variant_hash"]
    )
    drift = store_variant.variant_drift(store, "g")
    assert not drift.changed and drift.note is None
    assert store_status.status(store, "g", now=T0).variant_note is None
    (folder / "v1898.toml").write_text(drawn.replace("start_year = 1899", "start_year = 1900"))
    assert store_variant.variant_drift(store, "g").changed
