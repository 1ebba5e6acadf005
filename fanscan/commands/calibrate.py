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
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="YOLO-layout folder, or laid-out photo of the 42 tiles (see above)")
    parser.add_argument("--out", metavar="PROFILE.npz",
                        help="profile file to write (its data and history go beside it, in PROFILE.learn/; a new "
                             "calibration starts a new history)")
    parser.add_argument("--name", help="name of the tile set (default: the profile's file name)")
    parser.add_argument("--views", type=int, default=None, help="augmented views per tile (default 48)")
    parser.add_argument("--no-loo", action="store_true",
                        help="skip the cross-validation (faster; the correction strength is then the default)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the augmented views")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar, only the closing line")
    history = parser.add_argument_group("a profile's history (what --learn added)")
    history.add_argument("--history", metavar="PROFILE.npz", help="list the profile's history, one line an entry")
    history.add_argument("--remove", nargs=2, metavar=("N", "PROFILE.npz"),
                         help="remove history entry N ('last' for the newest) and refit the profile")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.history or args.remove:
        if args.sources or args.out:
            raise FanscanError("--history and --remove take a profile alone (no SOURCE, no --out)")
        if args.history and args.remove:
            raise FanscanError("give --history or --remove, not both")
        return show_history(Path(args.history)) if args.history else remove(args.remove[0], Path(args.remove[1]),
                                                                             args.quiet)
    if not args.sources or not args.out:
        raise FanscanError("calibrate needs SOURCE... and --out PROFILE.npz (or --history / --remove PROFILE.npz)")
    return calibrate(args)


def calibrate(args: argparse.Namespace) -> int:
    from fanscan.calibration.fit import FitSettings, fit_profile, read_without_profile
    from fanscan.calibration.learn import Entry, data_folder, save_entry_data, write_history
    from fanscan.calibration.profile_file import check_profile_path, save_profile
    from fanscan.calibration.progress import ProgressBar
    from fanscan.calibration.sources import read_sources
    from fanscan.vision.classify import PROFILE_MODEL, TileClassifier, shipped_reader_beside
    from fanscan.vision.detect import default_detector
    from fanscan.vision.profile import SetProfile

    out = check_profile_path(args.out)
    folder = data_folder(out)
    if folder.exists() and not folder.is_dir():
        raise FanscanError(f"{folder}: not a folder (it holds the profile's data)")
    if args.views is not None and not 0 <= args.views <= 1000:
        raise FanscanError(f"--views {args.views}: give 0 to 1000 views per tile")
    started = time.perf_counter()
    # the classifier profiles are built on; the views of four crop zooms: a batch on every core
    classifier = TileClassifier(PROFILE_MODEL, threads=None)
    tiles = read_sources(args.sources, default_detector, classifier)
    settings = FitSettings(seed=args.seed) if args.views is None else FitSettings(views=args.views, seed=args.seed)
    kinds = len({t.tile for t in tiles})
    if not args.quiet:
        print(f"{len(tiles)} calibration tiles of {kinds} kinds from {len({t.photo for t in tiles})} photos",
              file=sys.stderr)
    bar = ProgressBar(enabled=False if args.quiet else None)
    try:
        fitted = fit_profile(classifier, tiles, settings, progress=bar, with_loo=not args.no_loo,
                             reader=shipped_reader_beside(classifier, threads=None))
    finally:
        bar.close()
    loo = fitted["leave_one_out"]
    seconds = round(time.perf_counter() - started, 1)
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    source = " ".join(str(Path(s)) for s in args.sources)
    profile = SetProfile(
        name=args.name or out.stem, source=source, created=created, base_model_sha256=classifier.sha256,
        classes=tuple(classifier.classes), delta_weight=fitted["delta"][0], delta_bias=fitted["delta"][1],
        moved=fitted["moved"], leave_one_out_accuracy=loo["accuracy"] if loo else None,
        crop_zoom=fitted["crop_zoom"],
        details={"leave_one_out": loo, "penalty": fitted["penalty"],
                 "prototype_pull": fitted["prototype_pull"], "tiles": len(tiles), "photos": fitted["photos"],
                 "tile_counts": fitted["tile_counts"], "settings": fitted["settings"],
                 "crops_embedded": fitted["crops_embedded"], "seconds": seconds,
                 "base_model": classifier.path.name},
    )
    # The data first, then the history naming it, then the profile: each file whole (see calibration.learn).
    entry = Entry(1, "calibrate", source, created, [t.tile for t in tiles], [], None, [t.photo for t in tiles])
    if folder.exists():
        for old in folder.glob("entry-*.npz"):
            old.unlink()
    save_entry_data(out, entry, fitted["data"])
    write_history(out, [entry])
    save_profile(profile, out)
    if loo and loo["accuracy"] is not None and loo["accuracy"] < read_without_profile(loo) and not args.quiet:
        print("warning: the profile reads held-out calibration crops worse than the shipped model does; "
              "more calibration photos a tile (or none) may serve better", file=sys.stderr)
    print(learned_line(profile, fitted["tile_counts"], loo, fitted["penalty"], out, seconds))
    return 0


def learned_line(profile, counts: dict[str, int], loo: dict | None, penalty: float | None, out: Path,
                 seconds: float) -> str:
    """The one closing line: what the profile learned, how held-out crops read with and without it, and where."""
    from fanscan.calibration.fit import read_without_profile

    kinds = len([k for k in counts if k not in ("back", "none")])
    missing = 42 - kinds
    learned = f"learned {kinds} tile kinds from {sum(counts.values())} tiles"
    if missing > 0:
        learned += f" ({missing} kinds had no photo: the shipped model reads them)"
    if loo and loo["accuracy"] is not None:
        how = (f"held-out {loo['left_out']} read {loo['accuracy']:.3f} with the profile, "
               f"{read_without_profile(loo):.3f} without; {describe_strength(penalty)}")
    else:
        how = f"no cross-validation; {describe_strength(penalty)}"
    zoom = f"; crops read {profile.crop_zoom:g}x closer in" if profile.crop_zoom != 1.0 else ""
    return f"{learned}; {how}{zoom}; profile {profile.name!r} written to {out} in {seconds} s"


def describe_strength(penalty: float | None) -> str:
    """How far the profile moves from the shipped head."""
    if penalty is None:
        return "the shipped head kept (no correction; each tile is still read both ways up)"
    if penalty == 0:
        return "a free head on the embedding (no penalty toward the shipped head)"
    return f"correction with L2 penalty {penalty:g} toward the shipped head"


def show_history(profile: Path) -> int:
    from fanscan.calibration.learn import read_history

    if not profile.exists() and not (profile.with_name(f"{profile.stem}.learn")).exists():
        raise FanscanError(f"{profile}: profile file not found")
    entries = read_history(profile)
    if not entries:
        print(f"{profile}: no history (made before profiles kept one, or its data folder was removed)")
    for entry in entries:
        print(entry.summary())
    return 0


def remove(which: str, profile: Path, quiet: bool) -> int:
    from fanscan.calibration.learn import read_history, refit, remove_entry
    from fanscan.vision.classify import learning_classifier

    if which != "last" and not which.isdigit():
        raise FanscanError(f"--remove {which}: give an entry number (see --history) or 'last'")
    if not read_history(profile):
        raise FanscanError(f"{profile}: no history (nothing to remove)")
    number = None if which == "last" else int(which)
    entries = read_history(profile)
    if number is not None and number not in [e.number for e in entries]:
        raise FanscanError(f"{profile}: no history entry {number} (entries: "
                           f"{', '.join(str(e.number) for e in entries)})")
    if len(entries) == 1:
        raise FanscanError(f"{profile}: entry {entries[0].number} is its only one; delete the profile instead")
    classifier = learning_classifier(profile)
    started = time.perf_counter()
    removed = remove_entry(profile, number)
    fitted = refit(profile, classifier)
    if not quiet:
        print(f"removed: {removed.summary()}", file=sys.stderr)
    print(learned_line(fitted, fitted.details["tile_counts"], fitted.details["leave_one_out"],
                       fitted.details["penalty"], profile, round(time.perf_counter() - started, 1)))
    return 0
