from collections.abc import Sequence
from typing import Any

BATCH_ROWS: int
last_path: str

class ArrowBatches:
    """Arrow record batches with one schema (the Arrow PyCapsule stream interface)."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> Any: ...
    def __len__(self) -> int: ...
    @property
    def num_batches(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    @property
    def column_types(self) -> list[str]: ...

class ArrowStream:
    """A PULL response decoded as it arrives, a batch per ``feed``."""

    def __new__(
        cls, fields: Sequence[str], version: str = "5.8", utc_patch: bool = False
    ) -> ArrowStream: ...
    def feed(self, data: bytes) -> ArrowBatches | None: ...
    def take_has_more(self) -> bool: ...
    @property
    def done(self) -> bool: ...
    @property
    def has_more(self) -> bool: ...
    @property
    def column_names(self) -> list[str]: ...

def decode_records(
    data: bytes,
    fields: Sequence[str],
    version: str = "5.8",
    *,
    utc_patch: bool = False,
) -> ArrowBatches: ...
def to_arrow(result: Any) -> ArrowBatches:
    """Read a driver ``Result`` to its end as Arrow (a ``result_transformer_``)."""

async def to_arrow_async(result: Any) -> ArrowBatches:
    """:func:`to_arrow` for the async driver's ``AsyncResult``."""
