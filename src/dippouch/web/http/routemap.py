"""The route map of docs/web.md, made from the app itself: every address, its methods, the route module and
function that serve it and the first sentence of the function's docstring (a page whose function has none shows
its name only).

Written by hand, such a list drifts from the code the first time a route is added; made from
:func:`dippouch.web.app.feature_routers` it cannot, and tests/project/test_route_map.py fails when the doc is
older than the app. ``python -m dippouch.web.http.routemap`` rewrites the map in docs/web.md (between its two
marker lines) after a route changes.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from starlette.routing import Route

__all__ = ["BEGIN", "END", "route_map", "with_map"]

BEGIN = "<!-- route map: made by python -m dippouch.web.http.routemap -->"
END = "<!-- end of route map -->"

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def _first_sentence(doc: str | None) -> str:
    """The docstring's first sentence on one line, its reStructuredText roles and double backticks made plain
    Markdown code, pipes escaped so the table keeps its columns."""
    if not doc:
        return ""
    paragraph = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    sentence = _SENTENCE.split(paragraph, maxsplit=1)[0]
    sentence = _ROLE.sub(lambda m: f"`{m.group(1)}`", sentence).replace("``", "`")
    return sentence.replace("|", "\\|")


def _module_file(module: str) -> str:
    """``dippouch.web.routes.games`` as ``routes/games.py``: the path under ``src/dippouch/web/`` the page
    speaks from."""
    return module.removeprefix("dippouch.web.").replace(".", "/") + ".py"


def route_map() -> str:
    """The map as a Markdown table, in the order the app matches the routes (the first route that fits an
    address answers it)."""
    from dippouch.web.app import feature_routers

    lines = ["| Method | Path | Module | Function | What it does |", "| --- | --- | --- | --- | --- |"]
    for router in feature_routers():
        for route in router.routes:
            if not isinstance(route, Route):  # FastAPI's, or a plain page taking the request alone
                raise TypeError(f"{route!r}: the route map knows only routes of a method and a path")
            methods = ", ".join(sorted(route.methods or ()))
            module = _module_file(route.endpoint.__module__)
            what = _first_sentence(route.endpoint.__doc__)
            lines.append(f"| {methods} | `{route.path}` | {module} | `{route.endpoint.__name__}` | {what} |")
    return "\n".join(lines) + "\n"


def with_map(document: str, table: str) -> str:
    """``document`` with the text between its marker lines replaced by ``table``."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the document lacks the route map's markers ({BEGIN} ... {END})")
    return document[: start + len(BEGIN)] + "\n\n" + table + "\n" + document[end:]


def main(argv: list[str]) -> int:
    """Rewrite the route map in the given file (docs/web.md by default)."""
    path = Path(argv[0] if argv else "docs/web.md")
    text = path.read_text(encoding="utf-8")
    path.write_text(with_map(text, route_map()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
