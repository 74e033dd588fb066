"""Every module of the package that runs with ``python -m`` takes back, first thing, the Ctrl-C
that ``util.cli_start`` holds while the package imports."""
import ast
import inspect
from pathlib import Path

import pytest

from tests.architecture.test_layers import PACKAGE, _sources


def _runs_as_main(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf8"))
    return any(isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) for node in tree.body)


#: what takes back a Ctrl-C held while ``python -m`` imported the package (``util.cli_start``)
_TAKES_CTRL_C_BACK = {"restore_interrupt", "standalone_main"}


@pytest.mark.parametrize("path", [p for p in _sources() if p.name != "__main__.py" and _runs_as_main(p)],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_run_with_dash_m_takes_a_held_ctrl_c_back_first(path):
    """``python -m semgap_spacy.<module>`` holds Ctrl-C while it imports the package; the
    module's ``main`` must take it back before anything else, or the first Ctrl-C is lost
    (``__main__.py`` runs ``ops.cli.main``, checked the same way)."""
    tree = ast.parse(path.read_text(encoding="utf8"))
    mains = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "main"]
    assert mains, f"{path.name} runs as __main__ but has no main()"
    body = [node for node in mains[0].body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]  # the docstring
    calls = [node.func for node in ast.walk(body[0]) if isinstance(node, ast.Call)]
    assert any(getattr(func, "id", getattr(func, "attr", None)) in _TAKES_CTRL_C_BACK for func in calls), (
        f"{path.name}: main() does not begin with restore_interrupt() or standalone_main(...)")


def test_the_package_main_takes_a_held_ctrl_c_back_first():
    from semgap_spacy.ops import cli

    first = ast.parse(inspect.getsource(cli.main)).body[0].body[0]
    assert "restore_interrupt()" in ast.unparse(first)
