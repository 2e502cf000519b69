"""Read a DPjudge / MILA ``.map`` file into the data of a dippouch variant file, with a report.

The directives are read as DPjudge's map-file documentation describes them (facts of a format; no code of
theirs is used). What this reads: place-name lines (``Name = abr alias ...``, ``+`` joins words), terrain
lines (``LAND``, ``WATER``, ``COAST``, ``PORT``, ``SHUT``, ``AMEND``) with their ``ABUTS`` lists and the case
rules (a location written in lower case is a coast no fleet may occupy: a province with split coasts; in an
``ABUTS`` list lower case means a fleet may not make the move, ``Xxx`` that an army may not), ``DROP``,
``USE``/``MAP`` (files beside the one read), power lines ``NAME (ADJECTIVE:L) HOMES...`` with ``-XXX``,
``INHABITS``, ``HOME(S)``, ``OWNS``, ``CENTERS``, units, ``UNITS``, ``UNOWNED``/``NEUTRAL``, ``UNPLAYED``,
``BEGIN``, ``FLOW`` (``NEWYEAR``, ``IFYEARDIV``), ``VICTORY``, ``NEWHOMES`` and the rules ``BUILD_ANY`` and
``MOBILIZE``. Everything else is named in the report, never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.interop.pictures import PALETTE, Ring, place_provinces, read_mila_svg, read_outlines, read_ps

__all__ = ["ImportError_", "ImportResult", "import_dpjudge"]

I18N_DOMAIN = "rules"
"""The catalogue of the import's refusals, said in the reader's language where they are shown (dippouch.saying)."""


class ImportError_(DippouchError):
    """A file that cannot be imported at all (not found, not text, not the format)."""


@dataclass
class ImportResult:
    """The data of a variant file, and what could not be carried over into it."""

    data: dict[str, Any]
    report: list[str] = field(default_factory=list)
    """What could not be carried over (losses)."""
    guesses: list[str] = field(default_factory=list)
    """What the source does not state and was filled in by a guess the author should confirm."""


_TERRAIN = {"LAND": "land", "WATER": "sea", "COAST": "coast", "PORT": "coast", "SHUT": "impassable"}
_PHASE_KINDS = {"MOVEMENT": "movement", "RETREATS": "retreats", "ADJUSTMENTS": "adjustments"}
_IGNORED = {
    "TEXTONLY": "TEXTONLY (no picture): dippouch draws every map",
    "DUMMY": "DUMMY powers (a coordinator leaves them unseated)",
    "CONTROL": "CONTROL (dummy powers played by others)",
    "ROTATE": "ROTATE (rotating control)",
    "LEAGUE": "LEAGUE restrictions",
    "FLAGS": "FLAGS (flag pictures)",
    "FLAG": "FLAG (flag pictures)",
    "RESERVES": "RESERVES (extra units)",
    "MILITIA": "MILITIA (extra units)",
    "NOTIFY": "NOTIFY (an address the judge mails about games of this map)",
}


@dataclass
class _Loc:
    terrain: str
    written: str
    abuts: list[str]


@dataclass
class _Power:
    name: str
    adjective: str
    letter: str | None
    homes: list[str] = field(default_factory=list)
    owns: list[str] | None = None
    units: list[tuple[str, str]] = field(default_factory=list)
    inhabits: bool = False


class _Reader:
    def __init__(self, path: Path) -> None:
        self.root = path
        self.names: dict[str, tuple[str, list[str]]] = {}
        self.locs: dict[str, _Loc] = {}
        self.powers: dict[str, _Power] = {}
        self.unowned: list[str] = []
        self.not_centres: set[str] = set()
        self.begin: tuple[str, int, str] | None = None
        self.flow: list[str] = []
        self.victory: list[int] = []
        self.rules: list[str] = []
        self.newhomes: list[int] = []
        self.report: list[str] = []
        self.renamed: dict[str, str] = {}
        """Old abbreviation -> new, from ``OLD -> New = new ...`` lines: earlier references follow them."""
        self.self_borders: list[str] = []
        self.current: _Power | None = None
        self.reading: list[Path] = []
        self.files: list[Path] = []
        """Every file read, the one imported first: where to look for the map's picture."""

    def resolve(self, written: str) -> str:
        """A location as written anywhere in the file, after the file's renames (``EDI -> Scotland = sco``
        makes an earlier or later ``EDI`` mean ``sco``) and, failing that, its aliases."""
        n = written.lower()
        if n in self.locs:
            return n
        seen: set[str] = set()
        while n in self.renamed and n not in seen and n not in self.locs:
            seen.add(n)
            n = self.renamed[n]
        if n in self.locs:
            return n
        if "/" in n:
            base, _, coast = n.partition("/")
            b = self.resolve(base)
            if f"{b}/{coast}" in self.locs:
                return f"{b}/{coast}"
        for abbr, (_full, aliases) in self.names.items():
            if n in aliases and abbr in self.locs:
                return abbr
        return n

    def note(self, text: str) -> None:
        if text not in self.report:
            self.report.append(text)

    # -------------------------------------------------------------------------------- reading
    def read(self, path: Path) -> None:
        if path in self.reading:
            self.note(f"{path.name}: USEs itself (directly or through another file); read once")
            return
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            text = path.read_text(encoding="latin-1")
        except OSError as e:
            raise ImportError_(msg("cannot read %(path)s: %(why)s", path=str(path), why=str(e.strerror or e))) from None
        self.reading.append(path)
        if path not in self.files:
            self.files.append(path)
        skipping: str | None = None
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            word = line.split()[0].upper()
            if skipping == "directives":
                if word == "END":
                    skipping = None
                continue
            if skipping == "dynamic":
                if line.upper().startswith("FROM START"):
                    skipping = None
                continue
            try:
                skipping = self.line(path, lineno, line) or skipping
            except (ValueError, IndexError) as e:
                self.note(f"{path.name}:{lineno}: could not read {line!r} ({e}); skipped")
        self.reading.pop()

    def line(self, path: Path, lineno: int, line: str) -> str | None:
        words = line.split()
        head = words[0].upper()
        where = f"{path.name}:{lineno}"
        if head in ("USE", "USES", "MAP"):
            for name in words[1:]:
                self.include(path, name, where)
            return None
        if (len(words) >= 2 and words[1].upper() in ("DIRECTIVE", "DIRECTIVES")) or head in ("DIRECTIVE", "DIRECTIVES"):
            self.note(f"{where}: a DIRECTIVES stanza (status-file lines for games) is not carried over")
            return "directives"
        if head in ("IN", "FROM"):
            self.note(f"{where}: {head} (map changes during play) is not carried over; nor are the lines after it")
            return None if ":" in line else "dynamic"
        if "=" in line:
            self.place(line, where)
            return None
        if head in _TERRAIN or head == "AMEND":
            self.terrain(words, where)
            return None
        if head == "DROP":
            for abbr in words[1:]:
                key = abbr.lower()
                for k in [k for k in self.locs if k == key or k.startswith(key + "/")]:
                    del self.locs[k]
                for k in [k for k in self.names if k == key or k.startswith(key + "/")]:
                    del self.names[k]
            return None
        if head == "BEGIN":
            if len(words) < 4:
                raise ValueError("BEGIN needs a season, a year and a phase type")
            self.begin = (" ".join(words[1:-2]), int(words[-2]), words[-1].upper())
            return None
        if head == "FLOW":
            if len(words) == 1:
                self.flow = []
            else:
                self.flow.extend(words[1:])
            return None
        if head == "VICTORY":
            self.victory = [int(w) for w in words[1:]]
            return None
        if head in ("RULE", "RULES"):
            self.rules.extend(w.upper() for w in words[1:])
            return None
        if head == "NEWHOMES":
            self.newhomes.extend(int(w) for w in words[1:])
            return None
        if head in ("UNOWNED", "NEUTRAL") or (head == "CENTERS" and self.current is None):
            self.current = None
            for c in words[1:]:
                if c.startswith("-"):
                    self.not_centres.add(c[1:].lower())
                    self.unowned = [u for u in self.unowned if u != c[1:].lower()]
                else:
                    self.unowned.append(c.lower())
            return None
        if head in _IGNORED:
            self.note(f"{where}: {_IGNORED[head]} is not carried over")
            return None
        if head == "UNPLAYED":
            self.unplayed(words[1:], where)
            return None
        if head in ("OWNS", "CENTERS", "INHABITS", "HOME", "HOMES", "UNITS") or (
            head in ("A", "F") and len(words) == 2
        ):
            self.power_directive(head, words, where)
            return None
        self.power_line(line, where)
        return None

    def include(self, path: Path, name: str, where: str) -> None:
        target = path.parent / name
        if not target.is_file() and (path.parent / f"{name}.map").is_file():
            target = path.parent / f"{name}.map"
        if not target.is_file():
            raise ImportError_(
                msg(
                    "%(where)s: USE %(name)s: no file %(target)s (put the files it uses beside %(root)s and try again)",
                    where=where,
                    name=name,
                    target=str(target),
                    root=self.root.name,
                )
            )
        self.read(target)

    def place(self, line: str, where: str) -> None:
        left, _, right = line.partition("=")
        if "->" in left:
            old, _, left = left.partition("->")
            self.rename(old.strip().lower(), right.split()[0].lower(), where)
        words = right.split()
        if not words:
            raise ValueError("no abbreviation after '='")
        abbr = words[0].lower()
        aliases = []
        for a in words[1:]:
            if a.endswith("?"):
                self.note(f"{where}: ambiguous alias {a[:-1]!r} of {abbr} left out (dippouch asks which was meant)")
                continue
            aliases.append(a.replace("+", " ").lower())
        self.names[abbr] = (left.strip(), aliases)

    def rename(self, old: str, new: str, where: str) -> None:
        self.renamed[old] = new
        if old in self.locs:
            self.locs[new] = self.locs.pop(old)
        if old in self.names:
            del self.names[old]
        for loc in self.locs.values():
            loc.abuts = [re.sub(rf"(?i)(?<![a-z0-9/]){re.escape(old)}(?![a-z0-9])", new.upper(), a) for a in loc.abuts]

    def terrain(self, words: list[str], where: str) -> None:
        head = words[0].upper()
        written = words[1]
        key = written.lower()
        abuts: list[str] = []
        if len(words) > 2:
            if words[2].upper() != "ABUTS":
                raise ValueError(f"expected ABUTS after {written}")
            abuts = words[3:]
        if head == "AMEND":
            loc = self.locs.get(key)
            if loc is None:
                self.note(f"{where}: AMEND {written}: no such location yet; skipped")
                return
            loc.written = written
            for a in abuts:
                if a.startswith("-"):
                    loc.abuts = [x for x in loc.abuts if x.lower() != a[1:].lower()]
                else:
                    loc.abuts.append(a)
            return
        self.locs[key] = _Loc(_TERRAIN[head], written, abuts)
        if head == "PORT":
            self.note(f"{written}: PORT (fleets there convoy like at sea) is read as an ordinary coast")

    def power_line(self, line: str, where: str) -> None:
        m = re.match(r"^(?:(\S+)\s*->\s*)?(\S+)\s*(?:\(([^)]*)\))?\s*(.*)$", line)
        if not m:
            raise ValueError("not a power line")
        old, raw, paren, rest = m.groups()
        name = _power_name(raw)
        key = _power_key(raw)
        if not key:
            raise ValueError("a power line needs a name")
        if old:
            prev = self.powers.pop(_power_key(old), None)
            if prev:
                prev.name = name
                self.powers[key] = prev
        power = self.powers.get(key)
        if power is None:
            own, _, letter = (paren or "").partition(":")
            adjective = own.replace("+", " ").strip().title() if own.strip() else name
            power = _Power(name, adjective, letter.strip().upper() or None)
            self.powers[key] = power
        elif paren:
            own, _, letter = paren.partition(":")
            if own.strip():
                power.adjective = own.replace("+", " ").strip().title()
            if letter.strip():
                power.letter = letter.strip().upper()
        self.current = power
        for c in rest.split():
            self.home_word(power, c, where)

    def home_word(self, power: _Power, c: str, where: str) -> None:
        if c.startswith("-"):
            power.homes = [h for h in power.homes if h != c[1:].lower()]
            if c[1:].lower() not in self.unowned:
                self.unowned.append(c[1:].lower())
            return
        special = {
            "&": "a claimed home centre (&SC)",
            "+": "a factory site (+)",
            "*": "a partisan site (*)",
            "@": "an alternative home centre (@)",
            "~": "a hidden build site (~)",
        }
        if c[0] in special:
            self.note(f"{where}: {power.name}: {special[c[0]]} {c} is not carried over")
            return
        power.homes.append(c.lower())

    def power_directive(self, head: str, words: list[str], where: str) -> None:
        power = self.current
        if power is None:
            self.note(f"{where}: {' '.join(words)} comes before any power line; skipped")
            return
        if head in ("A", "F"):
            loc = words[1].lower()
            prov = loc.split("/")[0]
            for p in self.powers.values():
                p.units = [u for u in p.units if u[1].split("/")[0] != prov]
            power.units.append((head, loc))
        elif head == "UNITS":
            power.units = []
        elif head in ("OWNS", "CENTERS"):
            if head == "CENTERS" or power.owns is None:
                power.owns = []
            for c in words[1:]:
                if c.upper() in ("SC!", "SC?"):
                    self.note(
                        f"{where}: {power.name} OWNS {c}: a build on a home centre of its choice; read as the "
                        "MOBILIZE opening (one build on a home centre)"
                    )
                    if "MOBILIZE" not in self.rules:
                        self.rules.append("MOBILIZE")
                    continue
                power.owns.append(c.lower())
        elif head == "INHABITS":
            if not power.inhabits:
                power.homes = []
                power.inhabits = True
            for c in words[1:]:
                self.home_word(power, c, where)
        else:  # HOME(S)
            power.homes = []
            power.inhabits = True
            for c in words[1:]:
                self.home_word(power, c, where)

    def unplayed(self, args: list[str], where: str) -> None:
        args = [w for a in args for w in a.split(",") if w]  # MILA writes UNPLAYED ENGLAND, GERMANY, ITALY
        upper = [a.upper() for a in args]
        keys = [_power_key(a) for a in args if a.upper() not in ("ALL", "EXCEPT")]
        if not args:
            gone = [_power_key(self.current.name)] if self.current else []
        elif "ALL" in upper and "EXCEPT" in upper:
            gone = [p for p in self.powers if p not in keys]
        elif "ALL" in upper:
            gone = list(self.powers)
        else:
            gone = keys
            unknown = [a for a in args if _power_key(a) not in self.powers]
            if unknown:
                self.note(f"{where}: UNPLAYED {', '.join(unknown)}: no such power; ignored")
        removed = []
        for p in gone:
            power = self.powers.pop(p, None)
            if power:
                removed.append(power.name)
                self.unowned.extend(h for h in power.homes if h not in self.unowned)
        if removed:
            self.note(f"{where}: UNPLAYED {', '.join(removed)}: removed; their home centres stay as neutral centres")
        self.current = None


def _power_key(raw: str) -> str:
    """How a power is known across lines: ``U+S+A`` and ``USA`` (and ``_USA``) are one power."""
    return re.sub(r"[^A-Z0-9]", "", raw.upper())


def _power_name(raw: str) -> str:
    name = raw.lstrip("_")
    out = []
    upper_next = True
    for ch in name:
        if ch == "+":
            upper_next = True
            continue
        if ch in "-.":
            out.append(ch)
            upper_next = True
            continue
        out.append(ch.upper() if upper_next else ch.lower())
        upper_next = False
    return "".join(out)


def pick_letter(wanted: str, name: str, adjective: str, taken: set[str], report: list[str]) -> str:
    """A letter no other power has, as our loader requires (one letter or digit, unique): the one the source
    gives if it can be used, else the first free one of the name, the adjective, then the alphabet; any
    change is reported. ``taken`` gets the letter."""
    w = wanted.strip().upper()
    if len(w) == 1 and w.isalnum() and w not in taken:
        taken.add(w)
        return w
    pool = [ch for ch in (name + adjective).upper() if ch.isascii() and ch.isalnum()]
    pool += list("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    free = next(ch for ch in pool if ch not in taken)
    why = "is taken" if w in taken else "is not a letter or digit"
    report.append(f"{name}: letter {w or '(none)'!r} {why}; given {free}")
    taken.add(free)
    return free


def _picture(
    r: _Reader,
) -> tuple[dict[str, tuple[float, float]], dict[str, str], Path | None, dict[str, list[Ring]]]:
    """The spots, power colours and province outlines of the map's picture, found beside the files read
    (the imported file's own first): DPjudge's NAME.ps (spots only: its shapes are PostScript procedures),
    MILA's svg/NAME.svg or NAME.svg (outlines from its ``MapLayer``)."""
    for f in r.files:
        for pic in (f.with_suffix(".ps"), f.parent / "svg" / f"{f.stem}.svg", f.with_suffix(".svg")):
            if not pic.is_file():
                continue
            outlines: dict[str, list[Ring]] = {}
            try:
                if pic.suffix == ".ps":
                    spots, colours = read_ps(pic)
                else:
                    spots, colours = read_mila_svg(pic), {}
            except (OSError, ValueError):
                continue
            if pic.suffix == ".svg":
                try:
                    outlines = read_outlines(pic, "MapLayer")
                except ValueError as e:
                    r.note(f"{e}: no province outlines taken from it (shapes are grown round its spots)")
            resolved = {r.resolve(a): xy for a, xy in spots.items() if "/" not in a}
            if len(resolved) >= 3:
                shapes: dict[str, list[Ring]] = {}
                for a, rings in outlines.items():
                    if "/" not in a:
                        shapes.setdefault(r.resolve(a), []).extend(rings)
                return resolved, colours, pic, shapes
    return {}, {}, None, {}


def _follow_renames(r: _Reader) -> None:
    """Every reference to a location (homes, centres, units, neutral centres) by the name it has at the end."""
    if not r.renamed:
        return
    for power in r.powers.values():
        power.homes = list(dict.fromkeys(r.resolve(h) for h in power.homes))
        if power.owns is not None:
            power.owns = list(dict.fromkeys(r.resolve(c) for c in power.owns))
        power.units = [(k, r.resolve(loc)) for k, loc in power.units]
    r.unowned = list(dict.fromkeys(r.resolve(c) for c in r.unowned))
    r.not_centres = {r.resolve(c) for c in r.not_centres}


def _entry(raw: str) -> tuple[str, str] | None:
    """``(target as written, cls)`` of an ABUTS entry; ``cls`` is ``both``, ``army`` or ``fleet``."""
    core = raw.split(":")[-1]
    core = re.sub(r"\(.*\)$", "", core)
    core = core.strip("~*")
    if not core:
        return None
    letters = core.replace("/", "")
    if letters.isupper() or not any(c.isalpha() for c in letters):
        cls = "both"
    elif letters.islower():
        cls = "army"
    elif core[0].isupper() and core[1:].split("/")[0].islower():
        cls = "fleet"
    else:
        cls = "both"
    return core, cls


def import_dpjudge(path: Path, name: str) -> ImportResult:
    """Read ``path`` (and the files it USEs, from its folder) into variant data named ``name``."""
    if not path.is_file():
        raise ImportError_(msg("no file %(path)s", path=repr(str(path))))
    r = _Reader(path)
    r.read(path)
    if not r.locs:
        raise ImportError_(
            msg(
                "%(path)s has no terrain lines (LAND/WATER/COAST ... ABUTS ...): is it a DPjudge .map file?",
                path=str(path),
            )
        )
    report = r.report
    _follow_renames(r)
    provinces: dict[str, dict[str, Any]] = {}
    bases = sorted({k.split("/")[0] for k in r.locs})
    for base in bases:
        loc = r.locs.get(base)
        coasts = sorted(k.split("/")[1] for k in r.locs if k.startswith(base + "/"))
        if loc is None:
            report.append(f"{base}: coasts without a line for the province itself; read as a coast province")
            loc = _Loc("coast", base, [])
        full, aliases = r.names.get(base, (base.upper(), []))
        entry: dict[str, Any] = {"name": full, "type": loc.terrain}
        if aliases:
            entry["aliases"] = [a for a in aliases if a != base and a != full.lower()]
            if not entry["aliases"]:
                del entry["aliases"]
        if coasts:
            entry["coasts"] = {}
            for c in coasts:
                cname = r.names.get(f"{base}/{c}", ("", []))[0]
                m = re.search(r"\(([^)]*)\)", cname)
                entry["coasts"][c] = {"name": m.group(1).strip().lower()} if m else {}
        provinces[base] = entry

    fleet_ok = {
        k
        for k, loc in r.locs.items()
        if loc.terrain == "sea" or ("/" in k) or (loc.terrain == "coast" and not loc.written.islower())
    }
    army_ok = {b for b in bases if provinces[b]["type"] in ("land", "coast")}
    army: set[tuple[str, str]] = set()
    fleet: set[tuple[str, str]] = set()
    restricted: list[str] = []
    special: list[str] = []
    for key, loc in r.locs.items():
        base = key.split("/")[0]
        for raw in loc.abuts:
            if ":" in raw or re.search(r"\(.*\)$", raw):
                restricted.append(f"{key}-{raw}")
                continue
            got = _entry(raw)
            if got is None:
                continue
            target, cls = got
            if raw.strip("~*") != raw:
                special.append(f"{key}-{target.lower()}")
            t = r.resolve(target.lower())
            tbase = t.split("/")[0]
            if tbase not in provinces:
                report.append(f"{key} ABUTS {raw}: no such location; left out")
                continue
            if tbase == base:
                r.self_borders.append(key)
                continue
            if cls in ("both", "army") and "/" not in key and "/" not in t and base in army_ok and tbase in army_ok:
                army.add((base, tbase))
            land_end = "land" in (provinces[tbase]["type"], provinces[base]["type"])
            if cls in ("both", "fleet") and key in fleet_ok and t in fleet_ok and not land_end:
                fleet.add((key, t))
    if r.self_borders:
        report.append(
            f"borders of a province with itself left out (a province always borders itself): "
            f"{', '.join(sorted(set(r.self_borders)))}"
        )
    if restricted:
        borders, are = ("border", "is") if len(restricted) == 1 else ("borders", "are")  # the report is English only
        report.append(
            f"{len(restricted)} {borders} open only to some powers or to owners of some centres (e.g. "
            f"{', '.join(restricted[:3])}) {are} left out"
        )
    if special:
        report.append(
            f"special borders (~ weak, * half strength) read as ordinary ones: {', '.join(sorted(set(special))[:6])}"
        )
    one_way = sorted(f"{a}-{b}" for a, b in fleet if (b, a) not in fleet)
    if one_way:
        report.append(f"fleet borders listed from one end only, added both ways: {', '.join(one_way[:8])}")
    army |= {(b, a) for a, b in army}
    fleet |= {(b, a) for a, b in fleet}
    for base in bases:
        p = provinces[base]
        if p["type"] in ("land", "coast"):
            p["army"] = sorted(b for a, b in army if a == base)
        if "coasts" in p:
            for c in p["coasts"]:
                p["coasts"][c]["fleet"] = sorted(b for a, b in fleet if a == f"{base}/{c}")
        elif p["type"] in ("coast", "sea"):
            p["fleet"] = sorted(b for a, b in fleet if a == base)

    # Centres, powers, units.
    centres = set(r.unowned)
    for power in r.powers.values():
        centres.update(power.homes)
        centres.update(power.owns or [])
    centres -= r.not_centres
    for c in sorted(centres):
        if c in provinces:
            provinces[c]["sc"] = True
        else:
            report.append(f"centre {c}: no such province; left out")
    spots, colours, picture, outlines = _picture(r)
    mobilize = "MOBILIZE" in r.rules
    powers: dict[str, dict[str, Any]] = {}
    letters: set[str] = set()
    owner: dict[str, str] = {}
    for power in r.powers.values():
        for c in power.owns if power.owns is not None else power.homes:
            owner.setdefault(c, power.name)
    for power in r.powers.values():
        letter = pick_letter(power.letter or power.adjective[:1].upper(), power.name, power.adjective, letters, report)
        homes = list(dict.fromkeys(h for h in power.homes if h in provinces))
        owned = []
        for c in power.owns if power.owns is not None else power.homes:
            if c not in provinces:
                continue
            if owner[c] != power.name:
                report.append(f"{c} is owned by {owner[c]} and by {power.name} at the start; kept {owner[c]}'s")
                continue
            owned.append(c)
        entry = {"adjective": power.adjective, "letter": letter, "home_centres": homes}
        colour = colours.get(_power_key(power.name)) or PALETTE[len(powers) % len(PALETTE)]
        entry["colour"] = colour
        if mobilize:
            entry["centres"] = []
        elif owned != homes:
            entry["centres"] = owned
        entry["units"] = [f"{k} {loc}" for k, loc in power.units if loc.split("/")[0] in provinces]
        powers[power.name] = entry
    if not powers:
        report.append("no power lines: the variant has no powers yet (add [powers.NAME] tables)")

    # Calendar.
    calendar, cal_notes = _calendar(r.begin, r.flow)
    report.extend(cal_notes)

    n_centres = sum(1 for p in provinces.values() if p.get("sc"))
    victory: dict[str, Any] = {"centres": r.victory[0] if r.victory else n_centres // 2 + 1}
    guesses = []
    if not r.victory:
        guesses.append(
            f"no VICTORY line: [victory] centres = {n_centres // 2 + 1} (one more than half the {n_centres} "
            "centres, DPjudge's own default) was written"
        )
    if len(r.victory) > 1:
        report.append(
            f"VICTORY {' '.join(map(str, r.victory))}: targets by year are not carried over; {r.victory[0]} is used"
        )
    rules: dict[str, Any] = {}
    for rule in r.rules:
        if rule == "BUILD_ANY":
            rules["build_sites"] = "owned"
        elif rule == "MOBILIZE":
            rules.update(adjustment_delta="opening_builds", build_sites="chosen_homes", opening_builds=1)
            rules.setdefault("phase_end", []).append("opening_builds_own")
        elif rule == "NO_DRAW":
            victory["draws"] = False
        elif rule.startswith("!"):
            continue
        else:
            report.append(f"RULE {rule} has no equivalent in dippouch; not carried over")
    if r.newhomes:
        rules["homes_from_owned_year"] = r.newhomes[0]
        rules.setdefault("phase_end", []).append("homes_from_owned")
        if len(r.newhomes) > 1:
            report.append(f"NEWHOMES {' '.join(map(str, r.newhomes))}: only the first year is carried over")
    if picture is not None and not colours:
        report.append(f"power colours: {picture.name} names none; a palette of distinct colours was used")
    elif picture is None:
        report.append("power colours: the source has no picture naming them; a palette of distinct colours was used")
    if picture is None:
        report.append(
            "no picture beside the file (a DPjudge .ps, or a MILA svg/NAME.svg): put it beside the .map and "
            "import again to draw the map as its source does"
        )
    y_up = picture is not None and picture.suffix == ".ps"
    drawn = place_provinces(
        provinces, spots, y_up=y_up, source=picture.name if picture else "", report=report, outlines=outlines
    )

    data: dict[str, Any] = {
        "variant": {"name": name, "title": name, "description": f"Imported from {path.name} (DPjudge map file)."},
        "calendar": calendar,
        "victory": victory,
    }
    if rules:
        data["rules"] = rules
    data["drawing"] = {"coastline": "provinces", **({"outlines": drawn} if drawn else {})}
    data["powers"] = powers
    data["provinces"] = {k: provinces[k] for k in sorted(provinces)}
    _drop_clashing_names(data["provinces"], report)
    return ImportResult(data, report, guesses)


def _drop_clashing_names(provinces: dict[str, dict[str, Any]], report: list[str]) -> None:
    """Our loader refuses a name that means two places (orders would be ambiguous): keep the first meaning."""
    seen: dict[str, str] = {}
    for abbr, p in provinces.items():
        seen.setdefault(abbr, abbr)
        seen.setdefault(str(p["name"]).lower(), abbr)
    for abbr, p in provinces.items():
        kept = []
        for a in p.get("aliases", []):
            owner = seen.get(a)
            if owner is not None and owner != abbr:
                report.append(f"alias {a!r} of {abbr} also names {owner}; left out")
                continue
            seen[a] = abbr
            kept.append(a)
        if "aliases" in p:
            if kept:
                p["aliases"] = kept
            else:
                del p["aliases"]


def _calendar(begin: tuple[str, int, str] | None, flow: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Our calendar (one cycle of steps) from DPjudge's BEGIN and FLOW, by playing the flow forward."""
    notes: list[str] = []
    words = flow or ["SPRING:MOVEMENT,RETREATS", "FALL:MOVEMENT,RETREATS", "WINTER:ADJUSTMENTS"]
    items: list[tuple[str, Any]] = []
    for w in words:
        season, _, rest = w.rpartition(":") if w.count(":") else (w, "", "")
        season_u = season.upper()
        if season_u == "NEWYEAR":
            items.append(("newyear", int(rest or 1)))
        elif season_u == "IFYEARDIV":
            div, _, mod = rest.partition("=")
            items.append(("ifyeardiv", (int(div), int(mod or 0))))
        else:
            for kind in rest.split(","):
                k = _PHASE_KINDS.get(kind.upper())
                if k is None:
                    notes.append(f"FLOW phase {kind} has no equivalent in dippouch; left out of the calendar")
                    continue
                items.append(("phase", (_season(season), k)))
    phases = [(i, v) for i, (t, v) in enumerate(items) if t == "phase"]
    if not phases:
        raise ImportError_("FLOW has no MOVEMENT, RETREATS or ADJUSTMENTS phase")
    has_newyear = any(t == "newyear" for t, _ in items)
    start_season, year, start_kind = begin or ("SPRING", 1901, "MOVEMENT")
    want = (_season(start_season), _PHASE_KINDS.get(start_kind.upper(), "movement"))
    idx = next((i for i, v in phases if v == want), None)
    if idx is None:
        notes.append(f"BEGIN {start_season} {year} {start_kind} is not in the FLOW; the game starts at its first phase")
        idx = phases[0][0]
    # Play the flow forward and keep the sequence of phases with their years.
    seq: list[tuple[str, str, int]] = [(*items[idx][1], year)]
    i = idx
    for _ in range(20 * len(items) + 20):
        i += 1
        if i >= len(items):
            i = 0
            if not has_newyear:
                year += 1
        t, v = items[i]
        if t == "newyear":
            year += v
        elif t == "ifyeardiv":
            div, mod = v
            if year % div != mod:
                i = -1  # the next element is the flow's first
                continue
        else:
            seq.append((*v, year))
    if seq[-1][2] < seq[0][2]:
        # Years counting down (B.C.): our calendar counts up, so they are written as negative years.
        seq = [(season, kind, -y) for season, kind, y in seq]
        notes.append(
            f"the years count down (B.C.) in the source; here they are negative years counting up: "
            f"{-seq[0][2]} B.C. is year {seq[0][2]}"
        )
    # The cycle: the smallest period after which the steps repeat with a constant gap in years.
    n = len(seq)
    for p in range(1, n // 2 + 1):
        gap = seq[p][2] - seq[0][2]
        if all(seq[j + p][:2] == seq[j][:2] and seq[j + p][2] - seq[j][2] == gap for j in range(n - p)):
            period, cycle_years = p, gap
            break
    else:
        raise ImportError_("the FLOW does not repeat; it cannot be written as a cycle of phases")
    first = next((v for t, v in items if t == "phase"), seq[0][:2])
    r = next((j for j in range(period) if seq[j][:2] == first), 0)
    steps = seq[r : r + period]
    base = steps[0][2]
    out_phases = []
    for season, kind, y in steps:
        step: dict[str, Any] = {"season": season, "kind": kind} if season else {"kind": kind}
        if y - base:
            step["offset"] = y - base
        out_phases.append(step)
    cal: dict[str, Any] = {"start_year": seq[0][2], "start_step": (period - r) % period}
    if cycle_years != 1:
        cal["cycle_years"] = max(1, cycle_years)
    cal["phases"] = out_phases
    if cal["start_step"] == 0:
        del cal["start_step"]
    return cal, notes


def _season(word: str) -> str:
    return " ".join(w[:1].upper() + w[1:].lower() if w.isalpha() else w for w in word.split())
