"""Variant rule hooks. Each module registers the hooks it provides when imported."""

from dippouch.core.rules import (
    homes,  # noqa: F401  (1897: chosen and redefined home centres)
    w3k,  # noqa: F401  (W3K: sea areas, conversion, proxies, supply transfer)
)
