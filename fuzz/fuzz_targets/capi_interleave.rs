//! The C API (bindings/c, built from the same sources as an rlib: fuzz/capi) called as a
//! C program calls it, with raw pointers: calls on three decoders, two dechunkers and
//! two connections interleaved in the order the input picks, with hostile payloads.
//!
//! Input: a sequence of operations, each `[op] [param] [len: u16 BE] [payload: len
//! bytes]` (missing bytes read as 0, a short payload is what is left). `op % 16` picks
//! the call, `op / 16` the handle.
//!
//! Checks:
//! * no call ever returns `BC_ERR_INTERNAL` (a panic caught at the boundary);
//! * every decode gives what a fresh decoder with the same settings gives on the same
//!   bytes (status; error offset and message; the value, compared re-encoded);
//! * every feed gives what a fresh dechunker fed the whole stream at once gives; every
//!   receive and event what a fresh connection given the same calls gives, with the
//!   bytes received between two other calls fed in one piece;
//!   (one difference is tolerated: after GOODBYE, bytes received once the last awaited
//!   response is in give `BC_ERR_DEFUNCT`, while the same bytes arriving together with
//!   that response are buffered without an error);
//! * after every call, whatever a handle handed out and still documents as valid (the
//!   values of its last successful decode, the messages of its last feed, the current
//!   event) is unchanged: a failed call, or a call on another handle, never touches it;
//! * every accessor, `bc_value_format` and every structure view run on the values (a
//!   bounded number of nodes) without a crash: on demand (op 13), and after a decode or
//!   poll whose `param` has bit 0x20 set (walking everything always halved the speed).
#![no_main]

use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

use boltcodec_capi::bc_status::{self, *};
use boltcodec_capi::connection::*;
use boltcodec_capi::decoder::*;
use boltcodec_capi::encoder::*;
use boltcodec_capi::framing::*;
use boltcodec_capi::handshake::bc_version;
use boltcodec_capi::status::bc_error;
use boltcodec_capi::structs::*;
use boltcodec_capi::value::*;
use libfuzzer_sys::fuzz_target;

/// Asserts that no call reported an internal error (a caught panic).
fn no_panic(st: bc_status) -> bc_status {
    assert_ne!(st, BC_ERR_INTERNAL, "a call panicked");
    st
}

/// Reads the operations off the input.
struct Ops<'a>(&'a [u8]);

impl<'a> Ops<'a> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn bytes(&mut self) -> &'a [u8] {
        let n = usize::from(u16::from_be_bytes([self.u8(), self.u8()])).min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }
}

/// An error record, copied.
type ErrCopy = (bc_status, i64, String);

fn copy_error(e: bc_error) -> ErrCopy {
    let msg = if e.message.is_null() {
        String::new()
    } else {
        // SAFETY: the library's error messages are NUL-terminated and live until the
        // handle's next failing call.
        unsafe { CStr::from_ptr(e.message) }
            .to_string_lossy()
            .into_owned()
    };
    (e.status, e.offset, msg)
}

/// The value re-encoded (its canonical bytes), or None if the encoder refuses it.
///
/// # Safety
/// `v` is a live value.
unsafe fn canonical(enc: *mut bc_encoder, v: *const bc_value) -> Option<Vec<u8>> {
    no_panic(bc_encoder_clear(enc));
    if no_panic(bc_encoder_write_value(enc, v)) != BC_OK {
        return None;
    }
    let mut p = null();
    let mut n = 0usize;
    assert_eq!(bc_encoder_data(enc, &mut p, &mut n), BC_OK);
    Some(std::slice::from_raw_parts(p, n).to_vec())
}

const VERSIONS: [bc_version; 4] = [
    bc_version {
        major: 4,
        minor: 4,
        utc_patch: 0,
        reserved: [0; 5],
        capabilities: 0,
    },
    bc_version {
        major: 5,
        minor: 0,
        utc_patch: 0,
        reserved: [0; 5],
        capabilities: 0,
    },
    bc_version {
        major: 5,
        minor: 8,
        utc_patch: 0,
        reserved: [0; 5],
        capabilities: 0,
    },
    bc_version {
        major: 6,
        minor: 0,
        utc_patch: 0,
        reserved: [0; 5],
        capabilities: 0,
    },
];

/// Runs the formatter on `root`, every accessor on up to 64 of its nodes, and every
/// structure view (read for `VERSIONS[ver % 4]`) on up to 8 structures among them
/// (iteratively): none may crash or panic. (The views convert a structure's whole
/// subtree each time: the bounds keep a run fast.)
///
/// # Safety
/// `root` is a live value.
unsafe fn walk(root: *const bc_value, ver: u8) {
    let mut needed = 0usize;
    no_panic(bc_value_format(root, null(), null_mut(), 0, &mut needed));
    let mut buf = vec![0 as c_char; needed.min(1 << 16)];
    let version = VERSIONS[usize::from(ver % 4)];
    no_panic(bc_value_format(
        root,
        &version,
        buf.as_mut_ptr(),
        buf.len(),
        &mut needed,
    ));
    let mut todo = vec![root];
    let (mut seen, mut structs) = (0, 0);
    while let Some(v) = todo.pop() {
        seen += 1;
        if seen > 64 {
            break;
        }
        let mut n = 0usize;
        no_panic(bc_value_len(v, &mut n));
        let mut i = 0i64;
        no_panic(bc_value_as_int(v, &mut i));
        let mut s: *const c_char = null();
        no_panic(bc_value_as_string(v, &mut s, &mut n));
        match (*v).kind {
            BC_TYPE_LIST | BC_TYPE_STRUCT => {
                for k in 0..(*v).len as usize {
                    let mut c = null();
                    let get = if (*v).kind == BC_TYPE_LIST {
                        bc_value_list_get
                    } else {
                        bc_value_struct_field
                    };
                    assert_eq!(no_panic(get(v, k, &mut c)), BC_OK);
                    todo.push(c);
                }
                structs += usize::from((*v).kind == BC_TYPE_STRUCT);
                if (*v).kind == BC_TYPE_STRUCT && structs <= 8 {
                    {
                        let ver = version;
                        let mut kind = 0;
                        no_panic(bc_value_struct_kind(v, ver, &mut kind));
                        let mut reason = [0 as c_char; 64];
                        no_panic(bc_value_broken_reason(
                            v,
                            ver,
                            reason.as_mut_ptr(),
                            64,
                            null_mut(),
                        ));
                        no_panic(bc_value_as_node(v, ver, &mut std::mem::zeroed()));
                        no_panic(bc_value_as_relationship(v, ver, &mut std::mem::zeroed()));
                        no_panic(bc_value_as_unbound_relationship(
                            v,
                            ver,
                            &mut std::mem::zeroed(),
                        ));
                        let mut path: bc_path = std::mem::zeroed();
                        if no_panic(bc_value_as_path(v, ver, &mut path)) == BC_OK {
                            for k in 0..path.length.min(8) {
                                no_panic(bc_path_get_segment(v, ver, k, &mut std::mem::zeroed()));
                            }
                        }
                        no_panic(bc_value_as_temporal(v, ver, &mut std::mem::zeroed()));
                        no_panic(bc_value_as_point(v, ver, &mut std::mem::zeroed()));
                        let mut vec: bc_vector = std::mem::zeroed();
                        if no_panic(bc_value_as_vector(v, ver, &mut vec)) == BC_OK {
                            let (mut a, mut f) = (0i64, 0f64);
                            no_panic(bc_vector_get_int(&vec, 0, &mut a));
                            no_panic(bc_vector_get_float(&vec, 0, &mut f));
                        }
                        no_panic(bc_value_as_unsupported(v, ver, &mut std::mem::zeroed()));
                    }
                }
            }
            BC_TYPE_MAP => {
                for k in 0..(*v).len as usize {
                    let (mut key, mut klen, mut val) = (null(), 0usize, null());
                    assert_eq!(
                        no_panic(bc_value_map_entry(v, k, &mut key, &mut klen, &mut val)),
                        BC_OK
                    );
                    let mut found = null();
                    assert_eq!(no_panic(bc_value_map_get(v, key, klen, &mut found)), BC_OK);
                    todo.push(val);
                }
            }
            _ => {}
        }
    }
}

/// A decoder, its settings, and what its last successful decode handed out.
struct Dec {
    h: *mut bc_decoder,
    limits: bc_decode_limits,
    flags: u32,
    root: *const bc_value,
    /// The input the values may point into (kept unchanged while they are valid).
    kept: Vec<u8>,
    snapshot: Vec<u8>,
}

/// A dechunker, the stream fed since its last reset, and its last feed's messages.
struct Chunks {
    h: *mut bc_dechunker,
    limits: (usize, u32),
    history: Vec<u8>,
    delivered: usize,
    poisoned: bool,
    messages: Vec<(bc_message, Vec<u8>)>,
    /// The piece the last feed's messages may point into.
    kept: Vec<u8>,
}

/// What a connection was given, in order, for the fresh connection to replay.
enum Step {
    Bytes(Vec<u8>),
    Send(u8),
}

/// A connection, its configuration byte, its calls and its current event.
struct Conn {
    h: *mut bc_connection,
    config: u8,
    log: Vec<Step>,
    polled: usize,
    defunct: bool,
    /// GOODBYE was queued: once its earlier requests are answered the connection is
    /// defunct, and a later receive says so (see the doc comment).
    goodbye: bool,
    current: bc_event,
    current_copy: Option<EventCopy>,
}

type EventCopy = (u8, i32, Option<Vec<u8>>, Option<String>, Option<String>);

/// # Safety
/// `ev` is the current event of a live connection.
unsafe fn copy_event(enc: *mut bc_encoder, ev: &bc_event) -> EventCopy {
    let text =
        |p: *const c_char| (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned());
    let value = if ev.value.is_null() {
        None
    } else {
        canonical(enc, ev.value)
    };
    (ev.kind, ev.request, value, text(ev.code), text(ev.message))
}

unsafe fn new_connection(config: u8) -> *mut bc_connection {
    let mut cfg: bc_connection_config = std::mem::zeroed();
    assert_eq!(bc_connection_config_default(&mut cfg), BC_OK);
    cfg.flags = u32::from(config & 1); // BC_HANDSHAKE_LEGACY
    if config & 2 != 0 {
        cfg.decode_limits.max_depth = 3;
        cfg.decode_limits.max_container_len = 4;
    }
    if config & 4 != 0 {
        cfg.max_message_size = 128;
        cfg.max_chunks = 4;
    }
    let mut c = null_mut();
    assert_eq!(no_panic(bc_connection_new(&cfg, &mut c)), BC_OK);
    drain(c);
    c
}

unsafe fn drain(c: *mut bc_connection) {
    let mut p = null();
    let mut n = 0usize;
    assert_eq!(bc_connection_output(c, &mut p, &mut n), BC_OK);
    assert_eq!(bc_connection_consume_output(c, n), BC_OK);
}

unsafe fn send(c: *mut bc_connection, what: u8) -> bc_status {
    let n = i64::from(what >> 4) - 1;
    let st = match what % 12 {
        0 => bc_connection_send_hello(c, c"fuzz/1.0".as_ptr(), 8, null(), 0),
        1 => bc_connection_send_logon_basic(c, c"neo4j".as_ptr(), 5, c"pw".as_ptr(), 2),
        2 => bc_connection_send_run(c, c"RETURN 1".as_ptr(), 8, null(), 0, null(), 0),
        3 => bc_connection_send_pull(c, n, -1),
        4 => bc_connection_send_discard(c, n, -1),
        5 => bc_connection_send_begin(c, null(), 0),
        6 => bc_connection_send_commit(c),
        7 => bc_connection_send_rollback(c),
        8 => bc_connection_send_reset(c),
        9 => bc_connection_send_goodbye(c),
        // HELLO with a map of extras that may be invalid.
        10 => bc_connection_send_hello(c, c"x".as_ptr(), 1, [0xA1, 0x81, b'k', what].as_ptr(), 4),
        _ => bc_connection_send_message(c, [0xB0, what].as_ptr(), 2),
    };
    if st == BC_OK {
        drain(c);
    }
    no_panic(st)
}

/// A fresh connection given `log` (consecutive byte steps as one receive). Returns it
/// and the status of its last call.
unsafe fn replay(config: u8, log: &[Step]) -> (*mut bc_connection, bc_status) {
    let c = new_connection(config);
    let mut last = BC_OK;
    let mut pending: Vec<u8> = Vec::new();
    let mut pending_any = false;
    for step in log {
        match step {
            Step::Bytes(b) => {
                pending.extend_from_slice(b);
                pending_any = true;
            }
            Step::Send(what) => {
                if pending_any {
                    no_panic(bc_connection_receive(c, pending.as_ptr(), pending.len()));
                    pending.clear();
                    pending_any = false;
                }
                last = send(c, *what);
            }
        }
    }
    if pending_any {
        last = no_panic(bc_connection_receive(c, pending.as_ptr(), pending.len()));
    }
    (c, last)
}

fn conn_error(c: *const bc_connection) -> ErrCopy {
    let mut e: bc_error = unsafe { std::mem::zeroed() };
    // SAFETY: a live connection.
    assert_eq!(unsafe { bc_connection_last_error(c, &mut e) }, BC_OK);
    copy_error(e)
}

fuzz_target!(|data: &[u8]| {
    // SAFETY: every handle is created here and freed at the end; every pointer read is
    // one the library handed out and documents as still valid (the model tracks that).
    unsafe { run(data) }
});

unsafe fn run(data: &[u8]) {
    let mut enc = null_mut();
    assert_eq!(bc_encoder_new(&mut enc), BC_OK);
    assert_eq!(
        bc_encoder_set_options(enc, BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS),
        BC_OK
    );
    let mut decs: Vec<Dec> = (0..3)
        .map(|_| {
            let mut h = null_mut();
            assert_eq!(bc_decoder_new(&mut h), BC_OK);
            let mut limits: bc_decode_limits = std::mem::zeroed();
            assert_eq!(bc_decoder_limits(h, &mut limits), BC_OK);
            Dec {
                h,
                limits,
                flags: 0,
                root: null(),
                kept: Vec::new(),
                snapshot: Vec::new(),
            }
        })
        .collect();
    let mut chs: Vec<Chunks> = (0..2)
        .map(|_| {
            let mut h = null_mut();
            assert_eq!(bc_dechunker_new(&mut h), BC_OK);
            Chunks {
                h,
                limits: (0, 0),
                history: Vec::new(),
                delivered: 0,
                poisoned: false,
                messages: Vec::new(),
                kept: Vec::new(),
            }
        })
        .collect();
    let mut conns: Vec<Conn> = (0..2u8)
        .map(|i| Conn {
            h: new_connection(i),
            config: i,
            log: Vec::new(),
            polled: 0,
            defunct: false,
            goodbye: false,
            current: std::mem::zeroed(),
            current_copy: None,
        })
        .collect();

    let mut ops = Ops(data);
    let mut count = 0;
    while !ops.0.is_empty() && count < 64 {
        count += 1;
        let op = ops.u8();
        let param = ops.u8();
        let payload = ops.bytes();
        let which = usize::from(op / 16);
        match op % 16 {
            0..=3 => {
                let d = &mut decs[which % 3];
                let call = op % 16;
                let input = payload.to_vec();
                // Messages: the payload cut in two at `param`.
                let cut = usize::from(param).min(input.len());
                let parts = [(0, cut), (cut, input.len())];
                let msgs = |base: *const u8| {
                    parts.map(|(a, b)| bc_message {
                        data: base.wrapping_add(a),
                        len: b - a,
                        stream_offset: a as u64,
                        chunk_count: 1,
                        copied: false,
                    })
                };
                let decode = |h: *mut bc_decoder,
                              bytes: &[u8],
                              out: &mut *const bc_value,
                              used: &mut usize| {
                    no_panic(match call {
                        0 => bc_decoder_decode(h, bytes.as_ptr(), bytes.len(), out),
                        1 => bc_decoder_decode_prefix(h, bytes.as_ptr(), bytes.len(), out, used),
                        2 => bc_decoder_decode_all(h, bytes.as_ptr(), bytes.len(), out),
                        _ => bc_decoder_decode_messages(h, msgs(bytes.as_ptr()).as_ptr(), 2, out),
                    })
                };
                let mut fresh = null_mut();
                assert_eq!(bc_decoder_new(&mut fresh), BC_OK);
                assert_eq!(bc_decoder_set_limits(fresh, &d.limits), BC_OK);
                assert_eq!(bc_decoder_set_options(fresh, d.flags), BC_OK);
                let (mut want, mut want_used) = (null(), 0usize);
                let want_st = decode(fresh, &input, &mut want, &mut want_used);
                let (mut got, mut got_used) = (null(), 0usize);
                let got_st = decode(d.h, &input, &mut got, &mut got_used);
                assert_eq!(
                    got_st, want_st,
                    "decode status differs from a fresh decoder's"
                );
                if got_st == BC_OK {
                    let a = canonical(enc, got);
                    assert_eq!(
                        a,
                        canonical(enc, want),
                        "the value differs from a fresh decoder's"
                    );
                    assert_eq!(got_used, want_used);
                    if param & 0x20 != 0 {
                        walk(got, param);
                    }
                    d.root = got;
                    d.snapshot = a.unwrap_or_default();
                    // Zero copy: the values point into `input`, kept with them.
                    d.kept = input;
                } else {
                    let (mut e1, mut e2): (bc_error, bc_error) =
                        (std::mem::zeroed(), std::mem::zeroed());
                    assert_eq!(bc_decoder_last_error(d.h, &mut e1), BC_OK);
                    assert_eq!(bc_decoder_last_error(fresh, &mut e2), BC_OK);
                    assert_eq!(copy_error(e1), copy_error(e2), "decode error differs");
                }
                bc_decoder_free(fresh);
            }
            4 => {
                let d = &mut decs[which % 3];
                d.limits.max_depth = [1, 2, 3, 8, 1024, 100_000][usize::from(param % 6)];
                d.limits.max_container_len = if param & 0x80 != 0 { 2 } else { 0x7FFF_FFFF };
                d.limits.max_string_len = if param & 0x40 != 0 { 3 } else { 0x7FFF_FFFF };
                assert_eq!(bc_decoder_set_limits(d.h, &d.limits), BC_OK);
            }
            5 => {
                let d = &mut decs[which % 3];
                d.flags = u32::from(param % 8);
                assert_eq!(bc_decoder_set_options(d.h, d.flags), BC_OK);
            }
            6 => {
                let d = &mut decs[which % 3];
                assert_eq!(bc_decoder_reset(d.h), BC_OK);
                d.root = null();
                d.kept.clear();
            }
            7 => {
                let c = &mut chs[which % 2];
                let piece = payload.to_vec();
                c.history.extend_from_slice(&piece);
                let mut n = 0usize;
                let st = no_panic(bc_dechunker_feed(c.h, piece.as_ptr(), piece.len(), &mut n));
                c.messages.clear();
                c.kept = piece;
                let mut fresh = null_mut();
                assert_eq!(bc_dechunker_new(&mut fresh), BC_OK);
                assert_eq!(
                    bc_dechunker_set_limits(fresh, c.limits.0, c.limits.1),
                    BC_OK
                );
                let mut want_n = 0usize;
                let want_st =
                    bc_dechunker_feed(fresh, c.history.as_ptr(), c.history.len(), &mut want_n);
                assert_eq!(st, want_st, "feed status differs from a fresh dechunker's");
                if c.poisoned {
                    assert_eq!(n, 0, "a poisoned dechunker delivered messages");
                } else {
                    assert_eq!(
                        c.delivered + n,
                        want_n,
                        "messages differ from a fresh dechunker's"
                    );
                }
                if st != BC_OK {
                    let (mut e1, mut e2): (bc_error, bc_error) =
                        (std::mem::zeroed(), std::mem::zeroed());
                    assert_eq!(bc_dechunker_last_error(c.h, &mut e1), BC_OK);
                    assert_eq!(bc_dechunker_last_error(fresh, &mut e2), BC_OK);
                    assert_eq!(copy_error(e1), copy_error(e2), "feed error differs");
                }
                for k in 0..n {
                    let (mut a, mut b): (bc_message, bc_message) =
                        (std::mem::zeroed(), std::mem::zeroed());
                    assert_eq!(bc_dechunker_message(c.h, k, &mut a), BC_OK);
                    assert_eq!(bc_dechunker_message(fresh, c.delivered + k, &mut b), BC_OK);
                    let bytes = std::slice::from_raw_parts(a.data, a.len).to_vec();
                    assert_eq!(bytes, std::slice::from_raw_parts(b.data, b.len));
                    assert_eq!(
                        (a.stream_offset, a.chunk_count),
                        (b.stream_offset, b.chunk_count)
                    );
                    c.messages.push((a, bytes));
                }
                c.delivered += n;
                c.poisoned |= st != BC_OK;
                bc_dechunker_free(fresh);
                // Decode the messages with a decoder that copies its input, so that its
                // values outlive the next feed.
                if let Some(d) = decs.iter_mut().find(|d| d.flags & BC_OPT_COPY_INPUT != 0) {
                    let list: Vec<bc_message> = c.messages.iter().map(|(m, _)| *m).collect();
                    let mut v = null();
                    if no_panic(bc_decoder_decode_messages(
                        d.h,
                        list.as_ptr(),
                        list.len(),
                        &mut v,
                    )) == BC_OK
                    {
                        if param & 0x20 != 0 {
                            walk(v, param);
                        }
                        d.root = v;
                        d.snapshot = canonical(enc, v).unwrap_or_default();
                        d.kept.clear();
                    }
                }
            }
            8 => {
                let c = &mut chs[which % 2];
                if param & 1 != 0 {
                    c.limits = (usize::from(param >> 1), u32::from(param >> 5));
                    assert_eq!(bc_dechunker_set_limits(c.h, c.limits.0, c.limits.1), BC_OK);
                } else {
                    assert_eq!(bc_dechunker_reset(c.h), BC_OK);
                }
                c.history.clear();
                c.delivered = 0;
                c.poisoned = false;
                c.messages.clear();
            }
            9 | 11 => {
                let c = &mut conns[which % 2];
                let st = if op % 16 == 9 {
                    let piece = payload.to_vec();
                    let st = no_panic(bc_connection_receive(c.h, piece.as_ptr(), piece.len()));
                    c.log.push(Step::Bytes(piece));
                    st
                } else {
                    let st = send(c.h, param);
                    c.log.push(Step::Send(param));
                    st
                };
                if op % 16 == 11 && param % 12 == 9 && st == BC_OK {
                    c.goodbye = true;
                }
                let (fresh, want) = replay(c.config, &c.log);
                // After GOODBYE, bytes that arrive once the last awaited response is in
                // are refused as BC_ERR_DEFUNCT, but buffered when they come in the same
                // receive as that response (a cut-dependence of the core, reported).
                let after_goodbye = c.goodbye && st == BC_ERR_DEFUNCT && op % 16 == 9;
                if !c.defunct && !after_goodbye {
                    assert_eq!(st, want, "status differs from a fresh connection's");
                    if st != BC_OK && op % 16 == 9 {
                        assert_eq!(conn_error(c.h), conn_error(fresh), "receive error differs");
                    }
                }
                c.defunct |= st != BC_OK && op % 16 == 9;
                bc_connection_free(fresh);
            }
            10 => {
                let c = &mut conns[which % 2];
                let mut ev: bc_event = std::mem::zeroed();
                assert_eq!(no_panic(bc_connection_poll_event(c.h, &mut ev)), BC_OK);
                let got = copy_event(enc, &ev);
                let (fresh, _) = replay(c.config, &c.log);
                let mut fev: bc_event = std::mem::zeroed();
                for _ in 0..=c.polled {
                    assert_eq!(bc_connection_poll_event(fresh, &mut fev), BC_OK);
                }
                assert_eq!(
                    got,
                    copy_event(enc, &fev),
                    "event differs from a fresh connection's"
                );
                bc_connection_free(fresh);
                if !ev.value.is_null() && param & 0x20 != 0 {
                    walk(ev.value, param);
                }
                if ev.kind != BC_EVENT_NONE {
                    c.polled += 1;
                }
                c.current = ev;
                c.current_copy = Some(got);
            }
            12 => {
                let c = &mut conns[which % 2];
                bc_connection_free(c.h);
                c.h = new_connection(param);
                c.config = param;
                c.log.clear();
                c.polled = 0;
                c.defunct = false;
                c.goodbye = false;
                c.current = std::mem::zeroed();
                c.current_copy = None;
            }
            _ => {
                // The values still held, walked again (their accessors and views).
                let d = &decs[which % 3];
                if !d.root.is_null() {
                    walk(d.root, param);
                }
            }
        }
        // Nothing handed out earlier and still valid has changed.
        for (i, d) in decs.iter().enumerate() {
            if !d.root.is_null() {
                assert_eq!(
                    canonical(enc, d.root).unwrap_or_default(),
                    d.snapshot,
                    "decoder {i}: the values of its last successful decode changed"
                );
            }
        }
        for (i, c) in chs.iter().enumerate() {
            for (m, bytes) in &c.messages {
                assert_eq!(
                    std::slice::from_raw_parts(m.data, m.len),
                    bytes.as_slice(),
                    "dechunker {i}: a message of its last feed changed"
                );
            }
        }
        for (i, c) in conns.iter().enumerate() {
            if let Some(copy) = &c.current_copy {
                assert_eq!(
                    &copy_event(enc, &c.current),
                    copy,
                    "connection {i}: its current event changed"
                );
            }
        }
    }

    for d in decs {
        bc_decoder_free(d.h);
    }
    for c in chs {
        bc_dechunker_free(c.h);
    }
    for c in conns {
        bc_connection_free(c.h);
    }
    bc_encoder_free(enc);
}
