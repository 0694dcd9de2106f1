"""Where the demo read's wall clock goes: server work, server idle gaps, client waits.

Runs ``scripts/demo_workload.py`` (the demo read, or ``--scalars N``) in this process with
every socket traced: each send is timed, and each receive is timed and also stamped by the
kernel with the arrival time of the last bytes it returned (``SO_TIMESTAMPNS``), so the
moment a batch's final SUCCESS reached this machine is known even when the client was
busy and read it later. The cyclic GC's collections are timed through ``gc.callbacks``.

From that, for the read alone (the workload's stopwatch), one PULL batch at a time:

* ``server``: from a PULL sent until the batch's last bytes (its SUCCESS) arrived: the
  server producing the batch (and the client reading it as it comes);
* ``gap``: from that SUCCESS's arrival until the next PULL was sent: the server idles
  while the client finishes the batch, of which ``gc`` in collections;
* ``wait``: the client blocked in a receive (idle, waiting for the server);
* before the first PULL: connect, handshake, login (the floor's connection is new, the
  driver's is pooled) and the RUN.

    NEO4J_BOLT_PORT=... .venv/bin/python benches/python/read_gaps.py [--rounds 3]
    NEO4J_BOLT_PORT=... .venv/bin/python benches/python/read_gaps.py --column boltcodec

Without ``--column``: the raw floor, the driver with boltcodec and (when
``.venv-rustext`` exists, ``--rustext`` to point elsewhere) the driver with rust-ext, in
alternating rounds, each in its own process; prints a markdown table of each column's
median read (``--update FILE``: also into FILE, between ``<!-- python-gaps:start -->``
and ``<!-- python-gaps:end -->``). ``--column`` traces one column in this process
(``pure``, ``boltcodec`` and ``floor`` with ``.venv``'s Python, ``rustext`` with
``.venv-rustext``'s) and prints its sums (``--json``: one JSON line; ``--batches``:
every PULL batch too). The tracing costs a few microseconds per socket call: the
drop-in and the floor make one to three thousand calls per read; the pure driver and
rust-ext, which read each chunk header with a call of its own, many more, so their
columns run slower traced than untraced.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
START, END = "<!-- python-gaps:start -->", "<!-- python-gaps:end -->"
WORKLOAD = ROOT / "scripts" / "demo_workload.py"

#: The clock every event is stamped with (the kernel's receive stamps are wall time).
now = time.time_ns

#: (kind, t_start_ns, t_end_ns, detail): "send" (detail: bytes sent), "recv" (detail:
#: (bytes, kernel arrival stamp of the last of them or 0)), "gc" (detail: generation),
#: "read" (the workload's stopwatch).
EVENTS: list[tuple[str, int, int, object]] = []

_TS_SIZE = struct.calcsize("ll")
_ANC = socket.CMSG_SPACE(_TS_SIZE)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def _stamp(ancdata: list) -> int:
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= _TS_SIZE:
            sec, nsec = struct.unpack("ll", data[:_TS_SIZE])
            return sec * 1_000_000_000 + nsec
    return 0


class TracedSocket(socket.socket):
    """``socket.socket`` with every send and receive timed (and receives stamped)."""

    def _stamping(self) -> bool:
        if getattr(self, "_stamps_on", None) is None:
            try:
                self.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
                self._stamps_on = True
            except OSError:
                self._stamps_on = False
        return self._stamps_on

    def recv_into(self, buffer, nbytes=0, flags=0):  # noqa: D102
        t0 = now()
        if self._stamping():
            view = memoryview(buffer).cast("B")
            if nbytes:
                view = view[:nbytes]
            n, anc, _, _ = self.recvmsg_into([view], _ANC, flags)
            stamp = _stamp(anc)
        else:
            n, stamp = super().recv_into(buffer, nbytes, flags), 0
        EVENTS.append(("recv", t0, now(), (n, stamp)))
        return n

    def recv(self, bufsize, flags=0):  # noqa: D102
        t0 = now()
        if self._stamping():
            data, anc, _, _ = self.recvmsg(bufsize, _ANC, flags)
            stamp = _stamp(anc)
        else:
            data, stamp = super().recv(bufsize, flags), 0
        EVENTS.append(("recv", t0, now(), (len(data), stamp)))
        return data

    def sendall(self, data, flags=0):  # noqa: D102
        t0 = now()
        out = super().sendall(data, flags)
        EVENTS.append(("send", t0, now(), bytes(data)))
        return out

    def send(self, data, flags=0):  # noqa: D102
        t0 = now()
        n = super().send(data, flags)
        EVENTS.append(("send", t0, now(), bytes(data[:n])))
        return n


def _gc_callback(phase: str, info: dict, _start: list = [0]) -> None:  # noqa: B006
    if phase == "start":
        _start[0] = now()
    else:
        EVENTS.append(("gc", _start[0], now(), info["generation"]))


def _has_pull(data: bytes) -> bool:
    """Whether the chunked bytes sent hold a PULL message (signature 0x3F)."""
    i = 0
    while i + 2 <= len(data):
        size = int.from_bytes(data[i : i + 2], "big")
        if size and i + 4 <= len(data) and data[i + 3] == 0x3F and data[i + 2] & 0xF0 == 0xB0:
            return True
        i += 2 + size
    return False


def analyse(events: list) -> dict:
    """Sum the read's timeline per PULL batch (see the module's doc)."""
    start, end = next((e[1], e[2]) for e in events if e[0] == "read")
    ev = sorted((e for e in events if start <= e[1] <= end and e[0] != "read"), key=lambda e: e[1])
    pulls = [e[2] for e in ev if e[0] == "send" and _has_pull(e[3])]
    recvs = [e for e in ev if e[0] == "recv"]
    gcs = [e for e in ev if e[0] == "gc"]

    def gc_within(a: int, b: int, gens: tuple = (0, 1, 2)) -> int:
        return sum(max(0, min(b, g[2]) - max(a, g[1])) for g in gcs if g[3] in gens)

    out = {
        "read_s": (end - start) / 1e9,
        "pulls": len(pulls),
        "before_first_pull_s": ((pulls[0] if pulls else end) - start) / 1e9,
        "server_s": 0.0,
        "gap_s": 0.0,
        "gap_gc_s": 0.0,
        "gap_full_gc_s": 0.0,
        "after_last_success_s": 0.0,
        "wait_s": sum(r[2] - r[1] for r in recvs) / 1e9,
        "gc_s": gc_within(start, end) / 1e9,
        "full_gc": sum(1 for g in gcs if g[3] == 2),
        "full_gc_s": gc_within(start, end, (2,)) / 1e9,
        "first_batch_s": 0.0,
        "full_gc_in_gap": 0,
        "first_bytes_s": 0.0,
        "recvs": len(recvs),
        "gaps_ms": [],
        "bytes": sum(r[3][0] for r in recvs),
        "batches": [],
    }
    bounds = [*pulls, end]
    for a, b in zip(bounds, bounds[1:]):
        inside = [r for r in recvs if a <= r[1] < b and r[3][0] > 0]
        if not inside:
            continue
        first = inside[0][3][1] or inside[0][2]
        last = inside[-1][3][1] or inside[-1][2]
        out["first_bytes_s"] += (first - a) / 1e9
        if a == pulls[0]:
            out["first_batch_s"] = (last - a) / 1e9
        out["batches"].append(
            {
                "server_ms": round((last - a) / 1e6, 2),
                "gap_ms": round((b - last) / 1e6, 2),
                "first_ms": round((first - a) / 1e6, 2),
                "wait_ms": round(sum(r[2] - r[1] for r in inside) / 1e6, 2),
                "gc_in_server_ms": round(gc_within(a, last) / 1e6, 2),
                "gc_in_gap_ms": round(gc_within(last, b) / 1e6, 2),
                "full_gc": sum(1 for g in gcs if g[3] == 2 and a <= g[1] < b),
                "bytes": sum(r[3][0] for r in inside),
                "recvs": len(inside),
            }
        )
        if b == end:  # the last batch: no PULL follows, only the hand-over
            out["server_s"] += (last - a) / 1e9
            out["after_last_success_s"] = (end - last) / 1e9
            continue
        out["server_s"] += (last - a) / 1e9
        out["gap_s"] += (b - last) / 1e9
        out["gaps_ms"].append(round((b - last) / 1e6, 2))
        out["gap_gc_s"] += gc_within(last, b) / 1e9
        out["gap_full_gc_s"] += gc_within(last, b, (2,)) / 1e9
        out["full_gc_in_gap"] += sum(1 for g in gcs if g[3] == 2 and last <= g[1] < b)
    return out


COLUMNS = {
    "floor": "raw floor",
    "boltcodec": "driver + boltcodec",
    "rustext": "driver + rust-ext",
    "pure": "pure driver",
}

#: Table rows: (label, key of analyse()'s result, format).
ROWS = [
    ("read (wall clock)", "read_s", "{:.2f} s"),
    ("before the first PULL (connect, login, BEGIN, RUN)", "before_first_pull_s", "{:.3f} s"),
    ("first batch (the server sorts every row first)", "first_batch_s", "{:.2f} s"),
    ("server busy: PULL sent to its SUCCESS arrived (sum)", "server_s", "{:.2f} s"),
    ("server idle: SUCCESS arrived to next PULL sent (sum)", "gap_s", "{:.2f} s"),
    ("... of which full GC collections", "gap_full_gc_s", "{:.2f} s"),
    ("... of which younger collections", "gap_young_gc_s", "{:.3f} s"),
    ("... the rest (finishing the batch, the driver's hand-over)", "gap_rest_s", "{:.3f} s"),
    ("idle gap per batch, median", "gap_median_ms", "{:.2f} ms"),
    ("after the last SUCCESS (COMMIT, hand-over)", "after_last_success_s", "{:.3f} s"),
    ("client blocked in receive (sum)", "wait_s", "{:.2f} s"),
    ("cyclic GC in the read: full collections (count, seconds)", "full_gc_cell", "{}"),
    ("cyclic GC in the read: all collections", "gc_s", "{:.2f} s"),
]


def table(results: dict[str, dict]) -> str:
    """Return the markdown table of the median-read run of each column."""
    cols = list(results)
    lines = [
        "| per read | " + " | ".join(COLUMNS[c] for c in cols) + " |",
        "| --- | " + " | ".join("---:" for _ in cols) + " |",
    ]
    for label, key, fmt in ROWS:
        cells = []
        for c in cols:
            runs = sorted(results[c], key=lambda r: r["read_s"])
            r = runs[len(runs) // 2]
            r = {
                **r,
                "gap_young_gc_s": r["gap_gc_s"] - r["gap_full_gc_s"],
                "gap_rest_s": r["gap_s"] - r["gap_gc_s"],
                "gap_median_ms": sorted(r["gaps_ms"])[len(r["gaps_ms"]) // 2]
                if r["gaps_ms"]
                else 0.0,
                "full_gc_cell": f"{r['full_gc']} x, {r['full_gc_s']:.2f} s",
            }
            cells.append(fmt.format(r[key]))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rounds(args: argparse.Namespace) -> None:
    """Run the columns in alternating rounds, each in its own process; print the table."""
    pythons = {
        "floor": ROOT / ".venv" / "bin" / "python",
        "boltcodec": ROOT / ".venv" / "bin" / "python",
        "rustext": args.rustext,
    }
    cols = [c for c in ("floor", "boltcodec", "rustext") if pythons[c].exists()]
    results: dict[str, list] = {c: [] for c in cols}
    load = [os.getloadavg()[0]]
    extra = ["--scalars", str(args.scalars)] if args.scalars else ["--nodes", str(args.nodes)]
    for r in range(args.rounds):
        for c in cols:
            out = subprocess.run(
                [str(pythons[c]), __file__, "--column", c, "--json", *extra],
                capture_output=True,
                text=True,
                check=True,
                timeout=1800,
            ).stdout
            res = json.loads(out.strip().splitlines()[-1])
            results[c].append(res)
            load.append(res["load"])
            sys.stderr.write(
                f"round {r + 1}/{args.rounds} {c:<10} read {res['read_s']:6.2f} s  "
                f"server {res['server_s']:5.2f} s  idle gap {res['gap_s']:5.2f} s "
                f"(full GC {res['gap_full_gc_s']:5.2f} s)  load {res['load']:.1f}\n"
            )
    text = (
        f"Median read of {args.rounds} alternating rounds per column (each in its own "
        f"process, traced), load average {min(load):.1f}-{max(load):.1f}:\n\n" + table(results)
    )
    print(text)
    if args.update:
        update(args.update, text)


def update(path: Path, text: str) -> None:
    """Put ``text`` between the markers in ``path`` (which must have them)."""
    old = path.read_text(encoding="utf-8")
    if START not in old or END not in old:
        raise SystemExit(f"read_gaps: {path} has no {START} ... {END} markers")
    head, rest = old.split(START, 1)
    path.write_text(head + f"{START}\n{text}\n{END}" + rest.split(END, 1)[1], encoding="utf-8")


def main() -> None:
    """Trace one column (``--column``) or run the columns in rounds and print the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--column", choices=tuple(COLUMNS))
    ap.add_argument("--rounds", type=int, default=3, help="without --column: rounds to run")
    ap.add_argument("--rustext", type=Path, default=ROOT / ".venv-rustext" / "bin" / "python")
    ap.add_argument("--scalars", type=int, default=0)
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--update", type=Path, help="write the table between the markers in FILE")
    ap.add_argument("--batches", action="store_true", help="also print every PULL batch")
    args = ap.parse_args()
    if args.column is None:
        rounds(args)
    else:
        trace_one(args)


def trace_one(args: argparse.Namespace) -> None:
    """Run one column's workload in this process, traced; print what analyse() found."""
    mode = {"pure": "off", "boltcodec": "on"}.get(args.column)
    if mode is not None and os.environ.get("BOLTCODEC_NEO4J", "on") != mode:
        # The drop-in's mode is read at interpreter start-up: run again with it set.
        env = {**os.environ, "BOLTCODEC_NEO4J": mode}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

    socket.socket = TracedSocket  # before the driver (or the floor) makes its socket
    spec = importlib.util.spec_from_file_location("demo_workload", WORKLOAD)
    workload = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(workload)
    stopwatch = workload.Stopwatch

    class TracedStopwatch(stopwatch):
        def __enter__(self):
            self._t0 = now()
            return super().__enter__()

        def __exit__(self, *exc):
            super().__exit__(*exc)
            EVENTS.append(("read", self._t0, now(), None))

    workload.Stopwatch = TracedStopwatch
    argv = ["--run", "gaps", "--nodes", str(args.nodes)]
    if args.scalars:
        argv = ["--scalars", str(args.scalars)]
    if args.column == "floor":
        argv.append("--floor")
    gc.callbacks.append(_gc_callback)
    saved = sys.stdout
    sys.argv = [str(WORKLOAD), *argv]
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (the workload's JSON line)
        workload.main()
    finally:
        sys.stdout.close()
        sys.stdout = saved
        gc.callbacks.remove(_gc_callback)
    res = analyse(EVENTS)
    res["column"] = args.column
    res["load"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(res))
        return
    gaps = sorted(res.pop("gaps_ms"))
    batches = res.pop("batches")
    if args.batches:
        for i, b in enumerate(batches):
            print(i, " ".join(f"{k}={v}" for k, v in b.items()))
    for k, v in res.items():
        print(f"{k:>22}: {v:.3f}" if isinstance(v, float) else f"{k:>22}: {v}")
    if gaps:
        print(f"{'gap ms (min/median/max)':>22}: {gaps[0]} / {gaps[len(gaps) // 2]} / {gaps[-1]}")


if __name__ == "__main__":
    main()
