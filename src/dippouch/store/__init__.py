"""Storage of games over time: SQLAlchemy 2 models, Alembic migrations (shipped here), and the game store.

``GameStore(url)`` opens (and on first use creates or upgrades) a database: a SQLite file by default,
PostgreSQL through ``DIPPOUCH_DATABASE_URL`` or an explicit URL. It is the games core's open database
(:mod:`dippouch.store.repository` lists its modules); the domains around the core are sub-packages. This
package is the only home of SQL.

Importing the package registers every domain's part in the core's work (:mod:`dippouch.store.domains`): Python
runs this file before any module of the store, so no process reaches the core without its domains' hooks.
Each ``hooks`` module maps no table; the domains' rooms are imported when a hook first needs them.
"""

# Ruff reads these imports as one name (``dippouch``): the noqa belongs on the last line, wherever sorting
# puts it, or a fix deletes them all.
import dippouch.store.mail.hooks
import dippouch.store.people.hooks
import dippouch.store.press.hooks  # noqa: F401  (each domain registers with the core on import)
from dippouch.store.db import database_url, make_engine, upgrade
from dippouch.store.repository import GameStore, PowerStatus, Status, SubmitResult

DOMAINS = ("mail", "people", "press")
"""The domains whose ``hooks`` module this package imports (tests/store/test_domains.py checks the list)."""

__all__ = ["DOMAINS", "GameStore", "PowerStatus", "Status", "SubmitResult", "database_url", "make_engine", "upgrade"]
