"""Variant rule hooks. Each module registers the hooks it provides when imported."""

from dippouch.core.rules import (
    ad1000,  # noqa: F401  (1000 AD: defensive armies, Winter 999 placements, anarchy)
    homes,  # noqa: F401  (1897: chosen and redefined home centres)
    w3k,  # noqa: F401  (W3K: sea areas, conversion, proxies, supply transfer)
)
