"""A game's press rules as data, and the one place that decides whether a message may be sent.

Every way in (the web page, the JSON API, a reply by mail) asks :func:`refusal` before anything is stored, so
one rule never has two readings. The rules a game declares (:class:`PressRules`) are kept with the game; a game
that declares none takes its variant's ``[press]`` table (W3K's press is letters by post, so its file says
``kind = "none"`` and ``by_post = true``) and otherwise white press on every channel.

The kinds, after the judges and web sites players know (njudge, webDiplomacy, Diplicity):

- ``none``: gunboat, no press at all (the coordinator's announcements still reach everyone);
- ``white``: the sender is named;
- ``grey``: the sender is hidden from the readers (the store keeps it, for conduct reports);
- ``public``: only messages to every power;
- ``postal``: messages are held and delivered with the results of the phase they were written in.

This module is pure: no clock, no database; the caller hands in what it counted (messages in the last
minute, who blocks the sender).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, choices, msg, pmsg

__all__ = [
    "ANNOUNCEMENT",
    "ANONYMOUS",
    "CHANNEL_KINDS",
    "COORDINATOR",
    "KINDS",
    "Attempt",
    "PressRules",
    "PressRulesError",
    "Refusal",
    "channel_kind",
    "describe",
    "may_read",
    "quiet_now",
    "refusal",
    "rules_for",
    "shown_members",
    "shown_sender",
]

I18N_DOMAIN = "rules"
"""The catalogue of the layers' messages: the refusals (:func:`refusal`, :class:`PressRulesError`) and the rules in
words (:func:`describe`), which the player's page and the desk show."""

KINDS = ("none", "white", "grey", "public", "postal")
CHANNEL_KINDS = ("private", "group", "public")
ANNOUNCEMENT = "announcement"
"""The coordinator's channel: every power reads it, only the coordinator writes in it."""
ANONYMOUS = "Anonymous"
"""How grey press names a hidden sender (no power has this name: power names are the variant's)."""
COORDINATOR = "Coordinator"
"""The sender name of the coordinator's announcements (no power has it: power names are the variant's)."""
PHASE_KINDS = ("movement", "retreats", "adjustments")
MAX_LENGTH = 5000
"""Characters a message may hold unless the game says otherwise: a long letter, not a file."""
PER_MINUTE = 10
"""Messages a power may send a minute unless the game says otherwise: talk, never a flood."""


class PressRulesError(DippouchError):
    """Press rules a game cannot have (an unknown kind, a channel that does not exist...)."""


@dataclass(frozen=True)
class PressRules:
    """What a game allows. The defaults are white press on every channel, in every phase."""

    kind: str = "white"
    channels: frozenset[str] = frozenset(CHANNEL_KINDS)
    """Which channel kinds players may write in (partial press)."""
    quiet_phases: frozenset[str] = frozenset()
    """Phase kinds without press (``retreats``, ``adjustments``: many house rules keep them silent)."""
    open_after_end: bool = True
    """Once the game is over its public press and announcements are open to every reader who may see the game
    (visitors too). Private and group letters stay with their members unless :attr:`open_private_after_end`."""
    open_private_after_end: bool = False
    """Once the game is over its private and group letters are open to every reader too: only where the game
    declares it (the players are shown this declaration from the start), never by default."""
    anonymous: bool = False
    """Players' names are hidden in the press until the game ends (powers are named, people are not)."""
    coordinator_reads_private: bool = False
    """Whether the coordinator may read private and group press; the players are shown this declaration."""
    max_length: int = MAX_LENGTH
    per_minute: int = PER_MINUTE
    by_post: bool = False
    """The players write to each other by post, outside the site (W3K's rulebook): no press between powers
    here, and the players are pointed to the game's roster, which carries their addresses."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise PressRulesError(_closest(msg("unknown press kind %(kind)s", kind=repr(self.kind)), self.kind, KINDS))
        for c in self.channels:
            if c not in CHANNEL_KINDS:
                raise PressRulesError(_closest(msg("unknown channel kind %(kind)s", kind=repr(c)), c, CHANNEL_KINDS))
        for p in self.quiet_phases:
            if p not in PHASE_KINDS:
                raise PressRulesError(
                    _closest(msg("unknown phase kind %(kind)s in quiet_phases", kind=repr(p)), p, PHASE_KINDS)
                )
        if not 1 <= self.max_length <= 100_000:
            raise PressRulesError(
                msg("max_length must be between 1 and 100000 characters (it was %(value)s)", value=self.max_length)
            )
        if not 1 <= self.per_minute <= 1000:
            raise PressRulesError(
                msg("per_minute must be between 1 and 1000 messages (it was %(value)s)", value=self.per_minute)
            )

    def to_data(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "channels": sorted(self.channels),
            "quiet_phases": sorted(self.quiet_phases),
            "open_after_end": self.open_after_end,
            "open_private_after_end": self.open_private_after_end,
            "anonymous": self.anonymous,
            "coordinator_reads_private": self.coordinator_reads_private,
            "max_length": self.max_length,
            "per_minute": self.per_minute,
            "by_post": self.by_post,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any], base: PressRules | None = None) -> PressRules:
        """Rules from a game's (or a variant's) table; keys left out keep ``base``'s values."""
        base = base or cls()
        known = set(base.to_data())
        for key in data:
            if key not in known:
                raise PressRulesError(
                    _closest(msg("unknown press setting %(setting)s", setting=repr(key)), str(key), sorted(known))
                )

        def flag(key: str, default: bool) -> bool:
            value = data.get(key, default)
            if not isinstance(value, bool):
                raise PressRulesError(
                    msg(
                        "press setting %(setting)s must be true or false (it was %(value)s)",
                        setting=repr(key),
                        value=repr(value),
                    )
                )
            return value

        def number(key: str, default: int) -> int:
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int):
                raise PressRulesError(
                    msg(
                        "press setting %(setting)s must be a whole number (it was %(value)s)",
                        setting=repr(key),
                        value=repr(value),
                    )
                )
            return value

        def names(key: str, default: frozenset[str]) -> frozenset[str]:
            value = data.get(key, sorted(default))
            if isinstance(value, str):
                value = [v for v in value.replace(",", " ").split() if v]
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise PressRulesError(
                    msg(
                        "press setting %(setting)s must be a list of names (it was %(value)s)",
                        setting=repr(key),
                        value=repr(value),
                    )
                )
            return frozenset(v.strip().lower() for v in value)

        kind = data.get("kind", base.kind)
        if not isinstance(kind, str):
            raise PressRulesError(
                msg("press kind must be one of %(kinds)s (it was %(kind)s)", kinds=", ".join(KINDS), kind=repr(kind))
            )
        return cls(
            kind=kind.strip().lower(),
            channels=names("channels", base.channels),
            quiet_phases=names("quiet_phases", base.quiet_phases),
            open_after_end=flag("open_after_end", base.open_after_end),
            open_private_after_end=flag("open_private_after_end", base.open_private_after_end),
            anonymous=flag("anonymous", base.anonymous),
            coordinator_reads_private=flag("coordinator_reads_private", base.coordinator_reads_private),
            max_length=number("max_length", base.max_length),
            per_minute=number("per_minute", base.per_minute),
            by_post=flag("by_post", base.by_post),
        )


def rules_for(game_rules: Mapping[str, Any] | None, variant_data: Mapping[str, Any] | None) -> PressRules:
    """The rules a game plays by: what it declared, over its variant's ``[press]`` table, over the defaults."""
    base = PressRules.from_data(dict((variant_data or {}).get("press") or {}))
    return PressRules.from_data(dict(game_rules or {}), base) if game_rules else base


@dataclass(frozen=True)
class Refusal:
    """Why a message may not be sent: ``rule`` names the rule (``pmsg("press rule", "quiet phase")``: its id is
    a stable word for programs, said in the reader's words on a page), ``message`` says it for people, with what
    would be allowed instead."""

    rule: Msg
    message: Msg


@dataclass(frozen=True)
class Attempt:
    """One message someone wants to send, with what the store counted for it."""

    sender: str
    """A power's name, or :data:`COORDINATOR` for an announcement."""
    recipients: tuple[str, ...]
    """The powers it is for (the sender left out); every power for an announcement."""
    powers: tuple[str, ...]
    """Every power of the game."""
    phase_kind: str | None
    """The open phase's kind; ``None`` once the game is over."""
    text: str
    sent_last_minute: int = 0
    """Messages the sender sent in the minute before this one."""
    free_in: int = 60
    """Seconds until the first of those leaves the minute (when one more may be sent), rounded up."""
    blocked_by: frozenset[str] = field(default_factory=frozenset)
    """Recipients who block the sender."""


def channel_kind(sender: str, recipients: Iterable[str], powers: Iterable[str]) -> str:
    """``private`` (one other power), ``public`` (every other power), ``group`` (some), or the announcements."""
    if sender == COORDINATOR:
        return ANNOUNCEMENT
    others = set(powers) - {sender}
    chosen = set(recipients) - {sender}
    if chosen == others:
        return "public"
    return "private" if len(chosen) == 1 else "group"


def refusal(rules: PressRules, a: Attempt) -> Refusal | None:
    """Whether the message may be sent: ``None``, or the first rule that refuses it. The only such decision."""
    text = a.text.strip()
    if not text:
        return Refusal(pmsg("press rule", "empty"), msg("the message is empty: write something to send"))
    if len(a.text) > rules.max_length:
        return Refusal(
            pmsg("press rule", "length"),
            msg(
                "the message is %(length)d characters long; this game allows at most %(most)d: shorten it or send "
                "it in parts",
                length=len(a.text),
                most=rules.max_length,
            ),
        )
    if a.sender == COORDINATOR:
        return None  # the coordinator's announcements reach everyone whatever the press
    if a.sender not in a.powers:
        return Refusal(
            pmsg("press rule", "sender"), msg("%(sender)s is not a power of this game", sender=repr(a.sender))
        )
    unknown = [r for r in a.recipients if r not in a.powers]
    if unknown:
        return Refusal(
            pmsg("press rule", "recipients"),
            _closest(msg("no power %(power)s in this game", power=repr(unknown[0])), unknown[0], a.powers),
        )
    chosen = set(a.recipients) - {a.sender}
    if not chosen:
        return Refusal(pmsg("press rule", "recipients"), msg("choose at least one other power (or all) to send to"))
    kind = channel_kind(a.sender, chosen, a.powers)
    if rules.kind == "none" and rules.by_post:
        return Refusal(
            pmsg("press rule", "press by post"),
            msg(
                "this game's press is letters by post between the players, not messages here: their addresses "
                "are on the game's roster"
            ),
        )
    if rules.kind == "none":
        return Refusal(
            pmsg("press rule", "no press"),
            msg(
                "this game is played without press (gunboat): powers cannot send each other messages; "
                "only the coordinator's announcements are shown"
            ),
        )
    if a.phase_kind is None:
        if kind != "public":
            return Refusal(
                pmsg("press rule", "game over"), msg("the game is over: only messages to all powers are sent now")
            )
    elif a.phase_kind in rules.quiet_phases:
        return Refusal(pmsg("press rule", "quiet phase"), _quiet(a.phase_kind))
    if rules.kind == "public" and kind != "public":
        return Refusal(
            pmsg("press rule", "public press only"),
            msg("this game allows only public press: send the message to all powers, not as private press")
            if kind == "private"
            else msg("this game allows only public press: send the message to all powers, not as group press"),
        )
    if kind not in rules.channels:
        return Refusal(pmsg("press rule", "channel kind"), _channel_refused(kind, rules.channels))
    if kind == "private" and a.blocked_by & chosen:
        return Refusal(
            pmsg("press rule", "blocked"),
            msg(
                "%(power)s blocked you and takes no private messages from you; a group or public message still "
                "reaches them",
                power=sorted(a.blocked_by & chosen)[0],
            ),
        )
    if a.sent_last_minute >= rules.per_minute:
        count, most, seconds = a.sent_last_minute, rules.per_minute, max(1, a.free_in)
        return Refusal(
            pmsg("press rule", "rate"),
            msg(
                "you sent %(count)d messages in the last minute; this game allows %(most)d a minute: send again in "
                "1 second",
                count=count,
                most=most,
            )
            if seconds == 1
            else msg(
                "you sent %(count)d messages in the last minute; this game allows %(most)d a minute: send again in "
                "%(seconds)d seconds",
                count=count,
                most=most,
                seconds=seconds,
            ),
        )
    return None


def quiet_now(rules: PressRules, phase_kind: str | None) -> Msg | None:
    """Why no player may write in a phase of ``phase_kind``, or ``None``: what the compose form says instead of
    offering a box every message from which would be refused."""
    if rules.kind == "none" or phase_kind is None or phase_kind not in rules.quiet_phases:
        return None
    return _quiet(phase_kind)


def _quiet(phase_kind: str) -> Msg:
    """The refusal of a quiet phase, whole for each kind of phase (the phase's word agrees with its sentence)."""
    if phase_kind == "retreats":
        return msg("no press during retreat phases in this game; write again when the next movement phase opens")
    if phase_kind == "adjustments":
        return msg("no press during adjustment phases in this game; write again when the next movement phase opens")
    return msg("no press during movement phases in this game; write again when the next movement phase opens")


def _channel_refused(kind: str, channels: frozenset[str]) -> Msg:
    """A channel kind partial press refuses, with the kinds it allows (as the game's press settings name them)
    and what the sender may do instead: the allowed channels, as recipients to tick."""
    allowed = [c for c in CHANNEL_KINDS if c in channels]
    if not allowed:
        return msg("this game does not allow %(kind)s press (allowed: none)", kind=kind)
    ways = {
        "private": msg("choose one power"),
        "group": msg("choose two or more powers"),
        "public": msg("send it to all powers"),
    }
    return msg(
        "this game does not allow %(kind)s press (allowed: %(allowed)s): %(instead)s",
        kind=kind,
        allowed=", ".join(allowed),
        instead=choices(ways[c] for c in allowed),
    )


def may_read(
    rules: PressRules,
    kind: str,
    members: Iterable[str],
    *,
    power: str | None,
    coordinator: bool,
    finished: bool,
) -> bool:
    """Whether a reader (a power's player, the coordinator, or a visitor: neither) may read a channel.

    The end of the game opens what the rules say it opens: its public press and announcements
    (``open_after_end``, the default), private and group letters only where the game declared it
    (``open_private_after_end``). A letter is written for its members; a default would publish it without
    the writer having been told."""
    if finished and (rules.open_private_after_end or (rules.open_after_end and kind in (ANNOUNCEMENT, "public"))):
        return True
    if kind in (ANNOUNCEMENT, "public"):
        return coordinator or power is not None
    if power is not None and power in set(members):
        return True
    return coordinator and rules.coordinator_reads_private


def shown_sender(rules: PressRules, sender: str, *, reader: str | None, finished: bool) -> str:
    """The sender as a reader sees it: grey press hides it from everyone but the sender until the game ends."""
    if sender == COORDINATOR or rules.kind != "grey" or finished or reader == sender:
        return sender
    return ANONYMOUS


def shown_members(
    rules: PressRules, members: Iterable[str], *, reader: str | None, starter: str | None, finished: bool
) -> list[str]:
    """A channel's members as a reader sees them. In grey press a private or group channel belongs to the
    power that started it (``starter``), and its other members see everyone in it but that power, who is
    :data:`ANONYMOUS`: a private channel named "England, France" would tell France who wrote to it. The
    starter chose the others, so sees them all; once the game is over everyone is named."""
    if starter is None or rules.kind != "grey" or finished or reader == starter:
        return list(members)
    return [m for m in members if m != starter] + [ANONYMOUS]


def describe(rules: PressRules, _: Callable[[str], str] = str) -> list[str]:
    """The rules in words, as the players are shown them (the coordinator's reading of private press too), in
    English or through the reader's ``gettext`` (``_``: a page's language; the messages are in the ``games``
    catalogue). Pure as the rest of this module: the caller hands in the translation."""
    kinds = {
        "none": _("No press (gunboat): only the coordinator's announcements."),
        "white": _("White press: every message names its sender."),
        "grey": _("Grey press: senders are not shown to readers until the game ends."),
        "public": _("Public press only: every message goes to all powers."),
        "postal": _("Postal press: messages are delivered with the results of the phase they were written in."),
    }
    if rules.kind == "none" and rules.by_post:
        # Nothing else applies: there are no messages here for the site's limits or the coordinator to read.
        return [
            _(
                "Press is by post: the players write letters to each other, outside this site; the game's roster "
                "gives their addresses. Only the coordinator's announcements are shown here."
            )
        ]
    out = [kinds[rules.kind]]
    talk = rules.kind != "none"  # gunboat: no message of the players' for a limit, a reader or the end to open
    several = talk and rules.kind != "public"  # the channels a game allows are its to choose
    letters = several and bool(rules.channels & {"private", "group"})  # private or group press exists
    if several and set(rules.channels) != set(CHANNEL_KINDS):
        channel = {"private": _("private"), "group": _("group"), "public": _("public")}
        allowed = ", ".join(channel[c] for c in CHANNEL_KINDS if c in rules.channels)
        out.append(_("Allowed channels: %(channels)s.") % {"channels": allowed})
    if talk and rules.quiet_phases:
        kind = {"movement": _("movement"), "retreats": _("retreats"), "adjustments": _("adjustments")}
        quiet = [kind.get(k, k) for k in sorted(rules.quiet_phases)]
        if len(quiet) == 1:
            out.append(_("No press during %(phase)s phases.") % {"phase": quiet[0]})
        else:
            out.append(
                _("No press during %(phases)s and %(last)s phases.")
                % {"phases": ", ".join(quiet[:-1]), "last": quiet[-1]}
            )
    if letters:
        out.append(
            _("The coordinator may read private and group press.")
            if rules.coordinator_reads_private
            else _("The coordinator does not read private or group press.")
        )
    if rules.anonymous:
        out.append(_("Players' names are hidden until the game ends."))
    if letters and rules.open_private_after_end:
        out.append(_("When the game ends, all press is open to everyone, private and group letters too."))
    elif letters and rules.open_after_end:
        out.append(_("When the game ends, public press is open to everyone; private and group letters stay private."))
    elif talk and rules.open_after_end:
        out.append(_("When the game ends, its press is open to everyone."))
    if talk:
        out.append(
            _("At most %(length)s characters a message and %(count)s messages a minute.")
            % {"length": rules.max_length, "count": rules.per_minute}
        )
    return out


def _closest(reason: Msg, word: str, options: Iterable[str]) -> Msg:
    """``reason`` with the closest of ``options`` to ``word`` (or, none being close, every one of them)."""
    import difflib

    known = list(options)
    near = difflib.get_close_matches(word, known, n=1, cutoff=0.5)
    if near:
        return msg("%(reason)s; did you mean %(options)s?", reason=reason, options=repr(near[0]))
    return msg("%(reason)s; choose one of: %(choices)s", reason=reason, choices=", ".join(known)) if known else reason
