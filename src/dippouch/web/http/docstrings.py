"""A route's docstring as HTML for the API's documentation page (``/api/docs``).

The docstrings are written for Python readers, in reStructuredText's inline forms (````code````, ```code```,
``:mod:`dippouch.contract```) with blank lines between paragraphs; the page must show code as code, not
those marks. Everything is escaped first; only these few forms become markup.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

__all__ = ["docstring_html"]

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``|`([^`]+)`")


def docstring_html(text: str) -> Markup:
    """Paragraphs (blank-line separated, lines joined) with inline code as ``<code>``. The page puts the
    result inside a ``<p>``, so paragraphs are separated by closing and opening one."""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    out = []
    for p in paragraphs:
        p = _ROLE.sub(lambda m: f"`{m.group(1)}`", p)
        parts: list[str] = []
        last = 0
        for m in _LITERAL.finditer(p):
            parts.append(str(escape(p[last : m.start()])))
            parts.append(f"<code>{escape(m.group(1) or m.group(2))}</code>")
            last = m.end()
        parts.append(str(escape(p[last:])))
        out.append("".join(parts))
    return Markup("</p><p>".join(out))
