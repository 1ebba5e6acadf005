"""One-line usage errors: argparse prints its whole usage block before the message; fanscan's rule is that every
error a user can cause is one line on stderr (and a non-zero exit), so the message names `--help` instead."""

from __future__ import annotations

import argparse
from typing import NoReturn


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make `parser` report a usage error as `PROG: error: MESSAGE (see PROG --help)` and exit with status 2."""

    def error(message: str) -> NoReturn:
        parser.exit(2, f"{parser.prog}: error: {message} (see {parser.prog} --help)\n")

    parser.error = error  # type: ignore[method-assign]
    return parser
