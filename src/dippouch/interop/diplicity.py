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

from dippouch.interop.dpjudge import ImportError_, ImportResult, _drop_clashing_names, pick_letter

__all__ = ["import_diplicity"]

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


def import_diplicity(path: Path, name: str) -> ImportResult:
    """Read ``path`` (Diplicity variant JSON) into variant data named ``name``."""
    if not path.is_file():
        raise ImportError_(f"no file {str(path)!r}")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ImportError_(f"{path} is not JSON: {e}") from None
    if isinstance(raw, dict) and isinstance(raw.get("Properties"), dict):
        raw = raw["Properties"]
    if isinstance(raw, dict) and isinstance(raw.get("Properties"), list):
        names = [str(v.get("Name", "?")) for v in raw["Properties"] if isinstance(v, dict)]
        raise ImportError_(f"{path} lists {len(names)} variants ({', '.join(names)}); save the one you want on its own")
    if not isinstance(raw, dict):
        raise ImportError_(f"{path}: expected a JSON object describing one variant")
    start: dict[str, Any] = raw["Start"] if isinstance(raw.get("Start"), dict) else {}
    graph = raw.get("Graph") or start.get("Graph")
    if not isinstance(graph, dict) or not isinstance(graph.get("Nodes"), dict):
        raise ImportError_(f"{path} has no Graph.Nodes (the adjacency graph): is it a Diplicity variant?")
    report: list[str] = []
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
    n_centres = sum(1 for p in provinces.values() if p.get("sc"))
    report.append(
        f"the victory condition is code in Diplicity, not data: [victory] centres = {n_centres // 2 + 1} "
        "(one more than half the centres) was written; correct it from the variant's rules"
    )
    if raw.get("Rules"):
        report.append("the Rules text is not read: compare it with the [rules] of this file")
    if raw.get("ExtraDominanceRules"):
        report.append("ExtraDominanceRules (civil disorder behaviour) are not carried over")
    report.append(
        "no representative points ([longitude, latitude]): add `point` to each province for the map picture and mapcheck"
    )
    data: dict[str, Any] = {
        "variant": {
            "name": name,
            "title": str(raw.get("Name") or name),
            "description": str(raw.get("Description") or f"Imported from {path.name} (Diplicity variant JSON)."),
        },
        "calendar": calendar,
        "victory": {"centres": n_centres // 2 + 1},
        "powers": powers,
        "provinces": provinces,
    }
    _drop_clashing_names(data["provinces"], report)
    return ImportResult(data, report)
