"""The guided first game's progress as stored (migration 0024; the table in
:mod:`dippouch.store.learning.models`): the lessons a signed-in person has passed, so they resume where they
stopped from any browser. What a lesson is, and whether it was passed, is :mod:`dippouch.play.lessons`'."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.learning.models import LessonPassedRow

__all__ = ["export_person", "forget_person", "lessons_passed", "pass_lesson"]


def lessons_passed(db: Database, person_id: int) -> set[str]:
    """The slugs of the lessons ``person_id`` has passed."""
    with db.session() as s:
        rows = s.execute(sa.select(LessonPassedRow.lesson).where(LessonPassedRow.person_id == person_id))
        return {r[0] for r in rows}


def pass_lesson(db: Database, person_id: int, lesson: str, *, now: datetime) -> None:
    """Record that ``person_id`` passed ``lesson`` (the first time counts; passing it again changes nothing)."""
    with db.session() as s, s.begin():
        there = s.get(LessonPassedRow, (person_id, lesson))
        if there is None:
            s.add(LessonPassedRow(person_id=person_id, lesson=lesson, passed_at=now))


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """The lessons the person passed, for "download my data"."""
    with db.session() as s:
        rows = s.execute(
            sa.select(LessonPassedRow.lesson, LessonPassedRow.passed_at)
            .where(LessonPassedRow.person_id == person_id)
            .order_by(LessonPassedRow.passed_at, LessonPassedRow.lesson)
        )
        return {"lessons_passed": [{"lesson": r[0], "passed_at": r[1].isoformat()} for r in rows]}


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """What "delete my data" does here: the person's progress goes."""
    del now
    with db.session() as s, s.begin():
        s.execute(sa.delete(LessonPassedRow).where(LessonPassedRow.person_id == person_id))
