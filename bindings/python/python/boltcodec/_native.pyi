"""Type stubs of the native module ``boltcodec._native`` (Rust, pyo3)."""

from collections.abc import Buffer, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, SupportsIndex, final

if TYPE_CHECKING:
    from .bolt import Event, HandshakeStep, Request, UpgradeRequest

from .arrow import ArrowBatches

class DecodeError(ValueError):
    """Input that is not valid PackStream (or not a valid Bolt message).

    From ``Dechunker.feed_messages``, ``offset`` counts from the start of the failed
    message and ``message_offset`` is the stream offset of its first chunk header. From
    ``boltcodec.arrow``, ``stream_offset`` is where the record's message starts (when
    known).
    """

    kind: str
    offset: int
    expected: str
    message_offset: int
    stream_offset: int | None

class DechunkError(DecodeError):
    """A malformed or over-limit Bolt chunk stream."""

class EncodeError(ValueError):
    """A value that cannot be written as PackStream (for example nested too deeply)."""

class Structure:
    """A PackStream structure: a tag (a one-byte ``bytes``) and a list of fields."""

    def __new__(cls, tag: bytes, *fields: Any) -> Structure: ...
    @property
    def tag(self) -> bytes:
        """The tag."""
    @property
    def fields(self) -> list[Any]:
        """The fields (the same list object every time)."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex | slice) -> Any: ...
    def __setitem__(self, key: SupportsIndex | slice, value: Any) -> None: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    __hash__: None  # type: ignore[assignment]

@final
class Dechunker:
    """A push parser for the Bolt chunk stream.

    When one message fails (invalid PackStream, or ``struct_hook`` raised), no other is
    lost: the call returns the messages before it, the next call raises its error, and
    the call after that goes on with the message that follows it (a call whose first
    message fails raises at once). Bytes given to a call are always kept, even when it
    raises. ``pending`` counts what waits; ``feed_messages(b"")`` takes it out. A hook
    may use other Dechunkers, ``packb`` and ``unpackb``; calling the Dechunker that is
    running the hook raises ``RuntimeError`` and changes nothing.
    """

    def __new__(
        cls,
        *,
        max_message_size: int = ...,
        max_chunks: int = ...,
        uuid: bool = False,
        max_depth: int = 1024,
    ) -> Dechunker: ...
    def feed(self, data: Buffer) -> list[bytes]:
        """Feed bytes; return every complete message (queued ones first), as ``bytes``.

        Raises the waiting error of a failed ``feed_messages`` first, if any.
        """
    def feed_messages(
        self, data: Buffer, *, struct_hook: Callable[[Structure], Any] | None = None
    ) -> list[tuple[int, list[Any]]]:
        """Feed bytes; return every complete message, decoded: ``(tag, fields)``.

        If a message fails, return the ones before it; the next call raises its error.
        """
    def end_of_stream(self) -> None:
        """Raise a waiting error, or ``DechunkError`` if the stream stopped mid-message."""
    @property
    def at_boundary(self) -> bool:
        """Whether the stream is between messages, with nothing queued."""
    @property
    def pending(self) -> int:
        """How many messages (and waiting errors) the next call delivers first."""
    @property
    def noop_count(self) -> int:
        """How many NOOPs were skipped."""
    @property
    def stream_offset(self) -> int:
        """How many bytes were fed in total."""
    @property
    def _buffer_capacity(self) -> int:
        """Bytes of buffer memory held (internal, for the memory tests)."""
    def reset(self) -> None:
        """Forget all state (queued messages and errors too), as for a new connection."""

@final
class MessageReader:
    """The receive core of the driver drop-in (internal)."""

    def __new__(cls, *, uuid: bool = False, max_batch: int = 65536) -> MessageReader: ...
    def feed(self, buffer: Buffer, n: int) -> None:
        """Feed the first ``n`` bytes of ``buffer``."""
    def pop(
        self, hydration_hooks: Mapping[type, Callable[[Any], Any]] | None = None
    ) -> tuple[bytes, list[Any]] | None:
        """Return the next message (consecutive RECORDs merged), or ``None``.

        A failed message raises once (after the RECORDs merged before it were returned);
        the next call goes on with the message after it.
        """
    @property
    def noop_count(self) -> int:
        """How many NOOPs were skipped."""
    @property
    def has_message(self) -> bool:
        """Whether a complete message (or an error) is buffered."""
    @property
    def arrow_sink(self) -> ArrowSink | None:
        """Where RECORDs go as bytes instead of being decoded (``None``: decoded)."""
    @arrow_sink.setter
    def arrow_sink(self, sink: ArrowSink | None) -> None: ...

@final
class ArrowSink:
    """RECORD messages in, Arrow batches out: what ``to_arrow`` gives a MessageReader."""

    def __new__(
        cls,
        fields: list[str],
        version: str = "5.8",
        utc_patch: bool = False,
        batch_rows: int = 65536,
    ) -> ArrowSink: ...
    @property
    def rows(self) -> int:
        """How many RECORDs were received."""
    def finish(self) -> ArrowBatches:
        """Decode what is kept; every batch, or the first error as ``DecodeError``."""

def arrow_from_rows(
    rows: list[list[Any]],
    fields: list[str],
    version: str = "5.8",
    utc_patch: bool = False,
    dehydration_hooks: Any = None,
) -> ArrowBatches:
    """Rows of the driver's values into Arrow (the fallback of ``to_arrow``)."""

def packb(
    obj: Any,
    /,
    *,
    default: Callable[[Any], Any] | None = None,
    uuid: bool = False,
    max_depth: int = 1024,
) -> bytes:
    """Encode ``obj`` as PackStream ``bytes``.

    Any ``max_depth`` is safe for the native stack; a ``default`` that calls ``packb``
    again without end raises ``RecursionError``.
    """

def unpackb(
    data: Buffer,
    /,
    *,
    struct_hook: Callable[[Structure], Any] | None = None,
    uuid: bool = False,
    legacy_structs: bool = False,
    max_depth: int = 1024,
    max_string_len: int = 2147483647,
    max_bytes_len: int = 2147483647,
    max_container_len: int = 2147483647,
    max_total_elements: int = 67108864,
) -> Any:
    """Decode exactly one PackStream value from ``data``."""

def unpack_from(
    data: Buffer,
    /,
    offset: int = 0,
    *,
    struct_hook: Callable[[Structure], Any] | None = None,
    uuid: bool = False,
    legacy_structs: bool = False,
    max_depth: int = 1024,
    max_string_len: int = 2147483647,
    max_bytes_len: int = 2147483647,
    max_container_len: int = 2147483647,
    max_total_elements: int = 67108864,
) -> tuple[Any, int]:
    """Decode one PackStream value at ``data[offset:]``; return it and its end offset."""

def neo4j_pack_v1(value: Any, dehydration_hooks: Any = None) -> bytes:
    """Drop-in for ``neo4j._rust.codec.packstream.v1.pack``."""

def neo4j_pack_v2(value: Any, dehydration_hooks: Any = None) -> bytes:
    """Drop-in for ``neo4j._rust.codec.packstream.v2.pack``."""

def neo4j_unpack_v1(
    bytes: Buffer, idx: int, hydration_hooks: Mapping[type, Any] | None = None
) -> tuple[Any, int]:
    """Drop-in for ``neo4j._rust.codec.packstream.v1.unpack``."""

def neo4j_unpack_v2(
    bytes: Buffer, idx: int, hydration_hooks: Mapping[type, Any] | None = None
) -> tuple[Any, int]:
    """Drop-in for ``neo4j._rust.codec.packstream.v2.unpack``."""

def swap_endian(type_size: int, data: bytes, /) -> bytes:
    """Drop-in for ``neo4j._rust.vector.swap_endian``."""

@final
def record_new(cls: type, keys: Any, values: Any) -> Any:
    """Build the driver's ``Record`` as its ``Record._new(keys, values)`` does (6.2 on).

    Its ``__dict__`` is untracked by the cyclic GC, and so is the record when its values
    are all leaves (no list, dict or graph entity; see ``boltcodec._records``).
    """

@final
class RecordNew:
    """The driver's ``Record.__new__`` before 6.2, built natively for its rows.

    Rows are built as ``Record(zip(keys, values))``: an exact ``zip`` of pairs is read
    natively, every other call goes to ``original`` (see ``boltcodec._records``).
    """

    def __new__(cls, record_cls: type, original: Callable[..., Any]) -> RecordNew: ...
    def __call__(self, cls: type, /, *args: Any, **kwargs: Any) -> Any: ...

class Hydrator:
    """Native hydration for one result of the neo4j driver (see ``boltcodec._hydration``).

    Called with a ``Structure``, returns what the driver's ``_hydrate_structure`` returns:
    dates, points, nodes, relationships, paths, times, datetimes with no zone, an offset or
    a named zone, durations, and (6.x) vectors and unsupported types built natively when enabled,
    everything else by the driver's function for the tag (an exception becoming
    ``broken(error, s)``).
    """

    def __new__(
        cls,
        functions: dict[bytes, Callable[..., Any]],
        broken: type,
        *,
        date_cls: type | None = None,
        srid_table: dict[int, tuple[type, int]] | None = None,
        graph: Any = None,
        node_cls: type | None = None,
        legacy: bool = False,
        time_cls: type | None = None,
        fixed_offset: Callable[[int], Any] | None = None,
        datetime_cls: type | None = None,
        datetime_tags: bytes | None = None,
        duration_cls: type | None = None,
        path_cls: type | None = None,
        relationship_cls: type | None = None,
        vector_cls: type | None = None,
        vector_types: dict[bytes, tuple[type, int]] | None = None,
        unsupported_cls: type | None = None,
        zone_cache: dict[str, ZoneTable | None] | None = None,
        zone_loader: Callable[[str], ZoneTable | None] | None = None,
    ) -> Hydrator: ...
    def __call__(self, value: Structure, /) -> Any: ...
    @property
    def counts(self) -> tuple[int, int]:
        """``(built natively, handed to the driver's function)`` since creation."""

class ZoneTable:
    """One pytz zone's tables, looked up natively by ``Hydrator``.

    Its UTC transitions (seconds), offsets (seconds) and tzinfo objects (see
    ``boltcodec._hydration.zone_table``).
    """

    def __new__(
        cls, transitions: list[int], offsets: list[int], tzinfos: list[Any]
    ) -> ZoneTable: ...

# boltcodec.bolt: the sans-IO connection, handshake and WebSocket (see bolt.py)

class BoltError(ValueError):
    """A Bolt protocol error (bad server bytes, or a request the connection refuses)."""

    kind: str
    offset: int | None
    message_offset: int | None

class ClientConnection:
    """The sans-IO client side of one Bolt connection: bytes in, bytes and events out."""

    def __init__(
        self,
        *,
        versions: list[tuple[int, int]] | None = None,
        manifest: bool = True,
        bolt_agent: str | None = ...,
        request_utc_patch: bool = True,
        max_chunk_size: int = 0,
        struct_hook: Callable[[Any], Any] | None = None,
        max_message_size: int | None = None,
        max_depth: int = ...,
    ) -> None: ...
    def take_output(self) -> bytes: ...
    @property
    def has_output(self) -> bool: ...
    def receive(self, data: Buffer) -> None: ...
    def send(self, request: Request) -> None: ...
    def events(self) -> list[Event]: ...
    def can_send(self, name: str) -> bool: ...
    @property
    def state(self) -> str: ...
    @property
    def version(self) -> tuple[int, int] | None: ...
    @property
    def utc_patch(self) -> bool: ...
    @property
    def pending_requests(self) -> int: ...

class ClientHandshake:
    """The client role of the Bolt handshake (legacy proposals or manifest v1)."""

    def __init__(
        self, *, versions: list[tuple[int, int]] | None = None, manifest: bool = True
    ) -> None: ...
    def hello(self) -> bytes: ...
    def receive(self, data: Buffer) -> HandshakeStep: ...

class ServerHandshake:
    """The server role of the Bolt handshake."""

    def __init__(
        self, *, versions: list[tuple[int, int]] | None = None, manifest: bool = True
    ) -> None: ...
    def receive(self, data: Buffer) -> HandshakeStep: ...

class WsStream:
    """A WebSocket connection as a byte-stream transport for Bolt (RFC 6455 frames)."""

    @staticmethod
    def client(mask_seed: int) -> WsStream: ...
    @staticmethod
    def server() -> WsStream: ...
    def to_wire(self, data: Buffer) -> bytes: ...
    def from_wire(self, data: Buffer) -> tuple[bytes, bytes]: ...
    def ping(self, payload: bytes) -> bytes: ...
    def close(self, code: int | None = 1000, reason: str = "") -> bytes: ...
    @property
    def close_received(self) -> tuple[int | None, str] | None: ...
    @property
    def is_closed(self) -> bool: ...

class ClientUpgrade:
    """The client's WebSocket opening handshake."""

    def __init__(self, host: str, key: bytes, path: str = "/") -> None: ...
    def request(self) -> bytes: ...
    def receive(self, data: Buffer) -> int | None: ...

class ServerUpgrade:
    """The server's side of the WebSocket opening handshake."""

    def __init__(self) -> None: ...
    def receive(self, data: Buffer) -> UpgradeRequest | None: ...
