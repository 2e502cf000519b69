"""A phase's name shown on a page is said in the page's language (``{{ g.phase|phase }}``: Frühjahr 1901
Bewegung): a lint of the templates, since a name left bare reads "Spring 1901 Movement" on a German page and
only a reader of that language would notice. Attribute values are left alone: ``data-phase`` and a form's
hidden ``phase`` carry the calendar's name for programs (scripts, the order form's check that the phase is
still open)."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "dippouch" / "web" / "templates"

SHOWN = re.compile(r"\{\{(?P<expr>[^}]*)\}\}")
BARE = re.compile(
    r"(?<![\w.])(?<!if )(?<!not )(?:\w+\.)+(?:phase|name)\b(?!\s*\|\s*phase)(?![\w(.])|\bphase=phase\b(?!\s*\|)"
)
"""A phase's name used without the filter: ``x.phase`` (or a phase record's ``ph.name``), bare or as a
message's ``phase=`` value."""


SAYING = ("phase_mark(",)
"""Macros that say the phase's name they are given (_press.html's mark, with the filter inside)."""


def _bare_phase_names(name: str, text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in SHOWN.finditer(line):
            if line[: m.start()].endswith('="'):
                continue  # an attribute's value: for programs
            expr = m.group("expr")
            if expr.strip().startswith(SAYING):
                continue
            for bare in BARE.finditer(expr):
                word = bare.group(0)
                if word.endswith(".name") and not word.startswith(("ph.", "phase.")):
                    continue  # a game's, a person's, a variant's name
                found.append(f"{name}:{number}: {word}")
    return found


def test_every_phase_name_shown_is_said_in_the_pages_language() -> None:
    found = [
        hit
        for path in sorted(TEMPLATES.glob("*.html"))
        for hit in _bare_phase_names(path.name, path.read_text(encoding="utf-8"))
    ]
    assert found == [], "add |phase: " + "; ".join(found)


def test_the_lint_sees_a_bare_name() -> None:
    """The lint can fail: a bare name in text and in a message is found; a filtered one and an attribute not."""
    sample = (
        '<p>{{ st.phase }}</p><p>{{ _("Release %(phase)s", phase=st.phase) }}</p><p>{{ st.phase|phase }}</p>'
        '<li data-phase="{{ x.phase }}"></li><h1>{{ ph.name }}</h1><p>{{ _("Board") if g.phase else "" }}</p>'
    )
    assert [hit.split(": ", 1)[1] for hit in _bare_phase_names("sample", sample)] == ["st.phase", "st.phase", "ph.name"]
