"""The `fanscan` command: one sub-command per module, each with `add_parser(subparsers)` and `run(args) -> int`."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

# numpy's OpenBLAS starts a thread per core for every matrix product, however small; on a busy 2-core machine the
# threads wait for each other, which made `fanscan calibrate` take 41 s of CPU instead of 12 s (measured). Set before
# numpy is first imported (nothing above imports it); a setting of the user's own wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from fanscan import __version__, exit_status
from fanscan.scoring.errors import FanscanError
from fanscan.usage_errors import one_line_errors

# Each entry is a module of this package that defines `add_parser(subparsers)` and `run(args) -> int`.
COMMAND_MODULES = (
    "fanscan.commands.score",
    "fanscan.commands.rules",
    "fanscan.commands.waits",
    "fanscan.commands.photo",
    "fanscan.commands.batch",
    "fanscan.commands.label",
    "fanscan.commands.serve",
    "fanscan.commands.calibrate",
    "fanscan.commands.train",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fanscan",
        description="Score a finished mahjong hand (from a hand string or a photo), every fan explained.",
        epilog=exit_status.EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"fanscan {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return one_line_errors(parser)  # `fanscan scroe ...`: one line, as every user error


# Sub-commands whose one positional argument is a hand string, and what argparse would take for a flag: a dash
# followed by a tile (`-1m`, `-E`). Such a word is passed after `--`, so the hand parser says what is wrong with it.
_HAND_COMMANDS = ("score", "waits")
_DASHED_HAND = re.compile(r"-[1-9]|-[ESWNCFP](?![a-z-])|-\[")


def hand_strings_after_double_dash(argv: list[str]) -> list[str]:
    """`fanscan score -1m --json` -> `fanscan score --json -- -1m`: a hand string that starts with '-' is not a flag."""
    if not argv or argv[0] not in _HAND_COMMANDS or "--" in argv:
        return argv
    dashed = [a for a in argv[1:] if _DASHED_HAND.match(a)]
    if not dashed:
        return argv
    return [argv[0], *(a for a in argv[1:] if a not in dashed), "--", *dashed]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(hand_strings_after_double_dash(list(sys.argv[1:] if argv is None else argv)))
    try:
        return int(args.run(args) or 0)
    except FanscanError as error:
        print(f"fanscan: error: {error}", file=sys.stderr)
        return exit_status.ERROR
    except KeyboardInterrupt:
        print("fanscan: interrupted", file=sys.stderr)
        return exit_status.INTERRUPTED
    except BrokenPipeError:
        return exit_status.SCORED


if __name__ == "__main__":
    sys.exit(main())
