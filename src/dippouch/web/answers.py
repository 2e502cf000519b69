"""The shapes of the JSON API's answers, so its OpenAPI document (``/api/openapi.json``, shown at ``/api/docs``)
says what every call answers, field by field.

The rooms of the web app (:mod:`dippouch.web.games`, :mod:`~dippouch.web.player_page` ...) build plain data,
which the HTML templates read too; these models describe that data and FastAPI checks each answer against
them. Every model allows fields it does not name (``extra="allow"``), so an answer is never cut short in
production by a field added without its description; the API tests fail on any such field instead
(tests/web/test_web_api_answers.py), and the routes answer only the fields the data has
(``response_model_exclude_unset``), as they did before the models.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AbsenceAnswer",
    "AbsenceGame",
    "AbsencesAnswer",
    "ActionAnswer",
    "AddressAnswer",
    "AddressesAnswer",
    "AdjudicationAnswer",
    "AllyAnswer",
    "AppliedAnswer",
    "AwayAnswer",
    "CheckAnswer",
    "ClaimAnswer",
    "CoordinatorView",
    "CreatedAnswer",
    "DoneAnswer",
    "DrawAnswer",
    "ErrorAnswer",
    "GameAbsencesAnswer",
    "GameFile",
    "GameListing",
    "GameView",
    "KeyAnswer",
    "MovesAnswer",
    "NewGameAnswer",
    "NotifyChoice",
    "NotifyRemovedAnswer",
    "NotifySettingsAnswer",
    "NotifyTarget",
    "OpenList",
    "OpeningView",
    "PersonProfile",
    "PhaseView",
    "Place",
    "PlayerView",
    "PressBlocks",
    "PressChannelView",
    "PressDesk",
    "PressMessage",
    "PressMessages",
    "PressRead",
    "PressReport",
    "PressRulesAnswer",
    "PressSent",
    "PressThread",
    "PressView",
    "Receipt",
    "ResignAnswer",
    "RevokedAnswer",
    "RosterAnswer",
    "RosterChange",
    "RosterEntryAnswer",
    "RosterSettingsAnswer",
    "SeatAnswer",
    "SignupAnswer",
    "VariantListing",
    "VariantView",
    "VoteAnswer",
]


class Answer(BaseModel):
    """Every answer's base: fields not named here are kept, never dropped (see the module's docstring)."""

    model_config = ConfigDict(extra="allow")


class ErrorAnswer(Answer):
    """Every refusal: what is wrong and what to do, with the HTTP status repeated."""

    error: str
    status: int


# --------------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------------
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
    must_act: bool
    submitted: bool
    ready: bool
    units: int
    centres: int
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
    visibility: str = Field(description="public, unlisted or private")
    settings: dict[str, Any] = Field(description="Deadlines per phase kind, time zone, missed-phase limit, draws.")
    unsealings: list[Unsealing]
    marker: tuple[int, int, int, int] = Field(description="Changes whenever anything shown here changes.")
    map_svg: str | None = None
    absences: GameAbsencesAnswer | None = Field(
        None, description="Who is away (days only), the game's policy for them and what it did at past deadlines."
    )
    names_hidden: bool | None = Field(
        None, description="An anonymous game before its end: players' names are left out (but the reader's own)."
    )
    overdue: str | None = Field(
        None,
        description="The deadline has passed and the phase is not processed yet: 'review' while it waits for the "
        "coordinator's review of mailed photographs or held mail, 'processing' while it waits to be processed; "
        "None before the deadline (or when the game is not running).",
    )


# --------------------------------------------------------------------------------------------------
# Phases and the game file


class LineVerdict(Answer):
    """One line of a submission as checked on arrival."""

    line: int
    text: str
    # Defaults: a game file may leave out a line's empty verdict fields (its import checks their types only).
    order: str | None = Field(None, description="The order read, in canonical notation; None if the line was refused.")
    error: str | None = Field(None, description="Why the line was refused (with the closest valid name).")
    note: str | None = None


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


# --------------------------------------------------------------------------------------------------
# A power's page and orders


class UnitEntry(Answer):
    unit: str = Field(description="Short form, e.g. 'A par'.")
    name: str = Field(description="Full form, e.g. 'Army Paris'.")
    loc: str


class LegalOrder(Answer):
    """A legal order as the click-entry script needs it: its text, kind and the provinces it names."""

    text: str
    type: str
    subject: str | None
    dest: str | None
    target: str | None
    via: bool
    coast: str | None = Field(None, description="The coast's name, when the destination is one.")


class UnitOrders(Answer):
    loc: str
    province: str
    label: str
    orders: list[LegalOrder]


class LeftOut(Answer):
    units: list[str]
    notes: list[str]


class PlayerVersion(Submission):
    counts: bool = Field(description="This is the version that stands.")


class TurnResult(Answer):
    """One order of a processed phase and what became of it, as the phase's public page gives it."""

    power: str
    order: str = Field(description="The order in full place names, e.g. 'A Paris - Burgundy'.")
    result: str = Field(
        description="The adjudicator's word: succeeds, fails, cut, given, stands, dislodged, disrupted, "
        "available, illegal or invalid."
    )
    dislodged: bool = Field(description="The ordered unit was dislodged.")
    destroyed: bool = Field(description="The unit was dislodged with nowhere to retreat, and is gone.")
    automatic: bool = Field(description="The rules gave the order (the power sent none for this unit).")
    reason: str = Field(description="Why, in words (a bounce names the unit bounced with); may be empty.")


class DislodgedUnit(Answer):
    power: str
    unit: str = Field(description="Full form, e.g. 'Army Munich'.")
    loc: str = Field(description="Where it was dislodged, short form, e.g. 'mun'.")
    retreats: list[str] = Field(description="Where it may retreat (full names); empty: it is destroyed.")


class LastTurn(Answer):
    """The game's latest processed phase, as its public page shows it (orders are public once processed)."""

    phase_id: int
    phase: str
    kind: str
    processed_at: str | None = Field(description="ISO 8601, UTC.")
    report_url: str = Field(description="The phase's page: its report, orders and results, and maps.")
    map_url: str | None = Field(description="Its map with the orders and results drawn (SVG); None: no map.")
    results: list[TurnResult] = Field(description="Every order; the seat's own power's first.")
    dislodged: list[DislodgedUnit] = Field(description="Every unit the phase dislodged.")
    must_retreat: list[DislodgedUnit] = Field(
        description="The seat's own units that must retreat (or disband) in the open phase, a retreat phase."
    )


class PlayerView(Answer):
    """A power's own page: its units, legal orders, the versions it sent (its own only), and the last phase
    processed with every power's orders and their results."""

    game: GameView
    power: str
    variant: str
    me: PowerState
    colour: str
    power_index: int
    open: bool
    units: list[UnitEntry]
    legal: list[UnitOrders]
    versions: list[PlayerVersion]
    latest_text: str
    must_act: bool
    example: str
    unordered: LeftOut
    last_turn: LastTurn | None = Field(description="The phase processed last (None before the first is).")
    phase_id: int | None = None
    phase: str | None = None
    kind: str | None = None
    ready: bool | None = None
    adjust: int | None = Field(None, description="Builds (positive) or removals (negative) owed this Winter.")


class CheckAnswer(Answer):
    lines: list[CheckedLine]
    unordered: list[str] = Field(description="The power's units these lines give no order (full names).")
    unordered_notes: list[str] = Field(description="What happens to them, and builds or removals not ordered.")


class Receipt(Answer):
    """A recorded version of a power's orders."""

    phase: str
    power: str
    version: int
    late: bool
    ready: bool
    lines: list[LineVerdict]
    stands: bool = Field(description="Whether this version replaced the earlier ones.")
    standing: int | None = Field(description="The version that stands now.")
    ready_refused: str | None = Field(description="Why 'ready' was refused (the version is recorded, not ready).")
    accepted: int
    rejected: int
    processed: list[str] = Field(description="Phases processed at once because every power was ready.")
    unordered: list[str]
    unordered_notes: list[str]


class VoteAnswer(Answer):
    ending: str | None = Field(description="The game's ending, if every surviving power has now agreed.")


# --------------------------------------------------------------------------------------------------
# The coordinator's desk


class SeatedPlayer(Answer):
    power: str
    player: str | None
    person_id: int | None = Field(None, description="The person playing it (their page: /people/ID), if a person.")
    email: str | None
    history: list[tuple[str, str, str | None]] = Field(description="(player, assigned at, replaced at)")


class KeyEntry(Answer):
    id: int
    role: str
    power: str | None
    label: str | None
    created_at: str
    revoked: bool


class DeskSubmission(Answer):
    power: str
    version: int
    submitted_at: str
    ready: bool
    late: bool
    source: str | None
    count: int
    text: str | None = Field(None, description="Only once the deadline has passed.")
    lines: list[LineVerdict] | None = None


class CoordinatorView(Answer):
    game: GameView
    players: list[SeatedPlayer]
    keys: list[KeyEntry]
    submissions: list[DeskSubmission]
    sealed: bool
    visibilities: list[str]
    unseated: list[str]
    people_seats: int = Field(
        description="Powers a person (not a bot) plays: with one left, a bot policy's takeover of that seat pauses "
        "the game instead of leaving it to bots alone."
    )
    mail_unavailable: str | None
    mail: dict[str, Any] = Field(
        description="The mail review's summary: powers with photographs this phase, items waiting, whether the "
        "phase waits for the review."
    )
    away: list[str] = Field(
        default_factory=list,
        description="Players away today, each with what the game's absence policy does if the phase is "
        "processed now (as the confirmation of 'process now' says).",
    )


class CreatedAnswer(Answer):
    name: str


class SeatAnswer(Answer):
    power: str
    key: str = Field(description="The player's secret key, shown once.")
    link: str


class KeyAnswer(Answer):
    role: str
    power: str | None
    key: str = Field(description="The secret key, shown once.")
    link: str


class ActionAnswer(Answer):
    message: str


class BotSeatAnswer(Answer):
    power: str
    player: str = Field(description='The bot as a player: "bot:LEVEL".')
    version: int | None = Field(description="The version the bot sent for the open phase, if it sent one.")


class RevokedAnswer(Answer):
    revoked: int


# --------------------------------------------------------------------------------------------------
# Variants


class VariantPower(Answer):
    name: str
    adjective: str
    letter: str
    colour: str
    homes: list[str]
    units: list[str]
    centres: int


class KeyPlace(Answer):
    abbr: str
    name: str
    kind: str
    centre: bool
    coasts: list[str]
    aliases: list[str]
    owner: str | None


class VariantOption(Answer):
    key: str
    default: Any
    description: str
    values: list[str]


class VariantView(Answer):
    name: str
    title: str
    description: str
    summary: list[str]
    powers: list[VariantPower]
    builds_anywhere: bool
    centres: list[str]
    key: list[KeyPlace]
    options: list[VariantOption]
    map_svg: str | None = None


class Province(Answer):
    abbr: str
    name: str
    kind: str
    centre: bool


class UnitMoves(Answer):
    unit: str
    location: str
    label: str
    moves: list[Place]


class MovesAnswer(Answer):
    variant: str
    query: str
    province: Province | None
    matches: list[Place]
    units: list[UnitMoves]
    suggestions: list[str] | None = None


class AdjudicationAnswer(Answer):
    """docs/adjudication-contract.md: each order's resolution and the next phase's request (or an error)."""

    results: list[dict[str, Any]] | None = None
    next: dict[str, Any] | None = None
    error: str | None = None


# --------------------------------------------------------------------------------------------------
# Press (web/press.py)


class PressMessage(Answer):
    id: int
    channel: int
    sender: str = Field(description="The sending power, Coordinator, or Anonymous (grey press).")
    text: str = Field(description="As written: plain text, never HTML (a page escapes it).")
    sent_at: str
    held: bool = Field(description="Postal press waiting for its phase's results (seen by its sender only).")
    mine: bool
    kind: str = Field(description="The channel's kind: private, group, public or announcement.")
    members: list[str] = Field(description="The channel's powers.")
    phase: str = Field("", description='The phase it was written in ("" when written after the game ended).')


class PressThread(Answer):
    id: int = Field(description="The channel's id (0: the announcements, before the first one).")
    kind: str = Field(description="private, group, public or announcement")
    members: list[str]
    unread: int
    last_id: int
    last_at: str | None


class PressView(Answer):
    game: str
    power: str | None
    rules: dict[str, Any]
    rules_text: list[str] = Field(description="The rules as the players are shown them.")
    powers: list[dict[str, Any]] = Field(description="Each power, and its player's name unless the game is anonymous.")
    threads: list[PressThread]
    blocks: dict[str, str] = Field(description="Powers this player mutes or blocks.")
    latest: int = Field(description="The newest message id this reader may read (where to listen from).")
    by_mail: str | None = Field(
        None,
        description="Where copies of this power's messages are mailed (with a reply code), or null: none are "
        "(the game's mail does not take replies, the seat has no address, or its person chose no press by e-mail).",
    )


class PressChannelView(Answer):
    thread: PressThread
    messages: list[PressMessage]
    more: bool = Field(description="Older messages are left: ask again with before=the first id.")
    read_up_to: int = Field(description="The last message id the reader had read in this channel.")


class PressMessages(Answer):
    messages: list[PressMessage]


class PressSent(Answer):
    id: int
    channel: int
    kind: str
    held: bool
    mailed: int = Field(description="Copies queued by mail for recipients with an address.")


class PressRead(Answer):
    channel: int
    read_up_to: int


class PressBlocks(Answer):
    blocks: dict[str, str]


class PressReport(Answer):
    report: int


class PressRulesAnswer(Answer):
    rules: dict[str, Any]
    rules_text: list[str]


class PressDesk(Answer):
    game: str
    rules: dict[str, Any]
    rules_text: list[str]
    threads: list[PressThread]
    reports: list[dict[str, Any]]


# --------------------------------------------------------------------------------------------------
# Open games, the replacement pool and people's profiles (dippouch.web.openings)


class OpenGame(Answer):
    """A game opened for players, as anyone sees it."""

    game: str
    variant: str
    press: str = Field(description="The press rules, as the coordinator wrote them.")
    min_reliability: int = Field(description="Percent a player's reliability must reach (0: none asked).")
    mode: str = Field(description="coordinator (the coordinator assigns) or preferences (drawn when full)")
    deadlines: dict[str, str] = Field(description="Phase lengths by kind (movement, retreats, adjustments).")
    deadline: str | None = Field(description="The open phase's deadline (null while the clock is held).")
    seats_total: int
    seats_taken: int = Field(description="Seats filled: powers a person, a named player or a bot plays now.")
    seats_empty: int = Field(description="Powers nobody plays yet (sign-ups waiting are not seats).")
    needed: int = Field(description="Sign-ups still wanted before every empty power has someone waiting.")
    waiting_list: int = Field(description="Sign-ups beyond the empty powers: they get a power as one comes free.")
    empty: list[str] = Field(description="Powers nobody plays yet.")
    powers: list[str]
    signups: int = Field(description="Sign-ups waiting for a power.")
    open: bool = Field(description="Whether sign-up is open.")
    full: bool = Field(description="Every power played or promised: a sign-up joins the waiting list.")
    signed_up: bool = Field(description="Whether the signed-in person is among the sign-ups.")
    started_by_player: bool = Field(description="Started by a player from a template (who coordinates it).")
    press_kind: str | None = Field(None, description="The press kind its rules set: none, white, grey, public...")
    my_wishes: list[str] | None = None
    on_waiting_list: bool | None = None


class Replacement(Answer):
    """A seat in the replacement pool."""

    game: str
    variant: str
    power: str
    reason: str = Field(description="disorder (its power fell into civil disorder) or freed (by the coordinator)")
    min_reliability: int
    deadline: str | None


class OpenList(Answer):
    games: list[OpenGame]
    replacements: list[Replacement]
    filters: dict[str, Any] = Field(description="The filters applied (variant, length, press, soon, seats).")
    choices: dict[str, Any] = Field(description="What each filter may be set to.")


class WaitingSignup(Answer):
    """A sign-up as the game's coordinator sees it."""

    person: int
    name: str
    preferences: list[str]
    reliability: int | None = Field(description="Percent; null for a person with no record yet.")
    signed_at: str


class OpeningView(Answer):
    """A game's opening (as :class:`OpenGame` says, field by field); for its coordinator also the sign-ups and
    the draw. A game not opened yet answers its coordinator only its name, its powers and ``opened: false``."""

    game: str
    opened: bool
    powers: list[str]
    variant: str | None = None
    press: str | None = None
    min_reliability: int | None = None
    mode: str | None = None
    deadlines: dict[str, str] | None = None
    deadline: str | None = None
    seats_total: int | None = None
    seats_taken: int | None = None
    seats_empty: int | None = None
    needed: int | None = None
    waiting_list: int | None = None
    empty: list[str] | None = None
    signups: int | None = None
    open: bool | None = None
    full: bool | None = None
    signed_up: bool | None = None
    started_by_player: bool | None = None
    my_wishes: list[str] | None = None
    on_waiting_list: bool | None = None
    replacements: list[str] | None = Field(None, description="Powers of this game in the replacement pool.")
    waiting: list[WaitingSignup] | None = None
    draw: dict[str, Any] | None = Field(None, description="The automatic draw: seed, powers and ranks by person.")


class PersonRecord(Answer):
    on_time: int
    late: int
    missed: int
    seats: int
    excused: int = Field(
        0, description="Phases of an announced absence or covered by the game's absence policy: for and against nobody."
    )
    abandoned: int = Field(
        description="Seats abandoned: left in civil disorder, freed to the replacement pool by a coordinator, or "
        "handed to someone else after a phase the person sent nothing for (each seat counted once)."
    )


class PersonProfile(Answer):
    """A person as anyone sees them: never an address."""

    id: int
    name: str
    games: int
    reliability: int | None = Field(description="Percent; null for a person with no record yet.")
    record: PersonRecord
    hidden_games: int | None = Field(
        None,
        description="Games counted here that hide their players' names until they end: given only to the "
        "person and those games' coordinators (everyone else's record leaves them out, and says nothing).",
    )


class SignupAnswer(Answer):
    game: str
    signed_up: bool
    seated_as: str | None = Field(description="The power given, when this sign-up filled the game.")
    seats_taken: int | None = None
    signups: int | None = Field(None, description="Sign-ups waiting for a power, this one included.")
    seats_empty: int | None = None
    waiting_list: bool | None = Field(None, description="Whether this sign-up is on the game's waiting list.")
    text: str | None = None


class ResignAnswer(Answer):
    game: str
    power: str | None = Field(description="The power given up (null: a sign-up withdrawn).")
    how: str = Field(description="withdrawn, freed (before the start: the power is open again) or pool.")
    text: str


class NewGameAnswer(Answer):
    game: str
    invitation: str | None = Field(description="A private game's invitation link (shown once), else null.")


class ClaimAnswer(Answer):
    game: str
    power: str


class DrawAnswer(Answer):
    game: str
    seated: dict[str, str] = Field(description="Person (id) -> the power drawn for them.")


# --------------------------------------------------------------------------------------------------
# Accounts (web/accounts.py)


class MySeat(Answer):
    """A seat the signed-in person plays, and whether their orders for the open phase are in."""

    game: str
    variant: str
    power: str
    state: str
    phase: str | None
    deadline: str | None
    orders: str
    """``in``, ``missing``, ``not needed``, or ``none`` (no open phase)."""
    url: str
    leaving: bool | None = Field(None, description="They resigned it; it waits in the pool for a new player.")


class KeySeat(Answer):
    """A seat the browser holds by its player key only: it may be added to the account."""

    key_id: int
    game: str | None
    power: str | None


class MyPasskey(Answer):
    id: int
    label: str
    created_at: str | None
    last_used_at: str | None


class MeView(Answer):
    """The signed-in person's own page: never another's."""

    person_id: int | None = Field(None, description="Their person page, /people/ID: their public record.")
    name: str
    email: str | None
    seats: list[MySeat]
    coordinates: list[str]
    """Games they coordinate by key (``""``: the whole installation)."""
    keys_to_add: list[KeySeat]
    calendar_since: str | None
    passkeys: list[MyPasskey]
    signups: list[dict[str, Any]] = Field(
        default_factory=list, description="Sign-ups waiting for a power: game, variant, wishes, waiting list."
    )
    starting: list[dict[str, Any]] = Field(
        default_factory=list, description="Games of theirs that just filled and start: game, power, when."
    )
    left: list[dict[str, Any]] = Field(
        default_factory=list, description="Seats they left: game, power, why (resigned, freed, disorder), taken."
    )


class PasskeyOptions(Answer):
    """WebAuthn options for the browser (``PublicKeyCredentialCreationOptionsJSON`` or ``...RequestOptionsJSON``)."""

    options: dict[str, Any]


class SignedIn(Answer):
    ok: bool
    url: str


# ------------------------------------------------------------------------------------------------ the roster


class AddressAnswer(Answer):
    id: int
    address: str = Field(description="One line of the envelope a line.")
    primary: bool
    first_day: str | None = Field(description="First day an alternate is preferred (None: the primary).")
    last_day: str | None = Field(description="Last day it is preferred, inclusive.")
    when: str = Field(description='"primary" or the days, as "3-21 Aug".')
    in_force: bool = Field(description="The address correspondence goes to today.")


class AddressesAnswer(Answer):
    today: str
    addresses: list[AddressAnswer]


class DoneAnswer(Answer):
    message: str


class AbsenceAnswer(Answer):
    id: int
    first_day: str
    last_day: str = Field(description="Inclusive.")
    text: str = Field(description='How games show it: "away 3-21 Aug".')
    reason: str = Field(description="The person's own note; never shown to a game.")


class AbsenceGame(Answer):
    game: str
    power: str
    policy: str
    policy_text: str
    proxy_orders: bool = Field(description="The game's rules let an ally order your units (W3K).")
    ally: str | None = Field(description="The ally you named there, if any.")
    powers: list[str] | None = Field(None, description="The powers you may name as ally (where proxy orders exist).")


class AllyAnswer(Answer):
    game: str
    ally: str | None


class AbsencesAnswer(Answer):
    today: str
    absences: list[AbsenceAnswer]
    games: list[AbsenceGame] = Field(description="Each game the person plays, with its policy for absent players.")


class RosterChange(Answer):
    first_day: str = Field(description="The day this address comes into force.")
    address: str | None


class RosterEntryAnswer(Answer):
    power: str
    player: str | None = Field(
        description="None in an anonymous game before its end, but for the reader's own seats (and the coordinator)."
    )
    person_id: int | None = Field(None, description="The person playing it (their page: /people/ID), as ``player``.")
    away: str | None = Field(None, description='"away 3-21 Aug" while or before the player is away.')
    emails: list[str] | None = Field(None, description="Only for those the game lets read addresses.")
    address: str | None = Field(None, description="The postal address in force today (same rule).")
    until: str | None = Field(None, description="The last day of the alternate in force, if one is.")
    changes: list[RosterChange] | None = Field(None, description="Upcoming changes of the address in force.")


class RosterAnswer(Answer):
    game: str
    variant: str
    status: str
    visibility: str = Field(description="Who reads addresses: coordinator, co-players or nobody.")
    visibility_text: str
    addresses_shown: bool = Field(description="Whether this caller reads the addresses.")
    names_hidden: bool | None = Field(
        None, description="An anonymous game before its end: other players' rows carry their power only."
    )
    day: str
    entries: list[RosterEntryAnswer]


class AwayAnswer(Answer):
    power: str
    player: str | None = Field(description="None where the game is anonymous and the reader may not know.")
    text: str
    now: bool


class AppliedAnswer(Answer):
    phase: str
    power: str
    policy: str
    days: float
    text: str


class GameAbsencesAnswer(Answer):
    policy: str
    policy_text: str
    budget_days: int
    stand_in: str | None
    away: list[AwayAnswer]
    applied: list[AppliedAnswer] = Field(description="What the game did at past deadlines for absent players.")


class RosterSettingsAnswer(Answer):
    roster_visibility: str
    absence_policy: str
    budget_days: int
    stand_in: str | None
    proxy_orders: bool = Field(description="The variant lets allies order an absent player's units (W3K).")


GameView.model_rebuild()  # its absences are described below it


# --------------------------------------------------------------------------------------------------
# Notifications (web/notify.py): a signed-in person's own choices and targets


class NotifyChoice(Answer):
    event: str
    label: str
    channels: dict[str, bool] = Field(description="Channel (email, push, webhook) -> wanted.")


class NotifyTarget(Answer):
    """A push subscription or webhook as its owner sees it: where it goes, never its secret address."""

    id: int
    channel: str
    kind: str
    label: str
    where: str


class NotifySettingsAnswer(Answer):
    events: list[NotifyChoice]
    deadline_hours: int
    vapid_public_key: str = Field(description="The installation's VAPID key, for PushManager.subscribe.")
    targets: list[NotifyTarget]


class NotifyRemovedAnswer(Answer):
    removed: int
