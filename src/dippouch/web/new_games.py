"""New games on the web: created from the coordinator's form (variant, options, deadlines, draws,
visibility; every field checked before anything is stored) or imported from a game file."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dippouch.catalog import load_variant, variant_names
from dippouch.game import Settings
from dippouch.play import games
from dippouch.play.records import find_system
from dippouch.store.access import VISIBILITIES
from dippouch.web.inputs import names, number, phase_deadlines
from dippouch.web.security import BadInput, Forbidden, Viewer
from dippouch.web.service import Web

__all__ = ["create_game", "import_game"]

I18N_DOMAIN = "site"


def create_game(web: Web, viewer: Viewer, form: Mapping[str, Any], gettext: Callable[[str], str] = str) -> str:
    """The installation coordinator's form, every setting open. A signed-in player starts theirs from a
    template instead (:func:`dippouch.play.openings.create_from_template`), and is sent there. Refusals are
    written with ``gettext``, the reader's catalogue where a page passes it (English otherwise)."""
    if viewer.person_id is not None and not viewer.coordinates(None):
        raise Forbidden(
            gettext(
                "this form is the installation coordinator's: start a game of your own from a template at "
                "/new-game (you coordinate it)"
            )
        )
    web.require_coordinator(None, viewer)
    name = names(form.get("name", ""), gettext("the game's name"), say=gettext)
    if "/" in name or name.startswith("."):
        raise BadInput(gettext("a game's name cannot contain '/' or start with '.'"))
    variant = str(form.get("variant", "standard"))
    if variant not in variant_names():
        raise BadInput(
            gettext("no variant %(name)s; choose one of %(all)s")
            % {"name": repr(variant), "all": ", ".join(variant_names())}
        )
    v = load_variant(variant)
    options: dict[str, Any] = {}
    for key, spec in v.data.get("options", {}).items():
        raw = form.get(f"option_{variant}_{key}", form.get(f"option_{key}"))
        default = spec.get("default")
        if raw is None or raw == "":
            value = False if isinstance(default, bool) else default
        elif isinstance(default, bool):
            value = str(raw).lower() in ("1", "true", "on", "yes")
        else:
            value = str(raw)
        if value != default:
            options[key] = value
    missed = number(
        str(form.get("missed", "2")).strip() or "2",
        gettext("missed phases before civil disorder"),
        hi=999,
        say=gettext,
    )
    settings = Settings(
        deadlines={
            k: str(form.get(k) or d) for k, d in (("movement", "12d"), ("retreats", "2d"), ("adjustments", "2d"))
        },
        timezone=str(form.get("timezone") or "UTC"),
        time_of_day=str(form["time_of_day"]) if form.get("time_of_day") else None,
        missed_limit=missed,
        draws=str(form.get("draws", "on")).lower() in ("1", "true", "on", "yes"),
        secret_ballot=str(form.get("secret_ballot", "")).lower() in ("1", "true", "on", "yes"),
        anonymous=str(form.get("anonymous", "")).lower() in ("1", "true", "on", "yes"),
        scoring=find_system(str(form["scoring"])).name if form.get("scoring") else None,
        language=str(form.get("language") or "en").strip().lower(),
        vote_rule=str(form.get("vote_rule") or "unanimous"),
        # Open to newcomers unless the form says otherwise (a box ticked "not for newcomers" sends "no").
        newcomers=str(form.get("newcomers", "yes")).strip().lower() not in ("0", "false", "off", "no"),
    )
    phase_deadlines({k: settings.deadlines[k] for k in ("movement", "retreats", "adjustments")}, say=gettext)
    visibility = str(form.get("visibility") or "public")
    if visibility not in VISIBILITIES:
        raise BadInput(gettext("visibility must be one of %(all)s") % {"all": ", ".join(VISIBILITIES)})
    games.create(web.store, name, variant, now=web.now(), options=options, settings=settings, visibility=visibility)
    web.touched(name)
    return name


def import_game(web: Web, viewer: Viewer, data: Any, name: str | None, gettext: Callable[[str], str] = str) -> str:
    web.require_coordinator(None, viewer)
    if name:
        name = names(name, gettext("the game's name"), say=gettext)
    try:
        return games.import_file(web.store, data, name=name or None)
    except (AttributeError, TypeError, ValueError, KeyError) as e:
        why = f"{type(e).__name__}: {e}"[:250]  # the error is cut, not the sentence around it
        raise BadInput(gettext("the game file is incomplete or in the wrong shape (%(why)s)") % {"why": why}) from None
