"""Who may sign a review: the people of the glossaries' governance, or a roster file.

A resolution is only worth something if a person who can answer for it
signed it. "Non-empty" is not enough: a zero-width space, a terminal escape
that hides itself, or ``automated-agent`` are all non-empty. So a reviewer
must be a person listed where the organisation already lists accountable
people:

* by default, the owners, approvers, second approvers and translation
  reviewers of the loaded glossaries (the bundled set unless told otherwise);
* or, when a roster file is given (``--roster FILE`` or the configuration
  variable ``SEMGAP_QUEUE_ROSTER``), exactly the names in that file, one per
  line (``#`` starts a comment). A roster file replaces the glossary list
  rather than adding to it, so a team can narrow who signs.

Every name, on the roster and as typed, must be printable text with a letter
in it, and must not be one of the process names in ``data/reviewers.yaml``.
A typed name matches a roster name case-insensitively with runs of spaces
collapsed; the roster's own spelling is what gets recorded, so one person
never appears under two spellings. No spaCy import.
"""
from __future__ import annotations

import os
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Dict, Iterable, Optional, Union

from ..util.yaml_files import read_yaml

ROSTER_CONFIG = "SEMGAP_QUEUE_ROSTER"
_SPACES = re.compile(r" +")
_SEPARATORS = re.compile(r"[\s_\-]+")


class RosterError(ValueError):
    """A reviewer name or a roster that is refused; the message says why."""


@lru_cache(maxsize=1)
def _not_people() -> frozenset:
    data = read_yaml(Path(str(resources.files("semgap_spacy.data"))) / "reviewers.yaml")
    return frozenset(_SEPARATORS.sub("", str(n).casefold()) for n in data.get("not_people") or [])


def shown(name: object) -> str:
    """A name as it may be put in a message: quoted, every invisible character escaped."""
    return ascii(name) if isinstance(name, str) else repr(name)


def check_name(name: object, where: str = "reviewer") -> str:
    """A person's name, cleaned, or a RosterError saying what is wrong with it.

    name (object): The name as given.
    where (str): What the name is, for the message.
    RETURNS (str): NFC-normalised, stripped, inner spaces collapsed.
    RAISES (RosterError): Not text, blank, a character that does not print
        (control, format such as U+200B, separator other than the space,
        private use, unassigned), no letter at all, or a process name.
    """
    if not isinstance(name, str):
        raise RosterError(f"{where} name must be text, got {type(name).__name__}")
    cleaned = _SPACES.sub(" ", unicodedata.normalize("NFC", name).strip(" "))
    if not cleaned:
        raise RosterError(f"{where} name is empty or blank")
    bad = [ch for ch in cleaned if not ch.isprintable()]
    if bad:
        listed = ", ".join(sorted({f"U+{ord(ch):04X}" for ch in bad}))
        raise RosterError(f"{where} name {shown(name)} holds characters that do not print ({listed})")
    if not any(ch.isalpha() for ch in cleaned):
        raise RosterError(f"{where} name {shown(name)} has no letter in it")
    if _SEPARATORS.sub("", cleaned.casefold()) in _not_people():
        raise RosterError(f"{where} name {shown(name)} names a process, not a person who can answer "
                          "for the review")
    return cleaned


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


class Roster:
    """The people who may sign reviews.

    names (Iterable[str]): The names; each must pass ``check_name``.
    source (str): Where they came from, named in refusals.
    """

    def __init__(self, names: Iterable[str], source: str) -> None:
        self.source = source
        self._people: Dict[str, str] = {}
        for name in names:
            cleaned = check_name(name, f"{source}: roster")
            self._people.setdefault(_key(cleaned), cleaned)
        if not self._people:
            raise RosterError(f"{source}: the roster names nobody, so nobody could sign a review")

    def __len__(self) -> int:
        return len(self._people)

    def __contains__(self, name: object) -> bool:
        try:
            self.person(name)
        except RosterError:
            return False
        return True

    def person(self, name: object, action: str = "review") -> str:
        """The roster's spelling of a typed reviewer name.

        name (object): As typed.
        action (str): What is being signed, for the message.
        RETURNS (str): The name as the roster spells it.
        RAISES (RosterError): The name is malformed or not on the roster.
        """
        cleaned = check_name(name)
        found = self._people.get(_key(cleaned))
        if found is None:
            raise RosterError(f"{action} refused: {shown(cleaned)} is not a reviewer on the roster "
                              f"({self.source}); only listed people may sign a review")
        return found

    @classmethod
    def from_file(cls, path: Union[str, Path]) -> "Roster":
        """One name per line; blank lines and ``#`` comments are skipped."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RosterError(f"cannot read roster file {path}: {exc}") from None
        names = []
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                names.append(line)
        return cls(names, f"roster file {path}")

    @classmethod
    def from_glossaries(cls, glossaries: object, source: str = "glossary governance") -> "Roster":
        """Owners, approvers, second approvers and translation reviewers of a GlossarySet,
        and the owners and approvers of its neutral vocabularies."""
        names = []
        for dom in glossaries.domains.values():  # type: ignore[attr-defined]
            for term in dom.terms:
                names.extend(n for n in (term.owner, term.approver, term.second_approver) if n)
                names.extend(tr.reviewer for tr in term.translations.values() if tr.reviewer)
            names.extend(r.second_approver for r in dom.retired)
            names.extend(n for n in (dom.vocabulary.owner, dom.vocabulary.approver) if n)
        return cls(names, source)


def load_roster(roster_file: Optional[str] = None, glossaries: Optional[str] = None,
                environ: Optional[dict] = None) -> Roster:
    """The roster a queue checks reviewers against.

    roster_file (Optional[str]): A roster file; defaults to the configuration
        variable ``SEMGAP_QUEUE_ROSTER``.
    glossaries (Optional[str]): A glossary directory whose governance lists
        the reviewers when no roster file is named; defaults to the bundled set.
    RETURNS (Roster): The roster.
    RAISES (RosterError): An unreadable or malformed roster or glossary.
    """
    env = os.environ if environ is None else environ
    roster_file = roster_file or env.get(ROSTER_CONFIG) or None
    if roster_file:
        return Roster.from_file(roster_file)
    from .models import GlossaryError, load_glossaries  # no spaCy; only needed here
    try:
        gset = load_glossaries(glossaries)
    except GlossaryError as exc:
        raise RosterError(f"cannot read the reviewers from the glossaries: {exc}") from None
    where = f"governance of the glossaries in {glossaries}" if glossaries else \
        "governance of the bundled glossaries"
    return Roster.from_glossaries(gset, where)


__all__ = ["ROSTER_CONFIG", "Roster", "RosterError", "check_name", "load_roster", "shown"]
