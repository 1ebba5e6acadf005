"""The pictures of the README and the site, made from the shipped models, and the check that they are not stale.

    python docs/screenshots.py            # retake every picture (needs Playwright and Debian's chromium)
    python docs/screenshots.py --check    # exit 1 when a picture shows another reading than the shipped models give

Each picture has a JSON beside it (`NAME.json`) saying what it shows: the photo, the hand the shipped models read
from it, each tile's reading and role, and for the score the context and the total. The check reads the photo
again through the pipeline and scores the hand again, and compares those readings, never pixels: rendering varies
from machine to machine and the page's look may change without the reading changing. So the check needs no
browser and runs in CI; retaking the pictures needs chromium (`apt-get install chromium`; Chinese names need a CJK
font, e.g. `fonts-wqy-microhei`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "screenshots"
ROOT = HERE.parent.parent
PHOTO = "datasets/samples/images/hand_001.jpg"
# The context the phone screenshots give: self-drawn, seat wind south (what the taps below choose).
CONTEXT = {"self_drawn": True, "seat_wind": "S"}
PHONE_SHOTS = ("1-photo", "2-context", "3-score")
ANNOTATED = "annotated"


def reading(proposal: dict[str, Any]) -> dict[str, Any]:
    """What a picture shows of a proposal (`fanscan photo --json`'s `proposal`): the hand and each tile."""
    return {"hand": proposal["hand"], "status": proposal["status"],
            "tiles": [f"{tile['number']}:{tile['tile']} {tile['role']}" for tile in proposal["tiles"]]}


def shipped_reading(photo: str) -> dict[str, Any]:
    """The reading the shipped models give the photo today, as `fanscan photo` reads it."""
    from fanscan.commands.photo import read_photo

    return reading(read_photo(str(ROOT / photo)).to_dict())


def shipped_total(hand: str, context: dict[str, Any]) -> int:
    from fanscan.scoring import WinContext, score

    return score(hand, WinContext(**context)).total


def expected(name: str) -> dict[str, Any]:
    """What picture `name` must show, recomputed from the shipped models and the engine."""
    shown = {"photo": PHOTO, **shipped_reading(PHOTO)}
    if name == "3-score":
        shown.update(context=CONTEXT, total=shipped_total(shown["hand"], CONTEXT))
    return shown


def check(folder: Path) -> list[str]:
    """One line per picture whose JSON disagrees with what the shipped models read (empty: all up to date)."""
    stale = []
    computed: dict[str, dict[str, Any]] = {}
    for name in (*PHONE_SHOTS, ANNOTATED):
        sidecar = folder / f"{name}.json"
        if not (folder / f"{name}.png").is_file() or not sidecar.is_file():
            stale.append(f"{folder / name}.png: missing (or its JSON)")
            continue
        shown = json.loads(sidecar.read_text(encoding="utf-8"))
        if shown["photo"] not in computed:
            computed[shown["photo"]] = {"photo": shown["photo"], **shipped_reading(shown["photo"])}
        now = dict(computed[shown["photo"]])
        if "context" in shown:
            now.update(context=shown["context"], total=shipped_total(now["hand"], shown["context"]))
        for key in sorted(set(now) | set(shown)):
            if shown.get(key) != now.get(key):
                stale.append(f"{sidecar}: {key} shows {shown.get(key)!r}, the shipped models give {now.get(key)!r}")
    return stale


def write_json(name: str, shown: dict[str, Any]) -> None:
    (HERE / f"{name}.json").write_text(json.dumps(shown, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def take_annotated() -> None:
    from fanscan.commands.photo import read_photo

    proposal = read_photo(str(ROOT / PHOTO), annotate=str(HERE / f"{ANNOTATED}.png"))
    write_json(ANNOTATED, {"photo": PHOTO, **reading(proposal.to_dict())})


def take_phone_page() -> None:
    """The three screens at a phone's 390-px viewport; each JSON records what the server answered for that screen."""
    from playwright.sync_api import sync_playwright

    from fanscan.web.local_server import CHROMIUM_ARGS, PHONE_VIEWPORT, chromium_path, running_server

    if chromium_path() is None:
        raise SystemExit("error: chromium is not installed (apt-get install chromium)")
    with running_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=PHONE_VIEWPORT, has_touch=True, is_mobile=True)
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready=yes]")
        with page.expect_response(lambda response: response.url.endswith("/api/photo")) as answered:
            page.set_input_files("#photo-input", str(ROOT / PHOTO))
        shown = {"photo": PHOTO, **reading(answered.value.json()["proposal"])}
        page.wait_for_function("window.fanscanTimings.some(t => t.what === 'photo')")
        page.evaluate("window.scrollTo(0, document.getElementById('photo-heading').offsetTop - 8)")
        page.screenshot(path=str(HERE / "1-photo.png"))
        write_json("1-photo", shown)
        page.locator("#to-context").tap()
        page.locator("label:has(input[name='how'][value='self_drawn'])").tap()
        page.locator("label:has(input[name='seat_wind'][value='S'])").tap()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(HERE / "2-context.png"))
        write_json("2-context", shown)
        with page.expect_response(lambda response: response.url.endswith("/api/score")) as scored:
            page.locator("#score-button").tap()
        page.wait_for_selector("#screen-score:not([hidden])")
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(HERE / "3-score.png"))
        write_json("3-score", {**shown, "context": CONTEXT, "total": scored.value.json()["total"]})
        browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare the readings shown with the shipped models'")
    parser.add_argument("--dir", type=Path, default=HERE, help=argparse.SUPPRESS)  # the tests check a copy
    args = parser.parse_args(argv)
    if args.check:
        stale = check(args.dir)
        for line in stale:
            print(line, file=sys.stderr)
        if stale:
            print("pictures out of date with the shipped models; run python docs/screenshots.py", file=sys.stderr)
        return 1 if stale else 0
    take_annotated()
    take_phone_page()
    stale = check(HERE)  # the page answered as the engine does, or the pictures would disagree with it at once
    for line in stale:
        print(line, file=sys.stderr)
    for name in (*PHONE_SHOTS, ANNOTATED):
        print(HERE / f"{name}.png")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
