"""Rule 5 of spec §4.1: a token explained by its shape, and the symbols that never are.

A digit, an e-mail address, a URL, an @mention or #tag, an initial, or only
punctuation and symbols explain themselves: they name or lay out, they do not
state. Some shapes look like that and still say something: a face or symbol
that says something went wrong ("😡", ":("), a number the readers cannot read
as written ("1O", ".48", "9½"), letters in a frame that spell a word ("ⓃⓄⓉ").
Those are told apart here, on the token's text alone, so ``core.coverage``
can keep the answer per distinct word.
"""
import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import FrozenSet, Tuple

from ..util.caches import cached
from .number_shapes import is_impossible_time_or_date

EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
URL = re.compile(r"^(https?://|www\.)\S+$", re.IGNORECASE)
HANDLE = re.compile(r"^[@#]\w+([.-]\w+)*$")  # "@jen.k", "#qa-hold"
_INITIAL = re.compile(r"^[^\W\d_]\.?$")
#: a number the quantity reader leaves unread: a decimal with no digit before its mark (".48",
#: ",5 °C"), thousands grouped by an apostrophe ("1'500"), a vulgar fraction ("9½", "91⁄2")
_UNREAD_NUMBER = re.compile(r"^[.,][0-9]|[0-9]['’ʼ⁄∕][0-9]|[¼½¾⅐-⅞]")
#: the marks at either end of a token ("4O%", "$1O0", "(1O)")
_EDGE_MARKS = re.compile(r"^[^\w]+|[^\w]+$")
#: digits with a letter that looks like one: "1O", "4О" (Cyrillic), "l2", "I2", "1l0"; not "10l", "2o"
_LOOK_ALIKE_DIGITS = re.compile(r"(?=.*[0-9])(?=.*[OОоlI])(?:[lI](?=[0-9OОо])|[0-9OОо]|(?<=[0-9OОо])[lI](?=[0-9OОо]))+")


def is_neutral_shape(text: str) -> bool:
    """Rule 5: a digit anywhere, an e-mail, URL, @mention or #tag, only symbols/punctuation, or an initial.

    Not a number the readers cannot read as written: digits of another script than the Latin
    ("١٢", "१२": the quantity, number and identifier readers read 0-9; full-width digits read as
    0-9), a decimal with no digit before its mark (".48", ",5"), thousands grouped by an
    apostrophe ("1'500"), a vulgar fraction ("9½"), or digits mixed with letters that look like
    them ("1O", "4О", "l2", a sign or unit mark beside them aside: "4O%", "$1O0")."""
    if not text or text.isspace():
        return True
    if _UNREAD_NUMBER.search(text) or _LOOK_ALIKE_DIGITS.fullmatch(_EDGE_MARKS.sub("", text)):
        return False
    for ch in text:
        if ch.isdigit():
            return ch.isascii() or unicodedata.normalize("NFKC", ch).isascii()
    if _INITIAL.match(text) and text[0].isupper():
        return True
    if HANDLE.match(text) or EMAIL.match(text) or URL.match(text):
        return True
    return all((unicodedata.category(ch)[0] in "PSZ" and not _letter_symbol(ch))
               or unicodedata.category(ch) in ("Cf", "Mn") for ch in text)


@lru_cache(maxsize=4096)
def _letter_symbol(ch: str) -> bool:
    """A symbol that is a letter in a frame ("Ⓝ", "⒩", "🄽", "🅽", a regional indicator): read
    one after another they spell words ("ⓃⓄⓉ" is "NOT"), so they are no neutral symbols."""
    return "LETTER" in unicodedata.name(ch, "")


@lru_cache(maxsize=1)
def _trouble_data() -> Tuple[FrozenSet[str], FrozenSet[str], FrozenSet[str]]:
    """The trouble symbols, the glad faces and the approximation marks of
    ``data/trouble_symbols.json``: governed data, read once per process, and refused whole
    when an entry has no symbol (an empty one would match every token)."""
    raw = json.loads(resources.files("semgap_spacy.data").joinpath("trouble_symbols.json").read_text("utf-8"))
    data = raw["semgap_trouble_symbols"]
    symbols = [entry.get("symbol") for entry in data["symbols"]]
    glad = [entry.get("symbol") for entry in data.get("glad_faces", ())]
    about = list(data["approximation_marks"]["marks"])
    if not all(isinstance(s, str) and s.strip() for s in symbols + glad + about):
        raise ValueError("trouble_symbols.json: every entry needs a symbol")
    return frozenset(symbols), frozenset(glad), frozenset(about)


def approximation_marks() -> FrozenSet[str]:
    """The marks of ``data/trouble_symbols.json``'s ``approximation_marks`` ("~", "≈", "±"): with
    no value after them in their clause, rule 5 does not explain them (``core.approximations``)."""
    return _trouble_data()[2]


def trouble_symbols() -> FrozenSet[str]:
    """The symbols and emoticons of ``data/trouble_symbols.json``: they say something went
    wrong without saying what ("😡", "🤦", "☠", ":("), so rule 5 does not explain them."""
    return _trouble_data()[0]


@lru_cache(maxsize=4096)
def _doubtful_face(ch: str) -> bool:
    """Whether an emoji is a face (its Unicode name says so; clock faces are clocks) that
    the data does not list as glad: a face comments on the statement, and only a glad one
    says it stands, so the melting or upside-down face, and faces Unicode adds later, are
    read as trouble without a list that names each."""
    point = ord(ch)
    if not (0x2600 <= point <= 0x27BF or point >= 0x1F000):  # emoji live in these blocks
        return False
    name = unicodedata.name(ch, "")
    return ("FACE" in name.split() and not name.startswith("CLOCK FACE")
            and ch not in _trouble_data()[1])


@lru_cache(maxsize=1)
def _emoticons() -> Tuple[str, ...]:
    """The trouble symbols written with more than one character (":(", ">_>")."""
    return tuple(sorted(s for s in trouble_symbols() if len(s) > 1))


def _trouble_run(run: str) -> bool:
    """Whether a run of tokens with no space between them, all punctuation or symbols, holds an
    emoticon of the trouble symbols: the tokenizer keeps a few emoticons whole (":(", "-_-") and
    cuts the others (">_>"), so they are looked for in the run."""
    return not any(ch.isalnum() for ch in run) and any(e in run for e in _emoticons())


@cached(65536)
def unreadable_run(run: str) -> bool:
    """Whether shape tokens glued together (``CoverageRules.unglue_shapes``) hold, read whole, what
    rule 5 does not explain: an emoticon of the trouble symbols the tokenizer cut into punctuation
    (">_>") or a time or day no clock or calendar has ("30.02."). It depends on the run alone,
    which a person reads as one word, so it is kept per run as the facts of a word are."""
    return _trouble_run(run) or is_impossible_time_or_date(run)


def holds_trouble_symbol(text: str) -> bool:
    """Whether a token is, or holds, a trouble symbol (``trouble_symbols``), an emoticon of
    them ("(>_<)") or a face that is not glad (``_doubtful_face``)."""
    symbols = trouble_symbols()
    return text in symbols or any(ch in symbols or _doubtful_face(ch) for ch in text) or _trouble_run(text)
