"""The page in real Chromium (Debian's `chromium`, driven by Playwright) at a phone viewport, against `fanscan serve`
on 127.0.0.1: photo -> numbered tiles -> a fix by tapping -> context -> the same total as `fanscan.scoring.score`.
Skips when playwright or chromium is absent; CI installs both (.ci/run)."""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
sync_api = pytest.importorskip("playwright.sync_api")

from fanscan.scoring import parse_hand, score  # noqa: E402
from web_helpers import label_of_tile, saved_labels, write_set_profile  # noqa: E402

from fanscan.web.local_server import CHROMIUM_ARGS, PHONE_VIEWPORT, chromium_path, running_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples"
MANIFEST = json.loads((SAMPLES / "manifest.json").read_text(encoding="utf-8"))["photos"]

if chromium_path() is None:
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    with open_page(browser, server) as page:
        yield page


@contextlib.contextmanager
def open_page(browser, server: str):
    """A phone-sized page of the app; every request it makes is recorded, and any beyond the app is refused."""
    context = browser.new_context(viewport=PHONE_VIEWPORT, has_touch=True, is_mobile=True)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    context.route(lambda url: not url.startswith(server + "/"), lambda route: route.abort())
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready=yes]")
    page.requests = requests  # type: ignore[attr-defined]
    yield page
    assert errors == []
    outside = [url for url in requests if not url.startswith((server + "/", "blob:", "data:"))]
    assert outside == [], f"the page asked for something beyond the app: {outside}"
    context.close()


def choose_photo(page, name: str) -> None:
    page.set_input_files("#photo-input", str(SAMPLES / "images" / name))
    page.wait_for_function("window.fanscanTimings.some(t => t.what === 'photo')")


def wait_for_fix(page, fixes_before: int) -> None:
    page.wait_for_function(f"window.fanscanTimings.filter(t => t.what === 'fix').length > {fixes_before}")


def fixes_done(page) -> int:
    return page.evaluate("window.fanscanTimings.filter(t => t.what === 'fix').length")


def test_photo_fix_context_score(page):
    """hand_001 is 999m 678p 789s WWW EE. Tap tile 11 (a W) and make it an E: 999m 678p 789s WW EEE; make tile 14 the
    winning tile; self-drawn, seat wind S. The page must show what the scoring engine says for that hand."""
    choose_photo(page, "hand_001.jpg")
    expected_tiles = MANIFEST["hand_001"]["tiles"]
    numbers = page.locator("#overlay g text").all_text_contents()
    assert numbers == [str(n) for n in range(1, len(expected_tiles) + 1)]
    assert page.locator("#tile-strip button").count() == len(expected_tiles)
    assert page.locator("#overlay g.standing").count() > 0 and page.locator("#overlay g.winning").count() == 1

    tile_11 = page.locator("#overlay g[data-number='11']")
    assert "West" in page.locator("#tile-strip button[data-number='11']").get_attribute("aria-label")
    before = fixes_done(page)
    tile_11.tap()
    page.locator("#palette-faces button[data-tile='E']").tap()
    wait_for_fix(page, before)
    assert "East" in page.locator("#tile-strip button[data-number='11']").get_attribute("aria-label")
    assert "fixed" in page.locator("#overlay g[data-number='11']").get_attribute("class")

    before = fixes_done(page)
    page.locator("#tile-strip button[data-number='14']").tap()
    page.locator("#make-winning").tap()
    wait_for_fix(page, before)
    assert "winning" in page.locator("#overlay g[data-number='14']").get_attribute("class")

    page.locator("#to-context").tap()
    page.locator("label:has(input[name='how'][value='self_drawn'])").tap()
    page.locator("label:has(input[name='seat_wind'][value='S'])").tap()
    page.locator("#score-button").tap()
    page.wait_for_selector("#screen-score:not([hidden])")

    expected = score("999m678p789sWWEE" + "E" + "|ES1000")  # prevalent E, seat S, self-drawn
    assert page.inner_text("#score-total").startswith(f"{expected.total} fan")
    shown = page.locator("#fans tbody tr").all_inner_texts()
    assert len(shown) == len(expected.fans)
    for fan in expected.fans:
        assert any(fan.name in row and fan.name_zh in row and row.startswith(str(fan.points)) for row in shown), fan
    if expected.minimum is not None:
        assert str(expected.minimum) in page.inner_text("#score-minimum")
    # a server without --save-labels keeps nothing, and the page does not ask it to; without --profile, no set named
    assert not [url for url in page.requests if "/api/save-labels" in url] and page.inner_text("#kept-note") == ""
    assert not page.locator("#profile-note").is_visible()


def test_the_rules_suggestion_is_one_tap(page):
    """hand_020 shows 14 tiles that make no hand (1m 3m 4m ..., as printed on the tiles: manifest.json): the
    classifier's reading is no winning hand, the rules suggest the one that is (its 1m as 2m); one tap takes it,
    and the hand is the labelled one with that tile changed. (hand_019 served here until the detector joined its
    split white dragon: it now reads as labelled, with nothing to suggest.)"""
    choose_photo(page, "hand_020.jpg")
    assert "not a complete hand" in page.inner_text("#reading") and not page.locator("#to-context").is_visible()
    button = page.locator("#take-suggestion")
    assert button.is_visible() and "tile 1 as" in button.inner_text()
    before = fixes_done(page)
    button.tap()
    wait_for_fix(page, before)
    reading = page.inner_text("#reading")
    assert reading.endswith("(a complete hand)") and not button.is_visible()
    assert page.locator("#to-context").is_visible()
    hand = reading.split(": ", 1)[1].rsplit(" (", 1)[0]
    expected = Counter(MANIFEST["hand_020"]["tiles"])
    expected.subtract({"1m": 1})
    expected.update({"2m": 1})
    assert Counter(parse_hand(hand).all_tiles()) == +expected


@pytest.fixture(scope="module")
def keeping_server(tmp_path_factory):
    """`fanscan serve --profile SET --save-labels DIR`: (its URL, DIR)."""
    folder = tmp_path_factory.mktemp("serve-options")
    profile = write_set_profile(folder / "green.npz", "my green set")
    dataset = folder / "kept"
    with running_server(options=["--profile", str(profile), "--save-labels", str(dataset)]) as url:
        yield url, dataset


def test_profile_named_and_fixed_photo_kept_when_scored(browser, keeping_server):
    """With --profile the page names the set; with --save-labels, scoring a photo's hand keeps the photo and the
    reading as fixed on the page (tile 11, a W, made an E: 999m 678p 789s WW EEE), once, even when the hand is
    scored again."""
    server, dataset = keeping_server
    with open_page(browser, server) as page:
        assert page.inner_text("#profile-note") == "Calibrated to your tile set “my green set”"
        choose_photo(page, "hand_001.jpg")
        before = fixes_done(page)
        page.locator("#overlay g[data-number='11']").tap()
        page.locator("#palette-faces button[data-tile='E']").tap()
        wait_for_fix(page, before)
        fixed = page.evaluate("state.proposal")
        assert fixed["tiles"][10]["tile"] == "E"
        assert not (dataset / "images").exists()  # nothing kept before the hand is scored
        assert fixed["status"] == "complete" and sorted(fixed["hand"]) == sorted("999m678p789sWWEEE")
        page.locator("#to-context").tap()
        page.locator("#score-button").tap()
        page.wait_for_selector("#screen-score:not([hidden])")
        page.wait_for_function("document.getElementById('kept-note').textContent !== ''")
        tiles = [t for t in fixed["tiles"] if t["tile"] not in ("none", "back")]
        assert page.inner_text("#kept-note") == f"Photo and {len(tiles)} tile labels kept for training: " \
                                                "images/hand_001.jpg"
        page.locator("#back-to-context").tap()
        page.locator("#score-button").tap()
        page.wait_for_selector("#screen-score:not([hidden])")
    assert sorted(p.name for p in (dataset / "images").iterdir()) == ["hand_001.jpg"]
    assert sorted(p.name for p in (dataset / "labels").iterdir()) == ["hand_001.txt"]
    labels = saved_labels(dataset, "hand_001", tuple(fixed["image_size"]))
    assert Counter(name for name, _, _ in labels) == Counter(parse_hand(fixed["hand"]).all_tiles())
    for tile in tiles:
        assert label_of_tile(labels, tile["box"]) == tile["tile"]


def test_impossible_context_is_explained_in_place(page):
    choose_photo(page, "hand_001.jpg")
    page.locator("#to-context").tap()
    page.locator("label:has(input[name='how'][value='self_drawn'])").tap()
    page.locator("label:has(input[name='robbing_kong'])").tap()
    page.locator("#score-button").tap()
    page.wait_for_function("document.getElementById('context-error').textContent.length > 0")
    assert "robbing the kong" in page.inner_text("#context-error")
    assert page.locator("#screen-context").is_visible() and not page.locator("#screen-score").is_visible()


def tab_to(page, selector: str, limit: int = 150, key: str = "Tab") -> None:
    """Press Tab until the focused element matches `selector` (keyboard only: no clicks, no focus() calls)."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"Tab never reached {selector}")


def test_keyboard_only(page):
    """After the photo is chosen (a file chooser is the system's, not the page's), everything by keyboard: fix tile 11
    to E from the palette, go on, choose self-drawn and seat S with arrow keys, score."""
    choose_photo(page, "hand_001.jpg")
    before = fixes_done(page)
    tab_to(page, "#tile-strip button[data-number='11']")
    page.keyboard.press("Enter")
    page.wait_for_selector("#palette[open]")
    tab_to(page, "#palette-faces button[data-tile='E']")
    page.keyboard.press("Enter")
    wait_for_fix(page, before)
    assert "East" in page.locator("#tile-strip button[data-number='11']").get_attribute("aria-label")
    tab_to(page, "#to-context")
    page.keyboard.press("Enter")
    page.wait_for_selector("#screen-context:not([hidden])")
    tab_to(page, "input[name='how']")
    page.keyboard.press("ArrowRight")  # discard -> self-drawn
    tab_to(page, "input[name='seat_wind']")
    page.keyboard.press("ArrowRight")  # E -> S
    tab_to(page, "#score-button")
    page.keyboard.press("Enter")
    page.wait_for_selector("#screen-score:not([hidden])")
    # the photo's own winning tile (the last one, an E) stays: 999m678p789s WW EE + E
    expected = score("999m678p789sWWEEE|ES1000")
    assert page.inner_text("#score-total").startswith(f"{expected.total} fan")


def test_typed_hand_with_the_tile_keyboard(page):
    """Type [EEE,2][SSSS,1]WWWNN55pN partly with the tile keyboard; the string's context says the rest: 98 fan."""
    page.locator("#typed summary").tap()
    for key in ("[", "E", "E", "E", ",2", "]"):
        label = f"add {key}" if len(key) == 1 and key not in "[]" else None
        (page.locator(f"#keyboard button[aria-label='{label}']") if label
         else page.locator("#keyboard button.key-text", has_text=key)).first.tap()
    assert page.input_value("#hand-input") == "[EEE,2]"
    page.locator("#hand-input").press("End")
    page.keyboard.type("[SSSS,1]WWWNN55pN|EE1000")
    assert page.input_value("#hand-input") == "[EEE,2][SSSS,1]WWWNN55pN|EE1000"
    page.locator("#use-typed").tap()
    page.locator("#score-button").tap()
    page.wait_for_selector("#screen-score:not([hidden])", timeout=5000)
    assert page.inner_text("#score-total").startswith("98 fan")
    assert "大四喜" in page.inner_text("#fans")


def test_batch_page(browser, server, tmp_path):
    context = browser.new_context(viewport=PHONE_VIEWPORT, accept_downloads=True)
    page = context.new_page()
    page.goto(server + "/batch")
    photos = [SAMPLES / "images" / name for name in ("hand_001.jpg", "hand_003.jpg", "hand_020.jpg")]
    page.set_input_files("#photos", [str(p) for p in photos])
    page.click("#start")
    page.wait_for_selector("body[data-done=yes]")
    assert page.evaluate("document.getElementById('progress').value") == 3
    with page.expect_download() as download:
        page.click("#download-jsonl")
    rows = [json.loads(line) for line in Path(download.value.path()).read_text(encoding="utf-8").splitlines()]
    assert [r["file"] for r in rows] == [p.name for p in photos]
    assert [r["ok"] for r in rows] == [True, True, False]  # hand_020 is not a hand
    for row, photo in zip(rows[:2], photos, strict=False):
        expected = MANIFEST[photo.stem]["tiles"]
        assert row["tiles"] == len(expected)
    with page.expect_download() as download:
        page.click("#download-csv")
    header = Path(download.value.path()).read_text(encoding="utf-8").splitlines()[0]
    assert header.split(",")[:4] == ["file", "ok", "status", "hand"]
    context.close()


def test_a_12mp_photo_is_scaled_down_in_the_page_upright_as_shown(page, tmp_path):
    """A phone's 12-MP photo, stored on its side with EXIF orientation 6 (turn 90 degrees clockwise to show): the page
    sends it scaled down (libjpeg's scaled decoding: 4000 px becomes 2000) and upright, and the tiles read are the
    photo's own (the expectation is the pipeline's reading of the 12-MP file itself)."""
    import cv2
    from test_load import jpeg_with_orientation

    from fanscan.commands.photo import read_photo

    upright = cv2.resize(cv2.imread(str(SAMPLES / "images" / "hand_001.jpg")), (4000, 3000),
                         interpolation=cv2.INTER_CUBIC)
    stored = cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE)  # what orientation 6 turns back clockwise
    photo = tmp_path / "phone.jpg"
    photo.write_bytes(jpeg_with_orientation(stored, 6))
    expected = read_photo(str(photo))
    assert expected.image_size == (4000, 3000)
    with page.expect_request(lambda request: request.url.endswith("/api/photo")) as sent:
        page.set_input_files("#photo-input", str(photo))
    page.wait_for_function("window.fanscanTimings.some(t => t.what === 'photo')")
    assert len(sent.value.post_data_buffer) < photo.stat().st_size / 2  # a scaled-down copy, not the 12-MP file
    proposal = page.evaluate("state.proposal")
    assert proposal["image_size"] == [2000, 1500]  # upright (wider than tall), long side 2000
    assert proposal["hand"].strip() == expected.hand.strip()
    assert page.locator("#overlay g").count() == len(expected.tiles)
