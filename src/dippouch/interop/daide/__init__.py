"""DAIDE, the protocol the hobby's bots speak (DumbBot, Albert and their kin): a server that seats them in a
stored game, and a client that seats our bots on a DAIDE server.

- :mod:`~dippouch.interop.daide.tokens`: the token table and a game's vocabulary (powers, provinces);
- :mod:`~dippouch.interop.daide.codec`: messages on the wire (the 4-octet header, tokens, brackets, text);
- :mod:`~dippouch.interop.daide.board`: a variant in DAIDE's words, both ways;
- :mod:`~dippouch.interop.daide.server` and :mod:`~dippouch.interop.daide.client`.

docs/daide.md says what is served and what is not.
"""

DAIDE_PLAYER = "daide:"
"""The beginning of the player name a DAIDE client's seat is recorded under (``daide:NAME``): here, with nothing
else, for the use cases that tell a program's seat from a person's without loading the protocol."""
