"""Train the tile classifier: `python -m fanscan.training.train_classifier [--smoke] [--help]` (`train` extra)."""

from __future__ import annotations

import sys

from fanscan.training.classifier_train import main

if __name__ == "__main__":
    sys.exit(main())
