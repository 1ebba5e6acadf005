"""Differential test against PyPI `pymahjonggb` (Chinese 1998 + MIL), the reference engine of RULES.md.

    pip install -e '.[diff]'                 # the optional extra; never a runtime dependency
    nice -n 19 python benchmarks/differential.py -n 50000 --chunk 5000

Scores random valid hands (scoring.random_hands, seeded) in both engines and writes a JSON report of the
differences classified by the RULES.md categories (scoring.crosscheck.classify_difference): Two Concealed
Kongs 6 vs 8, 明暗杠 5 vs Mixed Kongs 6, three or more kongs (the seed-003 chart), and ties between equal totals.
Anything else is "unexplained" and listed in full. It also checks, on each hand with one standing tile replaced,
that both engines agree whether the result is a complete hand ("completeness"). Runs in chunks and resumes
from the report (--resume), so it can share the machine.
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
    EXPLAINED,
    classify_difference,
    reference_is_winning,
    reference_score,
)
from fanscan.scoring.random_hands import random_hand, with_one_tile_replaced
from results_file import ROOT, write_json


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
        ours = score(hand)
        ours_fans = Counter({f.id: f.count for f in ours.fans})
        try:
            theirs, theirs_total = reference_score(hand, hand.context)
        except Exception as error:  # the reference refuses a hand we accept: record it
            cats["reference_error"] += 1
            if len(report["reference_errors"]) < 50:
                report["reference_errors"].append({"hand": format_hand(hand), "error": repr(error)})
            continue
        alts = [Counter({f.id: f.count for f in a.fans}) for a in ours.alternatives]
        _completeness(rng, hand, report)
        cat = classify_difference(hand, ours_fans, theirs, ours.total, theirs_total, alts) or "same"
        cats[cat] += 1
        if cat != "same":
            examples = report["examples"].setdefault(cat, [])
            if cat == "unexplained" or len(examples) < 5:
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
    report = {"benchmark": "differential", "reference": "pymahjonggb", "seed": args.seed, "hands": 0,
              "chunks_done": 0, "categories": {}, "explanations": EXPLAINED, "examples": {},
              "reference_errors": []}
    if args.resume and out.exists():
        report = json.loads(out.read_text(encoding="utf-8"))
    chunks = (args.n + args.chunk - 1) // args.chunk
    t0 = time.time()
    for k in range(report["chunks_done"], chunks):
        size = min(args.chunk, args.n - k * args.chunk)
        run_chunk(args.seed * 1_000_003 + k, size, report)
        report["hands"] += size
        report["chunks_done"] = k + 1
        cats = report["categories"]
        report["unexplained"] = cats.get("unexplained", 0)
        report["explained_differences"] = sum(v for c, v in cats.items() if c in EXPLAINED)
        report["same"] = cats.get("same", 0)
        write_json(out, report)
        print(f"chunk {k + 1}/{chunks}: {report['hands']} hands, {cats}, {time.time() - t0:.0f}s", flush=True)
    return 1 if report.get("unexplained") or report.get("completeness", {}).get("disagree") else 0


if __name__ == "__main__":
    sys.exit(main())
