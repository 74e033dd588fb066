"""Language packs: everything the pipeline knows about a language, as data.

One folder per language, as in spaCy's own ``spacy/lang/``: ``pack.yaml``
(clause-break words, list conjunctions, never-neutral words, number and unit
conventions and the language's unit words, the words typo repair must not
touch), ``cues.json`` (negation, hedge, pseudo and clause-break cues of the
``spec`` profile, which the decision reads) and ``cues_clinical.json`` (the
``clinical`` profile). The spec cue set of every pack also holds the
language-neutral symbol cues ("❌", "⚠": ``semgap_spacy/data/symbol_cues.json``).
Every pack answers every
field, checked when it loads, so a language that forgot one fails at load
rather than silently reading less.

Adding a language is adding a folder: ``register_pack(path)`` for a folder of
your own (or an entry point in the ``semgap_languages`` group naming a
function that returns the folder). Components that read packs take every
registered language unless their config lists some. A bundled language's pack
is replaced only on purpose (``register_pack(path, replace=True)``), never by
an entry point, and every decision records the packs it was read with
(``pack_identities``: ``"language_packs"`` in the decision; a language whose
negation and hedge cues, as ``semgap_context`` read them, are not its pack's
is named by those cues: ``identities_read_with``, ``cue_set_identity``).
"""
import hashlib
from functools import lru_cache
from importlib import resources
from importlib.metadata import entry_points
from pathlib import Path
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple, Union

import srsly
from spacy.attrs import LIKE_NUM
from spacy.util import get_lang_class
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..util.spacy_lists import has_language_module, spacy_like_num
from ..util.textnorm import exact, fold
from ..util.yaml_files import read_yaml
from .cues import CLINICAL_PROFILE, PROFILE_FILES, SPEC_PROFILE, CueError, CueSet, with_symbol_cues

PACK_FILE = "pack.yaml"
CUES_FILE = PROFILE_FILES[SPEC_PROFILE]
CLINICAL_CUES_FILE = PROFILE_FILES[CLINICAL_PROFILE]
ENTRY_POINT_GROUP = "semgap_languages"
BUNDLED = ("en", "es", "fr", "de")


class LanguagePackError(ValueError):
    """A language pack that cannot be used; the message names the folder, the field and the problem."""


def _words(values: List[str]) -> List[str]:
    out = []
    for v in values:
        if not isinstance(v, str) or not v.strip():
            raise ValueError(f"{v!r} is not a word")
        out.append(v.strip())
    return out


class LanguagePack(BaseModel):
    """The data of one language. Every field is required: a pack says "none" with an empty list."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    code: str = Field(pattern=r"^[a-z]{2,3}$")
    name: str
    #: the spaCy language whose STOP_WORDS and lookup tables describe this one
    spacy_lang: str
    #: whether spaCy's English-style suffix rules (``lemma_rules``) add inflections
    lemma_rules: bool
    #: words that end a clause ("but"); the cue file's ``break`` records add more
    clause_break_words: List[str]
    #: conjunctions that close a list ("no A, B or C" is one list)
    list_conjunctions: List[str]
    #: words that never count as neutral, even when they are stop words: the spec's list (§4.1)
    never_neutral: List[str]
    #: stop words of this language the spec's lists do not name but which state what those
    #: words state (``never_neutral_words``): never neutral either
    never_neutral_added: List[str] = []
    #: words never neutral only when written exactly so, capitals included: another
    #: language's stop word in a form that states something here (en "TODO": a step not done,
    #: while es "todo", everything, stays a stop word)
    never_neutral_cased: List[str] = []
    #: endings that make a number an ordinal ("2nd", "2º", "3er", "2e", "2ème"), as written: a
    #: number with one (the first too), in a term's clause, is no identifier (rule 5) but picks one
    #: of several ("2nd aircraft airworthy": which one?), as the ordinal words of
    #: ``never_neutral_added`` do; elsewhere it orders something else ("Airworthy; 2nd sector")
    ordinal_suffixes: List[str] = []
    #: those endings as they may be written in capitals ("2ND", "3RD", "2ÈME"); an ending in capitals
    #: that is not listed here is another word's ("777ER", a type's extended range)
    capital_ordinal_suffixes: List[str] = []
    #: words after which a number with a full stop glued to it is an ordinal (de "das 2. Flugzeug",
    #: "am 3. Tag"), read as the ordinals of ``ordinal_suffixes`` are; elsewhere the stop may end a sentence
    ordinal_articles: List[str] = []
    #: words of a time or a place that an ordinal orders ("2nd shift", "3rd day", "2e rotation"):
    #: before one, an ordinal picks no item (``core.coverage``, ``explain_ordinals``)
    ordinal_times: List[str] = []
    #: ordinals in words that spaCy's stop words hold ("first", "primer", "premier", "erste"): read where
    #: they stand as an ordinal in digits is ("Clear to close for the first file" as "… the 1st file":
    #: which one?), not as a stop word (``explain_ordinals``); the ordinals past them are in
    #: ``never_neutral_added``
    spelled_ordinals: List[str] = []
    #: stop words that tie a clearance to an event of ``condition_events`` right beside its term
    #: (de "Lufttüchtig nach Inspektion", "Nach Check lufttüchtig"), perhaps with an article of
    #: ``condition_articles`` between; languages whose "after" is never neutral need none
    condition_prepositions: List[str] = []
    condition_events: List[str] = []
    condition_articles: List[str] = []
    #: words that say "about" ("ca", "circa"): with no value after them in their clause the
    #: statement holds only roughly ("Lufttüchtig ca."), as with the marks of
    #: ``data/trouble_symbols.json``'s ``approximation_marks`` (``core.approximations``)
    approximation_words: List[str] = []
    #: words that, right before a value, say it is passed or not reached ("gut 24 Stunden", a good
    #: 24 hours; "almost 180 days"): the value is a bound (``core.quantities.is_bound``)
    bound_words: List[str] = []
    #: a never-neutral stop word that rule 3 still explains right after one of these words:
    #: en "back" reports a reversal ("sent back", "back with underwriting") but not in
    #: "called back", the spec's own example of a text that proceeds once its name is taught
    neutral_after: Dict[str, List[str]] = {}
    #: abbreviations whose full stop ends no clause ("approx.")
    non_final_abbreviations: List[str]
    #: conjunctions joining the parts of one quantity ("2 h and 30 min")
    quantity_conjunctions: List[str]
    #: words written with an accent that makes them another word, never folded onto
    #: a cue (spec §4: es "sí", yes, is not the cue "si", if; fr "où" is not "ou")
    accent_sensitive: List[str] = []
    #: verbs that open a question when they come first in a sentence and a subject follows them
    #: ("is it clear to close", "ist die Akte abschlussbereit"): asked without a question mark
    question_openers: List[str] = []
    #: the subjects that make such a verb a question's ("it", "we", "die"), besides an identifier
    #: ("is 512QX released"); a verb before anything else is a statement whose subject was
    #: dropped ("Has been released to service", "Ist freigegeben")
    question_subjects: List[str] = []
    #: the openers that are forms of "to be" ("is", "ist"): before the clearance's own noun they
    #: ask ("Is lot released"), where "Have CRS signed" reports
    question_copulas: List[str] = []
    #: words of a greeting that may stand before a question's verb in its sentence ("Hi is it
    #: clear to close", "Thanks, are we airworthy", "So is lot released")
    question_preamble: List[str] = []
    #: words that address people before a question's verb, after a greeting or before a comma
    #: ("Hi team is it …", "Team, is it …"), never alone ("Team is ready" states)
    question_addressees: List[str] = []
    #: an opener and a subject that together begin a wish or an order, never a question
    #: ("Have a good flight", "Do a walkaround first"), as two words
    question_wishes: List[str] = []
    #: tags that ask when they end a sentence after a comma ("right", "is it", "oder", "verdad"):
    #: "Clear to close, right" is a question without its mark (``core.questions``)
    question_tags: List[str] = []
    #: words that ask or urge when they end a sentence right after a clearance ("airworthy
    #: already", "clear to close already"), with or without a comma (``core.questions``)
    question_ends: List[str] = []
    #: words of saying ("says", "told", "according"): a clearance in the words of a party of the
    #: domain's ``vocabulary.no_authority`` near one is hearsay (``core.hearsay``)
    reporting_words: List[str] = []
    #: words of saying that name their party after them ("by", "per", "according", "selon"):
    #: "borrower notified by phone" cites nobody (``core.hearsay``)
    reporting_prepositions: List[str] = []
    #: words that name a speaker but no party with authority ("he", "they", "someone", es "me"
    #: of "me dijeron", fr "on", de "man"): near a word of saying they are parties of every
    #: domain's ``vocabulary.no_authority`` ("Clear to close, he said", ``core.hearsay``)
    unnamed_speakers: List[str] = []
    #: speakers that are one only as the subject right before a word of saying ("you said",
    #: "folks said") or after a reporting preposition ("according to you"); elsewhere the one
    #: spoken to ("confirmed, thank you", "Hi folks, underwriter confirms", ``core.hearsay``)
    subject_speakers: List[str] = []
    #: possessives of a speaker the text does not name ("your", "their"): with how it spoke after
    #: them, that speaker, beside a word of saying or after a reporting preposition ("Your email says
    #: clear to close", "per their message", ``core.hearsay``); the writer's own ("my") are none
    possessive_speakers: List[str] = []
    #: words that name whom a thing is for, right before a party (an article between at most): that
    #: party is whom a clearance is for, never the one who says it ("Negative crossmatch for recipient
    #: R-7730 confirmed", ``core.hearsay``)
    beneficiary_prepositions: List[str] = []
    #: a pronoun, perhaps an auxiliary, and a word of saying (two or three words) that name such a
    #: speaker where they open their clause (es "me dijeron", "me han dicho", "se dice", fr "on
    #: dit"); elsewhere the pronoun is none ("el laboratorio me confirma"), nor with other verbs
    #: (fr "on confirme": "we confirm", ``core.hearsay``)
    speaker_clitics: List[str] = []
    #: words that may stand before such a clitic, or a word of ``subjectless_saying``, that opens
    #: its clause ("eso me dijeron", "ya me dijeron", "eso dijo", ``core.hearsay``)
    clitic_leads: List[str] = []
    #: pronouns that name a speaker where they end their clause right after a word of saying or
    #: a reporting preposition (de "sagt der", "laut ihm"); elsewhere articles or datives ("sagt
    #: der Pilot", "bestätigt ihr der Underwriter", ``core.hearsay``)
    closing_speakers: List[str] = []
    #: those of ``closing_speakers`` that are no article: right after a reporting preposition they
    #: name a speaker whatever follows ("Laut ihm ist das Flugzeug lufttüchtig")
    closing_pronouns: List[str] = []
    #: pronouns that name a speaker where they open their clause right before a word of saying
    #: (de "Der sagt …", es "El dijo que …"); fr "on" is "we" there ("On confirme")
    opening_speakers: List[str] = []
    #: words that point back to what was said ("so", "it", es "lo", de "das"): a sentence that only
    #: says who spoke, with one, reports the sentence before even where that one names its own
    #: source ("Clear to close per underwriter. Borrower said so", ``core.hearsay``)
    report_pointers: List[str] = []
    #: words that open a line of an e-mail's header or a form and name who wrote what follows,
    #: before a colon ("from", "sent by", "reported by", de "von"): a party after the colon that
    #: ends the line wrote the text ("From: Borrower\nRE: file 4471\n\nClear to close")
    provenance_keys: List[str] = []
    #: words of the lines a signature block may end with ("Sent from my phone", "Tel: …"): skipped
    #: when a signature must end the text; a party alone on the last line else signs it
    signature_trailers: List[str] = []
    #: pronouns that name a speaker glued by a hyphen after a word of saying (fr "dit-on", which
    #: a tokenizer may cut into "dit", "-", "on", ``core.hearsay``)
    inverted_speakers: List[str] = []
    #: words of saying whose ending names unnamed speakers (es "dijeron", "dicen"): opening a
    #: clause with a word of ``report_conjunctions`` or a mark after them, they report a
    #: clearance no one with authority gave ("Dijeron que el avión es aeronavegable")
    subjectless_saying: List[str] = []
    #: the words that join a word of saying to what was said (es "que")
    report_conjunctions: List[str] = []
    #: pronouns that stand before a verb as its object, never as its subject (es "lo", fr "le"):
    #: a word of saying after one may name its party after it ("lo confirma el borrower")
    object_pronouns: List[str] = []
    #: how a party spoke, and the words that join it to the party, in a speaker's label ("Borrower
    #: email: …", "Email from borrower: …", "Clear to close. — Borrower", ``core.hearsay``)
    speaker_channels: List[str] = []
    #: words that close a message before its signature: after a sentence's end, a party that then
    #: ends the text signs it, as after a dash ("Clear to close. Regards, the borrower")
    sign_offs: List[str] = []
    #: thanks that may close a message ("thank you", "vielen dank"): after a sentence's end, then a
    #: comma and a party with its article (``signed_articles``) that ends the text, they sign it
    #: ("Clear to close. Thank you, the borrower"); "Thanks, borrower" may thank them (``core.hearsay``)
    sign_off_thanks: List[str] = []
    #: the articles of a party that signs after thanks ("the", "el", "le", "der")
    signed_articles: List[str] = []
    #: words that name where a clearance came from when they open a clause of their own right
    #: after the clearance's and a party ends it ("Airworthy, from the captain", ``core.hearsay``)
    attribution_prepositions: List[str] = []
    #: verbs of checking, as written to order one ("check", "confirm", "vérifiez"): opening a
    #: clause, or after a word of ``to_do_markers``, they ask for a check not yet done
    #: (``core.coverage``, ``unexplain_checks``)
    check_verbs: List[str] = []
    #: verbs of checking in the present tense ("confirms", "bestätigt"): with a clock time after
    #: them in their clause, a check still to come ("lab confirms at 14:00")
    check_verbs_present: List[str] = []
    #: times of day and later times written as words ("afternoon", "tomorrow", "turno"): after such
    #: a verb in its clause they put the check still to come as a clock time does ("QA checks labels
    #: this afternoon")
    later_words: List[str] = []
    #: words after which four digits are a clock time ("at 1400", "um 1500", "a las 1400"): after
    #: such a verb in its clause, like "14:00"
    clock_prepositions: List[str] = []
    #: words that may follow such a verb where it opens its clause and make it an order, the
    #: person to ask after them (es "Lote liberado; confirma con el laboratorio": "confirma" is
    #: also the imperative; not "Confirma el laboratorio: …", which states)
    check_prepositions: List[str] = []
    #: words after such a verb, in its clause, that make it no order: a check done ("Check
    #: complete: airworthy"), a check named ("Check is in the file"), another verb ("check in")
    check_done_words: List[str] = []
    #: words of asking that may stand before such a verb ("please check labels"), or end its
    #: clause ("lab confirm pls")
    request_words: List[str] = []
    #: words that may stand before such a verb opening its clause ("just check brakes")
    check_adverbs: List[str] = []
    #: stop words that put a verb of checking after them still to do ("lab will confirm")
    to_do_markers: List[str] = []
    #: auxiliaries that, after such a marker and before a word of ``check_participles``, put a
    #: check still to do ("brakes to be checked", "docs are to be signed")
    to_do_auxiliaries: List[str] = []
    #: participles of a check or of what one makes sure of ("checked", "signed", "received")
    check_participles: List[str] = []
    #: auxiliaries of a passive or a check in progress: before a word of ``check_participles`` in
    #: their clause, with no term nor word of a check done between, a check not yet done ("brakes
    #: get checked at 14:00", "Akte wird geprüft")
    progress_auxiliaries: List[str] = []
    #: verbs of the clearances themselves ("clear", "release", "clôturer"): after a word of
    #: ``to_do_markers``, with nothing but times after them in their clause, a clearance still
    #: to give ("title to clear", "QP will release")
    clearance_verbs: List[str] = []
    #: words that set a time for what a text states ("by", "from", "desde", "nach"): followed by a
    #: time or a day, the clearance may hold from then or be due by then (``core.time_conditions``)
    time_prepositions: List[str] = []
    #: days and times of day written as words ("noon", "tomorrow", "Monday", "lunes"), which such
    #: a word may set
    time_words: List[str] = []
    #: words that state a past ("was", "had been"): right before a clearance term, it says how
    #: things stood, not how they stand (``core.time_conditions``)
    past_state_words: List[str] = []
    #: words that put a state still to come ("to be", "yet to be", "wird"): right before or after a
    #: clearance term, or between a frame's words, they say the clearance is due, not given
    #: ("Aircraft to be airworthy", "CTC to be issued"; ``core.time_conditions``)
    to_come_words: List[str] = []
    #: stop words that name a part of what they stand before ("some", "several", "quelques"):
    #: right before a clearance's term they are unexplained ("Some lots released"), as after a
    #: word of ``part_prepositions`` right after one ("Batch released for some orders") or two
    #: words at most before a check's participle ("several docs signed")
    part_words: List[str] = []
    #: prepositions that give a clearance's scope ("for", "para", "pour", "für")
    part_prepositions: List[str] = []
    #: prepositions of a goal: right before a clearance's term they make it the goal of a step
    #: ("Ready for clear to close", "File sent for CTC"), not given
    purpose_prepositions: List[str] = []
    #: stop words that, glued by a hyphen before a neutral word, prefix it harmlessly ("re-checked",
    #: "e-signed"); any other stop word there makes another word ("un-signed", ``CoverageRules.unspell``)
    kept_prefixes: List[str] = []
    #: pseudo cues that are one only where their clause ends after them ("defects, if any, logged";
    #: not "Clear to close if any funds received", where the first word is a condition)
    clause_final_pseudos: List[str] = []
    #: stop words that order steps ("next", "first"): right beside a clearance's term, marks but
    #: no sentence's end between, they are unexplained ("Next: clear to close", "Airworthy next")
    step_words: List[str] = []
    #: step words that also order a numbered item before them as a step to come, ending its clause
    #: ("wheel 4 next", "engine 2 next", "sample 2: next"); "order 4471 first" may rank a priority
    numbered_steps: List[str] = []
    #: pronouns whom an order is about, between its verb and a step word that ends the clause
    #: ("call me first", "ping us first"): the step orders the verb's act
    step_pronouns: List[str] = []
    #: words of finding ("confirmed", "found"): up to three words before such a phrase, it reports
    #: a state found, not one to come ("confirmed to be airworthy")
    finding_words: List[str] = []
    #: days gone by ("yesterday", "last night", "ayer"): in a clearance's clause, it says how
    #: things stood then (``core.time_conditions``); a word "#" stands for a count ("vor # Jahren")
    past_time_words: List[str] = []
    #: words after which a day gone by is where a state began, not when it held ("since yesterday")
    since_words: List[str] = []
    #: endings of a participle ("ed", es "ado", fr "é"), compared with their accents: a clearance
    #: with a word so ending reports an act that stands ("was cleared to close", "CRS signed"), and
    #: a word that states a past before it is no finding
    participle_endings: List[str] = []
    #: endings of a form in progress ("ing", es "ando", "iendo"): an inflection of a phrase's word
    #: so ending says the act is under way ("funds clearing"), and rule 4 does not explain it
    progressive_endings: List[str] = []
    #: an earlier occasion ("last time", "la vez pasada"): in a clearance's clause, how things stood
    #: then, even where the clearance reports an act ("Released to service last time")
    past_occasions: List[str] = []
    #: endings by which a word agrees in number or gender ("s": batches; es "a", "os": liberada,
    #: liberados): the only forms of a clearance's words that still state it (``core.own_forms``);
    #: none: a clearance must be written as listed
    agreement_endings: List[str] = []
    #: number words ("zwanzig") beyond what ``like_num`` of the pack's spaCy language reads
    #: (spaCy gives en, es and fr one, not de): a value written in words, which no
    #: contract can check (``number_word``)
    number_words: List[str] = []
    #: words typo repair never rewrites (unit words, cue-like words)
    protected_words: List[str]
    #: the language's words for units, by Pint unit name ("hour": ["hour", "hours"]);
    #: symbols such as "h" or "°C" are language-neutral (``data/units.yaml``)
    unit_words: Dict[str, List[str]]
    #: words that name a unit of a kind without saying which ("degrees"), with the candidates
    unit_ambiguous: Dict[str, List[str]]
    #: words joining the two numbers of a range ("2 to 8 °C")
    range_words: List[str]
    #: the ``spec`` cue profile (``cues.json``): what the decision reads
    cues: CueSet
    #: the ``clinical`` cue profile (``cues_clinical.json``)
    clinical_cues: CueSet

    _check_words = field_validator("clause_break_words", "list_conjunctions", "never_neutral", "never_neutral_added",
                                   "never_neutral_cased", "ordinal_suffixes", "capital_ordinal_suffixes", "ordinal_articles",
                                   "ordinal_times", "spelled_ordinals", "approximation_words", "bound_words",
                                   "condition_prepositions", "condition_events", "condition_articles",
                                   "non_final_abbreviations", "quantity_conjunctions",
                                   "protected_words", "accent_sensitive", "range_words",
                                   "agreement_endings", "number_words", "question_openers",
                                   "question_subjects", "question_copulas", "question_preamble",
                                   "question_addressees", "question_wishes", "question_tags",
                                   "question_ends", "reporting_words", "reporting_prepositions",
                                   "unnamed_speakers", "subject_speakers", "possessive_speakers", "beneficiary_prepositions", "speaker_clitics",
                                   "clitic_leads",
                                   "closing_speakers", "closing_pronouns", "opening_speakers",
                                   "report_pointers", "provenance_keys", "signature_trailers",
                                   "inverted_speakers",
                                   "subjectless_saying", "report_conjunctions", "object_pronouns",
                                   "speaker_channels",
                                   "sign_offs", "sign_off_thanks", "signed_articles",
                                   "attribution_prepositions",
                                   "check_verbs", "check_verbs_present", "later_words", "clock_prepositions",
                                   "check_prepositions",
                                   "check_done_words", "request_words",
                                   "check_adverbs", "to_do_markers", "to_do_auxiliaries", "check_participles",
                                   "progress_auxiliaries",
                                   "clearance_verbs",
                                   "time_prepositions", "time_words", "past_state_words", "to_come_words",
                                   "finding_words", "part_words", "part_prepositions", "purpose_prepositions", "kept_prefixes", "clause_final_pseudos", "step_words", "numbered_steps", "step_pronouns",
                                   "participle_endings", "progressive_endings", "past_occasions", "past_time_words",
                                   "since_words")(_words)

    @field_validator("neutral_after")
    @classmethod
    def _check_neutral_after(cls, value: Dict[str, List[str]]) -> Dict[str, List[str]]:
        for word, before in value.items():
            _words([word])
            if not before:
                raise ValueError(f"{word!r} has no words it may follow")
            _words(before)
        return value

    @field_validator("unit_words", "unit_ambiguous")
    @classmethod
    def _check_unit_words(cls, value: Dict[str, List[str]]) -> Dict[str, List[str]]:
        for unit, words in value.items():
            if not words:
                raise ValueError(f"{unit!r} has no words")
            _words(words)
        return value

    @model_validator(mode="after")
    def _check_copulas(self) -> "LanguagePack":
        # a copula asks only as an opener: one that is none would silently ask nothing
        stray = sorted(set(self.question_copulas) - set(self.question_openers))
        if stray:
            raise ValueError(f"question_copulas {stray} are not question_openers")
        return self


def load_pack(folder: Union[str, Path]) -> LanguagePack:
    """Read and validate the pack in a folder.

    folder (str | Path): A folder holding ``pack.yaml``, ``cues.json`` and ``cues_clinical.json``.
    RETURNS (LanguagePack): The pack.
    """
    folder = Path(str(folder))
    for name in (PACK_FILE, CUES_FILE, CLINICAL_CUES_FILE):
        if not (folder / name).is_file():
            raise LanguagePackError(f"{folder}: language pack has no {name}")
    try:
        data = read_yaml(folder / PACK_FILE)
        payloads = {profile: srsly.read_json(folder / name) for profile, name in PROFILE_FILES.items()}
    except ValueError as exc:
        raise LanguagePackError(f"{folder}: cannot read the pack ({exc})") from None
    if not isinstance(data, dict):
        raise LanguagePackError(f"{folder / PACK_FILE}: must be a mapping")
    code = data.get("code")
    try:
        cue_sets = {profile: CueSet.from_payload(payload, str(folder / PROFILE_FILES[profile]), lang=code,
                                                 profile=profile)
                    for profile, payload in payloads.items()}
        cue_sets[SPEC_PROFILE] = with_symbol_cues(cue_sets[SPEC_PROFILE])
    except CueError as exc:
        raise LanguagePackError(str(exc)) from None
    try:
        return LanguagePack(**data, cues=cue_sets[SPEC_PROFILE], clinical_cues=cue_sets[CLINICAL_PROFILE])
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise LanguagePackError(f"{folder / PACK_FILE}: {problems}") from None


_registered: Dict[str, Path] = {}
_generation = [0]
#: what a decision records for a pack that is the package's own (``language_packs``)
BUNDLED_IDENTITY = "bundled"


def register_pack(folder: Union[str, Path], *, replace: bool = False) -> LanguagePack:
    """Add a language pack from a folder of your own; it replaces one you registered with the same code.

    A pack whose code is a bundled language's (en, es, fr, de) is refused unless ``replace``
    says so: a folder must not quietly swap the cues a decision reads. Every decision records
    the packs it was read with (``language_packs``), a replaced bundled one by its files' hash.

    folder (str | Path): The pack folder.
    replace (bool): Replace the bundled pack of the same code, on purpose. Defaults to False.
    RETURNS (LanguagePack): The validated pack.
    RAISES (LanguagePackError): A pack that does not load, or one of a bundled language without ``replace``.
    """
    pack = load_pack(folder)
    if pack.code in BUNDLED and not replace:
        raise LanguagePackError(f"{folder}: language pack {pack.code!r} would replace the bundled {pack.code!r} "
                                f"pack; pass register_pack(folder, replace=True) to replace it on purpose "
                                f"(every decision then records it under \"language_packs\")")
    _registered[pack.code] = Path(str(folder))
    _changed()
    return pack


def unregister_pack(code: str) -> None:
    """Forget a pack added with ``register_pack`` (a bundled pack it replaced is back)."""
    _registered.pop(code, None)
    _changed()


def _changed() -> None:
    _registry.cache_clear()
    _generation[0] += 1


def generation() -> int:
    """A number that changes whenever the set of packs does: tables built from the packs
    (the unit table) cache by it, so a registered language is seen without a restart."""
    return _generation[0]


def _bundled_folders() -> Dict[str, Path]:
    root = Path(str(resources.files(__name__)))
    return {code: root / code for code in BUNDLED}


def _entry_point_folders() -> Dict[str, Path]:
    """The folders of the ``semgap_languages`` entry points, by the entry point's name.

    An installed package may add a language but never replace a bundled one: an entry point
    named after a bundled language is refused, so nothing is decided (fail closed) until it is
    uninstalled or the pack is registered on purpose (``register_pack(folder, replace=True)``).
    """
    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in BUNDLED:
            raise LanguagePackError(
                f"entry point {ep.name!r} ({ep.value}) of group {ENTRY_POINT_GROUP!r} provides a pack for "
                f"{ep.name!r}, a bundled language: an installed package may not replace a bundled pack; "
                f"uninstall it, or call register_pack(folder, replace=True) to replace the pack on purpose")
        found[ep.name] = Path(str(ep.load()()))
    return found


def pack_digest(folder: Union[str, Path]) -> str:
    """The identity a decision records for a pack that is not bundled: ``"sha256:"`` and the first
    16 hex digits of a SHA-256 over the pack's three files (``pack.yaml``, ``cues.json``,
    ``cues_clinical.json``, in that order), each as its name, its length in bytes and its bytes."""
    digest = hashlib.sha256()
    for name in (PACK_FILE, CUES_FILE, CLINICAL_CUES_FILE):
        data = (Path(str(folder)) / name).read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode("ascii"))
        digest.update(data)
    return "sha256:" + digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def _registry() -> Tuple[Tuple[Tuple[str, LanguagePack], ...], Tuple[Tuple[str, str], ...]]:
    """(every pack by code, in registry order; each pack's identity, by code in sorted order) for
    the current set of packs: built once per ``generation`` (cleared whenever it changes)."""
    bundled = _bundled_folders()
    folders = {**bundled, **_entry_point_folders(), **_registered}
    loaded = []
    for code, folder in folders.items():
        pack = load_pack(folder)
        if pack.code != code:  # an entry point's name and its pack's own code must agree
            raise LanguagePackError(f"{folder}: the pack's code is {pack.code!r}, but it is provided as {code!r}")
        loaded.append((code, pack))
    identities = tuple((code, BUNDLED_IDENTITY if folder == bundled.get(code) else pack_digest(folder))
                       for code, folder in sorted(folders.items()))
    return tuple(loaded), identities


def _all_packs() -> Tuple[Tuple[str, LanguagePack], ...]:
    return _registry()[0]


def pack_identities() -> Tuple[Tuple[str, str], ...]:
    """The language packs a decision is read with, as (code, identity) pairs in code order:
    ``"bundled"`` for the package's own pack of a language, ``"sha256:<16 hex>"``
    (``pack_digest``) for any other (registered, or from an entry point).

    These are every pack registered now, not only those a component's ``languages`` lists:
    the clause-break, never-neutral, unit and number words of every registered pack are read
    whatever the components list. Plain strings in tuples, so a decision record carries them
    between processes. Computed once per ``generation``, not per doc.
    """
    return _registry()[1]


def cue_set_identity(pack_identity: Optional[str], cues: CueSet) -> str:
    """What a decision records for a language whose negation and hedge cues, as a component read
    them, are neither of its pack's cue sets (``cues.json``, ``cues_clinical.json``): a cue function
    of your own, cue files given at ``initialize``, or cues saved with a pipeline from a pack that is
    not registered where it is loaded. ``"sha256:"`` and the first 16 hex digits of a SHA-256 over the
    pack's own identity (``pack_identities``; ``""`` when no pack of the language is registered), a
    NUL byte and the cue set's ``sha256`` (over its payload as sorted, compact JSON, as the saved
    pipeline's ``cue_info.json`` lists it), so the entry says the pack and the cues together and is
    never ``"bundled"`` nor the pack's own digest.

    pack_identity (Optional[str]): The identity of the language's registered pack; None for none.
    cues (CueSet): The cue set the component reads for the language.
    RETURNS (str): ``"sha256:<16 hex>"``.
    """
    digest = hashlib.sha256(f"{pack_identity or ''}\0{cues.sha256}".encode("utf8"))
    return "sha256:" + digest.hexdigest()[:16]


def identities_read_with(cue_sets: Dict[str, CueSet]) -> Tuple[Tuple[str, str], ...]:
    """``pack_identities`` as a decision read with these negation and hedge cues records them: a
    language whose cue set is, by value, one of its registered pack's (either profile: both are the
    pack's own data) keeps its pack's identity; any other, and a language of ``cue_sets`` with no
    registered pack, is named by ``cue_set_identity``. Code order, plain strings (as
    ``pack_identities``, which it returns itself when no entry changes). Worked out when a
    component's cues are set or the packs change (``generation``), not per doc.

    cue_sets (Dict[str, CueSet]): The cue set a component reads, by language code.
    RETURNS (Tuple[Tuple[str, str], ...]): (code, identity) pairs in code order.
    """
    identities = pack_identities()
    registered = dict(_all_packs())
    read = dict(identities)
    for code, cues in cue_sets.items():
        pack = registered.get(code)
        if pack is not None and (cues == pack.cues or cues == pack.clinical_cues):  # dataclass equality: by value
            continue
        read[code] = cue_set_identity(read.get(code), cues)
    return identities if read == dict(identities) else tuple(sorted(read.items()))


def recorded_packs() -> Optional[Dict[str, str]]:
    """``pack_identities`` as a decision's ``"language_packs"`` holds them, for a decision made
    without the pipes (a failed pipeline, a worker that died); None when the packs cannot be
    read now. Such a decision escalates whatever they hold."""
    try:
        return dict(pack_identities())
    except Exception:
        return None


def packs() -> Dict[str, LanguagePack]:
    """Every available pack by code: the bundled four, entry points, then registered folders."""
    return dict(_all_packs())


def languages() -> Tuple[str, ...]:
    """The codes of every available pack."""
    return tuple(code for code, _ in _all_packs())


def get_pack(code: str) -> LanguagePack:
    """The pack of a language.

    code (str): A language code.
    RETURNS (LanguagePack): Its pack; a clear error when there is none.
    """
    found = packs()
    if code not in found:
        raise LanguagePackError(f"no language pack for {code!r} (available: {', '.join(found)})")
    return found[code]


def union(field: str) -> Tuple[str, ...]:
    """One list field over every pack, in pack order, without repeats ("but", "pero", ...)."""
    out: Dict[str, None] = {}
    for pack in packs().values():
        for word in getattr(pack, field):
            out.setdefault(word, None)
    return tuple(out)


def never_neutral_words() -> Tuple[str, ...]:
    """Every pack's never-neutral words: the spec's lists (``never_neutral``) and the words each
    pack adds (``never_neutral_added``), as written.

    The spec's lists name a negation, exception, condition, modal, comparison or
    limit in each language, but not every stop word that states one: English has
    "only" and "few", French not "seulement" and "peu"; German "außer", Spanish not
    "excepto". Rule 3 would explain those ("Lot libéré, seulement." would proceed),
    so each pack adds its stop words of the meanings the lists have in any
    language, and of the problem states a clearance must not outweigh
    ("ouvert", "offen", "reste": still open; "tarde": late). Adding one only
    narrows what may proceed.
    """
    spec = union("never_neutral")
    return spec + tuple(w for w in union("never_neutral_added") if w not in spec)


def cased_never_neutral() -> FrozenSet[str]:
    """Every pack's ``never_neutral_cased``: words never neutral when written exactly so, as written."""
    return frozenset(union("never_neutral_cased"))


def ordinal_suffixes() -> FrozenSet[str]:
    """Every pack's ``ordinal_suffixes`` and ``capital_ordinal_suffixes``, as written."""
    return frozenset(union("ordinal_suffixes")) | frozenset(union("capital_ordinal_suffixes"))


def accented_never_neutral() -> FrozenSet[str]:
    """The never-neutral words that a pack also lists as ``accent_sensitive``, as written
    (``textnorm.exact``): an accent tells them from a stop word (fr "dès", as soon as or from
    a time on, is not "des"), so they are compared with their accents, and their folded form
    stays whatever it is by itself."""
    sensitive = {exact(w) for w in union("accent_sensitive")}
    return frozenset(exact(w) for w in never_neutral_words() if exact(w) in sensitive)


def neutral_after() -> Dict[str, FrozenSet[str]]:
    """Every pack's ``neutral_after``, folded: a never-neutral word -> the words after which
    rule 3 still explains it."""
    out: Dict[str, Set[str]] = {}
    for pack in packs().values():
        for word, before in pack.neutral_after.items():
            out.setdefault(fold(word), set()).update(fold(w) for w in before)
    return {word: frozenset(before) for word, before in out.items()}


def agreement_endings() -> Dict[str, Tuple[str, ...]]:
    """Each pack's ``agreement_endings``, folded, by language code."""
    return {code: tuple(fold(e) for e in pack.agreement_endings) for code, pack in packs().items()}


@lru_cache(maxsize=2)
def _number_readers(pack_set: int) -> Tuple[Tuple[Callable[[str], bool], ...], FrozenSet[str]]:
    """(spaCy's ``like_num`` of each pack's language that has one, the packs' ``number_words``
    folded) for one set of packs (``generation``)."""
    readers: Dict[str, Callable[[str], bool]] = {}
    words = set()
    for pack in packs().values():
        getter = spacy_like_num(pack.spacy_lang)
        if getter is None and not has_language_module(pack.spacy_lang, "lex_attrs"):
            # a language spaCy does not ship (an entry point): its class says
            getter = get_lang_class(pack.spacy_lang).Defaults.lex_attr_getters.get(LIKE_NUM)
        if getter is not None:
            readers.setdefault(pack.spacy_lang, getter)
        words.update(fold(w) for w in pack.number_words)
    return tuple(readers.values()), frozenset(words)


def number_word(word: str) -> bool:
    """Whether a word is a number written in words in a pack language ("forty", "vingt",
    "zwanzig"): spaCy's ``like_num`` of the language, or the pack's ``number_words``.

    word (str): One word, as written.
    RETURNS (bool): True for a number word (digits are left to the quantity reader).
    """
    readers, words = _number_readers(generation())
    if fold(word) in words:
        return True
    return not any(ch.isdigit() for ch in word) and any(read(word) for read in readers)


def break_cue_phrases() -> Tuple[str, ...]:
    """The clause-break cues of two words or more of every pack's spec cue set ("mientras que",
    "alors que", "apart from"), each as written. Their words are mostly stop words one by one,
    so, like ``break_cue_words``, they explain themselves only where the clause they open
    holds a term (``core.coverage``)."""
    out: Dict[str, None] = {}
    for pack in packs().values():
        for record in pack.cues.records:
            if record.category == "break" and len(record.cue.split()) > 1:
                out.setdefault(record.cue, None)
    return tuple(out)


def break_cue_words() -> Tuple[str, ...]:
    """The one-word clause-break cues of every pack's spec cue set ("but", "however", "salvo", "sauf").

    Such a word opposes, concedes or excepts: "Clear to close, but the wire",
    "Lote liberado salvo el envío". Most of them are spaCy stop words, and rule 3
    of spec §4.1 would explain them, so that a clearance followed by one and a few
    neutral words would proceed; instead they are never neutral, like the
    spec's own list (``never_neutral``), and the clause escalates.
    """
    out: Dict[str, None] = {}
    for pack in packs().values():
        for record in pack.cues.records:
            if record.category == "break" and len(record.cue.split()) == 1:
                out.setdefault(record.cue, None)
    return tuple(out)


__all__ = ["LanguagePack", "LanguagePackError", "load_pack", "register_pack", "unregister_pack", "generation", "packs",
           "pack_identities", "pack_digest", "recorded_packs", "BUNDLED_IDENTITY", "cue_set_identity",
           "identities_read_with",
           "languages", "get_pack", "union", "break_cue_words", "break_cue_phrases", "agreement_endings",
           "number_word", "never_neutral_words", "accented_never_neutral", "neutral_after", "CueSet",
           "CueError"]
