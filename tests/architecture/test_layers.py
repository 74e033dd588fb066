"""The folder tree is the architecture: imports run one way, and only the
extension room touches spaCy's underscore storage.

Layers, lowest first: util, lang, glossary, core, pipes, api (``api``, ``workers``,
``views``), ops. A module may import its own layer and those below it, never
one above; ``core`` never sees a ``Doc``.
"""
import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "semgap_spacy"
LAYERS = ["about", "util", "data", "lang", "glossary", "core", "pipes", "api", "ops"]
TOP_LEVEL = {"api": "api", "views": "api", "workers": "api", "about": "about", "__init__": "ops", "__main__": "ops"}
EXTENSION_ROOM = PACKAGE / "pipes" / "extensions.py"


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or parts[0] != "semgap_spacy":
        return ""
    head = parts[1]
    return TOP_LEVEL.get(head, head)


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts)


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf8"))
    package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module_name(path)
    if path.name == "__init__.py":
        package = package.rsplit(".", 1)[0] if package.endswith("__init__") else package
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                names = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""]
            for name in names:
                yield node.lineno, name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name


def _sources():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_one_way(path):
    own = _layer(_module_name(path).replace(".__init__", ""))
    if path == PACKAGE / "__init__.py":
        return  # the package root re-exports the public API
    upward = []
    for line, target in _imports(path):
        layer = _layer(target)
        if layer and own and LAYERS.index(layer) > LAYERS.index(own):
            upward.append(f"line {line}: {target} ({layer} is above {own})")
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_and_below_never_see_a_doc(path):
    own = _layer(_module_name(path).replace(".__init__", ""))
    if own in ("pipes", "api", "ops", ""):
        return
    spacy_tokens = [f"line {line}: {t}" for line, t in _imports(path) if t.startswith("spacy.tokens")]
    assert not spacy_tokens, "\n".join(spacy_tokens)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_extension_room_touches_underscore_storage(path):
    if path == EXTENSION_ROOM:
        return
    text = path.read_text(encoding="utf8")
    found = [m.group(0) for m in re.finditer(r"\"\._\.\"|'\._\.'|_match_label_id_map|\.phrase_matcher\b|"
                                             r"Underscore\b", text)]
    assert not found, f"{path.name} uses spaCy internals: {sorted(set(found))}"


def _defined_twice(body, where=""):
    seen, twice = set(), []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            decorated = {getattr(d, "attr", None) for d in node.decorator_list}
            # a property's setter and ``typing.overload`` stubs repeat the name on purpose
            if node.name in seen and not decorated & {"setter", "deleter"} and "overload" not in {
                    getattr(d, "id", None) for d in node.decorator_list}:
                twice.append(f"{where}{node.name} (line {node.lineno})")
            seen.add(node.name)
            if isinstance(node, ast.ClassDef):
                twice += _defined_twice(node.body, f"{node.name}.")
    return twice


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_defines_each_name_once(path):
    # a second ``def`` of a name silently replaces the first for every caller, the first's
    # callers included: one rule's meaning would change with no error
    twice = _defined_twice(ast.parse(path.read_text(encoding="utf8")).body)
    assert not twice, f"{path.name} defines again: {', '.join(twice)}"
