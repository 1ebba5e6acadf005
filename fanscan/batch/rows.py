"""One table row for one photo: read (from its path, or from bytes sent along), propose, score. Runs in the batch
process or on a Dask worker; every failure of the photo becomes an error row, never an exception."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fanscan.batch.files import BatchFile
from fanscan.batch.settings import settings_namespace
from fanscan.scoring.errors import FanscanError

NEEDS_REVIEW = "needs_review"  # row status of a hand complete only by a rule override (see --accept-overrides)
# Row status of a photo that has no verdict yet: it was not scored because its Dask worker died (or its task failed
# on the cluster for a reason that is not the photo's). It counts as an error row, and a resume scores it again.
RETRY = "retry"
# What a worker answers for a photo whose path it cannot see (the batch then sends the photo's bytes instead).
NOT_VISIBLE = "not visible"


@dataclass(frozen=True)
class PhotoJob:
    file: BatchFile
    data: bytes | None = None  # the photo's bytes, for workers that cannot see `file.path`


def score_job(job: PhotoJob, settings: dict[str, Any]) -> dict[str, Any]:
    """The row for one photo (an error row when it cannot be scored)."""
    from fanscan.commands.photo import accepted_hand, context_from_args, read_photo, settled
    from fanscan.scoring import score
    from fanscan.vision.load import decode_image, read_image_file

    started = time.perf_counter()
    row: dict[str, Any] = {"file": job.file.key, "ok": False}
    args = settings_namespace(settings)
    try:
        data = job.data if job.data is not None else read_image_file(Path(job.file.path), job.file.where)
        proposal = settled(read_photo(decode_image(data, Path(job.file.where), coarse_first=True),
                                      profile=args.profile), args)
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
    except Exception as error:  # a bug must not end a batch of thousands: an error row that says so
        row["error"] = f"{job.file.where}: unexpected {type(error).__name__} ({error}); please report it"
    row["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return row


def worker_sees(path: str) -> bool:
    """Whether this worker's file system has the photo (a worker on another machine may not share the folder)."""
    return os.path.exists(path)


def score_jobs_on_worker(jobs: list[PhotoJob], settings: dict[str, Any]) -> list[dict[str, Any] | str]:
    """`score_job` for each photo, on a Dask worker; `NOT_VISIBLE` for a photo sent by path that this worker
    cannot see."""
    return [NOT_VISIBLE if job.data is None and not worker_sees(job.file.path) else score_job(job, settings)
            for job in jobs]


def error_row(file: BatchFile, error: str, status: str | None = None) -> dict[str, Any]:
    """A row for a photo that could not be scored at all (its bytes could not be read; with `status` `RETRY`, its
    worker died)."""
    return {"file": file.key, "ok": False, **({"status": status} if status else {}), "error": error}
