"""Tournaments as stored: values out, names checked, games added once and removed, the facts a game joins by;
and migration 0019 up and down on SQLite."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from dbsupport import migrated_sqlite
from dippouch.game import GameError, GameSettings, RecordNotFound
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.tournaments.stored import (
    MAX_GAMES,
    NAME_LIMIT,
    Tournament,
    TournamentGame,
    add_game,
    check_tournament_name,
    create_tournament,
    export_person,
    forget_person,
    games_facts,
    remove_game,
    tournament,
    tournaments,
)

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _new(store: GameStore, name: str = "Cup", **kw: object) -> Tournament:
    args: dict[str, object] = {"system": "sos", "variant": None, "creator_id": None, "now": T0, **kw}
    return create_tournament(store, name, **args)  # type: ignore[arg-type]


def test_created_read_and_listed_as_values(store: GameStore) -> None:
    made = _new(store, "  Autumn Cup ", variant="standard")
    assert made == Tournament(made.id, "Autumn Cup", "sos", "standard", None, T0, ())
    assert tournament(store, "Autumn Cup") == made
    later = _new(store, "Spring Cup", now=T0 + timedelta(days=1))
    assert tournaments(store) == [later, made]  # newest first


def test_a_taken_or_unknown_name_is_refused_naming_the_closest(store: GameStore, tmp_path: Path) -> None:
    _new(store, "Autumn Cup")
    with pytest.raises(GameError, match="already exists"):
        _new(store, "Autumn Cup")
    with pytest.raises(RecordNotFound, match="did you mean 'Autumn Cup'"):
        tournament(store, "Autumn Cop")
    with pytest.raises(RecordNotFound, match="no tournaments yet"):
        tournament(GameStore(migrated_sqlite(tmp_path / "other.db")), "x")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "needs a name"),
        ("   ", "needs a name"),
        ("a/b", "'/'"),
        ("a\\b", "backslash"),
        (".hidden", "cannot start with '.'"),
        ("two\nlines", "control characters"),
        ("x" * (NAME_LIMIT + 1), f"at most {NAME_LIMIT}"),
        (7, "is text"),
    ],
)
def test_a_bad_name_is_refused_with_why(name: object, why: str) -> None:
    with pytest.raises(GameError, match=why):
        check_tournament_name(name)


def test_games_are_added_once_in_order_with_rounds_and_removed(store: GameStore) -> None:
    _new(store)
    add_game(store, "Cup", "g1", round_number=2, now=T0)
    t = add_game(store, "Cup", "g2", round_number=None, now=T0 + timedelta(hours=1))
    assert t.games == (TournamentGame("g1", 2, T0), TournamentGame("g2", None, T0 + timedelta(hours=1)))
    with pytest.raises(GameError, match="already in tournament"):
        add_game(store, "Cup", "g1", round_number=1, now=T0)
    t = remove_game(store, "Cup", "g1")
    assert [g.game for g in t.games] == ["g2"] and tournament(store, "Cup") == t
    with pytest.raises(GameError, match=r"is not in tournament 'Cup' \(its games: g2\)"):
        remove_game(store, "Cup", "g1")


def test_a_full_tournament_takes_no_more_games(store: GameStore) -> None:
    _new(store)
    with store.session() as s, s.begin():
        from dippouch.store.tournaments.models import TournamentRow

        row = s.scalars(sa.select(TournamentRow)).one()
        row.games = [{"game": f"g{i}", "round": None, "added_at": None} for i in range(MAX_GAMES)]
    with pytest.raises(GameError, match=f"holds {MAX_GAMES} games"):
        add_game(store, "Cup", "one more", round_number=None, now=T0)


def test_the_facts_a_game_joins_by(store: GameStore) -> None:
    store_games.create_game(store, "g1", "standard", now=T0)
    store_games.create_game(store, "p1", "standard", now=T0, settings=GameSettings(practice="tag"))
    facts = games_facts(store, ["g1", "p1", "nothing"])
    assert set(facts) == {"g1", "p1"}
    assert (facts["g1"].variant, facts["g1"].status, facts["g1"].practice, facts["g1"].visibility) == (
        "standard",
        "active",
        False,
        "public",
    )
    assert facts["p1"].practice


def test_a_person_s_tournaments_exported_and_forgotten(store: GameStore) -> None:
    from dippouch.store.people.persons import create_person

    ann, bob = (create_person(store, n, now=T0) for n in ("Ann", "Bob"))
    _new(store, "Ann Cup", creator_id=ann)
    _new(store, "Bob Cup", creator_id=bob)
    assert export_person(store, ann) == {
        "tournaments": [{"name": "Ann Cup", "system": "sos", "variant": None, "created_at": T0.isoformat()}]
    }
    forget_person(store, ann, now=T0)
    # The tournament stays (it lists other people's games); nobody but the installation's coordinator runs it.
    assert tournament(store, "Ann Cup").creator_id is None and tournament(store, "Bob Cup").creator_id == bob
    assert export_person(store, ann) == {"tournaments": []}


def test_migration_0019_up_and_down_on_sqlite(tmp_path: Path) -> None:
    from alembic import command

    from dippouch.store.db import alembic_config, upgrade

    store = GameStore(f"sqlite:///{tmp_path / 'm.db'}")
    _new(store)
    cfg = alembic_config()
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0018")
    assert "tournaments" not in sa.inspect(store.engine).get_table_names()
    assert "people" in sa.inspect(store.engine).get_table_names()
    upgrade(store.engine)
    inspector = sa.inspect(store.engine)
    assert "tournaments" in inspector.get_table_names()
    assert {c["name"] for c in inspector.get_columns("tournaments")} == {
        "id",
        "name",
        "system",
        "variant",
        "creator_id",
        "created_at",
        "games",
    }
    assert tournaments(store) == []  # the table came back empty
    _new(store)
    store.close()
