"""Storage of games over time: SQLAlchemy 2 models, Alembic migrations (shipped here), and the game store.

``GameStore(url)`` opens (and on first use creates or upgrades) a database: a SQLite file by default,
PostgreSQL through ``DIPPOUCH_DATABASE_URL`` or an explicit URL. It is a facade over the store's modules,
one idea each (:mod:`dippouch.store.repository` lists them). This package is the only home of SQL.
"""

from dippouch.store.db import database_url, make_engine, upgrade
from dippouch.store.repository import GameStore, PowerStatus, Status, SubmitResult

__all__ = ["GameStore", "PowerStatus", "Status", "SubmitResult", "database_url", "make_engine", "upgrade"]
