"""The shipped parsed copy of the bundled YAML files (``util.yaml_files``)."""
import json

import pytest
import srsly

from scripts.build_form_cache import bundled_yaml_files
from semgap_spacy.util import yaml_files
from semgap_spacy.util.yaml_files import parsed_copies, read_yaml


def test_every_bundled_yaml_file_has_a_copy_equal_to_a_fresh_parse():
    files = bundled_yaml_files()
    assert len(files) >= 13  # glossaries, language packs, data files
    assert yaml_files._shipped() == parsed_copies(files), "run: python -m scripts.build_form_cache"
    for path in files:
        assert read_yaml(path) == srsly.read_yaml(path), path


def test_a_bundled_file_is_read_without_the_yaml_parser_and_as_a_new_object(monkeypatch):
    path = bundled_yaml_files()[0]
    expected = srsly.read_yaml(path)

    def refuse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(srsly, "yaml_loads", refuse)
    first = read_yaml(path)
    assert first == expected
    first.clear()  # a caller that changes what it got changes nothing for the next
    assert read_yaml(path) == expected


def test_any_other_file_is_parsed(tmp_path):
    source = bundled_yaml_files()[0]
    edited = tmp_path / source.name
    edited.write_bytes(source.read_bytes() + b"\nadded_by_a_team: [no, on]\n")
    content = read_yaml(edited)
    assert content == srsly.read_yaml(edited)
    assert content["added_by_a_team"] == ["no", "on"]  # YAML 1.2: words stay words
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(b"words: [a, b]\r\ntext: |\r\n  one\r\n  two\r\n")
    assert read_yaml(crlf) == srsly.read_yaml(crlf) == {"words": ["a", "b"], "text": "one\ntwo\n"}


def test_a_missing_or_broken_file_fails_as_srsly_fails(tmp_path):
    with pytest.raises(ValueError):
        srsly.read_yaml(tmp_path / "missing.yaml")
    with pytest.raises(ValueError):
        read_yaml(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("key: [unclosed\n", encoding="utf8")
    with pytest.raises(Exception) as ours:
        read_yaml(broken)
    with pytest.raises(Exception) as theirs:
        srsly.read_yaml(broken)
    assert type(ours.value) is type(theirs.value)


def test_content_json_cannot_hold_exactly_gets_no_copy(tmp_path):
    dated = tmp_path / "dated.yaml"
    dated.write_text("released: 2026-12-01\n", encoding="utf8")
    numbered = tmp_path / "numbered.yaml"
    numbered.write_text("1: one\n", encoding="utf8")
    plain = tmp_path / "plain.yaml"
    plain.write_text("words: [no, yes]\n", encoding="utf8")
    copies = parsed_copies([dated, numbered, plain])
    assert list(map(json.loads, copies.values())) == [{"words": ["no", "yes"]}]
