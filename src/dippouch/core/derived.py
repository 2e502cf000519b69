"""Where tables derived from a core object are kept: on the object itself.

The adjudicator, legal-order generation and notation each derive tables from a map, a variant, its calendar
or its rule hooks once and reuse them every phase. Kept in module-level dictionaries keyed by ``id()``, they
held every object they had ever seen (the key's object had to be kept too, lest a freed object's id be handed
to a new one), so a server loading user variants grew without bound. Kept on the object, they go when it goes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Derived"]


class Derived(dict[str, Any]):
    """Tables derived from the object holding this, by the name of the module and table that made them.

    Pickled and copied empty: the tables are remade from the object on demand, and a variant kept on disk
    should hold its data, not the caches of the process that wrote it.
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[type[Derived], tuple[()]]:
        return (Derived, ())

    def __copy__(self) -> Derived:
        return Derived()

    def __deepcopy__(self, memo: dict[int, Any]) -> Derived:
        return Derived()
