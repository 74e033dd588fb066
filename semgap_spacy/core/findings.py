"""Field mentions and what they say once quantities and readings are read.

A field term ("cold ischemia time") only means something with its contract and
a value. ``field_mentions`` lists the field terms of a domain with their
contracts; ``quantity_findings`` turns tied text quantities and checked
readings into the reason-like findings the decision reports. The quantity
linker (to tie quantities) and the decision (to judge them) both read these,
so they work on plain rows, not on a Doc: the pipes read their span groups
into rows once (``pipes/rows.py``).
"""
import re
from functools import lru_cache
from typing import Callable, Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from ..glossary.models import Contract, GlossarySet
from ..lang import generation, number_word
from ..util.caches import cached
from ..util.textnorm import fold
from .number_shapes import PLAIN_NUMBER, TIME_OR_DATE
from .quantities import QUANTITY_BOUND, QUANTITY_UNSPLIT, SPACE
from .readings import STATUS_OK, STATUS_OUT, contract_message, fmt, within
from .reasons import outcome_for


# Span signals beyond the glossary's own three.
AMBIGUOUS = "ambiguous"
DANGLING_HEAD = "dangling_head"
DANGLING_OUTCOME = "dangling_outcome"


class TermFacts(NamedTuple):
    """What a term match is: the facts a term span carries beside its label (the term id)."""

    domain: str
    signal: str
    lang: str
    status: str
    kind: str
    field: Optional[str] = None


class TermRow(NamedTuple):
    """A term span read from its group: token and character offsets, label, facts."""

    start: int
    end: int
    start_char: int
    end_char: int
    label: str
    facts: TermFacts


class QuantityRow(NamedTuple):
    """A quantity span with what the linker stored on it."""

    start_char: int
    end_char: int
    field: Optional[str]
    problem: Optional[str]
    magnitude: Optional[float]
    kind: Optional[str] = None  # "duration", "temperature", "ratio", "pressure" (the span's label)


class FieldMention(NamedTuple):
    """A field term of a domain in the text, with its contract."""

    start: int
    end: int
    start_char: int
    end_char: int
    field: str
    domain: str
    term_id: str
    status: str
    contract: Contract


@lru_cache(maxsize=8)
def contract_index(glossary: GlossarySet) -> Dict[Tuple[str, str], Tuple[str, Contract]]:
    """(domain, field) -> (term id, contract), once per glossary set (they are immutable).

    glossary (GlossarySet): The glossary set.
    RETURNS (dict): The index.
    """
    return {(domain, term.field): (term.id, term.contract) for domain, term in glossary.terms()
            if term.field and term.contract is not None}


def field_mentions(rows: List[TermRow], glossary: GlossarySet, domain: Optional[str],
                   own_domain_only: bool = True) -> List[FieldMention]:
    """The field terms among term rows, with their contracts, in text order.

    Only fields of ``domain`` are kept when it is governed. For a domain that
    is not, ``own_domain_only`` decides: nothing (the decision's view: an
    unknown domain has no contracts) or the fields of every domain (the
    linker's view: a quantity is still tied to the field it belongs to).

    rows (List[TermRow]): The term span group, read once.
    glossary (GlossarySet): The glossary with the contracts.
    domain (Optional[str]): The case's domain.
    own_domain_only (bool): Return nothing when the domain is not governed. Defaults to True.
    RETURNS (List[FieldMention]): The field mentions.
    """
    governed = isinstance(domain, str) and domain in glossary.domains
    if not rows or (own_domain_only and not governed):
        return []
    contracts = contract_index(glossary)
    out = []
    for row in rows:
        facts = row.facts
        if facts.signal != "field" or not facts.field or (governed and facts.domain != domain):
            continue
        hit = contracts.get((facts.domain, facts.field))
        if hit is None:
            continue
        out.append(FieldMention(row.start, row.end, row.start_char, row.end_char, facts.field, facts.domain,
                                hit[0], facts.status, hit[1]))
    if len(out) > 1:
        out.sort(key=lambda f: (f.start, f.end))  # a span group need not be in text order
    return out


_WORD = re.compile(r"[^\W\d_]+")


_CHUNK = re.compile(r"\S+")
#: what one whitespace-separated chunk of text holds: (start, end) in the chunk, the fields its
#: word names and whether it is a number in words, for each word that does either
ChunkFacts = Tuple[Tuple[int, int, Tuple[str, ...], bool], ...]


class FieldWords:
    """The words of the phrases of each field with a contract, per domain, so that a field named by
    part of its phrase counts as named ("shelf life" for remaining shelf life, "hours since last
    inspection"): ``read`` finds them in a text, and its numbers in words on the way. Stop words
    and one-letter words name nothing.

    What a chunk of text holds depends on the chunk and the domain alone, so it is
    worked out once per distinct chunk (``util.caches.cached``, which keeps a memory
    zone's one-off chunks no longer than the zone) and a text is one look-up per chunk.

    glossary (GlossarySet): The glossary set.
    stop (FrozenSet[str]): Folded words that name no field (spec §4.1 rule 3's stop words).
    cache_size (int): Chunks remembered per domain.
    """

    def __init__(self, glossary: GlossarySet, stop: FrozenSet[str], cache_size: int = 65536):
        self.contracts = contract_index(glossary)
        self.words: Dict[str, Dict[str, Tuple[str, ...]]] = {}
        for domain, term in glossary.terms():
            if not term.field or (domain, term.field) not in self.contracts:
                continue
            words = self.words.setdefault(domain, {})
            for text, _, _, _ in term.variants():
                for word in _WORD.findall(text):
                    key = fold(word)
                    if len(key) > 1 and key not in stop and term.field not in words.get(key, ()):
                        words[key] = words.get(key, ()) + (term.field,)
        self.cache_size = cache_size
        self._chunks: Dict[Optional[str], Callable[[str], ChunkFacts]] = {}
        self._packs = generation()

    def _chunk_reader(self, domain: Optional[str]) -> Callable[[str], ChunkFacts]:
        if self._packs != generation():  # a pack registered since: its numbers in words count too
            self._chunks.clear()
            self._packs = generation()
        reader = self._chunks.get(domain)
        if reader is None:
            words = self.words.get(domain, {}) if domain else {}

            def facts(chunk: str) -> ChunkFacts:
                out = []
                for m in _WORD.finditer(chunk):
                    word = m.group()
                    fields, is_number = words.get(fold(word), ()), number_word(word)
                    if fields or is_number:
                        out.append((m.start(), m.end(), fields, is_number))
                return tuple(out)

            reader = self._chunks[domain] = cached(self.cache_size)(facts)
        return reader

    def read(self, domain: Optional[str], text: str,
             mentions: List[FieldMention] = ()) -> Tuple[List[FieldMention], List[Tuple[int, int]]]:
        """The fields the text names and where it writes a number in words, in one pass over its chunks.

        The fields named are the ``mentions`` and, for each other field of
        ``domain`` one of whose phrase words the text holds, a mention at the
        first such word (token offsets -1, status "partial"), in text order after the mentions.

        domain (Optional[str]): The case's domain.
        text (str): The doc text.
        mentions (List[FieldMention]): The whole mentions (``field_mentions``).
        RETURNS (Tuple[List[FieldMention], List[Tuple[int, int]]]): The fields named, wholly or in
            part, and (start_char, end_char) of every number in words ("fifty", "zwanzig").
        """
        named, numbers = list(mentions), []
        # most texts name no field and write no number in words: their chunks need no offsets
        found = list(map(self._chunk_reader(domain), text.split()))
        if not any(found):
            return named, numbers
        seen = None
        for m, hits in zip(_CHUNK.finditer(text), found):  # str.split() and \S+ cut alike
            if not hits:
                continue
            base = m.start()
            for start, end, fields, is_number in hits:
                if is_number:
                    numbers.append((base + start, base + end))
                for field in fields:
                    if seen is None:
                        seen = {f.field for f in mentions}
                    if field not in seen:
                        seen.add(field)
                        term_id, contract = self.contracts[(domain, field)]
                        named.append(FieldMention(-1, -1, base + start, base + end, field, domain, term_id,
                                                  "partial", contract))
        return named, numbers


def contract_kinds(glossary: GlossarySet) -> Dict[str, Dict[str, Tuple[str, ...]]]:
    """domain -> quantity kind -> the domain's fields whose contract is of that kind.

    glossary (GlossarySet): The glossary set.
    RETURNS (dict): The fields by kind, per domain (a domain with no contract is absent).
    """
    out: Dict[str, Dict[str, Tuple[str, ...]]] = {}
    for (domain, field), (_, contract) in sorted(contract_index(glossary).items()):
        kinds = out.setdefault(domain, {})
        kinds[contract.kind] = kinds.get(contract.kind, ()) + (field,)
    return out


# -- findings for the decision --------------------------------------------------


def _finding(field: str, term_id: Optional[str], status: str, code: str, message: str,
             value: Optional[float], unit: Optional[str], start: int, end: int) -> dict:
    return {"field": field, "term_id": term_id, "status": status, "code": code,
            "outcome": outcome_for(code), "message": message, "value": value, "unit": unit,
            "start_char": start, "end_char": end}


# A number right after a field mention ("DTI 50", "CIT: 30", "tire pressure = 250"): the
# text states the field's value, and without a unit nothing can check it. So does any
# word with a digit there that the quantity reader did not read ("TSI l50 h", "DTI ٥٠%").
_BARE_VALUE = re.compile(SPACE + r"*[:=]?" + SPACE + r"*([^\s,;]*?\d[^\s,;]*)")


def quantity_findings(fields: List[FieldMention], quantities: List[QuantityRow], readings_checked,
                      text: str) -> List[dict]:
    """What the text quantities and field mentions say, as reason-like dicts.

    Same shape as ``check_readings`` entries plus ``start_char``/``end_char``.
    Only fields of ``doc._.semgap_domain`` count (nothing for an unknown domain):

    - a quantity tied to a field with an ambiguous or unsupported unit:
      ``ambiguous_unit`` / ``unsupported_unit``; after a comparison sign (">24 h"):
      ``quantity_bound``; one whose word holds another quantity ("6h/30h"): ``quantity_unsplit``;
    - a tied quantity and a valid reading of the same field that differ by
      more than ``contract.tolerance()``: ``quantity_mismatch``; that agree, but
      with the text's value outside the contract: the contract code, as below;
    - a tied quantity and no valid reading: the contract code
      (``limit_exceeded``, ``below_minimum``, ``outside_band``) when outside,
      ``text_quantity_unconfirmed`` when inside (text alone never clears). A
      malformed reading counts as no reading here (it escalates on its own),
      and a mention whose phrase is a draft cannot block, so it gives
      ``text_quantity_unconfirmed`` instead;
    - a field mention followed by a number with no unit ("DTI 50", "CIT: 30") or by a word with
      a digit the quantity reader did not read ("TSI l50 h"), reading or not: ``ambiguous_unit``
      (the text states a value nothing can check; a number in words, "DTI fifty", is
      ``bare_number_findings``' ``value_in_words``);
    - a field mentioned with no reading (not even a malformed one) and no
      tied quantity: ``field_without_value`` at its first mention.

    Offsets of a tied quantity cover the field mention and the quantity.
    Problem units that tie to no field are not findings: only a contract makes
    a unit "unsupported for" something, and an untied field already escalates.

    fields (List[FieldMention]): The domain's field mentions (``field_mentions``).
    quantities (List[QuantityRow]): The quantity spans.
    readings_checked (Optional[list]): ``doc._.semgap_readings_checked``.
    text (str): The doc text, to quote the spans.
    RETURNS (List[dict]): Findings sorted by position.
    """
    if not fields:
        return []
    by_field: Dict[str, List[FieldMention]] = {}
    for f in fields:
        by_field.setdefault(f.field, []).append(f)
    read_fields, valid, reading_out = set(), {}, set()
    for entry in readings_checked or []:
        if not isinstance(entry, dict):
            continue
        read_fields.add(entry.get("field"))
        if entry.get("status") in (STATUS_OK, STATUS_OUT) and entry.get("value") is not None:
            valid[entry["field"]] = entry["value"]
            if entry.get("status") == STATUS_OUT:
                reading_out.add(entry["field"])
    out: List[dict] = []
    tied_fields = set()
    for q_start, q_end, name, problem, value, _ in quantities:
        mentions = by_field.get(name)
        if not mentions:
            continue
        tied_fields.add(name)
        mention = mentions[0] if len(mentions) == 1 else min(
            mentions, key=lambda f: min(abs(f.start_char - q_end), abs(q_start - f.end_char)))
        contract = mention.contract
        start = min(q_start, mention.start_char)
        end = max(q_end, mention.end_char)
        unit = contract.unit
        if problem == QUANTITY_BOUND:
            out.append(_finding(name, mention.term_id, "bound", problem,
                                f"{name}: '{text[q_start:q_end]}' in the text is written as a bound (after a "
                                f"comparison sign, or with an open end: '+', 'and up', '↑'), not a value, which its "
                                f"contract cannot check", None, unit, start, end))
            continue
        if problem == QUANTITY_UNSPLIT:
            out.append(_finding(name, mention.term_id, "unsplit", problem,
                                f"{name}: '{text[q_start:q_end]}' in the text holds more than one quantity in "
                                f"one word, or is added to or multiplied by another number, which the reader "
                                f"cannot tell apart", None, unit, start, end))
            continue
        if problem:
            written = text[q_start:q_end]
            out.append(_finding(name, mention.term_id, "unit_problem", problem,
                                f"{name}: '{written}' in the text has a unit that is "
                                f"{'ambiguous' if problem == 'ambiguous_unit' else 'unsupported'} "
                                f"for its contract in {unit}", None, unit, start, end))
            continue
        if value is None:
            continue
        code = within(value, contract)
        if name in valid:
            reading = valid[name]
            if abs(reading - value) > contract.tolerance() + 1e-9 * max(1.0, abs(reading)):
                out.append(_finding(
                    name, mention.term_id, "mismatch", "quantity_mismatch",
                    f"{name}: the text says {fmt(value)} {unit} but the reading is "
                    f"{fmt(reading)} {unit} (tolerance {fmt(contract.tolerance())} {unit})",
                    value, unit, start, end))
                continue
            if code == "reading_in_contract" or name in reading_out:
                continue  # the reading confirms the text, or is outside and says so itself
            # they agree within the tolerance, but what the text states is outside the contract
            # ("cold ischemia 24.2 h" with a reading of 24 h): it counts as a text value does
        if code == "reading_in_contract" or mention.status != "approved":
            why = ("but is not confirmed by a reading" if mention.status == "approved"
                   else "but its phrase is a draft and cannot decide")
            message = contract_message(name, value, contract, code, "in the text") + f" {why}"
            out.append(_finding(name, mention.term_id, "unconfirmed", "text_quantity_unconfirmed",
                                message, value, unit, start, end))
        else:
            out.append(_finding(name, mention.term_id, STATUS_OUT, code,
                                contract_message(name, value, contract, code, "in the text"),
                                value, unit, start, end))
    for name, mentions in by_field.items():
        if name in tied_fields:
            continue
        bare = None
        for mention in mentions:
            m = _BARE_VALUE.match(text, mention.end_char)
            if m is not None:
                bare = (mention, m)
                break
        if bare is not None:
            mention, m = bare
            out.append(_finding(name, mention.term_id, "unit_problem", "ambiguous_unit",
                                f"{name}: '{m.group(1)}' follows its mention in the text with no unit the "
                                f"reader can read, so it cannot be checked against its contract in "
                                f"{mention.contract.unit}",
                                None, mention.contract.unit, mention.start_char, m.end(1)))
            continue
        if name in read_fields:
            continue
        first = mentions[0]
        quote = text[first.start_char:first.end_char]
        out.append(_finding(name, first.term_id, "missing", "field_without_value",
                            f"{name} is mentioned ('{quote}') with no reading and no value",
                            None, first.contract.unit, first.start_char, first.end_char))
    if len(out) > 1:
        out.sort(key=lambda r: (r["start_char"], r["end_char"], r["code"]))
    return out


_DIGIT = re.compile(r"[0-9]")  # a plain class: the engine skips to the first digit in C


def _read_spans(terms: List[TermRow], quantities: List[QuantityRow], reported: List[dict]) -> List[Tuple[int, int]]:
    """(start_char, end_char) of what is read already: quantities, terms and reported findings."""
    read = [(q.start_char, q.end_char) for q in quantities]
    read.extend((t.start_char, t.end_char) for t in terms)
    read.extend((r["start_char"], r["end_char"]) for r in reported if r.get("start_char") is not None)
    return read


def _nearest_before(fields: List[FieldMention], start: int) -> FieldMention:
    """The field named last before ``start``, or the one named first."""
    before = [f for f in fields if f.end_char <= start]
    if before:
        return max(before, key=lambda f: f.end_char)
    return min(fields, key=lambda f: f.start_char)


def bare_number_findings(fields: List[FieldMention], terms: List[TermRow], quantities: List[QuantityRow],
                         text: str, reported: List[dict], number_words: List[Tuple[int, int]] = ()) -> List[dict]:
    """``ambiguous_unit`` for each number with no unit, and ``value_in_words`` for each number in
    words, in a text that names a field of the case's domain, wherever it stands: "DTI is 55",
    "ischémie froide de 30", "storage 4 °C; then 12", "Isquemia: unas veintiocho horas".

    In such a text a bare number may be the field's value, written a few words
    after it or in another clause, and without a unit nothing can check it. A
    number inside a quantity, a term or a finding already reported is read
    already; a code, a clock time or an amount of money ("#4821", "14:00",
    "$1,250") is no bare number. A text that names no field is left alone:
    counts and numbers of bays, flights and orders fill ops chatter ("courier 2
    of 3", "tail 1402"), and escalating them all cost a third of a probe's
    harmless proceeds for one case caught.

    fields (List[FieldMention]): The fields the text names (``FieldWords.read``); none: no findings.
    terms (List[TermRow]): Every term span, whose own words hold no value.
    quantities (List[QuantityRow]): The quantity spans.
    text (str): The doc text.
    reported (List[dict]): Findings made already (``quantity_findings``), not repeated.
    number_words (List[Tuple[int, int]]): Where the text writes a number in words (``FieldWords.read``).
    RETURNS (List[dict]): Findings in the shape of ``quantity_findings``', in text order, each
        naming the nearest field mention before the number (or the first).
    """
    if not fields:
        return []
    bare = [m.span() for m in PLAIN_NUMBER.finditer(text)] if _DIGIT.search(text) else []
    if not bare and not number_words:
        return []
    read = _read_spans(terms, quantities, reported)
    out = []
    for spans, code, what in ((bare, "ambiguous_unit", "a number with no unit"),
                              (number_words, "value_in_words", "a number in words, which the reader does not read,")):
        for start, end in spans:
            if any(s < end and start < e for s, e in read):
                continue
            mention = _nearest_before(fields, start)
            out.append(_finding(mention.field, mention.term_id, "unit_problem", code,
                                f"{mention.field}: '{text[start:end]}' in the text is {what} in a text that names "
                                f"the field, so it may state its value, and nothing can check it against its "
                                f"contract in {mention.contract.unit}", None, mention.contract.unit, start, end))
    out.sort(key=lambda r: r["start_char"])
    return out




#: a time or date in brackets that opens the text: the message's own stamp ("[09:52] Ben: ...")
_OPENING_STAMP = re.compile(r"^\s*[\[(][0-9:/.\-+ TZ]+[\])]")


def timestamp_findings(fields: List[FieldMention], terms: List[TermRow], quantities: List[QuantityRow],
                       text: str) -> List[dict]:
    """``text_timestamp`` for each clock time or date in a text that mentions a field whose
    contract is a duration: "excursión de temperatura de las 10:05 a las 10:50", "rate lock
    since 2026-01-02". Such a time may mark where the duration starts or ends; the reader
    computes elapsed time only from a ``start`` reading and ``now``, never from the text,
    so the duration the text implies is unchecked. A text that names no duration field is
    left alone ("[15:59] Priya: xm neg" is a chat time stamp), and so is a time in brackets
    that opens the text, the message's own stamp ("[09:52] Ben: 19.92 h cold ischaemia").

    fields (List[FieldMention]): The fields the text names (``FieldWords.read``).
    terms (List[TermRow]): Every term span, whose own words hold no time.
    quantities (List[QuantityRow]): The quantity spans.
    text (str): The doc text.
    RETURNS (List[dict]): Findings in the shape of ``quantity_findings``', in text order.
    """
    durations = [f for f in fields if f.contract.kind == "duration"]
    if not durations or not _DIGIT.search(text):
        return []
    out = []
    read = None
    stamp = _OPENING_STAMP.match(text)
    for m in TIME_OR_DATE.finditer(text, stamp.end() if stamp else 0):
        start, end = m.span()
        if read is None:
            read = _read_spans(terms, quantities, ())
        if any(s < end and start < e for s, e in read):
            continue
        mention = _nearest_before(durations, start)
        out.append(_finding(mention.field, mention.term_id, "timestamp", "text_timestamp",
                            f"{mention.field}: '{m.group()}' in the text is a time or date in a text that "
                            f"names the duration, so it may mark its start or end, and the reader computes "
                            f"no duration from the text", None, mention.contract.unit, start, end))
    return out


#: a number of one or two digits with one letter glued on ("3C", "10K"): a bay or a gate more often than a unit
_LETTER_UNIT = re.compile(r"[0-9]{1,2}[A-Za-z]\.?")


def _in_code(text: str, start: int, end: int) -> bool:
    """Whether the characters at start:end are glued to a letter, a digit, a hyphen or a slash on
    either side."""
    before, after = text[start - 1:start], text[end:end + 1]
    return any(ch.isalnum() or ch in "-/" for ch in before + after)


def untied_quantity_findings(quantities: List[QuantityRow], fields_by_kind: Dict[str, Tuple[str, ...]],
                             text: str, every_kind: bool = True) -> List[dict]:
    """``quantity_untied`` for each text quantity of a kind that a contract of the case's domain
    governs but that no field mention in its clause claims ("xm neg, ischemia 30 h", "CIT – 30h",
    "tire pressure 200 psi on wheel 1, 150 psi on wheel 2").

    Such a number may state a field's value, and nothing checks it: the reader
    knows its kind, not whose value it is. A quantity of a kind no contract of
    the domain governs ("brakes 600 °C" in aviation, "assay 85 %" in a batch
    record) states a measurement that no contract can judge, and escalates
    too (``every_kind``), with no field; a number with one letter glued on
    ("gate 3C", "stand 10K") is left alone, as a place more often than a
    unit ("600C" is a temperature), and so is a quantity glued into a longer
    code ("P/N 2-1577-3C").

    quantities (List[QuantityRow]): The quantity spans, with their kinds.
    fields_by_kind (Dict[str, Tuple[str, ...]]): The domain's fields by contract kind (``contract_kinds``).
    text (str): The doc text, to quote the quantity.
    every_kind (bool): Whether a quantity of a kind no contract of the domain governs escalates
        (``untied_quantities = "any"``); "contract_kinds" and "named_fields" leave it alone.
    RETURNS (List[dict]): Findings in the shape of ``quantity_findings``', in the rows' order.
    """
    out = []
    for q_start, q_end, field, _, _, kind in quantities:
        if field is not None:
            continue
        names = fields_by_kind.get(kind)
        written = text[q_start:q_end]
        if not names:
            # "gate 3C", "stand 5K": a letter glued to a number names a place before a unit; a
            # number glued into a longer code is a part of the code ("P/N 2-1577-3C")
            if (every_kind and kind not in fields_by_kind and not _LETTER_UNIT.fullmatch(written)
                    and not _in_code(text, q_start, q_end)):
                out.append(_finding(None, None, "untied", "quantity_untied",
                                    f"'{written}' in the text is a {kind}, and no contract of the domain governs "
                                    f"that kind: nothing checks whether it is acceptable", None, None,
                                    q_start, q_end))
            continue
        out.append(_finding(names[0] if len(names) == 1 else None, None, "untied", "quantity_untied",
                            f"'{written}' in the text is a {kind}, the kind of {' and '.join(names)}, but no "
                            f"mention of a field in its clause claims it: it may state a value that nothing "
                            f"checks", None, None, q_start, q_end))
    return out
