"""A text as the core rules read it: its tokens (spaCy's blank English tokenizer) and their
character offsets, for the tests of rules that take plain rows rather than a Doc."""
import spacy

_NLP = spacy.blank("en")


def token_rows(text):
    """(doc, starts, ends) of ``text``: the Doc, and where each token's text starts and ends."""
    doc = _NLP.make_doc(text)
    return doc, [t.idx for t in doc], [t.idx + len(t) for t in doc]
