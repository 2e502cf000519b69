"""Fixtures shared across test files."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
import typer
import typer.main
import typer.testing

import durations
from dbsupport import PostgresPool, migrated_sqlite
from dippouch import compiled, settings
from dippouch.store import GameStore

# pytest-xdist starts its workers with COLUMNS=80 (the controller's terminal width), which a run without workers
# does not have: a rich console made when a command's module is imported would keep that width for the whole
# worker, so a test's own COLUMNS (a wide table read cell by cell) would hold in one kind of run and not the other.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)

# The local mail servers' fixtures (smtp, imap) and the browser tests' (chromium, live_site) for any test that
# names them; how the workers share the run (stealing).
pytest_plugins = ["mailservers", "browsersupport", "stealing"]


def _commands_key(app: typer.Typer) -> tuple[object, ...]:
    """What a typer app's command tree is built from: its callback, its commands and its groups' own, which
    ``dippouch.cli`` registers as their modules are imported and narrows while one runs (``_only``)."""
    return (
        id(app.registered_callback),
        *(id(c) for c in app.registered_commands),
        None,
        *((id(g), _commands_key(g.typer_instance) if g.typer_instance else ()) for g in app.registered_groups),
    )


_built: dict[int, tuple[typer.Typer, tuple[object, ...], object]] = {}


def _built_command(app: typer.Typer) -> object:
    """The click command of ``app`` for typer's test runner, built again only when its commands changed:
    typer builds every command's parser at each ``CliRunner.invoke`` (12-23 ms; some thousand invocations in a
    run), where click's own runner takes a command built once."""
    key = _commands_key(app)
    kept = _built.get(id(app))
    if kept is None or kept[1] != key:
        kept = (app, key, typer.main.get_command(app))  # the app kept too: its id is never another's while cached
        _built[id(app)] = kept
    return kept[2]


vars(typer.testing)["_get_command"] = _built_command  # the name typer's runner builds the command by


def pytest_configure(config: pytest.Config) -> None:
    """The tests see the built-in variants only: not the folders of whoever runs them (their settings file
    or DIPPOUCH_VARIANT_PATH), which would add their own variants to every test parametrised by variant.
    Tests of user folders set both themselves."""
    os.environ.pop("DIPPOUCH_VARIANT_PATH", None)
    os.environ["DIPPOUCH_SETTINGS"] = str(Path(__file__).resolve().parent / "data" / "no-such-settings.toml")
    # Built variants are cached in a folder of this test process (and the commands it starts), not in the
    # home folder of whoever runs the tests.
    cache = tempfile.mkdtemp(prefix="dippouch-test-cache-")
    os.environ["DIPPOUCH_CACHE_DIR"] = cache
    atexit.register(shutil.rmtree, cache, True)
    # A test process holds 0.7-0.9 GB of objects (variants, maps, apps, stores), which the cycle collector's
    # default pace (a collection every 700 new objects) walked whole some 80 times in 370 tests: a tenth of the
    # process's CPU (tests/people and six web files: 15.6 s of 141.6; at this pace 4.6 of 126.2, the same
    # peak memory within a tenth). Only the pace changes: every cycle is still collected.
    gc.set_threshold(20_000, 10, 10)


@pytest.fixture(autouse=True)
def _settings_read_afresh() -> Iterator[None]:
    """A process reads its settings once (dippouch.settings); a test sets the environment it needs before it
    runs any code, and so each test starts with none read and leaves none behind for the next. A test that
    changes the environment after code has read it calls ``settings.reread()`` itself."""
    settings.reread()
    yield
    # An in-process `serve` (tests/cli/test_cli_startup.py) names its own address as the default: not the next's.
    settings.set_default_address(settings.DEFAULT_PUBLIC_URL)
    settings.reread()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each test's time (setup, call and teardown), for the file written when the run ends."""
    _times[report.nodeid] = _times.get(report.nodeid, 0.0) + report.duration


_times: dict[str, float] = {}


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The times of this run written over the ones recorded before (a worker reports to the main process,
    which alone writes)."""
    if _times and not hasattr(session.config, "workerinput"):
        durations.record(durations.PATH, _times, Path(str(session.config.rootpath)))


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    """An empty game store on each database the tests run on (a test file may define its own ``store``)."""
    s = GameStore(db_url)
    yield s
    s.close()


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def cache_in(monkeypatch: pytest.MonkeyPatch, folder: str) -> None:
    """The cache of built variants and pages' code in ``folder`` ("off": none) for this test, read into the
    settings at once: a thread still running from an earlier test of the process (a server's) may have read them
    since this test began, and what is kept would then go where the settings read then said."""
    monkeypatch.setenv(compiled.CACHE_ENV, folder)
    settings.reread()


@pytest.fixture(scope="session")
def _postgres_pool() -> Iterator[PostgresPool | None]:
    """The databases at the newest schema a test process gives its tests in turn (:class:`dbsupport.
    PostgresPool`), brought there once by the store's own migrations; None without a PostgreSQL test server."""
    base = os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not base:
        yield None
        return
    pool = PostgresPool(sa.make_url(base))
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database per test, with no games in it: a SQLite file copied from one brought to the newest
    schema by the store's migrations once a test process, or a database of the PostgreSQL test server's that
    earlier tests of the process had and gave back emptied (:class:`dbsupport.PostgresPool`); a test marked
    ``empty_database`` gets a database with nothing in it (the first open migrates).

    CI must exercise PostgreSQL, so there a missing server fails the test; a developer machine skips.
    """
    empty = request.node.get_closest_marker("empty_database") is not None
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.db'}" if empty else migrated_sqlite(tmp_path / "games.db")
        return
    base = os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not base:
        if in_ci():
            pytest.fail(
                "DIPPOUCH_TEST_POSTGRES_URL is not set: CI must run the PostgreSQL tests (source scripts/postgres)"
            )
        pytest.skip("no PostgreSQL server: set DIPPOUCH_TEST_POSTGRES_URL or run scripts/test")
    pool = request.getfixturevalue("_postgres_pool")
    name = pool.take(empty=empty)
    try:
        yield pool.url_of(name)
    finally:
        if empty:
            pool.drop(name)
        else:
            pool.give(name)
