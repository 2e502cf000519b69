"""Read Diplicity's variant JSON into the data of a dippouch variant file, with a report.

The format is the object Diplicity's variant service returns for a variant (bare, or inside the service's
``Properties`` envelope): ``Name``, ``Nations``, ``NationColors``, ``ProvinceLongNames``, ``Seasons``,
``PhaseTypes``, ``Start`` (``Year``, ``Season``, ``Type``, ``SCs``, ``Units``) and ``Graph.Nodes``, the
adjacency graph: each node has ``Subs`` (``""`` for the province itself, ``"nc"``... for split coasts) whose
``Flags`` say who may stand there (``Land``, ``Sea``) and whose ``Edges`` say who may cross (``Land``: armies,
``Sea``: fleets), and ``SC``: the nation whose home centre it is, ``Neutral``, or null. Facts of a format
only; nothing of Diplicity's code is used.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dippouch.core.messages import msg
from dippouch.interop.dpjudge import ImportError_, ImportResult, _drop_clashing_names, pick_letter
from dippouch.interop.pictures import PALETTE, Ring, place_provinces, read_godip_svg

__all__ = ["import_diplicity"]

I18N_DOMAIN = "rules"
"""The catalogue of the import's refusals, said in the reader's language where they are shown (dippouch.saying)."""

_KINDS = {
    "movement": "movement",
    "retreat": "retreats",
    "retreats": "retreats",
    "adjustment": "adjustments",
    "adjustments": "adjustments",
}


def _flags(obj: Any) -> set[str]:
    flags = obj.get("Flags") if isinstance(obj, dict) else None
    if isinstance(flags, dict):
        return {str(k).lower() for k, v in flags.items() if v}
    if isinstance(flags, list):
        return {str(k).lower() for k in flags}
    return set()


def import_diplicity(path: Path, name: str, picture: Path | None = None) -> ImportResult:
    """Read ``path`` (Diplicity variant JSON) into variant data named ``name``; the map's spots come from
    ``picture`` (godip's map SVG) or an SVG beside the file named like it (``NAME.svg``, ``NAMEmap.svg``)."""
    if not path.is_file():
        raise ImportError_(msg("no file %(path)s", path=repr(str(path))))
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ImportError_(msg("%(path)s is not JSON: %(why)s", path=str(path), why=str(e))) from None
    if isinstance(raw, dict) and isinstance(raw.get("Properties"), dict):
        raw = raw["Properties"]
    if isinstance(raw, dict) and isinstance(raw.get("Properties"), list):
        names = [str(v.get("Name", "?")) for v in raw["Properties"] if isinstance(v, dict)]
        raise ImportError_(
            msg(
                "%(path)s lists %(num)d variants (%(names)s); save the one you want on its own",
                path=str(path),
                num=len(names),
                names=", ".join(names),
            )
        )
    if not isinstance(raw, dict):
        raise ImportError_(msg("%(path)s: expected a JSON object describing one variant", path=str(path)))
    start: dict[str, Any] = raw["Start"] if isinstance(raw.get("Start"), dict) else {}
    graph = raw.get("Graph") or start.get("Graph")
    if not isinstance(graph, dict) or not isinstance(graph.get("Nodes"), dict):
        raise ImportError_(_no_graph(path, raw))
    report: list[str] = []
    guesses: list[str] = []
    rules_text = str(raw.get("Rules") or "")
    long_names = raw.get("ProvinceLongNames") or {}
    nodes: dict[str, Any] = {str(k).lower(): v for k, v in graph["Nodes"].items()}

    provinces: dict[str, dict[str, Any]] = {}
    homes: dict[str, list[str]] = {}
    army: set[tuple[str, str]] = set()
    fleet: set[tuple[str, str]] = set()
    sub_flags: dict[str, set[str]] = {}
    for prov, node in nodes.items():
        subs = {str(k).lower(): v for k, v in (node.get("Subs") or {}).items()}
        for c, sub in subs.items():
            sub_flags[f"{prov}/{c}" if c else prov] = _flags(sub)
    for prov, node in sorted(nodes.items()):
        subs = {str(k).lower(): v for k, v in (node.get("Subs") or {}).items()}
        base = sub_flags.get(prov, set())
        coasts = sorted(c for c in subs if c)
        sea_anywhere = "sea" in base or any("sea" in sub_flags.get(f"{prov}/{c}", set()) for c in coasts)
        if "land" in base and sea_anywhere:
            kind = "coast"
        elif "land" in base:
            kind = "land"
        elif sea_anywhere:
            kind = "sea"
        else:
            kind = "impassable"
            report.append(f"{prov}: neither Land nor Sea; read as impassable")
        entry: dict[str, Any] = {
            "name": str(long_names.get(prov, long_names.get(prov.upper(), prov.upper()))),
            "type": kind,
        }
        sc = node.get("SC")
        if sc:
            entry["sc"] = True
            if str(sc).lower() != "neutral":
                homes.setdefault(str(sc), []).append(prov)
        if coasts:
            entry["coasts"] = {}
            for c in coasts:
                long = str(long_names.get(f"{prov}/{c}", ""))
                m = re.search(r"\(([^)]*)\)", long)
                entry["coasts"][c] = {"name": m.group(1).strip().lower()} if m else {}
        provinces[prov] = entry
        for c, sub in subs.items():
            here = f"{prov}/{c}" if c else prov
            for target, edge in (sub.get("Edges") or {}).items():
                t = str(target).lower()
                tbase = t.split("/")[0]
                if tbase not in nodes:
                    report.append(f"{here} -> {t}: no such province; left out")
                    continue
                flags = _flags(edge)
                if not flags:  # no flags on the edge: who may cross follows who may stand at both ends
                    flags = sub_flags.get(here, set()) & sub_flags.get(t, set())
                if "land" in flags and not c and "/" not in t:
                    army.add((prov, tbase))
                if "sea" in flags and "sea" in sub_flags.get(here, set()) and "sea" in sub_flags.get(t, set()):
                    fleet.add((here, t))
    army |= {(b, a) for a, b in army}
    fleet |= {(b, a) for a, b in fleet}
    for prov, p in provinces.items():
        if p["type"] in ("land", "coast"):
            p["army"] = sorted(b for a, b in army if a == prov)
        if "coasts" in p:
            for c in p["coasts"]:
                p["coasts"][c]["fleet"] = sorted(b for a, b in fleet if a == f"{prov}/{c}")
        elif p["type"] in ("coast", "sea"):
            p["fleet"] = sorted(b for a, b in fleet if a == prov)

    nations = [str(n) for n in raw.get("Nations") or homes]
    colours = raw.get("NationColors") or {}
    owned: dict[str, list[str]] = {}
    for prov, nation in (start.get("SCs") or {}).items():
        owned.setdefault(str(nation), []).append(str(prov).lower())
    units: dict[str, list[str]] = {}
    for prov, unit in (start.get("Units") or {}).items():
        kind = "F" if str(unit.get("Type", "")).lower() == "fleet" else "A"
        units.setdefault(str(unit.get("Nation")), []).append(f"{kind} {str(prov).lower()}")
    powers: dict[str, dict[str, Any]] = {}
    letters: set[str] = set()
    for n in nations:
        letter = pick_letter(n[:1], n, n, letters, report)
        entry = {"adjective": n, "letter": letter, "home_centres": sorted(homes.get(n, []))}
        colour = colours.get(n)
        if isinstance(colour, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
            entry["colour"] = colour
        else:
            entry["colour"] = PALETTE[len(powers) % len(PALETTE)]
            if not colours:
                note = "power colours: NationColors names none; a palette of distinct colours was used"
                if note not in report:
                    report.append(note)
        mine = sorted(owned.get(n, []))
        if start.get("SCs") is not None and mine != entry["home_centres"]:
            entry["centres"] = mine
        entry["units"] = sorted(units.get(n, []))
        powers[n] = entry
    strangers = sorted((set(units) | set(owned)) - set(nations) - {"Neutral"})
    if strangers:
        report.append(f"units or centres of nations not in Nations ({', '.join(strangers)}) are left out")

    seasons = [str(s) for s in raw.get("Seasons") or ["Spring", "Fall"]]
    types = [_KINDS.get(str(t).lower()) for t in raw.get("PhaseTypes") or ["Movement", "Retreat", "Adjustment"]]
    phases: list[dict[str, Any]] = []
    for s in seasons:
        phases += [{"season": s, "kind": k} for k in ("movement", "retreats") if k in types]
    if "adjustments" in types:
        last = "Winter" if seasons == ["Spring", "Fall"] else seasons[-1]
        phases.append({"season": last, "kind": "adjustments"})
        if last == "Winter":
            report.append(
                "Diplicity's Fall Adjustment phase is called Winter Adjustments here, as in the built-in variants"
            )
    year = int(start.get("Year") or 1901)
    if not start.get("Year"):
        guesses.append("the starting year is not given (Start.Year): 1901 was written")
    want_kind = _KINDS.get(str(start.get("Type", "Movement")).lower(), "movement")
    want_season = str(start.get("Season") or seasons[0])
    step = next(
        (
            i
            for i, p in enumerate(phases)
            if p["kind"] == want_kind and (p["season"] == want_season or want_kind == "adjustments")
        ),
        0,
    )
    calendar: dict[str, Any] = {"start_year": year}
    if step:
        calendar["start_step"] = step
    calendar["phases"] = phases
    years = stated_years_per_turn(rules_text)
    if years and years > 1:
        calendar["cycle_years"] = years
        report.append(f"the year advances by {years} each turn, as the Rules text states")
    elif years is None:
        guesses.append(
            "the year advances by 1 each turn (Seasons "
            f"{', '.join(seasons)}): Diplicity's calendar is code, and the Rules text says nothing of it"
        )
    n_centres = sum(1 for p in provinces.values() if p.get("sc"))
    solo = stated_solo(rules_text)
    if solo is not None:
        victory: dict[str, Any] = {"centres": solo}
    else:
        victory = {"centres": n_centres // 2 + 1}
        guesses.append(
            f"the victory condition is code in Diplicity, not data, and the Rules text states no target: "
            f"[victory] centres = {n_centres // 2 + 1} (one more than half the {n_centres} centres) was written"
        )
    rules: dict[str, Any] = {}
    build = stated_build_rule(rules_text)
    if build is not None:
        if build != "home":
            rules["build_sites"] = build
    else:
        guesses.append(
            "builds on owned home centres (the standard rule): Diplicity's build rule is code, and the Rules "
            "text says nothing of it"
        )
    if rules_text:
        report.append(
            "the Rules text is kept in the description; any rule in it other than the victory target, the "
            "build rule and the length of a turn is not carried over: compare it with this file"
        )
    if raw.get("ExtraDominanceRules"):
        report.append("ExtraDominanceRules (civil disorder behaviour) are not carried over")
    pic = picture or next(
        (p for p in (path.with_suffix(".svg"), path.with_name(f"{path.stem}map.svg")) if p.is_file()), None
    )
    spots: dict[str, tuple[float, float]] = {}
    outlines: dict[str, list[Ring]] = {}
    if pic is not None:
        try:
            spots, outlines = read_godip_svg(pic)
        except OSError as e:
            raise ImportError_(
                msg("cannot read the picture %(path)s: %(why)s", path=str(pic), why=str(e.strerror or e))
            ) from None
        except ValueError as e:
            raise ImportError_(msg("cannot read the picture %(path)s: %(why)s", path=str(pic), why=str(e))) from None
    drawn = place_provinces(
        provinces, spots, y_up=False, source=pic.name if pic else "", report=report, outlines=outlines
    )
    if pic is None:
        report.append(
            "no map SVG given (Diplicity serves it apart from this JSON; godip keeps it as "
            "variants/NAME/svg/NAMEmap.svg): pass it with --picture to draw the map as its source does"
        )
    description = str(raw.get("Description") or f"Imported from {path.name} (Diplicity variant JSON).")
    if rules_text:
        description = f"{description}\n\nRules (from the source): {rules_text}"
    data: dict[str, Any] = {
        "variant": {"name": name, "title": str(raw.get("Name") or name), "description": description},
        "calendar": calendar,
        "victory": victory,
    }
    if rules:
        data["rules"] = rules
    data["drawing"] = {"coastline": "provinces", **({"outlines": drawn} if drawn else {})}
    data["powers"] = powers
    data["provinces"] = provinces
    _drop_clashing_names(data["provinces"], report)
    return ImportResult(data, report, guesses)


_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_CENTRES = r"(?:supply[ -]?cent(?:er|re)s?|SCs?\b|cent(?:er|re)s)"


def stated_solo(rules: str) -> int | None:
    """The number of centres that wins, where the Rules text states one ("The first to 18 Supply Centers
    (SC) is the winner", "... wins with 17 SCs", "control 25 supply centers"), else None. Several different
    numbers in winning sentences are no statement: the author reads them."""
    found: set[int] = set()
    for sentence in re.split(r"(?<=[.!?])\s+|\n", rules):
        if not re.search(r"\b(win|wins|winner|won|victory|solo|first to|control)", sentence, re.I):
            continue
        # "18 of 40 supply centers are required": the first number is the target, the second the map's count
        sentence = re.sub(
            rf"(\d+)\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?\d+\s*(?={_CENTRES})", r"\1 ", sentence, flags=re.I
        )
        for m in re.finditer(rf"(\d+)\s*(?:\(\w+\)\s*)?{_CENTRES}", sentence, re.I):
            found.add(int(m.group(1)))
    return found.pop() if len(found) == 1 else None


def stated_build_rule(rules: str) -> str | None:
    """``owned`` where the Rules text says builds may be made in any owned centre, ``home`` where it says
    home centres only, else None."""
    if re.search(
        rf"build\w*\s+(?:\w+\s+){{0,4}}(?:in|on|at)\s+any\s+(?:owned\s+|of\s+(?:their|its|your)\s+)?"
        rf"(?:{_CENTRES}|owned)|build\w*\s+anywhere",
        rules,
        re.I,
    ):
        return "owned"
    if re.search(
        rf"buil(?:d|t)\w*\s+(?:\w+\s+){{0,4}}(?:only\s+)?(?:in|on|at)\s+(?:their\s+|its\s+|your\s+)?"
        rf"(?:home|own\s+(?:starting\s+|original\s+|home\s+)?{_CENTRES})",
        rules,
        re.I,
    ):
        return "home"
    return None


def stated_years_per_turn(rules: str) -> int | None:
    """Years a turn (one pass through the seasons) covers where the Rules text says so ("each turn is five
    years", "5-year turns"), 1 where it says a year, else None."""
    pats = (
        r"(?:each|every|one)\s+(?:turn|game\s+year|year\s+of\s+play|round)\s+(?:is|represents|lasts|covers|equals)\s+(\w+)\s+years",
        r"(\w+)[- ]year\s+(?:turns|rounds)",
        r"years?\s+(?:advance|advances|increase|increases|move|moves)\s+by\s+(\w+)",
    )
    for pat in pats:
        m = re.search(pat, rules, re.I)
        if m:
            word = m.group(1).lower()
            n = int(word) if word.isascii() and word.isdigit() and len(word) <= 6 else _NUMBERS.get(word)
            if n:
                return n
    return None


def _no_graph(path: Path, raw: dict[str, Any]) -> str:
    """Why a JSON object without ``Graph.Nodes`` cannot be imported, naming the JSON that can."""
    meant = (
        "dippouch imports the variant JSON of Diplicity's variant service (godip's variants as a Diplicity "
        "server serves them, e.g. one entry of its /Variants answer), whose Graph.Nodes holds the borders"
    )
    if isinstance(raw.get("provinces"), list) and isinstance(raw.get("nations"), list):
        return (
            f"{path} is a variant in diplicity-react's own JSON format (lower-case 'provinces' and 'nations'), "
            f"which this importer does not read; {meant}"
        )
    if any(k in raw for k in ("ProvinceLongNames", "Provinces", "Nations", "Flags", "Colors")):
        return (
            f"{path} describes a variant without its borders (names, nations and colours, as Diplicity's web "
            f"app diplicity-react lists variants, but no Graph.Nodes): no map can be made from it; {meant}"
        )
    return f"{path} has no Graph.Nodes (the adjacency graph), so it is not a Diplicity variant; {meant}"
