"""`fanscan calibrate SOURCE... --out PROFILE.npz`: teach the classifier your own tile set, in seconds, without torch.

SOURCE is a YOLO-layout folder (images/, labels/, data.yaml; class names of chinese-mahjong-v4 or fanscan's tile
ids), or a photo of one tile of each kind laid out in five rows, top to bottom, faces up:

    1m 2m 3m 4m 5m 6m 7m 8m 9m     characters 1-9
    1p 2p 3p 4p 5p 6p 7p 8p 9p     dots 1-9
    1s 2s 3s 4s 5s 6s 7s 8s 9s     bamboo 1-9
    E  S  W  N  C  F  P            east south west north, red green white dragon
    a  b  c  d  e  f  g  h         plum orchid bamboo chrysanthemum, spring summer autumn winter

(flowers by their picture, whatever number is printed on them). Several SOURCEs add up: more photos per tile make
a better profile. Then: fanscan photo hand.jpg --profile PROFILE.npz (also fanscan batch, the benchmarks).
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from fanscan.scoring.errors import FanscanError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="build a set profile from labelled photos of your own tiles (seconds, no torch)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("sources", nargs="+", metavar="SOURCE",
                        help="YOLO-layout folder, or laid-out photo of the 42 tiles (see above)")
    parser.add_argument("--out", required=True, metavar="PROFILE.npz", help="profile file to write")
    parser.add_argument("--name", help="name of the tile set (default: the profile's file name)")
    parser.add_argument("--views", type=int, default=None, help="augmented views per tile (default 48)")
    parser.add_argument("--no-loo", action="store_true",
                        help="skip the cross-validation (faster; the correction strength is then the default)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the augmented views")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from fanscan.calibration.fit import FitSettings, fit_profile
    from fanscan.calibration.sources import read_sources
    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.detect import default_detector
    from fanscan.vision.profile import SetProfile, save_profile

    out = Path(args.out)
    if out.suffix.lower() != ".npz":
        raise FanscanError(f"{out}: a profile file must end in .npz")
    if not out.parent.is_dir():
        raise FanscanError(f"{out.parent}: no such folder for the profile")
    if out.exists() and not out.is_file():
        raise FanscanError(f"{out}: not a file (a profile is one .npz file)")
    if args.views is not None and not 0 <= args.views <= 1000:
        raise FanscanError(f"--views {args.views}: give 0 to 1000 views per tile")
    started = time.perf_counter()
    classifier = TileClassifier()
    tiles = read_sources(args.sources, default_detector, classifier)
    settings = FitSettings(seed=args.seed) if args.views is None else FitSettings(views=args.views, seed=args.seed)
    kinds = len({t.tile for t in tiles})
    print(f"{len(tiles)} calibration tiles of {kinds} kinds from {len({t.photo for t in tiles})} photos",
          file=sys.stderr)
    fitted = fit_profile(classifier, tiles, settings, with_loo=not args.no_loo)
    loo = fitted["leave_one_out"]
    seconds = round(time.perf_counter() - started, 1)
    profile = SetProfile(
        name=args.name or out.stem, source=" ".join(str(Path(s)) for s in args.sources),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"), base_model_sha256=classifier.sha256,
        classes=tuple(classifier.classes), delta_weight=fitted["delta"][0], delta_bias=fitted["delta"][1],
        leave_one_out_accuracy=loo["accuracy"] if loo else None,
        details={"leave_one_out": loo, "penalty": fitted["penalty"], "tiles": len(tiles), "photos": fitted["photos"],
                 "tile_counts": fitted["tile_counts"], "settings": fitted["settings"],
                 "crops_embedded": fitted["crops_embedded"], "seconds": seconds,
                 "base_model": classifier.path.name},
    )
    save_profile(profile, out)
    missing = 42 - len([k for k in fitted["tile_counts"] if k not in ("back", "none")])
    print(describe_strength(fitted["penalty"], loo))
    if loo and loo["accuracy"] is not None:
        print(f"cross-validated accuracy (by {loo['left_out']}, {loo['folds']} folds): {loo['accuracy']} with the "
              f"profile, {loo['accuracy_without_profile']} without ({loo['tested']} tiles)")
        if loo["accuracy"] < loo["accuracy_without_profile"]:
            print("warning: the profile reads left-out calibration tiles worse than the shipped model does; "
                  "more calibration photos a tile (or none) may serve better", file=sys.stderr)
    print(f"profile {profile.name!r} written to {out} in {seconds} s"
          + (f"; {missing} tile kinds had no calibration photo (the shipped model reads them)" if missing > 0 else ""))
    return 0


def describe_strength(penalty: float | None, loo: dict | None) -> str:
    """One line: how strongly the profile corrects the shipped head, and how that strength was chosen."""
    if penalty is None:
        return (f"the shipped head read the left-out calibration tiles best ({loo['chosen_by']}): the profile makes "
                "no correction (it still reads each tile both ways up)")
    how = loo["chosen_by"] if loo else "default (--no-loo)"
    return f"correction strength: L2 penalty {penalty} toward the shipped head, {how}"
