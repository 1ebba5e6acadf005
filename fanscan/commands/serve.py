"""`fanscan serve`: the phone page (take a photo, fix a tile with a tap, give the context, read the score) and its
JSON API, on http://127.0.0.1:8000 by default (the `web` extra: pip install 'fanscan[web]').

    fanscan serve                       # this machine only
    fanscan serve --host 0.0.0.0        # a phone on the same network: http://LAN-ADDRESS:8000
"""

from __future__ import annotations

import argparse
import socket
import sys

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
    check_port_free(args.host, args.port)
    default_pipeline()  # load the models now, not on the first photo
    if args.host not in LOCAL_HOSTS:
        where = lan_address() if args.host in ("0.0.0.0", "::") else args.host
        print(f"fanscan: warning: listening on {args.host}: every device that can reach this machine can use the "
              "page and send it photos (there is no login).", file=sys.stderr)
        if where:
            print(f"fanscan: on a phone on the same network open http://{where}:{args.port}/", file=sys.stderr)
    print(f"fanscan: serving on http://{args.host}:{args.port}/ (API docs at /docs; Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(create_app(rules=args.rules), host=args.host, port=args.port, log_level="warning")
    return 0
