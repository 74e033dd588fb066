"""Regenerate semgap_spacy/data/bundled_forms.json from the bundled glossaries.

Run after changing a glossary: ``python -m scripts.build_form_cache``. The
file only saves start-up time; a test fails when it no longer matches.
"""
import json
from pathlib import Path

import spacy

from semgap_spacy.glossary.models import load_glossaries
from semgap_spacy.core.vocabulary import FORM_CACHE_FILE, build_vocabulary, compute_form_cache


def main() -> None:
    nlp = spacy.blank("en")
    payload = compute_form_cache(build_vocabulary(load_glossaries(), nlp.tokenizer))
    target = Path(__file__).resolve().parents[1] / "semgap_spacy" / "data" / FORM_CACHE_FILE
    target.write_text(json.dumps(payload, ensure_ascii=False, sort_keys=True, indent=0), encoding="utf8")
    print(f"wrote {target} ({len(payload['forms'])} forms)")


if __name__ == "__main__":
    main()
