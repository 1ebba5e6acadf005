"""`python -m fanscan ...`: the same as the `fanscan` command (for an install without the script on PATH)."""

import sys

from fanscan.cli import main

if __name__ == "__main__":
    sys.exit(main())
