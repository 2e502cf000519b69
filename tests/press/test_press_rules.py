"""The press rules decide, in one place, whether a message may be sent and who may read it; each refusal names
its rule."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.core.messages import msg
from dippouch.press.rules import (
    ANNOUNCEMENT,
    COORDINATOR,
    Attempt,
    PressRules,
    PressRulesError,
    channel_kind,
    describe,
    may_read,
    refusal,
    rules_for,
    shown_sender,
)

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _try(rules: PressRules, to: tuple[str, ...], text: str = "hello", **kw: object) -> str | None:
    a = Attempt(sender="England", recipients=to, powers=POWERS, phase_kind=kw.pop("phase", "movement"), text=text, **kw)  # type: ignore[arg-type]
    r = refusal(rules, a)
    return None if r is None else r.rule.id


def test_channel_kinds_follow_the_recipients() -> None:
    assert channel_kind("England", ["France"], POWERS) == "private"
    assert channel_kind("England", ["France", "Germany"], POWERS) == "group"
    assert channel_kind("England", [p for p in POWERS if p != "England"], POWERS) == "public"
    assert channel_kind(COORDINATOR, POWERS, POWERS) == "announcement"


def test_white_press_allows_every_channel() -> None:
    rules = PressRules()
    assert _try(rules, ("France",)) is None
    assert _try(rules, ("France", "Germany")) is None
    assert _try(rules, POWERS) is None


def test_gunboat_refuses_every_message_but_the_coordinators() -> None:
    rules = PressRules(kind="none")
    assert _try(rules, ("France",)) == "no press"
    assert _try(rules, POWERS) == "no press"
    a = Attempt(sender=COORDINATOR, recipients=POWERS, powers=POWERS, phase_kind="movement", text="deadline moved")
    assert refusal(rules, a) is None


def test_public_only_refuses_private_and_group_press() -> None:
    rules = PressRules(kind="public")
    assert _try(rules, ("France",)) == "public press only"
    assert _try(rules, ("France", "Italy")) == "public press only"
    assert _try(rules, POWERS) is None


def test_partial_press_refuses_channel_kinds_not_allowed() -> None:
    rules = PressRules(channels=frozenset({"private", "public"}))
    assert _try(rules, ("France", "Italy")) == "channel kind"
    assert _try(rules, ("France",)) is None


def test_quiet_phases_refuse_press_during_retreats_and_adjustments() -> None:
    rules = PressRules(quiet_phases=frozenset({"retreats", "adjustments"}))
    assert _try(rules, ("France",), phase="retreats") == "quiet phase"
    assert _try(rules, ("France",), phase="adjustments") == "quiet phase"
    assert _try(rules, ("France",), phase="movement") is None


def test_after_the_end_only_public_messages_are_sent() -> None:
    assert _try(PressRules(), ("France",), phase=None) == "game over"
    assert _try(PressRules(), POWERS, phase=None) is None


def test_length_rate_empty_unknown_and_blocked_are_refused() -> None:
    rules = PressRules(max_length=10, per_minute=3)
    assert _try(rules, ("France",), text="x" * 11) == "length"
    assert _try(rules, ("France",), text="   ") == "empty"
    assert _try(rules, ("France",), sent_last_minute=3) == "rate"
    assert _try(rules, ("Frence",)) == "recipients"
    assert _try(rules, ("England",)) == "recipients"
    assert _try(rules, ("France",), blocked_by=frozenset({"France"})) == "blocked"
    a = Attempt(sender="Spain", recipients=("France",), powers=POWERS, phase_kind="movement", text="hi")
    r = refusal(rules, a)
    assert r is not None and r.rule.id == "sender"


def test_a_refusal_says_what_is_allowed_instead() -> None:
    a = Attempt(sender="England", recipients=("Frence",), powers=POWERS, phase_kind="movement", text="hi")
    r = refusal(PressRules(), a)
    assert r is not None and "did you mean 'France'" in str(r.message)
    r = refusal(PressRules(kind="public"), Attempt("England", ("France",), POWERS, "movement", "hi"))
    assert r is not None and "send the message to all powers" in str(r.message)


def test_refusals_of_partial_press_blocks_rate_and_quiet_phases_say_what_to_do_instead() -> None:
    def words(
        rules: PressRules,
        to: tuple[str, ...],
        phase: str = "movement",
        sent_last_minute: int = 0,
        blocked_by: frozenset[str] = frozenset(),
    ) -> str:
        a = Attempt("England", to, POWERS, phase, "hi", sent_last_minute=sent_last_minute, blocked_by=blocked_by)
        r = refusal(rules, a)
        assert r is not None
        return str(r.message)

    partial = PressRules(channels=frozenset({"group", "public"}))
    assert words(partial, ("France",)) == (
        "this game does not allow private press (allowed: group, public): "
        "choose two or more powers or send it to all powers"
    )
    assert words(PressRules(), ("France",), blocked_by=frozenset({"France"})) == (
        "France blocked you and takes no private messages from you; a group or public message still reaches them"
    )
    assert words(PressRules(per_minute=3), ("France",), sent_last_minute=3).endswith(
        "this game allows 3 a minute: send again in 60 seconds"
    )
    quiet = PressRules(quiet_phases=frozenset({"retreats", "adjustments"}))
    assert words(quiet, ("France",), phase="retreats").startswith("no press during retreat phases in this game")
    assert "next movement phase" in words(quiet, ("France",), phase="adjustments")


def test_private_press_is_read_by_its_members_and_the_coordinator_only_when_declared() -> None:
    rules = PressRules()
    members = ("England", "France")
    assert may_read(rules, "private", members, power="France", coordinator=False, finished=False)
    assert not may_read(rules, "private", members, power="Germany", coordinator=False, finished=False)
    assert not may_read(rules, "private", members, power=None, coordinator=True, finished=False)
    declared = PressRules(coordinator_reads_private=True)
    assert may_read(declared, "private", members, power=None, coordinator=True, finished=False)
    # The end opens public press to everyone; a letter stays with its members unless the game declared otherwise.
    assert may_read(rules, "public", (), power=None, coordinator=False, finished=True)
    assert may_read(rules, ANNOUNCEMENT, (), power=None, coordinator=False, finished=True)
    for kind in ("private", "group"):
        assert not may_read(rules, kind, members, power=None, coordinator=False, finished=True)
        assert not may_read(rules, kind, members, power="Germany", coordinator=False, finished=True)
        assert not may_read(rules, kind, members, power=None, coordinator=True, finished=True)
        assert may_read(rules, kind, members, power="France", coordinator=False, finished=True)
    declared_open = PressRules(open_private_after_end=True)
    assert may_read(declared_open, "private", members, power=None, coordinator=False, finished=True)
    assert not may_read(declared_open, "private", members, power=None, coordinator=False, finished=False)
    closed = PressRules(open_after_end=False)
    assert not may_read(closed, "private", members, power="Germany", coordinator=False, finished=True)
    assert not may_read(closed, "public", (), power=None, coordinator=False, finished=True)
    assert not may_read(rules, "public", (), power=None, coordinator=False, finished=False)


def test_grey_press_hides_the_sender_until_the_end() -> None:
    grey = PressRules(kind="grey")
    assert shown_sender(grey, "England", reader="France", finished=False) == "Anonymous"
    assert shown_sender(grey, "England", reader="England", finished=False) == "England"
    assert shown_sender(grey, "England", reader="France", finished=True) == "England"
    assert shown_sender(PressRules(), "England", reader="France", finished=False) == "England"


def test_rules_from_data_refuse_unknown_settings_with_the_closest_name() -> None:
    with pytest.raises(PressRulesError, match="did you mean 'grey'"):
        PressRules.from_data({"kind": "gray"})
    with pytest.raises(PressRulesError, match="did you mean 'anonymous'"):
        PressRules.from_data({"anonymus": True})
    with pytest.raises(PressRulesError, match="true or false"):
        PressRules.from_data({"anonymous": "yes"})
    r = PressRules.from_data({"kind": "grey", "channels": "private, public"})
    assert PressRules.from_data(r.to_data()) == r


def test_w3k_defaults_to_no_press_from_its_variant_file_and_standard_to_white() -> None:
    assert rules_for(None, load_variant("w3k").data).kind == "none"
    assert rules_for(None, load_variant("standard").data).kind == "white"
    # What a game declares is over the variant's table.
    assert rules_for({"kind": "public"}, load_variant("w3k").data).kind == "public"


def test_the_players_are_told_whether_the_coordinator_reads_private_press() -> None:
    assert "The coordinator does not read private or group press." in describe(PressRules())
    assert "The coordinator may read private and group press." in describe(PressRules(coordinator_reads_private=True))


def test_w3k_press_is_by_post_from_its_variant_file_and_says_where_the_addresses_are() -> None:
    # The trial: W3K's panel said "No press (gunboat)" and an API send "played without press (gunboat)", though
    # its rulebook's press is letters by post. The variant's data says so; the words and the refusal follow it.
    rules = rules_for(None, load_variant("w3k").data)
    assert rules.kind == "none" and rules.by_post
    words = " ".join(describe(rules))
    assert "by post" in words and "roster" in words and "gunboat" not in words
    assert _try(rules, ("France",)) == "press by post"
    said = refusal(rules, Attempt("England", ("France",), POWERS, "movement", "hi"))
    assert said is not None and "roster" in str(said.message) and "gunboat" not in str(said.message)
    # A game declaring other press over the variant's keeps its own kind.
    assert rules_for({"kind": "white", "by_post": False}, load_variant("w3k").data).kind == "white"


def test_gunboat_and_public_press_list_only_the_rules_that_can_apply() -> None:
    # The trial: gunboat and public-only panels listed the coordinator's reading of private press, the length
    # and the rate, none of which can apply there.
    gunboat = " ".join(describe(PressRules(kind="none")))
    assert "coordinator does not read" not in gunboat and "characters" not in gunboat
    public = " ".join(describe(PressRules(kind="public")))
    assert "private or group" not in public and "characters" in public
    # White press in the public channel alone (rules3 of the trial) said the coordinator does not read private
    # press and that private letters stay private, in a game that has none.
    alone = " ".join(describe(PressRules(channels=frozenset({"public"}), open_after_end=True)))
    assert "Allowed channels: public." in alone and "private" not in alone.replace("Allowed", ""), alone
    assert "When the game ends, its press is open to everyone." in alone
    grouped = " ".join(describe(PressRules(channels=frozenset({"group", "public"}), open_after_end=True)))
    assert "The coordinator does not read private or group press." in grouped


# Every refusal the rules make, as a message value: each kind of attempt the rules refuse, by rule.
EVERY_REFUSAL = [
    (PressRules(), Attempt("England", ("France",), POWERS, "movement", " ")),
    (PressRules(max_length=3), Attempt("England", ("France",), POWERS, "movement", "hello")),
    (PressRules(), Attempt("Spain", ("France",), POWERS, "movement", "hi")),
    (PressRules(), Attempt("England", ("Frence",), POWERS, "movement", "hi")),
    (PressRules(), Attempt("England", ("Qqqqqq",), POWERS, "movement", "hi")),
    (PressRules(), Attempt("England", (), POWERS, "movement", "hi")),
    (PressRules(kind="none", by_post=True), Attempt("England", ("France",), POWERS, "movement", "hi")),
    (PressRules(kind="none"), Attempt("England", ("France",), POWERS, "movement", "hi")),
    (PressRules(), Attempt("England", ("France",), POWERS, None, "hi")),
    (PressRules(quiet_phases=frozenset({"movement"})), Attempt("England", ("France",), POWERS, "movement", "hi")),
    (PressRules(quiet_phases=frozenset({"retreats"})), Attempt("England", ("France",), POWERS, "retreats", "hi")),
    (PressRules(kind="public"), Attempt("England", ("France",), POWERS, "movement", "hi")),
    (PressRules(kind="public"), Attempt("England", ("France", "Italy"), POWERS, "movement", "hi")),
    (PressRules(channels=frozenset({"group", "public"})), Attempt("England", ("France",), POWERS, "movement", "hi")),
    (PressRules(channels=frozenset({"public"})), Attempt("England", ("France",), POWERS, "movement", "hi")),
    (PressRules(channels=frozenset()), Attempt("England", POWERS[2:], POWERS, "movement", "hi")),
    (
        PressRules(),
        Attempt("England", ("France",), POWERS, "movement", "hi", blocked_by=frozenset({"France"})),
    ),
    (PressRules(per_minute=3), Attempt("England", ("France",), POWERS, "movement", "hi", sent_last_minute=3)),
    (
        PressRules(per_minute=3),
        Attempt("England", ("France",), POWERS, "movement", "hi", sent_last_minute=3, free_in=1),
    ),
]


@pytest.mark.parametrize("lang", ["de", "fr"])
@pytest.mark.parametrize(("rules", "attempt"), EVERY_REFUSAL)
def test_every_refusal_is_a_message_said_in_the_reader_s_language(
    rules: PressRules, attempt: Attempt, lang: str
) -> None:
    """A refusal is a message value, its rule and its reason each said whole in the reader's words (the names it
    holds as written); the rule's id is the word programs read, its English the refusal's."""
    from dippouch.core.messages import Msg
    from dippouch.saying import say
    from dippouch.store.press.messages import PressRefused

    why = refusal(rules, attempt)
    assert why is not None and isinstance(why.rule, Msg) and isinstance(why.message, Msg)
    assert why.rule.context == "press rule" and str(why.rule) == why.rule.id
    english, said = str(why.message), say(why.message, lang)
    assert said != english and said.strip(), (english, said)
    for value in why.message.args.values():
        if isinstance(value, str) and value in english and any(c.isupper() for c in value):
            assert value in said, (value, said)  # a power's name is kept as written
    refused = PressRefused(why)
    assert refused.msg.args == {"rule": why.rule, "reason": why.message}
    assert str(refused) == f"not sent ({why.rule.id}): {english}"
    whole = say(refused.msg, lang)
    assert "not sent" not in whole and english not in whole and said in whole, whole


def test_a_refusal_keeps_its_names_and_numbers_as_values() -> None:
    blocked = refusal(
        PressRules(), Attempt("England", ("France",), POWERS, "movement", "hi", blocked_by=frozenset({"France"}))
    )
    assert blocked is not None and blocked.message.args == {"power": "France"}
    rate = refusal(PressRules(per_minute=3), Attempt("England", ("France",), POWERS, "movement", "hi", 3, 12))
    assert rate is not None and rate.message.args == {"count": 3, "most": 3, "seconds": 12}
    misspelt = refusal(PressRules(), Attempt("England", ("Frence",), POWERS, "movement", "hi"))
    assert misspelt is not None and misspelt.message.args["options"] == "'France'"
    assert misspelt.message.args["reason"] == msg("no power %(power)s in this game", power="'Frence'")


@pytest.mark.parametrize(
    ("make", "english"),
    [
        (lambda: PressRules(kind="whte"), "unknown press kind 'whte'; did you mean 'white'?"),
        (
            lambda: PressRules(quiet_phases=frozenset({"zzzzzz"})),
            "unknown phase kind 'zzzzzz' in quiet_phases; choose one of: movement, retreats, adjustments",
        ),
        (lambda: PressRules(max_length=0), "max_length must be between 1 and 100000 characters (it was 0)"),
        (
            lambda: PressRules.from_data({"anonymous": "yes"}),
            "press setting 'anonymous' must be true or false (it was 'yes')",
        ),
        (
            lambda: PressRules.from_data({"kind": 3}),
            "press kind must be one of none, white, grey, public, postal (it was 3)",
        ),
    ],
)
def test_press_settings_refused_are_messages_said_in_german_and_french(make: Any, english: str) -> None:
    from dippouch.saying import say

    with pytest.raises(PressRulesError) as e:
        make()
    assert str(e.value) == english and e.value.msg.args  # the English as before, its values kept apart
    for lang in ("de", "fr"):
        said = say(e.value.msg, lang)
        assert said != english and all(w in said for w in re.findall(r"'[^']*'", english)), said
