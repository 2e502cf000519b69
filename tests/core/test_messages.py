"""Messages as values (issue 53): an id and its values, said in the reader's language where shown, stored as
data and read back whole."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dippouch.core.messages import Choices, Msg, PhaseName, choices, msg, nmsg, pmsg, render
from dippouch.saying import say

PROCESSED = (
    "%(phase)s was processed at %(time)s UTC, before these orders arrived; they were not recorded. The open "
    "phase is %(open)s (paused); send orders for that phase."
)


def test_english_is_the_template_filled() -> None:
    m = msg("no unit in %(place)s", place="Paris")
    assert str(m) == "no unit in Paris" == render(m) == say(m, "en")
    assert m.code == "no unit in %(place)s"


def test_a_message_is_said_in_the_readers_language_with_its_values_as_they_are() -> None:
    m = msg("no unit in %(place)s", place="Paris")
    assert say(m, "de") == "keine Einheit in Paris"
    assert say(m, "fr").endswith("Paris") and say(m, "fr") != str(m)


def test_nested_messages_choices_and_phase_names_are_said_in_their_turn() -> None:
    m = msg(
        "%(reason)s; closest legal: %(orders)s",
        reason=msg("no unit in %(place)s", place="Paris"),
        orders="A par - bur",
    )
    assert say(m, "de") == "keine Einheit in Paris; nächste gültige Befehle: A par - bur"
    kinds = msg("no press kind %(kind)s; choose one of %(kinds)s", kind="x", kinds=choices(["none", "white", "grey"]))
    assert str(kinds) == "no press kind x; choose one of none, white or grey"
    assert say(kinds, "de").endswith("none, white oder grey")
    late = msg(PROCESSED, phase=PhaseName("Spring 1901 Movement"), time="12:00", open=PhaseName("Fall 1901 Movement"))
    assert str(late).startswith("Spring 1901 Movement was processed")
    german = say(late, "de")
    assert german.startswith("Frühjahr 1901 Bewegung") and "Herbst 1901 Bewegung" in german


def test_a_count_chooses_the_form_and_a_context_tells_words_apart() -> None:
    assert str(nmsg("%(num)d order", "%(num)d orders", 1)) == "1 order"
    assert str(nmsg("%(num)d order", "%(num)d orders", 3)) == "3 orders"
    assert str(pmsg("press rule", "quiet phase")) == "quiet phase"
    assert say(pmsg("press rule", "quiet phase"), "de") != "quiet phase"


def test_a_text_not_made_a_message_is_said_as_itself_or_whole_from_the_catalogue() -> None:
    assert say("no such page", "fr") == "cette page n'existe pas"
    assert say("something the catalogue has never seen", "de") == "something the catalogue has never seen"
    assert say(msg("a template nobody translated: %(x)s", x=1), "de") == "a template nobody translated: 1"
    assert say(msg("no unit in %(place)s", place="Paris"), "xx") == "no unit in Paris"


class Broken:
    """A catalogue whose translation names a placeholder the message does not have."""

    def gettext(self, message: str) -> str:
        return "kaputt %(nowhere)s"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return "kaputt %(nowhere)s"

    def pgettext(self, context: str, message: str) -> str:
        return "kaputt %(nowhere)s"


def test_a_translation_that_does_not_fit_its_values_gives_way_to_the_english() -> None:
    assert render(msg("no unit in %(place)s", place="Paris"), Broken()) == "no unit in Paris"
    assert render(nmsg("%(num)d order", "%(num)d orders", 2), Broken()) == "2 orders"
    assert render(msg("100%% sure"), Broken()) == "100% sure"


def test_a_message_holding_itself_ends() -> None:
    inner: dict[str, object] = {}
    m = Msg("again: %(reason)s", inner)  # type: ignore[arg-type]
    inner["reason"] = m
    assert str(m).startswith("again: again: ")


_names = st.text(st.characters(codec="utf-8"), max_size=12)
_scalars = st.one_of(_names, st.integers(-(10**9), 10**9))
_args = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.builds(lambda a: Msg("%(x)s!", {"x": a}), inner),
        st.builds(lambda xs: Choices(tuple(xs)), st.lists(inner, max_size=3)),
        st.builds(PhaseName, _names),
    ),
    max_leaves=8,
)


@given(st.dictionaries(st.sampled_from(["a", "b", "reason"]), _args, max_size=3), st.booleans())
@settings(suppress_health_check=[HealthCheck.too_slow])  # recursive values: slow to draw on a loaded machine
def test_a_message_is_stored_as_data_and_read_back_whole(args: dict[str, object], plural: bool) -> None:
    m = Msg("%(a)s", args, plural="%(a)s!" if plural else None)  # type: ignore[arg-type]
    data = json.loads(json.dumps(m.to_data()))
    assert Msg.from_data(data) == m


def test_a_hint_is_said_as_the_door_words_it_with_its_values() -> None:
    from dippouch.core.messages import hint
    from dippouch.web.http.inputs import WEB_HINTS

    taken = msg(
        "%(power)s is already played by %(player)s; %(hint)s",
        power="France",
        player="Hugo",
        hint=hint("replace", "use `dippouch players replace` to hand it over"),
    )
    assert str(taken) == "France is already played by Hugo; use `dippouch players replace` to hand it over"
    assert say(taken, "en", "web") == "France is already played by Hugo; " + str(WEB_HINTS["replace"])
    assert say(taken, "en", "cli") == str(taken)
    wrong = msg("wrong variant (%(hint)s)", hint=hint("variant", "use --variant %(variant)s", variant="w3k"))
    assert say(wrong, "en", "web") == "wrong variant (create the game with variant w3k)"
    assert say(wrong, "de", "web").endswith("(legen Sie die Partie mit der Variante w3k an)")
    assert Msg.from_data(json.loads(json.dumps(taken.to_data()))) == taken
