"""Every table of the game database at once, for migrations and the schema test.

The web's tables (:mod:`dippouch.store.models_web`) and the mail's (:mod:`dippouch.store.models_mail`) extend
the game's (:mod:`dippouch.store.models`) and are mapped only by the commands that use them. Gathering them
here, rather than in ``models`` itself, keeps the imports one way: the extensions import ``models``, and
nothing they import imports them back (tests/project/test_import_layers.py).
"""

from __future__ import annotations

import sqlalchemy as sa

import dippouch.store.models_accounts
import dippouch.store.models_coach
import dippouch.store.models_duels
import dippouch.store.models_lessons
import dippouch.store.models_mail
import dippouch.store.models_moderation
import dippouch.store.models_notify
import dippouch.store.models_openings
import dippouch.store.models_pages
import dippouch.store.models_press
import dippouch.store.models_puzzles
import dippouch.store.models_ratings
import dippouch.store.models_roster
import dippouch.store.models_sandboxes
import dippouch.store.models_votes
import dippouch.store.models_web  # noqa: F401  (mapped on import)
from dippouch.store.base import Base

__all__ = ["load_all"]


def load_all() -> sa.MetaData:
    """Map every table and return the complete metadata (migrations and the schema test compare against it)."""
    return Base.metadata
