"""The native receive path for the neo4j driver: replacements for its ``Inbox`` classes.

The driver's ``Inbox.pop(hydration_hooks)`` reads one message from the socket with
several small reads (chunk header, chunk, end marker) and decodes it field by field. The
replacement reads whatever the socket has (up to 64 KiB), lets the native
``MessageReader`` de-chunk and decode it, and returns consecutive RECORDs that are already
buffered as one RECORD whose fields are all their rows (the driver's ``_process_message``
treats each field of a RECORD as a row). Error handling mirrors the driver's: a socket
error or an undecodable message marks the inbox broken, calls ``on_error`` and is raised.
"""

from __future__ import annotations

import asyncio
import logging
import typing as t

from ._native import MessageReader

# The driver's logger, so that its debug output stays where users look for it.
log = logging.getLogger("neo4j.io")

#: Bytes read from the socket at most per read.
RECV_SIZE = 65536


def _uses_v2(unpacker_cls: t.Any) -> bool:
    try:
        from neo4j._codec.packstream import v2

        return isinstance(unpacker_cls, type) and issubclass(unpacker_cls, v2.Unpacker)
    except ImportError:
        return False


def make_inbox(original: type, is_async: bool) -> type:
    """Build the replacement for the driver's ``Inbox`` (or ``AsyncInbox``) class."""
    from neo4j._async_compat.util import AsyncUtil, Util
    from neo4j._exceptions import SocketDeadlineExceededError

    io_errors = (OSError, SocketDeadlineExceededError, asyncio.CancelledError)

    class _Base:
        """State shared by the sync and async inboxes."""

        def __init__(self, sock: t.Any, on_error: t.Any, unpacker_cls: t.Any) -> None:
            self.on_error = on_error
            self._local_port = sock.getsockname()[1]
            self._socket = sock
            self._reader = MessageReader(uuid=_uses_v2(unpacker_cls))
            self._buffer = bytearray(RECV_SIZE)
            self._view = memoryview(self._buffer)
            self._broken = False

        def _decode_failed(self, error: Exception) -> None:
            log.debug(
                "[#%04X]  _: Failed to unpack response: %r",
                self._local_port,
                error,
            )
            self._broken = True

        def _fed(self, n: int) -> None:
            before = self._reader.noop_count
            self._reader.feed(self._buffer, n)
            if self._reader.noop_count != before:
                log.debug("[#%04X]  S: <NOOP>", self._local_port)

    if is_async:

        class AsyncInbox(_Base):
            """boltcodec's replacement for the driver's ``AsyncInbox``."""

            async def _receive(self) -> None:
                assert not self._broken
                try:
                    n = await self._socket.recv_into(self._view, RECV_SIZE)
                    if n == 0:
                        raise OSError("No data")
                except io_errors as error:
                    self._broken = True
                    await AsyncUtil.callback(self.on_error, error)
                    raise
                self._fed(n)

            async def pop(self, hydration_hooks: t.Any) -> tuple[bytes, list]:
                """Receive and decode the next message: ``(tag, fields)``."""
                reader = self._reader
                while True:
                    try:
                        message = reader.pop(hydration_hooks)
                    except Exception as error:
                        self._decode_failed(error)
                        await AsyncUtil.callback(self.on_error, error)
                        raise
                    if message is not None:
                        return message
                    await self._receive()

        AsyncInbox.__qualname__ = original.__qualname__
        AsyncInbox.__module__ = __name__
        return AsyncInbox

    class Inbox(_Base):
        """boltcodec's replacement for the driver's ``Inbox``."""

        def _receive(self) -> None:
            assert not self._broken
            try:
                n = self._socket.recv_into(self._view, RECV_SIZE)
                if n == 0:
                    raise OSError("No data")
            except io_errors as error:
                self._broken = True
                Util.callback(self.on_error, error)
                raise
            self._fed(n)

        def pop(self, hydration_hooks: t.Any) -> tuple[bytes, list]:
            """Receive and decode the next message: ``(tag, fields)``."""
            reader = self._reader
            while True:
                try:
                    message = reader.pop(hydration_hooks)
                except Exception as error:
                    self._decode_failed(error)
                    Util.callback(self.on_error, error)
                    raise
                if message is not None:
                    return message
                self._receive()

    Inbox.__qualname__ = original.__qualname__
    Inbox.__module__ = __name__
    return Inbox
