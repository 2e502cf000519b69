"""Where each key of a TOML text is written: ``("powers", "France", "units") -> line 42``.

``tomllib`` gives values without positions, and a variant author needs "standard.toml:238" in every
message. This scanner reads the text once, line by line, and records the line of every table header and
every key, inside inline tables and across multi-line arrays too. It does not validate TOML (``tomllib``
does that first); on text it cannot follow it simply records less, and messages fall back to the nearest
enclosing key.
"""

from __future__ import annotations

import re

__all__ = ["key_lines"]

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _read_key(s: str, i: int) -> tuple[list[str], int] | None:
    """A (dotted) key starting at ``s[i]``: its parts and the index after it, or None."""
    parts: list[str] = []
    n = len(s)
    while True:
        while i < n and s[i] in " \t":
            i += 1
        if i >= n:
            return None
        if s[i] in "\"'":
            q = s[i]
            j = i + 1
            buf = []
            while j < n and s[j] != q:
                if q == '"' and s[j] == "\\" and j + 1 < n:
                    buf.append(s[j + 1])
                    j += 2
                    continue
                buf.append(s[j])
                j += 1
            if j >= n:
                return None
            parts.append("".join(buf))
            i = j + 1
        else:
            m = _BARE.match(s, i)
            if not m:
                return None
            parts.append(m.group(0))
            i = m.end()
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == ".":
            i += 1
            continue
        return parts, i


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map every key path in ``text`` to its 1-based line (the first place it is written)."""
    out: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    # Stack of open brackets inside a value: ("{", path) for inline tables, ("[", path) for arrays.
    stack: list[tuple[str, tuple[str, ...]]] = []
    in_ml: str | None = None  # inside a multi-line string: its delimiter
    lineno = 0

    def record(path: tuple[str, ...]) -> None:
        for k in range(1, len(path) + 1):
            out.setdefault(path[:k], lineno)

    # TOML ends lines with \n (or \r\n) only; str.splitlines would also split at \x85 or \u2028 inside a string.
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        lineno += 1
        i = 0
        n = len(line)
        if in_ml is not None:
            end = line.find(in_ml)
            if end < 0:
                continue
            i = end + 3
            in_ml = None
        if not stack:
            stripped = line.lstrip()
            if stripped.startswith("["):
                j = len(line) - len(stripped) + (2 if stripped.startswith("[[") else 1)
                got = _read_key(line, j)
                if got:
                    table = tuple(got[0])
                    record(table)
                continue
            if not stripped or stripped.startswith("#"):
                continue
            got = _read_key(line, i)
            if not got or got[1] >= n or line[got[1]] != "=":
                continue
            path = table + tuple(got[0])
            record(path)
            i = got[1] + 1
            current = path
        else:
            current = stack[-1][1]
        # Scan the value part for brackets, strings and inline-table keys.
        expect_key = bool(stack) and stack[-1][0] == "{"
        while i < n:
            c = line[i]
            if c == "#":
                break
            if c in " \t,":
                if c == "," and stack and stack[-1][0] == "{":
                    expect_key = True
                i += 1
                continue
            if expect_key and stack and stack[-1][0] == "{" and c != "}":
                got = _read_key(line, i)
                if got and got[1] < n and line[got[1]] == "=":
                    current = stack[-1][1] + tuple(got[0])
                    record(current)
                    i = got[1] + 1
                    expect_key = False
                    continue
                expect_key = False
            if line.startswith('"""', i) or line.startswith("'''", i):
                delim = line[i : i + 3]
                end = line.find(delim, i + 3)
                if end < 0:
                    in_ml = delim
                    break
                i = end + 3
                continue
            if c in "\"'":
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if (c == '"' and line[j] == "\\") else 1
                i = j + 1
                continue
            if c == "{":
                stack.append(("{", current))
                expect_key = True
                i += 1
                continue
            if c == "[":
                stack.append(("[", current))
                i += 1
                continue
            if c in "}]":
                if stack:
                    stack.pop()
                if stack:
                    current = stack[-1][1]
                i += 1
                continue
            i += 1
    return out
