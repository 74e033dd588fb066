"""Which glossary a component decides with, however the pipeline was made: added
by name, loaded from disk (``spacy.load`` and ``load_pipeline``, which builds each
component once) or initialized with a glossary."""
import shutil

import pytest
import spacy

from semgap_spacy import assess, build_pipeline
from semgap_spacy.api import PIPE_NAMES, pipeline_glossary
from semgap_spacy.glossary import bundled_glossary_dir
from semgap_spacy.glossary.models import load_glossaries
from semgap_spacy.pipes.base import SemgapPipe, deferred_builds, load_pipeline

#: a clearance phrase only the edited glossary has
TEXT = "Good to fund"


@pytest.fixture(scope="module")
def edited_dir(tmp_path_factory):
    """The bundled glossaries with one more clearance phrase for MTG.CTC."""
    path = tmp_path_factory.mktemp("glossaries") / "g"
    shutil.copytree(bundled_glossary_dir(), path,
                    ignore=shutil.ignore_patterns("__init__.py", "__pycache__", "archive"))
    mortgage = path / "mortgage.yaml"
    old = "phrases: [clear to close, cleared to close]"
    assert old in mortgage.read_text(encoding="utf8")
    mortgage.write_text(mortgage.read_text(encoding="utf8").replace(old, old[:-1] + ", good to fund]"),
                        encoding="utf8")
    return path


def _decide(nlp, text=TEXT):
    return assess(nlp, text, domain="mortgage")._.semgap_decision


def test_the_edited_glossary_changes_the_decision(edited_dir):
    assert _decide(build_pipeline())["decision"] == "escalate"
    assert _decide(build_pipeline(str(edited_dir)))["decision"] == "proceed"


def test_pipes_added_by_name_decide_at_once():
    nlp = spacy.blank("en")
    for name in PIPE_NAMES:
        nlp.add_pipe(name)
    doc = nlp.make_doc("Clear to close issued")
    doc._.semgap_domain = "mortgage"
    decision = nlp(doc)._.semgap_decision
    assert decision["glossary_sha256"] == load_glossaries().sha256
    assert decision["decision"] == "proceed"


@pytest.mark.parametrize("loader", [spacy.load, load_pipeline], ids=["spacy.load", "load_pipeline"])
def test_a_saved_glossary_is_the_one_a_load_decides_with(edited_dir, tmp_path, loader):
    edited = load_glossaries(edited_dir)
    assert edited.sha256 != load_glossaries().sha256
    build_pipeline(str(edited_dir)).to_disk(tmp_path / "p")
    nlp = loader(tmp_path / "p")
    for name in PIPE_NAMES:
        assert nlp.get_pipe(name).glossary.sha256 == edited.sha256, name
    # the same saved text is read and validated once: one set for the whole pipeline
    assert len({id(nlp.get_pipe(name).glossary) for name in PIPE_NAMES}) == 1
    decision = _decide(nlp)
    assert decision["decision"] == "proceed"
    assert decision["glossary_sha256"] == edited.sha256


def test_a_load_without_the_saved_glossary_builds_from_the_bundled_one(edited_dir, tmp_path):
    build_pipeline(str(edited_dir)).to_disk(tmp_path / "p")
    nlp = load_pipeline(tmp_path / "p", exclude=[])  # every file read
    assert _decide(nlp)["decision"] == "proceed"
    # a component whose glossary file is gone waits for nothing: it builds from the bundled set
    shutil.rmtree(tmp_path / "p" / "semgap_terms")
    (tmp_path / "p" / "semgap_terms").mkdir()
    nlp = load_pipeline(tmp_path / "p")
    assert nlp.get_pipe("semgap_terms").glossary.sha256 == load_glossaries().sha256
    assert nlp.get_pipe("semgap_decision").glossary.sha256 == load_glossaries(edited_dir).sha256


def test_initialize_with_a_glossary_is_honoured(edited_dir):
    nlp = spacy.blank("en")
    for name in PIPE_NAMES:
        nlp.add_pipe(name)
    assert _decide(nlp)["decision"] == "escalate"
    nlp.initialize(lambda: [])
    for name in PIPE_NAMES:
        nlp.get_pipe(name).initialize(nlp=nlp, glossary=str(edited_dir))
    assert _decide(nlp)["decision"] == "proceed"
    assert pipeline_glossary(nlp).sha256 == load_glossaries(edited_dir).sha256


def test_pipes_made_while_builds_wait_are_built_when_the_block_ends(edited_dir):
    edited = load_glossaries(edited_dir)
    nlp = spacy.blank("en")
    with deferred_builds():
        for name in PIPE_NAMES:
            nlp.add_pipe(name)
        nlp.get_pipe("semgap_terms").set_glossary(edited)
    for name in PIPE_NAMES:
        assert isinstance(nlp.get_pipe(name), SemgapPipe)
        assert nlp.get_pipe(name).glossary is not None, name
    assert nlp.get_pipe("semgap_terms").glossary is edited
    assert nlp.get_pipe("semgap_decision").glossary.sha256 == load_glossaries().sha256
    # the terms pipe matched with the glossary it was given, not the bundled one
    doc = assess(nlp, TEXT, domain="mortgage")
    assert [s.text for s in doc.spans["semgap_terms"]] == [TEXT]


def test_a_failed_load_leaves_no_waiting_builds(tmp_path):
    with pytest.raises(Exception):
        load_pipeline(tmp_path / "missing")
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_terms")  # outside any block: built at once
    assert nlp.get_pipe("semgap_terms").glossary.sha256 == load_glossaries().sha256
    doc = assess(nlp, "clear to close", domain="mortgage")
    assert [s.text for s in doc.spans["semgap_terms"]] == ["clear to close"]


def test_a_damaged_saved_glossary_stops_the_load_naming_the_pipe(tmp_path):
    build_pipeline().to_disk(tmp_path / "p")
    path = tmp_path / "p" / "semgap_terms" / "glossary.json"
    path.write_text(path.read_text(encoding="utf8").replace('"signal":"clear"', '"signal":"cleared"', 1),
                    encoding="utf8")
    with pytest.raises(Exception, match="semgap_terms/glossary"):
        load_pipeline(tmp_path / "p")


def test_a_pipe_kept_from_a_failed_block_builds_when_its_glossary_is_set():
    nlp = spacy.blank("en")
    with pytest.raises(RuntimeError):
        with deferred_builds():
            nlp.add_pipe("semgap_terms")
            raise RuntimeError("the load failed")
    terms = nlp.get_pipe("semgap_terms")
    assert terms.glossary is None  # never built from a glossary nobody gave it
    terms.set_glossary(load_glossaries())
    doc = assess(nlp, "clear to close", domain="mortgage")
    assert [s.text for s in doc.spans["semgap_terms"]] == ["clear to close"]


def _count_builds(monkeypatch) -> list:
    """The names of the pipes built from now on, one entry a build (``_rebuild``)."""
    classes = {type(p) for _, p in build_pipeline().pipeline}
    builds = []
    for cls in classes:
        def counted(self, build=cls._rebuild):
            builds.append(self.name)
            build(self)
        monkeypatch.setattr(cls, "_rebuild", counted)
    return builds


def test_pipes_added_with_a_glossary_build_once_from_it(edited_dir, monkeypatch):
    import semgap_spacy.pipes.base as base
    from semgap_spacy import add_semgap_pipes

    edited = load_glossaries(edited_dir)
    builds = _count_builds(monkeypatch)

    def bundled(*args, **kwargs):
        raise AssertionError("the bundled glossaries were read")

    monkeypatch.setattr(base, "load_glossaries", bundled)
    nlp = add_semgap_pipes(spacy.blank("en"), glossary=edited)
    assert sorted(builds) == sorted(PIPE_NAMES)
    assert _decide(nlp)["decision"] == "proceed"


def test_spacy_load_of_the_bundled_glossaries_builds_each_pipe_once(tmp_path, monkeypatch):
    from semgap_spacy.glossary import models

    built = build_pipeline()
    built.to_disk(tmp_path / "p")
    builds = _count_builds(monkeypatch)
    bundled = load_glossaries()

    def validated(*args, **kwargs):
        raise AssertionError("the saved glossary was validated again")

    monkeypatch.setattr(models.GlossarySet, "from_dict", validated)
    monkeypatch.setattr(models, "_FROM_JSON", {})  # not found by its text: by its content
    nlp = spacy.load(tmp_path / "p")
    # made from the bundled glossaries; the saved one is the same content, so nothing is built again
    assert sorted(builds) == sorted(PIPE_NAMES)
    assert all(nlp.get_pipe(name).glossary is bundled for name in PIPE_NAMES)
    texts = ["Clear to close issued", "Not clear to close", "Clear to close; deferred interest added"]
    assert [_decide(nlp, t) for t in texts] == [_decide(built, t) for t in texts]


def test_spacy_load_of_another_glossary_builds_each_pipe_again_from_it(edited_dir, tmp_path, monkeypatch):
    build_pipeline(str(edited_dir)).to_disk(tmp_path / "p")
    builds = _count_builds(monkeypatch)
    nlp = spacy.load(tmp_path / "p")
    assert sorted(builds) == sorted(PIPE_NAMES * 2)  # made from the bundled set, then from the saved one
    assert _decide(nlp)["decision"] == "proceed"


def test_saved_cues_are_taken_when_the_glossary_is_the_same(tmp_path, monkeypatch):
    nlp = build_pipeline()
    context = nlp.get_pipe("semgap_context")
    custom = {lang: cs.to_payload() for lang, cs in context.cue_sets.items()}
    custom["en"]["semgap_context_cues"]["cues"].append(
        {"cue": "zorblax", "category": "negation", "direction": "forward"})
    context.initialize(cues=custom)
    nlp.to_disk(tmp_path / "p")
    builds = _count_builds(monkeypatch)
    loaded = spacy.load(tmp_path / "p")
    assert sorted(builds) == sorted(PIPE_NAMES + ("semgap_context",))  # the context pipe again, for its cues
    assert loaded.get_pipe("semgap_context").cue_info == context.cue_info
    text = "zorblax clear to close"
    assert _decide(loaded, text) == _decide(nlp, text)
    docs = [assess(p, text, domain="mortgage") for p in (loaded, build_pipeline())]
    assert [[s._.semgap_negated for s in doc.spans["semgap_terms"]] for doc in docs] == [[True], [False]]


def test_a_load_that_fails_leaves_the_pipe_as_it_was(edited_dir, tmp_path):
    # a saved glossary without the decision's default domain is refused before it is taken
    edited = load_glossaries(edited_dir)
    nlp = build_pipeline(str(edited_dir))
    nlp.to_disk(tmp_path / "p")
    decision = spacy.blank("en").add_pipe("semgap_decision", config={"default_domain": "mortgage"})
    only_others = {k: v for k, v in edited.to_dict().items() if k != "mortgage"}
    import srsly
    with pytest.raises(ValueError, match="default_domain 'mortgage' is not a domain"):
        decision.from_bytes(srsly.msgpack_dumps({"glossary": srsly.json_dumps(only_others)}))
    assert decision.glossary.sha256 == load_glossaries().sha256
    # cues that do not validate: neither they nor the saved (other) glossary are taken
    bad = tmp_path / "p" / "semgap_context" / "cues.json"
    bad.write_text(bad.read_text(encoding="utf8").replace('"lang": "en"', '"lang": "xx"', 1), encoding="utf8")
    context = spacy.blank("en").add_pipe("semgap_context")
    with pytest.raises(Exception, match="expected 'en'"):
        context.from_disk(tmp_path / "p" / "semgap_context")
    assert context.glossary.sha256 == load_glossaries().sha256
