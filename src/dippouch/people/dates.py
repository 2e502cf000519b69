"""Days as people type them ("2026-08-03", "3 August 2026", "3 Aug 2026"), read with messages that say what
was wrong, in which field, and the closest form that works.

Pure: the caller says which field it reads and, for ranges, hands both days in.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg

__all__ = ["DateError", "day_range", "parse_day"]

I18N_DOMAIN = "rules"
"""The catalogue of the days' refusals, said in the reader's language where they are shown (dippouch.saying)."""

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9

EXAMPLE = "2026-08-03 (year-month-day) or 3 August 2026"


class DateError(DippouchError, ValueError):
    """A day that cannot be read, or a range whose days do not fit: the message (a value, said in the reader's
    language) names the field and a form that works."""


def _make(year: int, month: int, day: int, text: str, field: str) -> date:
    if not 1 <= month <= 12:
        raise DateError(
            msg(
                "%(field)s: %(text)s has month %(month)s; months run from 1 to 12 (write it as 2026-08-03 "
                "(year-month-day) or 3 August 2026)",
                field=field,
                text=repr(text),
                month=month,
            )
        )
    last = calendar.monthrange(year, month)[1]
    if not 1 <= day <= last:
        raise DateError(
            msg(
                "%(field)s: %(text)s is not a day: %(month)s %(year)s has %(days)s days (closest: %(closest)s)",
                field=field,
                text=repr(text),
                month=calendar.month_name[month],
                year=year,
                days=last,
                closest=date(year, month, min(max(day, 1), last)).isoformat(),
            )
        )
    if not 1900 <= year <= 9999:
        raise DateError(
            msg(
                "%(field)s: %(text)s has year %(year)s; write the full year, as in 2026-08-03 (year-month-day) or "
                "3 August 2026",
                field=field,
                text=repr(text),
                year=year,
            )
        )
    return date(year, month, day)


def parse_day(text: str, field: str) -> date:
    """The day ``text`` names; ``field`` is the form field's name, for the message."""
    raw = " ".join(str(text).split())
    if not raw:
        raise DateError(
            msg("%(field)s: a day is needed, as in 2026-08-03 (year-month-day) or 3 August 2026", field=field)
        )
    if m := re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", raw):
        return _make(int(m[1]), int(m[2]), int(m[3]), raw, field)
    if m := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+)\.?,?\s+(\d{4})", raw):
        month = MONTHS.get(m[2].lower())
        if month is None:
            import difflib  # only for a month misspelt

            close = difflib.get_close_matches(m[2].capitalize(), [n for n in calendar.month_name if n], 1, 0.6)
            if close:
                raise DateError(
                    msg(
                        "%(field)s: no month %(month)s in %(text)s; did you mean %(close)s?",
                        field=field,
                        month=repr(m[2]),
                        text=repr(raw),
                        close=close[0],
                    )
                )
            raise DateError(
                msg(
                    "%(field)s: no month %(month)s in %(text)s; write it as 2026-08-03 (year-month-day) or "
                    "3 August 2026",
                    field=field,
                    month=repr(m[2]),
                    text=repr(raw),
                )
            )
        return _make(int(m[3]), month, int(m[1]), raw, field)
    if re.fullmatch(r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}", raw):
        raise DateError(
            msg(
                "%(field)s: %(text)s could be read day-first or month-first; write it as 2026-08-03 "
                "(year-month-day) or 3 August 2026 so it means one day",
                field=field,
                text=repr(raw),
            )
        )
    raise DateError(
        msg(
            "%(field)s: %(text)s is not a day this form reads; write it as 2026-08-03 (year-month-day) or "
            "3 August 2026",
            field=field,
            text=repr(raw),
        )
    )


def day_range(first: str, last: str) -> tuple[date, date]:
    """Two days read from the fields ``from`` and ``to``; the last may not come before the first."""
    a = parse_day(first, "from")
    b = parse_day(last, "to")
    if b < a:
        raise DateError(
            msg(
                "to: %(last)s is before 'from' (%(first)s); did you mean from %(last)s to %(first)s?",
                last=b.isoformat(),
                first=a.isoformat(),
            )
        )
    return a, b
