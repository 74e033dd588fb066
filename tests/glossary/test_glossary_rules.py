"""Glossary rules a reviewer would demand: the loader and ``validate`` refuse alike.

Each variant below is the bundled glossary set with one mutation (mostly of
the mortgage domain). Every variant must be refused by BOTH the loader (a
``GlossaryError`` naming the file, the term or field, and the rule) and
``validate`` (an error finding with the rule's code), because a glossary one
of them accepts and the other refuses is a glossary that ships by accident.
"""
import copy
import json
from pathlib import Path

import pytest
import srsly

from semgap_spacy.glossary import GlossaryError, GlossarySet, bundled_glossary_dir
from semgap_spacy.glossary.rules import (abbreviation_problem, common_words, name_problem,
                                         phrase_problem, rule_of, stop_words)
from semgap_spacy.glossary.governance import FINDING_CODES, has_errors, validate

BUNDLED = bundled_glossary_dir()
ARCHIVE = BUNDLED / "archive"
BASE = {p.stem: srsly.read_yaml(p) for p in sorted(BUNDLED.glob("*.yaml"))}
MTG = "mortgage"


def _term(payloads, term_id):
    for payload in payloads.values():
        for term in payload["terms"]:
            if term["id"] == term_id:
                return term
    raise KeyError(term_id)


def _set(key, value, term="MTG.CTC"):
    def mutate(p):
        _term(p, term)[key] = value
    return mutate


def _add(key, value, term="MTG.CTC"):
    def mutate(p):
        _term(p, term).setdefault(key, []).append(value)
    return mutate


def _tr(lang, key, value, term="MTG.CTC", append=False):
    def mutate(p):
        tr = _term(p, term)["translations"][lang]
        if append:
            tr[key].append(value)
        else:
            tr[key] = value
    return mutate


def _top(key, value, domain=MTG):
    def mutate(p):
        p[domain][key] = value
    return mutate


def _deps(*edges):
    def mutate(p):
        for src, dst in edges:
            _term(p, src).setdefault("depends_on", []).append(dst)
    return mutate


# (id, mutation, rule code, term id or field the messages must name, file stem)
VARIANTS = [
    # owner / approver / reviewer names: stripped non-empty, printable, with a letter
    ("owner_empty", _set("owner", ""), "bad_person_name", "MTG.CTC", MTG),
    ("owner_spaces", _set("owner", "   "), "bad_person_name", "MTG.CTC", MTG),
    ("owner_zero_width", _set("owner", "\u200b"), "bad_person_name", "MTG.CTC", MTG),
    ("owner_terminal_escape", _set("owner", "\x1b[8m"), "bad_person_name", "MTG.CTC", MTG),
    ("owner_newline", _set("owner", "Priya\nNatarajan"), "bad_person_name", "MTG.CTC", MTG),
    ("owner_no_letter", _set("owner", "---"), "bad_person_name", "MTG.CTC", MTG),
    ("approver_tab", _set("approver", "\t"), "bad_person_name", "MTG.CTC", MTG),
    ("approver_bidi_override", _set("approver", "Marcus\u202eFeld"), "bad_person_name",
     "MTG.CTC", MTG),
    ("approver_nbsp", _set("approver", "\u00a0"), "bad_person_name", "MTG.CTC", MTG),
    ("second_approver_zwj", _set("second_approver", "\u200d"), "bad_person_name", "MTG.CTC", MTG),
    ("reviewer_blank", _tr("es", "reviewer", " "), "bad_person_name", "MTG.CTC", MTG),
    ("reviewer_bell", _tr("fr", "reviewer", "Claire\x07"), "bad_person_name", "MTG.CTC", MTG),
    # approvals: a clear/critical term needs an approver even as a draft; a
    # second approver is a third person
    ("draft_clear_without_approver", lambda p: (_term(p, "MTG.CTC").update(status="draft"),
                                                _term(p, "MTG.CTC").pop("approver")),
     "missing_approver", "MTG.CTC", MTG),
    ("second_approver_is_owner", _set("second_approver", "priya natarajan"),
     "second_approver_not_independent", "MTG.CTC", MTG),
    # depends_on: resolvable and acyclic across the loaded set
    ("depends_on_self", _deps(("MTG.CTC", "MTG.CTC")), "dependency_cycle", "MTG.CTC", MTG),
    ("depends_on_two_cycle", _deps(("MTG.CTC", "MTG.TITLE_DEFECT"),
                                   ("MTG.TITLE_DEFECT", "MTG.CTC")),
     "dependency_cycle", "MTG.CTC", MTG),
    ("depends_on_cycle_across_domains", _deps(("MTG.CTC", "MED.XM_NEGATIVE"),
                                              ("MED.XM_NEGATIVE", "MTG.DTI"),
                                              ("MTG.DTI", "MTG.CTC")),
     # the set is read in file order, so the cycle is reported where it is entered
     "dependency_cycle", "MED.XM_NEGATIVE", "medical_logistics"),
    ("approved_depends_on_draft", lambda p: (_term(p, "MTG.DTI").update(status="draft"),
                                             _deps(("MTG.CTC", "MTG.DTI"))(p)),
     "draft_dependency", "MTG.CTC", MTG),
    ("depends_on_unknown", _deps(("MTG.CTC", "MTG.NOPE")), "unknown_reference", "MTG.CTC", MTG),
    ("depends_on_unknown_other_domain", _deps(("MTG.DTI", "MED.NOPE")), "unknown_reference",
     "MTG.DTI", MTG),
    # clearance and critical phrases (and translations): a content word, not a cue
    ("clear_phrase_dot", _add("phrases", "."), "phrase_without_content", "MTG.CTC", MTG),
    ("clear_phrase_a", _add("phrases", "a"), "phrase_without_content", "MTG.CTC", MTG),
    ("clear_phrase_the", _add("phrases", "the"), "phrase_without_content", "MTG.CTC", MTG),
    ("clear_phrase_empty", _add("phrases", ""), "phrase_without_content", "MTG.CTC", MTG),
    ("clear_phrase_regex", _add("phrases", ".*"), "phrase_without_content", "MTG.CTC", MTG),
    ("clear_phrase_spaces", _add("phrases", "   "), "phrase_without_content", "MTG.CTC", MTG),
    ("clear_phrase_stop_words", _add("phrases", "of the"), "phrase_without_content",
     "MTG.CTC", MTG),
    ("clear_phrase_cue_words_only", _add("phrases", "possible pending"),
     "phrase_without_content", "MTG.CTC", MTG),
    ("clear_phrase_negation_cue", _add("phrases", "not"), "phrase_is_cue", "MTG.CTC", MTG),
    ("clear_phrase_hedge_cue", _add("phrases", "pending"), "phrase_is_cue", "MTG.CTC", MTG),
    ("clear_phrase_multiword_cue", _add("phrases", "ruled out"), "phrase_is_cue", "MTG.CTC", MTG),
    ("clear_phrase_zero_width", _add("phrases", "clear\u200bto close"), "phrase_not_printable",
     "MTG.CTC", MTG),
    ("critical_phrase_punctuation", _add("phrases", "?!", "MTG.TITLE_DEFECT"),
     "phrase_without_content", "MTG.TITLE_DEFECT", MTG),
    ("critical_phrase_stop_word", _add("phrases", "it", "MTG.TITLE_DEFECT"),
     "phrase_without_content", "MTG.TITLE_DEFECT", MTG),
    ("field_phrase_stop_word", _add("phrases", "the", "MTG.DTI"), "phrase_without_content",
     "MTG.DTI", MTG),
    ("translation_es_stop_word", _tr("es", "phrases", "el", append=True),
     "phrase_without_content", "MTG.CTC", MTG),
    ("translation_fr_cue", _tr("fr", "phrases", "sans", append=True), "phrase_is_cue",
     "MTG.CTC", MTG),
    ("translation_de_stop_words", _tr("de", "phrases", "und der", "MTG.TITLE_DEFECT",
                                      append=True),
     "phrase_without_content", "MTG.TITLE_DEFECT", MTG),
    # abbreviations: at least two characters, not a common word
    ("abbreviation_one_char", _add("abbreviations", "C"), "bad_abbreviation", "MTG.CTC", MTG),
    ("abbreviation_one_char_dotted", _add("abbreviations", "C."), "bad_abbreviation",
     "MTG.CTC", MTG),
    ("abbreviation_ok", _add("abbreviations", "ok"), "bad_abbreviation", "MTG.CTC", MTG),
    ("abbreviation_dotted_ok", _add("abbreviations", "O.K."), "bad_abbreviation", "MTG.CTC", MTG),
    ("abbreviation_yes", _add("abbreviations", "YES"), "bad_abbreviation", "MTG.CTC", MTG),
    ("abbreviation_stop_word", _add("abbreviations", "the"), "bad_abbreviation", "MTG.CTC", MTG),
    ("abbreviation_es_si", _add("abbreviations", "SI"), "bad_abbreviation", "MTG.CTC", MTG),
    ("abbreviation_de_ja", _add("abbreviations", "Ja"), "bad_abbreviation", "MTG.CTC", MTG),
    ("abbreviation_neutral_fyi", _add("abbreviations", "FYI"), "bad_abbreviation",
     "MTG.CTC", MTG),
    ("abbreviation_dot", _add("abbreviations", "."), "bad_abbreviation", "MTG.CTC", MTG),
    # calendar versions
    ("version_month_13", _top("version", "2026.13.0"), "bad_version", "version", MTG),
    ("version_month_0", _top("version", "2026.0.1"), "bad_version", "version", MTG),
    ("version_no_patch", _top("version", "2026.11"), "bad_version", "version", MTG),
    ("version_name", _top("version", "v2-final"), "bad_version", "version", MTG),
    # domain names: safe identifiers, never a path
    ("domain_path_traversal", _top("domain", "../../etc"), "bad_domain_name", "domain", MTG),
    ("domain_capitals", _top("domain", "Mortgage"), "bad_domain_name", "domain", MTG),
    ("domain_hyphen", _top("domain", "mort-gage"), "bad_domain_name", "domain", MTG),
    ("domain_slash", _top("domain", "mortgage/x"), "bad_domain_name", "domain", MTG),
    ("domain_empty", _top("domain", ""), "bad_domain_name", "domain", MTG),
    ("domain_reserved_all", _top("domain", "all"), "bad_domain_name", "domain", MTG),
]


def _write(tmp_path: Path, mutate) -> Path:
    payloads = copy.deepcopy(BASE)
    mutate(payloads)
    folder = tmp_path / "glossaries"
    folder.mkdir(parents=True)
    for stem, payload in payloads.items():
        # JSON is YAML, and its escapes keep control characters readable in the file
        (folder / f"{stem}.yaml").write_text(json.dumps(payload, ensure_ascii=True),
                                             encoding="utf8")
    return folder


def test_the_table_is_big_and_covers_every_rule():
    assert len(VARIANTS) >= 40
    assert len({v[0] for v in VARIANTS}) == len(VARIANTS)
    rules = {v[2] for v in VARIANTS}
    assert rules == {"bad_person_name", "dependency_cycle", "unknown_reference",
                     "phrase_without_content", "phrase_is_cue", "phrase_not_printable",
                     "bad_abbreviation", "bad_version", "bad_domain_name", "missing_approver",
                     "second_approver_not_independent", "draft_dependency"}
    assert all(FINDING_CODES[r] == "error" for r in rules)


def test_the_unmutated_copy_loads_and_validates_clean(tmp_path):
    folder = _write(tmp_path, lambda p: None)
    GlossarySet.from_dir(folder)
    assert not has_errors(validate(folder))


@pytest.mark.parametrize("name,mutate,rule,where,stem", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_loader_and_validate_both_refuse(tmp_path, name, mutate, rule, where, stem):
    folder = _write(tmp_path, mutate)
    path = str(folder / f"{stem}.yaml")

    with pytest.raises(GlossaryError) as err:
        GlossarySet.from_dir(folder)
    message = str(err.value)
    line = next((ln for ln in message.splitlines() if f"[rule {rule}]" in ln), None)
    assert line is not None, f"loader did not name rule {rule}: {message}"
    assert line.startswith(path), line  # names the file
    assert where in line, line  # names the term or the field

    findings = validate(folder)
    hits = [f for f in findings if f.code == rule and f.severity == "error"]
    assert hits, f"validate reported no {rule}: {[str(f) for f in findings]}"
    expected_term = None if where in ("version", "domain") else where
    assert any(f.term == expected_term and f.path == path for f in hits), [str(f) for f in hits]


def test_a_dot_clearance_can_no_longer_load(tmp_path):
    """With "." as a clearance phrase, "File reviewed." used to proceed."""
    from semgap_spacy.api import build_pipeline

    folder = _write(tmp_path, _set("phrases", ["."]))
    with pytest.raises(GlossaryError, match=r"phrase '\.' is punctuation only "
                                            r"\[rule phrase_without_content\]"):
        build_pipeline(str(folder))
    assert any(f.code == "phrase_without_content" for f in validate(folder))


def test_a_phrase_cue_and_an_unknown_dependency_no_longer_load_for_assess(tmp_path):
    """The two files that failed validate yet loaded: now both refuse them."""
    for i, mutate in enumerate((_add("phrases", "never"), _deps(("MTG.CTC", "MTG.GONE")))):
        folder = _write(tmp_path / str(i), mutate)
        with pytest.raises(GlossaryError):
            GlossarySet.from_dir(folder)
        assert has_errors(validate(folder))


@pytest.mark.parametrize("folder", [BUNDLED] + sorted(p for p in ARCHIVE.iterdir() if p.is_dir()),
                         ids=lambda p: p.name)
def test_bundled_and_archived_glossaries_load_and_validate_clean(folder):
    GlossarySet.from_dir(folder)
    errors = [str(f) for f in validate(folder) if f.severity == "error"]
    assert errors == []


# --------------------------------------------------------------------------
# the rule functions themselves, on values the table does not reach
# --------------------------------------------------------------------------

def test_rule_messages_name_their_rule_as_a_finding_code():
    for problem in (name_problem(""), phrase_problem("."), abbreviation_problem("ok")):
        assert rule_of(problem) in FINDING_CODES


@pytest.mark.parametrize("ok", ["Priya Natarajan", "Łukasz Wróbel", "QA Duty Manager", "O'Neil"])
def test_real_names_pass(ok):
    assert name_problem(ok) is None


@pytest.mark.parametrize("ok", ["clear to close", "CTC", "neg am", "xm pos", "Titelmangel",
                                "écart d'évaluation", "listo para el cierre"])
def test_real_phrases_and_abbreviations_pass(ok):
    assert phrase_problem(ok) is None
    assert abbreviation_problem(ok) is None


def test_common_words_are_data_and_include_the_stop_words():
    assert stop_words() <= common_words()
    assert {"ok", "okay", "oui", "fyi"} <= common_words()
    assert "ok" not in stop_words()  # so the data file is what refuses "ok"
