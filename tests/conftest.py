"""Fixtures shared across test files."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore

# The local mail servers' fixtures (smtp, imap) and the browser tests' (chromium, live_site) for any test that
# names them.
pytest_plugins = ["mailservers", "browsersupport"]


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files with slow tests first, each file whole, the rest in their order. Two workers share the run
    a file at a time (scripts/test: a file's browser and server start once, on one worker), and a file of
    walks of two minutes started last kept one worker busy while the other had nothing left (the browser
    and worker tests come last in the files' order)."""
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    """An empty game store on each database the tests run on (a test file may define its own ``store``)."""
    s = GameStore(db_url)
    yield s
    s.close()


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database per test: a SQLite file, or a new database on the PostgreSQL test server.

    CI must exercise PostgreSQL, so there a missing server fails the test; a developer machine skips.
    """
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.db'}"
        return
    base = os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not base:
        if in_ci():
            pytest.fail(
                "DIPPOUCH_TEST_POSTGRES_URL is not set: CI must run the PostgreSQL tests (source scripts/postgres)"
            )
        pytest.skip("no PostgreSQL server: set DIPPOUCH_TEST_POSTGRES_URL or run scripts/test")
    url = sa.make_url(base)
    name = f"dippouch_t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
