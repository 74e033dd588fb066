"""Verify that heldout/test.jsonl is the frozen test split.

    python -m heldout.check_frozen      # exit 0 if the hash matches, 1 otherwise
    python -m heldout.check_frozen --version 2   # the same for heldout/v2/test.jsonl

The test split is scored, never tuned on. FROZEN.sha256 records its hash so any
edit to the file (by hand or by a changed generator) is visible in review.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from . import HELDOUT_DIR


def check(directory: Path = HELDOUT_DIR) -> tuple[bool, str]:
    """(ok, message) for the test split in ``directory``."""
    frozen_path = directory / "FROZEN.sha256"
    test_path = directory / "test.jsonl"
    if not frozen_path.exists():
        return False, f"{frozen_path} is missing: the test split has never been frozen"
    if not test_path.exists():
        return False, f"{test_path} is missing: regenerate it with `python -m heldout.generate`"
    expected = frozen_path.read_text(encoding="utf-8").split()[0]
    actual = hashlib.sha256(test_path.read_bytes()).hexdigest()
    if actual != expected:
        return False, (
            f"{test_path} has sha256 {actual} but FROZEN.sha256 says {expected}. "
            "The frozen test split was changed. Restore it (`git checkout heldout/test.jsonl`, or "
            "`python -m heldout.generate` if the generator is unchanged); refreeze only on purpose "
            "with `python -m heldout.generate --force-refreeze`."
        )
    return True, f"{test_path} matches FROZEN.sha256 ({actual})"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    directory = HELDOUT_DIR / "v2" if args[-2:] == ["--version", "2"] else HELDOUT_DIR
    ok, message = check(directory)
    print(message, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
