"""Neo4j query results as Apache Arrow columns.

``decode_records(data, fields)`` decodes the bytes of a PULL response (the chunked RECORD
messages and the summary that ends them, as read from the socket after the RUN's
SUCCESS) straight into Arrow record batches, without a Python object per value. The
result exports itself through the Arrow PyCapsule interface (``__arrow_c_stream__``), so
any Arrow consumer takes it without copying and boltcodec needs neither library::

    import pyarrow as pa
    import polars as pl
    from boltcodec.arrow import decode_records

    batches = decode_records(pull_bytes, ["name", "age"], version="5.8")
    table = pa.table(batches)           # pyarrow.Table
    frame = pl.DataFrame(batches)       # polars.DataFrame
    df = table.to_pandas()              # pandas, through pyarrow

For results larger than memory, :class:`ArrowStream` takes the bytes as they are read
and gives a batch per read (send ``PULL {n}`` when ``take_has_more()`` says so).

With the official driver, :func:`to_arrow` is a result transformer:
``driver.execute_query(query, result_transformer_=boltcodec.arrow.to_arrow)`` returns the
result as :class:`ArrowBatches` (``to_arrow_async`` for the async driver). The driver keeps
routing, TLS, auth, retries and errors; when boltcodec's receive path is active for the
connection (``boltcodec.dropin.status()["receive"]``), the raw RECORD messages go from
the socket buffer straight into the Arrow column builders. Otherwise it falls back to the
driver's records (slower: a Python object per value) and logs why once.

The types follow the rules of the ``boltcodec-arrow`` crate (crates/arrow): integers
``int64``, floats ``double`` (integers and floats together too), strings ``string``,
bytes ``binary``, lists ``list<...>``, maps ``map<string, ...>``, nodes, relationships,
paths and points as structs, dates ``date32``, times ``time64[ns]``, datetimes
``timestamp[ns, tz]``, durations ``month_day_nano_interval``, vectors
``fixed_size_list``, UUIDs ``fixed_size_binary(16)``; a column whose values mix other
types becomes canonical text. Malformed input raises :class:`boltcodec.DecodeError`
with ``kind`` and ``offset``.
"""

from __future__ import annotations

import logging
import typing as t

from . import _native

__all__ = ["ArrowBatches", "ArrowStream", "decode_records", "to_arrow", "to_arrow_async"]

#: The drop-in's logger (a child of the driver's ``neo4j`` logger).
log = logging.getLogger("neo4j.boltcodec")

ArrowBatches = _native.ArrowBatches

#: A PULL response decoded as it arrives (``feed(bytes)`` gives a batch or ``None``;
#: ``take_has_more()`` says when to send the next ``PULL {n}``; ``done``). Memory is one
#: batch, whatever the size of the result.
ArrowStream = _native.ArrowStream


def decode_records(
    data: bytes,
    fields: t.Sequence[str],
    version: str = "5.8",
    *,
    utc_patch: bool = False,
) -> ArrowBatches:
    """Decode a whole PULL response into Arrow record batches.

    ``data``: the bytes the server sent in reply to PULL (chunked, summary included).
    ``fields``: the ``fields`` of the RUN's SUCCESS. ``version``: the negotiated Bolt
    version, e.g. ``"5.8"`` or ``"4.4"``; ``utc_patch``: Bolt 4.4's ``utc`` patch.

    Raises :class:`boltcodec.DecodeError` (``kind``, ``offset``) for malformed bytes, a
    FAILURE among them, or bytes that stop before the summary.
    """
    return _native.decode_records(bytes(data), list(fields), version, utc_patch)


#: How many rows the native path decodes at a time; the first batch fixes the schema.
BATCH_ROWS = 65536

_warned: set[str] = set()

#: How the last result was read: ``"native"``, or ``"fallback: <reason>"``.
last_path = ""


def _note_path(path: str) -> None:
    global last_path  # noqa: PLW0603 - one module-level diagnostic
    last_path = path
    if path != "native" and path not in _warned:
        _warned.add(path)
        log.warning("boltcodec.arrow.to_arrow: %s (from the driver's records, slower)", path)


def _connection_facts(result: t.Any) -> tuple[t.Any, list[str], str, bool]:
    """Return the result's native reader (or a reason string), its fields and version."""
    connection = getattr(result, "_connection", None)
    version = getattr(connection, "PROTOCOL_VERSION", None)
    try:
        major, minor = tuple(version)[:2]
        version_text = f"{int(major)}.{int(minor)}"
    except (TypeError, ValueError):
        version_text = "5.0"
    utc_patch = "utc" in (getattr(connection, "patch", None) or ())
    fields = list(result.keys())
    reader = getattr(getattr(connection, "inbox", None), "_reader", None)
    if not isinstance(reader, _native.MessageReader):
        return (
            "the receive path is not active for this connection",
            fields,
            version_text,
            utc_patch,
        )
    if getattr(result, "_record_buffer", None):
        return "records were already read from this result", fields, version_text, utc_patch
    if reader.arrow_sink is not None:
        return "another result is being read as Arrow", fields, version_text, utc_patch
    return reader, fields, version_text, utc_patch


def _rows(records: t.Iterable[t.Any]) -> list[list[t.Any]]:
    """Return the driver's records as rows (graph values as ``Record.data()`` has them)."""
    return [list(record.data().values()) for record in records]


def _fallback(result: t.Any, records: list[t.Any], fields: list[str], version: str, utc: bool):
    scope = getattr(result, "_hydration_scope", None)
    hooks = getattr(scope, "dehydration_hooks", None)
    return _native.arrow_from_rows(_rows(records), fields, version, utc, hooks)


def to_arrow(result: t.Any) -> ArrowBatches:
    """Read a driver ``Result`` to its end as Arrow: a ``result_transformer_``.

    ``driver.execute_query(query, result_transformer_=boltcodec.arrow.to_arrow)`` gives
    :class:`ArrowBatches`; ``pyarrow.table(...)``, ``polars.DataFrame(...)`` and other
    Arrow consumers take it through ``__arrow_c_stream__`` without copying.

    With boltcodec's receive path active, the RECORD messages are decoded natively
    straight into Arrow, ``BATCH_ROWS`` at a time (the first batch fixes each column's
    type, see the module documentation). Otherwise the driver's records are converted
    (same types, except that nodes, relationships and paths are what the driver's
    ``Record.data()`` makes of them), and a warning says why once; ``last_path`` tells
    which way the last result went.

    Raises the driver's errors as ``execute_query`` would, and
    :class:`boltcodec.DecodeError` for a record that cannot be decoded or whose value
    does not fit the column's type fixed by the first batch; the result is read to its
    end first, so the connection stays usable.
    """
    reader, fields, version, utc = _connection_facts(result)
    if isinstance(reader, str):
        _note_path("fallback: " + reader)
        return _fallback(result, list(result), fields, version, utc)
    sink = _native.ArrowSink(fields, version, utc, BATCH_ROWS)
    reader.arrow_sink = sink
    try:
        # The driver pulls and reads to the summary; its RECORDs go to the sink.
        stray = list(result)
    finally:
        reader.arrow_sink = None
    _note_path("native")
    if stray:  # cannot happen: the sink takes every RECORD
        raise RuntimeError("boltcodec.arrow: the driver delivered records past the sink")
    return sink.finish()


async def to_arrow_async(result: t.Any) -> ArrowBatches:
    """:func:`to_arrow` for the async driver's ``AsyncResult``."""
    reader, fields, version, utc = _connection_facts(result)
    if isinstance(reader, str):
        _note_path("fallback: " + reader)
        records = [record async for record in result]
        return _fallback(result, records, fields, version, utc)
    sink = _native.ArrowSink(fields, version, utc, BATCH_ROWS)
    reader.arrow_sink = sink
    try:
        stray = [record async for record in result]
    finally:
        reader.arrow_sink = None
    _note_path("native")
    if stray:
        raise RuntimeError("boltcodec.arrow: the driver delivered records past the sink")
    return sink.finish()
