"""DAIDE tokens: every word of the protocol is a 16-bit value, its high octet the category.

The numbers are the DAIDE client-server protocol's (chapter 4 of the protocol document; the same in the
Parlance revision). A :class:`Vocabulary` adds the power and province tokens of one map: the standard map's
own, or those a server announces in its representation message (RM) for another map.

Integers are 14-bit two's complement in categories 0x00-0x3F; text is one token per byte in category 0x4B
(UTF-8 bytes for anything beyond ASCII).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = [
    "BRA",
    "KET",
    "MAX_INT",
    "MIN_INT",
    "STANDARD_POWERS",
    "STANDARD_PROVINCES",
    "TOKENS",
    "Vocabulary",
    "category",
    "integer",
    "integer_value",
    "is_integer",
    "is_reserved",
    "is_text",
    "text_tokens",
]

MIN_INT, MAX_INT = -8192, 8191
TEXT = 0x4B
POWER_CATEGORY = 0x41
PROVINCE_CATEGORIES = range(0x50, 0x58)
RESERVED_CATEGORIES = range(0x58, 0x60)


def _block(cat: int, names: str, numbers: Iterable[int] | None = None) -> dict[str, int]:
    words = names.split()
    nums = list(numbers) if numbers is not None else list(range(len(words)))
    return {w: (cat << 8) | n for w, n in zip(words, nums, strict=True)}


TOKENS: dict[str, int] = {
    **_block(0x40, "( )"),
    **_block(0x42, "AMY FLT"),
    **_block(0x43, "CTO CVY HLD MTO SUP VIA DSB RTO BLD REM WVE", [*range(0x20, 0x26), 0x40, 0x41, 0x80, 0x81, 0x82]),
    **_block(0x44, "MBV BPR CST ESC FAR HSC NAS NMB NMR NRN NRS NSA NSC NSF NSP", range(0x0F)),
    **_block(0x44, "NSU NVR NYU YSC", range(0x10, 0x14)),
    **_block(0x45, "SUC BNC CUT DSR FLD NSO RET"),
    **_block(0x46, "NCS NEC ECS SEC SCS SWC WCS NWC", range(0, 16, 2)),
    **_block(0x47, "SPR SUM FAL AUT WIN"),
    **_block(
        0x48,
        "CCD DRW FRM GOF HLO HST HUH IAM LOD MAP MDF MIS NME NOT NOW OBS OFF ORD OUT PRN REJ SCO SLO SND SUB SVE "
        "THX TME YES ADM SMR",
    ),
    **_block(0x49, "AOA BTL ERR LVL MRT MTL NPB NPR PDA PTL RTL UNO DSD", [*range(0x0C), 0x0D]),
    # Press words in alphabetical order, as DAIDE numbered them (FCT 06, FOR 07, FWD 08: so David Norman's and
    # MILA's tables; a Parlance copy of the document lists FWD first).
    **_block(0x4A, "ALY AND BWX DMZ ELS EXP FCT FOR FWD HOW IDK IFF INS", range(0x0D)),
    **_block(0x4A, "OCC ORR PCE POB", range(0x0E, 0x12)),
    **_block(0x4A, "PRP QRY SCD SRY SUG THK THN TRY", range(0x13, 0x1B)),
    **_block(0x4A, "VSS WHT WHY XDO XOY YDO CHO BCC UNT NAR CCL", range(0x1C, 0x27)),
}
"""Every fixed token (not powers, provinces, numbers or text) by its three letters; ``(`` and ``)`` are the
brackets BRA and KET."""

BRA, KET = TOKENS["("], TOKENS[")"]

STANDARD_POWERS: dict[str, int] = _block(POWER_CATEGORY, "AUS ENG FRA GER ITA RUS TUR")
"""The standard map's powers, in the order of the protocol's table."""

STANDARD_PROVINCES: dict[str, int] = {
    **_block(0x50, "BOH BUR GAL RUH SIL TYR UKR", range(0x00, 0x07)),
    **_block(0x51, "BUD MOS MUN PAR SER VIE WAR", range(0x07, 0x0E)),
    **_block(0x52, "ADR AEG BAL BAR BLA EAS ECH GOB GOL HEL ION IRI MAO NAO NTH NWG SKA TYS WES", range(0x0E, 0x21)),
    **_block(0x54, "ALB APU ARM CLY FIN GAS LVN NAF PIC PIE PRU SYR TUS WAL YOR", range(0x21, 0x30)),
    **_block(
        0x55,
        "ANK BEL BER BRE CON DEN EDI GRE HOL KIE LON LVP MAR NAP NWY POR ROM RUM SEV SMY SWE TRI TUN VEN",
        range(0x30, 0x48),
    ),
    **_block(0x57, "BUL SPA STP", range(0x48, 0x4B)),
}
"""The standard map's 75 provinces; the category says inland/sea/coastal/bicoastal and supply centre or not."""


def category(token: int) -> int:
    return token >> 8


def is_integer(token: int) -> bool:
    return category(token) < 0x40


def is_text(token: int) -> bool:
    return category(token) == TEXT


def is_reserved(token: int) -> bool:
    """Tokens of the private-use categories, which must never be sent: the protocol's error 0x0E."""
    return category(token) in RESERVED_CATEGORIES


def integer(n: int) -> int:
    """The token of an integer (-8192 to 8191)."""
    if not MIN_INT <= n <= MAX_INT:
        raise ValueError(f"DAIDE integers run from {MIN_INT} to {MAX_INT}, not {n}")
    return n & 0x3FFF


def integer_value(token: int) -> int:
    v = token & 0x3FFF
    return v - 0x4000 if v & 0x2000 else v


def text_tokens(text: str) -> list[int]:
    """A string as text tokens, one a byte of its UTF-8."""
    return [(TEXT << 8) | b for b in text.encode("utf-8")]


class Vocabulary:
    """The tokens of one game: the fixed ones, plus its powers and provinces (by their three letters).

    ``rm`` is what a representation message carries: the map's own power and province tokens, empty for
    the standard map (whose tokens are the protocol's)."""

    def __init__(self, powers: Mapping[str, int], provinces: Mapping[str, int], *, standard: bool) -> None:
        self.powers = dict(powers)
        self.provinces = dict(provinces)
        self.standard = standard
        self.by_name: dict[str, int] = {**TOKENS, **self.powers, **self.provinces}
        self.by_value: dict[int, str] = {v: k for k, v in self.by_name.items()}

    @classmethod
    def standard_map(cls) -> Vocabulary:
        return cls(STANDARD_POWERS, STANDARD_PROVINCES, standard=True)

    @classmethod
    def from_rm(cls, payload: bytes) -> Vocabulary:
        """The vocabulary a representation message defines (empty: the standard map's)."""
        if not payload:
            return cls.standard_map()
        if len(payload) % 6:
            raise ValueError(f"a representation message holds six-octet entries; this one has {len(payload)} octets")
        powers: dict[str, int] = {}
        provinces: dict[str, int] = {}
        for i in range(0, len(payload), 6):
            value = int.from_bytes(payload[i : i + 2], "big")
            name = payload[i + 2 : i + 5].decode("ascii").upper()
            if category(value) == POWER_CATEGORY:
                powers[name] = value
            elif category(value) in PROVINCE_CATEGORIES:
                provinces[name] = value
            else:
                raise ValueError(f"a representation message may define powers and provinces only, not {value:#06x}")
        return cls(powers, provinces, standard=False)

    def rm(self) -> bytes:
        """The representation message's payload for this vocabulary."""
        if self.standard:
            return b""
        out = bytearray()
        for name, value in [*self.powers.items(), *self.provinces.items()]:
            out += value.to_bytes(2, "big") + name.encode("ascii") + b"\0"
        return bytes(out)

    def name(self, token: int) -> str | None:
        """The three letters of a known token, or None (numbers and text have none)."""
        return self.by_value.get(token)

    def __getitem__(self, name: str) -> int:
        return self.by_name[name.upper()]

    def known(self, token: int) -> bool:
        return token in self.by_value or is_integer(token) or is_text(token)
