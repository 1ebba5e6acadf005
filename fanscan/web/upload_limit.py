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


# A request that carries no photo (a JSON body: a hand string, a proposal and its fixes, a batch table's rows) is
# smaller than this (a batch row is a few hundred bytes); its body is parsed in memory, so it gets this cap instead
# of the photo upload's.
MAX_JSON_BYTES = 4 * 2**20


class UploadLimit:
    def __init__(self, app, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def message(self, limit: int) -> str:
        if limit < self.max_bytes:
            return f"the request body is larger than {limit // 2**10} KB; a request without a photo is far smaller"
        return f"the upload is larger than {limit // 2**20} MB; photos over that are refused"

    def limit_for(self, scope: Scope) -> int:
        """The upload limit for a multipart form (a photo), the JSON limit for anything else."""
        kind = dict(scope.get("headers", [])).get(b"content-type", b"")
        return self.max_bytes if kind.startswith(b"multipart/") else min(self.max_bytes, MAX_JSON_BYTES)

    async def refuse(self, send, limit: int) -> None:
        body = json.dumps({"ok": False, "error": self.message(limit)}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self.refuse(send, limit)
            return
        seen = 0
        started = False

        async def counting_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(413, self.message(limit))
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
                await self.refuse(send, limit)
