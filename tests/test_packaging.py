"""The wheel carries the glossaries and the rule data, so an install outside
the repository still finds them."""
import subprocess
import sys
import zipfile

import pytest


def test_wheel_contains_glossaries_and_rule_data(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps",
                           "-w", str(tmp_path), "-q"], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"pip wheel failed: {proc.stderr[-2000:]}")
    wheel = next(tmp_path.glob("semgap_spacy-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for domain in ("medical_logistics", "mortgage", "pharma_qa", "aviation_maintenance"):
        assert f"semgap_spacy/glossaries/{domain}.yaml" in names
        assert f"semgap_spacy/glossaries/archive/2026.11.0/{domain}.yaml" in names
    for lang in ("en", "es", "fr", "de"):
        assert f"semgap_spacy/lang/{lang}/cues.json" in names
        assert f"semgap_spacy/lang/{lang}/pack.yaml" in names
    for data in ("units.yaml", "bundled_forms.json", "drift.yaml", "governance.yaml"):
        assert f"semgap_spacy/data/{data}" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "semgap_spacy/py.typed" in names  # type checkers read the package's hints
    assert "semgap_terms = semgap_spacy.pipes.terms:make_terms" in text
