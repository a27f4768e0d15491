"""`python -m kb.site`: build the documentation site (kb.site.builder)."""
import sys

from .builder import main

if __name__ == "__main__":
    sys.exit(main())
