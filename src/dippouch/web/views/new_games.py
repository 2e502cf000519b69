"""New games on the web: created from the coordinator's form (variant, options, deadlines, draws,
visibility; every field checked before anything is stored) or imported from a game file; and the small map
of each variant the new-game page shows beside its name (:func:`thumbnail`)."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dippouch import settings as site_settings
from dippouch.catalog import load_variant, variant_names
from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.game import GameSettings
from dippouch.play import games
from dippouch.play.records import find_system
from dippouch.store.access import VISIBILITIES
from dippouch.web.http.inputs import names, number, phase_deadlines
from dippouch.web.http.security import BadInput, Forbidden, Viewer
from dippouch.web.http.service import Web

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = ["create_game", "import_game", "thumbnail", "thumbnail_key"]

I18N_DOMAIN = "site"

log = logging.getLogger(__name__)


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
            msg("no variant %(name)s; choose one of %(all)s", name=repr(variant), all=", ".join(variant_names()))
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
    settings = GameSettings(
        deadlines={
            k: str(form.get(k) or d) for k, d in (("movement", "12d"), ("retreats", "2d"), ("adjustments", "2d"))
        },
        timezone=str(form.get("timezone") or "UTC"),
        time_of_day=str(form["time_of_day"]) if form.get("time_of_day") else None,
        missed_limit=missed,
        draws=str(form.get("draws", "on")).lower() in ("1", "true", "on", "yes"),
        secret_ballot=str(form.get("secret_ballot", "")).lower() in ("1", "true", "on", "yes"),
        anonymous=str(form.get("anonymous", "")).lower() in ("1", "true", "on", "yes"),
        fog=str(form.get("fog", "")).lower() in ("1", "true", "on", "yes"),
        scoring=find_system(str(form["scoring"])).name if form.get("scoring") else None,
        language=str(form.get("language") or "en").strip().lower(),
        vote_rule=str(form.get("vote_rule") or "unanimous"),
        # Open to newcomers unless the form says otherwise (a box ticked "not for newcomers" sends "no").
        newcomers=str(form.get("newcomers", "yes")).strip().lower() not in ("0", "false", "off", "no"),
    )
    phase_deadlines({k: settings.deadlines[k] for k in ("movement", "retreats", "adjustments")}, say=gettext)
    visibility = str(form.get("visibility") or "public")
    if visibility not in VISIBILITIES:
        raise BadInput(msg("visibility must be one of %(all)s", all=", ".join(VISIBILITIES)))
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
        if isinstance(e, DippouchError):
            # A refusal of the layers (a NotFound is a KeyError too): said by its message value, not its English.
            raise BadInput(e.msg) from None
        why = f"{type(e).__name__}: {e}"[:250]  # the error is cut, not the sentence around it
        raise BadInput(msg("the game file is incomplete or in the wrong shape (%(why)s)", why=why)) from None


# --------------------------------------------------------------------------------------------------
# Each variant's small map on the new-game page


_THUMB_KEY = "dippouch.web.views.new_games.thumbnail_key"
"""The name under which a variant keeps its thumbnail's key and the geometry file's stamp it was made for."""

_THUMB = "dippouch.web.views.new_games.thumbnail"
"""The name under which a variant keeps its thumbnail (about 10 KB) with the key it was made for: kept on the
variant, it goes when the variant goes (a file edited is loaded afresh), with no cache of its own to bound."""

_DRAWING = threading.Lock()
"""One thumbnail drawn at a time: a page's first visitor asks for a dozen at once, and each takes up to a few
seconds of CPU (drawn in turn, the second request for the same one finds it made)."""


def thumbnail_key(variant: Variant) -> str | None:
    """What names ``variant``'s thumbnail: its data, its geometry file (size and time) and the drawing's version,
    so an edited variant or map gets a new picture and a browser may keep each one for good; ``None`` when no
    map can be drawn (no geometry built). Worked out once per variant object (its data hash is not free)."""
    from dippouch.core.variant import content_hash
    from dippouch.render.geometry import geometry_path
    from dippouch.render.thumbnail import THUMBNAIL_VERSION

    try:
        st = geometry_path(variant).stat()
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    kept = variant.derived.get(_THUMB_KEY)
    if kept is None or kept[0] != stamp:
        text = f"{THUMBNAIL_VERSION}\n{variant.name}\n{content_hash(variant.data)}\n{stamp}"
        kept = (stamp, hashlib.sha256(text.encode()).hexdigest()[:16])
        variant.derived[_THUMB_KEY] = kept
    return str(kept[1])


def _cached_file(name: str, key: str) -> Path | None:
    folder = site_settings.current().cache_dir
    return None if folder is None else folder / "thumbnails" / f"{name}-{key}.png"


def thumbnail(name: str) -> tuple[bytes, str] | None:
    """The PNG of variant ``name``'s small map and its key, or ``None`` when it has no map to draw (or its file
    does not load; an unknown name is the caller's to refuse). Made once: kept in this process and in the
    cache folder (``DIPPOUCH_CACHE_DIR``, off: only in memory), where the next process finds it."""
    from dippouch.core.errors import VariantError

    try:
        v = load_variant(name)
    except VariantError:  # a file that does not load has no picture (the variants page lists its problems)
        return None
    key = thumbnail_key(v)
    if key is None:
        return None
    got = _kept(v, key)
    if got is not None:
        return got, key
    path = _cached_file(name, key)
    with _DRAWING:
        got = _kept(v, key)
        if got is None and path is not None and path.is_file():
            got = path.read_bytes()
        if got is None:
            got = _drawn(v)
            if got is None:
                return None
            _keep_file(path, got)
        v.derived[_THUMB] = (key, got)
    return got, key


def _kept(v: Variant, key: str) -> bytes | None:
    kept = v.derived.get(_THUMB)
    return kept[1] if kept is not None and kept[0] == key else None


def _drawn(v: Variant) -> bytes | None:
    from dippouch.render.thumbnail import thumbnail_png

    try:
        return thumbnail_png(v)
    except (ImportError, FileNotFoundError, ValueError) as e:  # no renderer, no geometry, or one to rebuild
        log.info("no thumbnail of %s: %s", v.name, e)
        return None


def _keep_file(path: Path | None, png: bytes) -> None:
    """Written whole or not at all (a reader never sees half a picture); a cache that cannot be written
    (read-only home, full disk) only means the next process draws it again."""
    if path is None:
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".thumb-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(png)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        log.info("thumbnail not kept on disk: %s", e)
