"""A map's static parts (placed names, centre markers) are made once per installation and read back from the disk
cache by every later process, and made again when the geometry they were placed on changes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dippouch.catalog import load_variant
from dippouch.render import svg
from dippouch.render.geometry import load_geometry


def test_static_parts_are_read_back_and_made_again_for_another_geometry(monkeypatch: pytest.MonkeyPatch) -> None:
    variant = load_variant("standard")
    geo = load_geometry(variant)
    assert len(geo.digest) == 32
    options = svg.RenderOptions()
    made = svg._static_from_disk(variant, geo, options)

    def refuse(*_: object) -> object:
        raise AssertionError("made again although kept")

    with monkeypatch.context() as m:
        m.setattr(svg, "_make_static", refuse)
        again = svg._static_from_disk(variant, geo, options)
    assert again == made and again is not made

    calls: list[str] = []
    real = svg._make_static

    def counted(*args: object) -> object:
        calls.append("made")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(svg, "_make_static", counted)
    svg._static_from_disk(variant, replace(geo, digest="0" * 32), options)
    svg._static_from_disk(variant, geo, replace(options, labels=not options.labels))
    assert calls == ["made", "made"]
