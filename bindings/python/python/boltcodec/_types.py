"""Type tables for :func:`boltcodec.packb`, the same as the neo4j driver's ``_codec._types``.

numpy and pandas values are packed as the driver packs them. An object of one of their
types can only exist once the library is imported, so the tables only look at
``sys.modules`` and never import numpy or pandas themselves.
"""

from __future__ import annotations

import sys

_cache: tuple[tuple[bool, bool], tuple[tuple, ...]] | None = None


def pack_types() -> tuple[tuple, ...]:
    """Return the tuples the packer checks, in order.

    ``(none_values, true_values, false_values, float_types, int_types, bytes_types,
    sequence_types, mapping_types)``.
    """
    global _cache  # noqa: PLW0603 - a tiny module-level cache
    np = sys.modules.get("numpy")
    pd = sys.modules.get("pandas")
    key = (np is not None, pd is not None)
    if _cache is not None and _cache[0] == key:
        return _cache[1]
    none_values: tuple = (None,)
    true_values: tuple = (True,)
    false_values: tuple = (False,)
    float_types: tuple = (float,)
    int_types: tuple = (int,)
    bytes_types: tuple = (bytes, bytearray)
    sequence_types: tuple = (list,)
    mapping_types: tuple = (dict,)
    try:
        if np is not None:
            true_values += (np.bool_(True),)
            false_values += (np.bool_(False),)
            int_types += (np.integer,)
            float_types += (np.floating,)
            sequence_types += (np.ndarray,)
        if pd is not None:
            none_values += (pd.NA, pd.NaT)
            sequence_types += (
                pd.Series,
                pd.Categorical,
                pd.api.extensions.ExtensionArray,
            )
            mapping_types += (pd.DataFrame,)
    except AttributeError:
        # A library still being imported: try again on the next call.
        key = (False, False)
    tables = (
        none_values,
        true_values,
        false_values,
        float_types,
        int_types,
        bytes_types,
        sequence_types,
        mapping_types,
    )
    _cache = (key, tables)
    return tables
