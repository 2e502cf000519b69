"""The JSON API's answers: the game list, a game's page, its phases and the game file."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer
from dippouch.web.views.answers.roster import GameAbsencesAnswer

__all__ = [
    "BoardPower",
    "CheckedLine",
    "DrawState",
    "GameFile",
    "GameFileEvent",
    "GameFileGame",
    "GameFilePhase",
    "GameFilePlayer",
    "GameFileVote",
    "GameListing",
    "GameView",
    "HistoryEntry",
    "LineVerdict",
    "PhaseSubmissions",
    "PhaseView",
    "Place",
    "PowerState",
    "Submission",
    "Unsealing",
    "VariantListing",
]


# Lists


class GameListing(Answer):
    name: str
    variant: str
    state: str = Field(description="active, paused or finished")
    phase: str | None = Field(description="The open phase (None once the game is over).")
    deadline: str | None = Field(description="ISO 8601, UTC; None for unlisted games shown to their members.")
    listed: bool = Field(description="Listed publicly (otherwise shown because the caller belongs to it).")
    mine: bool = Field(description="The caller plays or coordinates it.")


class VariantListing(Answer):
    """A variant, or a variant file that does not load (``broken``, with its problems, and nothing else)."""

    name: str
    title: str | None = None
    powers: list[str] | None = None
    centres: int | None = Field(None, description="Number of supply centres.")
    broken: bool | None = Field(None, description="True for a file that does not load; the others stay usable.")
    file: str | None = Field(None, description="The broken file's path.")
    problems: list[str] | None = Field(None, description="What is wrong with the broken file.")


class Place(Answer):
    abbr: str
    name: str


# The game page


class BoardPower(Answer):
    power: str
    units: list[str] = Field(description="Full names, e.g. 'Army Paris'; dislodged ones marked '(dislodged)'.")
    centres: list[str]


class PowerState(Answer):
    """A power as everyone may see it: who plays it, whether it has sent orders and is ready (never what)."""

    power: str
    colour: str
    player: str | None
    person_id: int | None = Field(
        None, description="The person playing it (their page: /people/ID), where the reader may see their name."
    )
    must_act: bool | None = Field(
        description="It has orders to give this phase (None: hidden from this reader by the fog of war, which "
        "would otherwise tell who retreats, builds or removes)."
    )
    submitted: bool | None = Field(description="None where must_act is.")
    ready: bool | None = Field(description="None where must_act is.")
    units: int | None = Field(
        description="How many units it has (None: hidden by the fog of war from a reader who does not play it; "
        "a power out of the game shows 0 and 0, as its elimination is public)."
    )
    centres: int | None = Field(description="How many supply centres it owns (None where units is).")
    civil_disorder: bool
    draw_vote: bool = Field(
        description="Under a secret ballot, the vote as it stood when the last phase was processed."
    )


class DrawState(Answer):
    possible: bool
    why_not: str | None
    secret: bool
    voters: int
    missing_count: int
    missing: list[str] | None = Field(description="Who has not voted yes (None under a secret ballot).")
    majority: bool = Field(False, description="Whether the game's vote rule passes a draw on more than half's yes.")
    more_needed: int = Field(0, description="How many more yes votes pass the draw under the game's vote rule.")


class HistoryEntry(Answer):
    id: int
    name: str
    status: str = Field(description="open, processed or abandoned (rolled back)")
    processed_at: str | None


class Unsealing(Answer):
    """A time the coordinator opened sealed orders: the players are shown who, when and why."""

    at: str
    at_text: str
    phase: str | None
    who: str | None
    what: str | None
    reason: str | None


class GameView(Answer):
    """Everything public about a game."""

    name: str
    variant: str
    variant_title: str
    state: str
    phase: str | None
    phase_id: int | None
    kind: str | None = Field(description="movement, retreats or adjustments")
    deadline: str | None = Field(description="ISO 8601, UTC")
    deadline_text: str | None = Field(description="The deadline in the game's time zone, for reading.")
    when_ready: bool = Field(
        False, description="Each phase goes on when its players are ready; the deadline only moves a game they left."
    )
    paused_remaining: str | None
    timezone: str
    powers: list[PowerState]
    board: list[BoardPower]
    draw: DrawState | None
    ending: str | None
    last_report: str | None
    last_processed_id: int | None
    history: list[HistoryEntry]
    map_url: str | None = Field(description="The picture of the phase shown (SVG); None where none can be drawn.")
    map_phase: tuple[int, str] = Field(description="(phase id, view) of that picture.")
    preview_url: str | None = Field(
        None, description="The same picture as a PNG of 1200x630, the link preview pages name (Open Graph)."
    )
    visibility: str = Field(description="public, unlisted or private")
    settings: dict[str, Any] = Field(description="Deadlines per phase kind, time zone, missed-phase limit, draws.")
    unsealings: list[Unsealing]
    marker: tuple[int, int, int, int] = Field(description="Changes whenever anything shown here changes.")
    # The pages that draw the map in place (the player's page) carry its SVG here; never sent as JSON (the
    # picture is its own resource, map_url).
    map_svg: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    absences: GameAbsencesAnswer | None = Field(
        None, description="Who is away (days only), the game's policy for them and what it did at past deadlines."
    )
    names_hidden: bool | None = Field(
        None, description="An anonymous game before its end: players' names are left out (but the reader's own)."
    )
    fog: bool | None = Field(
        None,
        description="A fog-of-war game before its end, as this reader sees it: the board, the report and the map "
        "show only what the reader's powers see (nothing to a reader without a seat).",
    )
    overdue: str | None = Field(
        None,
        description="The deadline has passed and the phase is not processed yet: 'review' while it waits for the "
        "coordinator's review of mailed photographs or held mail, 'processing' while it waits to be processed; "
        "None before the deadline (or when the game is not running).",
    )


# Phases and the game file


class LineVerdict(Answer):
    """One line of a submission as checked on arrival."""

    line: int
    text: str
    # Defaults: a game file may leave out a line's empty verdict fields (its import checks their types only).
    order: str | None = Field(None, description="The order read, in canonical notation; None if the line was refused.")
    error: str | None = Field(None, description="Why the line was refused (with the closest valid name).")
    note: str | None = None
    code: str | None = Field(None, description="The refusal's message id, for programs (None if accepted).")
    params: dict[str, Any] | None = Field(None, description="The refusal's values by name (places, units, powers).")
    error_msg: dict[str, Any] | None = Field(None, description="The refusal as stored: message id and values.")
    note_msg: dict[str, Any] | None = Field(None, description="The note as stored: message id and values.")


class CheckedLine(LineVerdict):
    subject: str | None = Field(
        description="The province of the unit or site the order is about (None for orders about none)."
    )
    draft: str | None = Field(
        default=None,
        description="The accepted order as the map draws it before it is sent: an SVG group of class "
        "`draft` in the board's coordinates, with data-unit, data-target, data-dest (None for a refused line, "
        "one that does not read, or one without a mark on the map).",
    )


class Submission(Answer):
    """A version a power sent (text and lines are None while sealed)."""

    id: int | None = None
    power: str
    version: int
    submitted_at: str
    text: str | None = None
    lines: list[LineVerdict] | None = None
    ready: bool
    late: bool
    source: str | None = Field(None, description="web, mail, post, photo ...")
    recorded_at: str | None = None
    label: str | None = None
    reinstates: int | None = None
    stands: bool | None = None
    carried_from: Any = None
    sealed: bool | None = None


class PhaseSubmissions(Answer):
    sealed: bool
    submissions: list[Submission]


class PhaseView(Answer):
    """One phase of the history."""

    game: str
    id: int
    name: str
    status: str
    kind: str
    deadline: str | None
    processed_at: str | None
    orders: dict[str, Any] | None = Field(description="The orders carried out, by power (None until processed).")
    results: list[Any] | None = Field(description="Each order's resolution (None until processed).")
    missed: list[Any] | None
    report: str | None
    prev: int | None
    next: int | None
    position: dict[str, Any]
    next_position: dict[str, Any] | None
    submissions: PhaseSubmissions | None = Field(
        None, description="For the game's coordinator only: every version each power sent."
    )
    # The phase page draws its pictures in place; the JSON answer leaves them out (each is its own resource,
    # /games/{name}/phases/{id}/map-{view}.svg).
    map_svg: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    after_svg: SkipJsonSchema[str | None] = Field(default=None, exclude=True)


class GameFileGame(Answer):
    name: str
    variant: str
    variant_data: Any = None
    variant_hash: str | None = None
    options: dict[str, Any] | None = None
    settings: dict[str, Any] | None = None
    status: str
    ending: dict[str, Any] | None = None
    branch: int | None = None
    paused_remaining: Any = None
    created_at: str


class GameFilePlayer(Answer):
    power: str
    name: str
    assigned_at: str
    replaced_at: str | None
    email: str | None = Field(None, description="Left out of the public file.")


class GameFilePhase(Answer):
    id: int
    branch: int
    seq: int
    name: str
    kind: str
    status: str
    position: dict[str, Any]
    opened_at: str
    deadline: str | None
    processed_at: str | None
    orders: dict[str, Any] | None
    results: list[Any] | None
    next_position: dict[str, Any] | None
    missed: list[Any] | None
    submissions: list[Submission]


class GameFileVote(Answer):
    power: str
    draw: bool
    at: str


class GameFileEvent(Answer):
    at: str
    kind: str
    detail: Any


class GameFile(Answer):
    """The game file (``dippouch export``'s format), which ``POST /api/games/import`` takes back."""

    format: str
    version: int
    game: GameFileGame
    players: list[GameFilePlayer]
    phases: list[GameFilePhase]
    votes: list[GameFileVote]
    events: list[GameFileEvent]
    sealed: str | None = Field(None, description="What was left out, and why.")
    votes_sealed: str | None = Field(None, description="Draw votes left out under a secret ballot, and why.")
    anonymous: str | None = Field(
        None, description="An anonymous game before its end: the players' names left out (but the reader's own)."
    )
    mail: dict[str, Any] | None = Field(
        None,
        description="The mail record (settings, messages, photographs, held mail, notices): the coordinator's "
        "file only; the open phase's mail is sealed until its deadline.",
    )
    press: dict[str, Any] | None = Field(
        None,
        description="The press the game's rules let this reader have (rules, channels, messages); left out when "
        "there is none.",
    )
