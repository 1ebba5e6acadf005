"""A `Server-Timing: app;dur=MS, cpu;dur=MS` header on every response, so the page (and benchmarks/web_speed.py) can
tell the server's part of a wait from the network's and the browser's. `app` is the wall time from the request's
arrival to its response; `cpu` the CPU time the server process used meanwhile (all its threads: exact for one request
at a time, and a measure of the work that does not grow when other programs crowd the cores); `upload` the part of
`app` spent receiving the request's body (an upload's bytes arrive at the pace the client sends them), so that
`app` minus `upload` is the server's own work on the request."""

from __future__ import annotations

import time


class ServerTiming:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, cpu_started = time.perf_counter(), time.process_time()
        body_done = started  # a request without a body has nothing to receive

        async def timed_receive():
            nonlocal body_done
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                body_done = time.perf_counter()
            return message

        async def timed_send(message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - started) * 1000
                cpu_ms = (time.process_time() - cpu_started) * 1000
                upload_ms = (body_done - started) * 1000
                timing = f"app;dur={ms:.1f}, cpu;dur={cpu_ms:.1f}, upload;dur={upload_ms:.1f}".encode()
                message = {**message, "headers": [*message.get("headers", []), (b"server-timing", timing)]}
            await send(message)

        await self.app(scope, timed_receive, timed_send)
