"""Score a negation/hedge component the way a new user would: through its public API.

    python -m scripts.context_eval [--negex PATH | --skip-negex] [--profiles spec clinical]
                                   [--config JSON] [--out results/context_eval.json]

Why public API only: teams will drop ``semgap_context`` next to negspacy or
medspaCy ConText and compare them on their own targets. So this script uses
nothing a user would not: for every sentence it makes ``spacy.blank(lang)``
with ``nlp.add_pipe("semgap_context", config=...)``, puts the sentence's
targets as spans in ``doc.spans["semgap_terms"]`` (label "TARGET", no span
id, no glossary) and reads ``span._.semgap_negated``, ``span._.semgap_hedged``
and, to name error causes, ``span._.semgap_negation_cue``.

Both cue profiles are scored (``--profiles``): ``spec``, the default config
(the decision's reading: a cue reaches both directions within its clause),
and ``clinical``, the configuration the README recommends for clinical text
(``cues = {"@misc": "semgap.context_cues.clinical.v1"}`` and the text's
language in ``languages``).

Sets scored:

- **negex**: the NegEx annotated test set (Chapman et al. 2001) from
  ``../shared/benchmarks/negex`` when present; a clear message and a skip when
  absent. Negation gold only (Negated vs Affirmed). It is scored, never tuned on.
- **en, es, fr, de**: ``tests/data/context_sentences/{lang}.jsonl``, written
  from clinical and operations phrasing, with negation and hedge gold per
  target (the English set is the tuning set). Scored per phenomenon (``note``)
  too, with every error listed in the JSON.

When ``negspacy`` is installed (optional extra ``bench``), it is scored on
the English sets with its ``en_clinical`` termset, and when ``medspacy`` is
installed, medspaCy's ConText with its default English rules
(``is_negated``; hedged is ``is_uncertain`` or ``is_hypothetical``); each
reads its targets from ``doc.ents``. Every installed component is timed alone
on the NegEx sentences in the same process: the docs are made (and, for
negspacy and medspaCy, sentence-split, which they need) before the clock
starts, each component runs the way ``nlp.pipe`` runs it (its ``pipe``
method when it has one, else one call per doc), the legs take turns and the
best of ``--repeats`` runs counts, since a shared machine only ever adds time.

Error causes on NegEx (heuristic labels for counting, not gold). For each
wrong target, from the sentence, the target and, for a false alarm, the cue
the component reported (``span._.semgap_negation_cue``; for negspacy the
nearest cue word of the heuristic list), the first that holds of:

false alarms (predicted negated, gold affirmed)
  cue inside target   the cue lies inside the target span;
  pseudo cue          a pseudo phrase ("no change", "not only", ...) covers the cue;
  speculation         the cue is part of a speculation phrase ("rule out", "cannot exclude", ...);
  section header      a header ("WORD(S):") lies between cue and target;
  backward cue        the cue follows the target (a backward reach);
  clause break        a terminator ("but", "which", ";") or a sentence end lies between them;
  other
misses (gold negated, predicted not)
  no known cue        no negation cue word of the heuristic list occurs (lexical negation);
  list                the nearest cue before the target is separated from it by a comma
                      and a list conjunction ("or", "and", "nor") follows in the same clause;
  list without conjunction   the same, with no conjunction (the spec ends the scope there);
  beyond window       the nearest cue before the target is at least ``window`` words away;
  section header      a header lies between that cue and the target;
  backward cue        no cue before the target, one after it ("... is negative");
  other               a cue is before the target, in reach, and still missed.
The word lists are in ``scripts/context_eval_causes.json``; ``window`` is
``--window`` (default 6, NegEx's own reach was 5).
"""
import argparse
import csv
import hashlib
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import spacy
from spacy.util import filter_spans

import semgap_spacy  # noqa: F401  (the package registers its factories and span extensions)

REPO = Path(__file__).resolve().parents[1]
NEGEX_DEFAULT = REPO / ".." / "shared" / "benchmarks" / "negex" / "rsAnnotations-1-120-random.tsv"
SETS_DEFAULT = REPO / "tests" / "data" / "context_sentences"
CAUSES = Path(__file__).with_name("context_eval_causes.json")
LANGS = ("en", "es", "fr", "de")
TERMS_KEY = "semgap_terms"
HEADER = re.compile(r"(?:^|\s)(?:[A-Z][A-Z/&-]+(?:\s+[A-Z][A-Z/&-]+)*|[A-Z][a-z]+(?:\s+[a-z]+){0,3})"
                    r"(?:\([A-Za-z]+\))?\s*:")


# -- data ----------------------------------------------------------------
def load_negex(path: Path):
    """NegEx rows as samples with one target; rows whose condition is not in the sentence are skipped."""
    samples, skipped = [], []
    with path.open(encoding="utf8", newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader)
        for row in reader:
            if len(row) < 4 or not row[3].strip():
                continue
            line, condition, sentence, status = row[0].strip(), row[1].strip(), row[2], row[3].strip().lower()
            start = sentence.lower().find(condition.lower()) if condition else -1
            if start < 0:
                skipped.append(line)
                continue
            samples.append({"id": f"negex-{line}", "lang": "en", "text": sentence, "note": "negex",
                            "targets": [{"start_char": start, "end_char": start + len(condition),
                                         "text": sentence[start:start + len(condition)],
                                         "negated": status == "negated", "hedged": None}]})
    return samples, skipped


def load_set(path: Path):
    with path.open(encoding="utf8") as f:
        return [json.loads(line) for line in f if line.strip()]


# -- adapters --------------------------------------------------------------
#: the configuration of each profile; the clinical one also names the text's language
PROFILES = {
    "spec": lambda lang: {},
    "clinical": lambda lang: {"cues": {"@misc": "semgap.context_cues.clinical.v1"}, "languages": [lang]},
}


class SemgapAdapter:
    """``semgap_context`` alone on a blank pipeline; targets go in as plain spans."""

    hedges = True

    def __init__(self, lang: str, config: dict, profile: str = "spec", spans_key: str = TERMS_KEY):
        self.name = f"semgap_context/{profile}"
        self.nlp = spacy.blank(lang)
        self.pipe = self.nlp.add_pipe("semgap_context", config=config)
        self.config = self.nlp.get_pipe_config("semgap_context")
        self.spans_key = spans_key

    def prepare(self, sample):
        """(doc, [span or None per target]) with the spans already in the input group."""
        doc = self.nlp.make_doc(sample["text"])
        spans = [doc.char_span(t["start_char"], t["end_char"], label="TARGET", alignment_mode="expand")
                 for t in sample["targets"]]
        doc.spans[self.spans_key] = [s for s in spans if s is not None]
        return doc, spans

    def run(self, doc):
        self.pipe(doc)

    def stream(self, docs):
        for _ in self.pipe.pipe(docs):
            pass

    @staticmethod
    def read(span):
        cue = span._.semgap_negation_cue
        return {"negated": bool(span._.semgap_negated), "hedged": bool(span._.semgap_hedged),
                "cue": tuple(cue) if cue else None}


class _EntsAdapter:
    """A component that reads ``doc.ents`` and sentences: targets go in as entities."""

    hedges = False

    def __init__(self, nlp, pipe):
        self.nlp, self.pipe = nlp, pipe
        self.sentencizer = nlp.get_pipe("sentencizer")

    def prepare(self, sample):
        doc = self.nlp.make_doc(sample["text"])
        self.sentencizer(doc)  # it reads doc.sents; not part of its timed work
        spans = [doc.char_span(t["start_char"], t["end_char"], label="TARGET", alignment_mode="expand")
                 for t in sample["targets"]]
        kept = filter_spans([s for s in spans if s is not None])
        doc.ents = kept
        ents = {(s.start, s.end) for s in kept}
        return doc, [s if s is not None and (s.start, s.end) in ents else None for s in spans]

    def run(self, doc):
        self.pipe(doc)

    def stream(self, docs):
        if hasattr(self.pipe, "pipe"):
            for _ in self.pipe.pipe(docs):
                pass
        else:
            pipe = self.pipe
            for doc in docs:
                pipe(doc)


class NegspacyAdapter(_EntsAdapter):
    """negspacy's ``negex`` with the en_clinical termset."""

    name = "negspacy"

    def __init__(self):
        import negspacy.negation  # noqa: F401  (registers the "negex" factory)
        from negspacy.termsets import termset
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        super().__init__(nlp, nlp.add_pipe("negex", config={"neg_termset": termset("en_clinical").get_patterns()}))

    @staticmethod
    def read(span):
        return {"negated": bool(span._.negex), "hedged": None, "cue": None}


class MedspacyAdapter(_EntsAdapter):
    """medspaCy's ConText with its default English rules."""

    name = "medspacy_context"
    hedges = True

    def __init__(self):
        import medspacy  # noqa: F401  (registers the "medspacy_context" factory)
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        super().__init__(nlp, nlp.add_pipe("medspacy_context", config={"rules": "default"}))

    @staticmethod
    def read(span):
        return {"negated": bool(span._.is_negated),
                "hedged": bool(span._.is_uncertain or span._.is_hypothetical), "cue": None}


def installed_version(package: str):
    """The version of an optional package when it imports, else None (its legs are skipped)."""
    try:
        from importlib.metadata import version
        __import__(package)
        return version(package)
    except Exception:  # not installed (or broken)
        return None


# -- scoring -------------------------------------------------------------
def ratios(tp: int, fp: int, fn: int, tn: int) -> dict:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
            "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def predict(adapter, samples):
    """Per target: (sample, target, prediction dict or None when the target has no span)."""
    out = []
    for sample in samples:
        doc, spans = adapter.prepare(sample)
        adapter.run(doc)
        for target, span in zip(sample["targets"], spans):
            out.append((sample, target, adapter.read(span) if span is not None else None))
    return out


def score(predictions, field: str) -> dict:
    counts = Counter()
    for _, target, pred in predictions:
        if pred is None or target[field] is None or pred[field] is None:
            continue
        gold, got = target[field], pred[field]
        counts["tp" if gold and got else "fp" if got else "fn" if gold else "tn"] += 1
    return ratios(counts["tp"], counts["fp"], counts["fn"], counts["tn"])


def by_note(predictions, hedges: bool) -> dict:
    """Targets and errors per phenomenon: where a component fails, not just how often."""
    table = defaultdict(Counter)
    for sample, target, pred in predictions:
        row = table[sample["note"]]
        row["targets"] += 1
        if pred is None:
            row["unaligned"] += 1
            continue
        row["negation_errors"] += pred["negated"] != target["negated"]
        if hedges:
            row["hedge_errors"] += pred["hedged"] != target["hedged"]
    return {note: dict(c) for note, c in sorted(table.items())}


def error_list(predictions, hedges: bool) -> list:
    errors = []
    for sample, target, pred in predictions:
        wrong = pred is None or pred["negated"] != target["negated"] or (hedges and pred["hedged"] != target["hedged"])
        if wrong:
            errors.append({"id": sample["id"], "note": sample["note"], "text": sample["text"],
                           "target": target["text"],
                           "gold": {"negated": target["negated"], "hedged": target["hedged"]},
                           "predicted": None if pred is None else {"negated": pred["negated"],
                                                                   "hedged": pred["hedged"] if hedges else None}})
    return errors


# -- error causes --------------------------------------------------------
class CauseFinder:
    """Labels a NegEx error with its likely cause (see the module docstring)."""

    def __init__(self, window: int, path: Path = CAUSES):
        lists = json.loads(path.read_text(encoding="utf8"))
        self.tokenizer = spacy.blank("en").tokenizer
        self.window = window
        self.conjunctions = {p.lower() for p in lists["list_conjunctions"]}
        self.lists = {key: [tuple(t.lower_ for t in self.tokenizer(p)) for p in phrases]
                      for key, phrases in lists.items() if not key.startswith("_")}

    def _matches(self, words, key):
        found = []
        for seq in self.lists[key]:
            k = len(seq)
            for i in range(len(words) - k + 1):
                if tuple(words[i:i + k]) == seq:
                    found.append((i, i + k))
        return found

    def cause(self, text: str, start: int, end: int, kind: str, cue_chars=None) -> str:
        doc = self.tokenizer(text)
        toks = [t for t in doc if not t.is_space]
        words = [t.lower_ for t in toks]
        inside = [i for i, t in enumerate(toks) if t.idx < end and t.idx + len(t) > start]
        if not inside:
            return "other"
        ts, te = inside[0], inside[-1] + 1
        fore = [m for m in self._matches(words, "negation_forward") if m[1] <= ts]
        back = [m for m in self._matches(words, "negation_backward") if m[0] >= te]
        within = [m for m in self._matches(words, "negation_forward") if m[0] >= ts and m[1] <= te]
        if kind == "false_alarm":
            cue = self._cue_tokens(toks, cue_chars) if cue_chars else None
            if cue is None:  # no reported cue: the nearest cue word of the lists, speculation included
                spec = self._matches(words, "speculation")
                near = ([(ts - m[1], m) for m in fore + [m for m in spec if m[1] <= ts]]
                        + [(m[0] - te, m) for m in back + [m for m in spec if m[0] >= te]])
                cue = within[0] if within else (min(near)[1] if near else None)
            if cue is None:
                return "other"
            cs, ce = cue
            if cs >= ts and ce <= te:
                return "cue inside target"
            if any(ps <= cs and ce <= pe for ps, pe in self._matches(words, "pseudo")):
                return "pseudo cue"
            if any(ps <= cs < pe or ps < ce <= pe for ps, pe in self._matches(words, "speculation")):
                return "speculation"
            a, b = (ce, ts) if ce <= ts else (te, cs)
            if self._header_between(text, toks, a, b):
                return "section header"
            if cs >= te:
                return "backward cue"
            if self._break_between(words, a, b):
                return "clause break"
            return "other"
        if not fore and not back and not within:
            return "no known cue"
        if fore:
            cs, ce = max(fore, key=lambda m: m[1])
            between = words[ce:ts]
            if "," in between:
                rest = words[ce:self._clause_end(words, te)]
                if any(w in rest for w in self.conjunctions):
                    return "list"
                return "list without conjunction"
            if ts - ce >= self.window:
                return "beyond window"
            if self._header_between(text, toks, ce, ts):
                return "section header"
            return "other"
        if back:
            return "backward cue"
        return "other"

    def _clause_end(self, words, i) -> int:
        """Index of the first sentence end or terminator at or after ``i`` (or the end)."""
        stops = {s for s, _ in self._matches(words, "terminators") if s >= i}
        stops.update(j for j in range(i, len(words)) if words[j] in (".", "?", "!"))
        return min(stops) if stops else len(words)

    @staticmethod
    def _cue_tokens(toks, chars):
        cs, ce = chars
        hit = [i for i, t in enumerate(toks) if t.idx < ce and t.idx + len(t) > cs]
        return (hit[0], hit[-1] + 1) if hit else None

    @staticmethod
    def _header_between(text, toks, a, b) -> bool:
        if a >= b:
            return False
        span = text[toks[a].idx if a < len(toks) else len(text):toks[b].idx if b < len(toks) else len(text)]
        return bool(HEADER.search(span))

    def _break_between(self, words, a, b) -> bool:
        gap = words[a:b]
        if "." in gap or "?" in gap:
            return True
        return any(a <= s and e <= b for s, e in self._matches(words, "terminators"))


def negex_causes(predictions, finder: CauseFinder, examples: int = 5) -> dict:
    misses, alarms = Counter(), Counter()
    shown = defaultdict(list)
    for sample, target, pred in predictions:
        if pred is None or pred["negated"] == target["negated"]:
            continue
        kind = "false_alarm" if pred["negated"] else "miss"
        label = finder.cause(sample["text"], target["start_char"], target["end_char"], kind, pred.get("cue"))
        (alarms if pred["negated"] else misses)[label] += 1
        key = f"{kind}: {label}"
        if len(shown[key]) < examples:
            shown[key].append({"id": sample["id"], "target": target["text"], "text": " ".join(sample["text"].split())})
    return {"misses": dict(misses.most_common()), "false_alarms": dict(alarms.most_common()),
            "examples": dict(sorted(shown.items()))}


# -- speed ---------------------------------------------------------------
def time_legs(adapters, samples, repeats: int) -> dict:
    """Best seconds per adapter over ``samples``: docs are made before each clock starts, each
    component runs as ``nlp.pipe`` runs it (``stream``), and the legs take turns."""
    best = {a.name: float("inf") for a in adapters}
    for _ in range(repeats):
        for adapter in adapters:
            docs = [adapter.prepare(s)[0] for s in samples]
            start = time.perf_counter()
            adapter.stream(docs)
            best[adapter.name] = min(best[adapter.name], time.perf_counter() - start)
    return best


# -- main ----------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--negex", type=Path, default=NEGEX_DEFAULT, help="NegEx rsAnnotations TSV")
    parser.add_argument("--skip-negex", action="store_true",
                        help="do not score NegEx (tuning runs on the own sentence sets only)")
    parser.add_argument("--sets", type=Path, default=SETS_DEFAULT, help="directory of {lang}.jsonl sentence sets")
    parser.add_argument("--profiles", nargs="+", default=list(PROFILES), choices=list(PROFILES),
                        help="cue profiles of semgap_context to score")
    parser.add_argument("--config", default="{}", help="JSON config added to every profile's")
    parser.add_argument("--window", type=int, default=6, help="window of the 'beyond window' cause")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per leg; the fastest counts")
    parser.add_argument("--no-negspacy", action="store_true", help="skip negspacy even when installed")
    parser.add_argument("--no-medspacy", action="store_true", help="skip medspaCy even when installed")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "context_eval.json")
    args = parser.parse_args(argv)
    try:
        config = json.loads(args.config)
        if not isinstance(config, dict):
            raise ValueError("not an object")
    except ValueError as err:
        parser.error(f"--config must be a JSON object: {err}")

    versions = {"negspacy": None if args.no_negspacy else installed_version("negspacy"),
                "medspacy": None if args.no_medspacy else installed_version("medspacy")}
    report = {"component": "semgap_context", "config_overrides": config,
              "negspacy": versions["negspacy"] or "not installed (pip install semgap_spacy[bench])",
              "medspacy": versions["medspacy"] or "not installed (see README: Benchmarks)",
              "profiles": {}, "sets": {}}
    adapters = {}

    def semgap(profile, lang):
        if (profile, lang) not in adapters:
            adapters[profile, lang] = SemgapAdapter(lang, {**PROFILES[profile](lang), **config}, profile)
        return adapters[profile, lang]

    for profile in args.profiles:
        pipe = semgap(profile, "en").pipe
        report["profiles"][profile] = {"config": dict(semgap(profile, "en").config), "profile": pipe.profile,
                                       "reach": pipe.reach, "cue_info": pipe.cue_info}
    others = [a for a in (NegspacyAdapter() if versions["negspacy"] else None,
                          MedspacyAdapter() if versions["medspacy"] else None) if a is not None]
    english = [semgap(p, "en") for p in args.profiles] + others

    negex_path = args.negex.resolve()
    negex_samples = []
    if args.skip_negex:
        report["sets"]["negex"] = {"skipped": "--skip-negex"}
    elif negex_path.is_file():
        negex_samples, skipped = load_negex(negex_path)
        finder = CauseFinder(args.window)
        entry = {"data": str(negex_path), "sha256": hashlib.sha256(negex_path.read_bytes()).hexdigest(),
                 "targets": len(negex_samples), "skipped_rows": skipped,
                 "gold_negated": sum(s["targets"][0]["negated"] for s in negex_samples)}
        for adapter in english:
            preds = predict(adapter, negex_samples)
            entry[adapter.name] = {"negation": score(preds, "negated"),
                                   "hedged": sum(bool(p and p["hedged"]) for _, _, p in preds),
                                   "unaligned": sum(p is None for _, _, p in preds),
                                   "causes": negex_causes(preds, finder)}
        report["sets"]["negex"] = entry
    else:
        print(f"NegEx test set not found at {negex_path}: skipping it "
              f"(put rsAnnotations-1-120-random.tsv there or pass --negex PATH).")
        report["sets"]["negex"] = {"skipped": f"not found at {negex_path}"}

    own = {}
    for lang in LANGS:
        path = args.sets / f"{lang}.jsonl"
        if not path.is_file():
            print(f"sentence set {path} not found: skipping {lang}")
            continue
        own[lang] = samples = load_set(path)
        entry = {"data": str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path),
                 "sentences": len(samples), "targets": sum(len(s["targets"]) for s in samples)}
        legs = [semgap(p, lang) for p in args.profiles] + (others if lang == "en" else [])
        for adapter in legs:
            preds = predict(adapter, samples)
            result = {"negation": score(preds, "negated")}
            if adapter.hedges:
                result["hedge"] = score(preds, "hedged")
            result["unaligned"] = sum(p is None for _, _, p in preds)
            result["by_note"] = by_note(preds, adapter.hedges)
            result["errors"] = error_list(preds, adapter.hedges)
            entry[adapter.name] = result
        report["sets"][lang] = entry

    timed = negex_samples or own.get("en", [])
    if timed:
        best = time_legs(english, timed, args.repeats)
        rate = {name: len(timed) / sec for name, sec in best.items()}
        speed = {"set": "negex" if negex_samples else "en", "sentences": len(timed), "repeats": args.repeats,
                 "best_seconds": {k: round(v, 4) for k, v in best.items()},
                 "sentences_per_second": {k: round(v, 1) for k, v in rate.items()}}
        for other in others:
            speed[f"ratio_to_{other.name}"] = {p: round(rate[f"semgap_context/{p}"] / rate[other.name], 3)
                                               for p in args.profiles}
        report["speed"] = speed
    else:
        report["speed"] = {"skipped": "no sentences"}

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    print_summary(report)
    print(f"wrote {args.out}")
    return 0


def print_summary(report: dict) -> None:
    def fmt(s):
        return f"P={s['precision']:.3f} R={s['recall']:.3f} F1={s['f1']:.3f} (tp={s['tp']} fp={s['fp']} fn={s['fn']})"

    for name, entry in report["sets"].items():
        if "skipped" in entry:
            print(f"{name}: skipped ({entry['skipped']})")
            continue
        print(f"{name}: {entry['targets']} targets")
        for comp, res in entry.items():
            if not isinstance(res, dict) or "negation" not in res:
                continue
            print(f"  {comp:25s} negation {fmt(res['negation'])}")
            if "hedge" in res:
                print(f"  {'':25s} hedge    {fmt(res['hedge'])}")
            if "by_note" in res:
                worst = sorted(res["by_note"].items(), key=lambda kv: -(kv[1].get("negation_errors", 0)
                                                                       + kv[1].get("hedge_errors", 0)))
                shown = [f"{note} {v.get('negation_errors', 0)}+{v.get('hedge_errors', 0)}/{v['targets']}"
                         for note, v in worst[:6] if v.get("negation_errors", 0) + v.get("hedge_errors", 0)]
                print(f"  {'':25s} errors (negation+hedge/targets) by phenomenon: {', '.join(shown) or 'none'}")
            if "causes" in res:
                print(f"  {'':25s} misses by cause:       {res['causes']['misses']}")
                print(f"  {'':25s} false alarms by cause: {res['causes']['false_alarms']}")
    speed = report["speed"]
    if "skipped" not in speed:
        rates = ", ".join(f"{k} {v:.0f}/s" for k, v in speed["sentences_per_second"].items())
        print(f"speed on {speed['sentences']} {speed['set']} sentences (best of {speed['repeats']}): {rates}")
        for key, value in speed.items():
            if key.startswith("ratio_to_"):
                print(f"  semgap_context / {key[len('ratio_to_'):]}: {value}")
    else:
        print(f"speed: skipped ({speed['skipped']})")


if __name__ == "__main__":
    sys.exit(main())
