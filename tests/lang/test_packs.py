"""Language packs: every pack answers every field, bad packs fail at load with a
clear message, and a fifth language is one new folder, no code change."""
import dataclasses
import json
import shutil
from importlib.resources import files

import pytest
import spacy
import srsly
from spacy.util import registry

from semgap_spacy import assess, build_pipeline
from semgap_spacy.api import case_doc
from semgap_spacy.core.clauses import clause_rule
from semgap_spacy.lang import (BUNDLED, LanguagePack, LanguagePackError, cue_set_identity, generation, get_pack,
                               languages, load_pack, never_neutral_words, pack_digest, pack_identities, packs,
                               register_pack, union, unregister_pack)
from semgap_spacy.lang.cues import load_cue_sets


@pytest.mark.parametrize("code", BUNDLED)
def test_every_bundled_pack_answers_every_field(code):
    pack = get_pack(code)
    for name in LanguagePack.model_fields:
        value = getattr(pack, name)
        assert value is not None, f"{code}: {name}"
    # the spec's words are there (§4, §4.1)
    assert pack.clause_break_words and pack.list_conjunctions and pack.never_neutral
    for cue_set, profile in ((pack.cues, "spec"), (pack.clinical_cues, "clinical")):
        assert cue_set.profile == profile
        assert any(r.category == "negation" for r in cue_set.records)
        assert any(r.category == "hedge" for r in cue_set.records)
        assert any(r.category == "pseudo" for r in cue_set.records)
    # the spec profile is the decision's reading: every cue reaches its whole clause both ways
    assert pack.cues.whole_clause and not pack.clinical_cues.whole_clause


def test_spec_words_are_in_the_packs():
    assert set(union("clause_break_words")) >= {"but", "pero", "mais", "aber"}
    assert {"nor", "ni", "noch", "oder"} <= set(union("list_conjunctions"))
    assert {"not", "sin", "sans", "ohne", "once", "falls"} <= set(union("never_neutral"))
    # the packs' own additions come after the spec's lists, and no spec word is repeated
    assert never_neutral_words()[:len(union("never_neutral"))] == union("never_neutral")
    assert {"seulement", "offen", "hasta", "mostly"} <= set(never_neutral_words())
    assert not set(union("never_neutral")) & set(never_neutral_words()[len(union("never_neutral")):])


def _toy_pack(folder, code="xx", **changes):
    folder.mkdir(parents=True, exist_ok=True)
    pack = {"code": code, "name": "Toy", "spacy_lang": "en", "lemma_rules": False,
            "clause_break_words": ["zut"], "list_conjunctions": ["og"], "never_neutral": ["nix"],
            "non_final_abbreviations": [], "quantity_conjunctions": ["og"], "protected_words": [],
            "unit_words": {"hour": ["tima", "timar"]}, "unit_ambiguous": {}, "range_words": ["til"]}
    pack.update(changes)
    srsly.write_yaml(folder / "pack.yaml", pack)
    cues = {"semgap_context_cues": {"lang": code, "version": "1", "description": "toy",
                                    "scope": {"direction": "both"},
                                    "cues": [{"cue": "nix", "category": "negation"},
                                             {"cue": "zut", "category": "break"}]}}
    (folder / "cues.json").write_text(json.dumps(cues), encoding="utf8")
    clinical = {"semgap_context_cues": {"lang": code, "version": "1", "description": "toy", "profile": "clinical",
                                        "scope": {"direction": "forward", "max_scope": 5, "section_headers": True},
                                        "cues": [{"cue": "nix", "category": "negation"}]}}
    (folder / "cues_clinical.json").write_text(json.dumps(clinical), encoding="utf8")
    return folder


@pytest.fixture
def toy_language(tmp_path):
    register_pack(_toy_pack(tmp_path / "xx"))
    yield "xx"
    unregister_pack("xx")


def test_a_fifth_language_is_one_folder(toy_language):
    assert "xx" in languages() and packs()["xx"].name == "Toy"
    nlp = build_pipeline()  # nothing names "xx": every registered pack applies
    assert "xx" in nlp.get_pipe("semgap_context").languages
    # its negation cue negates the clearance ...
    negated = assess(nlp, "nix clear to close", domain="mortgage")._.semgap_decision
    assert negated["decision"] == "escalate"
    assert [r["code"] for r in negated["reasons"]] == ["clearance_negated"]
    # ... and its clause-break word ends the cue's scope, for every pipe: the clearance is
    # asserted, and the cue, reaching no term, escalates on its own (spec §4.1)
    ended = assess(nlp, "nix zut clear to close", domain="mortgage")._.semgap_decision
    assert [r["code"] for r in ended["reasons"]] == ["unattached_negation", "clearance"]
    assert clause_rule().break_between("nix zut clear", 3, 8)


def test_a_fifth_language_brings_its_unit_words(toy_language):
    from semgap_spacy.core.quantities import find_quantities

    assert [(q.value, q.unit) for q in find_quantities("CIT 30 timar")] == [(30.0, "hour")]
    assert [(q.value, q.unit) for q in find_quantities("2 til 8 timar")] == [(2.0, "hour"), (8.0, "hour")]
    nlp = build_pipeline()
    decision = assess(nlp, "xm neg, CIT 30 timar", domain="medical_logistics")._.semgap_decision
    assert decision["decision"] == "block"
    assert "limit_exceeded" in [r["code"] for r in decision["reasons"]]


def test_without_the_toy_pack_its_unit_words_mean_nothing():
    from semgap_spacy.core.quantities import find_quantities

    assert find_quantities("CIT 30 timar") == []


def test_a_range_word_lasts_as_long_as_its_pack(tmp_path):
    from semgap_spacy.core.quantities import find_quantities

    assert [q.value for q in find_quantities("2 til 8 h")] == [8.0]
    register_pack(_toy_pack(tmp_path / "xx"))
    try:
        assert [q.value for q in find_quantities("2 til 8 h")] == [2.0, 8.0]
    finally:
        unregister_pack("xx")
    assert [q.value for q in find_quantities("2 til 8 h")] == [8.0]


def test_without_the_toy_pack_its_words_mean_nothing():
    nlp = build_pipeline()
    decision = assess(nlp, "nix clear to close", domain="mortgage")._.semgap_decision
    # "nix" is no cue (the clearance is asserted), and a word no rule explains (spec §4.1)
    assert [r["code"] for r in decision["reasons"]] == ["unexplained_content", "clearance"]


@pytest.mark.parametrize("change,message", [
    ({"code": "X1"}, "code"),
    ({"never_neutral": ["ok", ""]}, "never_neutral"),
    ({"never_neutral_added": ["ok", " "]}, "never_neutral_added"),
    ({"clause_break_words": "but"}, "clause_break_words"),
    ({"colour": "blue"}, "colour"),
    ({"unit_words": {"hour": []}}, "unit_words"),
    ({"range_words": [""]}, "range_words"),
    ({"neutral_after": {"back": []}}, "neutral_after"),
    ({"neutral_after": {"back": [""]}}, "neutral_after"),
    ({"question_openers": ["is"], "question_copulas": ["are"]}, "question_copulas"),
    ({"to_come_words": ["to be", ""]}, "to_come_words"),
    ({"question_ends": [" "]}, "question_ends"),
    ({"part_words": ["some", ""]}, "part_words"),
    ({"step_words": [""]}, "step_words"),
    ({"finding_words": [""]}, "finding_words"),
    ({"question_addressees": [" "]}, "question_addressees"),
    ({"reporting_prepositions": [""]}, "reporting_prepositions"),
    ({"speaker_channels": [" "]}, "speaker_channels"),
    ({"check_verbs": ["check", ""]}, "check_verbs"),
    ({"check_done_words": [""]}, "check_done_words"),
    ({"request_words": [" "]}, "request_words"),
    ({"to_do_markers": [""]}, "to_do_markers"),
])
def test_a_bad_pack_fails_at_load_naming_the_field(tmp_path, change, message):
    folder = _toy_pack(tmp_path / "bad", **change)
    with pytest.raises(LanguagePackError, match=message):
        load_pack(folder)


def test_a_pack_missing_a_field_fails(tmp_path):
    folder = _toy_pack(tmp_path / "bad")
    data = srsly.read_yaml(folder / "pack.yaml")
    del data["list_conjunctions"]
    srsly.write_yaml(folder / "pack.yaml", data)
    with pytest.raises(LanguagePackError, match="list_conjunctions"):
        load_pack(folder)


@pytest.mark.parametrize("unit_words,message", [
    ({"furlong": ["furlongs"]}, "'xx': unit_words: 'furlong'"),  # no such unit
    ({"hour": ["psi"]}, "'psi'"),  # a surface another kind holds
])
def test_a_pack_with_bad_unit_words_fails_when_the_unit_table_loads(tmp_path, unit_words, message):
    from semgap_spacy.core.units import UnitDataError, unit_table

    register_pack(_toy_pack(tmp_path / "xx", unit_words=unit_words))
    try:
        with pytest.raises(UnitDataError, match=message):
            unit_table()
    finally:
        unregister_pack("xx")


@pytest.mark.parametrize("name", ["cues.json", "cues_clinical.json"])
def test_a_pack_without_cues_fails(tmp_path, name):
    folder = _toy_pack(tmp_path / "bad")
    (folder / name).unlink()
    with pytest.raises(LanguagePackError, match=name):
        load_pack(folder)


def test_a_cue_file_of_the_wrong_profile_fails(tmp_path):
    folder = _toy_pack(tmp_path / "bad")
    (folder / "cues_clinical.json").write_text((folder / "cues.json").read_text(encoding="utf8"), encoding="utf8")
    with pytest.raises(LanguagePackError, match="declares profile 'spec', expected 'clinical'"):
        load_pack(folder)


def test_unknown_language_is_a_clear_error():
    with pytest.raises(LanguagePackError, match="no language pack for 'it'"):
        get_pack("it")
    with pytest.raises(LanguagePackError, match="no language pack for 'it'"):
        spacy.blank("en").add_pipe("semgap_context", config={"languages": ["it"]})


# -- symbol cues: one language-neutral list, in every pack's spec cue set ----------------------
def test_every_pack_reads_the_symbol_cues_in_its_spec_profile_only():
    from semgap_spacy.lang.cues import packaged_symbol_cues

    symbols = {r["cue"]: r["category"] for r in packaged_symbol_cues()}
    assert {"❌", "🚫", "⚠", "⏳"} <= set(symbols)
    for code in BUNDLED:
        spec = {r.cue: r for r in get_pack(code).cues.records}
        clinical = {r.cue for r in get_pack(code).clinical_cues.records}
        for cue, category in symbols.items():
            assert spec[cue].category == category and spec[cue].whole_clause, (code, cue)
            assert cue not in clinical, (code, cue)


@pytest.mark.parametrize("record, problem", [
    ({"cue": "x", "category": "negation"}, "no letter or digit"),
    ({"cue": "🛑", "category": "break"}, "negation or a hedge"),
    ({"cue": "≠", "category": "negation"}, "is read as '='"),
    ({"cue": "🛑", "category": "negation", "colour": "red"}, "unknown key"),
])
def test_a_bad_symbol_cue_is_refused_by_name(record, problem):
    from semgap_spacy.lang.cues import CueError, symbol_cue_records

    with pytest.raises(CueError, match=problem):
        symbol_cue_records({"semgap_symbol_cues": {"version": "1", "cues": [record]}}, "symbols.json")
    with pytest.raises(CueError, match="single key"):
        symbol_cue_records({"cues": [record]}, "symbols.json")


def test_a_symbol_a_pack_lists_in_another_category_is_an_error():
    from semgap_spacy.lang.cues import CueError, with_symbol_cues

    pack = get_pack("en").cues
    assert with_symbol_cues(pack, [{"cue": "not", "category": "negation"}]) is pack  # listed already
    with pytest.raises(CueError, match="both negation and hedge"):
        with_symbol_cues(pack, [{"cue": "not", "category": "hedge"}])


def test_symbol_cues_travel_with_a_saved_pipeline(tmp_path):
    build_pipeline().to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    cues = {r.cue for cs in loaded.get_pipe("semgap_context").cue_sets.values() for r in cs.records}
    assert "❌" in cues
    assert assess(loaded, "Clear to close ❌", domain="mortgage")._.semgap_decision["decision"] == "escalate"


def test_a_number_word_of_a_pack_registered_later_names_one_more_of_a_series(tmp_path):
    # the coverage pipe keeps what each word is; a pack registered after it read "tolv" makes it a number
    nlp = build_pipeline()
    text = "Lot released: lot 42. Shipment is lot tolv."

    def codes():
        return [r["code"] for r in assess(nlp, text, domain="pharma_qa")._.semgap_decision["reasons"]]

    assert "conflicting_identifiers" not in codes()
    register_pack(_toy_pack(tmp_path / "xx", number_words=["tolv"]))
    try:
        assert "conflicting_identifiers" in codes()
    finally:
        unregister_pack("xx")
    assert "conflicting_identifiers" not in codes()


# -- which packs a decision was read with, and who may replace a bundled one -------------------
BUNDLED_PACKS = {"de": "bundled", "en": "bundled", "es": "bundled", "fr": "bundled"}


def _packs_of(nlp, text="clear to close"):
    return assess(nlp, text, domain="mortgage")._.semgap_decision["language_packs"]


def test_a_decision_names_the_bundled_packs(nlp):
    assert _packs_of(nlp) == BUNDLED_PACKS
    assert pack_identities() == tuple(sorted(BUNDLED_PACKS.items()))


def test_a_registered_pack_is_named_by_its_files_hash_while_it_is_registered(nlp, tmp_path):
    folder = _toy_pack(tmp_path / "xx")
    before = pack_identities()
    assert pack_identities() is before  # worked out once per set of packs, not per doc
    register_pack(folder)
    try:
        digest = pack_digest(folder)
        assert digest.startswith("sha256:") and len(digest) == len("sha256:") + 16
        assert _packs_of(nlp) == {**BUNDLED_PACKS, "xx": digest}
        # the digest is of the files' bytes: another cue list is another pack
        other = _toy_pack(tmp_path / "other", never_neutral=["nix", "nein"])
        assert pack_digest(other) != digest
    finally:
        unregister_pack("xx")
    assert _packs_of(nlp) == BUNDLED_PACKS  # the cache follows generation()


def test_a_bundled_pack_is_replaced_only_on_purpose(nlp, tmp_path):
    folder = _toy_pack(tmp_path / "en", code="en")
    english, at = get_pack("en"), generation()
    with pytest.raises(LanguagePackError, match=r"would replace the bundled 'en' pack.*replace=True"):
        register_pack(folder)
    assert get_pack("en") is english and generation() == at and _packs_of(nlp) == BUNDLED_PACKS
    with pytest.raises(TypeError):
        register_pack(folder, True)  # replace is keyword-only
    register_pack(folder, replace=True)
    try:
        assert get_pack("en").name == "Toy"
        assert _packs_of(build_pipeline()) == {**BUNDLED_PACKS, "en": pack_digest(folder)}
        # a pipeline built before still reads the bundled English cues with the new pack: both named
        assert _packs_of(nlp) == {**BUNDLED_PACKS, "en": cue_set_identity(pack_digest(folder), english.cues)}
    finally:
        unregister_pack("en")
    assert get_pack("en").name == english.name and _packs_of(nlp) == BUNDLED_PACKS


class _EntryPoint:
    def __init__(self, name, folder):
        self.name, self.value, self._folder = name, f"toy_{name}:pack_folder", folder

    def load(self):
        return lambda: self._folder


@pytest.fixture
def entry_points_of(monkeypatch):
    """Stand-in entry points of the ``semgap_languages`` group, as (name, folder) pairs."""
    import semgap_spacy.lang as lang

    def install(*pairs):
        found = [_EntryPoint(name, folder) for name, folder in pairs]
        monkeypatch.setattr(lang, "entry_points", lambda group: found if group == lang.ENTRY_POINT_GROUP else [])
        lang._changed()

    yield install
    monkeypatch.undo()
    lang._changed()


def test_an_entry_point_adds_a_language_named_by_its_hash(nlp, tmp_path, entry_points_of):
    folder = _toy_pack(tmp_path / "xx")
    entry_points_of(("xx", folder))
    assert "xx" in languages()
    assert _packs_of(nlp) == {**BUNDLED_PACKS, "xx": pack_digest(folder)}


@pytest.mark.parametrize("name,code,message", [
    ("en", "en", r"entry point 'en' .* a bundled language"),  # it would swap the English cues
    ("xx", "en", r"the pack's code is 'en', but it is provided as 'xx'"),
])
def test_an_entry_point_never_replaces_a_bundled_pack(tmp_path, entry_points_of, name, code, message):
    entry_points_of((name, _toy_pack(tmp_path / code, code=code)))
    # fail closed: no pack is read, so no pipeline is built and nothing is decided with either
    with pytest.raises(LanguagePackError, match=message):
        packs()
    with pytest.raises(LanguagePackError, match=message):
        build_pipeline()


def test_the_packs_travel_with_a_saved_pipeline_and_its_json_lines(tmp_path):
    from semgap_spacy.api import decide_lines

    folder = _toy_pack(tmp_path / "xx")
    register_pack(folder)
    try:
        expected = {**BUNDLED_PACKS, "xx": pack_digest(folder)}
        build_pipeline().to_disk(tmp_path / "p")
        loaded = spacy.load(tmp_path / "p")
        assert _packs_of(loaded) == expected
        line = json.dumps({"id": "l-1", "domain": "mortgage", "text": "clear to close"})
        decided, refused = (json.loads(d) for d in decide_lines(loaded, [line, "not json"], as_json=True))
        assert decided["decision"] == "proceed" and decided["language_packs"] == expected
        # a malformed line's escalation too
        assert refused["decision"] == "escalate" and refused["language_packs"] == expected
    finally:
        unregister_pack("xx")


def test_workers_record_the_packs_they_read(nlp, tmp_path):
    from semgap_spacy import decide_cases

    folder = _toy_pack(tmp_path / "xx")
    register_pack(folder)
    try:
        cases = [{"id": f"w-{i}", "domain": "mortgage", "text": "clear to close"} for i in range(6)]
        decisions = list(decide_cases(nlp, cases, batch_size=2, n_process=2))
        assert [d["id"] for d in decisions] == [c["id"] for c in cases]
        assert all(d["language_packs"] == {**BUNDLED_PACKS, "xx": pack_digest(folder)} for d in decisions)
    finally:
        unregister_pack("xx")


# -- the context pipe's cues: the pack's, or named by their own hash ---------------------------
def _fewer_negation_cues(languages):
    """The spec cue sets with the first English negation cue left out: fewer cues, more proceeds."""
    sets = load_cue_sets(languages)
    en = sets["en"]
    first = next(i for i, r in enumerate(en.records) if r.category == "negation")
    sets["en"] = dataclasses.replace(en, records=en.records[:first] + en.records[first + 1:])
    return sets


@registry.misc("test.fewer_negation_cues.v1")
def fewer_negation_cues_v1():
    return _fewer_negation_cues


def _cue_packs(cues, text="clear to close"):
    nlp = build_pipeline(config={"semgap_context": {"cues": {"@misc": cues}}})
    return nlp, _packs_of(nlp, text)


def test_a_cue_function_of_ones_own_is_named_by_its_cues_hash():
    nlp, read = _cue_packs("test.fewer_negation_cues.v1")
    en = nlp.get_pipe("semgap_context").cue_sets["en"]
    assert en != get_pack("en").cues and en.sha256 != get_pack("en").cues.sha256
    assert read == {**BUNDLED_PACKS, "en": cue_set_identity("bundled", en)}
    assert read["en"].startswith("sha256:") and len(read["en"]) == len("sha256:") + 16
    # streamed (the context pipe looked up once per stream) as in one call
    decisions = [d._.semgap_decision for d in nlp.pipe(case_doc(nlp, {"id": i, "domain": "mortgage",
                                                                       "text": "clear to close"})
                                                       for i in range(3))]
    assert all(d["language_packs"] == read for d in decisions)


@pytest.mark.parametrize("cues", ["semgap.context_cues.v1", "semgap.context_cues.clinical.v1"])
def test_either_profile_of_the_packs_is_the_packs_own(cues):
    nlp, read = _cue_packs(cues)
    assert read == BUNDLED_PACKS
    assert nlp.get_pipe("semgap_context").packs_read() is pack_identities()


def test_a_context_pipe_that_does_not_run_changes_nothing():
    nlp = build_pipeline(config={"semgap_context": {"cues": {"@misc": "test.fewer_negation_cues.v1"}}})
    with nlp.select_pipes(disable=["semgap_context"]):
        assert _packs_of(nlp) == BUNDLED_PACKS
    assert _packs_of(nlp)["en"].startswith("sha256:")
    nlp.get_pipe("semgap_context").enabled = False
    assert _packs_of(nlp) == BUNDLED_PACKS


def _en_with(tmp_path, **changes):
    """A copy of the bundled en pack, with some of pack.yaml's fields changed."""
    folder = tmp_path / "en"
    shutil.copytree(files("semgap_spacy.lang").joinpath("en"), folder,
                    ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    if changes:
        pack = srsly.read_yaml(folder / "pack.yaml")
        pack.update(changes)
        srsly.write_yaml(folder / "pack.yaml", pack)
    return folder


def _replacement_en(tmp_path):
    """The bundled en pack with one negation cue left out of cues.json."""
    folder = _en_with(tmp_path)
    payload = json.loads((folder / "cues.json").read_text(encoding="utf8"))
    records = payload["semgap_context_cues"]["cues"]
    records.remove(next(r for r in records if r["category"] == "negation"))
    (folder / "cues.json").write_text(json.dumps(payload, ensure_ascii=False), encoding="utf8")
    return folder


def test_cues_saved_from_a_replacement_pack_are_named_where_it_is_not_registered(tmp_path):
    folder = _replacement_en(tmp_path)
    register_pack(folder, replace=True)
    try:
        saved_with = _packs_of(build_pipeline())
        assert saved_with == {**BUNDLED_PACKS, "en": pack_digest(folder)}  # the pack's own cues: its identity
        build_pipeline().to_disk(tmp_path / "p")
        replaced = get_pack("en").cues
    finally:
        unregister_pack("en")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("semgap_context").cue_sets["en"] == replaced != get_pack("en").cues
    # the bundled pack is registered again, but the cues read are the saved replacement's
    assert _packs_of(loaded) == {**BUNDLED_PACKS, "en": cue_set_identity("bundled", replaced)}
    # registering the replacement again makes them its pack's own once more (the generation changed)
    register_pack(folder, replace=True)
    try:
        assert _packs_of(loaded) == {**BUNDLED_PACKS, "en": pack_digest(folder)}
    finally:
        unregister_pack("en")
    assert _packs_of(loaded)["en"] == cue_set_identity("bundled", replaced)


@pytest.mark.parametrize("cues", ["semgap.context_cues.v1", "semgap.context_cues.clinical.v1"])
def test_a_saved_pipeline_of_the_bundled_packs_stays_bundled(tmp_path, cues):
    build_pipeline(config={"semgap_context": {"cues": {"@misc": cues}}}).to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert _packs_of(loaded) == BUNDLED_PACKS


def test_a_language_read_with_no_registered_pack_gets_its_own_entry(tmp_path):
    register_pack(_toy_pack(tmp_path / "xx"))
    try:
        nlp = build_pipeline()
        toy = nlp.get_pipe("semgap_context").cue_sets["xx"]
    finally:
        unregister_pack("xx")
    assert _packs_of(nlp) == {**BUNDLED_PACKS, "xx": cue_set_identity(None, toy)}


# -- a pipeline built before the packs changed reads what its decisions record -------------------
def _codes(nlp, text, domain="mortgage"):
    decision = assess(nlp, text, domain=domain)._.semgap_decision
    return decision["decision"], [r["code"] for r in decision["reasons"]]


def test_a_pipeline_built_before_a_new_language_reads_narrowed_until_it_is_gone(tmp_path):
    nlp = build_pipeline()
    assert _codes(nlp, "clear to close") == ("proceed", ["clearance"])
    register_pack(_toy_pack(tmp_path / "xx"))
    try:
        # its decisions would name "xx" among the packs read, but its cues were never read
        decision = assess(nlp, "clear to close", domain="mortgage")._.semgap_decision
        assert decision["decision"] == "escalate" and "xx" in decision["language_packs"]
        incomplete = next(r for r in decision["reasons"] if r["code"] == "pipeline_incomplete")
        assert 'semgap_context ran with cue_languages = "some"' in incomplete["message"]
        assert "one registered after the pipeline was built is read once the pipeline is built again" in (
            incomplete["message"])
        assert _codes(build_pipeline(), "clear to close") == ("proceed", ["clearance"])  # built with it: a full read
    finally:
        unregister_pack("xx")
    assert _codes(nlp, "clear to close") == ("proceed", ["clearance"])


@pytest.mark.parametrize("text", ["not zut clear to close", "No title defect, lien, or clear to close",
                                  "no lien, title defect, or judgment"])
def test_a_pipeline_built_before_a_pack_is_replaced_reads_the_replacements_words(tmp_path, text):
    # a clause break more, and no list made with "or": the decisions of a pipeline built before
    # are those of one built after, as its "language_packs" (the replacement's hash) says
    english = get_pack("en")
    folder = _en_with(tmp_path, clause_break_words=english.clause_break_words + ["zut"],
                      list_conjunctions=[w for w in english.list_conjunctions if w not in ("or", "and")])
    before = build_pipeline()
    bundled = _codes(before, text)
    register_pack(folder, replace=True)
    try:
        after = build_pipeline()
        assert _codes(before, text) == _codes(after, text) != bundled
        assert _packs_of(before)["en"] == pack_digest(folder)
    finally:
        unregister_pack("en")
    assert _codes(before, text) == bundled


def test_the_pipes_build_again_once_per_change_of_the_packs(tmp_path):
    nlp = build_pipeline()
    context = nlp.get_pipe("semgap_context")
    table = context.table
    assess(nlp, "clear to close", domain="mortgage")
    assert context.table is table  # no change, no build
    register_pack(_toy_pack(tmp_path / "xx"))
    try:
        assess(nlp, "clear to close", domain="mortgage")
        rebuilt = context.table
        assert rebuilt is not table
        assess(nlp, "clear to close", domain="mortgage")
        assert context.table is rebuilt  # once per change, not per doc
    finally:
        unregister_pack("xx")


def test_a_pack_gone_since_the_pipeline_was_built_escalates_naming_it(tmp_path):
    register_pack(_toy_pack(tmp_path / "xx"))
    try:
        nlp = build_pipeline()
    finally:
        unregister_pack("xx")
    decision = assess(nlp, "clear to close", domain="mortgage")._.semgap_decision
    assert decision["decision"] == "escalate"
    error = next(r for r in decision["reasons"] if r["code"] == "component_error")
    assert "semgap_context" in error["message"] and "no language pack for 'xx'" in error["message"]
