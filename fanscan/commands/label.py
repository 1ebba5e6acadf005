"""`fanscan label`: pre-label tile photos for Label Studio, YOLO or COCO, and bring labels back as a YOLO dataset.

    fanscan label config > config.xml                        # the Label Studio labelling config
    fanscan label predict photos/ --out tasks.json           # the pipeline's guesses as Label Studio tasks
    fanscan label predict photos/ --out guesses --format yolo
    fanscan label import export.json --out my-tiles --images photos/

Both check every box as a careful labeller would (duplicates, near-blank boxes, boxes outside the photo, unknown
classes, zero-size boxes) and end in a report beside the output: every box dropped or changed is a line in it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fanscan.usage_errors import one_line_errors


def add_parser(subparsers) -> None:
    parser = one_line_errors(subparsers.add_parser(
        "label", help="pre-label photos for Label Studio / YOLO / COCO; import labels as a YOLO dataset",
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
    ))
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    predict = one_line_errors(actions.add_parser(
        "predict", help="run the photo pipeline on a folder and write its guesses as pre-annotations"))
    predict.add_argument("folder", help="folder of photos")
    predict.add_argument("--out", required=True, help="the JSON file (label-studio, coco) or dataset folder (yolo)")
    predict.add_argument("--format", choices=("label-studio", "yolo", "coco"), default="label-studio",
                         help="default label-studio")
    predict.add_argument("--recursive", action="store_true", help="photos in sub-folders too")
    predict.add_argument("--image-url", metavar="PREFIX",
                         help="label-studio: task photo URLs are PREFIX + the path below the folder (default: "
                              "Label Studio's /data/local-files/?d= URL below LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT)")
    predict.add_argument("--replace", action="store_true", help="replace --out if it exists")
    predict.set_defaults(run=run_predict)

    config = one_line_errors(actions.add_parser("config", help="print the matching Label Studio labelling config"))
    config.set_defaults(run=run_config)

    importing = one_line_errors(actions.add_parser(
        "import", help="a Label Studio JSON export, COCO JSON or YOLO folder -> a YOLO dataset with fanscan names"))
    importing.add_argument("source", help="the export file or YOLO folder")
    importing.add_argument("--out", required=True, help="the dataset folder to write (must not exist yet)")
    importing.add_argument("--images", metavar="DIR",
                           help="where the photos are when the export names them by a server path "
                                "(looked up by file name; Label Studio's upload prefix is stripped)")
    importing.add_argument("--drop-unknown", action="store_true",
                           help="drop boxes with an unknown class (a line each in the report) instead of stopping")
    importing.add_argument("--replace", action="store_true", help="replace --out if it exists")
    importing.set_defaults(run=run_import)


def run_predict(args: argparse.Namespace) -> int:
    from fanscan.labels.predict import predict

    def progress(line: str) -> None:
        print(f"  {line}", file=sys.stderr)

    predict(Path(args.folder), Path(args.out), args.format, args.recursive, args.image_url, args.replace,
            progress=progress)
    return 0


def run_config(args: argparse.Namespace) -> int:
    from fanscan.labels.label_studio import label_config

    sys.stdout.write(label_config())
    return 0


def run_import(args: argparse.Namespace) -> int:
    from fanscan.labels.importing import import_labels

    import_labels(Path(args.source), Path(args.out), Path(args.images) if args.images else None, args.replace,
                  args.drop_unknown)
    return 0
