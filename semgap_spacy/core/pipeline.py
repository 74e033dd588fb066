"""Which pipes a decision needs, in which order, and whether they all read the text.

A pipe that did not run leaves a doc that looks like a doc with nothing in
it: without ``semgap_context`` a negated clearance looks asserted, without
``semgap_quantities`` a limit in the text is never checked. Either way the
rest of the pipeline would happily ``proceed``. So every semgap pipe leaves
one entry in a run record on the doc (name, factory, status, its config
switches) and the decision checks that record against the contract read
from ``data/pipeline.json``: a required pipe missing, disabled, failed, run
out of order or run with a reading switch off gives ``pipeline_incomplete``
(escalate). Ablation, switching pipes or features off on purpose to measure
them, is only excused by an explicit switch, and then said in every
decision it touches.

All of this is on plain values (lists of dicts), so it runs the same in one
process, under ``n_process`` and after a DocBin round trip.
"""
import json
from functools import lru_cache
from importlib import resources
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from .reasons import make_reason

RAN, DISABLED, FAILED, SKIPPED = "ran", "disabled", "failed", "skipped"
PIPELINE_INCOMPLETE = "pipeline_incomplete"


class Requirement(NamedTuple):
    """One pipe the decision needs."""

    factory: str
    #: an attribute only this pipe assigns (the decision declares it as ``requires``)
    signature: str
    #: (switch, value) pairs the config must hold for the pipe to count as a full read
    full_read: Tuple[Tuple[str, object], ...]
    #: (switch, text) pairs: what another value of the switch can mean, said in the message
    why: Tuple[Tuple[str, str], ...] = ()


class Contract(NamedTuple):
    """The required pipes, in order, and the decision that comes after them."""

    required: Tuple[Requirement, ...]
    decision: str

    @property
    def order(self) -> Tuple[str, ...]:
        """Every semgap factory in the order it must run, the decision last."""
        return tuple(r.factory for r in self.required) + (self.decision,)


def contract_from_dict(data: dict) -> Contract:
    """A contract from its JSON form (``data/pipeline.json``)."""
    required = tuple(Requirement(r["factory"], r["signature"], tuple((r.get("full_read") or {}).items()),
                                 tuple((r.get("why") or {}).items()))
                     for r in data["required"])
    return Contract(required, data["decision"])


@lru_cache(maxsize=1)
def contract() -> Contract:
    """The packaged contract: data, so a new pipe is one more entry, not new code."""
    text = resources.files("semgap_spacy.data").joinpath("pipeline.json").read_text(encoding="utf8")
    return contract_from_dict(json.loads(text))


@lru_cache(maxsize=8)
def _ranks(spec: Contract) -> Dict[str, int]:
    return {f: i for i, f in enumerate(spec.order)}


def expected_order() -> Tuple[str, ...]:
    """The semgap factories in the order they must run."""
    return contract().order


def _arrow(names: Sequence[str]) -> str:
    return " → ".join(names)


def order_problem(factories: Sequence[str], spec: Optional[Contract] = None) -> Optional[str]:
    """A message when the semgap factories in a pipeline run out of order, else None.

    Only the relative order of the semgap factories present is judged (other
    pipes and missing semgap pipes are not), so a user who adds the pipes to
    ``en_core_web_sm`` or uses a few of them alone is never refused.
    factories (Sequence[str]): Factory names in pipeline order; others are ignored.
    RETURNS (Optional[str]): The problem, naming the expected order.
    """
    spec = spec or contract()
    rank = _ranks(spec)
    ours = [f for f in factories if f in rank]
    if all(rank[a] <= rank[b] for a, b in zip(ours, ours[1:])):
        return None
    return (f"semgap pipes out of order: {_arrow(ours)}; they must run in the order "
            f"{_arrow(spec.order)} (other pipes may sit anywhere between them)")


class RunCheck(NamedTuple):
    """What the run record says about a decision."""

    #: ``pipeline_incomplete`` when the text was not fully read, else empty
    reasons: List[dict]
    #: with ablation on: which pipes and switches were off (possibly none); else None
    ablation: Optional[dict]


def _setting(switch: str, value: Any, full: Any, why: Optional[str] = None) -> str:
    """A switch that reads less than in full, as a message says it: "negation off", or
    "min_length = 3 (a full read needs 5)", with what the value can mean when the contract says."""
    if full is True and not value:
        return f"{switch} off"
    return f"{switch} = {json.dumps(value)} (a full read needs {json.dumps(full)}{': ' + why if why else ''})"


#: the switches that name a span group of cues or unexplained words (``semgap_context`` writes its
#: cues there, ``semgap_coverage`` reads them and writes the unexplained words): set to a group the
#: decision reads, they put those spans among its terms or quantities
_WRITES = ("cues_key", "unexplained_key")


def check_runs(record, *, ablation: bool = False, spans_key: Optional[str] = None,
               quantities_key: Optional[str] = None, spec: Optional[Contract] = None) -> RunCheck:
    """Check a run record against the contract.

    record (list | tuple | None): The run record, one dict per semgap pipe that saw the doc
        (``name``, ``factory``, ``status``, ``config``), in order; the decision's own not yet in it.
    ablation (bool): Switched-off and missing pipes were meant (an evaluation); failures,
        a wrong order and pipes that read another span group are never excused.
    spans_key (Optional[str]): The term span group the decision reads; a pipe configured for
        another group (context marking spans the decision never sees) is not a full read.
    quantities_key (Optional[str]): The quantity span group the decision reads; likewise. A pipe
        that keeps cues or unexplained words in either group (``cues_key``, ``unexplained_key``) is
        not a full read either: the decision would read them as terms or quantities.
    RETURNS (RunCheck): The reasons and, with ablation, what was off.

    Every entry of a required pipe is checked, not only the first: a second copy that
    reads less (a clinical ``semgap_context`` on ``doc.ents`` placed after the spec one)
    writes over what the first left on the same spans.
    """
    spec = spec or contract()
    rank = _ranks(spec)
    decision = spec.decision
    entries, of_factory = [], {}
    for e in record or ():
        if type(e) is dict:
            factory = e.get("factory")
            if factory in rank and factory != decision:
                entries.append(e)
                of_factory.setdefault(factory, []).append(e)
    keys = [(k, v) for k, v in (("spans_key", spans_key), ("quantities_key", quantities_key)) if v is not None]
    missing, disabled, failed, off, elsewhere, overwrites = [], [], [], {}, [], []
    read_groups = {v for _, v in keys}
    settings: Dict[str, List[str]] = {}  # how each switched-off switch was set, for the message
    for req in spec.required:
        found = of_factory.get(req.factory)
        if not found:
            missing.append(req.factory)
            continue
        for entry in found:
            name = entry.get("name") or req.factory
            status = entry.get("status")
            if status == RAN:
                config = entry.get("config") or {}
                switches = [k for k, v in req.full_read if k != "enabled" and config.get(k) != v]
                if switches:
                    off[name] = switches
                    settings[name] = [_setting(k, config.get(k), v, dict(req.why).get(k))
                                      for k, v in req.full_read if k in switches]
                if any(config.get(k, v) != v for k, v in keys):
                    elsewhere.append(name)
                elif any(config.get(k) in read_groups for k in _WRITES):
                    overwrites.append(name)
            elif status == DISABLED:
                disabled.append(name)
            elif status != SKIPPED:  # failed, or a status no pipe writes: not a full read
                failed.append(name)
    misordered = False
    last = -1
    for e in entries:
        r = rank[e["factory"]]
        if r < last:
            misordered = True
            break
        last = r
    if not (missing or disabled or failed or off or misordered or elsewhere or overwrites):
        return RunCheck([], {"missing": [], "disabled": [], "switched_off": {}} if ablation else None)
    problems = [f"{name} failed" for name in failed]
    groups = " and ".join(repr(v) for _, v in keys)
    problems += [f"{name} reads another span group than the decision ({groups})" for name in elsewhere]
    problems += [f"{name} keeps cues or unexplained words in a span group the decision reads ({groups})"
                 for name in overwrites]
    if misordered:
        problems.append(f"the pipes ran in the order {_arrow([e.get('name') or e['factory'] for e in entries])}")
    if not ablation:
        problems = ([f"{f} did not run" for f in missing] + [f"{n} is disabled" for n in disabled]
                    + [f"{n} ran with {', '.join(settings[n])}" for n in off]
                    + problems)
    reasons = []
    if problems:
        named = ([] if ablation else missing + disabled + list(off)) + failed + elsewhere + overwrites
        if misordered:
            named += [e.get("name") or e["factory"] for e in entries]
        reasons.append(make_reason(
            PIPELINE_INCOMPLETE, f"the text was not fully read: {'; '.join(problems)}; the semgap pipes must "
            f"run in the order {_arrow(spec.order)}", pipes=list(dict.fromkeys(named)),
            expected_order=list(spec.order)))
    info = {"missing": missing, "disabled": disabled, "switched_off": off} if ablation else None
    return RunCheck(reasons, info)
