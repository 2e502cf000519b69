"""Tools for variant authors: a starting file that loads as it is, and one check that says everything.

``dippouch variants new`` and ``dippouch variants check`` are thin shells over these functions, so the
tests (and any other front end) use exactly what an author runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from dippouch.catalog import builtin_names, load_variant
from dippouch.core.errors import DippouchError, UnknownVariantError, VariantError, VariantProblem
from dippouch.core.messages import msg
from dippouch.core.schema import look_alike_powers
from dippouch.core.variant import Variant

__all__ = ["NAME_RE", "CheckReport", "check_file", "skeleton", "write_skeleton"]

I18N_DOMAIN = "rules"
"""The catalogue of the variant authoring's refusals, said in the reader's language where they are shown
(dippouch.saying)."""

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


class AuthoringError(DippouchError):
    """Something ``variants new`` or ``variants check`` was asked that cannot be done."""


def _check_name(name: str) -> None:
    if not NAME_RE.match(name):
        raise AuthoringError(
            msg(
                "a variant name is 1 to 40 lower-case letters, digits, '-' or '_', starting with a letter or digit; "
                "%(name)s is not (try %(suggestion)s)",
                name=repr(name),
                suggestion=repr(re.sub(r"[^a-z0-9_-]", "", name.lower())[:40] or "myvariant"),
            )
        )


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(_toml_str(i) for i in items) + "]"


def skeleton(name: str, extends: str | None) -> str:
    """The text of a new variant file that loads as it is, with the keys an author changes first commented."""
    _check_name(name)
    if extends:
        return _child_skeleton(name, load_variant(extends))
    return _standalone_skeleton(name)


def _child_skeleton(name: str, parent: Variant) -> str:
    m = parent.map
    cal = parent.calendar
    steps = ", ".join(f"{i} = {(s.season + ' ') if s.season else ''}{s.kind.label}" for i, s in enumerate(cal.steps))
    lines = [
        f"# {name}: a variant of {parent.title} ({parent.name}). Written by `dippouch variants new`; it loads as it is.",
        f"# Everything this file does not say comes from {parent.name}: tables merge key by key, any other value",
        "# replaces the parent's (docs/variant-format.md, 'Inheritance'). Uncomment and edit what differs, then run",
        f"#   dippouch variants check {name}.toml",
        "",
        "[variant]",
        f"name = {_toml_str(name)}                  # must equal the file name",
        f"title = {_toml_str(name)}",
        f"description = {_toml_str(f'A variant of {parent.title}.')}",
        f"extends = {_toml_str(parent.name)}",
        "",
        f"# Where the game starts. {parent.name}'s phases: {steps}.",
        "# [calendar]",
        f"# start_year = {cal.start.year}",
        f"# start_step = {cal.start.step}",
        "",
        "# [victory]",
    ]
    if "centres" in parent.victory:
        lines.append(f"# centres = {parent.victory['centres']}")
    else:
        lines.append("# centres = 18")
    lines += [
        "",
        "# [rules]",
        '# build_sites = "owned"        # build in any owned centre (default: owned home centres)',
        "",
        f"# The powers of {parent.name} as they start. Uncomment a power's table to change it; a [powers.NAME] table",
        "# with a new name makes a new power (it then needs adjective, letter, colour, home_centres and units).",
    ]
    for p in parent.powers:
        homes = sorted(m.provinces[h].abbr for h in parent.start.homes.get(p.name, frozenset()))
        owned = sorted(m.provinces[c].abbr for c in parent.start.centres_of(p.name))
        units = [f"{u.kind} {m.locations[u.loc].abbr}" for u in parent.start.units_of(p.name)]
        key = p.name if re.match(r"^[A-Za-z0-9_-]+$", p.name) else _toml_str(p.name)
        lines += [
            "",
            f"# [powers.{key}]",
            f"# home_centres = {_toml_list(homes)}",
            f"# centres = {_toml_list(owned)}",
            f"# units = {_toml_list(units)}",
        ]
    some = next((p for p in m.provinces if p.supply_centre), m.provinces[0])
    lines += [
        "",
        "# A change to a province (here: another name understood in orders):",
        f"# [provinces.{some.abbr}]",
        f"# aliases = [{_toml_str(some.name.lower() + ' city')}]",
        "",
    ]
    return "\n".join(lines)


def _standalone_skeleton(name: str) -> str:
    return f"""# {name}: a new variant. Written by `dippouch variants new`; it loads as it is: a tiny board of four
# provinces and two powers, to be replaced by yours. Every key is described in docs/variant-format.md.
# Check it with
#   dippouch variants check {name}.toml

[variant]
name = {_toml_str(name)}                  # must equal the file name
title = {_toml_str(name)}
description = "A new variant."

[calendar]
start_year = 1901
start_step = 0               # index in `phases` of the first phase
cycle_years = 1              # years one pass through `phases` covers
phases = [
  {{ season = "Spring", kind = "movement" }},
  {{ season = "Spring", kind = "retreats" }},
  {{ season = "Fall", kind = "movement" }},
  {{ season = "Fall", kind = "retreats" }},
  {{ season = "Winter", kind = "adjustments" }},
]

[victory]
centres = 2                  # supply centres needed to win

[rules]
# build_sites = "owned"      # build in any owned centre (default: owned home centres)

[powers.North]
adjective = "Northern"
letter = "N"
colour = "#2848b4"
home_centres = ["nor"]
units = ["F nor"]

[powers.South]
adjective = "Southern"
letter = "S"
colour = "#c8283c"
home_centres = ["sou"]
units = ["A sou"]

# Every border is listed from both ends. `point` is a real [longitude, latitude] (for the map picture and
# `mapcheck`'s border lengths).
[provinces.nor]
name = "Northland"
type = "coast"
sc = true
point = [10.0, 60.0]
army = ["mid"]
fleet = ["sea"]

[provinces.mid]
name = "Midland"
type = "land"
sc = true
point = [10.5, 58.0]
army = ["nor", "sou"]

[provinces.sou]
name = "Southland"
type = "coast"
sc = true
point = [10.0, 56.0]
army = ["mid"]
fleet = ["sea"]

[provinces.sea]
name = "The Sea"
type = "sea"
aliases = ["sea"]
point = [7.0, 58.0]
fleet = ["nor", "sou"]
"""


def write_skeleton(name: str, extends: str | None, folder: Path, *, force: bool = False) -> Path:
    """Write ``folder/NAME.toml``; refuses a built-in name and (without ``force``) an existing file."""
    _check_name(name)
    if name in builtin_names():
        raise AuthoringError(
            msg(
                "%(name)s is a built-in variant; choose another name (e.g. %(plain)s-mine)", name=repr(name), plain=name
            )
        )
    text = skeleton(name, extends)
    if not folder.is_dir():
        raise AuthoringError(
            msg("no folder %(folder)s; create it first or choose another with --dir", folder=repr(str(folder)))
        )
    path = folder / f"{name}.toml"
    if path.exists() and not force:
        raise AuthoringError(
            msg("%(path)s already exists; choose another name or pass --force to replace it", path=str(path))
        )
    path.write_text(text, encoding="utf-8")
    return path


@dataclass
class CheckReport:
    """Everything ``dippouch variants check`` found in a file."""

    path: Path
    problems: list[str] = field(default_factory=list)
    """Mistakes: the file cannot be played as it is, or the map is almost certainly wrong."""
    notes: list[str] = field(default_factory=list)
    """Worth a look, but can be right (islands, long borders without a justification)."""
    summary: list[str] = field(default_factory=list)
    variant: Variant | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def check_file(path: Path, *, factor: float = 1.6, picture: bool = False, build: bool = False) -> CheckReport:
    """Check a variant file as its author needs: the schema and the map, every problem at once.

    With ``picture``, also the drawn map (:func:`check_drawing`): its geometric checks and a PNG of the
    opening position written beside the file, so an author sees the board as players will.
    """
    from dippouch.mapcheck import check_map

    rep = CheckReport(path)
    if not path.is_file():
        raise AuthoringError(msg("no file %(path)s", path=repr(str(path))))
    if path.suffix != ".toml":
        raise AuthoringError(
            msg("%(path)s is not a .toml file; variant files are TOML (see docs/variant-format.md)", path=str(path))
        )
    try:
        v = load_variant(str(path))
    except VariantError as e:
        rep.problems.extend(str(p) for p in e.problems)
        return rep
    except UnknownVariantError as e:
        rep.problems.append(str(VariantProblem("variant.extends", str(e))))
        return rep
    rep.variant = v
    rep.notes.extend(
        f"powers: {a} and {b} have names alike; both are declared, so both are kept: make sure neither is a "
        "misspelling of the other, and expect players to mix them up in orders and messages"
        for a, b in look_alike_powers(list(v.power_names))
    )
    mc = check_map(v, factor=factor)
    pointless = [p.split(" ", 1)[0] for p in mc.problems if p.endswith("has no point [longitude, latitude]")]
    if len(pointless) > 5:
        rep.problems.append(
            f"map: {len(pointless)} provinces have no point [longitude, latitude] (needed for the picture and "
            f"border lengths): {' '.join(pointless[:12])}{' ...' if len(pointless) > 12 else ''}"
        )
        mc.problems = [p for p in mc.problems if not p.endswith("has no point [longitude, latitude]")]
    rep.problems.extend(f"map: {p}" for p in mc.problems)
    rep.notes.extend(f"map: {n}" for n in mc.notes)
    rep.notes.extend(
        f"map: long border {e.a}-{e.b} ({e.km:.0f} km, x{e.ratio}) has no justification under [mapcheck.long_edges]"
        for e in mc.unexplained
    )
    c = mc.counts
    rep.summary.append(
        f"{v.title} ({v.name}): {c['provinces']} provinces, {c['centres']} centres, {len(v.powers)} powers, "
        f"{c['army_edges']} army and {c['fleet_edges']} fleet borders; starts {v.calendar.name(v.start.phase)}"
    )
    if picture and rep.ok:
        check_drawing(v, path, rep, build=build)
    return rep


def check_drawing(v: Variant, path: Path, rep: CheckReport, *, build: bool) -> None:
    """The drawn map of a variant file: geometry found or made, geometric checks, a picture beside the file.

    A variant whose map is a built-in one unchanged (most variants that only change powers or rules) takes
    that map's geometry at once; a new or changed map is built with ``build`` (``dippouch mapgen``, seconds
    to a minute) and otherwise gets a note saying how. Drawing mismatches are notes, not problems: the
    variant plays correctly, but its picture would mislead players until they are fixed.
    """
    import json

    try:
        from dippouch.mapcheck import check_geometry
        from dippouch.render import RenderOptions, render_svg, svg_to_png
        from dippouch.render.geometry import geometry_path, load_geometry
        from dippouch.render.mapgen.build import MapgenError, clip_gap, dumps, map_hash
        from dippouch.render.mapgen.checks import format_geo_report
        from dippouch.render.mapgen.pipeline import build as build_geometry
    except ModuleNotFoundError as e:
        rep.notes.append(
            f"drawing: the geometric checks and the picture need {e.name}, which is not installed "
            "(pip install 'dippouch[mapgen]')"
        )
        return
    target = geometry_path(v)
    want = map_hash(v)
    try:
        have: str | None = load_geometry(v).map_hash
    except (FileNotFoundError, ValueError, KeyError):
        have = None
    if have != want:
        doc = None
        parent = v.data.get("variant", {}).get("extends")
        for name in sorted(builtin_names(), key=lambda n: n != parent):  # the variant it extends first
            try:
                base = load_variant(name)
                if load_geometry(base).map_hash == want:
                    doc = json.loads(geometry_path(base).read_text(encoding="utf-8"))
                    rep.notes.append(f"drawing: the map is {name}'s unchanged; its geometry is used")
                    break
            except (DippouchError, FileNotFoundError, ValueError, KeyError):
                continue
        if doc is None and build:
            gap = clip_gap(v)
            if gap:
                rep.notes.append(f"drawing: {gap}")
            try:
                doc = build_geometry(v)
            except MapgenError as e:
                rep.problems.append(f"drawing: {e}")
                return
            rep.notes.append(f"drawing: map geometry built from {path.name}")
        if doc is None:
            why = "is out of date" if have else "was never built"
            rep.notes.append(
                f"drawing: the map geometry of {v.name!r} {why}; build it with `dippouch mapgen {path}` "
                f"(seconds to a minute) or `dippouch variants check {path} --build`, then check again"
            )
            return
        doc["variant"] = v.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dumps(doc), encoding="utf-8")
        rep.notes.append(f"drawing: wrote {target}")
    geo = check_geometry(v)
    if geo.mismatches:
        rep.notes.append(f"drawing: {format_geo_report(geo, v.name)}")
    else:
        rep.summary.append(
            f"drawing: every declared border is drawn and no other ({geo.counts()['connectors']} "
            "connectors across water)"
        )
    png = path.with_suffix(".png")
    svg = render_svg(v, v.start, options=RenderOptions(title=f"{v.title}: the opening position"))
    png.write_bytes(svg_to_png(svg))
    rep.summary.append(f"picture of the map: {png}")
