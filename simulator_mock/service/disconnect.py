"""ASGI middleware: a client that hangs up cancels its request's handler (and so its simulation).

Once a watched route has read its whole body, the middleware waits for ``http.disconnect`` beside
the handler; if the client leaves first the handler task is cancelled. ``Service.simulate`` turns that
cancellation into the run's cancel flag, so an abandoned run stops at its next time check.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class CancelOnDisconnect:
    """Cancel the handler of a request under ``paths`` when its client disconnects."""

    def __init__(self, app: ASGIApp, paths: frozenset[str]) -> None:
        self.app = app
        self.paths = paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in self.paths:
            await self.app(scope, receive, send)
            return
        body_read = asyncio.Event()
        answered = False

        async def tracking_receive() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                body_read.set()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True
            await send(message)

        async def client_gone() -> None:
            await body_read.wait()
            while (await receive())["type"] != "http.disconnect":
                pass

        handler = asyncio.ensure_future(self.app(scope, tracking_receive, tracking_send))
        watcher = asyncio.ensure_future(client_gone())
        try:
            await asyncio.wait({handler, watcher}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the server itself is shutting down
            handler.cancel()
            watcher.cancel()
            raise
        watcher.cancel()
        with suppress(asyncio.CancelledError):
            await watcher
        if not handler.done() and not answered:  # the client left first: abandon the handler
            handler.cancel()
        with suppress(asyncio.CancelledError):
            await handler
