"""The README and the documentation site say what is true: the fan reference pages agree with the engine, the
pictures show what the shipped models read, the README's test command is what CI runs, and no link leaves the
repository except for a public site. (`mkdocs build --strict` itself runs in .ci/run.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fanscan.scoring import RULE_SETS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def script(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DOCS / name), *args], capture_output=True, text=True, cwd=ROOT)


def test_the_reference_pages_are_up_to_date():
    checked = script("build_reference.py", "--check")
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize(("rules", "page"), [("mcr", "mcr-fans.md"), ("hk", "hk-items.md")])
def test_every_fan_of_the_engine_is_a_row_with_its_number_names_and_value(rules, page):
    # The rows are looked for from the engine's own table, not through the script.
    text = (DOCS / "scoring" / page).read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| No.")]
    fans = RULE_SETS[rules].fans
    assert len(rows) == len(fans)
    for fan in fans:
        row = next(row for row in rows if f"| `{fan.id}` |" in row)
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[1:3] == [fan.name, fan.name_zh], fan.id
        assert cells[3] in (str(fan.value), f"Limit ({fan.value})"), fan.id
        assert not fan.number or cells[0] == fan.number, fan.id


def test_a_reference_page_edited_by_hand_fails_the_check(tmp_path):
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy, ignore=shutil.ignore_patterns("screenshots"))
    page = copy / "scoring" / "mcr-fans.md"
    page.write_text(page.read_text(encoding="utf-8").replace("| Big Four Winds | 大四喜 | 88 |",
                                                             "| Big Four Winds | 大四喜 | 64 |"), encoding="utf-8")
    checked = script("build_reference.py", "--check", "--dir", str(copy))
    assert checked.returncode == 1 and "scoring/mcr-fans.md" in checked.stderr


def test_the_pictures_show_what_the_shipped_models_read():
    checked = script("screenshots.py", "--check")
    assert checked.returncode == 0, checked.stderr


def test_a_picture_of_another_reading_fails_the_check(tmp_path):
    copy = tmp_path / "screenshots"
    shutil.copytree(DOCS / "screenshots", copy)
    shown = json.loads((copy / "1-photo.json").read_text(encoding="utf-8"))
    shown["hand"] = "22233355678mPPPPP"  # what the models read from hand_009 before: the README showed a stale one
    (copy / "1-photo.json").write_text(json.dumps(shown), encoding="utf-8")
    scored = json.loads((copy / "3-score.json").read_text(encoding="utf-8"))
    scored["total"] += 1
    (copy / "3-score.json").write_text(json.dumps(scored), encoding="utf-8")
    checked = script("screenshots.py", "--check", "--dir", str(copy))
    assert checked.returncode == 1
    assert "1-photo.json: hand" in checked.stderr and "3-score.json: total" in checked.stderr
    assert "2-context.json" not in checked.stderr


def test_the_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = ci[ci.index('cd "$(dirname "$0")/.."') + 1:]
    commands = [line for line in commands if line.strip() and not line.startswith("#")]
    for page in (README, DOCS / "development" / "index.md"):
        blocks = re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
        assert any(block.splitlines() == commands for block in blocks), (page.name, commands)
    assert any("apt-get update" in line for line in commands)


def markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def test_the_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_link_leaves_the_repository(path):
    text = path.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)", text):
        if re.match(r"https?://", target):
            continue
        assert not target.startswith("/"), f"{path.name}: absolute link {target}"
        file = target.split("#")[0]
        if file:
            resolved = (path.parent / file).resolve()
            assert resolved.is_relative_to(ROOT), f"{path.name}: {target} leaves the repository"
            assert resolved.exists(), f"{path.name}: {target} does not exist"
