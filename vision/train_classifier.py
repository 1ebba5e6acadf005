"""Train the tile classifier: `python -m vision.train_classifier [--smoke] [--help]` (needs the `train` extra)."""

from __future__ import annotations

import sys

from vision.training.train import main

if __name__ == "__main__":
    sys.exit(main())
