"""Differential test against PyPI `pymahjonggb` (Chinese 1998 + MIL), the reference engine of RULES.md.

    pip install -e '.[diff]'                 # the optional extra; never a runtime dependency
    . .venv/bin/activate && nice -n 19 python benchmarks/differential.py -n 300000 --chunk 25000

Scores random valid hands (scoring.random_hands, seeded) in both engines, fanscan under the MCR variant "mil"
(the Green Book / MIL values the reference uses), and compares them with `scoring.crosscheck.compare`: the same
fans and total ("same"), or the same total with the reference's fans being one of our equal-total alternatives
("equal_total_tie": the hand reads several ways of equal value and the engines pick different ones). Anything
else is "different" and listed in full; there is no list of excused differences. It also checks, on each hand
with one standing tile replaced, that both engines agree whether the result is a complete hand
("completeness"), and counts how often the default variant (the seed's rulings) scores another total. Runs in
chunks and resumes from the report (--resume), so it can share the machine.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from fanscan.scoring import Hand, format_hand, is_complete, score
from fanscan.scoring.crosscheck import (
    DIFFERENT,
    SAME,
    compare,
    fan_counts,
    reference_is_winning,
    reference_score,
)
from fanscan.scoring.random_hands import random_hand, with_one_tile_replaced
from results_file import ROOT, write_json

VARIANT = "mil"


def _completeness(rng: random.Random, hand: Hand, report: dict) -> None:
    """The same hand with one standing tile replaced: do both engines agree whether it is complete?"""
    changed = with_one_tile_replaced(rng, hand)
    if changed is None:  # five of a kind
        return
    agree = is_complete(changed.concealed_tiles(), len(changed.melds)) == reference_is_winning(changed)
    done = report.setdefault("completeness", {"checked": 0, "disagree": 0, "examples": []})
    done["checked"] += 1
    if not agree:
        done["disagree"] += 1
        if len(done["examples"]) < 20:
            done["examples"].append(format_hand(changed))


def run_chunk(seed: int, n: int, report: dict) -> None:
    rng = random.Random(seed)
    cats: Counter = Counter(report["categories"])
    for _ in range(n):
        hand = random_hand(rng)
        ours = score(hand, variant=VARIANT)
        ours_fans = fan_counts(ours)
        if score(hand).total != ours.total:
            report["seed_variant_other_total"] = report.get("seed_variant_other_total", 0) + 1
        try:
            theirs, theirs_total = reference_score(hand, hand.context)
        except Exception as error:  # the reference refuses a hand we accept: record it
            cats["reference_error"] += 1
            if len(report["reference_errors"]) < 50:
                report["reference_errors"].append({"hand": format_hand(hand), "error": repr(error)})
            continue
        _completeness(rng, hand, report)
        cat = compare(ours, theirs, theirs_total)
        cats[cat] += 1
        if cat != SAME:
            examples = report["examples"].setdefault(cat, [])
            if cat == DIFFERENT or len(examples) < 5:
                examples.append({
                    "hand": format_hand(hand), "ours_total": ours.total, "reference_total": theirs_total,
                    "only_ours": dict(ours_fans - theirs), "only_reference": dict(theirs - ours_fans)})
    report["categories"] = dict(cats)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=50000, help="hands in all (default 50000)")
    ap.add_argument("--chunk", type=int, default=5000, help="hands per chunk; the report is written after each")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "differential.json"))
    ap.add_argument("--resume", action="store_true", help="continue the chunks already in --out")
    args = ap.parse_args(argv)
    try:
        import MahjongGB  # noqa: F401
    except ImportError:
        print("pymahjonggb is not installed: pip install -e '.[diff]'", file=sys.stderr)
        return 2
    out = Path(args.out)
    report = {"benchmark": "differential", "reference": "pymahjonggb", "variant": VARIANT, "seed": args.seed,
              "hands": 0, "chunks_done": 0, "categories": {}, "examples": {}, "reference_errors": [],
              "seed_variant_other_total": 0,
              "command": " ".join(["python", "benchmarks/differential.py",
                                   *(argv if argv is not None else sys.argv[1:])])}
    if args.resume and out.exists():
        report = json.loads(out.read_text(encoding="utf-8"))
    chunks = (args.n + args.chunk - 1) // args.chunk
    t0, seconds_before = time.time(), report.get("seconds", 0.0)
    for k in range(report["chunks_done"], chunks):
        size = min(args.chunk, args.n - k * args.chunk)
        run_chunk(args.seed * 1_000_003 + k, size, report)
        report["hands"] += size
        report["chunks_done"] = k + 1
        cats = report["categories"]
        report["different"] = cats.get(DIFFERENT, 0)
        report["same"] = cats.get(SAME, 0)
        report["seconds"] = round(seconds_before + time.time() - t0, 1)
        write_json(out, report)
        print(f"chunk {k + 1}/{chunks}: {report['hands']} hands, {cats}, {time.time() - t0:.0f}s", flush=True)
    return 1 if report.get("different") or report.get("completeness", {}).get("disagree") else 0


if __name__ == "__main__":
    sys.exit(main())
