"""Regenerate the start-up copies shipped in semgap_spacy/data: ``bundled_forms.json`` (the
inflection index of the bundled glossaries) and ``parsed_yaml.json`` (the parsed content of the
bundled YAML files, ``util.yaml_files``).

Run after changing a glossary, a language pack or a rule file: ``python -m scripts.build_form_cache``.
The files only save start-up time (each is used only where it matches what it was made from);
a test fails when one no longer matches.
"""
import json
from pathlib import Path

import spacy

from semgap_spacy.glossary.models import load_glossaries
from semgap_spacy.core.vocabulary import FORM_CACHE_FILE, build_vocabulary, compute_form_cache
from semgap_spacy.util.yaml_files import PARSED_FILE, parsed_copies

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "semgap_spacy" / "data"


def bundled_yaml_files():
    """The YAML files a pipeline reads as it starts: the current glossaries, the language packs,
    the package's data files."""
    return (sorted((ROOT / "glossaries").glob("*.yaml")) + sorted((ROOT / "semgap_spacy" / "lang").glob("*/*.yaml"))
            + sorted(DATA.glob("*.yaml")))


def main() -> None:
    nlp = spacy.blank("en")
    payload = compute_form_cache(build_vocabulary(load_glossaries(), nlp.tokenizer))
    target = DATA / FORM_CACHE_FILE
    target.write_text(json.dumps(payload, ensure_ascii=False, sort_keys=True, indent=0), encoding="utf8")
    print(f"wrote {target} ({len(payload['forms'])} forms)")
    copies = parsed_copies(bundled_yaml_files())
    target = DATA / PARSED_FILE
    target.write_text(json.dumps(copies, ensure_ascii=False, indent=0) + "\n", encoding="utf8")
    print(f"wrote {target} ({len(copies)} files)")


if __name__ == "__main__":
    main()
