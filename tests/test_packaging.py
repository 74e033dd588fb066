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
    for data in ("units.yaml", "bundled_forms.json", "parsed_yaml.json", "drift.yaml", "governance.yaml",
                 "stop_word_probs.json"):
        assert f"semgap_spacy/data/{data}" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "semgap_spacy/py.typed" in names  # type checkers read the package's hints
    assert "semgap_terms = semgap_spacy.pipes.terms:make_terms" in text
    from semgap_spacy.pipes import doc_rows
    if doc_rows.COMPILED:  # this machine compiles: so does the wheel's build
        assert any(n.startswith("semgap_spacy/pipes/_doc_rows.") and n.endswith(".so") for n in names), names


def test_a_source_tree_reads_its_own_glossaries_installed_or_not(tmp_path):
    """Run from a checkout, the bundled glossaries are that checkout's, whether or not the package
    ``semgap_spacy.glossaries`` (which setup.cfg maps to them) can be imported: no install at all,
    or an editable install of another tree."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    code = ("import sys; sys.modules['semgap_spacy.glossaries'] = None\n"  # as with no install
            "from semgap_spacy.glossary.models import bundled_glossary_dir, load_glossaries\n"
            "print(bundled_glossary_dir()); print(load_glossaries().version)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0] == str(root / "glossaries")


def test_a_machine_without_a_compiler_still_gets_a_wheel(tmp_path):
    """With no working C or C++ compiler the compiled twins are left out, with a message, and the
    wheel holds the Python package whole: its Python twins run (``util.compiled``)."""
    import os
    import shutil
    from pathlib import Path
    # a copy of the source without anything built in it (a build/ folder would be reused)
    source = tmp_path / "source"
    shutil.copytree(Path(__file__).resolve().parents[1], source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "*.so", "*.c", "*.cpp", "__pycache__", ".pytest_cache", ".hypothesis"))
    env = {**os.environ, "CC": "/bin/false", "CXX": "/bin/false", "LDSHARED": "/bin/false",
           "LDCXXSHARED": "/bin/false"}
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-v", "-w", str(tmp_path)],
                          capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
    assert "semgap_spacy.core._scope_reach was not compiled" in proc.stdout + proc.stderr
    names = set(zipfile.ZipFile(next(tmp_path.glob("semgap_spacy-*.whl"))).namelist())
    assert not [n for n in names if n.endswith(".so")]
    assert {"semgap_spacy/pipes/doc_rows.py", "semgap_spacy/core/context.py", "semgap_spacy/util/compiled.py"} <= names
