"""Smoke test of an installed boltcodec wheel, run by scripts/dist/test.sh in a fresh venv.

    python smoke_python.py VECTORS_JSON [--driver VERSION]

Checks that boltcodec is imported from the environment (not from a source tree), decodes
every case of tests/vectors/packstream.json (valid ones decode and re-encode to the same
bytes; invalid ones fail with the vector's error kind and byte offset), and, with
``--driver``, that importing the official ``neo4j`` driver (that exact version) switches
the drop-in on: the .pth start-up hook is installed and the driver's codec and receive
path run through boltcodec (``boltcodec.dropin.status()``). Exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
import sysconfig
from pathlib import Path


def _fail(message: str) -> None:
    print(f"smoke_python: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def _options(case: dict) -> dict:
    """``unpackb`` keyword arguments for a case's options and limits (as the test suite)."""
    kw: dict = {}
    opts = case.get("options", {})
    if opts.get("uuid"):
        kw["uuid"] = True
    if opts.get("legacy_structs"):
        kw["legacy_structs"] = True
    kw.update(case.get("limits", {}))
    return kw


def _case_bytes(case: dict, prefix: str = "") -> bytes:
    if prefix + "hex" in case:
        return bytes.fromhex(case[prefix + "hex"])
    return b"".join(bytes.fromhex(h) * n for h, n in case[prefix + "hex_parts"])


def check_vectors(path: Path) -> int:
    """Decode every vector; return how many cases were checked."""
    import boltcodec

    vectors = json.loads(path.read_text(encoding="utf-8"))
    n = 0
    for case in vectors["valid"]:
        data = _case_bytes(case)
        kw = _options(case)
        value = boltcodec.unpackb(data, **kw)
        again = boltcodec.packb(value, uuid=kw.get("uuid", False))
        if again != data:
            _fail(f"valid case {case['name']}: re-encoded {again.hex()} != {data.hex()}")
        n += 1
    for case in vectors["decode_only"]:
        value = boltcodec.unpackb(_case_bytes(case), **_options(case))
        again = boltcodec.packb(value, uuid=_options(case).get("uuid", False))
        if again != _case_bytes(case, "canonical_"):
            _fail(f"decode_only case {case['name']}: re-encoded {again.hex()}")
        n += 1
    for case in vectors["invalid"]:
        try:
            boltcodec.unpackb(_case_bytes(case), **_options(case))
        except boltcodec.DecodeError as err:
            if (err.kind, err.offset) != (case["error"], case["offset"]):
                _fail(f"invalid case {case['name']}: {err.kind} at {err.offset}: {err}")
        else:
            _fail(f"invalid case {case['name']} decoded")
        n += 1
    return n


def check_dropin(version: str) -> dict:
    """Import the driver and return the drop-in's status, failing unless it is all on."""
    import boltcodec.dropin
    import neo4j

    if neo4j.__version__ != version:
        _fail(f"neo4j {neo4j.__version__} imported, {version} expected")
    status = boltcodec.dropin.status()
    if not (status["hook"] and status["codec"] and status["receive"]):
        _fail(f"drop-in not active with neo4j {version}: {status}")
    if status["level"] != "receive":
        _fail(f"drop-in level {status['level']!r} with neo4j {version}: {status}")
    return status


def main() -> None:
    """Run the checks the command line asks for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vectors", type=Path)
    parser.add_argument("--driver", help="the neo4j driver version that must be installed")
    parser.add_argument(
        "--no-site-check",
        action="store_true",
        help="accept boltcodec from sys.path rather than the environment's site-packages",
    )
    args = parser.parse_args()

    from boltcodec import _native

    site = Path(sysconfig.get_paths()["platlib"]).resolve()
    where = Path(_native.__file__).resolve()
    if not args.no_site_check and site not in where.parents:
        _fail(f"boltcodec._native came from {where}, not from {site}")
    n = check_vectors(args.vectors)
    line = f"{n} vector cases ok ({where.name})"
    if args.driver:
        status = check_dropin(args.driver)
        line += f"; drop-in level {status['level']} on neo4j {status['driver_version']}"
    version = importlib.metadata.version("boltcodec")
    print(f"smoke_python: Python {sys.version.split()[0]}, boltcodec {version}: {line}")


if __name__ == "__main__":
    main()
