"""docs/variant-format.md documents every key of the schema, written from the schema itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dippouch.core.schema import ROOT, MapOf, Table

DOC = Path(__file__).resolve().parents[2] / "docs" / "variant-format.md"


def test_key_reference_is_up_to_date() -> None:
    # In a fresh interpreter: the reference lists the registered behaviours, and test modules register their own.
    code = (
        "import sys; from pathlib import Path; from dippouch.core.schema import with_reference; "
        "sys.stdout.write(with_reference(Path(sys.argv[1]).read_text(encoding='utf-8')))"
    )
    got = subprocess.run([sys.executable, "-c", code, str(DOC)], capture_output=True, text=True, check=True).stdout
    assert got == DOC.read_text(encoding="utf-8"), "run scripts/variant-format-doc to rewrite the key reference"


def test_every_key_appears_in_the_doc() -> None:
    text = DOC.read_text(encoding="utf-8")

    def walk(spec: Table) -> None:
        for key, sub in spec.fields.items():
            assert f"| `{key}` |" in text or f"### `{key}" in text, key
            if isinstance(sub, Table):
                walk(sub)
            elif isinstance(sub, MapOf) and isinstance(sub.value, Table):
                walk(sub.value)

    walk(ROOT)
