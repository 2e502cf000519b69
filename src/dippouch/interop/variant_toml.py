"""Write variant data as a variant file an author can read: our layout, values escaped by ``tomli_w``.

The importers build the data of a variant file (the dict ``tomllib`` would read back); this writes it in
the layout of the built-in files, one table per power and per province, lists on one line, with the
importer's report as comments on top.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import tomli_w

__all__ = ["dumps_variant"]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else tomli_w.dumps({"k": k}).split(" = ", 1)[1].strip()


def _value(v: Any) -> str:
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(str(k))} = {_value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return tomli_w.dumps({"v": v}).split(" = ", 1)[1].strip()


def _table(lines: list[str], header: str, body: Mapping[str, Any], *, inline_tables: Sequence[str] = ()) -> None:
    lines.append(f"[{header}]")
    nested: list[tuple[str, Mapping[str, Any]]] = []
    for k, v in body.items():
        if isinstance(v, Mapping) and k not in inline_tables and all(isinstance(x, Mapping) for x in v.values()) and v:
            nested.append((k, v))
            continue
        if k == "outlines" and isinstance(v, Mapping):  # one line per province, not one line for all
            nested.append((k, {"": v}))
            continue
        if k == "phases" and isinstance(v, list):
            lines.append("phases = [")
            lines.extend(f"  {_value(p)}," for p in v)
            lines.append("]")
            continue
        lines.append(f"{_key(k)} = {_value(v)}")
    lines.append("")
    for k, v in nested:
        for sub, val in v.items():
            _table(lines, f"{header}.{_key(k)}" + (f".{_key(str(sub))}" if sub else ""), val)


def dumps_variant(data: Mapping[str, Any], comments: Sequence[str] = ()) -> str:
    """The text of a variant file holding ``data``, with ``comments`` (one per line) at the top."""
    lines = [f"# {c}".rstrip() for c in comments]
    if lines:
        lines.append("")
    for section in ("variant", "calendar", "victory", "rules", "drawing"):
        if section in data:
            _table(lines, section, data[section], inline_tables=("by_power", "opening_sites", "extra_build_centres"))
    for section in ("powers", "provinces"):
        for name, body in data.get(section, {}).items():
            lines.append(f"[{section}.{_key(str(name))}]")
            for k, v in body.items():
                if k == "coasts" and isinstance(v, Mapping):
                    for c, spec in v.items():
                        lines.append(f"coasts.{_key(str(c))} = {_value(spec)}")
                else:
                    lines.append(f"{_key(k)} = {_value(v)}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
