"""The declarative base every table of the database is mapped on, and the one column type it adds.

Times are stored as UTC. SQLite hands back naive datetimes, so :class:`UTCDateTime` puts the zone back on
the way out; code above the store only ever sees aware UTC times.

A module of its own, so the game's tables (:mod:`dippouch.store.models`), the web's and the mail's all
stand on one base without any of them being the others' root.

Annotations here are evaluated, not postponed (no ``from __future__ import annotations``), as in the
models: see :mod:`dippouch.store.models`.
"""

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase

__all__ = ["Base", "UTCDateTime"]


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = sa.MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )
    type_annotation_map = {datetime: UTCDateTime, dict[str, Any]: sa.JSON, list[Any]: sa.JSON}  # noqa: RUF012
