"""A batch table on disk: CSV or JSON Lines, one row per photo, appended row by row and resumable.

Reading an existing table before resuming it checks and repairs it (under the table's lock):
- a file that is not a fanscan table (another CSV header; JSON lines none of which is a row) is refused;
- a last line without its newline (a run killed mid-write, an editor) is never appended to: a CSV one is dropped and
  its photo redone (a cut CSV row can still have all its fields); a JSON one is kept, with its newline, when it is a
  whole row, else dropped and redone;
- a complete line that is not a row (cut and glued by an older version, edited by hand) and a second row for a file
  already in the table are dropped; their photos are redone.
- a row whose photo was not scored for want of a worker (`RETRY`: its Dask worker died) is dropped; its photo is
  redone.
Repairs rewrite the table atomically (a new file moved over the old one), so a crash during a repair loses nothing.
A table saved again by a spreadsheet reads as well: a UTF-8 byte order mark, CRLF line ends, quoted cells, `TRUE`.

Every string written has its line breaks replaced by spaces and its other control characters escaped
(`files.printable`), so that one line is always one row. In a CSV table a text cell that a spreadsheet would take
for a formula (it starts with `=`, `+`, `-` or `@`, and is not a plain number) is written with a `'` before it, the
spreadsheets' own mark of a text cell (as is one that starts with `'` before such a character, so that reading it
back, which takes one `'` off, gives every cell exactly as it was).
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from fanscan.batch.files import printable
from fanscan.batch.rows import RETRY
from fanscan.batch.wording import counted
from fanscan.scoring.errors import FanscanError

COLUMNS = ("file", "ok", "status", "hand", "total", "total_without_flowers", "meets_minimum", "fans", "tiles",
           "warnings", "error", "ms")
CSV_HEADER = ",".join(COLUMNS)
SUFFIXES = (".csv", ".jsonl")
SIDECARS = (".lock", ".meta.json", ".repair")  # the files beside a table that belong to it
# A CSV cell a spreadsheet takes for a formula, or one such behind `'` marks (written with one more `'`)...
_FORMULA = re.compile(r"'*[=+\-@]")
# ...unless it is a plain number, which a spreadsheet reads as the number it is (`-3`, `+1.5`).
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def sidecar(table: Path, suffix: str) -> Path:
    """A file that belongs to a table: `scores.csv` → `scores.csv.lock`, `scores.csv.meta.json`."""
    return table.with_name(table.name + suffix)


def check_table_path(table: Path) -> None:
    """Refuse a table that is not named .csv or .jsonl, or that is (or has beside it) something other than a regular
    file: writing to a FIFO would wait for a reader forever, a device is no table."""
    if table.suffix.lower() not in SUFFIXES:
        raise FanscanError(f"{table}: the table must be .csv or .jsonl")
    for path in (table, *(sidecar(table, suffix) for suffix in SIDECARS)):
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            continue
        except OSError as error:
            raise FanscanError(f"{path}: cannot use it for the table ({error.strerror})") from None
        kind = next((name for is_kind, name in _KINDS if is_kind(mode)), None if stat.S_ISREG(mode) else "not a file")
        if kind is not None:
            raise FanscanError(f"{path}: is {kind}, not a regular file; the table and its "
                               f"{'/'.join(SIDECARS)} files must be regular files (use another --out)")


@dataclass
class TableContents:
    """What a table holds after repair: each file key once, with whether its row scored."""

    ok_by_file: dict[str, bool] = field(default_factory=dict)
    repairs: list[str] = field(default_factory=list)  # one line per repair, for stderr

    @property
    def errors(self) -> int:
        return sum(not ok for ok in self.ok_by_file.values())


def _csv_cells(line: str) -> list[str] | None:
    try:
        return [_csv_value(cell) for cell in next(csv.reader([line]))]
    except (csv.Error, StopIteration):
        return None


def _csv_row(line: str) -> dict[str, Any] | None:
    """A CSV line as a row of this table (`ok` a bool), or None when it is not one."""
    cells = _csv_cells(line)
    if cells is None or len(cells) != len(COLUMNS):
        return None
    row: dict[str, Any] = dict(zip(COLUMNS, cells, strict=True))
    ok = {"true": True, "false": False}.get(row["ok"].lower())  # a spreadsheet writes TRUE and FALSE
    return {**row, "ok": ok} if row["file"] and ok is not None else None


def _csv_cell(value: Any) -> Any:
    """A value as its CSV cell is written: a formula-like text behind a `'` (see the module doc)."""
    if isinstance(value, str) and _FORMULA.match(value) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def _csv_value(cell: str) -> str:
    """A CSV cell as the value that was written (`_csv_cell` undone)."""
    return cell[1:] if cell.startswith("'") and _FORMULA.match(cell[1:]) and not _NUMBER.fullmatch(cell[1:]) else cell


def _json_row(line: str) -> dict[str, Any] | None:
    """A JSON line as a row of this table, or None when it is not one."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        return None
    ok = isinstance(row, dict) and isinstance(row.get("file"), str) and row["file"] and isinstance(row.get("ok"), bool)
    return row if ok else None


def read_table(table: Path) -> TableContents:
    """The rows of an existing table (none when it does not exist or is empty), repaired as the module doc says."""
    contents = TableContents()
    if not table.exists() or table.stat().st_size == 0:
        return contents
    try:
        data = table.read_bytes()
    except OSError as error:
        raise FanscanError(f"{table}: cannot read ({error.strerror})") from None
    is_csv = table.suffix.lower() == ".csv"
    data = data.removeprefix(codecs.BOM_UTF8)  # as spreadsheets save UTF-8
    *lines, tail_bytes = data.split(b"\n")  # the tail: what follows the last newline (nothing in a sound table)
    texts = [line.decode("utf-8", errors="replace").rstrip("\r") for line in lines]
    tail = tail_bytes.decode("utf-8", errors="replace").rstrip("\r")
    kept: list[str] = []
    first_line = 1
    if is_csv:
        header = texts[0] if texts else tail
        if _csv_cells(header) != list(COLUMNS) and not (not texts and CSV_HEADER.startswith(header)):
            raise FanscanError(f"{table}: not a fanscan batch table (its first line is {header[:60]!r}, not the "
                               f"header {CSV_HEADER[:30]}...); use another --out")
        if not texts:  # the header itself was cut: start the table anew
            contents.repairs.append(f"{table}: the header line was cut off; the table starts anew")
            _replace(table, "")
            return contents
        kept.append(CSV_HEADER)
        texts, first_line = texts[1:], 2
    parse = _csv_row if is_csv else _json_row
    dropped: list[int] = []
    retried = 0
    for number, text in enumerate(texts, start=first_line):
        if not text.strip():
            continue
        row = parse(text)
        if row is None or row["file"] in contents.ok_by_file:
            dropped.append(number)
        elif row.get("status") == RETRY:
            retried += 1
        else:
            contents.ok_by_file[row["file"]] = row["ok"]
            kept.append(text)
    tail_row = None if is_csv or not tail.strip() else _json_row(tail)
    # JSON lines none of which is a row (and no cut row of ours at the end: ours start with the file key).
    foreign = not is_csv and not contents.ok_by_file and not retried and tail_row is None and (
        dropped or not tail.startswith('{"file": '))
    if foreign:
        where = f"{table}:{dropped[0] if dropped else first_line + len(texts)}"
        raise FanscanError(f"{where}: not a row of a batch table; use another --out")
    if dropped:
        contents.repairs.append(f"{table}: dropped {counted(len(dropped), 'damaged or repeated line')} "
                                f"({'line' if len(dropped) == 1 else 'lines'} "
                                f"{', '.join(map(str, dropped[:10]))}{'...' if len(dropped) > 10 else ''}); "
                                f"{'its photo is' if len(dropped) == 1 else 'their photos are'} redone")
    if retried:
        one = retried == 1
        contents.repairs.append(f"{table}: {counted(retried, 'photo')} {'was' if one else 'were'} not scored on the "
                                f"cluster ({'its' if one else 'their'} Dask worker died): scoring "
                                f"{'it' if one else 'them'} again")
    if tail.strip():
        number = first_line + len(texts)
        if tail_row is not None and tail_row.get("status") == RETRY:
            contents.repairs.append(f"{table}:{number}: the last row (no newline) is of a photo not scored on the "
                                    "cluster (its Dask worker died): scoring it again")
        elif tail_row is not None and tail_row["file"] not in contents.ok_by_file:
            contents.ok_by_file[tail_row["file"]] = tail_row["ok"]
            kept.append(tail)
            contents.repairs.append(f"{table}:{number}: the last row had no newline; added")
        else:
            contents.repairs.append(f"{table}:{number}: the last line was cut off (no newline); its photo is redone")
    if contents.repairs:
        _replace(table, "".join(line + "\n" for line in kept) if len(kept) > is_csv else "")
    return contents


def _replace(table: Path, text: str) -> None:
    """Write `text` as the table's new content, atomically (a crash leaves the old or the new, never half)."""
    temporary = sidecar(table, ".repair")
    try:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, table)
    except OSError as error:
        raise FanscanError(f"{table}: cannot repair ({error.strerror})") from None


def clear_table(table: Path) -> None:
    """Empty the table (`--restart`)."""
    if table.exists():
        _replace(table, "")


def _one_line(value: Any) -> Any:
    """A value as a table line can hold it: line breaks as spaces, other control characters escaped."""
    return printable(value.replace("\r", " ").replace("\n", " ")) if isinstance(value, str) else value


def table_line(row: dict[str, Any], is_csv: bool) -> str:
    """One row as its line of a CSV (the `COLUMNS`, formula-like text marked) or JSON Lines table."""
    if is_csv:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow([_csv_cell(_one_line(row.get(k, ""))) for k in COLUMNS])
        return buffer.getvalue()
    return json.dumps({k: _one_line(v) for k, v in row.items()}, ensure_ascii=False) + "\n"


class TableWriter:
    """Appends rows to a CSV or JSON Lines table (or JSON Lines on stdout), flushing each; the one place rows are
    written. A file already in the table (or written before by this writer) gets no second row."""

    def __init__(self, table: Path | None, done: set[str] | None = None) -> None:
        self.table = table
        self.is_csv = table is not None and table.suffix.lower() == ".csv"
        self.files = set(done or ())
        fresh = table is None or not table.exists() or table.stat().st_size == 0
        try:
            self.handle: IO[str] = sys.stdout if table is None else table.open("a", encoding="utf-8", newline="")
        except OSError as error:
            raise FanscanError(f"{table}: cannot write ({error.strerror})") from None
        if self.is_csv and fresh:
            self._write_line(CSV_HEADER + "\n")

    def write(self, row: dict[str, Any]) -> bool:
        """Append one row; False (and nothing written) when its file already has one."""
        if row["file"] in self.files:
            return False
        self.files.add(row["file"])
        self._write_line(table_line(row, self.is_csv))
        return True

    def _write_line(self, line: str) -> None:
        try:
            self.handle.write(line)  # one line, one write: a kill leaves at most the last row cut
            self.handle.flush()
        except OSError as error:
            raise FanscanError(f"{self.table or 'stdout'}: cannot write ({error.strerror})") from None

    def close(self) -> None:
        if self.handle is not sys.stdout:
            self.handle.close()

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
