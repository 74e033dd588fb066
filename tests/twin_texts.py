"""What the compiled twins are checked on against their Python code: the texts of the held-out
splits, the context sentence sets and the probe sets, and ``semgap_context``'s cue tables as a
pipeline builds them."""
import json
from pathlib import Path

import spacy

ROOT = Path(__file__).resolve().parents[1]


def twin_texts(held_out: bool = True, sentences: bool = True, probes: bool = True):
    """Every text of the chosen sources, in a fixed order (malformed cases carry no text, or not a string)."""
    texts = []
    if held_out:
        for split in ("dev.jsonl", "test.jsonl"):
            with open(ROOT / "heldout" / split, encoding="utf8") as f:
                texts += [json.loads(line).get("text") for line in f if line.strip()]
    if sentences:
        for path in sorted((ROOT / "tests" / "data" / "context_sentences").glob("*.jsonl")):
            with open(path, encoding="utf8") as f:
                texts += [json.loads(line)["text"] for line in f if line.strip()]
    if probes:
        for path in sorted((ROOT / "heldout" / "probes").glob("*.txt")):
            texts += [line for line in path.read_text(encoding="utf8").splitlines() if line.strip()]
    return [t for t in texts if isinstance(t, str)]


def context_tables():
    """The cue tables of ``semgap_context`` as a pipeline builds them: spec and clinical profile."""
    tables = []
    for cues in ({"@misc": "semgap.context_cues.v1"}, {"@misc": "semgap.context_cues.clinical.v1"}):
        nlp = spacy.blank("en")
        tables.append(nlp.add_pipe("semgap_context", config={"cues": cues}).table)
    return tables
