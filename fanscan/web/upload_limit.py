"""Refuse request bodies over a size limit with 413, before they are read into memory or spooled to disk.

A declared Content-Length over the limit is refused at once; a body without one (chunked) is counted as it arrives
and refused when it passes the limit. Pure ASGI, so it sits in front of the multipart parser.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException

Scope = dict[str, Any]


class BodyTooLarge(HTTPException):
    """Raised from `receive` while the body is read: an HTTPException, so that a framework that wraps body-parsing
    errors (FastAPI turns them into 400) passes it on as the 413 it is."""


class UploadLimit:
    def __init__(self, app, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def message(self) -> str:
        return f"the upload is larger than {self.max_bytes // 2**20} MB; photos over that are refused"

    async def refuse(self, send) -> None:
        body = json.dumps({"ok": False, "error": self.message()}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self.refuse(send)
            return
        seen = 0
        started = False

        async def counting_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(413, self.message())
            return message

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self.refuse(send)
