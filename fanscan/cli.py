"""The `fanscan` command: one sub-command per module, each with `add_parser(subparsers)` and `run(args) -> int`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# numpy's OpenBLAS starts a thread per core for every matrix product, however small; on a busy 2-core machine the
# threads wait for each other, which made `fanscan calibrate` take 41 s of CPU instead of 12 s (measured). Set before
# numpy is first imported (nothing above imports it); a setting of the user's own wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from fanscan.scoring.errors import FanscanError
from fanscan.usage_errors import one_line_errors

# Each entry is a module of this package that defines `add_parser(subparsers)` and `run(args) -> int`.
COMMAND_MODULES = (
    "fanscan.commands.score",
    "fanscan.commands.rules",
    "fanscan.commands.waits",
    "fanscan.commands.photo",
    "fanscan.commands.batch",
    "fanscan.commands.calibrate",
    "fanscan.commands.train",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fanscan",
        description="Score a finished mahjong hand (from a hand string or a photo), every fan explained.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return one_line_errors(parser)  # `fanscan scroe ...`: one line, as every user error


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except FanscanError as error:
        print(f"fanscan: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fanscan: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
