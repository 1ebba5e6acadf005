"""`fanscan serve`: the phone page (take a photo, fix a tile with a tap, give the context, read the score) and its
JSON API, on http://127.0.0.1:8000 by default (the `web` extra: pip install 'fanscan[web]').

    fanscan serve                       # this machine only
    fanscan serve --host 0.0.0.0        # a phone on the same network: http://LAN-ADDRESS:8000
    fanscan serve --profile my-set.npz --save-labels my-tiles/   # your own set; keep each scored photo's labels
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from fanscan.commands.photo import add_profile_argument, profile_in_use, profile_line, profile_note
from fanscan.scoring.errors import FanscanError

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve the phone page and the JSON API (the web extra)",
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every network)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--rules", choices=("mcr", "hk"), default="mcr", help="the page's rule set (default mcr)")
    add_profile_argument(parser, learn=True)
    parser.add_argument("--save-labels", metavar="DATASET",
                        help="when the user scores a photo's hand, add the photo and its corrected labels to this "
                             "YOLO dataset folder (created if new), as fanscan photo --save-labels does")
    parser.set_defaults(run=run)


def lan_address() -> str | None:
    """This machine's address on its local network (the interface of the default route; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return None


def check_port_free(host: str, port: int) -> None:
    """A one-line error now rather than uvicorn's log line and exit when the address is taken or not ours."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise FanscanError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from fanscan.web.app import create_app
    except ImportError as error:
        raise FanscanError(f"fanscan serve needs the web extra ({error.name} is missing): "
                           "pip install 'fanscan[web]'") from None
    from fanscan.vision.pipeline import default_pipeline

    if not 1 <= args.port <= 65535:
        raise FanscanError(f"--port {args.port}: a port is 1-65535")
    if args.save_labels and Path(args.save_labels).exists() and not Path(args.save_labels).is_dir():
        raise FanscanError(f"--save-labels {args.save_labels}: not a folder (it wants a dataset folder)")
    check_port_free(args.host, args.port)
    # Load the models now, not on the first photo; a bad profile is one error here, not one per photo. The photo
    # requests name the same profile, so they find this pipeline in default_pipeline's cache.
    profile_file = profile_in_use(args)
    pipeline = default_pipeline(profile_file)
    profile = pipeline.classifier.profile
    profile_name = (profile.name or Path(profile_file).stem) if profile is not None else None
    if args.host not in LOCAL_HOSTS:
        where = lan_address() if args.host in ("0.0.0.0", "::") else args.host
        print(f"fanscan: warning: listening on {args.host}: every device that can reach this machine can use the "
              "page and send it photos (there is no login).", file=sys.stderr)
        if where:
            print(f"fanscan: on a phone on the same network open http://{where}:{args.port}/", file=sys.stderr)
    if profile is not None or args.learn:
        print(profile_line(profile_note(profile)), file=sys.stderr)
    if args.learn:
        print(f"fanscan: each scored photo's tiles, with your fixes, are learned into {args.learn} (refitted in the "
              "background; fanscan calibrate --history / --remove N to look back or undo)", file=sys.stderr)
    if args.save_labels:
        print(f"fanscan: each scored photo and its corrected labels are kept in {args.save_labels}", file=sys.stderr)
    print(f"fanscan: serving on http://{args.host}:{args.port}/ (API docs at /docs; Ctrl-C stops)", file=sys.stderr)
    app = create_app(rules=args.rules, profile=profile_file, profile_name=profile_name, save_labels=args.save_labels,
                     learn=args.learn)
    from fanscan.web.header_timeout import HeaderTimeoutProtocol

    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", http=HeaderTimeoutProtocol)
    return 0
