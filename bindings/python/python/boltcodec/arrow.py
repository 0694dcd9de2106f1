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

import typing as t

from . import _native

__all__ = ["ArrowBatches", "ArrowStream", "decode_records"]

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
