from collections.abc import Sequence
from typing import Any

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

def decode_records(
    data: bytes,
    fields: Sequence[str],
    version: str = "5.8",
    *,
    utc_patch: bool = False,
) -> ArrowBatches: ...
