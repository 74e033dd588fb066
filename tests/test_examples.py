"""The example notebook runs top to bottom and shows what it promises."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "inspect_decisions.ipynb"
EXTRA = "needs the notebook extra: pip install -e '.[notebook]'"


def test_example_notebook_is_committed_without_outputs():
    nbformat = pytest.importorskip("nbformat", reason=EXTRA)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)


def test_example_notebook_runs_top_to_bottom():
    nbformat = pytest.importorskip("nbformat", reason=EXTRA)
    nbclient = pytest.importorskip("nbclient", reason=EXTRA)
    pytest.importorskip("ipykernel", reason=EXTRA)
    pytest.importorskip("pandas", reason=EXTRA)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # Run from the repository root so the kernel imports this checkout's package.
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    # the views the notebook promises: a negated term labelled so, a decision banner, a table
    assert "MTG.CTC · negated" in html and "NEG CUE" in html and "semgap-banner" in html
    assert "clearance_negated" in html and "<table" in html
    assert any("text/plain" in o.get("data", {}) and o["data"]["text/plain"] == "True" for o in outputs)
