"""A clearance in the words of a party who does not give it: hearsay.

"Borrower says we are clear to close", "Driver says negative crossmatch",
"Customer says lot released": spec §4.1 explains every word ("borrower",
"driver", "customer" and "says" are neutral), yet the one who says it cannot
clear the action, and a person would ask the one who can. Each domain's
glossary lists its parties without that authority (``vocabulary.no_authority``,
governed: taking a party off the list is a weakening); each language pack lists
its words of saying (``reporting_words``: "says", "told", "confirms", "dicen";
and ``reporting_prepositions``, which name their party after them: "by",
"per", "according", "selon", "laut"). A sentence in which a word of saying
stands within ``REACH`` words of such a party, and that holds a term,
escalates as ``hearsay``, quoting both; so does a sentence that opens
with the party as a speaker's label ("Courier: negative crossmatch", "Borrower
email: clear to close", "Courier - negative crossmatch", "Pilot → airworthy"). A party that says something else in words of its own
("xm neg, driver reported ETA 14:20") reports no clearance. "The lab says negative crossmatch" and
"Underwriting says clear to close" name parties with that authority and are
left alone, as is a party that says nothing ("Courier booked, xm neg"),
says something in a sentence of its own ("Courier said ETA 14:00. Negative
crossmatch.") or is a word of a known name ("Iron Gate Parts says
airworthy": a company, not the gate).
"""
from bisect import bisect_left
from functools import lru_cache
from typing import Callable, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from .number_shapes import is_time_or_date
from .questions import ends_statement, opens_sentence, previous_word, statement_of

HEARSAY = "hearsay"

#: how many words may stand between a party and its word of saying ("the borrower just told me")
REACH = 3


class SpeakerWords(NamedTuple):
    """The packs' words that name who said a thing, and how, for ``hearsay_spans``, folded; each
    empty by default (no rule of its kind)."""

    #: The words of saying among ``saying`` that name their party after them ("by", "per", "según"): within their own
    #: clause ("lot released by QA, customer notified" cites QA), or right before them as the speaker ("Borrower, by
    #: phone: …"), never across another word ("borrower notified by phone" cites nobody).
    prepositions: FrozenSet[str] = frozenset()
    #: Words that may stand beside the party in a speaker's label, the way it spoke and the words that join them
    #: ("Borrower email: clear to close", "Crew report: airworthy", "Email from borrower: …", "Borrower via email: …").
    #: A label is a party and such words only: before a colon that opens the sentence, or after a dash that follows a
    #: sentence's end and ends the text, a signature ("Clear to close. — Borrower"). "Customer order 4471: lot
    #: released", "Gate 12B: airworthy", "Update on the borrower: …" and "package sent - borrower" name other things
    #: than a speaker; a party in brackets says whom a clearance is for as often as who gave it ("Negative crossmatch
    #: (recipient)"), and is left alone.
    channels: FrozenSet[str] = frozenset()
    #: Words that name the party a clearance came from when they open a clause of their own right after the clearance's
    #: and the party ends it: "Airworthy, from the captain", "Clear to close - via the borrower"; not "Lot released
    #: from the warehouse", "Clear to close via escrow", "kidney from donor 4471".
    attributions: FrozenSet[str] = frozenset()
    #: Words that close a message before its signature, as a dash does, first in their sentence or after two words of
    #: the sign-off: "Clear to close. Regards, the borrower", "… Viele Grüße, der Borrower"; not "Clear to close.
    #: Thanks, borrower", which may thank them.
    sign_offs: FrozenSet[str] = frozenset()
    #: The channels that say how or when a party spoke, not the words that join them ("email", "report", "today"; not
    #: "the", "and": the channels that are no stop word, so es "hoy" and de "heute", which are, do not count). A party
    #: alone in brackets, or after a dash right after a term, says whom a clearance is for as often as who gave it
    #: ("Negative crossmatch (recipient)", "Negative crossmatch - recipient"); with how or when it spoke, or a clock
    #: time, it signs the clearance ("Airworthy (pilot, 14:05)", "Clear to close [borrower email]", "Airworthy - crew
    #: today").
    manners: FrozenSet[str] = frozenset()
    #: A pronoun, perhaps an auxiliary, and a word of saying that name a speaker without authority where they open
    #: their clause ("Listo para el cierre, me dijeron", "me han dicho", "Se dice que …", fr "on dit"); after another
    #: word the pronoun is an object ("el laboratorio me confirma"), and with other verbs no speaker (fr "on confirme":
    #: "we confirm").
    clitics: FrozenSet[Tuple[str, ...]] = frozenset()
    #: Words of saying whose ending names unnamed speakers (es "dijeron"): opening a clause, with a word of
    #: ``conjunctions`` or a mark after them, they are the party and the word of saying at once ("Dijeron que el avión
    #: es aeronavegable").
    subjectless: FrozenSet[str] = frozenset()
    #: The words that join a word of saying to what was said (es "que").
    conjunctions: FrozenSet[str] = frozenset()
    #: Pronouns that stand before a verb as its object, never as its subject (es "lo", fr "le"): a verb after one may
    #: name its party after it ("Listo para el cierre, lo confirma el borrower").
    objects: FrozenSet[str] = frozenset()
    #: Words that may stand before a clitic or a subjectless word of saying that opens its clause ("eso me dijeron",
    #: "ya me dijeron", "eso dijo").
    leads: FrozenSet[str] = frozenset()
    #: Pronouns that name a speaker where they end their clause right after a word of saying that opens it or follows a
    #: term (de "…, sagt der", "Lufttüchtig sagt der", "laut ihm", es "dice el"); elsewhere they are articles, objects
    #: or datives ("sagt der Pilot", "bestätigt ihr der Underwriter", "Labor bestätigt die").
    closing: FrozenSet[str] = frozenset()
    #: Those of ``closing`` that are no article: after a reporting preposition they name a speaker whatever follows
    #: ("Laut ihm ist das Flugzeug lufttüchtig").
    pronouns: FrozenSet[str] = frozenset()
    #: Pronouns that name a speaker where they open their clause right before a word of saying (de "Der sagt …", es "El
    #: dijo que …"; not fr "On confirme", "we").
    opening: FrozenSet[str] = frozenset()
    #: Pronouns that name a speaker glued by a hyphen after a word of saying (fr "dit-on" where the tokenizer cuts "-"
    #: from "on"); spaced, the hyphen is a dash.
    inverted: FrozenSet[str] = frozenset()
    #: Thanks that may close a message ("thank you", "vielen dank"): opening a line or a sentence, then marks and a
    #: party with its article (or on a line of its own) that ends the text, they sign it ("Clear to close. Thank you,
    #: the borrower", "Thanks,\nBorrower"); without either they may thank the party ("Thanks, borrower").
    thanks: FrozenSet[Tuple[str, ...]] = frozenset()
    #: The articles a signed party carries after thanks ("the", "your", "der").
    articles: FrozenSet[str] = frozenset()
    #: Speakers that are one only as the subject right before a word of saying ("Airworthy, you said", "folks said"),
    #: or after a reporting preposition ("according to you"); elsewhere the one spoken to ("Clear to close confirmed,
    #: thank you", "Hi folks, underwriter confirms …", "Folks: …").
    subjects: FrozenSet[str] = frozenset()
    #: Words that point back to what was said ("so", "it", "that", de "das"): a sentence that only says who spoke, with
    #: one, reports the sentence before even where that one names its own source ("Clear to close per underwriter.
    #: Borrower said so").
    pointers: FrozenSet[str] = frozenset()
    #: Words that open a line of an e-mail's header or a form and name who wrote what follows ("from", "sent by",
    #: "reported by", "signed", de "von"): before a colon, with a party ending the line after it, that party wrote the
    #: text ("From: Borrower\nRE: file 4471\n\nClear to close", "Reported by: driver").
    keys: FrozenSet[Tuple[str, ...]] = frozenset()
    #: Words of the lines a signature block may end with ("Sent from my phone", "Tel: 555-201-3344"): lines of these,
    #: numbers and marks only are skipped when a signature must end the text; a party alone on the last line else signs
    #: it ("Clear to close.\nBorrower").
    trailers: FrozenSet[str] = frozenset()
    #: Possessives of a speaker the text does not name ("your", "their", es "tu", "su", fr "votre", de "deine"):
    #: with how it spoke after them, they name that speaker beside a word of saying or after a reporting preposition
    #: ("Your email says clear to close", "Per their message: airworthy", "Según tu correo, …"); not the writer's own
    #: ("my note says …").
    possessives: FrozenSet[str] = frozenset()
    #: Words that name whom a thing is for ("for", "para", "pour", "für"): a party right after one, an article
    #: of ``articles`` between at most, is whom a clearance is for, never the one who says it ("Negative crossmatch
    #: for recipient R-7730 confirmed", "Kreuzprobe negativ für Empfänger R-7730 bestätigt").
    beneficiaries: FrozenSet[str] = frozenset()


def hearsay_spans(words: Callable[[int], str], n: int, candidates: Iterable[int], parties: FrozenSet[str],
                  saying: FrozenSet[str], is_term: Callable[[int], bool],
                  is_name: Callable[[int], bool] = lambda i: False,
                  lists: SpeakerWords = SpeakerWords(),
                  is_stop: Callable[[int], bool] = lambda i: False,
                  glued: Callable[[int], bool] = lambda i: False,
                  line_breaks: Optional[Sequence[int]] = None) -> List[Tuple[int, int]]:
    """(first token, end token) of each party and its word of saying, in text order.

    words (Callable[[int], str]): A token's text, folded (lower case, no accents), by index;
        asked only around the candidates.
    n (int): The number of tokens.
    candidates (Iterable[int]): The tokens that may be a word of saying or a speaker's colon, in order.
    parties (FrozenSet[str]): The domain's parties without authority, folded.
    saying (FrozenSet[str]): The packs' words of saying, folded.
    is_term (Callable[[int], bool]): Whether a token is part of a term: only a sentence with one
        reports a clearance.
    is_name (Callable[[int], bool]): Whether a token is part of a known name, which names no party.
    lists (SpeakerWords): The packs' words of each kind (``SpeakerWords``).
    is_stop (Callable[[int], bool]): Whether a token is a stop word: after a verb of saying it says
        nothing of its own ("they confirmed it", "she said so", "borrower confirmed too").
    glued (Callable[[int], bool]): Whether a token touches the token before it.
    line_breaks (Optional[Sequence[int]]): The tokens that hold a line break, in order, when the
        caller knows them (a text without one has none: its signature rules read no line); None:
        every word is read for one when a rule asks.
    RETURNS (List[Tuple[int, int]]): Token ranges from the first to the last of the two words.
    """
    (prepositions, channels, attributions, sign_offs, manners, clitics, subjectless, conjunctions, objects, leads,
     closing, pronouns, opening, inverted, thanks, articles, subjects, pointers, keys, trailers, possessives,
     beneficiaries) = lists
    out: List[Tuple[int, int]] = []
    if not parties and not clitics and not subjectless:
        return out

    def label_party(first: int, end: int) -> Optional[int]:
        """The party of a label made of tokens first..end-1: a party and how it spoke only."""
        return _label_party(words, first, end, parties, channels, is_name)

    found_breaks: List[List[int]] = []
    first_term: List[int] = []

    def term_before(i: int) -> bool:
        """Whether a token of a term stands before token i: the first is found once, when first
        asked, since the signature rules ask it of many places of a text."""
        if not first_term:
            first_term.append(next((j for j in range(n) if is_term(j)), n))
        return first_term[0] < i

    def breaks() -> List[int]:
        """The tokens with a line break: ``line_breaks``, or every word read once when a rule first asks."""
        if not found_breaks:
            found_breaks.append(list(line_breaks) if line_breaks is not None
                                else [k for k in range(n) if "\n" in words(k)])
        return found_breaks[0]

    thanked, verbs, speakers = _derived(saying, parties, lists)
    for i in candidates:
        word = words(i)
        span = None  # the tokens a label quotes: all of it
        if word in thanked:
            end = _thanks_signature(words, n, i, thanks, articles, term_before, label_party, trailers, breaks())
            if end is not None and (not out or i >= out[-1][1]):
                out.append((i, end))
            continue
        if closes_label(word) and keys and _keyed(words, i, keys, breaks()):
            end = _line_end(words, n, i + 1, breaks())
            party = label_party(i + 1, end) if end > i + 1 and term_before(n) else None
            if party is not None and (not out or i >= out[-1][1]):
                out.append((_line_start(words, i, breaks()), end))  # the writer of the whole text, whichever line
            continue
        if word in LABEL_MARKS and i > 0:
            first = _label_start(words, i, parties, channels)
            party = label_party(first, i) if first < i and opens_sentence(words, first) else None
            if party is not None and _sentence_has_term(words, n, i, is_term):  # the label opens it
                if not out or first >= out[-1][1]:
                    out.append((first, i + 1))
                continue
        if closes_label(word):
            first = _label_start(words, i, parties, channels)
            party = label_party(first, i) if first < i and opens_sentence(words, first) else None
            if party is None and possessives:  # "Their note: airworthy", "His email: batch released"
                owner = _possessed_before(words, i, possessives, manners, channels)
                if owner is not None and opens_sentence(words, owner):
                    party, first = owner, owner
            span = (first, i + 1)
        elif word in SIGNATURE_MARKS or word in sign_offs:
            end = _text_end(words, n, i + 1)
            if end <= i + 1 and trailers:  # "Regards,\nthe crew\nSent from my phone"
                first = i + 1
                while first < n and not any(ch.isalnum() for ch in words(first)):
                    first += 1
                end = _signature_end(words, n, first, trailers, breaks()) if first < n else end
            after_term = word in SIGNATURE_MARKS and i > 0 and is_term(i - 1)
            opens = ends_statement(words(i - 1)) if word in SIGNATURE_MARKS else _sign_off_opens(words, i)
            signs = (i > 0 and (opens or after_term) and end > i + 1 and term_before(i))
            party = label_party(i + 1, end) if signs else None
            if party is not None and after_term and not _says_how(words, i + 1, end, manners):
                party = None
            if party is not None and (not out or i >= out[-1][1]):
                out.append((i, end))  # a signature vouches for the whole text, whichever sentence
            continue
        elif word in OPEN_BRACKETS:
            close = _bracket_end(words, n, i)
            party = (label_party(i + 1, close) if close is not None and i > 0 and is_term(i - 1)
                     and _says_how(words, i + 1, close, manners) else None)
            span = (i, close + 1) if party is not None else None
        elif word in attributions:
            party = _attributed(words, n, i, parties, channels, is_name, is_term)
        elif word in prepositions:
            party = _party_near(words, n, i, speakers, is_name, is_term,
                                preposition=True, for_whom=(beneficiaries, articles))
            if party is None and i + 1 < n and words(i + 1) in closing and (
                    _ends_clause_but(words, n, i + 2, lambda j: False) or words(i + 1) in pronouns):
                party = i + 1  # "Lufttüchtig, laut ihm", "Laut ihm ist das Flugzeug lufttüchtig"
            if party is None and possessives:
                party = _possessed_after(words, n, i, possessives, manners)  # "per your email"
        elif word in saying:
            party = _party_near(words, n, i, parties, is_name, is_term, objects=objects,
                                for_whom=(beneficiaries, articles))
            if party is None and subjects:
                party = _subject_before(words, i, subjects, is_stop, is_term)
                if party is not None and _sourced(words, *statement_of(words, n, i), i, speakers, verbs,
                                                  prepositions, is_stop, is_term):
                    party = None  # "Clear to close per underwriter, as you said": the underwriter reports it
            if party is None and possessives:
                party = _possessed_before(words, i, possessives, manners, channels)  # "your email says"
                if party is None and i >= 2 and words(i - 2) in possessives and _a_role(words, i - 1, is_stop, is_term):
                    party = i - 2  # "their coordinator says": someone of theirs
                if party is not None and _sourced(words, *statement_of(words, n, i), i, speakers, verbs,
                                                  prepositions, is_stop, is_term):
                    party = None
            if party is None:
                party = _clitic_speaker(words, i, clitics, saying, objects, leads)
                if party is not None and _subject_after(words, n, i, is_term, manners, is_stop, conjunctions):
                    party = None  # "Me confirma el laboratorio: …": the verb's subject follows it
            if (closing or opening) and party is None:
                party = _closing_speaker(words, n, i, closing, opening, saying, leads, is_term, is_stop)
            if (party is None and i + 2 < n and words(i + 1) == "-" and words(i + 2) in inverted
                    and glued(i + 1) and glued(i + 2)):
                party = i + 2  # "dit-on"
            if party is None and word in subjectless and _opens_clause(words, i, saying, leads) and (
                    i + 1 >= n or words(i + 1) in conjunctions or not any(ch.isalnum() for ch in words(i + 1))):
                party = i
            if party is not None and party < i and _says_something_else(words, n, i, is_term, manners, is_stop):
                party = None
        else:
            continue
        if party is not None and (_sentence_has_term(words, n, i, is_term) or (
                span is None and _reports_the_last(words, n, i, party, is_term, manners, is_stop, saying, pointers,
                                                   lambda a, b: _sourced(words, a, b, -1, speakers, verbs,
                                                                         prepositions, is_stop, is_term)))):
            first, end = span or (min(i, party), max(i, party) + 1)
            if not out or first >= out[-1][1]:
                out.append((first, end))
    signed = _last_line_signature(words, n, trailers, term_before, label_party, breaks()) if trailers else None
    if signed is not None and (not out or signed[0] >= out[-1][1]):
        out.append(signed)
    return out


@lru_cache(maxsize=8)
def _derived(saying: FrozenSet[str], parties: FrozenSet[str],
             lists: SpeakerWords) -> Tuple[FrozenSet[str], FrozenSet[str], FrozenSet[str]]:
    """The words ``hearsay_spans`` derives from its lists: the first words of the thanks, the
    verbs among the words of saying, and every speaker (the parties and the subjects). Worked
    out once per set of lists, not once per text: a frozenset keeps its hash, so the look-up
    costs no pass over the words."""
    verbs = saying - lists.prepositions - lists.attributions - lists.sign_offs
    return frozenset(phrase[0] for phrase in lists.thanks), verbs, parties | lists.subjects


def _possessed_before(words: Callable[[int], str], i: int, possessives: FrozenSet[str],
                      manners: FrozenSet[str], channels: FrozenSet[str] = frozenset()) -> Optional[int]:
    """The possessive of a speaker's channel right before token i ("your email says", "his email
    this morning says", "Their note:"): up to three words of how and when it spoke (``channels``),
    one at least of them a manner ("email", not only "the"), then the possessive; else None."""
    j, said, manner = i - 1, 0, False
    while j >= 0 and said < 3 and (words(j) in manners or words(j) in channels):
        manner = manner or words(j) in manners
        j, said = j - 1, said + 1
    return j if manner and j >= 0 and words(j) in possessives else None


def _possessed_after(words: Callable[[int], str], n: int, i: int, possessives: FrozenSet[str],
                     manners: FrozenSet[str]) -> Optional[int]:
    """The possessive right after token i when a word of how it spoke follows it ("per your
    email", "según tu correo"); else None. Any other word there may name no one ("per your
    request")."""
    j = i + 1
    return j if j + 1 < n and words(j) in possessives and words(j + 1) in manners else None


def _a_role(words: Callable[[int], str], k: int, is_stop: Callable[[int], bool],
            is_term: Callable[[int], bool]) -> bool:
    """Whether token k is a word that may name someone after a possessive, right before a word of
    saying ("their coordinator says", "your team confirms"): letters, no stop word, no term's word."""
    word = words(k)
    return word.isalpha() and not is_stop(k) and not is_term(k)


#: a dash before a signature that ends the text ("Clear to close. — Borrower")
SIGNATURE_MARKS = frozenset({"-", "–", "—", "--", "~"})
#: marks that may close a speaker's label as a colon does, where the label opens its sentence and a term
#: follows in it ("Courier - negative crossmatch", "Pilot → airworthy")
LABEL_MARKS = frozenset({"-", "–", "—", "--", "→", "⇒", "➔", "➡", "->", "=>", ">"})
#: brackets that may hold a signature right after a term ("Airworthy (pilot, 14:05)")
OPEN_BRACKETS = frozenset({"(", "["})
_CLOSE_BRACKETS = frozenset({")", "]"})
#: marks a label may hold besides its words ("Borrower (email):", "Borrower's email:", "Captain, 14:05:")
_IN_LABEL = frozenset({"(", ")", "'", "’", "'s", "’s", ","})
#: marks after which an attribution opens a clause of its own
_CLAUSE_OPENERS = frozenset({",", "-", "–", "—"})
#: the most tokens a label holds
_LABEL_SIZE = 6


def closes_label(word: str) -> bool:
    """Whether a token is a colon that may close a speaker's label, marks glued before it or not
    ("Borrower (email): …" has "):")."""
    return word.endswith(":") and not any(ch.isalnum() for ch in word)


def _label_start(words: Callable[[int], str], colon: int, parties: FrozenSet[str],
                 channels: FrozenSet[str]) -> int:
    """The first token of the words before a colon that a label may hold (a party, a channel, a
    mark of ``_IN_LABEL``, a clock time: "Borrower email 14:05:"), at most ``_LABEL_SIZE`` of
    them; the colon itself when there are none. Whether it opens its sentence (behind a stamp, a
    bullet, an @mention) is ``opens_sentence``'s."""
    j = colon
    while j > 0 and colon - j < _LABEL_SIZE:
        word = words(j - 1)
        if word not in parties and word not in channels and word not in _IN_LABEL and not is_time_or_date(word):
            break
        j -= 1
    return j


def _bracket_end(words: Callable[[int], str], n: int, i: int) -> Optional[int]:
    """The closing bracket of the one that opens at token i, within a label's size; else None."""
    for j in range(i + 1, min(n, i + _LABEL_SIZE + 2)):
        if words(j) in _CLOSE_BRACKETS:
            return j
    return None


def _says_how(words: Callable[[int], str], first: int, end: int, manners: FrozenSet[str]) -> bool:
    """Whether tokens first..end-1 say how or when a party spoke: a manner or a clock time or date."""
    return any(words(j) in manners or is_time_or_date(words(j)) for j in range(first, end))


def _keyed(words: Callable[[int], str], colon: int, keys: FrozenSet[Tuple[str, ...]],
           breaks: Sequence[int]) -> bool:
    """Whether the words of the line before the colon at ``colon`` are one of ``keys``.

    The words of a key end in its last word, so a line whose word before the colon
    ends no key is no key, and its other words need no reading."""
    start = _line_start(words, colon, breaks)
    last = colon - 1
    while last >= start and not any(ch.isalnum() for ch in words(last)):
        last -= 1
    if last >= start and words(last) not in _last_words(keys):
        return False
    return tuple(words(j) for j in range(start, last + 1) if any(ch.isalnum() for ch in words(j))) in keys


@lru_cache(maxsize=8)
def _last_words(keys: FrozenSet[Tuple[str, ...]]) -> FrozenSet[str]:
    """The last word of each key of ``_keyed``, once per set of keys."""
    return frozenset(key[-1] for key in keys if key)


def _line_start(words: Callable[[int], str], i: int, breaks: Sequence[int]) -> int:
    """The first token of the line of token i, a quoted reply's ">" marks and spaces skipped.

    breaks (Sequence[int]): The tokens that hold a line break, in order (``hearsay_spans``).
    """
    k = bisect_left(breaks, i)
    return _after_quote_marks(words, breaks[k - 1] + 1 if k else 0, i)


def _after_quote_marks(words: Callable[[int], str], j: int, end: int) -> int:
    """Token j, or the first after it and before ``end`` past the spaces and a quoted reply's ">" marks."""
    while j < end and (not words(j).strip() or set(words(j)) <= _QUOTE_MARKS):
        j += 1
    return j


def _line_end(words: Callable[[int], str], n: int, i: int, breaks: Sequence[int]) -> int:
    """The end of the words of the line from token i on: its last word or mark but one that
    ends a sentence, before a line break or the text's end. breaks: as ``_line_start``'s."""
    k = bisect_left(breaks, i)
    end = breaks[k] if k < len(breaks) else n
    while end > i and (not words(end - 1).strip() or ends_statement(words(end - 1))):
        end -= 1
    return end


#: the marks that open a line of a quoted reply ("> Clear to close", ">> From: …")
_QUOTE_MARKS = frozenset(">")


def _is_trailer(words: Callable[[int], str], first: int, end: int, trailers: FrozenSet[str]) -> bool:
    """Whether tokens first..end-1 are a signature block's trailer line: words of ``trailers``,
    numbers and marks only ("Sent from my phone", "Tel: 555-201-3344", "")."""
    return all(not any(ch.isalpha() for ch in words(j)) or words(j) in trailers for j in range(first, end))


def _lines(words: Callable[[int], str], n: int, breaks: Sequence[int]) -> List[Tuple[int, int]]:
    """(first, end) tokens of each line, a quoted reply's ">" marks and spaces at its start skipped.

    breaks (Sequence[int]): The tokens that hold a line break, in order (``hearsay_spans``).
    """
    out, start = [], 0
    for k in (*breaks, n):
        out.append((_after_quote_marks(words, start, k), k))
        start = k + 1
    return out


def _signature_end(words: Callable[[int], str], n: int, i: int, trailers: FrozenSet[str],
                   breaks: Sequence[int]) -> int:
    """The end of the line of token i when every line after it is a trailer line (``_is_trailer``),
    else i: a signature that ends the text but for its block ("Thanks,\nBorrower\nSent from my
    phone"). breaks: as ``_line_start``'s."""
    end = _line_end(words, n, i, breaks)
    after = [(first, last) for first, last in _lines(words, n, breaks) if first >= end]
    return end if all(_is_trailer(words, first, last, trailers) for first, last in after) else i


def _last_line_signature(words: Callable[[int], str], n: int, trailers: FrozenSet[str],
                         term_before: Callable[[int], bool],
                         label_party: Callable[[int, int], Optional[int]],
                         breaks: Sequence[int]) -> Optional[Tuple[int, int]]:
    """(first, end) of the last line but for trailer lines when it is a party alone and a line
    before it holds a term ("Clear to close.\nBorrower", "Airworthy.\n\nthe crew\nSent from my
    phone"), or None. term_before: whether a term's token stands before a token. breaks: as
    ``_line_start``'s."""
    lines = _lines(words, n, breaks)
    if len(lines) < 2:
        return None
    for first, last in reversed(lines):
        if _is_trailer(words, first, last, trailers):
            continue
        end = _line_end(words, n, first, breaks)
        if label_party(first, end) is not None and term_before(first):
            return first, end
        return None
    return None


def _text_end(words: Callable[[int], str], n: int, i: int) -> int:
    """Where the words from token i end, if only marks follow them to the text's end within a
    label's size; else i."""
    end = n
    while end > i and not any(ch.isalnum() for ch in words(end - 1)):
        end -= 1
    return end if end - i <= _LABEL_SIZE else i


def _label_party(words: Callable[[int], str], first: int, end: int, parties: FrozenSet[str],
                 channels: FrozenSet[str], is_name: Callable[[int], bool]) -> Optional[int]:
    """The party of tokens first..end-1 when they are a party and words of how it spoke only."""
    party = None
    for j in range(first, end):
        word = words(j)
        if word in parties and not is_name(j):
            party = j if party is None else party
        elif word not in channels and word not in _IN_LABEL and word.strip() and not is_time_or_date(word):
            return None
    return party


def _attributed(words: Callable[[int], str], n: int, i: int, parties: FrozenSet[str], channels: FrozenSet[str],
                is_name: Callable[[int], bool], is_term: Callable[[int], bool]) -> Optional[int]:
    """The party a word of ``attributions`` at i names, or None: it follows a term, and the party,
    after two words at most, ends its clause but for how and when it spoke (``channels``, a clock
    time or date, "on"). After a comma or a dash the preposition opens a clause of its own, which
    may name the channel first ("Airworthy, from the captain this morning", "Negative crossmatch,
    message from the driver"); right after the term it must be followed by such words ("Negative
    crossmatch from the driver today", "Lot released via the customer email"), since a party that
    ends the clause there may be where a thing went or came through ("Lot released from the
    warehouse", "Clear to close via escrow"); "kidney from donor 4471" follows no term. Other
    words after the party end the attribution ("from the captain email: thanks team" is not one).
    """
    before, marked, spoken = i - 1, False, 0
    while before >= 0 and spoken < 2 and words(before) in channels and any(ch.isalnum() for ch in words(before)):
        before, spoken = before - 1, spoken + 1
    while before >= 0 and not any(ch.isalnum() for ch in words(before)) and not ends_statement(words(before)):
        marked = marked or words(before) in _CLAUSE_OPENERS
        before -= 1
    if before < 0 or not is_term(before) or (spoken and not marked):
        return None
    for j in range(i + 1, min(n, i + 4)):
        word = words(j)
        if not any(ch.isalnum() for ch in word) or is_term(j):
            return None
        if word in parties and not is_name(j):
            tail = _attribution_tail(words, n, j + 1, channels, is_term)
            return j if tail is not None and (marked or tail) else None
    return None


#: words after an attributed party that say when or how it spoke, besides the channels ("on the phone")
_TAIL_WORDS = frozenset({"on"})


def _attribution_tail(words: Callable[[int], str], n: int, k: int, channels: FrozenSet[str],
                      is_term: Callable[[int], bool]) -> Optional[int]:
    """How many words from token k to the clause's end say only when or how a party spoke, or
    None when another word stands there ("from the borrower and the title company")."""
    said = 0
    while k < n:
        word = words(k)
        if ends_statement(word) or word in (",", ")", ";"):
            break
        if any(ch.isalnum() for ch in word):
            if is_term(k) or not (word in channels or word in _TAIL_WORDS or is_time_or_date(word)):
                return None
            said += 1
        k += 1
    return said


def _reports_the_last(words: Callable[[int], str], n: int, i: int, party: int, is_term: Callable[[int], bool],
                      manners: FrozenSet[str], is_stop: Callable[[int], bool], saying: FrozenSet[str],
                      pointers: FrozenSet[str], sourced: Callable[[int, int], bool]) -> bool:
    """Whether the sentence of the word of saying at i says nothing but who spoke, how and when,
    and the sentence before it holds a term: it reports that one ("Clear to close. Borrower said
    so.", "Lufttüchtig.\nSagt der.", "Airworthy. You said so."; not "Clear to close. Borrower
    said ETA 14:00.", nor "- Driver confirmed 14:30", a time confirmed). Where the sentence
    before names its own source with authority ("Airworthy per engineering.\nCrew confirmed",
    "- Lab: negative crossmatch\n- Customer confirmed") the speaker reports it only by a word
    that points back (``pointers``: "Borrower said so", "Crew confirmed it")."""
    first, end = statement_of(words, n, i)
    points_back = False
    for j in range(first, end):
        word = words(j)
        if j == party or not any(ch.isalnum() for ch in word):
            continue
        if word in pointers:
            points_back = True
        elif word not in saying and word not in manners and not is_stop(j):
            return False  # a word, a time or a date of its own: something else was said
    j = first - 1
    while j >= 0 and (ends_statement(words(j)) or not words(j).strip()):
        j -= 1  # the marks, spaces and line breaks that end the sentence before
    if j < 0 or not _sentence_has_term(words, n, j, is_term):
        return False
    return points_back or not sourced(*statement_of(words, n, j))


def _sentence_has_term(words: Callable[[int], str], n: int, i: int, is_term: Callable[[int], bool]) -> bool:
    """Whether the sentence of token i holds a token of a term."""
    first, end = statement_of(words, n, i)
    return any(is_term(j) for j in range(first, end))


def _subject_before(words: Callable[[int], str], i: int, subjects: FrozenSet[str],
                    is_stop: Callable[[int], bool], is_term: Callable[[int], bool]) -> Optional[int]:
    """The speaker of ``subjects`` right before the word of saying at i, two stop words at most
    between ("you said", "you just said", "you've said", "you all said"), or None; not one
    after a word that names whose it is ("QA folks confirmed": QA's people)."""
    j = previous_word(words, i - 1)
    for _ in range(3):
        if j < 0:
            return None
        if words(j) in subjects:
            before = previous_word(words, j - 1)
            named = (before >= 0 and any(ch.isalnum() for ch in words(before)) and not is_stop(before)
                     and not is_term(before))
            return None if named else j
        if not is_stop(j) or not any(ch.isalnum() for ch in words(j)):
            return None
        j = previous_word(words, j - 1)
    return None


def _sourced(words: Callable[[int], str], first: int, end: int, skip: int, parties: FrozenSet[str],
             verbs: FrozenSet[str], prepositions: FrozenSet[str], is_stop: Callable[[int], bool],
             is_term: Callable[[int], bool]) -> bool:
    """Whether tokens first..end-1 (token ``skip`` aside) name a source that no list holds as a
    party without authority: the subject right before a verb of saying ("Lab confirms negative
    crossmatch"), the word after a reporting preposition ("per engineering", "laut Labor") or
    a speaker's label ("Lab: negative crossmatch")."""
    def names(j: int) -> bool:  # a word that may name a party: letters only ("N418QX:" labels an item)
        return (0 <= j and words(j).isalpha() and not is_stop(j) and not is_term(j)
                and words(j) not in parties and words(j) not in verbs and words(j) not in prepositions)

    for k in range(first, end):
        if k == skip:
            continue
        word = words(k)
        if word in verbs and names(previous_word(words, k - 1)):
            return True
        if word in prepositions and k + 1 < end and names(k + 1):
            return True
        if closes_label(word) and names(previous_word(words, k - 1)) and opens_sentence(
                words, previous_word(words, k - 1)):
            return True
    return False


def _closing_speaker(words: Callable[[int], str], n: int, i: int, closing: FrozenSet[str],
                     opening: FrozenSet[str], saying: FrozenSet[str], leads: FrozenSet[str],
                     is_term: Callable[[int], bool], is_stop: Callable[[int], bool]) -> Optional[int]:
    """The pronoun that names the speaker of the word of saying at i, or None: one of ``closing``
    that ends the clause right after the verb, but for stop words, where the verb opens the
    clause or follows a term ("Lufttüchtig, sagt der", "Lufttüchtig sagt der", "sagt der
    heute"), or one of ``opening`` that opens the clause right before the verb ("Der sagt:
    lufttüchtig", "El dijo que …")."""
    before = previous_word(words, i - 1)
    if (i + 1 < n and words(i + 1) in closing and _ends_clause_but(words, n, i + 2, is_stop)
            and (_opens_clause(words, i, saying, leads) or (before >= 0 and is_term(before)))):
        return i + 1
    if before >= 0 and words(before) in opening and _opens_clause(words, before, saying, leads):
        return before
    return None


def _ends_clause_but(words: Callable[[int], str], n: int, i: int, is_stop: Callable[[int], bool]) -> bool:
    """Whether only stop words stand from token i to its clause's end ("sagt der heute", "sagt
    der mir"; not "sagt der Pilot")."""
    while i < n and any(ch.isalnum() for ch in words(i)):
        if not is_stop(i):
            return False
        i += 1
    return True


def _subject_after(words: Callable[[int], str], n: int, i: int, is_term: Callable[[int], bool],
                   manners: FrozenSet[str], is_stop: Callable[[int], bool],
                   conjunctions: FrozenSet[str] = frozenset()) -> bool:
    """Whether a word of its own follows the verb at i before any mark or word of
    ``conjunctions``: its subject, named after it ("Me confirma el laboratorio: …"), not how or
    when it spoke ("me dijeron ayer") nor what was said ("me dijeron que el avión …")."""
    for j in range(i + 1, n):
        word = words(j)
        if not any(ch.isalnum() for ch in word) or is_term(j) or word in conjunctions:
            return False
        if word not in manners and not is_stop(j) and not is_time_or_date(word):
            return True
    return False


def _says_something_else(words: Callable[[int], str], n: int, i: int, is_term: Callable[[int], bool],
                         manners: FrozenSet[str] = frozenset(),
                         is_stop: Callable[[int], bool] = lambda i: False) -> bool:
    """Whether the verb of saying at i has words of its own after it, in its clause, and no term
    among them: "driver reported ETA 14:20", "borrower reports docs signed" report something
    else than the clearance; "Driver says xm neg", "xm neg, the driver says", "Lot released,
    customer confirmed today" and "Airworthy, they confirmed it by phone" report it (how or when
    it spoke, and stop words, are no words of its own). Words after a stop word that follows the
    verb say to whom or with whom it spoke ("borrower confirmed with the wire desk", "driver
    reported it to the hospital"), not what else it said."""
    said = first = False
    for j in range(i + 1, n):
        word = words(j)
        if ends_statement(word) or word == ",":
            break
        if is_term(j):
            return False
        if any(ch.isalnum() for ch in word) and word not in manners and not is_time_or_date(word):
            if is_stop(j) and not first:
                return False  # a preposition or a pointer first: to whom, with whom
            first = True
            said = said or not is_stop(j)
    return said


#: the most words a sign-off holds before its word of ``sign_offs`` ("Mit freundlichen Grüßen")
_SIGN_OFF_LEAD = 2


def _thanks_signature(words: Callable[[int], str], n: int, i: int, thanks: FrozenSet[Tuple[str, ...]],
                      articles: FrozenSet[str], term_before: Callable[[int], bool],
                      label_party: Callable[[int, int], Optional[int]],
                      trailers: FrozenSet[str], breaks: Sequence[int]) -> Optional[int]:
    """Where the signature ends that thanks at token i open (``hearsay_spans``' ``thanks``), or None:
    the thanks open a line or follow a sentence's end, then marks, then a party that ends the text
    with its article, or without one on a line of its own ("Thanks,\nBorrower"). Runs of spaces
    and line breaks between the words are skipped. term_before: whether a term's token stands
    before a token."""
    if not _opens_line_or_sentence(words, i) or not term_before(i):
        return None
    said = [k for k in (_phrase_end(words, n, i, phrase) for phrase in thanks) if k is not None]
    if not said:
        return None
    k, new_line = max(said), False
    while k < n and not any(ch.isalnum() for ch in words(k)):
        new_line = new_line or "\n" in words(k)
        k += 1
    if k >= n or not (words(k) in articles or new_line):
        return None
    end = _text_end(words, n, k + 1)
    if end <= k + 1 and trailers:  # a signature block's lines after the party ("Sent from my phone")
        end = _signature_end(words, n, k, trailers, breaks)
    first = k + 1 if words(k) in articles else k  # the party's own words after its article
    return end if end > first and label_party(first, end) is not None else None


def _opens_line_or_sentence(words: Callable[[int], str], i: int) -> bool:
    """Whether token i follows a line break or a sentence's end, runs of spaces aside."""
    j = i - 1
    while j >= 0 and not words(j).strip():
        if "\n" in words(j):
            return True
        j -= 1
    return j >= 0 and ends_statement(words(j))


def _phrase_end(words: Callable[[int], str], n: int, i: int, phrase: Tuple[str, ...]) -> Optional[int]:
    """The token after ``phrase`` read from token i on, runs of spaces between its words skipped; None
    when the words there are not the phrase."""
    k = i
    for word in phrase:
        while k < n and k > i and not words(k).strip():
            k += 1
        if k >= n or words(k) != word:
            return None
        k += 1
    return k


def _sign_off_opens(words: Callable[[int], str], i: int) -> bool:
    """Whether the sign-off word at i stands in the first words of its sentence, after a
    statement's end: "Regards, …", "Kind regards, …", "Viele Grüße, …", "Bien à vous, …"."""
    j = i - 1
    while j >= 0 and i - j <= _SIGN_OFF_LEAD and not ends_statement(words(j)):
        if not any(ch.isalnum() for ch in words(j)):
            return False
        j -= 1
    return j >= 0 and ends_statement(words(j))


def _clitic_speaker(words: Callable[[int], str], i: int, clitics: FrozenSet[Tuple[str, ...]],
                    saying: FrozenSet[str], objects: FrozenSet[str] = frozenset(),
                    leads: FrozenSet[str] = frozenset()) -> Optional[int]:
    """The pronoun before the word of saying at i when the words from it to i are one of
    ``clitics`` (a pronoun, perhaps an auxiliary, the word of saying: "me dijeron", "me han
    dicho", fr "on a dit") and open their clause (``_opens_clause``), else None. An object
    pronoun may stand after the first word: "me lo dijeron", fr "on nous a dit"."""
    for size in _CLITIC_SIZES:
        first = i - size + 1
        if first < 0:
            break
        words_of = tuple(words(j) for j in range(first, i + 1))
        if words_of in clitics and _opens_clause(words, first, saying, leads):
            return first
        if (first >= 1 and words_of[0] in objects and (words(first - 1),) + words_of[1:] in clitics
                and _opens_clause(words, first - 1, saying, leads)):
            return first - 1
    return None


#: the words a clitic of ``speaker_clitics`` holds: a pronoun, perhaps an object and an auxiliary, a word of saying
_CLITIC_SIZES = (2, 3, 4)


def _opens_clause(words: Callable[[int], str], i: int, saying: FrozenSet[str],
                  leads: FrozenSet[str] = frozenset()) -> bool:
    """Whether token i opens its clause: the text, a mark or a word of saying before it, or
    a word of ``leads`` that does ("eso me dijeron", "ya me dijeron", "así me dijeron")."""
    if i >= 1 and words(i - 1) in leads:
        i -= 1
    return i < 1 or not any(ch.isalnum() for ch in words(i - 1)) or words(i - 1) in saying


def _party_near(words: Callable[[int], str], n: int, i: int, parties: FrozenSet[str],
                is_name: Callable[[int], bool], is_term: Callable[[int], bool], preposition: bool = False,
                objects: FrozenSet[str] = frozenset(),
                for_whom: Tuple[FrozenSet[str], FrozenSet[str]] = (frozenset(), frozenset())):
    """The nearest party within ``REACH`` words of token i in its sentence (before it first), or
    None. After a verb only when no word but a term's stands right before it: a word there is
    its subject ("Lab reports xm neg, courier booked"); "xm neg, says the driver" and "xm neg
    says driver" name the driver after it.
    A preposition's party stands after it, before a comma, or right before it with marks only
    between, as the speaker ("Borrower, by phone").
    for_whom: The words that name whom a thing is for, and the articles that may follow them: a
    party after them is no speaker ("Negative crossmatch for recipient R-7730 confirmed")."""
    if preposition:
        j = i - 1
        while j >= 0 and not any(ch.isalnum() for ch in words(j)) and not ends_statement(words(j)):
            j -= 1
        if j >= 0 and words(j) in parties and not is_name(j):
            return j
    before = previous_word(words, i - 1)
    subject = (before >= 0 and any(ch.isalnum() for ch in words(before)) and not is_term(before)
               and words(before) not in objects)
    for step in ((1,) if preposition else (-1,) if subject else (-1, 1)):
        j, seen = i + step, 0
        while 0 <= j < n and seen <= REACH:
            word = words(j)
            if ends_statement(word) or (preposition and word == ","):
                break
            if word in parties and not is_name(j) and not _for_whom(words, j, *for_whom):
                return j
            if word.strip():
                seen += 1
            j += step
    return None


def _for_whom(words: Callable[[int], str], j: int, beneficiaries: FrozenSet[str], articles: FrozenSet[str]) -> bool:
    """Whether the party at token j is whom a thing is for: a word of ``beneficiaries`` stands right
    before it, or before an article of ``articles`` that does ("for the recipient", "für Empfänger")."""
    if not beneficiaries:
        return False
    k = previous_word(words, j - 1)
    if k >= 0 and words(k) in articles:
        k = previous_word(words, k - 1)
    return k >= 0 and words(k) in beneficiaries
