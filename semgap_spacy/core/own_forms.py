"""A clearance stated in its own words: which forms of a clear term's words still say it.

Spec §3 matches phrases "with inflection (plural, verb forms)". For a term
that forbids, any form will do: "organs declined" blocks like "organ
declined". A clearance is different, because a verb form says something
else than the form the glossary lists: "Batch released" is done, but "Batch
release tomorrow" and "Release to service pls" are a plan and a request,
"Clearing to close" is under way and "QP certify pls" asks for what
"QP certified" reports. So a clearance counts as stated only in one of its
own forms, or in a form that merely agrees in number or gender with the
noun or subject ("batches released", "lotes liberados", "libérées"): the
language packs' ``agreement_endings``. Anything else the matcher found
through inflection escalates (``clearance_inflected``); a team that writes
such a form on purpose adds it as a phrase of the term, through the
glossary workflow. Accents are folded, as everywhere: fr "libère" reads as
"libéré".

Plain values only: a term's forms are the folded words of each of its
phrases, abbreviations and translations (with their spelling variants), and
a quote is read the way the pipes read a token (``textview.read_word``).
"""
import re
from typing import Dict, FrozenSet, Iterable, List, Tuple

from ..glossary.models import GlossarySet
from .textview import read_word
from .vocabulary import iter_phrases

_WORD = re.compile(r"\w+")


def words_of(text: str) -> Tuple[str, ...]:
    """The folded canonical words of a text, as the pipes read its tokens."""
    return tuple(w for chunk in text.split() for w in _WORD.findall(read_word(chunk)))


def agrees(word: str, own: str, endings: FrozenSet[str]) -> bool:
    """Whether ``word`` is ``own`` or ``own`` agreeing in number or gender: ``own`` plus an
    ending, or ``own`` with a final letter that is itself an ending replaced by one
    (es "liberado" -> "liberada", "liberadas"). "released" -> "release", "releases" or
    "releasing" is none of these."""
    if word == own:
        return True
    if word.startswith(own) and word[len(own):] in endings:
        return True
    stem = own[:-1]
    return bool(stem) and own[-1:] in endings and word.startswith(stem) and word[len(stem):] in endings


class OwnForms:
    """The own forms of every clear term of a glossary.

    glossary (GlossarySet): The terms.
    endings (Dict[str, Iterable[str]]): Agreement endings per language code (a language
        the mapping lacks has none: its forms must be written as listed).
    """

    #: answers kept, by (term id, quote): a stream states its clearances in a few ways
    KEEP = 4096

    def __init__(self, glossary: GlossarySet, endings: Dict[str, Iterable[str]]):
        self._forms: Dict[str, List[Tuple[Tuple[str, ...], FrozenSet[str]]]] = {}
        self._answers: Dict[Tuple[str, str], bool] = {}
        ends = {lang: frozenset(e) for lang, e in endings.items()}
        for _, text, term, lang, _, kind, signal in iter_phrases(glossary):
            if signal != "clear":
                continue
            form = (words_of(text), ends.get(lang, frozenset()) if kind != "abbreviation" else frozenset())
            forms = self._forms.setdefault(term.id, [])
            if form not in forms:
                forms.append(form)

    def holds(self, term_id: str, quote: str) -> bool:
        """Whether ``quote`` states the clear term ``term_id`` in one of its own forms; True for a
        term that is no clear term of the glossary (nothing to compare it with)."""
        forms = self._forms.get(term_id)
        if forms is None:
            return True
        answer = self._answers.get((term_id, quote))
        if answer is None:
            words = words_of(quote)
            answer = any(len(own) == len(words) and all(agrees(w, o, endings) for w, o in zip(words, own))
                         for own, endings in forms)
            if len(self._answers) >= self.KEEP:
                self._answers.clear()
            self._answers[(term_id, quote)] = answer
        return answer
