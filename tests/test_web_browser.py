"""The page in real Chromium (Debian's `chromium`, driven by Playwright) at a phone viewport, against `fanscan serve`
on 127.0.0.1: photo -> numbered tiles -> a fix by tapping -> context -> the same total as `fanscan.scoring.score`.
Skips when playwright or chromium is absent; CI installs both (.ci/run)."""

from __future__ import annotations

import contextlib
import json
import re
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
    # the table fits the 390-px screen: nothing runs off it, and each hand breaks only between its tile groups
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_VIEWPORT["width"]
    rights = page.evaluate("[...document.querySelectorAll('.batch-table th, .batch-table td')]"
                           ".map(e => [e.getBoundingClientRect().right, e.scrollWidth - e.clientWidth])")
    assert all(right <= PHONE_VIEWPORT["width"] and hidden <= 0 for right, hidden in rights), rights
    assert "--" not in page.inner_text("#rows")  # no terminal flags (--accept-overrides) on the page
    hands = page.locator("#rows tr td:nth-child(3) .hand-group")
    assert hands.count() > 0 and all(n == 1 for n in hands.evaluate_all("l => l.map(e => e.getClientRects().length)"))
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


# ---- issue 20, items 14 and 15 ----------------------------------------------------------------------------------

# Where the lines of an element's text break, as (the character before, the character after, whether the one after
# starts a .hand-group): read from each character's box on the screen, not from the page's own markup of groups.
LINE_BREAKS_JS = r"""(selector) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const chars = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const group = node.parentElement.closest('.hand-group');
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      // a space where the line ends may have no box: it stays on the line it ends
      const top = box && box.width > 0 ? box.top : /\s/.test(node.data[i]) && chars.length ? chars.at(-1).top : null;
      if (top !== null) chars.push({top, ch: node.data[i], startsGroup: !!group && i === 0});
    }
  }
  const breaks = [];
  for (let k = 1; k < chars.length; k++) {
    if (chars[k].top > chars[k - 1].top + 2) breaks.push([chars[k - 1].ch, chars[k].ch, chars[k].startsGroup]);
  }
  return breaks;
}"""


def assert_breaks_only_between_words_and_groups(page, selector: str) -> None:
    breaks = page.evaluate(LINE_BREAKS_JS, selector)
    assert breaks, f"{selector} fits one line at 390 px: the test shows nothing"
    for before, after, starts_group in breaks:
        assert before.isspace() or after.isspace() or starts_group, (selector, breaks)


def test_a_suggestion_is_a_button_never_a_terminal_command_and_the_reading_breaks_between_tiles(page):
    """hand_020's warnings (the terminal's) say "check it ('fix 1 2m')": the page says what to tap instead. Its
    reading line, longer than a 390-px screen, breaks between words and tile groups, never inside one. (hand_019,
    which this test read first, now reads as labelled, with no suggestion.)"""
    choose_photo(page, "hand_020.jpg")
    text = page.inner_text("body")
    assert "'fix" not in text and not re.search(r"\bfix \d", text), text
    assert "Use the rules' suggestion" in page.inner_text("#warnings")  # it names the button
    assert_breaks_only_between_words_and_groups(page, "#reading")
    assert "".join(page.locator("#reading .hand-group").all_inner_texts()) == page.evaluate("state.proposal.hand")
    # the terminal's other commands, as the proposal words them (vision/proposal.py)
    words = page.evaluate("""() => [
      pageWarning("tiles 15-16 set aside: on the table apart from the hand (discards), not counted; "
                  + "'fix N hand' takes one back"),
      pageWarning("which tiles are the hand is unclear: some may lie on the table apart from it (discards); "
                  + "'fix N table' sets one aside"),
      pageWarning("check tile 3 ('fix 3 7p')")]""")
    assert not [line for line in words if re.search(r"'fix|\bfix (\d|N\b)", line)], words
    assert "Back in the hand" in words[0] and "Not in the hand" in words[1] and "tap tile 3" in words[2]
    # and those taps are there: tile 8 set aside as a table tile, then taken back
    page.locator("#tile-strip button[data-number='8']").tap()
    assert page.locator("#take-back").is_hidden()
    before = fixes_done(page)
    page.locator("#set-aside").tap()
    wait_for_fix(page, before)
    assert page.evaluate("state.proposal.tiles[7].role") == "table"
    page.locator("#tile-strip button[data-number='8']").tap()
    assert page.locator("#set-aside").is_hidden()
    before = fixes_done(page)
    page.locator("#take-back").tap()
    wait_for_fix(page, before)
    assert page.evaluate("state.proposal.tiles[7].role") != "table"


def test_the_last_photo_chosen_wins(page):
    """The first photo's upload is held back until the second photo has been read, then let through: the page must
    end on the second photo's reading (hand_014: 13 tiles, 234m 44p 444s SSS FF), not the first's."""
    held, settled = [], []
    page.route("**/api/photo", lambda route: held.append(route) if not held else route.continue_())
    on_photo = lambda request: settled.append(request.url) if request.url.endswith("/api/photo") else None  # noqa: E731
    page.on("requestfinished", on_photo)
    page.on("requestfailed", on_photo)
    page.set_input_files("#photo-input", str(SAMPLES / "images" / "hand_001.jpg"))
    for _ in range(500):
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the first upload was never sent"
    choose_photo(page, "hand_014.jpg")
    with contextlib.suppress(sync_api.Error):  # the page may have cancelled it already
        held[0].continue_()
    for _ in range(1500):
        if len(settled) >= 2:
            break
        page.wait_for_timeout(20)
    assert len(settled) == 2
    page.wait_for_timeout(300)  # time for a late answer to be (wrongly) drawn
    proposal = page.evaluate("state.proposal")
    assert sorted(proposal["hand"].strip()) == sorted("234m44p444sSSSFF") and proposal["status"] == "ready"
    assert page.evaluate("state.file.name") == "hand_014.jpg"
    assert "234m44p444sSSSFF" in page.inner_text("#reading")
    assert "error" not in (page.get_attribute("#photo-status", "class") or "")


def test_the_palette_marks_the_reading_and_the_runner_up_and_fixed_tiles_look_fixed(page):
    """hand_001's tile 11 reads W: the palette marks W as the reading and the classifier's runner-up as such. Once
    fixed to E, tile 11 looks fixed in the photo and the strip (not only a class), and the palette marks E."""
    choose_photo(page, "hand_001.jpg")
    tile = page.evaluate("state.proposal.tiles[10]")
    runner_up = tile["alternatives"][0][0]
    page.locator("#tile-strip button[data-number='11']").tap()
    page.wait_for_selector("#palette[open]")
    marked = page.locator("#palette button.current")
    assert marked.count() == 1 and marked.get_attribute("data-tile") == tile["tile"] == "W"
    if runner_up in page.evaluate("state.config.tiles.map(t => t.id).concat(['none'])"):
        second = page.locator("#palette button.runner-up")
        assert second.count() == 1 and second.get_attribute("data-tile") == runner_up
        assert "runner-up" in second.get_attribute("aria-label")
    plain = page.locator("#palette-faces button:not(.current):not(.runner-up)").first
    style = "(e) => { const s = getComputedStyle(e); return [s.borderTopColor, s.borderTopWidth, s.borderTopStyle]; }"
    assert marked.evaluate(style) != plain.evaluate(style)
    assert page.evaluate("getComputedStyle(document.querySelector('#palette button.current'), '::after').content") \
        not in ("none", "normal", "")
    assert "current reading" in marked.get_attribute("aria-label")
    before = fixes_done(page)
    page.locator("#palette-faces button[data-tile='E']").tap()
    wait_for_fix(page, before)

    fill = "(e) => getComputedStyle(e).fill"
    fixed_polygon = page.locator("#overlay g[data-number='11'] polygon")
    other_polygon = page.locator("#overlay g[data-number='10'] polygon")
    assert "fixed" in page.get_attribute("#overlay g[data-number='11']", "class")
    assert fixed_polygon.evaluate(fill) != other_polygon.evaluate(fill)
    strip = page.locator("#tile-strip button[data-number='11']")
    assert "fixed" in strip.get_attribute("class") and "fixed by you" in strip.get_attribute("aria-label")
    assert strip.evaluate("(e) => getComputedStyle(e, '::after').content") not in ("none", "normal", "")
    assert page.locator("#legend .key.fixed").is_visible()
    strip.tap()
    page.wait_for_selector("#palette[open]")
    assert page.locator("#palette button.current").get_attribute("data-tile") == "E"
    assert "fixed by you" in page.inner_text("#palette-title")


def won_by(tile: str, self_drawn: bool, seat: str, prevalent: str) -> str:
    from fanscan.scoring.tiles import CHINESE_NAMES, ENGLISH_NAMES

    winds = {"E": "East", "S": "South", "W": "West", "N": "North"}
    return (f"Won by {'self-draw' if self_drawn else 'a discard'} on {tile} ({ENGLISH_NAMES[tile]} "
            f"{CHINESE_NAMES[tile]}), seat {winds[seat]}, round wind {winds[prevalent]}")


def test_a_new_photo_starts_a_new_context_and_a_13_tile_photo_offers_its_waits(page):
    """hand_001 (its reading's last tile, an E, winning), self-drawn, seat S, last tile of the wall: the context
    screen marks the winning tile and the score says how it was won. Then a new photo, hand_014 (13 tiles:
    234m 44p 444s SSS FF): the context starts afresh (discard, seat E, nothing else), the page asks for no fix but
    offers the two waits, 4p and F; tapping F adds it as the winning tile, and the hand scores as the engine says."""
    choose_photo(page, "hand_001.jpg")
    reading = page.evaluate("state.proposal.hand")
    winning = parse_hand(reading).winning_tile
    page.locator("#to-context").tap()
    marked = page.locator("#context-hand .winning")
    assert marked.count() == 1 and marked.get_attribute("data-tile") == winning
    assert page.locator("#context-hand [data-tile]").last.get_attribute("class").split().count("winning") == 1
    assert "winning" in marked.inner_text().lower()
    page.locator("label:has(input[name='how'][value='self_drawn'])").tap()
    page.locator("label:has(input[name='seat_wind'][value='S'])").tap()
    page.locator("label:has(input[name='last_tile'])").tap()
    page.locator("#score-button").tap()
    page.wait_for_selector("#screen-score:not([hidden])")
    assert page.inner_text("#score-won").startswith(won_by(winning, True, "S", "E"))
    assert "last tile of the wall" in page.inner_text("#score-won")

    with page.expect_file_chooser() as chooser:
        page.locator("#new-photo").tap()
    before = page.evaluate("window.fanscanTimings.filter(t => t.what === 'photo').length")
    chooser.value.set_files(str(SAMPLES / "images" / "hand_014.jpg"))
    page.wait_for_function(f"window.fanscanTimings.filter(t => t.what === 'photo').length > {before}")
    assert page.evaluate("state.proposal.status") == "ready"
    assert "wrong" not in page.inner_text("#photo-status") and not page.locator("#to-context").is_visible()
    waits = page.locator("#waits button[data-tile]")
    assert [waits.nth(i).get_attribute("data-tile") for i in range(waits.count())] == ["4p", "F"]
    page.locator("#waits button[data-tile='F']").tap()
    page.wait_for_selector("#screen-context:not([hidden])")
    checked = page.evaluate("""() => [...document.querySelectorAll('#screen-context input:checked')]
                               .filter(e => e.name !== 'flowers').map(e => e.name + '=' + e.value)""")
    assert checked == ["how=discard", "seat_wind=E", "prevalent_wind=E"]
    assert page.locator("#context-hand [data-tile]").count() == 14
    marked = page.locator("#context-hand .winning")
    assert marked.count() == 1 and marked.get_attribute("data-tile") == "F"
    assert "not in the photo" in page.inner_text("#context-note")
    page.locator("#score-button").tap()
    page.wait_for_selector("#screen-score:not([hidden])")
    expected = score("234m44p444sSSSFFF|EE0000")  # discard, seat and round wind E
    assert page.inner_text("#score-total").startswith(f"{expected.total} fan")
    assert page.inner_text("#score-won").startswith(won_by("F", False, "E", "E"))
