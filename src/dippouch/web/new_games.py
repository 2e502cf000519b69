"""New games on the web: created from the coordinator's form (variant, options, deadlines, draws,
visibility; every field checked before anything is stored) or imported from a game file."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from dippouch.catalog import load_variant, variant_names
from dippouch.game import Settings
from dippouch.store.access import VISIBILITIES
from dippouch.web.inputs import duration, names, number
from dippouch.web.security import BadInput, Forbidden, Viewer
from dippouch.web.service import Web

__all__ = ["create_game", "import_game"]


def create_game(web: Web, viewer: Viewer, form: Mapping[str, Any]) -> str:
    """The installation coordinator's form, every setting open. A signed-in player starts theirs from a
    template instead (:func:`dippouch.play.openings.create_from_template`), and is sent there."""
    if viewer.person_id is not None and not viewer.coordinates(None):
        raise Forbidden(
            "this form is the installation coordinator's: start a game of your own from a template at /new-game "
            "(you coordinate it)"
        )
    web.require_coordinator(None, viewer)
    name = names(form.get("name", ""), "the game's name")
    if "/" in name or name.startswith("."):
        raise BadInput("a game's name cannot contain '/' or start with '.'")
    variant = str(form.get("variant", "standard"))
    if variant not in variant_names():
        raise BadInput(f"no variant {variant!r}; choose one of {', '.join(variant_names())}")
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
    missed = number(str(form.get("missed", "2")).strip() or "2", "missed phases before civil disorder", hi=999)
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
    )
    for k in ("movement", "retreats", "adjustments"):
        if duration(settings.deadlines[k], f"the {k} deadline") < timedelta(minutes=1):
            raise BadInput(f"the {k} deadline must be at least one minute")
    visibility = str(form.get("visibility") or "public")
    if visibility not in VISIBILITIES:
        raise BadInput(f"visibility must be one of {', '.join(VISIBILITIES)}")
    web.store.create_game(name, variant, now=web.now(), options=options, settings=settings)
    web.access.set_visibility(name, visibility)
    web.touched(name)
    return name


def import_game(web: Web, viewer: Viewer, data: Any, name: str | None) -> str:
    web.require_coordinator(None, viewer)
    if name:
        name = names(name, "the game's name")
    try:
        return web.store.import_game(data, name=name or None)
    except (AttributeError, TypeError, ValueError, KeyError) as e:
        raise BadInput(f"the game file is incomplete or in the wrong shape ({type(e).__name__}: {e})"[:300]) from None
