"""The key scanner behind "file:line" in variant messages: every key of any valid TOML text gets its line."""

from __future__ import annotations

import tomllib
from typing import Any

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from dippouch.core.tomllines import key_lines

keys = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_characters="\\\x7f"), min_size=1, max_size=8
)
scalars = st.one_of(
    st.integers(-5, 5), st.booleans(), st.text(max_size=6), st.floats(allow_nan=False, allow_infinity=False)
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=12
)


def _paths(data: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for k, v in data.items():
        out.append((*prefix, k))
        if isinstance(v, dict):
            out.extend(_paths(v, (*prefix, k)))
    return out


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, values, max_size=5))
def test_every_key_is_found_on_the_line_that_writes_it(data: dict[str, Any]) -> None:
    text = tomli_w.dumps(data)
    assert tomllib.loads(text) == data
    lines = key_lines(text)
    written = text.splitlines()
    for path in _paths(data):
        assert path in lines, (path, text)
        assert 1 <= lines[path] <= len(written)


def test_inline_tables_multiline_arrays_and_quoted_keys() -> None:
    text = (
        '[powers."Magyars and Polacks"]\nunits = [\n  "A vie",  # a comment with [brackets]\n]\n'
        'colour = "#c48f85"\n\n[options.x]\noverrides = { powers = { England = { units = ["F ech"] } } }\n'
        'description = """two\nlines = 3"""\nafter = 1\n'
    )
    lines = key_lines(text)
    assert lines[("powers", "Magyars and Polacks", "units")] == 2
    assert lines[("powers", "Magyars and Polacks", "colour")] == 5
    assert lines[("options", "x", "overrides", "powers", "England", "units")] == 8
    assert ("options", "x", "lines") not in lines  # inside a multi-line string
    assert lines[("options", "x", "after")] == 11
