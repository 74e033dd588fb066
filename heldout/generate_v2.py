"""Held-out split v2: the v1 categories plus §4.1's, every word of every text accounted for.

    python -m heldout.generate --version 2            # write heldout/v2/dev.jsonl (test.jsonl if allowed)
    python -m heldout.generate --version 2 --check    # regenerate in memory, compare with disk
    python -m heldout.generate --version 2 --force-refreeze
    python -m heldout.generate --version 2 --stats

Why a v2: the amended spec (§4 cue scope, §4.1 unexplained words) changes what
a correct label is, and the v1 facts cannot express it (they record terms, not
words). v2 records, per case, every token of the text with the reason the
generator put it there (``facts.tokens``); the oracle (``coverage.py``) reads
cue scope and the seven rules of §4.1 from those tokens.

How v2 splits: a team's chatter recurs, and the teaching curve of §4.2 asks
how much of the test split one review round over dev repairs. So v2 shares
templates, wrappers, names and filler between dev and test (the v1 split rule
keeps v1's phrasing held out) and holds back one list of filler sentences
(``surface_v2.yaml: holdback_filler``) that only the test split draws; every
test case records the unexplained words that never occur in dev
(``facts.unseen_in_dev``). No dev case and no test case share a text.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
import sys
from pathlib import Path

import srsly

from . import coverage, oracle
from .bank import BANK_DIR, SPLITS, Bank
from .generate import (
    CATEGORIES as V1_CATEGORIES,
    MAX_TEXT,
    CaseBuilder,
    Ctx,
    Unfillable,
    case_inputs,
    _casing,
    _check_intent,
    _ends_sentence,
    _malform_case,
    _mode_fits_template,
    serialise,
    sha256,
)

HERE = Path(__file__).resolve().parent
OUT_DIR = HERE / "v2"
SEED = "semgap-heldout-2026.12-v2"
NEW_CATEGORIES = (
    "unlisted_problem", "chatter_proceed", "chatter_filler", "unattached_hedge", "unattached_negation",
    "sentence_first_name", "cue_scope_v2",
)  # fmt: skip
CATEGORIES = V1_CATEGORIES + NEW_CATEGORIES
# Chance that a test-split filler is drawn from the holdback list (none in dev).
HOLDBACK_P = 0.22
FILLER_P = 0.35  # chance of a filler sentence around a non-bare body (as in v1)
UNLISTED_P = 0.5  # of those, the share drawn from the realistic unlisted filler


def load_v2(directory: Path = BANK_DIR) -> tuple[dict, dict]:
    """(surface_v2, categories of templates_v2)."""
    return srsly.read_yaml(directory / "surface_v2.yaml"), srsly.read_yaml(directory / "templates_v2.yaml")["categories"]


class V2Ctx(Ctx):
    """Both splits draw from whole lists; only the holdback filler is the test split's own."""

    def __init__(self, bank: Bank, split: str, surface_v2: dict):
        self.bank, self.split, self.v2 = bank, split, surface_v2
        s = bank.surface
        self.orgs = {d: list(v) for d, v in s["orgs"].items()}
        self.people = list(s["people"])
        self.wrappers = list(s["wrappers"])
        self.fillers = {k: list(v) for k, v in s["fillers"].items()}
        self.filler_typos = list(s["filler_typos"])
        self.typos = {w: list(v) for w, v in bank.typos.items()}
        self.counters = {}

    def unlisted(self, domain: str) -> list[str]:
        u = self.v2["unlisted_filler"]
        return list(u["common"]) + list(u.get(domain, []))

    def draw_filler(self, pool: list[str], rng: random.Random) -> tuple[str, str]:
        """A filler sentence and its kind (v1 | unlisted | holdback)."""
        if self.split == "test" and rng.random() < HOLDBACK_P:
            return rng.choice(self.v2["holdback_filler"]), "holdback"
        return rng.choice(pool), "listed"


class V2Builder(CaseBuilder):
    """A CaseBuilder that also remembers, per slot, why its words are in the text."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.slot_meta: dict[str, dict] = {}

    def fill(self, name: str, spec) -> str:
        spec = self._slot_spec(spec)
        kind, rng, v2 = spec["kind"], self.rng, self.ctx.v2
        before = len(self.mentions)
        if kind == "problem":
            items = v2["problems"].get(self.domain, {}).get(self.lang, [])
            if not items:
                raise Unfillable("no problem text for this domain and language")
            item = rng.choice(items)
            self.source["problem"] = item
            self.slot_meta[name] = {"role": "problem", "kind": item["shape"]}
            return item["text"]
        if kind == "chatter":
            pool = v2["chatter"][spec["of"]].get(self.lang, [])
            if not pool:
                raise Unfillable("no chatter in this language")
            text = rng.choice(pool)
            self.slot_meta[name] = {"role": "chatter", "kind": spec["of"]}
            return text
        if kind == "ufiller":
            text, k = self.ctx.draw_filler(self.ctx.unlisted(self.domain), rng)
            self.slot_meta[name] = {"role": "filler", "kind": "holdback" if k == "holdback" else "unlisted"}
            return text
        if kind == "first_name":
            pool = self.ctx.people if spec.get("pool") == "people" else v2["first_names"]
            self.slot_meta[name] = {"role": "name", "kind": "person" if spec.get("pool") == "people" else "place"}
            return rng.choice(pool)
        if kind == "cn_org":
            self.slot_meta[name] = {"role": "name", "kind": "org"}
            return rng.choice(v2["common_noun_orgs"][self.domain])
        text = super().fill(name, spec)
        if kind == "term":
            self.slot_meta[name] = {"role": "term", "mention": before}
        elif kind in ("head", "value"):
            self.slot_meta[name] = {"role": "frame"}  # becomes a term word when the frame is complete
        elif kind == "abbr":
            self.slot_meta[name] = {"role": "abbrev"}
        elif kind == "filler_typo":
            self.slot_meta[name] = {"role": "filler", "kind": "typo"}
        elif kind == "quantity":
            self.slot_meta[name] = {"role": "quantity"}
        else:
            raise ValueError(f"slot kind {kind!r} has no role")
        return text


# ---------------------------------------------------------------------------
# Segments: pieces of text with the reason they are there


def _seg(text: str, role: str, **extra) -> dict:
    return {"text": text, "role": role, **{k: v for k, v in extra.items() if v is not None}}


def _format(pattern: str, values: dict[str, dict], literal_role: str) -> list[dict]:
    """``pattern.format(...)`` as segments: literals get ``literal_role``, fields their own."""
    out = []
    for literal, field, _spec, _conv in string.Formatter().parse(pattern):
        if literal:
            out.append(_seg(literal, literal_role))
        if field is not None:
            v = values[field]
            out.extend(v if isinstance(v, list) else [v])
    return out


def _apply_casing(segs: list[dict], casing: str) -> None:
    if casing == "lower":
        for s in segs:
            s["text"] = s["text"].lower()
    elif casing == "upper":
        for s in segs:
            s["text"] = s["text"].upper()
    elif casing == "capitalised":
        for s in segs:
            if s["text"]:
                s["text"] = s["text"][:1].upper() + s["text"][1:]
                break


def tokens_of(segs: list[dict]) -> list[dict]:
    """Every token of the text, with its segment's role."""
    out = []
    for s in segs:
        extra = {k: v for k, v in s.items() if k != "text"}
        out.extend({"text": t, **extra} for t in coverage.tokenize(s["text"]))
    return out


def _build_in_domain(ctx: V2Ctx, category: str, cat_spec: dict, template: dict, domain: str, mode, rng) -> dict:
    b = V2Builder(ctx, category, cat_spec, template, domain, mode, rng)
    slots = template.get("slots", {})
    texts = {name: b.fill(name, spec) for name, spec in slots.items()}
    dangling = list(template.get("dangling", []))
    if "head" in slots and "value" in slots and not dangling:
        term = "MED.XM_POSITIVE" if b.outcome == "positive" else "MED.XM_NEGATIVE"
        t = ctx.bank.terms[term]
        for name in ("head", "value"):
            b.slot_meta[name] = {"role": "term", "mention": len(b.mentions)}
        b.mentions.append(
            {"term": term, "signal": t.signal, "domain": t.domain, "status": "approved", "lang": "en", "via": "frame",
             "surface": f"{b.head} … {b.value_word}", "polarity": "asserted", "spelling": "exact", "field": None}
        )  # fmt: skip
    means = None
    novel = "means" in template
    if novel:
        # §4.1: a clearance or block said in unlisted words is not read; the intended
        # meaning is kept for reporting, not as a mention (v1 labelled by meaning).
        t = ctx.bank.terms[template["means"]["term"]]
        means = {"term": t.id, "signal": t.signal, "domain": t.domain}
    for rspec in template.get("readings", []):
        b.add_reading(rspec)

    org = rng.choice(ctx.orgs[domain])
    person = rng.choice(ctx.people)
    phrasings = template["phrasings"]
    p_index = ctx.next(("phrasing", template["id"])) % len(phrasings)
    values = {name: _seg(texts[name], **b.slot_meta[name]) for name in slots}
    values["org"] = _seg(org, "name", kind="org")
    values["person"] = _seg(person, "name", kind="person")
    body = _format(phrasings[p_index], values, "paraphrase" if novel else "template")
    b.source.update(phrasing=p_index, org=org, person=person)

    bare = template.get("bare", False) or cat_spec.get("bare", False)
    casing = "as_is"
    body_text = "".join(s["text"] for s in body)
    if not bare and (cat_spec.get("casing") or template.get("casing")) != "keep":
        _, casing = _casing(body_text, rng)
        _apply_casing(body, casing)
    b.source["casing"] = casing
    segs = body
    if not bare:
        if rng.random() < FILLER_P:
            if b.lang == "en" and rng.random() < UNLISTED_P:
                filler, kind = ctx.draw_filler(ctx.unlisted(domain), rng)
                kind = "holdback" if kind == "holdback" else "unlisted"
            else:
                pool = ctx.fillers[b.lang] if b.lang in ctx.fillers else ctx.fillers[domain]
                filler, kind = ctx.draw_filler(pool, rng)
                kind = "holdback" if kind == "holdback" else "v1"
            b.source["filler"] = filler
            f = _seg(filler, "filler", kind=kind)
            if rng.random() < 0.5:
                segs = [f, _seg(" ", "template")] + segs
            else:
                text = "".join(s["text"] for s in segs)
                segs = segs + ([] if _ends_sentence(text) else [_seg(".", "template")]) + [_seg(" ", "template"), f]
        wrapper = ctx.wrappers[rng.randrange(len(ctx.wrappers))]
        if not wrapper.endswith("{body}") and not _ends_sentence("".join(s["text"] for s in segs)):
            segs = segs + [_seg(".", "template")]
        hhmm = f"{rng.randrange(6, 23):02d}:{rng.randrange(0, 60):02d}"
        ref = f"#{rng.randrange(1000, 9999)}"
        segs = _format(
            wrapper,
            {"body": segs, "org": values["org"], "person": values["person"], "hhmm": _seg(hhmm, "shape"), "ref": _seg(ref, "shape")},
            "wrapper",
        )
        b.source["wrapper"] = wrapper
    text = "".join(s["text"] for s in segs)

    facts = {
        "domain": domain,
        "lang": b.lang,
        "case_malformed": None,
        "mentions": b.mentions,
        "readings": b.reading_facts,
        "quantities": b.quantities,
        "ambiguous_abbrevs": b.abbrevs,
        "dangling": dangling,
        "novel": novel,
        "source": b.source,
    }
    if means:
        facts["means"] = means
    case = case_inputs(b, domain, text, facts, rng)
    if category == "malformed_case":
        _malform_case(ctx, case, facts, mode, rng)
        if isinstance(case.get("text"), str) and len(case["text"]) > len(text):
            segs = segs + [_seg(case["text"][len(text):], "filler", kind="padding")]
            text = case["text"]
    if isinstance(case.get("text"), str):
        facts["tokens"] = tokens_of(segs)
        _check_tokens(text, facts)
        if not facts["case_malformed"]:
            _check_polarity(facts)
            _check_roles(facts)
    return {"case": case, "facts": facts}


def build_case(ctx: V2Ctx, category: str, cat_spec: dict, template: dict, rng: random.Random) -> dict:
    modes = template.get("modes") or cat_spec.get("modes")
    mode = None
    if modes:
        for _ in range(len(modes)):
            mode = modes[ctx.next(("mode", category, tuple(modes))) % len(modes)]
            if _mode_fits_template(mode, template):
                break
    domains = template.get("domains") or cat_spec.get("domains") or ctx.bank.domains
    for domain in rng.sample(domains, len(domains)):
        try:
            return _build_in_domain(ctx, category, cat_spec, template, domain, mode, rng)
        except Unfillable:
            continue
    raise Unfillable(f"{template['id']} mode {mode}")


# ---------------------------------------------------------------------------
# Double entry: the generator's intent against the oracle's reading


def _check_tokens(text: str, facts: dict) -> None:
    """Every word of the text is accounted for, in order (facts consistency)."""
    got = [t["text"] for t in facts["tokens"]]
    if got != coverage.tokenize(text):
        raise AssertionError(f"tokens of the facts are not the words of the text: {text!r}")


def _check_polarity(facts: dict) -> None:
    """Where the template meant a polarity and the amended §4 reads another, the spec wins.

    The mention keeps the spec's reading; the template's wish is kept as
    ``intended_polarity`` so the difference stays visible in the facts.
    """
    cov = coverage.analyse(facts)
    for i, m in enumerate(facts["mentions"]):
        read = cov.polarity.get(i)
        if read is not None and read != m["polarity"]:
            m["intended_polarity"], m["polarity"] = m["polarity"], read


def _check_roles(facts: dict) -> None:
    """Problem text must hold an unexplained word; chatter must be explained word by word."""
    cov = coverage.analyse(facts)
    toks = facts["tokens"]
    problem = [k for k, t in enumerate(toks) if t["role"] == "problem"]
    if problem and all(cov.explained_by[k] for k in problem):
        raise AssertionError(f"problem text is fully explained by §4.1: {[toks[k]['text'] for k in problem]}")
    for k, t in enumerate(toks):
        if t["role"] == "chatter" and cov.explained_by[k] is None:
            raise AssertionError(f"chatter word {t['text']!r} is not explained by §4.1")


def lint_v2(bank: Bank, surface_v2: dict) -> list[str]:
    """No glossary phrase or cue in v2 surface material; problem words kept out of filler."""
    from .bank import lint_text

    L = coverage.lists()
    problems = []
    harmless_words, problem_words = set(), set()
    for domain, by_lang in surface_v2["problems"].items():
        for items in by_lang.values():
            for item in items:
                problems += [f"problem {item['text']!r}: {p}" for p in lint_text(bank, item["text"], allow_cues=True, allow_numbers=True) if "glossary surface" in p]
                problem_words |= {coverage.plain(w) for w in coverage.tokenize(item["text"]) if explain_free(w, domain, L)}
    pieces = [x for kinds in surface_v2["chatter"].values() for xs in kinds.values() for x in xs]
    pieces += [x for xs in surface_v2["unlisted_filler"].values() for x in xs]
    pieces += [x for xs in surface_v2["common_noun_orgs"].values() for x in xs] + list(surface_v2["first_names"])
    pieces += [x for xs in bank.surface["fillers"].values() for x in xs] + list(bank.surface["people"])
    pieces += [x for xs in bank.surface["orgs"].values() for x in xs]
    harmless_pieces = list(pieces)
    pieces += list(surface_v2["holdback_filler"])
    for piece in pieces:
        problems += [f"surface {piece!r}: {p}" for p in lint_text(bank, piece, allow_numbers=True) if "glossary surface" in p or "contains cue" in p]
        if piece in harmless_pieces:
            harmless_words |= {coverage.plain(w) for w in coverage.tokenize(piece)}
    clash = sorted(problem_words & harmless_words)
    if clash:
        problems.append(f"problem words also occur in harmless material: {clash}")
    statics = [x for cat in bank.categories.values() for t in cat["templates"] for x in t["phrasings"]]
    statics += list(bank.surface["wrappers"]) + list(bank.surface["filler_typos"])
    everything_else = harmless_words | problem_words | {coverage.plain(w) for x in statics for w in coverage.tokenize(x)}
    hold = {coverage.plain(w) for x in surface_v2["holdback_filler"] for w in coverage.tokenize(x) if explain_free(w, None, L)}
    leaked = sorted(hold & everything_else)
    if leaked:
        problems.append(f"holdback words occur in other material: {leaked}")
    return problems


def explain_free(word: str, domain: str | None, L) -> bool:
    """A word no context-free rule of §4.1 explains (in any domain, when domain is None)."""
    domains = [domain] if domain else list(L.neutral_domain)
    return all(coverage.explain_word(word, d, L) is None for d in domains)


# ---------------------------------------------------------------------------
# Splits


def _key(case: dict) -> str:
    return json.dumps([case.get("domain"), case.get("text"), case.get("readings"), case.get("now")], sort_keys=True, default=repr)


def _text_key(case: dict) -> tuple | None:
    """A dev text never reappears in test, whatever its readings (a held-out text is new)."""
    if isinstance(case.get("text"), str) and isinstance(case.get("domain"), str):
        return (case["domain"], case["text"])
    return None


def generate_split(bank: Bank, split: str, surface_v2: dict, categories: dict, seen: set, seen_texts: set) -> list[dict]:
    ctx = V2Ctx(bank, split, surface_v2)
    out = []
    for category in CATEGORIES:
        cat_spec = categories[category]
        templates = list(cat_spec["templates"])
        rng = random.Random(f"{SEED}:{split}:{category}")
        made, k, failures = 0, 0, 0
        while made < cat_spec["count"]:
            template = templates[k % len(templates)]
            try:
                built = build_case(ctx, category, cat_spec, template, rng)
            except Unfillable:
                failures += 1
                k += 1
                if failures > 400:
                    raise RuntimeError(f"v2 {split}/{category}: templates cannot be filled")
                continue
            case, facts = built["case"], built["facts"]
            key = _key(case)
            text_key = _text_key(case)
            if key in seen or (text_key is not None and text_key in seen_texts and split == "test"):
                failures += 1
                k += 1
                if failures > 400:
                    raise RuntimeError(f"v2 {split}/{category}: too many duplicates")
                continue
            seen.add(key)
            if text_key is not None and split == "dev":
                seen_texts.add(text_key)
            _check_intent(facts)
            facts["harmless"] = oracle.harmless(facts)
            facts["holdback_words"] = sorted(
                {coverage.plain(t["text"]) for t in coverage.unexplained_words(facts) if t.get("kind") == "holdback"}
                if "tokens" in facts and not facts["case_malformed"]
                else set()
            )
            record = {"id": f"v2-{split}-{len(out) + 1:04d}"}
            record.update(case)
            record.update(category=category, expected=oracle.label(facts), facts=facts)
            out.append(record)
            made += 1
            k += 1
    return out


def _mark_unseen(dev: list[dict], test: list[dict]) -> None:
    """Per test case: the unexplained words that no dev text contains (what one review round cannot teach)."""
    vocab = {coverage.plain(w) for c in dev if isinstance(c.get("text"), str) for w in coverage.tokenize(c["text"])}
    for c in test:
        facts = c["facts"]
        if "tokens" not in facts:
            facts["unseen_in_dev"] = []
            continue
        words = {coverage.plain(t["text"]) for t in coverage.unexplained_words(facts)}
        facts["unseen_in_dev"] = sorted(words - vocab)


_BUILT: dict[str, dict[str, bytes]] = {}


def build_all() -> dict[str, bytes]:
    """Lint and generate both v2 splits (memoised on the bank's bytes within a process)."""
    key = sha256(b"".join(p.read_bytes() for p in sorted((HERE / "bank").glob("*.yaml"))))
    if key not in _BUILT:
        bank = Bank()
        surface_v2, new = load_v2()
        problems = lint_v2(bank, surface_v2)
        if problems:
            raise SystemExit("v2 bank lint failed:\n  " + "\n  ".join(problems))
        categories = {**bank.categories, **new}
        seen: set = set()
        seen_texts: set = set()
        dev = generate_split(bank, "dev", surface_v2, categories, seen, seen_texts)
        test = generate_split(bank, "test", surface_v2, categories, seen, seen_texts)
        _mark_unseen(dev, test)
        _BUILT[key] = {"dev": serialise(dev), "test": serialise(test)}
    return _BUILT[key]


def stats_table(splits: dict[str, list[dict]]) -> str:
    """Markdown: cases per category and split, label mix (P/E/B) and harmless count."""
    lines = ["| category | dev (P/E/B) harmless | test (P/E/B) harmless |", "|---|---|---|"]

    def cell(cases):
        n = {k: sum(c["expected"] == k for c in cases) for k in ("proceed", "escalate", "block")}
        h = sum(bool(c["facts"].get("harmless")) for c in cases)
        return f"{len(cases)} ({n['proceed']}/{n['escalate']}/{n['block']}) {h}"

    for category in CATEGORIES + ("**total**",):
        row = [cell([c for c in splits[s] if category == "**total**" or c["category"] == category]) for s in SPLITS]
        lines.append(f"| {category} | {row[0]} | {row[1]} |")
    return "\n".join(lines) + "\n"


def run(check: bool, force_refreeze: bool, stats: bool, out: Path = OUT_DIR) -> int:
    """The --version 2 side of ``python -m heldout.generate``; same freeze rules as v1."""
    if stats:
        from . import load_cases

        print(stats_table({s: load_cases(out / f"{s}.jsonl") for s in SPLITS}), end="")
        return 0
    files = build_all()
    frozen_path = out / "FROZEN.sha256"
    frozen = frozen_path.read_text(encoding="utf-8").split()[0] if frozen_path.exists() else None
    if check:
        ok = True
        for split, data in files.items():
            path = out / f"{split}.jsonl"
            if not path.exists() or path.read_bytes() != data:
                print(f"{path}: differs from what the generator produces", file=sys.stderr)
                ok = False
        if frozen != sha256(files["test"]):
            print("v2/FROZEN.sha256 does not match the generated test split", file=sys.stderr)
            ok = False
        print("heldout v2: dev.jsonl and test.jsonl match the generator" if ok else "heldout v2: check FAILED")
        return 0 if ok else 1
    out.mkdir(parents=True, exist_ok=True)
    (out / "dev.jsonl").write_bytes(files["dev"])
    new_hash = sha256(files["test"])
    if force_refreeze or frozen is None:
        (out / "test.jsonl").write_bytes(files["test"])
        frozen_path.write_text(f"{new_hash}  test.jsonl\n", encoding="utf-8")
        print(f"heldout v2: wrote dev.jsonl and test.jsonl; test frozen at {new_hash}")
        return 0
    if new_hash != frozen:
        print(
            f"heldout v2: refusing to replace test.jsonl: the generator now produces {new_hash}, "
            f"v2/FROZEN.sha256 says {frozen}. If the change is deliberate, rerun with --force-refreeze "
            "and say why in the commit.",
            file=sys.stderr,
        )
        return 2
    (out / "test.jsonl").write_bytes(files["test"])
    print(f"heldout v2: wrote dev.jsonl; test.jsonl unchanged ({new_hash})")
    return 0


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


__all__ = ["CATEGORIES", "build_all", "run", "tokens_of", "lint_v2", "MAX_TEXT"]
