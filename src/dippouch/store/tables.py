"""Every table of the game database at once, for migrations and the schema test.

The web's tables (:mod:`dippouch.store.models_web`) and the mail's (:mod:`dippouch.store.mail.models`) extend
the game's (:mod:`dippouch.store.models`) and are mapped only by the commands that use them. Gathering them
here, rather than in ``models`` itself, keeps the imports one way: the extensions import ``models``, and
nothing they import imports them back (tests/project/test_import_layers.py).
"""

from __future__ import annotations

import sqlalchemy as sa

import dippouch.store.learning.models
import dippouch.store.mail.models
import dippouch.store.models_duels
import dippouch.store.models_openings
import dippouch.store.models_pages
import dippouch.store.models_votes
import dippouch.store.models_web
import dippouch.store.moderation.models
import dippouch.store.notify.models

# Ruff reads these imports as one name (``dippouch``): the noqa belongs on the last line, wherever sorting
# puts it, or a fix deletes them all.
import dippouch.store.people.models
import dippouch.store.press.models
import dippouch.store.ratings.models
import dippouch.store.sandboxes.models
import dippouch.store.tournaments.models  # noqa: F401  (every table mapped on import)
from dippouch.store.base import Base

__all__ = ["load_all"]


def load_all() -> sa.MetaData:
    """Map every table and return the complete metadata (migrations and the schema test compare against it)."""
    return Base.metadata
