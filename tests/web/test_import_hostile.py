"""Hostile game files: each is refused with a message that says what is wrong and where, by the command line,
the web form and the JSON API alike; nothing of it is stored, and nothing answers a 500 or a traceback.

Every file is a real export (a game with a processed phase, a version sent in the open phase, players with
addresses) with one thing made wrong, as an attacker or a damaged disk would. The untouched export imports
(so each refusal is the damage's). The checks are the ones a game created here gets
(:func:`dippouch.store.gamefile.check_new_game`) and then the file's own (``check_game_file``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import dippouch.cli.game  # noqa: F401  (registers the commands)
from dbsupport import migrated_sqlite
from dippouch.cli import app
from dippouch.core.variant import content_hash
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import transfer as store_transfer
from websupport import Site

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
Data = dict[str, Any]


def _base(store: GameStore) -> Data:
    store_games.create_game(store, "base", "standard", now=T0)
    store_games.assign(store, "base", "France", "Bruno", now=T0, email="bruno@example.org")
    store_games.assign(store, "base", "Germany", "Carla", now=T0)
    store_submissions.submit(store, "base", "France", "A par - bur\nF bre - mao", now=T0)
    store_processing.process(store, "base", now=T0, force=True)
    store_submissions.submit(store, "base", "France", "A bur - mun", now=T0)
    store_submissions.submit(store, "base", "Germany", "A ber - kie", now=T0)
    data = store_transfer.export_game(store, "base")
    data["game"]["name"] = "h"
    return data


def _game(d: Data) -> Data:
    game: Data = d["game"]
    return game


def _open(d: Data) -> Data:
    phase: Data = next(ph for ph in d["phases"] if ph["status"] == "open")
    return phase


def _sub(d: Data) -> Data:
    sub: Data = _open(d)["submissions"][0]
    return sub


def _set(path: Callable[[Data], Data], key: str, value: Any) -> Callable[[Data], None]:
    def change(d: Data) -> None:
        path(d)[key] = value

    return change


def _two_open(d: Data) -> None:
    d["phases"][0]["status"] = "open"


def _variant_named(name: str) -> Callable[[Data], None]:
    """A variant name that is a path, with its data and hash made to agree (as an attacker would)."""

    def change(d: Data) -> None:
        g = _game(d)
        g["variant"] = name
        g["variant_data"] = {**g["variant_data"], "name": name}
        g["variant_hash"] = content_hash(g["variant_data"])

    return change


def _illegal_accepted(d: Data) -> None:
    _sub(d)["lines"] = [{"line": 1, "text": "A bur - mun", "order": "A bur - mos", "error": None}]


def _second_current_player(d: Data) -> None:
    d["players"].append({**d["players"][0], "name": "Intruder"})


def _duplicate_version(d: Data) -> None:
    _open(d)["submissions"].append({**_sub(d), "id": 999_999})


def _bad_position(d: Data) -> None:
    _open(d)["position"] = {**_open(d)["position"], "units": [{"power": "France", "unit": "A atlantis"}]}


def _old_branch_open(d: Data) -> None:
    _game(d)["branch"] = 3


def _sealed(d: Data) -> None:
    _sub(d).update(text=None, lines=None, sealed=True)


HOSTILE: list[tuple[str, Callable[[Data], None], str]] = [
    ("name-slash", _set(_game, "name", "a/b"), "cannot contain '/'"),
    ("name-backslash", _set(_game, "name", "a\\b"), "cannot contain '/' or a backslash"),
    ("name-crlf", _set(_game, "name", "evil\r\nSet-Cookie: x"), "control character"),
    ("name-nul", _set(_game, "name", "a\x00b"), "control character"),
    ("name-empty", _set(_game, "name", ""), "1 to 100 characters"),
    ("name-blank", _set(_game, "name", "   "), "1 to 100 characters"),
    ("name-5000", _set(_game, "name", "x" * 5000), "1 to 100 characters (it is 5,000"),
    ("name-dot", _set(_game, "name", "..hidden"), "cannot start with '.'"),
    ("name-number", _set(_game, "name", 42), "a game's name is text"),
    ("two-open-phases", _two_open, "exactly one open phase; this file has 2"),
    ("no-phases", _set(lambda d: d, "phases", []), "at least one phase"),
    ("phases-missing", lambda d: d.pop("phases"), "phases: expected a list"),
    ("phases-junk", _set(lambda d: d, "phases", ["junk"]), "phases[0]: expected an object"),
    ("junk-lines", _set(_sub, "lines", [{"junk": 1}]), 'lines[0]: expected {"line"'),
    ("lines-not-list", _set(_sub, "lines", "everything"), "lines: expected a list"),
    ("illegal-accepted", _illegal_accepted, "do not match its text ('A bur - mos'"),
    ("paused-remaining-text", lambda d: _game(d).update(status="paused", paused_remaining="soon"), "paused_remaining"),
    ("paused-remaining-negative", lambda d: _game(d).update(status="paused", paused_remaining=-5), "paused_remaining"),
    ("paused-remaining-huge", lambda d: _game(d).update(status="paused", paused_remaining=1e300), "paused_remaining"),
    ("paused-remaining-active", _set(_game, "paused_remaining", 3600), "only a paused game"),
    ("variant-path", _variant_named("../../../../tmp/planted"), "never a path"),
    ("variant-absolute", _variant_named("/etc/x"), "never a path"),
    ("variant-mismatch", _set(_game, "variant", "w3k"), "but its variant data is 'standard'"),
    ("variant-unknown", lambda d: _game(d).update(variant="nosuch", variant_data=None), "does not load"),
    ("status-junk", _set(_game, "status", "exploded"), "game.status: 'exploded'"),
    ("finished-without-ending", _set(_game, "status", "finished"), "game.ending"),
    ("ending-while-active", _set(_game, "ending", {"kind": "draw"}), "has not ended"),
    ("file-version-text", _set(lambda d: d, "version", "2"), "not a game file version"),
    ("game-not-object", _set(lambda d: d, "game", [1, 2]), 'no "game" object'),
    ("created-at-junk", _set(_game, "created_at", "yesterday"), "game.created_at: cannot read the time"),
    ("duplicate-version", _duplicate_version, "two versions numbered 1"),
    ("submission-power", _set(_sub, "power", "Atlantis"), "Atlantis"),
    ("submitted-at-junk", _set(_sub, "submitted_at", 12345), "submitted_at: expected a time"),
    ("submission-nul", _set(_sub, "text", "A bur - mun\x00"), "NUL"),
    ("submission-source", _set(_sub, "source", "telepathy"), "source: 'telepathy'"),
    ("submission-version-zero", _set(_sub, "version", 0), "version: expected a whole number from 1"),
    ("reinstates-nothing", _set(_sub, "reinstates", 7), "has no version 7"),
    ("carried-from-nothing", _set(_sub, "carried_from", 424242), "carried_from: names no submission"),
    ("sealed-submission", _sealed, "exported with the open phase's orders sealed; export it again"),
    ("bad-position", _bad_position, "position"),
    ("phase-name-mismatch", _set(_open, "name", "Spring 1950 Movement"), "are not those of its position"),
    ("open-without-deadline", _set(_open, "deadline", None), "needs one"),
    ("open-on-old-branch", _old_branch_open, "open phase is on branch 0, the game on 3"),
    ("player-name-newline", _set(lambda d: d["players"][0], "name", "Bruno\nAdmin"), "control character"),
    ("player-email", _set(lambda d: d["players"][0], "email", "not-an-address"), "not an e-mail address"),
    ("two-current-players", _second_current_player, "two current players"),
    ("timezone-folder", _set(lambda d: _game(d)["settings"], "timezone", "Europe"), "unknown time zone 'Europe'"),
    ("timezone-300", _set(lambda d: _game(d)["settings"], "timezone", "A" * 300), "unknown time zone"),
    ("deadline-zero", lambda d: _game(d)["settings"]["deadlines"].update(movement="0h"), "longer than zero"),
    ("missed-limit-text", _set(lambda d: _game(d)["settings"], "missed_limit", "lots"), "settings.missed_limit"),
    ("event-kind-5000", lambda d: d["events"].append({"at": T0.isoformat(), "kind": "k" * 5000}), "events["),
    (
        "event-surrogate",
        lambda d: d["events"].append({"at": T0.isoformat(), "kind": "x", "detail": {"a": "\ud800"}}),
        "lone surrogate",
    ),
    (
        "vote-power",
        lambda d: d["votes"].append({"power": "Narnia", "draw": True, "at": T0.isoformat()}),
        "votes[0].power",
    ),
    (
        "vote-draw-text",
        lambda d: d["votes"].append({"power": "France", "draw": "yes", "at": T0.isoformat()}),
        "votes[0].draw",
    ),
]
assert len(HOSTILE) >= 30


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Data:
    store = GameStore(migrated_sqlite(tmp_path_factory.mktemp("base") / "base.db"))
    data = _base(store)
    store.close()
    return data


def _hostile(base: Data, change: Callable[[Data], None]) -> Data:
    d = copy.deepcopy(base)
    change(d)
    return d


def test_the_untouched_export_imports(base: Data, tmp_path: Path) -> None:
    """The control: every hostile file below is this one with one thing made wrong."""
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    assert store_transfer.import_game(store, copy.deepcopy(base)) == "h"
    assert store_status.status(store, "h", now=T0).phase == "Fall 1901 Movement"
    assert store_processing.process(store, "h", now=T0, force=True) == ["Fall 1901 Movement"]
    store.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield Site(f"sqlite:///{tmp_path_factory.mktemp('site') / 'web.db'}")


@pytest.mark.parametrize(("case", "change", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_file_is_refused_by_the_command_line(
    base: Data, tmp_path: Path, case: str, change: Callable[[Data], None], message: str
) -> None:
    # A database already at the newest schema, as an installation's is: migrating an empty file took nine
    # tenths of each case, and the refusal comes from the file's checks, not from the database's first open.
    db = migrated_sqlite(tmp_path / "g.db")
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(_hostile(base, change)), encoding="utf-8")
    r = CliRunner().invoke(app, ["import", str(path), "--db", db])
    assert "Traceback" not in r.output and r.exit_code == 2, r.output
    assert message in " ".join(r.output.split()), r.output
    store = GameStore(db)
    assert store_games.games(store) == [], "nothing of a refused file is stored"
    store.close()


@pytest.mark.parametrize(("case", "change", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_file_is_refused_by_the_web_form_and_the_api(
    site: Site, base: Data, case: str, change: Callable[[Data], None], message: str
) -> None:
    body = json.dumps(_hostile(base, change))
    r = site.post_form(site.coordinator, "/coordinate/import", {}, files={"file": ("h.json", body, "application/json")})
    assert r.status_code == 400, (r.status_code, r.text[-500:])
    assert _unescaped(message) in _unescaped(r.text), r.text[-800:]
    r = site.coordinator.post(
        "/api/games/import",
        content=body,
        headers={"X-CSRF-Token": site.csrf(site.coordinator), "Content-Type": "application/json"},
    )
    assert r.status_code == 400, (r.status_code, r.text[-500:])
    assert message in r.json()["error"], r.json()
    assert store_games.games(site.web.store) == [], "nothing of a refused file is stored"


def _unescaped(text: str) -> str:
    import html

    return " ".join(html.unescape(text).split())


def test_hostile_files_are_refused_on_postgresql_too(db_url: str, base: Data) -> None:
    """PostgreSQL is stricter about what it stores (no NUL in text): the checks come first on both."""
    from dippouch.game import GameError

    store = GameStore(db_url)
    for case, change, message in HOSTILE:
        with pytest.raises(GameError) as e:
            store_transfer.import_game(store, _hostile(base, change))
        assert message in str(e.value), (case, str(e.value))
    assert store_games.games(store) == []
    store.close()
