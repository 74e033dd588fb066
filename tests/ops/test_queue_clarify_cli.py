"""`queue clarify` records a named reviewer's reading of an ambiguous abbreviation."""
from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.ops.queue_cli import main
from semgap_spacy.ops.review_queue import ReviewQueue


def test_clarify_from_the_command_line(tmp_path, capsys):
    text = "batch released, OOS on assay"
    decision = list(decide_cases(build_pipeline(), [{"id": "c1", "domain": "pharma_qa", "text": text}]))[0]
    db = str(tmp_path / "q.sqlite3")
    with ReviewQueue(db) as queue:
        seq = queue.enqueue(decision, text).seq
    base = ["queue", "clarify", str(seq), "--abbreviation", "OOS", "--db", db]
    assert main(base + ["--choice", "out of specification"]) == 1          # no reviewer
    assert "named human reviewer" in capsys.readouterr().err
    assert main(base + ["--reviewer", "Tobias Wren", "--choice", "out of office"]) == 1  # not offered
    assert main(base + ["--reviewer", "Tobias Wren", "--choice", "out of specification",
                        "--rationale", "assay failed"]) == 0
    with ReviewQueue(db) as queue:
        offered = queue.clarifications_for("oos")
        assert queue.verify().ok
    assert [(c["choice"], c["reviewer"]) for c in offered] == [("out of specification", "Tobias Wren")]
    assert decision["decision"] == "escalate"  # the clarification does not change the logged decision
