"""A command never writes its output over one of its own inputs, nor into a glossary folder.

The rename that makes OUT whole (``util.safe_output``) would replace the file
just read: the review queue with its export (the audit chain gone), the cases
with their decisions, a governed domain file with a changelog. Each is refused
before any work, with exit 1 (2 for ``assess``), and the input is as it was.
"""
import json
import shutil
from pathlib import Path

import pytest

from semgap_spacy.glossary import bundled_glossary_dir
from semgap_spacy.ops.cli import main
from semgap_spacy.ops.provenance_cli import main as provenance_main
from semgap_spacy.ops.queue_cli import main as queue_main
from semgap_spacy.ops.review_queue import ReviewQueue
from semgap_spacy.util.safe_output import OutputClash, refuse_clash


def _cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "c1", "domain": "mortgage", "text": "Clear to close"}) + "\n")
    return path


def test_assess_refuses_out_that_is_its_cases(tmp_path, capsys):
    cases = _cases(tmp_path)
    before = cases.read_bytes()
    assert main(["assess", "--cases", str(cases), "--out", str(cases)]) == 2
    assert "also an input" in capsys.readouterr().err
    assert cases.read_bytes() == before


def test_assess_refuses_a_folder_as_out_before_any_work(tmp_path, capsys):
    assert main(["assess", "--cases", str(_cases(tmp_path)), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and ".tmp" not in err


def test_queue_export_refuses_the_queue_itself(tmp_path, capsys):
    db = tmp_path / "q.sqlite3"
    with ReviewQueue(db):
        pass
    before = db.read_bytes()
    assert queue_main(["queue", "export", "--db", str(db), "--out", str(db)]) == 1
    assert "also an input" in capsys.readouterr().err
    assert db.read_bytes() == before
    assert queue_main(["queue", "verify", "--db", str(db)]) == 0


def test_changelog_refuses_a_file_inside_a_glossary_folder(tmp_path, capsys):
    from semgap_spacy.ops.glossary_cli import main as glossary_main

    old = tmp_path / "old"
    shutil.copytree(bundled_glossary_dir(), old, ignore=shutil.ignore_patterns("archive", "drafts"))
    new = tmp_path / "new"
    shutil.copytree(old, new)
    target = new / "mortgage.yaml"
    before = target.read_bytes()
    assert glossary_main(["glossary", "changelog", str(old), str(new), "--out", str(target)]) == 1
    assert "inside" in capsys.readouterr().err
    assert target.read_bytes() == before


def test_sign_refuses_out_that_is_its_decisions(tmp_path, capsys, monkeypatch):
    decisions = tmp_path / "d.jsonl"
    decisions.write_text(json.dumps({"id": "c1", "decision": "escalate", "reasons": []}) + "\n")
    monkeypatch.setenv("K", "k" * 32)
    before = decisions.read_bytes()
    assert provenance_main(["sign", "--decisions", str(decisions), "--out", str(decisions),
                            "--key-env", "K"]) == 1
    assert "also an input" in capsys.readouterr().err
    assert decisions.read_bytes() == before


def test_a_link_to_an_input_is_the_input(tmp_path):
    cases = _cases(tmp_path)
    link = tmp_path / "link.jsonl"
    link.symlink_to(cases)
    with pytest.raises(OutputClash):
        refuse_clash(link, [cases])
    refuse_clash(tmp_path / "other.jsonl", [cases])  # another file: fine
    refuse_clash("-", [cases])  # stdout: fine
