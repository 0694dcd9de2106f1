"""The native receive path for the neo4j driver: replacements for its ``Inbox`` classes.

The driver's ``Inbox.pop(hydration_hooks)`` reads one message from the socket with
several small reads (chunk header, chunk, end marker) and decodes it field by field. The
replacement reads whatever the socket has (up to 64 KiB), lets the native
``MessageReader`` de-chunk and decode it, and returns consecutive RECORDs that are already
buffered as one RECORD whose fields are all their rows (the driver's ``_process_message``
treats each field of a RECORD as a row; :mod:`boltcodec.dropin` checks that before it
allows batching). The driver's hydration hooks are swapped for native ones where
:mod:`boltcodec._hydration` recognises them. Error handling mirrors the driver's: a
socket error or an undecodable message marks the inbox broken, calls ``on_error`` and is
raised.

Nothing here names a driver module: :mod:`boltcodec.dropin` passes in what it found in
the module that defines the driver's Inbox (its ``Util``/``AsyncUtil`` and its socket
deadline exception), so one implementation serves every driver release.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import typing as t

from . import _hydration, _native

# The driver's logger, so that its debug output stays where users look for it.
log = logging.getLogger("neo4j.io")

#: Bytes read from the socket at most per read.
RECV_SIZE = 65536

#: boltcodec's unpack functions: an unpacker class whose module calls one of them is
#: accelerated by boltcodec (the value: whether it is PackStream v2, with UUIDs).
_NATIVE_UNPACKS: dict[t.Any, bool] = {
    _native.neo4j_unpack_v1: False,
    _native.neo4j_unpack_v2: True,
}


def native_flavour(unpacker_cls: t.Any) -> bool | None:
    """Tell whether ``unpacker_cls`` decodes through boltcodec, and which PackStream.

    ``True``: v2 (UUIDs), ``False``: v1, ``None``: it does not use boltcodec at all.
    """
    module = sys.modules.get(getattr(unpacker_cls, "__module__", ""), None)
    rust_unpack = getattr(module, "_rust_unpack", None)
    try:
        return _NATIVE_UNPACKS.get(rust_unpack)
    except TypeError:  # unhashable: not one of ours
        return None


def make_inbox(
    original: type,
    is_async: bool,
    util: t.Any,
    io_errors: tuple[type[BaseException], ...],
    max_batch: t.Callable[[], int],
) -> type:
    """Build the replacement for the driver's ``Inbox`` (or ``AsyncInbox``) class.

    ``util``: the driver's ``Util`` (``AsyncUtil``), whose ``callback`` calls ``on_error``;
    ``io_errors``: the exceptions the driver's Inbox treats as socket errors;
    ``max_batch``: returns how many consecutive RECORDs one ``pop`` may merge (1: none),
    asked when an Inbox is created.

    An Inbox asked for with an unpacker class that boltcodec does not accelerate (the
    codec check reverted it, or another accelerator is in use) is the driver's own.
    """
    io_errors = (*io_errors, asyncio.CancelledError)

    class _Base:
        """State shared by the sync and async inboxes."""

        _boltcodec_original = original

        def __new__(cls, sock: t.Any, on_error: t.Any, unpacker_cls: t.Any) -> t.Any:
            if native_flavour(unpacker_cls) is None:
                return original(sock, on_error, unpacker_cls)
            return super().__new__(cls)

        def __init__(self, sock: t.Any, on_error: t.Any, unpacker_cls: t.Any) -> None:
            self.on_error = on_error
            self._local_port = sock.getsockname()[1]
            self._socket = sock
            uuid = bool(native_flavour(unpacker_cls))
            self._reader = _native.MessageReader(uuid=uuid, max_batch=max_batch())
            self._buffer = bytearray(RECV_SIZE)
            self._view = memoryview(self._buffer)
            self._broken = False
            # The driver's hydration hooks last seen, and what pop passes on for them.
            self._hooks_in: t.Any = None
            self._hooks_out: t.Any = None

        def _hooks(self, hooks: t.Any) -> t.Any:
            """Return the hooks to decode with: the driver's, natively hydrated if known."""
            if hooks is self._hooks_in:
                return self._hooks_out
            out = hooks
            if _hydration.ENABLED:
                try:
                    out = _hydration.native_hooks(hooks)
                except Exception as error:
                    log.debug("boltcodec: native hydration not used: %r", error)
            self._hooks_in, self._hooks_out = hooks, out
            return out

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
                    await util.callback(self.on_error, error)
                    raise
                self._fed(n)

            async def pop(self, hydration_hooks: t.Any) -> tuple[bytes, list]:
                """Receive and decode the next message: ``(tag, fields)``."""
                reader = self._reader
                hooks = self._hooks(hydration_hooks)
                while True:
                    try:
                        message = reader.pop(hooks)
                    except Exception as error:
                        self._decode_failed(error)
                        await util.callback(self.on_error, error)
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
                util.callback(self.on_error, error)
                raise
            self._fed(n)

        def pop(self, hydration_hooks: t.Any) -> tuple[bytes, list]:
            """Receive and decode the next message: ``(tag, fields)``."""
            reader = self._reader
            hooks = self._hooks(hydration_hooks)
            while True:
                try:
                    message = reader.pop(hooks)
                except Exception as error:
                    self._decode_failed(error)
                    util.callback(self.on_error, error)
                    raise
                if message is not None:
                    return message
                self._receive()

    Inbox.__qualname__ = original.__qualname__
    Inbox.__module__ = __name__
    return Inbox
