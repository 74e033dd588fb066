"""The context evaluation scores what it is given and labels error causes as documented.

The component under test is being redesigned, so nothing here depends on what
it predicts: scoring is checked on hand-made predictions, the cause labels on
crafted sentences, and the command end to end on a tiny set with the NegEx
file absent (it must skip with a message, not fail).
"""
import json

import pytest

from scripts import context_eval as ce


def sample(text, target, negated, hedged, note="t"):
    start = text.index(target)
    return {"id": f"x-{abs(hash(text)) % 10**6}", "lang": "en", "text": text, "note": note,
            "targets": [{"start_char": start, "end_char": start + len(target), "text": target,
                         "negated": negated, "hedged": hedged}]}


def test_score_counts_each_cell():
    s1, s2, s3, s4 = (sample("No fever.", "fever", True, False), sample("Fever.", "Fever", False, False),
                      sample("No pain.", "pain", True, True), sample("Pain.", "Pain", False, False))
    preds = [(s1, s1["targets"][0], {"negated": True, "hedged": False}),
             (s2, s2["targets"][0], {"negated": True, "hedged": True}),
             (s3, s3["targets"][0], {"negated": False, "hedged": True}),
             (s4, s4["targets"][0], None)]
    neg = ce.score(preds, "negated")
    assert (neg["tp"], neg["fp"], neg["fn"], neg["tn"]) == (1, 1, 1, 0)
    assert neg["precision"] == 0.5 and neg["recall"] == 0.5 and neg["f1"] == 0.5
    hedge = ce.score(preds, "hedged")
    assert (hedge["tp"], hedge["fp"], hedge["fn"], hedge["tn"]) == (1, 1, 0, 1)
    notes = ce.by_note(preds, hedges=True)["t"]
    assert notes == {"targets": 4, "negation_errors": 2, "hedge_errors": 1, "unaligned": 1}
    assert len(ce.error_list(preds, hedges=True)) == 3


def test_ratios_without_positives():
    assert ce.ratios(0, 0, 0, 5)["f1"] == 0.0


@pytest.fixture(scope="module")
def finder():
    return ce.CauseFinder(window=6)


@pytest.mark.parametrize("text,target,kind,cause", [
    ("Extremities reveal no cyanosis, clubbing, or edema.", "clubbing", "miss", "list"),
    ("There is no evidence on the portable film from this morning of pneumothorax.", "pneumothorax",
     "miss", "beyond window"),
    ("Blood cultures were negative.", "Blood cultures", "miss", "backward cue"),
    ("Patient reports lack of appetite.", "appetite", "miss", "no known cue"),
    ("No rash.", "rash", "miss", "other"),
    ("The scan showed no abnormalities.", "showed no abnormalities", "false_alarm", "cue inside target"),
    ("No change in the effusion.", "effusion", "false_alarm", "pseudo cue"),
    ("Drains: none  FINDINGS: dense adhesions", "dense adhesions", "false_alarm", "section header"),
    ("Pneumonia was seen and the patient does not smoke.", "Pneumonia", "false_alarm", "backward cue"),
    ("Admit to rule out myocardial infarction.", "myocardial infarction", "false_alarm", "speculation"),
    ("No fever but a cough.", "cough", "false_alarm", "clause break"),
])
def test_causes(finder, text, target, kind, cause):
    start = text.index(target)
    assert finder.cause(text, start, start + len(target), kind) == cause


def test_reported_cue_decides_the_false_alarm_cause(finder):
    text = "No fever; the wound is clean."
    start = text.index("wound")
    assert finder.cause(text, start, start + 5, "false_alarm", cue_chars=(0, 2)) == "clause break"


def test_command_skips_missing_negex_and_scores_the_sets(tmp_path, capsys):
    rows = [sample("No fever, chills or cough today.", "chills", True, False),
            sample("Possible pneumonia on the film.", "pneumonia", False, True)]
    (tmp_path / "en.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf8")
    out = tmp_path / "eval.json"
    code = ce.main(["--negex", str(tmp_path / "absent.tsv"), "--sets", str(tmp_path), "--no-negspacy",
                    "--no-medspacy", "--repeats", "1", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "NegEx test set not found" in printed
    report = json.loads(out.read_text(encoding="utf8"))
    assert "skipped" in report["sets"]["negex"]
    # without NegEx the profiles are timed on the English sentences, alone (no other component installed)
    assert report["speed"]["set"] == "en" and not any(k.startswith("ratio_to_") for k in report["speed"])
    assert set(report["profiles"]) == {"spec", "clinical"}
    assert report["profiles"]["clinical"]["reach"] == "narrowed" and report["profiles"]["spec"]["reach"] == "clause"
    for profile in ("spec", "clinical"):
        en = report["sets"]["en"][f"semgap_context/{profile}"]
        assert en["negation"]["tp"] + en["negation"]["fn"] == 1
        assert en["hedge"]["tp"] + en["hedge"]["fn"] == 1
        assert sum(v["targets"] for v in en["by_note"].values()) == 2


def test_skip_negex_says_so(tmp_path):
    out = tmp_path / "eval.json"
    assert ce.main(["--skip-negex", "--sets", str(tmp_path), "--no-negspacy", "--no-medspacy",
                    "--profiles", "spec", "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf8"))
    assert report["sets"]["negex"] == {"skipped": "--skip-negex"} and "skipped" in report["speed"]


def test_bad_config_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit):
        ce.main(["--config", "[1]", "--sets", str(tmp_path), "--out", str(tmp_path / "x.json")])


@pytest.mark.parametrize("text,target,cause", [
    ("No murmurs, gallops, rubs.", "gallops", "list without conjunction"),
    ("He denied any headache, neck pain, weakness, numbness or tingling.", "neck pain", "list"),
])
def test_list_causes(finder, text, target, cause):
    start = text.index(target)
    assert finder.cause(text, start, start + len(target), "miss") == cause


def test_header_with_plural_suffix(finder):
    text = "COMPLICATIONS: None POSTOPERATIVE DIAGNOSIS(ES): 1) INTERNAL HEMORRHOIDS"
    start = text.index("INTERNAL")
    assert finder.cause(text, start, len(text), "false_alarm", cue_chars=(15, 19)) == "section header"


def test_long_documents_keep_each_target_at_its_sentence(tmp_path, capsys):
    from scripts import context_long as cl
    samples = [sample("No fever.", "fever", True, False), sample("Pain in the chest.", "chest", False, False),
               sample("Denies cough.", "cough", True, False)]
    for joiner in cl.JOINS.values():
        docs = cl.join_documents(samples, 2, joiner)
        assert [len(d["targets"]) for d in docs] == [2, 1]
        assert docs[0]["text"] == joiner.join(["No fever.", "Pain in the chest."])
        assert [docs[0]["text"][t["start_char"]:t["end_char"]] for t in docs[0]["targets"]] == ["fever", "chest"]
    assert cl.main(["--negex", str(tmp_path / "absent.tsv")]) == 0
    assert "NegEx file not found" in capsys.readouterr().out
