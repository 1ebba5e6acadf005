"""`fanscan batch DIR`: every file in a folder → one table row each (hand, status, total, fans), no questions.

    fanscan batch photos/ --out scores.csv          # or scores.jsonl; resumable: files already there are skipped
    fanscan batch photos/ --self-drawn --seat S     # one win context for all (the photos cannot show it)
    fanscan batch photos/ --out s.csv --workers 2   # on a local Dask cluster of 2 processes (the `cluster` extra)
    fanscan batch photos/ --out s.csv --scheduler tcp://HOST:8786   # on a running Dask cluster

A file that is not a readable photo, or a photo that does not show a complete hand, is an error row; the rest go
on. Rows are written (and flushed) as each photo is done, so an interrupted run loses nothing and the next run
carries on; the table is checked and repaired before a resume, and refused if it is not a fanscan table, if another
batch is writing it, or if it was made with other settings (unless --restart).
Exit status: 0 when every row in the table scored, 1 when some rows are errors (also after a resume); a hand below
the minimum is a scored row (its meets_minimum column says so). A photo not scored because its Dask worker died is
an error row of status `retry`, which the next run scores again.
"""

from __future__ import annotations

import argparse
import os
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from fanscan import exit_status
from fanscan.batch.files import BatchFile, FolderListing, list_files
from fanscan.batch.lock import TableLock
from fanscan.batch.progress import Progress
from fanscan.batch.rows import RETRY, PhotoJob, score_job
from fanscan.batch.settings import batch_settings, check_settings, normalised, record_settings
from fanscan.batch.table import (
    COLUMNS,
    SIDECARS,
    TableContents,
    TableWriter,
    check_table_path,
    clear_table,
    read_table,
    sidecar,
)
from fanscan.batch.wording import counted
from fanscan.commands.photo import (
    add_context_arguments,
    add_profile_argument,
    add_review_arguments,
    profile_line,
    profile_note,
    used_profile,
)
from fanscan.scoring.errors import FanscanError

__all__ = ["COLUMNS", "add_parser", "run", "score_photo"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "batch", help="score every photo in a folder into a table (CSV or JSON Lines), here or on a Dask cluster",
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=exit_status.EPILOG,
    )
    parser.add_argument("folder", help="folder of photos (JPEG, PNG, WebP; any other file gets an error row)")
    parser.add_argument("--out", help="table to write: .csv or .jsonl (default: JSON Lines on stdout); "
                                      "files already in it are skipped")
    parser.add_argument("-r", "--recursive", action="store_true", help="also score the files in sub-folders")
    parser.add_argument("--restart", action="store_true",
                        help="empty the --out table first (to redo it, or to change its settings)")
    parser.add_argument("--rules", choices=("mcr", "hk"), default="mcr", help="rule set (default mcr)")
    add_profile_argument(parser)
    add_context_arguments(parser)
    add_review_arguments(parser)
    cluster = parser.add_argument_group("Dask cluster (needs the `cluster` extra)")
    where = cluster.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="tcp://HOST:8786", help="score on the workers of this Dask scheduler")
    where.add_argument("--workers", type=int, metavar="N",
                       help="score on a local Dask cluster of N processes (one thread each)")
    cluster.add_argument("--send-bytes", action="store_true",
                         help="send every photo's bytes to the workers (default: its path, and its bytes only to "
                              "a worker that cannot see the path)")
    cluster.add_argument("--chunk", type=int, metavar="K",
                         help="photos per Dask task (default: about 16 tasks per worker thread, 1 to 16 photos "
                              "each; more photos a task: less work for the scheduler, more redone when a worker dies)")
    parser.add_argument("--json-progress", action="store_true",
                        help="progress on stderr as one JSON object a line: a row object per photo, note and log "
                             "objects (log: what Dask would print), and a summary object")
    parser.set_defaults(run=run)


def open_table(out: Path, settings: dict[str, Any], restart: bool, progress: Progress) -> TableContents:
    """The table's rows after repair; with `restart`, none. Refuses a resume under other settings."""
    contents = read_table(out)  # a foreign file is refused here, before --restart could empty it
    for repair in contents.repairs:
        progress.note(repair)
    record = sidecar(out, ".meta.json")
    if restart:
        clear_table(out)
        contents = TableContents()
    if contents.ok_by_file:
        check_settings(record, out, settings)
    else:
        record_settings(record, normalised(settings))
    return contents


def real_table_path(out: Path) -> Path:
    """Where the table really is: a table reached through a symbolic link is locked, read, repaired and written where
    it is, so that two batches on it by two names never both hold its lock (nor does a repair replace the link)."""
    real = Path(os.path.realpath(out))
    return out if real == Path(os.path.abspath(out)) else real


def score_photo(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The row of one photo file under the settings of `args` (the parsed flags of `fanscan batch`): what the web
    page's batch gets for each upload."""
    file = BatchFile(key=path.name, where=str(path), path=str(path.resolve()))
    return score_job(PhotoJob(file), batch_settings(args))


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if args.profile:
        from fanscan.vision.pipeline import default_pipeline

        default_pipeline(args.profile)  # a bad profile is one error for the run, not one per photo
    out = Path(args.out) if args.out else None
    if args.workers is not None and args.workers < 1:
        raise FanscanError(f"--workers {args.workers}: give at least 1")
    if args.chunk is not None and args.chunk < 1:
        raise FanscanError(f"--chunk {args.chunk}: give at least 1")
    if (args.send_bytes or args.chunk is not None) and not (args.workers or args.scheduler):
        raise FanscanError("--send-bytes and --chunk are for a Dask cluster: add --workers N or --scheduler ADDRESS")
    progress = Progress(0, args.json_progress)
    if args.profile:
        progress.note(profile_line(profile_note(used_profile(args.profile))))
    # With --json-progress, what Dask would print on stderr becomes `log` events (every line stays a JSON object).
    dask_log = progress.log if args.json_progress else None
    if args.workers:
        from fanscan.batch.cluster import start_worker_fork_server

        start_worker_fork_server(dask_log)  # the workers' imports run while this process reads the table and folder
    settings = batch_settings(args)
    with ExitStack() as stack:
        contents = TableContents()
        own_files: frozenset[Path] = frozenset()
        if out is not None:
            if not out.parent.is_dir():
                raise FanscanError(f"{out}: no folder {out.parent} to write the table in")
            named = out
            out = real_table_path(out)
            check_table_path(out)
            own_files = frozenset(Path(os.path.abspath(sidecar(table, suffix)))
                                  for table in {named, out} for suffix in ("", *SIDECARS))
            stack.enter_context(TableLock(sidecar(out, ".lock"), out))
            contents = open_table(out, settings, args.restart, progress)
        listing = list_files(folder, args.recursive, own_files)
        todo = [f for f in listing.files if f.key not in contents.ok_by_file]
        progress.total = len(todo)
        if len(todo) < len(listing.files):
            progress.note(f"{len(listing.files) - len(todo)} of {counted(len(listing.files), 'file')} already in "
                          f"{out}; doing the other {len(todo)}")
        if args.scheduler or args.workers:
            from fanscan.batch.cluster import cluster_rows

            rows = cluster_rows(todo, settings, scheduler=args.scheduler, workers=args.workers,
                                send_bytes=args.send_bytes, chunk=args.chunk, note=progress.note, log=dask_log)
        else:
            from fanscan.batch.local import local_rows, one_malloc_arena

            one_malloc_arena()  # this process is the batch's own
            rows = local_rows(todo, settings)
        writer = stack.enter_context(TableWriter(out, set(contents.ok_by_file)))
        to_retry = 0
        for row in rows:
            if writer.write(row):
                contents.ok_by_file[row["file"]] = row["ok"]
                to_retry += row.get("status") == RETRY
                progress.row(row)
    return report(listing, contents, progress, out, to_retry)


def report(listing: FolderListing, contents: TableContents, progress: Progress, out: Path | None,
           to_retry: int = 0) -> int:
    """The closing count (every file listed is a row, scored or error) and the exit status."""
    listed = [f.key for f in listing.files]
    errors = sum(not contents.ok_by_file[key] for key in listed)
    parts = [f"{counted(len(listed), 'file')}: {len(listed) - errors} scored, {counted(errors, 'error')} "
             f"({progress.done} done now)"]
    if to_retry:
        parts.append(f"{counted(to_retry, 'photo')} not scored because {'its' if to_retry == 1 else 'their'} Dask "
                     "worker died: run the batch again to try " + ("it" if to_retry == 1 else "them") + " again")
    if listing.hidden:
        parts.append(f"{counted(listing.hidden, 'hidden file')} passed over")
    if listing.folders_not_entered:
        parts.append(f"{counted(listing.folders_not_entered, 'sub-folder')} not entered (--recursive)")
    others = len(contents.ok_by_file) - len(listed)
    if out is not None and others:
        parts.append(f"{counted(others, 'more row')} in the table for files not in the folder now")
    if out is not None:
        parts.append(f"table: {out}")
    table_errors = contents.errors if out is not None else errors
    progress.summary("; ".join(parts), {"files": len(listed), "scored": len(listed) - errors, "errors": errors,
                                        "done_now": progress.done, "table_errors": table_errors,
                                        "to_retry": to_retry})
    return exit_status.SOME_FAILED if table_errors else exit_status.SCORED
