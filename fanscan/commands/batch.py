"""`fanscan batch DIR`: every photo in a folder → one table row each (hand, status, total, fans), no questions.

    fanscan batch photos/ --out scores.csv          # or scores.jsonl; resumable: photos already there are skipped
    fanscan batch photos/ --self-drawn --seat S     # one win context for all (the photos cannot show it)

A photo that cannot be read or does not show a complete hand is an error row; the rest go on. Rows are written
(and flushed) as each photo is done, so an interrupted run loses nothing and the next run carries on.
Exit status: 0 when every photo scored, 1 when some rows are errors.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

from fanscan.commands.photo import (
    accepted_hand,
    add_context_arguments,
    add_profile_argument,
    add_review_arguments,
    context_from_args,
    read_photo,
)
from fanscan.scoring import score
from fanscan.scoring.errors import FanscanError

NEEDS_REVIEW = "needs_review"  # row status of a hand complete only by a rule override (see --accept-overrides)
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
COLUMNS = ("file", "ok", "status", "hand", "total", "total_without_flowers", "meets_minimum", "fans", "tiles",
           "warnings", "error", "ms")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "batch", help="score every photo in a folder into a table (CSV or JSON Lines)",
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folder", help="folder of photos (JPEG, PNG, WebP)")
    parser.add_argument("--out", help="table to write: .csv or .jsonl (default: JSON Lines on stdout); "
                                      "photos already in it are skipped")
    parser.add_argument("--rules", choices=("mcr", "hk"), default="mcr", help="rule set (default mcr)")
    add_profile_argument(parser)
    add_context_arguments(parser)
    add_review_arguments(parser)
    parser.set_defaults(run=run)


def list_photos(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise FanscanError(f"{folder}: not a folder")
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in PHOTO_SUFFIXES)


def score_photo(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One table row for one photo (an error row when it cannot be scored)."""
    started = time.perf_counter()
    row: dict[str, Any] = {"file": path.name, "ok": False}
    try:
        proposal = read_photo(str(path), profile=args.profile)
        row.update(status=proposal.status, hand=proposal.hand.strip(), tiles=len(proposal.tiles),
                   warnings="; ".join(proposal.warnings))
        if proposal.needs_review and not args.accept_overrides:
            row["status"] = NEEDS_REVIEW  # accepted_hand refuses it below: an error row that says why
        result = score(accepted_hand(proposal, args), context_from_args(args, proposal.flowers), rules=args.rules,
                       variant=args.variant)
        row.update(ok=True, hand=result.hand, total=result.total, total_without_flowers=result.total_without_flowers,
                   meets_minimum=result.meets_minimum,
                   fans="; ".join(f"{f.name}{' x' + str(f.count) if f.count > 1 else ''} {f.points}"
                                  for f in result.fans))
    except FanscanError as error:
        row["error"] = str(error)
    row["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return row


def done_files(out: Path) -> set[str]:
    """Files already in an output table (to resume)."""
    if not out.exists() or out.stat().st_size == 0:
        return set()
    with out.open(encoding="utf-8", newline="") as handle:
        if out.suffix.lower() == ".csv":
            return {row["file"] for row in csv.DictReader(handle) if row.get("file")}
        done = set()
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                done.add(json.loads(line)["file"])
            except (json.JSONDecodeError, KeyError, TypeError):
                raise FanscanError(f"{out}:{number}: not a row of a batch table; use another --out") from None
        return done


class TableWriter:
    """Appends rows to a CSV or JSON Lines file (or stdout), flushing each."""

    def __init__(self, out: Path | None) -> None:
        self.out = out
        self.csv = out is not None and out.suffix.lower() == ".csv"
        if out is not None and out.suffix.lower() not in (".csv", ".jsonl"):
            raise FanscanError(f"{out}: the table must be .csv or .jsonl")
        fresh = out is None or not out.exists() or out.stat().st_size == 0
        try:
            self.handle = sys.stdout if out is None else out.open("a", encoding="utf-8", newline="")
        except OSError as error:
            raise FanscanError(f"{out}: cannot write ({error.strerror})") from None
        self.writer = csv.DictWriter(self.handle, COLUMNS) if self.csv else None
        if self.writer is not None and fresh:
            self.writer.writeheader()

    def write(self, row: dict[str, Any]) -> None:
        if self.writer is not None:
            self.writer.writerow({k: row.get(k, "") for k in COLUMNS})
        else:
            self.handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        self.handle.flush()

    def close(self) -> None:
        if self.handle is not sys.stdout:
            self.handle.close()


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    photos = list_photos(folder)
    if args.profile:
        from fanscan.vision.pipeline import default_pipeline

        default_pipeline(args.profile)  # a bad profile is one error for the run, not one per photo
    out = Path(args.out) if args.out else None
    done = done_files(out) if out else set()
    todo = [p for p in photos if p.name not in done]
    if done:
        print(f"{len(photos) - len(todo)} of {len(photos)} photos already in {out}; doing the other {len(todo)}",
              file=sys.stderr)
    writer = TableWriter(out)
    errors = 0
    try:
        for n, path in enumerate(todo, start=1):
            row = score_photo(path, args)
            writer.write(row)
            errors += not row["ok"]
            what = f"{row['total']} fan" if row["ok"] else f"error: {row['error']}"
            print(f"[{n}/{len(todo)}] {path.name}: {what}", file=sys.stderr)
    finally:
        writer.close()
    print(f"{len(todo)} photos: {len(todo) - errors} scored, {errors} errors" + (f"; table: {out}" if out else ""),
          file=sys.stderr)
    return 1 if errors else 0
