"""A `Server-Timing: app;dur=MS` header on every response: the time from the request's arrival to its response, so
the page (and benchmarks/web_speed.py) can tell the server's part of a wait from the network's and the browser's."""

from __future__ import annotations

import time


class ServerTiming:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def timed_send(message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - started) * 1000
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"server-timing", f"app;dur={ms:.1f}".encode())]}
            await send(message)

        await self.app(scope, receive, timed_send)
