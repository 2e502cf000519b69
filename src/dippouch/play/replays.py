"""A game's replay: the pictures of its line of play in order (each processed phase's orders, then the board
they led to, then the board as it stands), and the replay as one animated picture, made once and kept.

Who may see the game is the door's question (the web's ``VisibleGame``); every picture here is one that the
game's phase pages already show to anyone who may see it (orders are drawn only once processed), so the
replay and its export are the same for every such reader and are kept once per game."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dippouch.core.messages import Msg, PhaseName, msg
from dippouch.store.records import StoredPhase

I18N_DOMAIN = "games"

__all__ = ["FRAME_MS", "LAST_FRAME_MS", "Frame", "ReplayExports", "export_replay", "replay_frames"]

FRAME_MS = 1200
"""How long a frame of the animated replay is shown."""

LAST_FRAME_MS = 4000
"""The last frame stays longer: the animation loops, and the final board is what a viewer came to see."""


@dataclass(frozen=True)
class Frame:
    """One picture of the replay: a phase (``phase_id``, ``phase``) seen as ``view`` (one of the web's map
    views: ``orders``, the phase's position with its orders and results drawn; ``after``, the position they
    led to; ``board``, a position without orders), and the words that say which (said in the reader's language
    at the door: the page, the API, the animated replay)."""

    phase_id: int
    phase: str
    view: str
    caption: Msg


def replay_frames(phases: Sequence[StoredPhase]) -> list[Frame]:
    """The replay of a game whose phases (as opened, rolled-back ones too) are ``phases``: for each processed
    phase of its line of play, its orders and results, then the board they led to; last, the open phase's
    board, or once the game is over the final board: that of the phase it ended in (closed without a position
    after it: a draw voted), else the board after the last phase once more. So there are always
    2 x processed phases + 1 frames, and the first shows the opening position with the first orders on it.

    A phase rolled back (``abandoned``) is not in the line of play; a processed phase without a position
    after it (the game ended in it) has no orders and results to draw, as on the game page's history."""
    line = [h for h in phases if h.status != "abandoned"]
    processed = [h for h in line if h.status == "processed" and h.next_position is not None]
    frames: list[Frame] = []
    for h in processed:
        frames.append(Frame(h.id, h.name, "orders", msg("%(phase)s: orders and results", phase=PhaseName(h.name))))
        frames.append(Frame(h.id, h.name, "after", msg("After %(phase)s", phase=PhaseName(h.name))))
    current = next((h for h in line if h.status == "open"), None)
    # A game that ends in a phase (a draw voted, a victory) closes it without a position after it.
    ended_in = line[-1] if line and line[-1].status == "processed" and line[-1].next_position is None else None
    if current is not None:
        frames.append(
            Frame(current.id, current.name, "board", msg("%(phase)s: the board now", phase=PhaseName(current.name)))
        )
    elif ended_in is not None:
        frames.append(
            Frame(
                ended_in.id, ended_in.name, "board", msg("%(phase)s: the final board", phase=PhaseName(ended_in.name))
            )
        )
    elif processed:
        last = processed[-1]
        frames.append(
            Frame(last.id, last.name, "after", msg("The final board, after %(phase)s", phase=PhaseName(last.name)))
        )
    elif line:  # a game with no phase processed nor open (never stored so): its first board
        frames.append(Frame(line[0].id, line[0].name, "board", msg("%(phase)s", phase=PhaseName(line[0].name))))
    return frames


class ReplayExports:
    """Animated replays already made, by game, frames and format, kept until :attr:`BYTES` are held (the
    least recently asked for go first). A processed phase never changes and an open phase's board does not
    while it is open, so the same frames always make the same picture; a phase processed or rolled back
    changes the frames, hence the key. Each picture is made once even when many ask for it at once: the
    others wait for the first."""

    BYTES = 128_000_000
    """The bound on what is kept (a standard game of 20 years is a few MB as GIF)."""

    def __init__(self) -> None:
        self._made: OrderedDict[tuple[object, ...], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[tuple[object, ...], threading.Lock] = {}

    @staticmethod
    def key(
        game: str, frames: Sequence[Frame], fmt: str, captions: Sequence[str], lang: str = "en"
    ) -> tuple[object, ...]:
        """The picture's key: its frames, their captions as said and the language of their maps' words (a
        picture for each language)."""
        return (game, fmt, tuple((f.phase_id, f.view) for f in frames), tuple(captions), lang)

    def cached(self, key: tuple[object, ...]) -> bytes | None:
        """The picture made before under ``key`` (cheap: nothing is drawn)."""
        with self._lock:
            got = self._made.get(key)
            if got is not None:
                self._made.move_to_end(key)
            return got

    def made(self, key: tuple[object, ...], make: Callable[[], bytes]) -> bytes:
        """The picture under ``key``, made by ``make`` if nobody made it before."""
        got = self.cached(key)
        if got is not None:
            return got
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:
            got = self.cached(key)
            if got is not None:  # made by the request this one waited for
                return got
            try:
                got = make()
            finally:
                with self._lock:
                    self._making.pop(key, None)
            with self._lock:
                self._made[key] = got
                total = sum(len(v) for v in self._made.values())
                while total > self.BYTES and len(self._made) > 1:
                    total -= len(self._made.popitem(last=False)[1])
            return got


def export_replay(frames: Sequence[Frame], svg_of: Callable[[Frame], str], fmt: str, captions: Sequence[str]) -> bytes:
    """The replay as one animated picture in ``fmt`` (``gif`` or ``webp``): every frame drawn by ``svg_of``
    (the door's pictures of a phase, so the export shows what its pages show) under its caption as the door
    said it (``captions``, one a frame), shown :data:`FRAME_MS`, the last :data:`LAST_FRAME_MS`."""
    from dippouch.render.animation import AnimationFrame, animate

    last = len(frames) - 1
    return animate(
        [
            AnimationFrame(functools.partial(svg_of, f), caption, LAST_FRAME_MS if i == last else FRAME_MS)
            for i, (f, caption) in enumerate(zip(frames, captions, strict=True))
        ],
        fmt,
    )
