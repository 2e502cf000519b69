"""The JSON API's answer for a game's replay: its frames, in order, with the addresses of their pictures."""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer

__all__ = ["ReplayFrame", "ReplayView"]


class ReplayFrame(Answer):
    """One picture of the replay: a phase seen with its orders and results, or a board."""

    index: int = Field(description="The frame's place in the replay, from 0 (the page's ``?at=``).")
    phase_id: int
    phase: str = Field(description="The phase's name, e.g. 'Spring 1901 Movement'.")
    view: str = Field(
        description="orders: the phase's position with its orders and results drawn; after: the position they "
        "led to; board: a position without orders (the open phase's, at the end of a game still played)."
    )
    caption: str = Field(description="What the frame shows, in words (the animated replay's caption too).")
    picture: str | None = Field(
        description="The frame's map as SVG (one of the phase's map views); None where no map can be drawn."
    )
    phase_page: str = Field(description="The phase's own page: its orders and results in words.")


class ReplayView(Answer):
    """A game's replay: each processed phase's orders and results, then the board they led to; last, the board
    as it stands (the open phase's, or the final one, once more). 2 x processed phases + 1 frames."""

    game: str
    variant: str
    variant_title: str
    frames: list[ReplayFrame]
    gif: str = Field(description="The replay as an animated GIF (made on the first request, then kept).")
    webp: str = Field(description="The replay as an animated WebP (smaller; made on the first request, then kept).")
    at: SkipJsonSchema[int | None] = Field(default=None, exclude=True)
    """The frame the page shows (its ``?at=``, kept in range): the page only."""
