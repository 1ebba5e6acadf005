"""The README's screenshots of the phone page, taken in real Chromium at 390x844 against `fanscan serve`:

    python docs/screenshots/take_screenshots.py      # writes docs/screenshots/{1-photo,2-context,3-score}.png

The photo is datasets/samples/images/hand_009.jpg (it has a doubtful tile and two detections that are not tiles).
Chinese names need a CJK font in the system (a phone has one; on Debian: apt-get install fonts-wqy-microhei).
"""

from __future__ import annotations

from pathlib import Path

from fanscan.web.local_server import CHROMIUM_ARGS, PHONE_VIEWPORT, chromium_path, running_server

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

PHOTO = ROOT / "datasets" / "samples" / "images" / "hand_009.jpg"


def main() -> None:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with running_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=PHONE_VIEWPORT, has_touch=True, is_mobile=True)
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready=yes]")
        page.set_input_files("#photo-input", str(PHOTO))
        page.wait_for_function("window.fanscanTimings.some(t => t.what === 'photo')")
        page.locator("#photo-view").scroll_into_view_if_needed()
        page.evaluate("window.scrollTo(0, document.getElementById('photo-heading').offsetTop - 8)")
        page.screenshot(path=str(HERE / "1-photo.png"))
        page.locator("#to-context").tap()
        page.locator("label:has(input[name='how'][value='self_drawn'])").tap()
        page.locator("label:has(input[name='seat_wind'][value='S'])").tap()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(HERE / "2-context.png"))
        page.locator("#score-button").tap()
        page.wait_for_selector("#screen-score:not([hidden])")
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(HERE / "3-score.png"))
        browser.close()
    for name in ("1-photo", "2-context", "3-score"):
        print(HERE / f"{name}.png")


if __name__ == "__main__":
    main()
