"""The JSON API: every request the page makes, for other front ends too. Each endpoint goes down the code path of
the command it stands for: `/api/photo` = `fanscan photo --json`, `/api/score` = `fanscan score --json`,
`/api/revise` = the terminal's `fix N TILE`, `/api/batch/row` = one row of `fanscan batch`, `/api/save-labels` =
`fanscan photo --save-labels` once the hand is confirmed."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import Response
from pydantic import ValidationError

from fanscan.batch.table import CSV_HEADER, table_line
from fanscan.commands import batch as batch_command
from fanscan.commands import score as score_command
from fanscan.commands.photo import photo_json
from fanscan.labels.save import save_confirmed_photo
from fanscan.scoring import format_hand, get_rule_set, parse_hand, waits
from fanscan.scoring.errors import FanscanError
from fanscan.scoring.tiles import ALL_TILE_IDS, CHINESE_NAMES, ENGLISH_NAMES
from fanscan.vision.hand_shape import READY
from fanscan.vision.proposal import HandProposal, revise
from fanscan.web.api_models import ReviseRequest, Rules, ScoreRequest, TableRequest, WinContextFields, command_args
from fanscan.web.uploads import uploaded_file, without_folder
from fanscan.web.winning_tile import with_winning_number

router = APIRouter(prefix="/api")
# A photo of a hand shows 14-18 tiles, one of a whole table a few dozen; re-reading costs time per tile, so a
# proposal sent back for revision is refused above this.
MAX_REVISE_TILES = 200

PhotoField = Annotated[UploadFile, File(description="the photo: JPEG, PNG or WebP")]
RulesField = Annotated[Rules | None, Form(description="rule set (default: the server's --rules)")]


def _rules(request: Request, rules: str | None) -> str:
    return rules or request.app.state.rules


@router.get("/config")
def config(request: Request) -> dict[str, Any]:
    """What the page needs to draw itself: the default rules, the upload limit, the 42 tiles with their names, the
    name of the set profile photos are read with (null: the shipped model alone), and whether the server keeps
    scored photos with their labels (`fanscan serve --save-labels`)."""
    return {"rules": request.app.state.rules, "max_upload_mb": request.app.state.max_upload_bytes // 2**20,
            "profile": request.app.state.profile_name, "save_labels": request.app.state.save_labels is not None,
            "learn": request.app.state.learn is not None,
            "tiles": [{"id": t, "en": ENGLISH_NAMES[t], "zh": CHINESE_NAMES[t]} for t in ALL_TILE_IDS],
            "rule_sets": {name: {"dropped_heading": rule_set.dropped_heading, "dropped_by": rule_set.dropped_by}
                          for name, rule_set in ((n, get_rule_set(n)) for n in ("mcr", "hk"))}}


@router.post("/photo")
def read_photo(request: Request, photo: PhotoField, rules: RulesField = None) -> dict[str, Any]:
    """The same object as `fanscan photo --json`: the proposal (every tile with its outline, reading, confidence,
    alternatives, role), and the score when the photo reads as a complete hand (else `ok` false and `error`);
    and, beyond the command's object, `waits_to_add` (see the function of that name)."""
    with uploaded_file(photo) as (path, name):
        args = command_args("photo", str(path), _rules(request, rules), profile=request.app.state.profile)
        out = photo_json(str(path), args, name=name)
    if out.get("proposal") is None:  # not a usable photo: nothing to fix, a client error
        raise FanscanError(without_folder(out.get("error", "the photo could not be read"), path))
    out["waits_to_add"] = waits_to_add(out["proposal"]["hand"], out["proposal"]["status"])
    return out


@router.post("/revise")
def revise_reading(body: ReviseRequest) -> dict[str, Any]:
    """The proposal read again around the user's fixes (as `fix N TILE` in the terminal), and with the winning
    tile the user chose. Send every fix so far and the proposal last returned; nothing is kept on the server.
    With `waits_to_add` as `/api/photo` gives it."""
    proposal = _proposal(body.proposal)
    if body.fixes:
        proposal = revise(proposal, body.fixes)
    if body.winning is not None:
        proposal = with_winning_number(proposal, body.winning)
    return {"ok": True, "proposal": proposal.to_dict(), "waits_to_add": waits_to_add(proposal.hand, proposal.status)}


def waits_to_add(hand: str, status: str) -> list[dict[str, str]]:
    """For a reading of 13 tiles that waits on something (status `ready`: the photo lacks the winning tile, or the
    hand was not finished), each tile that completes it, as `fanscan waits` lists them, with the complete hand that
    tile makes as the winning tile: `{"tile": "4p", "hand": "234m44p444sSSSFF4p"}`, so the page can add the tile the
    photo does not show. Empty for any other reading."""
    if status != READY or not hand.strip():
        return []
    ready = parse_hand(hand)
    if ready.winning_tile is not None:
        return []
    return [{"tile": tile, "hand": format_hand(replace(ready, winning_tile=tile)).strip()} for tile in waits(ready)]


def _proposal(data: Any) -> HandProposal:
    """A proposal sent back by the client, refused above MAX_REVISE_TILES tiles."""
    tiles = data.get("tiles", []) if isinstance(data, dict) else []
    if isinstance(tiles, list) and len(tiles) > MAX_REVISE_TILES:
        raise FanscanError(f"the proposal has {len(tiles)} tiles; at most {MAX_REVISE_TILES} are read again")
    return HandProposal.from_dict(data)


def _confirmed_proposal(text: str) -> HandProposal:
    """The confirmed proposal a form field carries as JSON (`/api/save-labels`, `/api/learn`)."""
    try:
        return _proposal(json.loads(text))
    except json.JSONDecodeError as error:
        raise FanscanError(f"proposal: not JSON ({error.msg} at character {error.pos})") from None
    except RecursionError:
        raise FanscanError("proposal: nested deeper than any proposal is") from None


@router.post("/save-labels", responses={409: {"description": "the server was started without --save-labels"}})
def save_labels(request: Request, photo: PhotoField,
                proposal: Annotated[str, Form(description="the confirmed proposal as JSON: as /api/photo or "
                                                          "/api/revise last returned it, after every fix")],
                ) -> dict[str, Any]:
    """Keep the photo and the confirmed proposal's tiles as YOLO labels in the server's `--save-labels` dataset
    (as `fanscan photo --save-labels`). The page sends the photo again: the server keeps nothing between requests.
    Answers the saved photo's and label file's paths inside the dataset and the number of labels."""
    dataset = request.app.state.save_labels
    if dataset is None:
        raise HTTPException(409, "this server keeps no photos: start it with fanscan serve --save-labels DATASET")
    confirmed = _confirmed_proposal(proposal)
    from fanscan.vision.load import load_image

    with uploaded_file(photo) as (path, name):
        size = load_image(path).original_size
        if tuple(size) != tuple(confirmed.image_size):
            raise FanscanError(f"{name}: the photo is {size[0]}x{size[1]} pixels but the proposal is for "
                               f"{confirmed.image_size[0]}x{confirmed.image_size[1]}: not the photo it was read from")
        saved = save_confirmed_photo(dataset, str(path), confirmed)
    label_file = saved.parent.parent / "labels" / f"{saved.stem}.txt"
    labels = len([line for line in label_file.read_text(encoding="utf-8").splitlines() if line.strip()])
    return {"ok": True, "image": saved.relative_to(dataset).as_posix(),
            "labels_file": label_file.relative_to(dataset).as_posix(), "labels": labels}


@router.post("/learn", responses={409: {"description": "the server was started without --learn"}})
def learn(request: Request, photo: PhotoField,
          proposal: Annotated[str, Form(description="the confirmed proposal as JSON: as /api/photo or /api/revise "
                                                    "last returned it, after every fix")]) -> dict[str, Any]:
    """Learn as you play (`fanscan serve --learn PROFILE`): the confirmed photo's tiles, with the user's fixes, join
    the profile's data (one history line), and the profile is refitted in the background; the next photos are read
    with it once that is done. Answers the history entry: its number, tiles, and how many the model had read wrong."""
    from fanscan.calibration.learn import classifier_to_learn_with, learn_photo

    profile = request.app.state.learn
    if profile is None:
        raise HTTPException(409, "this server does not learn: start it with fanscan serve --learn PROFILE.npz")
    confirmed = _confirmed_proposal(proposal)
    classifier = classifier_to_learn_with(profile, request.app.state.profile)
    with uploaded_file(photo) as (path, name):
        entry = learn_photo(profile, path, confirmed, classifier, name=name)
    refitter = request.app.state.refitter
    refitter.request()
    return {"ok": True, "entry": entry.number, "tiles": len(entry.tiles), "fixed": len(entry.hard),
            "refitting": True, "last_refit_error": refitter.last_error}


@router.post("/score")
def score_hand(request: Request, body: ScoreRequest) -> dict[str, Any]:
    """The same object as `fanscan score HAND --json` with the context flags of the same names."""
    context = WinContextFields(**body.model_dump(exclude={"hand", "rules"}))
    args = command_args("score", body.hand, _rules(request, body.rules), context)
    return score_command.score_text(body.hand, args).to_dict()


@router.post("/batch/row")
def batch_row(request: Request, photo: PhotoField, rules: RulesField = None,
              context: Annotated[str, Form(description="win context as a JSON object (the /api/score fields)")] = "{}",
              ) -> dict[str, Any]:
    """One row of `fanscan batch` for one photo (an error row when it cannot be scored)."""
    try:
        fields = WinContextFields.model_validate_json(context)
    except ValidationError as error:
        raise FanscanError(f"context: {error.errors()[0]['msg']}") from None
    with uploaded_file(photo) as (path, _):
        args = command_args("batch", str(path.parent), _rules(request, rules), fields, request.app.state.profile)
        row = batch_command.score_photo(path, args)
    if row.get("error"):
        row["error"] = without_folder(row["error"], path)
    return row


@router.post("/batch/table")
def batch_table(body: TableRequest) -> Response:
    """Rows as a `fanscan batch` table, written as the command writes its: CSV with its columns (formula-like text
    marked), or JSON Lines."""
    if body.format == "csv":
        text = CSV_HEADER + "\n" + "".join(table_line(row, is_csv=True) for row in body.rows)
        return Response(text, media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="scores.csv"'})
    lines = "".join(table_line(row, is_csv=False) for row in body.rows)
    return Response(lines, media_type="application/x-ndjson; charset=utf-8",
                    headers={"Content-Disposition": 'attachment; filename="scores.jsonl"'})

