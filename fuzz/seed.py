#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/.

Sources (nothing is downloaded):
  * tests/vectors/packstream.json: every valid, decode-only and invalid PackStream case;
  * tests/captures/**/*.txt: the raw byte streams of real Neo4j sessions (both
    directions) and every message in them.

Each target reads a few control bytes before its payload (see the target's doc
comment and fuzz/src/lib.rs); the seeds are written in that layout. File names are the
SHA-1 of the content, as libFuzzer names its own finds, so running this again only adds
what is missing. Seeds longer than --max-len bytes are left out (libFuzzer's -max_len
would cut them anyway).

Usage: python3 fuzz/seed.py [--max-len N]
"""

import argparse
import base64
import hashlib
import json
import pathlib
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"

TARGETS = [
    "packstream_decode",
    "packstream_tokens",
    "packstream_serde",
    "dechunk",
    "message_request",
    "message_response",
    "structs",
    "handshake",
    "connection_client",
    "connection_server",
    "roundtrip",
    "websocket",
    "capi_interleave",
    "arrow",
]

# Request names in captures -> the op byte connection_client sends for them.
OPS = {
    "HELLO": 0x00,
    "LOGON": 0x01,
    "RUN": 0x02,
    "PULL": 0x03,
    "DISCARD": 0x04,
    "BEGIN": 0x05,
    "COMMIT": 0x06,
    "ROLLBACK": 0x07,
    "RESET": 0x08,
    "GOODBYE": 0x09,
    "ROUTE": 0x0A,
    "TELEMETRY": 0x0B,
    "LOGOFF": 0x0C,
}

# Index of each capture set's version in fuzz_common::VERSIONS.
VERSION_INDEX = {
    "bolt-6.1": 0,
    "bolt-5.8": 2,
    "bolt-5.0": 9,
    "bolt-4.4": 11,
    "bolt-4.4-no-utc-patch": 10,
}


def parts_bytes(case, key):
    if key in case:
        return bytes.fromhex(case[key])
    parts = case.get(key + "_parts")
    if parts is None:
        return None
    return b"".join(bytes.fromhex(h) * n for h, n in parts)


def vector_seeds():
    data = json.loads((ROOT / "tests" / "vectors" / "packstream.json").read_text())
    for group in ("valid", "decode_only", "invalid"):
        for case in data[group]:
            raw = parts_bytes(case, "hex")
            opts = case.get("options", {})
            flags = (1 if opts.get("uuid") else 0) | (2 if opts.get("legacy_structs") else 0)
            yield flags, raw


def parse_capture(path):
    raw = {"C>S": bytearray(), "S>C": bytearray()}
    messages = []  # (dir, name, offset, bytes)
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        f = line.split()
        if f[0] in raw and len(f) == 3:
            assert int(f[1]) == len(raw[f[0]]), (path, line[:40])
            raw[f[0]] += bytes.fromhex(f[2])
        elif f[0] == "MSG":
            messages.append((f[1], f[3], int(f[4]), bytes.fromhex(f[6] if len(f) > 6 else "")))
    return raw, messages


def capture_seeds():
    for path in sorted((ROOT / "tests" / "captures").rglob("*.txt")):
        raw, messages = parse_capture(path)
        yield path.parent.name, raw, messages


WS_KEY = base64.b64encode(bytes([0x5A] * 16)).decode()
WS_ACCEPT = base64.b64encode(
    hashlib.sha1((WS_KEY + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()
).decode()
WS_REQUEST = (
    "GET / HTTP/1.1\r\nHost: localhost:7687\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: " + WS_KEY + "\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n"
).encode()
WS_RESPONSE = (
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Accept: " + WS_ACCEPT + "\r\n\r\n"
).encode()


def ws_frame(payload, opcode=2, fin=True, mask=None):
    """One RFC 6455 frame; masked (client to server) when `mask` is 4 bytes."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    m = 0x80 if mask else 0
    n = len(payload)
    if n < 126:
        head.append(m | n)
    elif n < 65536:
        head.append(m | 126)
        head += struct.pack(">H", n)
    else:
        head.append(m | 127)
        head += struct.pack(">Q", n)
    if mask:
        head += mask
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes(head) + payload


def ws_seeds(raw):
    """websocket seeds: upgrades, and a session's streams as frames of both roles."""
    mode = lambda part, role: bytes([part | (4 if role == "client" else 0)])  # noqa: E731
    no_cuts = bytes([0])
    yield mode(0, "server") + no_cuts + WS_REQUEST
    yield mode(1, "client") + no_cuts + WS_RESPONSE
    # The server reads the client's frames (masked), the client the server's.
    c2s = b"".join(
        ws_frame(raw["C>S"][i : i + 4000], mask=b"\x01\x02\x03\x04")
        for i in range(0, len(raw["C>S"]), 4000)
    )
    s2c = b"".join(ws_frame(raw["S>C"][i : i + 4000]) for i in range(0, len(raw["S>C"]), 4000))
    for part in (2, 3):
        yield mode(part, "server") + no_cuts + c2s
        yield mode(part, "client") + no_cuts + s2c
    # Control frames, fragments and a close.
    extra = (
        ws_frame(b"ping", opcode=9, mask=b"abcd")
        + ws_frame(b"\x00\x00", opcode=2, fin=False, mask=b"abcd")
        + ws_frame(b"\x00\x02", opcode=0, mask=b"abcd")
        + ws_frame(b"\x03\xe8bye", opcode=8, mask=b"abcd")
    )
    yield mode(2, "server") + no_cuts + extra
    yield mode(3, "server") + no_cuts + extra


def record_fields(msg):
    """The field count of a RECORD message (`B1 71` then the list header), or None."""
    if len(msg) < 3:
        return None
    marker = msg[2]
    if 0x90 <= marker <= 0x9F:
        return marker & 0x0F
    if marker == 0xD4 and len(msg) > 3:
        return msg[3]
    return None


def pull_responses(raw, messages):
    """arrow seeds: each run of RECORDs the server sent and the summary after it, as
    raw chunked bytes, with the first record's field count (0..7, what the target's
    column byte can name)."""
    s2c = [(name, offset) for d, name, offset, _ in messages if d == "S>C"]
    bodies = [msg for d, _, _, msg in messages if d == "S>C"]
    i = 0
    while i < len(s2c):
        if s2c[i][0] != "RECORD" or (i > 0 and s2c[i - 1][0] == "RECORD"):
            i += 1
            continue
        start, columns = s2c[i][1], record_fields(bodies[i])
        j = i
        while j < len(s2c) and s2c[j][0] == "RECORD":
            j += 1
        end = s2c[j + 1][1] if j + 1 < len(s2c) else len(raw["S>C"])
        if columns is not None and columns < 8:
            yield columns, bytes(raw["S>C"][start:end])
        i = j + 1


# capi_interleave: operations `[op] [param] [len u16] [payload]`; op % 16 is the call,
# op // 16 the handle (see the target's doc comment).
CAPI_SEND = {
    "HELLO": 0,
    "LOGON": 1,
    "RUN": 2,
    "PULL": 3,
    "DISCARD": 4,
    "BEGIN": 5,
    "COMMIT": 6,
    "ROLLBACK": 7,
    "RESET": 8,
    "GOODBYE": 9,
}


def capi_op(op, param=0, payload=b""):
    return bytes([op, param]) + struct.pack(">H", len(payload)) + payload


def capi_vector_seed(flags, raw):
    """Decoder 0 with the case's options decodes it; decoder 1 decodes it twice in a row
    (decode_all); the values are walked."""
    return (
        capi_op(0x05, flags)
        + capi_op(0x00, 0, raw)
        + capi_op(0x15, flags)
        + capi_op(0x12, 0, raw + raw)
        + capi_op(0x0D)
        + capi_op(0x1D)
    )


def capi_capture_seed(raw, messages, start, budget):
    """Connection 0 receives the server's handshake reply, sends the captured requests,
    then receives the responses in pieces and polls the events; dechunker 0 is fed the
    same responses (decoded by decoder 0, which copies its input)."""
    sends = [CAPI_SEND[name] for d, name, _, _ in messages if d == "C>S" and name in CAPI_SEND]
    out = capi_op(0x09, 0, raw["S>C"][: min(start, 1000)])
    out += b"".join(capi_op(0x0B, code) for code in sends[:16])
    responses = raw["S>C"][start : start + budget]
    for i in range(0, len(responses), 1000):
        out += capi_op(0x09, 0, responses[i : i + 1000]) + capi_op(0x0A) * 4
    out += capi_op(0x05, 4)
    for i in range(0, len(responses), 1500):
        out += capi_op(0x07, 0, responses[i : i + 1500])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-len", type=int, default=8192)
    args = ap.parse_args()
    seeds = {t: set() for t in TARGETS}

    def add(target, blob):
        if len(blob) <= args.max_len:
            seeds[target].add(bytes(blob))

    for i, (flags, raw) in enumerate(vector_seeds()):
        add("packstream_decode", bytes([flags]) + raw)
        add("packstream_tokens", bytes([flags, i & 0xFF]) + raw)
        add("packstream_serde", bytes([i % 12, flags]) + raw)
        add("packstream_serde", bytes([0, flags]) + raw)
        add("structs", bytes([flags]) + raw)
        add("roundtrip", bytes([0, flags]) + raw)
        if 3 * len(raw) + 24 <= args.max_len:
            add("capi_interleave", capi_vector_seed(flags, raw))

    for set_name, raw, messages in capture_seeds():
        v = VERSION_INDEX.get(set_name, 0)
        firsts = {}
        for direction, name, offset, msg in messages:
            firsts.setdefault(direction, offset)
            if direction == "C>S":
                add("message_request", bytes([0]) + msg)
                add("roundtrip", bytes([1, v]) + msg)
            else:
                add("message_response", bytes([v, 0]) + msg)
                add("roundtrip", bytes([2, v]) + msg)
                if name == "RECORD" and len(msg) > 2:
                    add("structs", bytes([1 if v == 0 else 0]) + msg[2:])
        no_cuts = bytes([0])
        for direction, stream in raw.items():
            start = firsts.get(direction, len(stream))
            add("dechunk", bytes([0, 0]) + no_cuts + stream[start:])
        # The client handshake reads the server's stream; the server handshake the client's.
        add("handshake", bytes([0]) + bytes(18) + no_cuts + raw["S>C"])
        add("handshake", bytes([1]) + bytes(18) + no_cuts + raw["C>S"])
        s2c_start = firsts.get("S>C", len(raw["S>C"]))
        responses = raw["S>C"][s2c_start:]
        add("message_response", bytes([v, 0]) + responses)
        # The client connection: the captured requests as ops, the server's stream cut
        # where the handshake ends, so that the requests go out before the replies arrive.
        ops = [OPS.get(name, 0x08) for d, name, _, _ in messages if d == "C>S"][:8]
        ops += [0x09] * (8 - len(ops))
        cut = bytes([1]) + struct.pack(">H", min(s2c_start, 0xFFFF))
        add("connection_client", bytes([0]) + bytes(ops) + cut + raw["S>C"])
        add("connection_server", bytes([0]) + no_cuts + raw["C>S"])
        for blob in ws_seeds(raw):
            add("websocket", blob)
        budget = max(0, (args.max_len - 2000) // 2)
        add("capi_interleave", capi_capture_seed(raw, messages, s2c_start, budget))
        for columns, response in pull_responses(raw, messages):
            add("arrow", bytes([v, columns, 0]) + response)
            # The same cut in three pieces (two cut points).
            third = len(response) // 3
            add("arrow", bytes([v, columns, 2]) + struct.pack(">HH", third, 2 * third) + response)

    total = 0
    for target, blobs in seeds.items():
        d = CORPUS / target
        d.mkdir(parents=True, exist_ok=True)
        for blob in blobs:
            (d / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
        total += len(blobs)
        print(f"{target}: {len(blobs)} seeds")
    print(f"{total} seeds in {CORPUS.relative_to(ROOT)}/", file=sys.stderr)


if __name__ == "__main__":
    main()
