"""Connections that never finish their headers are closed: uvicorn's h11 protocol with a header timeout.

uvicorn times out an idle kept-alive connection, but a connection that sends part of a request line or of its
headers and then nothing stays open for ever (its keep-alive timer is cancelled by the first bytes), so a client
can hold the server's connections one slow byte at a time. This protocol starts a timer when a connection opens,
and again after each response; if the request's headers are not complete when it fires, the connection is closed.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# A phone on a slow network sends a request's headers in well under a second; the photo body may take longer and
# is not timed here.
HEADER_TIMEOUT_S = 10.0


class HeaderTimeoutProtocol(H11Protocol):
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_header_timer()  # the next request on this connection gets its own time for its headers

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(HEADER_TIMEOUT_S, self._headers_too_slow)

    def _headers_too_slow(self) -> None:
        # h11 leaves IDLE only once a whole request line and its headers have arrived.
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()
