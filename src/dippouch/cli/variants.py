"""``dippouch variants``: what can be played, one variant's vital signs, and the variant author's tools.

``dippouch variants`` lists; ``dippouch variants NAME`` (or ``variants show NAME``) shows one;
``check``, ``new`` and ``import`` are for authors; ``--where`` shows which folders and files are used.
The core is imported inside each command so that ``dippouch --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from dippouch.cli import Group, app, command_group
from dippouch.cli.words import said, tell
from dippouch.core.messages import Msg, PhaseName, as_msg, msg, nmsg, pmsg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

if TYPE_CHECKING:
    from dippouch.catalog import VariantFile, VariantFolder
    from dippouch.core.variant import Variant


def _console(stderr: bool = False) -> Console:
    """Made per command (its width follows the terminal of the moment). No markup: messages quote variant
    files, whose "[variant]" and "[powers.France]" are not styles."""
    return Console(stderr=stderr, highlight=False, soft_wrap=True, markup=False)


class _VariantsGroup(Group):
    """``dippouch variants NAME`` means ``dippouch variants show NAME``: a name is not a subcommand."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["show", *args]
        return super().resolve_command(ctx, args)


variants_app = command_group(
    cls=_VariantsGroup,
    invoke_without_command=True,
    help="List the variants, show one (`dippouch variants NAME`), or check, create and import variant files.",
)
app.add_typer(variants_app, name="variants")


def _fail(e: Exception) -> typer.Exit:
    from dippouch.cli.errors import user_problem

    _console(stderr=True).print(Text("error:", style="red"), user_problem(e) or str(e))  # said in the locale's language
    return typer.Exit(2)


@variants_app.callback()
def variants(
    ctx: typer.Context,
    where: bool = typer.Option(False, "--where", help="Show the folders searched, in order, and every file found."),
    key: bool = typer.Option(False, "--key", help="With a name: the variant's places (`dippouch variants w3k --key`)."),
) -> None:
    """List the variants (a broken file is listed with its problems), or show where they come from."""
    if ctx.invoked_subcommand is not None:
        return
    if key:
        _console(stderr=True).print(
            Text("error:", style="red"),
            said(msg("name the variant whose key to show, e.g. `dippouch variants w3k --key`")),
        )
        raise typer.Exit(2)
    from dippouch.core.errors import DippouchError

    try:
        if where:
            _where()
        else:
            _list()
    except DippouchError as e:
        raise _fail(e) from None


def _list() -> None:
    out = _console()
    from dippouch.catalog import load_variant, variant_files
    from dippouch.core.errors import DippouchError, VariantError

    table = Table(
        *(
            said(m)
            for m in (
                pmsg("table heading", "variant"),
                pmsg("table heading", "title"),
                pmsg("table heading", "powers"),
                pmsg("table heading", "centres"),
                pmsg("table heading", "victory"),
                pmsg("table heading", "from"),
            )
        )
    )
    broken: list[tuple[str, Path, list[str]]] = []
    files = variant_files()
    for f in files:
        if f.status != "used":
            continue
        source = said(_BUILT_IN) if f.folder.builtin else str(f.path)
        try:
            v = load_variant(f.name)
        except VariantError as e:
            broken.append((f.name, f.path, [str(p) for p in e.problems]))
            many = nmsg("%(num)s problem, see below", "%(num)s problems, see below", len(e.problems))
            table.add_row(f.name, Text(said(_BROKEN), style="red"), "", "", said(many), source)
            continue
        except DippouchError as e:
            broken.append((f.name, f.path, [said(e.msg)]))
            one = nmsg("%(num)s problem, see below", "%(num)s problems, see below", 1)
            table.add_row(f.name, Text(said(_BROKEN), style="red"), "", "", said(one), source)
            continue
        table.add_row(
            f.name, v.title, str(len(v.powers)), str(len(v.map.supply_centres)), said(_victory(v.victory)), source
        )
    out.print(table)
    for f in files:
        if f.status.startswith("ignored"):
            out.print(Text("note:", style="yellow"), str(f.path), said(_status(f, files)))
    for name, path, problems in broken:
        # The whole line red, as the name alone was: a sentence is said whole, its name where the language puts it.
        out.print(Text(said(msg("%(name)s (%(path)s) cannot be loaded:", name=name, path=str(path))), style="red"))
        for p in problems:
            out.print(f"  - {p}")
    if broken:
        tell(out, msg("Fix these with `dippouch variants check FILE`; the other variants work as listed."))


def _where() -> None:
    out = _console()
    from dippouch.catalog import settings_path, variant_files, variant_folders

    tell(out, msg("Variant folders, searched in this order:"))
    missing = said(msg("(no such folder)"))
    for i, folder in enumerate(variant_folders(), 1):
        state = "" if folder.path.is_dir() else f"  {missing}"
        out.print(f"  {i}. {folder.path}  ({said(_source(folder))}){state}")
    settings = str(settings_path())
    tell(
        out,
        msg("Settings file: %(path)s", path=settings)
        if settings_path().is_file()
        else msg("Settings file: %(path)s (none)", path=settings),
    )
    table = Table(
        said(pmsg("table heading", "name")), said(pmsg("table heading", "file")), said(pmsg("table heading", "status"))
    )
    files = variant_files()
    for f in files:
        table.add_row(f.name, str(f.path), said(_status(f, files)))
    out.print(table)


_BUILT_IN = pmsg("variant folder", "built-in")
_BROKEN = pmsg("variant file", "BROKEN")


def _source(folder: VariantFolder) -> Msg | str:
    """Why a folder is searched, in the locale's words: dippouch.catalog writes it in English (``built-in``,
    ``settings file PATH``); an environment variable's name stays as it is."""
    from dippouch.catalog import settings_path

    if folder.builtin:
        return _BUILT_IN
    if folder.source == f"settings file {settings_path()}":
        return msg("settings file %(path)s", path=str(settings_path()))
    return folder.source


def _status(f: VariantFile, files: list[VariantFile]) -> Msg:
    """A file's verdict in the locale's words. dippouch.catalog keeps it as English text (what it compares);
    the facts it names are read back from the listing, so the words are said whole in any language."""
    from dippouch.catalog import settings_path

    if f.status == "used":
        return pmsg("variant file", "used")
    if f.status.startswith("hidden by "):
        # The file that hides it is the one the name lookup uses: the first of that name, earlier in the order.
        first = next((g.path for g in files if g.name == f.name and g.status == "used"), None)
        told = msg("hidden by %(path)s", path=str(first))
        if str(told) == f.status:
            return told
    if f.status.startswith("ignored: "):
        told = msg(
            "ignored: it would replace the built-in %(name)s; rename it, or list %(name)s under override_builtins "
            "in %(path)s",
            name=repr(f.name),
            path=str(settings_path()),
        )
        if str(told) == f.status:
            return told
    return as_msg(f.status)  # a verdict not known here: as dippouch.catalog words it


@variants_app.command("show")
def show(
    name: str = typer.Argument(..., help="The variant's name (or a .toml file)."),
    key: bool = typer.Option(False, "--key", help="The variant's places: abbreviation, full name, other names."),
    abbrev: bool = typer.Option(False, "--abbrev", help="Write places by the map's abbreviations."),
) -> None:
    """Show one variant: powers, home centres, centres owned at the start, units, options; --key for its places."""
    from dippouch.catalog import load_variant
    from dippouch.core.errors import DippouchError
    from dippouch.core.mapdata import ProvinceKind

    try:
        v = load_variant(name)
    except DippouchError as e:
        raise _fail(e) from None
    out = _console()
    if key:
        _key(out, v)
        return
    m = v.map
    passable = [p for p in m.provinces if p.kind != ProvinceKind.IMPASSABLE]
    out.print(Text(v.title, style="bold"), f"({v.name})\n{v.description}")
    owned = len(v.start.centres)
    tell(
        out,
        msg(
            "%(provinces)s provinces, %(centres)s supply centres (%(owned)s owned at the start, %(neutral)s "
            "neutral), %(army)s army and %(fleet)s fleet borders; starts %(phase)s; victory: %(victory)s",
            provinces=quantity(len(passable)),
            centres=quantity(len(m.supply_centres)),
            owned=quantity(owned),
            neutral=quantity(len(m.supply_centres) - owned),
            army=quantity(m.army_edge_count()),
            fleet=quantity(m.fleet_edge_count()),
            phase=PhaseName(v.calendar.name(v.start.phase)),
            victory=_victory(v.victory),
        ),
    )
    full = not abbrev
    table = Table(
        *(
            said(m)
            for m in (
                pmsg("table heading", "power"),
                pmsg("table heading", "letter"),
                pmsg("table heading", "home centres"),
                pmsg("table heading", "centres at the start"),
                pmsg("table heading", "units"),
            )
        )
    )
    for p in v.powers:
        table.add_row(p.name, p.letter, *_power_row(v, p.name, full=full))
    out.print(table)
    tell(
        out,
        msg(
            "Places by their full names; `dippouch variants %(name)s --key` lists every abbreviation and other name.",
            name=v.name,
        ),
    )
    opts = v.data.get("options", {})
    if opts:
        out.print(Text(said(msg("Options")), style="bold"))
        for key, spec in opts.items():
            out.print(f"  {key} = {spec.get('default')!r}: {spec.get('description', '')}")


def _power_row(v: Variant, power: str, *, full: bool) -> tuple[str, str, str]:
    from dippouch.core.notation import format_unit
    from dippouch.names import joined, place_list

    homes = joined(place_list(v, v.start.homes.get(power, ()), full=full))
    owned = joined(place_list(v, v.start.centres_of(power), full=full)) or said(pmsg("no centres", "(none)"))
    units = joined([format_unit(v, u.kind, u.loc, full=full) for u in v.start.units_of(power)]) or said(
        pmsg("no units", "(none)")
    )
    return homes, owned, units


@variants_app.command("check")
def check(
    file: str = typer.Argument(..., help="The variant file to check (a .toml file)."),
    factor: float = typer.Option(1.6, help="A border is long above FACTOR times the usual length at both ends."),
    picture: bool = typer.Option(
        True, "--picture/--no-picture", help="Also check the drawn map and write FILE.png beside the file."
    ),
    build: bool = typer.Option(
        False, "--build", help="Build the map geometry if the map is new or changed (seconds to a minute)."
    ),
) -> None:
    """Check a variant file: the format, the map checks, the drawn map and a picture of it beside the file;
    every problem at once, with file and line."""
    from dippouch.authoring import check_file
    from dippouch.core.errors import DippouchError

    try:
        rep = check_file(Path(file), factor=factor, picture=picture, build=build)
    except DippouchError as e:
        raise _fail(e) from None
    out = _console()
    for line in rep.summary:
        out.print(line)
    if rep.notes:
        tell(out, msg("notes (%(num)s):", num=len(rep.notes)))
        for n in rep.notes:
            out.print(f"  {n}")
    if rep.problems:
        many = nmsg("%(num)s problem in %(file)s:", "%(num)s problems in %(file)s:", len(rep.problems), file=file)
        out.print(Text(said(many), style="red"))
        for p in rep.problems:
            out.print(f"  - {p}")
        raise typer.Exit(1)
    tell(out, msg("%(file)s: no problems.", file=file))


@variants_app.command("new")
def new(
    name: str = typer.Argument(..., help="The new variant's name (also its file name)."),
    extends: str | None = typer.Option(None, "--extends", help="Start from this variant (e.g. standard)."),
    folder: str | None = typer.Option(None, "--dir", help="Where to write NAME.toml (default: the current folder)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing file."),
) -> None:
    """Write a commented NAME.toml that loads as it is, ready to edit."""
    from dippouch.authoring import write_skeleton
    from dippouch.core.errors import DippouchError

    try:
        path = write_skeleton(name, extends, Path(folder) if folder else Path.cwd(), force=force)
    except DippouchError as e:
        raise _fail(e) from None
    out = _console()
    tell(out, msg("Wrote %(path)s.", path=str(path)))
    tell(
        out,
        msg(
            "Check it with `dippouch variants check %(path)s`; to play it, add %(folder)s to DIPPOUCH_VARIANT_PATH "
            "or to variant_path in the settings file (`dippouch variants --where`).",
            path=str(path),
            folder=str(path.parent),
        ),
    )


@variants_app.command("import")
def import_(
    file: str = typer.Argument(..., help="A DPjudge/MILA .map file or a Diplicity variant .json file."),
    to: str | None = typer.Option(None, "--to", help="The variant file to write (default: NAME.toml here)."),
    name: str | None = typer.Option(None, "--name", help="The new variant's name (default: from --to or FILE)."),
    fmt: str = typer.Option("auto", "--format", help="dpjudge, diplicity, or auto (from the file's ending)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing file."),
    picture: str | None = typer.Option(
        None, "--picture", help="Diplicity: the variant's map SVG (godip's NAMEmap.svg), to draw the map from."
    ),
) -> None:
    """Turn another judge's variant file into ours, with a report of what could not be carried over."""
    import re

    from dippouch.authoring import NAME_RE, check_file
    from dippouch.core.errors import DippouchError
    from dippouch.interop.variant_toml import dumps_variant

    src = Path(file)
    target = Path(to) if to else None
    shortened = ""
    shadowed = ""
    if name or target:
        vname = (name or (target.stem if target else "")).lower()
    else:
        vname = re.sub(r"[^a-z0-9_-]+", "-", src.stem.lower()).strip("-_")
        if len(vname) > 40:
            shortened, vname = vname, vname[:40].rstrip("-_")
        from dippouch.catalog import builtin_names

        if vname in builtin_names():
            # A user file named like a built-in is never used by that name: never write one unawares.
            shadowed, vname = vname, f"{vname}-imported"
    try:
        if not NAME_RE.match(vname):
            raise DippouchError(
                msg(
                    "%(name)s is not a variant name (1 to 40 lower-case letters, digits, - and _, starting with a "
                    "letter or digit); give --name",
                    name=repr(vname),
                )
            )
        target = target or Path.cwd() / f"{vname}.toml"
        if target.stem.lower() != vname:
            raise DippouchError(
                msg(
                    "the file name must be the variant's name: --to %(path)s",
                    path=str(target.parent / (vname + ".toml")),
                )
            )
        if target.exists() and not force:
            raise DippouchError(msg("%(path)s already exists; choose another --to or pass --force", path=str(target)))
        kind = fmt.lower()
        if kind == "auto":
            kind = "diplicity" if src.suffix.lower() == ".json" else "dpjudge"
        if kind == "dpjudge":
            from dippouch.interop.dpjudge import import_dpjudge

            result = import_dpjudge(src, vname)
        elif kind == "diplicity":
            from dippouch.interop.diplicity import import_diplicity

            result = import_diplicity(src, vname, Path(picture) if picture else None)
        else:
            raise DippouchError(msg("unknown --format %(format)s; use dpjudge, diplicity or auto", format=repr(fmt)))
    except DippouchError as e:
        raise _fail(e) from None
    out = _console()
    # The name's own guesses come first; said in the locale's language on the screen, in English in the file.
    named: list[Msg] = []
    if shortened:
        named.append(
            msg(
                "the name %(name)s is longer than 40 characters: the variant is named %(variant)s",
                name=repr(shortened),
                variant=repr(vname),
            )
        )
    if shadowed:
        named.append(
            msg(
                "the name %(name)s is a built-in variant's, which a file of that name never replaces: the variant "
                "is named %(variant)s (choose another with --name)",
                name=repr(shadowed),
                variant=repr(vname),
            )
        )
    guesses: list[Msg | str] = [*named, *(str(g) for g in result.guesses)]
    header = [
        f"{vname}: imported by `dippouch variants import` from {src.name} ({kind}).",
        "Facts only (provinces, borders, powers, centres, units, calendar); check them against the variant's rules.",
        "",
        "Not carried over, or changed to fit:" if result.report else "Everything was carried over.",
        *[f"  - {line}" for line in result.report],
    ]
    if guesses:
        header += ["", "Guessed (the source does not say; confirm or correct):", *[f"  - {g}" for g in guesses]]
    target.write_text(dumps_variant(result.data, header), encoding="utf-8")
    tell(out, msg("Wrote %(path)s.", path=str(target)))
    if result.report:
        tell(out, msg("Not carried over, or changed to fit (also written at the top of the file):"))
        for line in result.report:
            out.print(f"  - {line}")
    if guesses:
        tell(out, msg("Guessed, because the source does not say (also at the top of the file):"))
        for guess in guesses:
            out.print(f"  - {said(guess)}")
    rep = check_file(target)
    for line in rep.summary:
        out.print(line)
    if rep.problems:
        reported = nmsg(
            "%(num)s problem reported by `dippouch variants check %(path)s`:",
            "%(num)s problems reported by `dippouch variants check %(path)s`:",
            len(rep.problems),
            path=str(target),
        )
        out.print(Text(said(reported), style="red"))
        for p in rep.problems:
            out.print(f"  - {p}")
    if rep.variant is None:
        raise typer.Exit(1)  # written, but it does not load: the problems above say why


def _key(out: Console, v: Variant) -> None:
    """The map's key: what each abbreviation stands for, and the other names the order reader knows."""
    from dippouch.core.mapdata import ProvinceKind

    m = v.map
    kinds = {
        ProvinceKind.LAND: said(msg("land")),
        ProvinceKind.COAST: said(msg("coast")),
        ProvinceKind.SEA: said(msg("sea")),
    }
    yes = said(pmsg("is a supply centre", "yes"))
    table = Table(
        *(
            said(h)
            for h in (
                pmsg("table heading", "abbr."),
                pmsg("table heading", "name"),
                pmsg("table heading", "kind"),
                pmsg("table heading", "centre"),
                pmsg("table heading", "also read"),
            )
        ),
        title=Text(said(msg("%(variant)s: places", variant=v.title))),
    )
    for loc in sorted(m.locations, key=lambda loc: loc.abbr):
        prov = m.provinces[loc.province]
        if prov.kind == ProvinceKind.IMPASSABLE:
            continue
        coast = loc.coast is not None
        kind = kinds[ProvinceKind.COAST] if coast else kinds.get(prov.kind, prov.kind.value)
        aliases = "" if coast else ", ".join(prov.aliases)
        centre = "" if coast else (yes if prov.supply_centre else "")
        table.add_row(loc.abbr, loc.name, kind, centre, aliases)
    out.print(table)


def _victory(victory: dict[str, object] | object) -> Msg:
    """One line a coordinator can read: the target, per power where powers differ, and extra conditions."""
    from dippouch.core.messages import joined

    if not isinstance(victory, dict):
        return msg("see rules")
    parts: list[Msg] = []
    by_power = victory.get("by_power")
    if isinstance(by_power, dict):
        targets: dict[object, list[str]] = {}
        for power, n in by_power.items():
            targets.setdefault(n, []).append(str(power))
        each = [
            msg("%(num)s centres (%(powers)s)", num=_number(n), powers=", ".join(ps))
            for n, ps in sorted(targets.items(), key=str)
        ]
        target = joined(*each)
        if target is not None:
            parts.append(target)
    elif "centres" in victory:
        parts.append(msg("%(num)s centres", num=_number(victory["centres"])))
    if victory.get("capitals"):
        parts.append(msg("plus a capital of each kingdom"))
    if victory.get("remaining"):
        parts.append(msg("or %(num)s powers left", num=_number(victory["remaining"])))
    out: Msg | None = None
    for part in parts:
        # The conditions one after the other, as the victory's own list reads (the web's rules summary says them
        # in sentences; this is a table's cell).
        out = part if out is None else msg("%(first)s, %(then)s", first=out, then=part)
    return out or msg("see rules")


def _number(value: object) -> int | str:
    """A number from the variant file as a message's value (as written: the file's own figure)."""
    return value if isinstance(value, int) else str(value)
