"""What every semgap component shares: the glossary it reads, its on/off
switch, serialization of that glossary, and failing closed.

The glossary is data, not config (spaCy's "data ends up in the config file"
problem), so it is given at ``initialize`` and travels in ``to_disk``; an
assembled pipeline never reads the source YAML again. When nobody initializes
the component it reads the glossaries bundled with the package, so
``nlp.add_pipe("semgap_terms")`` works at once.

A component that raises on a document would lose the whole batch; instead
the error is recorded on the doc and the decision escalates on it.
"""
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Union

import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.util import ensure_path, registry

from .extensions import record_component_error
from ..glossary.models import GlossarySet, load_glossaries


def glossary_from_arg(glossary: Union[None, str, Path, dict, GlossarySet]) -> GlossarySet:
    """Accept a GlossarySet, a directory path or a serialized dict."""
    if glossary is None:
        return load_glossaries()
    if isinstance(glossary, GlossarySet):
        return glossary
    if isinstance(glossary, dict):
        return GlossarySet.from_dict(glossary)
    return load_glossaries(glossary)


class SemgapPipe(Pipe):
    """Base for the five components.

    Subclasses implement ``process(doc)`` and may override ``_rebuild()`` to
    recompute indexes after the glossary changes.
    """

    def __init__(self, nlp: Language, name: str, *, enabled: bool = True,
                 glossary: Optional[GlossarySet] = None):
        self.nlp = nlp
        self.name = name
        self.enabled = enabled
        self.glossary = glossary if glossary is not None else load_glossaries()
        self.cfg = {"enabled": enabled}

    # -- running ---------------------------------------------------------
    def process(self, doc: Doc) -> Doc:  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, doc: Doc) -> Doc:
        """Run the component; on failure record the error and return the doc.

        doc (Doc): The document.
        RETURNS (Doc): The same document.
        """
        if not self.enabled:
            return doc
        try:
            return self.process(doc)
        except Exception as exc:  # fail closed: the decision escalates on it
            record_component_error(doc, self.name, exc)
            return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        for doc in stream:
            yield self(doc)

    # -- data ------------------------------------------------------------
    def initialize(self, get_examples: Optional[Callable] = None, *, nlp: Optional[Language] = None,
                   glossary: Union[None, str, Path, dict, GlossarySet] = None) -> None:
        """Load the glossary this component reads.

        glossary (GlossarySet | str | Path | dict | None): The glossary set, a
            directory of domain YAML files, or None to keep the current one (the
            bundled glossaries, or what ``semgap.glossary_init.v1`` set).
        """
        if glossary is not None:
            self.set_glossary(glossary_from_arg(glossary))

    def set_glossary(self, glossary: GlossarySet) -> None:
        self.glossary = glossary
        self._rebuild()

    def _rebuild(self) -> None:
        """Recompute whatever the component derives from its glossary."""

    # -- serialization ---------------------------------------------------
    def _serializers(self):
        return {
            "cfg": lambda: srsly.json_dumps(self.cfg),
            "glossary": lambda: srsly.json_dumps(self.glossary.to_dict()),
        }

    def _load(self, data: dict) -> None:
        # cfg.json is written for readers only: the pipeline's config builds the
        # component, so a switch overridden at load time must win over the file.
        if "glossary" in data:
            self.set_glossary(GlossarySet.from_dict(data["glossary"], source=f"{self.name}/glossary"))

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return srsly.msgpack_dumps({k: fn() for k, fn in self._serializers().items() if k not in exclude})

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "SemgapPipe":
        payload = srsly.msgpack_loads(bytes_data)
        self._load({k: srsly.json_loads(v) for k, v in payload.items() if k not in exclude})
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        for key, fn in self._serializers().items():
            if key not in exclude:
                (path / f"{key}.json").write_text(fn(), encoding="utf8")

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "SemgapPipe":
        path = ensure_path(path)
        data = {}
        for key in self._serializers():
            file = path / f"{key}.json"
            if key not in exclude and file.exists():
                data[key] = srsly.read_json(file)
        self._load(data)
        return self


@registry.callbacks("semgap.glossary_init.v1")
def glossary_init_v1(path: Optional[str] = None) -> Callable[[Language], Language]:
    """An ``[initialize.before_init]`` callback that gives every semgap pipe one glossary set.

    The set is loaded once, here, rather than once per pipe; it then travels in
    each pipe's ``to_disk`` so an assembled pipeline never reads the YAML again.
    path (Optional[str]): Directory of ``*.yaml`` domain glossaries; None for the bundled ones.
    RETURNS (Callable[[Language], Language]): The callback.
    """
    def set_glossary(nlp: Language) -> Language:
        glossary = load_glossaries(path)
        for _, pipe in nlp.pipeline:
            if isinstance(pipe, SemgapPipe):
                pipe.set_glossary(glossary)
        return nlp
    return set_glossary
