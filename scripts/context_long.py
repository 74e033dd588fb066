"""Time negation and hedge scope on long documents: NegEx sentences joined into notes.

    python -m scripts.context_long [--negex PATH] [--lengths 10 50 200 1000] [--sentences 1000]
                                   [--repeats 5] [--join space|newline] [--sentencizer]
                                   [--no-negspacy] [--out JSON] [--dump JSON]

Why: ``semgap_context`` runs after a user's own NER on clinical notes and
reports of hundreds of sentences, where every entity is a target; negspacy's
cost there grows with the entities, and so should ours. NegEx sentences
(``scripts.context_eval.load_negex``) are joined in their file order into
documents of each length (``--lengths``, in sentences), the same first
``--sentences`` sentences at every length, so each length reads the same
targets and only the document size changes. Each sentence's target becomes a
span at its character offsets (``doc.spans["semgap_terms"]`` for
``semgap_context``, ``doc.ents`` for negspacy). Sentences are joined with a
space (a paragraph) or a newline (one sentence a line, ``--join``); every
NegEx sentence ends with its own full stop.

Legs: ``semgap_context`` with the spec default and with the clinical profile
the README recommends, and negspacy (``en_clinical`` termset) when installed.
Docs are made before each clock starts (negspacy's sentence split too, which
it needs; ``--sentencizer`` gives ``semgap_context`` the same sentence starts).
Each component runs as ``nlp.pipe`` runs it: a pipeline without
``semgap_decision`` decides no case, so ``semgap_context`` reads documents
longer than a case's 4,000 characters. The legs take turns and the best
CPU time of ``--repeats`` runs counts, since a shared machine only ever adds
time. Reported: microseconds per target at each length, and each
semgap leg's ratio to negspacy.

``--dump`` writes every target's reading (negated, hedged, cues, cue spans)
of every length and semgap leg, so a change to the scope model can be
checked to read long documents exactly as before.

Without the NegEx file the script says so and exits 0; without negspacy its
leg is skipped with a message.
"""
import argparse
import json
import sys
import time
from pathlib import Path

from scripts.context_eval import (NEGEX_DEFAULT, PROFILES, NegspacyAdapter, SemgapAdapter, installed_version,
                                  load_negex)

LENGTHS = (10, 50, 200, 1000)
JOINS = {"space": " ", "newline": "\n"}


def join_documents(samples, per_doc: int, joiner: str = " "):
    """Samples of ``per_doc`` consecutive sentences each, with every target moved to its offsets in
    the joined text (the last document may be shorter)."""
    docs = []
    for first in range(0, len(samples), per_doc):
        parts, targets, offset = [], [], 0
        for sample in samples[first:first + per_doc]:
            if parts:
                offset += len(joiner)
            for target in sample["targets"]:
                targets.append({**target, "start_char": target["start_char"] + offset,
                                "end_char": target["end_char"] + offset})
            parts.append(sample["text"])
            offset += len(sample["text"])
        docs.append({"id": f"long-{per_doc}-{first}", "lang": "en", "text": joiner.join(parts), "targets": targets})
    return docs


class _Reader(SemgapAdapter):
    """``semgap_context`` on whole documents, with the sentence starts of a sentencizer when asked."""

    def __init__(self, lang: str, config: dict, profile: str, sentencizer: bool = False):
        super().__init__(lang, config, profile)
        self.sentencizer = None
        if sentencizer:
            self.name += "+sents"
            self.sentencizer = self.nlp.add_pipe("sentencizer", before="semgap_context")

    def prepare(self, sample):
        doc, spans = super().prepare(sample)
        if self.sentencizer is not None:
            self.sentencizer(doc)
        return doc, spans


def semgap_legs(sentencizer: bool):
    return [_Reader("en", PROFILES[profile]("en"), profile, sentencizer) for profile in ("spec", "clinical")]


def time_lengths(adapters, samples, lengths, joiner: str, repeats: int) -> dict:
    """Best CPU microseconds per target: {length: {leg: us}}; the legs take turns within each run."""
    out = {}
    for length in lengths:
        docs = join_documents(samples, length, joiner)
        n_targets = sum(len(d["targets"]) for d in docs)
        best = {a.name: float("inf") for a in adapters}
        for run in range(repeats):
            order = adapters if run % 2 == 0 else adapters[::-1]
            for adapter in order:
                prepared = [adapter.prepare(d)[0] for d in docs]
                start = time.process_time()
                adapter.stream(prepared)
                best[adapter.name] = min(best[adapter.name], time.process_time() - start)
        out[length] = {name: round(seconds * 1e6 / n_targets, 2) for name, seconds in best.items()}
    return out


def _reading(span):
    if span is None:
        return None
    return [span.start_char, span.end_char, span._.semgap_negated, span._.semgap_hedged,
            span._.semgap_negation_cue, span._.semgap_hedge_cue,
            [(c.start, c.end, c.label_) for c in span._.semgap_cue_spans]]


def dump_readings(samples, lengths, joiner: str) -> dict:
    """Every target's reading of every length, semgap leg and sentence split, keyed by both."""
    out = {}
    for sentencizer in (False, True):
        for adapter in semgap_legs(sentencizer):
            for length in lengths:
                for doc_sample in join_documents(samples, length, joiner):
                    doc, spans = adapter.prepare(doc_sample)
                    adapter.run(doc)
                    out[f"{adapter.name}/{doc_sample['id']}"] = {
                        "targets": [_reading(s) for s in spans], "matches": doc._.semgap_cue_matches}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--negex", type=Path, default=NEGEX_DEFAULT, help="NegEx rsAnnotations TSV")
    parser.add_argument("--lengths", type=int, nargs="+", default=list(LENGTHS), help="sentences per document")
    parser.add_argument("--sentences", type=int, default=1000, help="NegEx sentences read at every length")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per leg and length; the fastest counts")
    parser.add_argument("--join", choices=list(JOINS), default="space", help="what separates the sentences")
    parser.add_argument("--sentencizer", action="store_true",
                        help="set sentence starts (spaCy's sentencizer) before semgap_context too")
    parser.add_argument("--no-negspacy", action="store_true", help="skip negspacy even when installed")
    parser.add_argument("--out", type=Path, help="write the timings as JSON here")
    parser.add_argument("--dump", type=Path, help="write every target's reading as JSON here, and do not time")
    args = parser.parse_args(argv)

    path = args.negex.resolve()
    if not path.exists():
        print(f"NegEx file not found at {path}: nothing to time (pass --negex PATH)")
        return 0
    samples = load_negex(path)[0][:args.sentences]
    joiner = JOINS[args.join]
    if args.dump:
        readings = dump_readings(samples, args.lengths, joiner)
        args.dump.write_text(json.dumps(readings, sort_keys=True, default=str))
        print(f"{len(readings)} documents' readings written to {args.dump}")
        return 0

    adapters = semgap_legs(args.sentencizer)
    if args.no_negspacy:
        print("negspacy: skipped (--no-negspacy)")
    elif installed_version("negspacy") is None:
        print("negspacy: not installed (pip install semgap_spacy[bench]); its leg is skipped")
    else:
        adapters.append(NegspacyAdapter())
    table = time_lengths(adapters, samples, args.lengths, joiner, args.repeats)
    names = [a.name for a in adapters]
    print(f"{len(samples)} NegEx sentences, joined by {args.join!r}; CPU us per target, best of {args.repeats}")
    print("sentences/doc  " + "  ".join(f"{n:>26}" for n in names))
    for length, row in table.items():
        cells = []
        for name in names:
            cell = f"{row[name]:.1f}"
            if "negspacy" in row and name != "negspacy":
                cell += f" ({row[name] / row['negspacy']:.2f}x)"
            cells.append(f"{cell:>26}")
        print(f"{length:>13}  " + "  ".join(cells))
    if args.out:
        args.out.write_text(json.dumps({"sentences": len(samples), "join": args.join, "repeats": args.repeats,
                                        "sentencizer": args.sentencizer, "us_per_target": table}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
