"""Phrase risks: glossary words the context reader or the typo repair would misread.

A loader cannot refuse these, because each phrase is valid on its own; the
risk comes from the other components. A phrase that is (or contains) a
negation or hedge cue gets negated or hedged by its own word, and two words of
terms with different signals a few edits apart let a misspelling of one be
repaired into the other.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from rapidfuzz.distance import OSA

from ..models import SIGNALS, phrase_key
from .findings import Finding, _finding
from .payload import Phrase, _letters, _variants, _words
from .rules import _rules, max_edits


def _cue_findings(dom: str, path: Optional[str], terms, frame_values,
                  cues: Dict[str, Dict[str, str]]) -> List[Finding]:
    out: List[Finding] = []
    by_key: Dict[str, List[Tuple[str, str, str]]] = {}
    for lang, table in cues.items():
        for cue, kind in table.items():
            by_key.setdefault(phrase_key(cue), []).append((cue, lang, kind))
    for _, tid, term in terms:
        forms = [(ph, str(ph)) for ph in _variants(term)]
        forms += [(Phrase("en", "frame value", w), f'frame value "{w}"')
                  for w in frame_values.get(tid, [])]
        for ph, label in forms:
            hits = by_key.get(phrase_key(ph.text))
            if hits:
                cue, lang, kind = hits[0]
                langs = ", ".join(sorted({h[1] for h in hits}))
                out.append(_finding(
                    "phrase_is_cue", dom, tid,
                    f"term {tid}: {label} is also a {kind} ({langs}: \"{cue}\"); the context "
                    "reader would take it as negating or hedging, not as the term", path))
                continue
            words = _words(ph.text)
            lang = ph.lang if ph.lang in cues else "en"
            for cue, kind in cues[lang].items():
                cw = _words(cue)
                if cw and any(words[i:i + len(cw)] == cw for i in range(len(words) - len(cw) + 1)):
                    out.append(_finding(
                        "phrase_contains_cue", dom, tid,
                        f"term {tid}: {label} contains the {lang} {kind} \"{cue}\"; check the "
                        "context reader does not negate or hedge the term with its own word",
                        path))
                    break
    return out


def _fuzzy_findings(dom: str, path: Optional[str], terms, frame_values) -> List[Finding]:
    """Words of terms with different signals within the typo repair's reach.

    The typo repair works token by token, so two phrases can only be repaired
    into each other through their words: comparing every word of one term with
    every word of another covers whole phrases too (a one-word phrase is a word).
    A word both terms share is not a collision; the other words tell them apart.
    """
    out: List[Finding] = []
    vocab: List[Tuple[str, str, Set[str]]] = []  # (id, signal, words)
    for _, tid, term in terms:
        signal = term.get("signal")
        if signal not in SIGNALS:
            continue
        texts = [ph.text for ph in _variants(term)] + frame_values.get(tid, [])
        vocab.append((tid, signal, {w for t in texts for w in _words(t)}))

    def close(a: str, b: str) -> Optional[int]:
        la, lb = _letters(a), _letters(b)
        if a == b or min(la, lb) < int(_rules()["fuzzy"]["min_letters"]):
            return None
        limit = max_edits(max(la, lb))
        if abs(len(a) - len(b)) > limit:
            return None
        d = OSA.distance(a, b, score_cutoff=limit)
        return d if d <= limit else None

    for n, (t1, s1, w1) in enumerate(vocab):
        for t2, s2, w2 in vocab[n + 1:]:
            if s1 == s2:
                continue
            hits = [(a, b, d) for a in sorted(w1 - w2) for b in sorted(w2 - w1)
                    if (d := close(a, b)) is not None]
            for a, b, d in hits:
                out.append(_finding(
                    "fuzzy_collision", dom, t1,
                    f"{t1} ({s1}) \"{a}\" and {t2} ({s2}) \"{b}\" are {d} edit"
                    f"{'s' if d != 1 else ''} apart, within the typo repair's reach: a "
                    "misspelling of one can be repaired into the other", path))
    return out
