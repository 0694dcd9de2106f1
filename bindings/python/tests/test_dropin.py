"""boltcodec as the neo4j driver's accelerator: activation, and the driver's codec contract.

These are our own checks of what the driver's codec unit tests (and the driver itself)
rely on; ``scripts/run-driver-unit-tests.sh`` runs the driver's tests themselves.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import uuid
from decimal import Decimal
from fractions import Fraction

import pytest

neo4j = pytest.importorskip("neo4j")

from neo4j._codec.packstream import RUST_AVAILABLE, Structure, v1, v2  # noqa: E402
from neo4j._codec.packstream._common import PackableBuffer, UnpackableBuffer  # noqa: E402

from boltcodec import _hook, _native, dropin  # noqa: E402


def run_python(code: str, **env: str) -> str:
    full_env = {**os.environ, **env}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=full_env,
        check=True,
        timeout=120,
    )
    return out.stdout.strip()


class TestActivation:
    def test_active_by_default(self) -> None:
        assert RUST_AVAILABLE
        assert Structure is _native.Structure
        assert v1._rust_pack is _native.neo4j_pack_v1
        assert v2._rust_unpack is _native.neo4j_unpack_v2
        status = dropin.status()
        assert status["hook"]
        assert status["codec"]
        assert status["receive"], status["receive_reason"]
        import neo4j._sync.io._bolt._base as base

        assert base.Inbox.__module__ == "boltcodec._inbox"

    def test_vector_swap_endian(self) -> None:
        import neo4j.vector

        assert neo4j.vector._swap_endian_unchecked is _native.swap_endian
        assert _native.swap_endian(2, b"\x01\x02\x03\x04") == b"\x02\x01\x04\x03"
        assert _native.swap_endian(8, bytes(range(8))) == bytes(range(7, -1, -1))
        with pytest.raises(ValueError, match="Unsupported type size 3"):
            _native.swap_endian(3, b"abc")
        with pytest.raises(ValueError, match="not a multiple"):
            _native.swap_endian(2, b"abc")

    @pytest.mark.parametrize("value", ["0", "off", "false"])
    def test_env_switches_it_off(self, value: str) -> None:
        code = (
            "import neo4j, boltcodec.dropin as d;"
            "from neo4j._codec.packstream import RUST_AVAILABLE;"
            "print(RUST_AVAILABLE, d.status()['hook'])"
        )
        assert run_python(code, BOLTCODEC_NEO4J=value) == "False False"

    def test_codec_only(self) -> None:
        code = (
            "import neo4j, boltcodec.dropin as d;"
            "import neo4j._sync.io._bolt._base as b;"
            "s = d.status(); print(s['codec'], s['receive'], b.Inbox.__module__)"
        )
        out = run_python(code, BOLTCODEC_NEO4J="codec")
        assert out == "True False neo4j._sync.io._bolt._common"

    def test_5x_accelerator_module_paths_were_not_served(self) -> None:
        # 5.x drivers import neo4j._codec.packstream._rust(.v1); only the 6.x names were
        # served, so on 5.28.2 nothing activated (driver-matrix.sh runs the releases).
        kinds = {
            "neo4j._codec.packstream._rust": "package",
            "neo4j._codec.packstream._rust.v1": "codec v1",
            "neo4j._rust": "package",
            "neo4j._rust.codec": "package",
            "neo4j._rust.codec.packstream": "package",
            "neo4j._rust.codec.packstream.v1": "codec v1",
            "neo4j._rust.codec.packstream.v2": "codec v2",
            "neo4j._rust.vector": "vector",
            "neo4j._rust.codec.packstream.v1.extra": None,
            "neo4j._rust.something_new": None,
            "neo4j._codec.packstream.v1": None,
            "other._rust": None,
        }
        assert {name: _hook.accelerator_kind(name) for name in kinds} == kinds

    def test_5x_inbox_modules_were_not_recognised(self) -> None:
        kinds = {
            "neo4j._sync.io._common": "sync",
            "neo4j._async.io._common": "async",
            "neo4j._sync.io._bolt._common": "sync",
            "neo4j._async.io._bolt._common": "async",
            "neo4j._sync.io._bolt._base": None,
            "neo4j._sync.work._common": None,
        }
        assert {name: _hook.inbox_module_kind(name) for name in kinds} == kinds

    def test_status_said_driver_not_imported_yet_after_the_driver_was_imported(self) -> None:
        code = (
            "import boltcodec.dropin as d, json; s0 = d.status();"
            "import neo4j; s1 = d.status(); print(json.dumps([s0, s1]))"
        )
        import json

        before, after = json.loads(run_python(code))
        assert before["level"] == "off"
        assert "not imported yet" in before["receive_reason"]
        assert after["level"] == "receive"
        assert "not imported yet" not in after["receive_reason"]

    def test_uninstalled_hook_is_reported(self) -> None:
        code = (
            "import boltcodec.dropin as d; d.uninstall(); import neo4j;"
            "s = d.status(); print(s['hook'], s['level'], s['codec_reason'][:60])"
        )
        out = run_python(code)
        assert out.startswith("False off the import hook is not installed"), out

    def test_startup_does_not_load_native_code(self) -> None:
        code = "import sys; print('boltcodec._native' in sys.modules, 'neo4j' in sys.modules)"
        assert run_python(code) == "False False"


@pytest.fixture(params=[v1, v2], ids=["v1", "v2"])
def codec(request: pytest.FixtureRequest):
    return request.param


def pack(codec, value, hooks=None) -> bytes:
    packer = codec.Packer(PackableBuffer())
    packer.pack(value, dehydration_hooks=hooks)
    return bytes(packer.stream.data)


def unpack(codec, data: bytes, hooks=None):
    buf = UnpackableBuffer()
    buf.data = bytearray(data)
    buf.used = len(data)
    return codec.Unpacker(buf).unpack(hooks)


def py_pack(codec, value) -> bytes:
    """The driver's pure-Python packer (still there next to the accelerated one)."""
    packer = codec.Packer(PackableBuffer())
    packer._py_pack(value, codec.Packer._inject_hooks(None))
    return bytes(packer.stream.data)


class TestDriverContract:
    def test_structure_class(self) -> None:
        s = Structure(b"T", 1, 2, "abc", None)
        assert (s.tag, s.fields, len(s), s[2], s[-1]) == (
            b"T",
            [1, 2, "abc", None],
            4,
            "abc",
            None,
        )
        assert s == Structure(b"T", 1, 2, "abc", None)
        assert s.__eq__(object()) is NotImplemented
        assert str(s) == repr(s) == "Structure(b'T', 1, 2, 'abc', None)"
        nan = Structure(b"T", float("nan"))
        assert nan != Structure(b"T", float("nan"))

    @pytest.mark.parametrize("value", [Fraction(1, 3), Decimal("1.5"), re.compile("x"), object()])
    def test_unsupported_types(self, codec, value) -> None:
        with pytest.raises(ValueError) as info:
            pack(codec, value)
        assert str(type(value)) in str(info.value)
        assert "bolt" not in str(info.value).lower()

    def test_uuid_v1_message_and_v2_roundtrip(self) -> None:
        u = uuid.uuid4()
        with pytest.raises(ValueError, match=r"requires Bolt protocol version 6\.1"):
            pack(v1, u)
        assert pack(v2, u) == b"\xe0" + u.bytes
        assert unpack(v2, b"\xe0" + u.bytes) == u
        with pytest.raises(ValueError, match="marker"):
            unpack(v1, b"\xe0" + u.bytes)

    @pytest.mark.parametrize(
        "marker", [0xC4, 0xC7, 0xCF, 0xD3, 0xD7, 0xDB, 0xDC, 0xDD, 0xDF, 0xEF]
    )
    def test_unknown_marker_message(self, codec, marker: int) -> None:
        with pytest.raises(ValueError) as info:
            unpack(codec, bytes([marker]) + b"\xc0" * 16)
        msg = str(info.value)
        assert re.search(r"\bmarker\b", msg, re.IGNORECASE)
        assert re.search(rf"\b{marker:02x}\b", msg, re.IGNORECASE)

    @pytest.mark.parametrize("mapping", [{1: "a"}, {"x": {2: "b"}}, {"x": {(1, 2): "c"}}])
    def test_map_keys_must_be_strings(self, codec, mapping) -> None:
        packer = codec.Packer(PackableBuffer())
        with pytest.raises(TypeError, match="strings"):
            packer._pack(mapping)

    def test_struct_errors(self, codec) -> None:
        with pytest.raises(ValueError):
            pack(codec, Structure(b"XY"))
        with pytest.raises(OverflowError):
            pack(codec, Structure(b"X", *range(16)))
        assert pack(codec, Structure(b"X", *range(15)))[:2] == b"\xbfX"

    @pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 2**64])
    def test_int_overflow(self, codec, value: int) -> None:
        with pytest.raises(OverflowError):
            pack(codec, value)

    def test_tuples_through_hooks(self, codec) -> None:
        assert pack(codec, (1, (2, 3))) == b"\x92\x01\x92\x02\x03"
        with pytest.raises(ValueError, match="tuple"):
            codec.Packer(PackableBuffer())._pack((1,))  # no hooks at all

    def test_dehydration_hooks(self, codec) -> None:
        from neo4j._codec.hydration import DehydrationHooks

        class Money:
            def __init__(self, cents: int) -> None:
                self.cents = cents

        hooks = DehydrationHooks(
            exact_values={}, exact_types={Money: lambda m: Structure(b"M", m.cents)}, subtypes={}
        )
        assert pack(codec, {"p": [Money(5)]}, hooks) == b"\xa1\x81p\x91\xb1M\x05"

    def test_hydration_hooks(self, codec) -> None:
        data = pack(codec, [Structure(b"A", Structure(b"B"))])
        hooks = {Structure: lambda s: (s.tag, *s.fields)}
        assert unpack(codec, data, hooks) == [(b"A", (b"B",))]
        assert unpack(codec, data, {}) == [Structure(b"A", Structure(b"B"))]

    def test_unpack_index_and_bytes_input(self, codec) -> None:
        unpack_fn = codec._rust_unpack
        data = bytearray(b"\x01\x92\x02\x03\xc0")
        assert unpack_fn(data, 1) == ([2, 3], 4)
        assert unpack_fn(bytes(data), 4) == (None, 5)
        with pytest.raises(ValueError):
            unpack_fn(data, 5)

    def test_truncated_string_is_an_error_not_a_crash(self, codec) -> None:
        with pytest.raises(ValueError, match="at byte"):
            codec._rust_unpack(bytearray(b"\x85ab"), 0)


class TestNumpyPandas:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")

    def cases(self) -> list:
        np, pd = self.np, self.pd
        return [
            np.int8(-5),
            np.uint16(300),
            np.int64(-(2**40)),
            np.uint64(2**63 - 1),
            np.float16(1.5),
            np.float32(0.1),
            np.longdouble(2.5),
            np.bool_(True),
            np.bool_(False),
            np.str_("héllo"),
            np.bytes_(b"ab"),
            np.array([1, 2, 3]),
            np.array([[1.5, 2.5], [3.5, 4.5]]),
            np.array(["a", "b"]),
            pd.NA,
            pd.NaT,
            pd.Series([1, 2, None]),
            pd.Series([1.5, float("nan")]),
            pd.Series(["x", None], dtype="string"),
            pd.Series([True, None], dtype="boolean"),
            pd.Series([1, None], dtype="Int64"),
            pd.Categorical(["a", "b", "a"]),
            pd.array([1, 2], dtype="Int32"),
            pd.arrays.SparseArray([0, 0, 1]),
            pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}),
            pd.DataFrame(),
            {"s": pd.Series([1.0]), "n": [np.int32(1), np.float64(2.0)]},
        ]

    def test_same_bytes_as_the_driver(self, codec) -> None:
        for value in self.cases():
            assert pack(codec, value) == py_pack(codec, value), repr(value)

    def test_errors_match_the_driver(self, codec) -> None:
        np, pd = self.np, self.pd
        for value in [np.uint64(2**64 - 1), pd.DataFrame({1: [1]}), np.datetime64("2020-01-01")]:
            with pytest.raises(Exception) as ours:
                pack(codec, value)
            with pytest.raises(Exception) as theirs:
                py_pack(codec, value)
            assert type(ours.value) is type(theirs.value), (value, ours.value, theirs.value)

    def test_float_packing_is_bit_exact(self, codec) -> None:
        np = self.np
        for v in [np.float32(3.4e38), np.float16(-0.0), np.float64("nan")]:
            assert pack(codec, v) == b"\xc1" + struct.pack(">d", float(v))
