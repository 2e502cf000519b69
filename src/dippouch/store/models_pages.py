"""Tables of the pages made once and shared (migration 0024): what every reader of a game's phase sees, made by
the first web process that is asked for it and read by every other (:mod:`dippouch.store.page_cache`).

Kept apart from the game tables, as the web's are: commands that never serve a page do not map them.
"""

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class PageVersionRow(Base):
    """A game's page version: bumped by the events that change what its pages show but leave the game's change
    marker alone (press in public channels, proposals and their votes: :func:`dippouch.store.page_cache.bump_pages`).
    A game without a row is at version 0."""

    __tablename__ = "page_versions"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    version: Mapped[int] = mapped_column(sa.Integer, default=0)


class SharedPageRow(Base):
    """One shared page (or part of a page) of a game, the latest made: by its kind (``game``, the anonymous
    page; ``main-...``, the signed-in page's shared part) and language. ``version`` names the game's state it
    was made from (its change marker, page version and phase); a reader whose version differs makes it again
    and replaces it, so the table holds one row per game, kind and language however long the game runs."""

    __tablename__ = "shared_pages"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    lang: Mapped[str] = mapped_column(sa.String(16), primary_key=True)
    version: Mapped[str] = mapped_column(sa.String(200))
    body: Mapped[str] = mapped_column(sa.Text)
    deflated: Mapped[bytes | None] = mapped_column(sa.LargeBinary, nullable=True)
    """The page's pieces deflated by whoever made it (:class:`dippouch.web.http.encoded.Pieces`, packed), for the
    kinds served gzipped as kept; None for the others."""
    made_at: Mapped[datetime] = mapped_column(sa.DateTime)
