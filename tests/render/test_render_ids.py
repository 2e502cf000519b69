"""A processed phase's picture has ids of its own, so a player's page holds no id twice.

The walk's defect: a player's page carries the open phase's map (inline) and the last turn's (its script puts
the picture inline), both with ``id="r-yor"`` and the other ids of a drawn map: 178 ids twice in one document on
the standard map. Now the last turn's picture (a processed phase drawn with its orders and results) names its
parts with its phase after each id (``r-yor-190100``), which the page's script reads as the plain id;
tests/web/test_map_fixes_browser.py counts the page's ids in a browser.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from dippouch.catalog import load_variant
from dippouch.core.jsonio import position_from_json, position_to_json
from dippouch.render import RenderOptions, render_phase_svg, render_svg
from dippouch.render.audit import audit_svg
from dippouch.render.ids import own_ids, plain_ids
from dippouch.render.shots import busiest_phase

# What app.js reads a drawn map's ids by (its click entry: "label-ABBR[-n]"), and how its viewer pairs a name
# with its halo and leader line (the name's id less "label-", against their data-for).
SCRIPT_ID = re.compile(r"^(?:r|unit|dislodged|sc|label|leader)-(.+?)(?:-\d+)?$")


def _ids(svg: str) -> list[str]:
    return re.findall(r' id="([^"]+)"', svg)


def _processed() -> tuple[Any, dict[str, Any], str]:
    """A processed phase's record (the sample game's busiest), and its phase's suffix."""
    v = load_variant("standard")
    ph = busiest_phase(v)
    record = {
        "game": "ids",
        "status": "processed",
        "position": position_to_json(v, ph.position),
        "orders": ph.orders,
        "results": ph.results,
    }
    return v, record, f"-{ph.position.phase.year}{ph.position.phase.step:02d}"


def test_a_processed_phases_picture_shares_no_id_with_the_open_phases() -> None:
    v, record, suffix = _processed()
    last = render_phase_svg(v, record)
    live = render_svg(v, v.start)
    assert f'data-ids="{suffix}"' in last[: last.index(">")]
    assert not set(_ids(last)) & set(_ids(live))
    assert [k for k, n in Counter(_ids(last) + _ids(live)).items() if n > 1] == []
    # Every id reads as its plain one (the page's script), each name's halo and leader line say its id's.
    for ident in _ids(last):
        assert ident.endswith(suffix), ident
        m = SCRIPT_ID.match(ident)
        if not ident.startswith("order-"):
            assert m is not None and ident == f"{ident.split('-')[0]}-{m[1]}{suffix}", ident
    for abbr in re.findall(r'<text id="label-([^"]+)"', last):
        assert f'data-for="{abbr}"' in last, abbr
    # The checks read it back as drawn without the suffix: the same picture, the same findings.
    position = position_from_json(v, record["position"])
    plain = render_svg(v, position, record["orders"], record["results"], RenderOptions(title="ids"))
    assert plain_ids(last) == plain
    assert audit_svg(last).misplaced == audit_svg(plain).misplaced == 0
    assert audit_svg(last).names == 76


def test_the_open_phase_and_an_unjudged_picture_keep_their_plain_ids() -> None:
    v, record, _ = _processed()
    opened = render_phase_svg(v, {**record, "status": "open", "results": None, "orders": {}})
    assert 'id="r-yor"' in opened and "data-ids" not in opened[: opened.index(">")]
    after = render_phase_svg(v, record, after=True)
    assert 'id="r-yor"' in after


def test_own_ids_and_back() -> None:
    svg = '<svg viewBox="0 0 1 1"><path id="r-par" d="M0 0"/><text id="label-par" data-for="par">PAR</text></svg>'
    own = own_ids(svg, "-190102")
    assert own == (
        '<svg viewBox="0 0 1 1" data-ids="-190102"><path id="r-par-190102" d="M0 0"/>'
        '<text id="label-par-190102" data-for="par-190102">PAR</text></svg>'
    )
    assert plain_ids(own) == svg
