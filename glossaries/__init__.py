"""The governed glossaries shipped with semgap_spacy, one YAML file per domain."""
