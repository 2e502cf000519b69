"""Stored English read back into message values against a migration's frozen sentences, and the walk that
writes each message beside its text.

Migrations 0032 (the ratings' problems) and 0033 (the mail log's reasons) each keep their own frozen list of
sentences (a migration must do the same on every database whenever it runs, whatever the wording becomes);
how a list reads a text back is one thing, kept here. Each sentence says what its placeholders held: a name or
a word (``s``, the default), a number (``%d``), a phase's name said with the reader's season words (``p``) or
a nested message (``m``). A reading counts only when the message says exactly the stored text again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import Arg, Msg, PhaseName

__all__ = ["SentenceReader", "walk_texts"]

_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")

Change = Callable[[str, Any], Msg | None]
"""Given a row's stored text and its message data (``None`` when it has none), the message to write, or
``None`` to leave the row as it is."""


class SentenceReader:
    """Reads a stored English text back into its message against ``sentences`` ((template, kinds) pairs, kinds
    as ``"reason=m phase=p"``), nested messages at most ``depth`` deep. ``longest_first``: the sentence with
    the most fixed text is tried first ("applied on X's word as France version 3" is read by its own sentence,
    not as a power named "applied on X's word as France"); else in the list's order."""

    def __init__(self, sentences: Sequence[tuple[str, str]], *, depth: int, longest_first: bool = False) -> None:
        self.sentences = tuple(sentences)
        self.depth = depth
        self.longest_first = longest_first

    @cached_property
    def _patterns(self) -> tuple[tuple[re.Pattern[str], str, dict[str, str]], ...]:
        out = []
        for template, kinds in self.sentences:
            said = dict(k.split("=") for k in kinds.split())
            parts: list[str] = []
            last = 0
            seen: set[str] = set()
            for m in _PLACEHOLDER.finditer(template):
                parts.append(re.escape(template[last : m.start()]))
                name, conv = m.group(1), m.group(2)
                if name in seen:  # written twice, it says the same both times
                    parts.append(rf"(?P={name})")
                else:
                    parts.append(rf"(?P<{name}>-?\d+)" if conv == "d" else rf"(?P<{name}>.+?)")
                    seen.add(name)
                if conv == "d":
                    said[name] = "d"
                last = m.end()
            parts.append(re.escape(template[last:]))
            out.append((re.compile("".join(parts), re.DOTALL), template, said))
        if self.longest_first:
            out.sort(key=lambda t: -len(_PLACEHOLDER.sub("", t[1])))
        return tuple(out)

    def read_back(self, text: str, _depth: int = 0) -> Msg | None:
        """The message of a stored English ``text``, or ``None`` when no sentence reads it whole (and says
        exactly ``text`` again)."""
        if _depth > self.depth or not text:
            return None
        for pattern, template, kinds in self._patterns:
            found = pattern.fullmatch(text)
            if found is None:
                continue
            args: dict[str, Arg] = {}
            for name, value in found.groupdict().items():
                kind = kinds.get(name, "s")
                if kind == "d":
                    args[name] = int(value)
                elif kind == "p":
                    args[name] = PhaseName(value)
                elif kind == "m":
                    inner = self.read_back(value, _depth + 1)
                    if inner is None:
                        break
                    args[name] = inner
                else:
                    args[name] = value
            else:
                said = Msg(template, args)
                # A reading that would change a single character is no reading.
                if str(said) == text:
                    return said
        return None


def walk_texts(
    conn: sa.Connection, table: sa.TableClause, ident: str, text: str, data: str, change: Change, batch: int
) -> int:
    """Ask ``change`` for each row's message (``text`` its stored English, ``data`` the column the message goes
    in), ``batch`` rows at a time by ``ident``; write those it gives. Rows without text are not asked. The
    number of rows written."""
    key, texts, values = table.c[ident], table.c[text], table.c[data]
    written = 0
    last: Any = None
    while True:
        query = sa.select(key, texts, values).where(texts.is_not(None)).order_by(key).limit(batch)
        rows = conn.execute(query if last is None else query.where(key > last)).all()
        if not rows:
            return written
        for row_id, stored, got in rows:
            m = change(str(stored), got)
            if m is not None:
                conn.execute(table.update().where(key == row_id).values({data: m.to_data()}))
                written += 1
        last = rows[-1][0]
