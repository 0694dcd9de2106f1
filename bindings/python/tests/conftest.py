"""Shared helpers: reading tests/vectors/packstream.json and comparing decoded values."""

from __future__ import annotations

import json
import math
import struct
import uuid
from pathlib import Path
from typing import Any

import pytest

import boltcodec

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO / "tests" / "vectors" / "packstream.json"


def load_vectors() -> dict[str, Any]:
    with VECTORS.open(encoding="utf-8") as f:
        return json.load(f)


def vector_bytes(case: dict[str, Any], prefix: str = "") -> bytes:
    """The bytes of a case: ``hex`` or ``hex_parts`` (with an optional ``canonical_`` prefix)."""
    if prefix + "hex" in case:
        return bytes.fromhex(case[prefix + "hex"])
    return b"".join(bytes.fromhex(h) * n for h, n in case[prefix + "hex_parts"])


def vector_value(v: dict[str, Any]) -> Any:
    """The Python value a vector's JSON value notation stands for."""
    t = v["t"]
    if t == "null":
        return None
    if t == "bool":
        return v["v"]
    if t == "int":
        return int(v["v"])
    if t == "float":
        return struct.unpack(">d", bytes.fromhex(v["bits"]))[0]
    if t == "str":
        if "repeat" in v:
            return v["repeat"] * v["count"]
        return v["v"]
    if t == "bytes":
        if "repeat_hex" in v:
            return bytes.fromhex(v["repeat_hex"]) * v["count"]
        return bytes.fromhex(v["hex"])
    if t == "list":
        if "repeat" in v:
            return [vector_value(v["repeat"]) for _ in range(v["count"])]
        return [vector_value(i) for i in v["items"]]
    if t == "map":
        if "gen_keys" in v:
            n, w = v["gen_keys"]["count"], v["gen_keys"]["width"]
            return {str(i).zfill(w): vector_value(v["value"]) for i in range(n)}
        return {k: vector_value(x) for k, x in v["entries"]}
    if t == "struct":
        return boltcodec.Structure(bytes([v["tag"]]), *(vector_value(f) for f in v["fields"]))
    if t == "uuid":
        return uuid.UUID(v["v"])
    raise ValueError(f"unknown vector type {t!r}")


def same(a: Any, b: Any) -> bool:
    """Strict equality: same types (bool is not int), floats by bits (NaN payloads too)."""
    if type(a) is not type(b):
        # boltcodec.Structure and the driver's Structure are the same class here.
        return False
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, boltcodec.Structure):
        return a.tag == b.tag and same(a.fields, b.fields)
    return a == b


def nan_aware_equal(a: Any, b: Any) -> bool:
    """Equality where NaN equals NaN (for values compared across implementations)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return same(a, b)


def options_kwargs(case: dict[str, Any]) -> dict[str, Any]:
    """``unpackb`` keyword arguments for a case's options and limits."""
    kw: dict[str, Any] = {}
    opts = case.get("options", {})
    if opts.get("uuid"):
        kw["uuid"] = True
    if opts.get("legacy_structs"):
        kw["legacy_structs"] = True
    kw.update(case.get("limits", {}))
    return kw


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    return load_vectors()
