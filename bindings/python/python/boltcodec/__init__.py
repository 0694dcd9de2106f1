"""boltcodec: a fast PackStream/Bolt codec for Neo4j that raises errors instead of crashing.

Its own API::

    import boltcodec
    data = boltcodec.packb({"name": "Alice", "tags": [1, 2.0, None]})
    value = boltcodec.unpackb(data)

``Dechunker`` splits a Bolt chunk stream into messages (and decodes them in one call with
``feed_messages``). With the official ``neo4j`` driver installed, boltcodec also serves as
its accelerator without any change to user code; see :mod:`boltcodec.dropin`. Driver
authors get the whole Bolt layer (sans-IO connection, handshake, WebSocket) from
:mod:`boltcodec.bolt`.

The native module is loaded on first use, so that the start-up hook that installs the
drop-in costs next to nothing in processes that never use it.
"""

__version__ = "0.1.0"

__all__ = [
    "DechunkError",
    "Dechunker",
    "DecodeError",
    "EncodeError",
    "Structure",
    "__version__",
    "packb",
    "unpack_from",
    "unpackb",
]

_NATIVE = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> object:
    """Load the native module on first use of one of its names."""
    if name in _NATIVE:
        from . import _native

        value = getattr(_native, name)
        globals()[name] = value
        return value
    if name in ("dropin", "bolt"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'boltcodec' has no attribute {name!r}")


def __dir__() -> "list[str]":
    """List the public names (the native ones included)."""
    return sorted(set(globals()) | set(__all__))
