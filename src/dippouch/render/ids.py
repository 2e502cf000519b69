"""A picture's own ids, for a page that carries more than one picture.

Every picture names its parts by the same ids (``r-ABBR`` a province's shape, ``label-ABBR`` its name, ``unit-ABBR``
a unit: docs/maps.md), so two pictures put in one page (a player's page: the open phase's map, and the last turns'
pictures its script puts inline) held the same ids twice. A processed phase's picture with its orders carries its
phase's own ids instead (:func:`dippouch.render.svg.render_phase_svg`): the plain id and ``-`` and digits after it,
which the page's script reads as the plain one (``label-ABBR[-n]``), the name's ``data-for`` likewise.
"""

from __future__ import annotations

import re

from dippouch.core.position import Position

__all__ = ["own_ids", "phase_suffix", "plain_ids"]

_ID_ATTR = re.compile(r' (id|data-for)="([^"]+)"')
_IDS = re.compile(r'^<svg[^>]*? data-ids="([^"]*)"')


def phase_suffix(position: Position) -> str:
    """``-YYYYSS``: the phase's year and the step of its year (``-190102``, Fall 1901's movement), what
    :func:`own_ids` puts after a picture's ids: the last turns a player's page shows are of distinct phases."""
    return f"-{abs(position.phase.year)}{position.phase.step:02d}"


def own_ids(svg: str, suffix: str) -> str:
    """The picture with ``suffix`` (``-`` and digits) after each of its ids (``r-par-190102``, ``label-par-190102``,
    ``unit-par-190102``, ``order-3-190102``...) and after each name's ``data-for`` (which names its province as
    the name's id does), its root saying so (``data-ids``): a page that carries two pictures (a player's page:
    the open phase's map and the last turn's, put inline by the page's script) then holds no id twice. The
    page's script reads such ids as the plain ones (a province's is ``r-ABBR`` with any ``-N`` after it); the
    checks here read them back plain (:func:`plain_ids`)."""
    head, sep, body = svg.partition(">")
    return head + f' data-ids="{suffix}"' + sep + _ID_ATTR.sub(lambda m: f' {m[1]}="{m[2]}{suffix}"', body)


def plain_ids(svg: str) -> str:
    """A picture's ids as drawn without :func:`own_ids`'s suffix (the picture itself when it has none)."""
    got = _IDS.match(svg)
    if got is None:
        return svg
    suffix = got[1]
    head, sep, body = svg.partition(">")
    head = head.replace(f' data-ids="{suffix}"', "", 1)
    return head + sep + re.sub(r' (id|data-for)="([^"]+?)' + re.escape(suffix) + '"', r' \1="\2"', body)
