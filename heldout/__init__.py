"""Held-out evaluation data for semgap_spacy.

bank/ (YAML phrase bank) -> generate.py (fills templates, records facts)
-> oracle.py (labels from facts, spec §4) -> dev.jsonl / test.jsonl.
test.jsonl is frozen by FROZEN.sha256 (check_frozen.py); metrics.py scores
decisions; baseline_keyword.py is a naive reference system. Nothing here
imports semgap_spacy: the labels must not depend on the engine under test.
See heldout/README.md for the protocol.
"""

from __future__ import annotations

import json
from pathlib import Path

HELDOUT_DIR = Path(__file__).resolve().parent


def load_cases(path_or_split: str | Path) -> list[dict]:
    """Cases from a JSONL file, or from ``"dev"`` / ``"test"`` (v1) or ``"v2/dev"`` / ``"v2/test"`` in this package."""
    path = Path(path_or_split)
    if str(path_or_split) in ("dev", "test", "v2/dev", "v2/test"):
        path = HELDOUT_DIR / f"{path_or_split}.jsonl"
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
