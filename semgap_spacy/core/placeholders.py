"""A template's blank left unfilled: "Clear to close for [BORROWER]", "for <recipient>".

Rule 5 of §4.1 explains brackets, underscores and "$" by their shape, and the
word inside may be a neutral word of the domain ("borrower", "recipient").
Written as a template writes a field to fill ("[BORROWER]", "<recipient>",
"$NAME", "%LOAN_ID%", a run of underscores "____"), they say the message was
sent before the field was filled, so what it clears is not named. The blank's
tokens are left unexplained, so the clause escalates with them quoted, as the
braces of "{{borrower}}" do (``data/trouble_symbols.json``).

A word of the domain in brackets written otherwise ("for [Borrower]",
"[Expediente]", "[Akte]") is a field's name too, and so is a variable written
in small letters ("$borrower", "$akte"); a name in brackets ("[Alder Valley
Organ Courier]") no rule explains anyway.

Left alone: a tag in capitals that opens its line ("[EXTERNAL] Clear to
close", "[URGENT]"), which labels the message; a checkbox ("[X]"); an HTML
tag ("<b>"); an e-mail address or a link in angle brackets.
"""
import re
from typing import Any, Collection, List, Sequence

from .textview import token_matches

#: a mark of a blank below: a text without one holds none
_BLANK_MARK = re.compile(r"[\[<$%_]")
#: a field in capitals in square brackets, a word in angle brackets, a variable after "$" or
#: between "%", a run of underscores
_BLANK = re.compile(r"\[[A-Z][A-Z0-9_ ]*[A-Z0-9_]\]"
                    r"|<[A-Za-z][A-Za-z0-9_ -]*>"
                    r"|\$[A-Za-z_][A-Za-z0-9_]*(?![\w])"
                    r"|%[A-Za-z][A-Za-z0-9_]*%"
                    r"|_{2,}")
#: one or two words in brackets, which name a field when the domain's rules explain them
_BRACKETED_WORDS = re.compile(r"\[[^\W\d_]+(?: [^\W\d_]+)?\]")
#: HTML tags a chat message may carry, which are markup, not blanks
_TAGS = frozenset({"b", "i", "u", "s", "p", "br", "em", "strong", "div", "span", "li", "ul", "ol", "hr",
                   "code", "pre", "del", "strike", "sub", "sup", "small", "mark", "tr", "td", "th"})


def unread_placeholders(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int],
                        field_rules: Collection[Any] = ()) -> List[Any]:
    """Leave unexplained, in place, every token of a template's blank (see the module docstring).

    explained (List[Any]): The rule per token.
    text (str): The text; starts, ends: the tokens' character offsets.
    field_rules (Collection[Any]): The rules that explain a word of the domain (rules 4 and 7): one
        or two such words in brackets name a field.
    RETURNS (List[Any]): ``explained``.
    """
    if _BLANK_MARK.search(text) is None:
        return explained
    if field_rules and "[" in text:
        for found, read, first, end in token_matches(_BRACKETED_WORDS, text, starts, ends):
            words = [k for k in range(first, end) if any(ch.isalpha() for ch in text[starts[k]:ends[k]])]
            if words and all(explained[k] in field_rules for k in words) and not _opens_line(read, found.start()):
                explained[first:end] = [None] * (end - first)
    for found, read, first, end in token_matches(_BLANK, text, starts, ends):
        blank = found.group()
        if blank.startswith("[") and _opens_line(read, found.start()):
            continue  # a tag that labels the message: "[EXTERNAL] Clear to close"
        if blank.startswith("<") and blank[1:-1].strip().lower() in _TAGS:
            continue
        explained[first:end] = [None] * (end - first)
    return explained


def _opens_line(read: str, start: int) -> bool:
    """Whether nothing but other bracketed tags and spaces stand before ``start`` on its line."""
    line = read[read.rfind("\n", 0, start) + 1:start]
    return re.fullmatch(r"(?:\s*\[[^\]]*\])*\s*", line) is not None
