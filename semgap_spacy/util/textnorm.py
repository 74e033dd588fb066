"""Text folding shared by every component.

Matching is case- and accent-insensitive (spec §3), and the typo repair, the
term matcher and the quantity linker must agree on one folded form, or a
repaired token would no longer match its phrase. Keeping the rule in one
place is what guarantees that agreement.
"""
import unicodedata

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-"})


def fold(text: str) -> str:
    """Casefold and strip accents so "Ischämie", "ISCHAMIE" and "ischamie" agree.

    text (str): Any text.
    RETURNS (str): The folded form; same number of characters is NOT guaranteed.
    """
    if text.isascii() and "`" not in text:
        return text.lower()
    text = text.translate(_APOSTROPHES).translate(_DASHES)
    # "ß".casefold() is "ss", which is what German writers also type.
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def exact(text: str) -> str:
    """Casefold, keeping the accents (NFC): how a word whose accent makes another word is compared.

    Spec §4: es "sí" (yes) is not the cue "si" (if), fr "où" (where) is not
    "ou"; the language packs list such words as ``accent_sensitive``.
    text (str): Any text.
    RETURNS (str): The casefolded NFC form.
    """
    return unicodedata.normalize("NFC", text.translate(_APOSTROPHES)).casefold()
