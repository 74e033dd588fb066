"""Entry point for ``python -m semgap_spacy``."""
import sys

from .ops.cli import main

if __name__ == "__main__":
    sys.exit(main())
