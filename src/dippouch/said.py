"""The lower layers' messages in the reader's language: an order refused, an adjudicator's reason, a store's refusal.

The core, the rules of procedure (:mod:`dippouch.game`) and the store write what they tell people in English,
from templates with named placeholders (:mod:`dippouch.core.messages`), and the English text is what they
keep: a submission's line checks and a phase's results are stored as written, and the JSON API, the logs and
the coordinator's tools read them so. A door that shows such a text to a person (a page, a mail, the results
report) passes it through :func:`said`, which reads it back against the templates of the ``rules`` catalogue
and writes the translation with the same values: places, units, powers and the player's own words as they
were, a nested message (``reason``, ``why``, ``who``: a unit in words) and a list of choices (``options``) translated in their turn, and a
phase's name (``phase``, ``open``) in the reader's words. A text no template reads (a variant's own message, a
text written before its template existed) is shown as it is; so is every text in English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from babel.messages.pofile import read_po

from dippouch.core.messages import N_, NP_, Msg, as_msg
from dippouch.i18n import DEFAULT, LANGUAGES, LOCALE_DIR
from dippouch.saying import say

__all__ = ["I18N_DOMAIN", "LAYER_MESSAGES", "said", "told"]

I18N_DOMAIN = "rules"
"""The catalogue of the core's messages and of the layers' listed below."""

LAYER_MESSAGES = (
    # dippouch.game: the check of a submission's lines, what the standing orders leave out, readiness.
    N_("this line is headed %(power)s, but these are %(own)s's orders"),
    N_("%(reason)s on line %(line)d (the first order counts)"),
    N_("%(reason)s; closest legal: %(orders)s"),
    N_("no orders: this submission replaces the earlier orders with none"),
    N_("no order, they hold"),
    N_("no order, it holds"),
    N_("no order, they are disbanded"),
    N_("no order, it is disbanded"),
    N_("%(count)d build(s) not ordered: waived"),
    N_("%(count)d removal(s) not ordered: made for %(power)s by the rules"),
    N_(
        "not marked ready: %(reason)s, so this submission replaces nothing; send orders, or a line 'no orders' to "
        "be ready with none"
    ),
    N_("all %(count)d line(s) were refused"),
    N_("it has no order line"),
    # dippouch.store: a submission refused as a whole.
    N_("%(power)s has nothing to order in %(phase)s"),
    N_(
        "%(phase)s was processed at %(time)s UTC, before these orders arrived; they were not recorded. The open "
        "phase is %(open)s, deadline %(deadline)s UTC; send orders for that phase."
    ),
    N_(
        "%(phase)s was processed at %(time)s UTC, before these orders arrived; they were not recorded. The open "
        "phase is %(open)s (paused); send orders for that phase."
    ),
    N_(
        "%(phase)s is not open in game %(game)s; these orders were not recorded. The open phase is %(open)s, "
        "deadline %(deadline)s UTC; send orders for that phase."
    ),
    N_(
        "%(phase)s is not open in game %(game)s; these orders were not recorded. The open phase is %(open)s "
        "(paused); send orders for that phase."
    ),
    N_("game %(game)s is over (roll back to reopen it)"),
    N_(
        "this submission says version %(version)s stands and also gives orders; send either the orders (a new "
        "version) or the instruction, not both"
    ),
    N_("%(power)s has no version %(version)s in %(phase)s to stand (versions: %(versions)s)"),
    # dippouch.press.rules and dippouch.store.press: a message the press rules refuse, named by its rule.
    N_("not sent (%(rule)s): %(reason)s"),
    NP_("press rule", "empty"),
    NP_("press rule", "length"),
    NP_("press rule", "sender"),
    NP_("press rule", "recipients"),
    NP_("press rule", "press by post"),
    NP_("press rule", "no press"),
    NP_("press rule", "game over"),
    NP_("press rule", "quiet phase"),
    NP_("press rule", "public press only"),
    NP_("press rule", "channel kind"),
    NP_("press rule", "blocked"),
    NP_("press rule", "rate"),
    NP_("press rule", "channel"),
    N_("the message is empty: write something to send"),
    N_("the message is %(length)d characters long; this game allows at most %(most)d: shorten it or send it in parts"),
    N_("choose at least one other power (or all) to send to"),
    N_(
        "this game's press is letters by post between the players, not messages here: their addresses are on the "
        "game's roster"
    ),
    N_(
        "this game is played without press (gunboat): powers cannot send each other messages; only the "
        "coordinator's announcements are shown"
    ),
    N_("the game is over: only messages to all powers are sent now"),
    N_("no press during movement phases in this game; write again when the next movement phase opens"),
    N_("no press during retreat phases in this game; write again when the next movement phase opens"),
    N_("no press during adjustment phases in this game; write again when the next movement phase opens"),
    N_("this game allows only public press: send the message to all powers, not as private press"),
    N_("this game allows only public press: send the message to all powers, not as group press"),
    # Whole, as pages show it: a template that opens with a name would read the rule into the name.
    N_(
        "not sent (blocked): %(power)s blocked you and takes no private messages from you; a group or public "
        "message still reaches them"
    ),
    N_("you sent %(count)d messages in the last minute; this game allows %(most)d a minute: send again in 1 second"),
    N_(
        "you sent %(count)d messages in the last minute; this game allows %(most)d a minute: send again in "
        "%(seconds)d seconds"
    ),
    N_("no channel %(channel)s of %(power)s in %(game)s"),
    N_("you cannot mute or block yourself"),
    # dippouch.play.openings: the lobby's filters, and what joining or leaving a game tells the person.
    N_("no press kind %(kind)s; choose one of %(kinds)s"),
    N_("phase length %(length)s: choose one of %(lengths)s"),
    N_("seats left %(seats)s: a number from 0 to 50"),
    N_(
        "no open game with these settings has a seat for you now: change the filters, or start one from a "
        "template (/games/new)"
    ),
    N_("%(game)s is full and starts now: you play %(power)s."),
    N_("You are on %(game)s's waiting list: you get a power if one comes free."),
    N_("You signed up to %(game)s; %(count)d more sign-ups fill it."),
    N_("You withdrew from %(game)s."),
    N_("You resigned %(power)s in %(game)s before it started; the power is open to sign-up again."),
    N_(
        "You resigned %(power)s in %(game)s: the seat is offered to the replacement pool. Until someone takes it "
        "the game goes on without you (your orders, if you send any, still count)."
    ),
    # dippouch.store.openings: a sign-up, a claim or a resignation refused.
    N_("%(game)s is not open for players"),
    N_(
        "sign-up to %(game)s has ended: every power is played (join its waiting list to be offered a seat its "
        "player leaves)"
    ),
    N_("you already play a power in %(game)s"),
    N_(
        "%(game)s asks a reliability of at least %(least)d%%; yours is no record yet (orders on time in other "
        "games raise it; an anonymous game counts once it ends)"
    ),
    N_(
        "%(game)s asks a reliability of at least %(least)d%%; yours is %(score)d%% (orders on time in other "
        "games raise it; an anonymous game counts once it ends)"
    ),
    N_("%(game)s asks a reliability of at least %(least)d%%; yours is no record yet"),
    N_("%(game)s asks a reliability of at least %(least)d%%; yours is %(score)d%%"),
    N_("%(power)s is in your wishes twice; rank each power once"),
    N_("no power %(power)s in %(game)s"),
    N_("%(game)s is full: its %(count)d empty seats are being given out (join its waiting list instead)"),
    N_("you have not signed up to %(game)s"),
    N_("you play %(power)s in %(game)s already: resign to leave the game"),
    N_("%(game)s is over: there is nothing to resign from"),
    N_("you neither play a power in %(game)s nor signed up to it"),
    N_(
        "%(game)s was not opened for players, so it has no replacement pool: ask its coordinator to hand your "
        "seat (%(power)s) on"
    ),
    N_("%(power)s's seat is in the replacement pool already: it waits for a new player"),
    N_("%(power)s in %(game)s is not offered to the replacement pool (or was just taken)"),
    N_("you are %(power)s's player already: send orders to take it back"),
    N_("%(power)s in %(game)s was just claimed by someone else"),
    N_(
        "you have %(count)d games of your own not finished (at most %(most)d), whoever plays them: one frees its "
        "place when it ends (a solo, a draw its players vote for, its last year)"
    ),
    N_(
        "you wait for a power in %(count)d games already (at most %(most)d): withdraw from one of them (Withdraw, "
        "on its page; My games lists them) before you sign up to another"
    ),
    # dippouch.play.processing: a "process now" of a game bots alone play, within the installation's pace.
    N_(
        "bots alone play %(game)s, and this site plays such a game at most one phase every %(pace)d s: process it "
        "again in %(wait)d s"
    ),
    # dippouch.play.practice: a practice game's bots stronger than the machine affords.
    N_(
        "the %(level)s level is more than this site can afford for %(count)d bots (each time you mark your orders "
        "ready you would wait for them all); choose one of %(levels)s"
    ),
    # dippouch.store.tournaments: a person's tournaments not over.
    N_(
        "you run %(count)d tournaments that are not over (at most %(most)d): one is over once every game in it has "
        "finished, and one without games stops counting %(days)d days after it was made"
    ),
    # the coordinator's desk, press settings and the store's refusals (tests/project/test_layer_refusals_said.py)
    N_("unknown press kind %(kind)s"),
    N_("unknown channel kind %(kind)s"),
    N_("unknown phase kind %(kind)s in quiet_phases"),
    N_("unknown press setting %(setting)s"),
    N_("%(reason)s; choose one of: %(choices)s"),
    N_("max_length must be between 1 and 100000 characters (it was %(value)s)"),
    N_("per_minute must be between 1 and 1000 messages (it was %(value)s)"),
    N_("press kind must be one of %(kinds)s (it was %(kind)s)"),
    N_("press setting %(setting)s must be true or false (it was %(value)s)"),
    N_("press setting %(setting)s must be a whole number (it was %(value)s)"),
    N_("press setting %(setting)s must be a list of names (it was %(value)s)"),
    N_("no press channel %(channel)s in %(game)s that you may read"),
    N_("unknown choice %(choice)s: mute, block or none"),
    N_("the reason is %(length)s characters long; at most 2000"),
    N_("no message %(message)s in %(game)s that you may read"),
    N_(
        "%(power)s reported message %(message)s already, on %(time)s UTC; the coordinator has that report (a message is reported once)"
    ),
    N_(
        "%(power)s has made %(count)s reports in the last 24 hours, the most a power may; the next may be made from %(time)s UTC (or write to the coordinator)"
    ),
    N_("a player needs a name"),
    N_("a game named %(game)s already exists; choose another name"),
    N_("%(power)s is already played by %(player)s; use Replace on the game's coordinator page to hand it over"),
    N_("nobody plays %(power)s in %(game)s; seat a player first (Seat, on the game's coordinator page)"),
    N_("%(power)s is played by %(player)s now; a program takes only an empty seat or a bot's"),
    N_("game %(game)s is already paused"),
    N_("game %(game)s is not paused"),
    N_("game %(game)s has no phase %(phase)s in its current line of play; phases: %(phases)s"),
    N_("%(game)s has not been processed; there is nothing to replay"),
    N_("game %(game)s has no phase with id %(id)s (the game page's history lists its phases)"),
    N_("game %(game)s has no processed phase yet"),
    N_("no game %(game)s; games: %(games)s"),
    N_("no game %(game)s"),
    N_("unknown role %(role)s"),
    N_("a player's key names a game and a power"),
    N_("visibility must be one of %(choices)s, not %(value)s"),
    N_("no key %(key)s in this game"),
    N_("draws are not allowed in game %(game)s"),
    N_("no draw is possible now: %(reason)s Your vote was not recorded."),
    N_("that is not a sign-in link of this site; ask for a new one on the sign-in page"),
    N_("that sign-in link is unknown here (mistyped, or from another site); ask for a new one"),
    N_("that sign-in link was used already (each works once); ask for a new one"),
    N_("that sign-in link has expired (links work for %(minutes)s minutes); ask for a new one"),
    N_("%(power)s in %(game)s is on another person's account; ask the game's coordinator if it should be yours"),
    N_("an account for this address was made a moment ago by another link; ask for a new link to sign in"),
    N_("the passkey's challenge is unknown, used already or expired; try again"),
    N_("this passkey is registered already"),
    N_("no passkey %(passkey)s of yours"),
    N_("no person %(person)s"),
    N_("give the name other players will see to finish signing up"),
    N_("a person needs a name"),
    N_("a name is at most %(most)s characters (this one has %(length)s)"),
    N_("no language %(language)s; languages: %(languages)s"),
    N_("no time zone %(zone)s: write it as the zone database names it, e.g. Europe/Berlin"),
    N_("you have %(count)s push subscriptions and webhooks already, the most one person may keep; remove one first"),
    N_("you have no push subscription or webhook #%(id)s"),
    N_("address: write the address, one line per line of the envelope"),
    N_("address: at most %(most)s lines (this one has %(count)s); join the shortest lines"),
    N_("address: at most %(most)s characters (this one has %(count)s)"),
    N_("address: control characters are not allowed; write plain text"),
    N_("an alternate address needs both days ('from' and 'to'); leave both empty for the primary address"),
    N_("you have no address #%(id)s"),
    N_("roster_visibility: %(value)s is not a choice; choose one of %(choices)s"),
    N_("you have %(count)s addresses already (at most %(most)s); remove past ones first"),
    N_("you have a primary address already; edit it, or give this one the days it is preferred on"),
    N_("you have a primary address already; give this one the days it is preferred on"),
    N_("reason: at most %(most)s characters (this one has %(count)s)"),
    N_("an absence is at most %(most)s days (this one is %(days)s); for longer, hand your seats over"),
    N_("to: %(day)s has passed; record an absence that is still to come"),
    N_("absence_policy: %(value)s is not a choice; choose one of %(choices)s"),
    N_("budget_days: %(value)s is out of range; give 0 to %(most)s days"),
    N_("you have %(count)s absences to come already (at most %(most)s)"),
    N_("you have no absence #%(id)s"),
    N_("absence_policy: %(variant)s's rules have no proxy orders; choose extend, stand_in or standing"),
    N_("ally: %(variant)s's rules have no proxy orders, so no ally can order your units"),
    N_("you play no seat in %(game)s"),
    N_("ally: %(power)s is your own power; name another (%(others)s)"),
    N_("stand_in: name the person who stands in (their e-mail address)"),
    N_("no phase #%(id)s"),
    N_("game %(game)s has no open phase to release"),
    N_("game %(game)s is paused; resume it before releasing %(phase)s"),
    N_("%(phase)s is sealed until its deadline (%(time)s UTC); the review comes after it"),
    N_("no attachment #%(id)s (see `dippouch mail review GAME`)"),
    N_("attachment #%(id)s was confirmed already; it is not set aside"),
    N_("attachment #%(id)s was set aside already"),
    N_("%(phase)s has been processed; its photographs can no longer be set aside"),
    N_("%(phase)s is sealed until its deadline; photographs are reviewed after it"),
    N_("game %(game)s has no phases"),
    N_("game %(game)s cannot be scored: %(reason)s"),
    N_("game %(game)s cannot be scored under %(system)s: %(reason)s"),
    # Whole, as play.records writes it: a general "game %(game)s: %(reason)s" read any "<word> <word>: <text>"
    # (it read "game file: ..." with game='file'), since a name is anything up to the colon.
    N_("game %(game)s: the game is not finished: it is scored once it ends"),
    # what the general template read wrongly too (a tournament's games, a game book, a game file with no game)
    N_("game %(game)s is a practice game: practice games never count in a tournament"),
    N_("game %(game)s is private: a tournament's standings are public, so make the game public or unlisted first"),
    N_("game %(game)s is not in tournament %(tournament)s (its games: none yet)"),
    N_("game %(game)s is not in tournament %(tournament)s (its games: %(games)s)"),
    N_("game books need the map renderer: %(reason)s"),
    N_('game file: no "game" object (name, variant, settings, status)'),
    N_("the game is not finished: it is scored once it ends"),
    # dippouch.play.openings: the new game page's template titles (new_game.html: {{ t.title|said }})
    N_("Standard, 1 day, full press"),
    N_("Gunboat, 2 days"),
    N_("Standard, 1 hour, full press (a live evening)"),
    N_("%(variant)s, 2 days, the variant's press"),
    # the coordinator's openings, photographs, typed-in orders, tournaments, the new game page, practice games, settings and the order text's limits (tests/project/test_layer_refusals_said.py)
    N_("the press rules are %(length)s characters; at most %(most)s"),
    N_("unknown assignment mode %(mode)s: choose %(modes)s"),
    N_("the minimum reliability is a percentage from 0 to 100, not %(value)s"),
    N_("%(game)s is over: it cannot be opened for players"),
    N_("the powers were already drawn from the wishes; the mode cannot change now"),
    N_("person %(person)s has not signed up to %(game)s (or withdrew)"),
    N_("they already play %(power)s in %(game)s"),
    N_("%(power)s is already played in %(game)s; choose an empty power"),
    N_("nobody plays %(power)s in %(game)s: an empty power is filled by sign-up, not the pool"),
    N_("%(power)s's seat is in the pool already"),
    N_("game %(game)s has no open phase"),
    N_("the photographs of %(phase)s are sealed until %(time)s; transcriptions come after it"),
    N_("no attachment #%(id)s"),
    N_("no attachment #%(id)s (see `dippouch mail ocr GAME`)"),
    N_("attachment #%(id)s was confirmed already"),
    N_("%(phase)s has been processed; a transcription can no longer be applied"),
    N_("%(phase)s is sealed until its deadline; transcriptions are confirmed after it"),
    N_("unknown source %(source)s; choose one of %(sources)s"),
    N_(
        "version %(version)s of %(power)s is itself an instruction (version %(stands)s stands); name the version with the orders"
    ),
    N_("a tournament needs a name (like 'Autumn Cup 2026')"),
    N_("a tournament's name has at most %(most)s characters, not %(length)s"),
    N_("a tournament's name cannot contain control characters or line breaks"),
    N_("a tournament's name cannot contain '/' or a backslash (%(name)s)"),
    N_("a tournament's name cannot start with '.' (%(name)s)"),
    N_("a tournament named %(name)s already exists; choose another name"),
    N_("game %(game)s is already in tournament %(tournament)s"),
    N_("tournament %(tournament)s holds %(most)s games, the most one may hold"),
    N_("a tournament needs a scoring system: one of %(systems)s"),
    N_("a round is a whole number from 1 to %(most)s, not %(value)s"),
    N_("game %(game)s plays %(variant)s; tournament %(tournament)s is for %(wanted)s games only"),
    N_("no template %(template)s; choose one of %(templates)s"),
    N_("the %(kind)s phases must last at least one minute (it was %(value)s)"),
    N_("no usable variant %(variant)s; choose one of %(variants)s"),
    N_("%(variant)s has no power %(power)s; its powers are %(powers)s, or any"),
    N_(
        "you already have %(count)s practice games going (at most %(most)s at once); finish one of them first, or leave it: a practice game its player has left stops after a while (ten of its movement phases, at least an hour, at most a week)"
    ),
    N_("the site has %(count)s practice games going, its limit (%(most)s); try again later"),
    N_("cannot read the duration %(text)s; write it like 12d, 36h, 1d12h, 90m or 2w"),
    N_("the duration %(text)s is too long; it may be at most %(most)sd"),
    N_("cannot read the time %(text)s; write it like 2026-11-21T07:00 or 2026-11-21T07:00+01:00"),
    N_("cannot read the time of day %(text)s; write it like 07:00"),
    N_("deadline for unknown phase kind %(kind)s; kinds are movement, retreats, adjustments"),
    N_("the time for a %(kind)s phase must be longer than zero (it was %(value)s)"),
    N_("the order text is %(length)s characters long; at most %(most)s are accepted"),
    N_("%(count)s lines of orders; at most %(most)s lines are sent or checked at once"),
    N_("%(count)s characters of orders besides quoted lines; at most %(most)s characters are accepted"),
    N_("line %(line)s is %(length)s characters long; an order line has at most %(most)s (one order a line)"),
    # the sandbox, the coordinator's desk (sealing, processing, held and queued mail, imports), photographs and ratings (tests/project/test_layer_refusals_said.py)
    N_("a unit is an army (A) or a fleet (F), not %(kind)s"),
    N_("%(where)s names a unit; name only the province to place a %(kind)s"),
    N_("%(unit)s of %(power)s already stands in %(province)s; remove it first (one unit per province)"),
    N_("a fleet cannot stand in %(province)s: it is inland"),
    N_("there is no unit in %(province)s to remove"),
    N_("%(province)s is not a supply centre"),
    N_("the orders are %(length)s characters long; at most %(most)s are read"),
    N_("no power %(power)s in %(variant)s; its powers are %(powers)s"),
    N_("this sandbox no longer exists"),
    N_("the reason is %(length)s characters long; at most %(most)s are kept"),
    N_("the reason contains control characters; write it as plain text"),
    N_("game %(game)s is paused; resume it before processing"),
    N_("no message #%(id)s (see `dippouch mail list`)"),
    N_("message #%(id)s is %(status)s, not held"),
    N_("no message #%(id)s"),
    N_("no queued message #%(id)s (see `dippouch mail outbox`)"),
    N_("message #%(id)s was sent at %(time)s UTC; it is not sent twice"),
    N_("the transcription of photograph #%(id)s has no line: give at least one, or set the photograph aside"),
    N_("cannot read the phase %(phase)s: %(reason)s"),
    N_("no rated games of variant %(variant)s (variants with ratings: %(variants)s)"),
    N_("the ratings kept changing under %(count)s updates in a row; try again"),
    N_("game %(game)s has no end time and cannot be rated"),
    N_('a game named %(game)s already exists; import it under another name (the form\'s "As name")'),
    N_("the game file could not be stored (%(reason)s); nothing was imported"),
    N_("game file version %(version)s is newer than this dippouch understands"),
    N_('not a dippouch game file (expected "format": %(format)s)'),
    N_("game file: its variant %(variant)s does not load: %(reason)s"),
    N_("game file: its variant data does not match its variant_hash (edited or damaged)"),
    N_("game.variant: the file says %(variant)s, but its variant data is %(data)s"),
    N_("unknown view of a game file %(view)s; choose public, coordinator or unsealed"),
    N_(
        "position: it is a position of %(variant)s, but the game plays %(plays)s (create the game with variant %(named)s)"
    ),
    N_("position: %(reason)s"),
    N_("variant: %(reason)s"),
    # imports, tournaments, typed-in orders and ratings (tests/project/test_layer_refusals_said.py)
    N_(
        "this game file was exported with the open phase's orders sealed; export it again from that game's coordinator page with \"Export with this phase's orders unsealed\" (with a reason, which its players are shown) to move a running game"
    ),
    N_("game.options: expected an object of variant options"),
    N_("game.variant: missing; a game file names the variant its game plays (like standard)"),
    N_("game.variant: %(reason)s"),
    N_("game.variant_data: expected the variant as an object"),
    N_("the saved game has no id; give the imported game a name with --name"),
    N_("replaying the saved game reached %(phase)s, but the saved game has %(next)s next"),
    N_("not a usable MILA saved game (%(kind)s: %(reason)s)"),
    N_("variant %(variant)s names an unknown victory hook %(hook)s"),
    N_("cannot upgrade %(game)s: %(reason)s"),
    N_("a tournament's name is text, not %(type)s"),
    N_("received %(received)s UTC is after it was typed in (%(typed)s UTC); check the --received time"),
    N_("game %(game)s has lines but no end time"),
    N_("the ratings moved from version %(planned)s to %(now)s: plan again"),
    # dippouch.store.gamefile and dippouch.store.mail_record: the checks of a game file (an import), each after
    # the place in the file it concerns (``where``: a JSON path such as phases[3].submissions[0].version, kept
    # as it is). A refused value is shown as its repr, cut (gamefile.shown).
    N_("a game's name is text, not %(type)s"),
    N_("a game's name must be 1 to %(most)s characters (it is %(length)s: %(name)s)"),
    N_("a game's name %(name)s contains a control character (%(char)s); write it on one line"),
    N_(
        "a game's name %(name)s contains %(character)s at position %(position)s: invisible and control characters "
        "are not allowed (they make one name look like another)"
    ),
    N_("a game's name cannot contain '/' or a backslash (%(name)s); try %(other)s"),
    N_("a game's name cannot start with '.' (%(name)s); try %(other)s"),
    N_(
        "%(name)s is not a variant name; a variant is named by letters, digits, '-', '_' and single dots (like "
        "standard, 1000ad or w3k), never a path"
    ),
    N_("%(address)s is not an e-mail address; write it like montrose@example.org"),
    N_("%(address)s... is not an e-mail address (at most 320 characters)"),
    N_("%(address)s is not written as an address is stored (like a@example.org)"),
    N_("settings: expected an object with deadlines, timezone, time_of_day, missed_limit, draws"),
    N_('settings.deadlines: expected {"movement": "12d", "retreats": "2d", "adjustments": "2d"}'),
    N_("settings.%(key)s: expected text, not %(type)s"),
    N_("settings.draws: expected true or false"),
    N_("settings: %(reason)s"),
    N_("game.ending: a finished game says how it ended (an object), not %(type)s"),
    N_("game.ending: a game that is %(state)s has not ended"),
    N_("game.paused_remaining: a paused game needs the seconds left on its clock, 0 to %(most)s, not %(value)s"),
    N_("game.paused_remaining: only a paused game has time left on a stopped clock (%(state)s)"),
    N_("phases: a game file has at least one phase (the one the game opened with)"),
    N_("phases: a game that is %(state)s has exactly one open phase; this file has %(count)s"),
    N_("phases: a game that is %(state)s has exactly one open phase; this file has %(count)s (phases %(phases)s)"),
    N_("%(where)s: a finished game has no open phase"),
    N_("%(where)s: the open phase is on branch %(branch)s, the game on %(game_branch)s"),
    N_("%(where)s: a paused game's open phase has no deadline"),
    N_("%(where)s: the open phase needs one"),
    N_("%(where)s: a second phase at branch %(branch)s, position %(seq)s in the game's line"),
    N_(
        "%(where)s: its name and kind (%(name)s, %(kind)s) are not those of its position (%(position_name)s, "
        "%(position_kind)s)"
    ),
    N_("%(where)s: a processed phase says when it was processed (processed_at)"),
    N_("%(where)s.position: %(reason)s"),
    N_("%(where)s.next_position: %(reason)s"),
    N_("%(where)s: expected a list of orders"),
    N_("%(where)s: expected a list of objects"),
    N_('%(where)s: expected {"line": N, "text": "...", "order": ..., "error": ...}'),
    N_(
        "%(where)s (%(power)s version %(version)s): its line verdicts do not match its text (%(order)s is not an "
        "order its text gives here); the file was edited or damaged"
    ),
    N_(
        "%(where)s (%(power)s version %(version)s): its line verdicts do not match its text; the file was edited "
        "or damaged"
    ),
    N_("%(where)s: %(power)s has two versions numbered %(version)s in %(phase)s"),
    N_("%(where)s: %(power)s has no version %(version)s in %(phase)s"),
    N_("%(where)s: names no submission earlier in the file"),
    N_("%(where)s: %(power)s has two current players; only one plays a power at a time"),
    N_("%(where)s: expected the player's name"),
    N_("%(where)s must be 1 to %(most)s characters (it is %(length)s: %(name)s)"),
    N_("%(where)s %(name)s contains a control character (%(char)s); write it on one line"),
    N_(
        "%(where)s %(name)s contains %(character)s at position %(position)s: invisible and control characters are "
        "not allowed (they make one name look like another)"
    ),
    N_("%(where)s.email: %(reason)s"),
    # Whole, as the file's check writes them: the address's template alone would read the path into the address.
    N_("%(where)s.email: %(address)s is not an e-mail address; write it like montrose@example.org"),
    N_("%(where)s.email: %(address)s is not written as an address is stored (like a@example.org)"),
    N_("%(where)s: %(value)s is not one of %(choices)s"),
    N_("%(where)s: expected a whole number from %(least)s to %(most)s, not %(value)s"),
    N_("%(where)s: expected true or false, not %(value)s"),
    N_("%(where)s: expected text of at most %(most)s characters"),
    N_("%(where)s: expected a time like 2026-12-01T09:00:00+00:00, not %(value)s"),
    N_("%(where)s: cannot read the time %(value)s; write it like 2026-12-01T09:00:00+00:00"),
    N_("%(where)s: expected an object, not %(type)s"),
    N_("%(where)s: expected a list, not %(type)s"),
    N_("%(where)s: expected a power's name, not %(type)s"),
    N_("%(where)s: no power %(power)s in %(variant)s; its powers are %(powers)s"),
    N_("%(where)s: empty"),
    N_("%(where)s: nested too deeply"),
    N_("%(where)s: contains a NUL or a lone surrogate, which cannot be stored"),
    N_("%(where)s: %(value)s is not a number that can be stored"),
    N_("mail: expected an object (settings, messages, reviews, notices)"),
    N_("mail.settings: expected an object (the game's `mail setup` settings)"),
    N_("mail: the messages hold more than %(most)s MiB; not imported"),
    N_(
        "%(where)s: its content was sealed in this export; export the game again with `dippouch export "
        "--unsealed` to move a running game"
    ),
    N_("%(where)s: expected an object"),
    N_("%(where)s: expected base64 text"),
    N_("%(where)s: not base64"),
    N_("%(where)s: %(value)s is not a time (ISO 8601)"),
    N_("%(where)s: %(value)s is not the place of a phase in this file (0 to %(last)s)"),
    N_("%(where)s: %(value)s is not the id of a submission in this file"),
    N_("%(where)s: %(value)s is not the place of an event in this file"),
    N_("%(where)s: %(kind)s; expected results, reminder, event or cd"),
    N_("%(where)s: names no phase"),
    N_("%(where)s: too long"),
    N_("game file: version %(version)s is not a game file version (this dippouch writes 1)"),
    N_("game file is incomplete or damaged: %(error)s"),
    # the rules of procedure, the sandbox, practice games, tournaments, sealed orders and a game's line of play
    N_(
        "unknown time zone %(zone)s (%(length)s characters); use an IANA name such as UTC, Europe/London or "
        "America/Mexico_City"
    ),
    N_(
        "unknown time zone %(zone)s; did you mean %(close)s? Use an IANA name such as UTC, Europe/London or "
        "America/Mexico_City"
    ),
    N_("unknown time zone %(zone)s. Use an IANA name such as UTC, Europe/London or America/Mexico_City"),
    N_('a position is a JSON object like {"phase": "Spring 1901 Movement", "units": [...]}'),
    N_("no pace %(pace)s; choose one of %(paces)s"),
    N_("no tournament %(name)s; did you mean %(close)s? Tournaments: %(names)s"),
    N_("no tournament %(name)s. Tournaments: %(names)s"),
    N_("no tournament %(name)s. There are no tournaments yet."),
    N_(
        "the open phase's orders are sealed until its deadline: an unsealed export opens them, and the players are "
        "told who did it, when and why; give the reason (e.g. --reason 'moving the game to a new server')"
    ),
    N_(
        "the open phase's orders are sealed until its deadline: a new key for %(power)s's player opens them, and "
        "the players are told who did it, when and why; give the reason"
    ),
    N_("game %(game)s is over: %(why)s (roll back to reopen it)"),
    N_(
        "the copy of variant %(variant)s stored with game %(game)s no longer loads: %(reason)s; the game's "
        "coordinator can switch the game to the variant file (upgrade-variant, on the server)"
    ),
    # A phase refused as its orders arrive, with a sentence on the open phase of its own (the whole texts above
    # are read first; these read a processing time left out and a game that is over).
    N_("%(phase)s was processed at %(time)s UTC, before these orders arrived; they were not recorded. %(reason)s."),
    N_("%(phase)s was processed, before these orders arrived; they were not recorded. %(reason)s."),
    N_("%(phase)s is not open in game %(game)s; these orders were not recorded. %(reason)s."),
    N_("The open phase is %(open)s, deadline %(deadline)s UTC; send orders for that phase"),
    N_("The open phase is %(open)s (paused); send orders for that phase"),
    N_("Game %(game)s is over (roll back to reopen it)"),
    # dippouch.people.dates: a day typed wrong on the addresses and absences pages, after the field's name
    # ("from", "to"; kept); a month's name as the form reads it (August), kept too.
    N_("%(field)s: a day is needed, as in 2026-08-03 (year-month-day) or 3 August 2026"),
    N_(
        "%(field)s: %(text)s has month %(month)s; months run from 1 to 12 (write it as 2026-08-03 "
        "(year-month-day) or 3 August 2026)"
    ),
    N_("%(field)s: %(text)s is not a day: %(month)s %(year)s has %(days)s days (closest: %(closest)s)"),
    N_(
        "%(field)s: %(text)s has year %(year)s; write the full year, as in 2026-08-03 (year-month-day) or 3 August 2026"
    ),
    N_("%(field)s: no month %(month)s in %(text)s; did you mean %(close)s?"),
    N_("%(field)s: no month %(month)s in %(text)s; write it as 2026-08-03 (year-month-day) or 3 August 2026"),
    N_(
        "%(field)s: %(text)s could be read day-first or month-first; write it as 2026-08-03 (year-month-day) or "
        "3 August 2026 so it means one day"
    ),
    N_("%(field)s: %(text)s is not a day this form reads; write it as 2026-08-03 (year-month-day) or 3 August 2026"),
    N_("to: %(last)s is before 'from' (%(first)s); did you mean from %(last)s to %(first)s?"),
    N_("%(field)s: give both days of an alternate address (or neither, for the primary)"),
    # The engine's words a layer passes on (tests/project/test_layer_refusals_said.py, PASSED_ON): a power or a
    # scoring system no name matches.
    N_("no power %(power)s in %(variant)s; did you mean %(close)s? Powers: %(powers)s"),
    N_("no power %(power)s in %(variant)s Powers: %(powers)s"),
    N_("no scoring system %(name)s (did you mean %(close)s?); the systems are %(systems)s"),
    # the board reader's (dippouch.core.jsonio), as the sandbox passes it on: a unit where it cannot stand
    N_("a fleet cannot stand in %(province)s"),
    N_("an army cannot stand in %(province)s"),
    N_("a fleet in %(province)s stands on one of its coasts: %(options)s"),
    # The web's own refusals made where no request's words are at hand (the services the pages and the JSON API
    # share, the signs-in and the limits the application checks before a route): the application's handler says
    # every WebError's message through said, on a page and to the JSON API asked for a language (?lang=de).
    N_("the bearer key is unknown or revoked"),
    N_(
        "this call needs a key: send a player's or coordinator's key as 'Authorization: Bearer dp_...' (or sign "
        "in with its link, and send the page's token in X-CSRF-Token)"
    ),
    N_("this call needs a sign-in: a person's session (with X-CSRF-Token) or a bearer key"),
    N_(
        "sign in as a person first: ask for a link by e-mail on the sign-in page (/signin); a player's or "
        "coordinator's key alone has no person behind it"
    ),
    N_("the form's security token is missing or out of date (CSRF check); reload the page and send it again"),
    N_("this request came from another site (Origin %(origin)s, host %(host)s); it was refused"),
    N_("too many %(counted)s from you: at most %(count)s in %(seconds)s seconds; try again in %(wait)s s"),
    # what a limit counts (security.RateLimiter.hit's ``what``), said in its turn inside the sentence above
    N_("failed sign-ins"),
    N_("sign-in links asked for"),
    N_("sign-in links asked for this address"),
    N_("sign-in attempts"),
    N_("practice games started"),
    N_("adjudication requests"),
    N_("sandboxes started or steps adjudicated"),
    N_("sandbox changes"),
    N_("submissions"),
    N_("line checks"),
    N_(
        "you have used your share of the server's work (%(used)s s of computing in %(window)s s, at most "
        "%(most)s); try again in %(wait)s s"
    ),
    N_("you already have %(count)s expensive requests in hand; wait for their answers"),
    N_("the server is busy with other expensive requests; try again in a few seconds"),
    N_("a process doing expensive work stopped before it finished this request; try again in a few seconds"),
    N_(
        "this would take about %(need)s s of the server's computing, more than is left of your share of its work "
        "(at most %(most)s s in %(window)s s); try again in %(wait)s s"
    ),
    N_("this would take about %(need)s s of the server's computing; one request may take at most %(most)s s"),
    N_(
        "the server has spent its share of work on %(counted)s for now (at most %(most)s s of computing in "
        "%(window)s s for everyone); try again in %(wait)s s"
    ),
    # what a lane of the work budget does (dippouch.web.budget.LANES), said inside the sentence above
    N_("line checks and adjudications"),
    N_("drawings"),
    N_("processing games"),
    N_("game %(game)s has no open phase (it is over, or not started)"),
    N_(
        "you are not signed in as %(power)s in %(game)s: open the link to your seat (the one mailed to you, or "
        "kept when you started the game), or sign in with its key"
    ),
    N_("you need a coordinator's key to coordinate %(game)s; sign in with it first"),
    N_("you need a coordinator's key to create or import games; sign in with it first"),
    N_(
        "a draw vote is %(power)s's player's own: as their stand-in you order the seat while they are away, but "
        "do not vote for them"
    ),
    N_(
        "%(power)s's press is its player's own: as their stand-in you order the seat while they are away, but do "
        "not read its letters or write in its name"
    ),
    N_("the roster is for the games' players and coordinators: sign in first"),
    N_("the roster of %(game)s is for its players and coordinator"),
    N_("the roster of %(game)s is for its players and coordinator: sign in first"),
    # the JSON API's absences, a day refused with the API's field names (first_day, last_day; kept)
    N_("last_day: %(last)s is before 'first_day' (%(first)s); did you mean from %(last)s to %(first)s?"),
    N_("no push subscription or webhook #%(id)s"),
    N_("field %(field)s must be text"),
    N_("the passkey's answer is not in the expected shape"),
    N_("the passkey's answer is not in the expected shape (no clientDataJSON)"),
    N_("a territory name is at most 100 characters"),
    N_("game %(game)s has no phase with id %(id)s"),
    N_("game %(game)s has no phase %(id)s"),
    N_("no map view %(view)s; views: %(views)s"),
    N_("the orders of %(phase)s are sealed until it is processed; its map is map-board.svg"),
    N_("%(phase)s has not been processed: there is no position after it yet"),
    N_("no map can be drawn for this game yet (the map renderer or this variant's geometry is missing)"),
    N_("PDF maps need the map renderer, which is not installed"),
    N_("previews need the map renderer, which is not installed"),
    N_("animated replays need the map renderer: %(reason)s"),
    N_("no replay as %(format)s; it is made as %(options)s"),
    N_("no sandbox at this address: check the link (a sandbox is reached only by the link it was given)"),
    N_(
        "this is a sandbox's share link: it shows the board to anyone who holds it, but only its maker changes "
        "it; start a sandbox of your own from it to try your own moves"
    ),
    N_(
        "sign in first: a tournament is created by the installation's coordinator or by a person signed in (ask "
        "for a link by e-mail on the sign-in page, /signin)"
    ),
    N_(
        "a tournament is created by the installation's coordinator or by a person signed in; a key of one game is "
        "not enough: sign in as a person (/signin)"
    ),
    N_("sign in first: tournament %(name)s is run by the person who created it"),
    N_("only the person who created tournament %(name)s, or the installation's coordinator, changes its games"),
    # the application's own answers (web.app's handlers: a page that is not there, a request it cannot read)
    N_("no such page"),
    N_("this address does not take that method"),
    N_("the request is not in the expected shape"),
    N_("the game database is busy or unavailable; try again in a moment"),
    N_("a number in the request is far too large"),
    N_("the request is nested too deeply"),
    N_("the request contains text that is not valid Unicode"),
    N_("the request contains a value the database cannot store (a NUL character, or a number out of range)"),
    N_("internal error %(id)s: this is a bug in dippouch; it has been logged under that id"),
    N_("you may add only games you coordinate to a tournament (its page is public); %(game)s is not one of them"),
)
"""The English of the layers between the core and the doors, as :mod:`dippouch.game`, the press rules, the
lobby and the store write it (their modules are not marked: listed here, the catalogue check finds and
translates them; tests/web/test_i18n_lobby_and_refusals.py makes each group's texts and reads them back). A
rule of a refused message (``not sent (quiet phase): ...``) is a part with the context ``press rule``."""

_NESTED = frozenset({"reason", "why", "who", "rule", "counted"})
"""Placeholders that hold another message (``who``: W3K's "the Crown army in Bristol"; ``rule``: the press
rule that refused a message, ``quiet phase``; ``counted``: what a rate limit counts, ``failed sign-ins``)."""
_LISTS = frozenset({"options", "some"})
"""Placeholders that hold a list of choices (``a, b or c``: :func:`dippouch.core.messages.either`)."""
_PHASES = frozenset({"phase", "open"})
"""Placeholders that hold a phase's name (``Spring 1901 Movement``)."""

_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")
_DEPTH = 4
"""How deep messages nest (a reason in a reason): a bound, so no text is read back for ever."""


@dataclass(frozen=True)
class _Template:
    pattern: re.Pattern[str]
    translated: str
    numbers: frozenset[str]
    """Placeholders written with ``%d``: their values are given as numbers."""


def _pattern(template: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """The regular expression that reads an English text made from ``template`` back into its values: a
    name or a word is anything but ``;`` (which joins messages), a nested message or list anything, a
    number digits; a placeholder written twice must say the same both times."""
    out: list[str] = []
    seen: set[str] = set()
    numbers: set[str] = set()
    at = 0
    for m in _PLACEHOLDER.finditer(template):
        out.append(re.escape(template[at : m.start()].replace("%%", "%")))  # "%%" is written "%"
        name, kind = m.groups()
        if name in seen:
            out.append(f"(?P={name})")
        elif kind == "d":
            out.append(rf"(?P<{name}>-?\d+)")
            numbers.add(name)
        elif name in _NESTED or name in _LISTS:
            out.append(rf"(?P<{name}>.+?)")
        else:
            out.append(rf"(?P<{name}>[^;]+?)")
        seen.add(name)
        at = m.end()
    out.append(re.escape(template[at:].replace("%%", "%")))
    return re.compile("".join(out), re.DOTALL), frozenset(numbers)


@cache
def _templates(lang: str) -> tuple[tuple[_Template, ...], tuple[_Template, ...]]:
    """``lang``'s translated templates of the ``rules`` catalogue: (messages, list parts), the most specific
    first (the one with the most fixed text), so a message is read by its own template before a general one."""
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "rules.po"
    if not po.exists():
        return (), ()
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang, domain="rules")
    messages: list[tuple[int, _Template]] = []
    parts: list[tuple[int, _Template]] = []
    for entry in catalog:
        if not entry.id or not isinstance(entry.id, str) or not entry.string or entry.fuzzy:
            continue
        fixed = len(_PLACEHOLDER.sub("", entry.id))
        if entry.context != "list" and not any(c.isalpha() for c in _PLACEHOLDER.sub("", entry.id)):
            # Values joined by punctuation alone (``%(first)s; %(then)s``): said as values, never read back, as
            # it would read any text with a semicolon.
            continue
        pattern, numbers = _pattern(entry.id)
        (parts if entry.context == "list" else messages).append((fixed, _Template(pattern, str(entry.string), numbers)))
    ranked = (tuple(t for _, t in sorted(group, key=lambda x: -x[0])) for group in (messages, parts))
    return next(ranked), next(ranked)


def told(message: Msg | str, lang: str, door: str | None = None) -> str:
    """``message`` in ``lang``: a message value by its id (:func:`dippouch.saying.say`, its hints as ``door``
    words them), a text not made one yet read back by :func:`said`. The doors' one call while the layers move
    from texts to message values."""
    m = as_msg(message)
    if m.args or m.plural is not None or m.context is not None:
        return say(m, lang, door)
    return said(m.id, lang)


def said(text: str, lang: str) -> str:
    """``text``, an English message of the layers under the doors, in ``lang``; as it is when no template of
    the ``rules`` catalogue reads it, and in English."""
    if not text or lang == DEFAULT or lang not in LANGUAGES:
        return text
    return _said(text, lang, 0)


def _said(text: str, lang: str, depth: int) -> str:
    messages, _parts = _templates(lang)
    got = _read(text, lang, messages, depth)
    if got is not None:
        return got
    if "; " in text and depth < _DEPTH:
        # Notes and refusals joined into one line ("a; b"): each in its turn.
        return "; ".join(_said(part, lang, depth + 1) for part in text.split("; "))
    return text


def _read(text: str, lang: str, templates: tuple[_Template, ...], depth: int) -> str | None:
    for t in templates:
        m = t.pattern.fullmatch(text)
        if m is None:
            continue
        values: dict[str, object] = {}
        for name, value in m.groupdict().items():
            values[name] = _value(name, value, lang, depth, t.numbers)
        try:
            return t.translated % values
        except (KeyError, TypeError, ValueError):  # a translation that does not fit its message: the English
            return None
    return None


def _value(name: str, value: str, lang: str, depth: int, numbers: frozenset[str]) -> object:
    if name in numbers:
        return int(value)
    if depth >= _DEPTH:
        return value
    if name in _NESTED:
        return _said(value, lang, depth + 1)
    if name in _LISTS:
        return _read(value, lang, _templates(lang)[1], depth + 1) or value
    if name in _PHASES:
        from dippouch.names import phase_words  # names reads the variant's words; said is read by it too

        return phase_words(value, lang)
    return value
