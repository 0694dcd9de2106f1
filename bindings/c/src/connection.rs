//! `bc_connection`: the sans-IO Bolt client connection. The caller moves bytes between
//! it and a socket; the connection runs the handshake, frames requests, de-chunks and
//! decodes responses, tracks the server state and reports events.

use std::ffi::{c_char, CString};

use bolt::chunk::{DechunkLimits, DEFAULT_MAX_CHUNKS, DEFAULT_MAX_MESSAGE_SIZE};
use bolt::connection::{ClientConnection, ConnectionConfig, Event, ServerState};
use bolt::message::{Begin, Dict, Discard, Hello, Logon, Pull, Request, RequestKind, Run};
use packstream::{DecodeOptions, Decoder, EncodeOptions, Encoder, Value, ValueRef};

use crate::decoder::bc_decode_limits;
use crate::ffi::{self, Handle, Out};
use crate::handshake::{bc_version, options};
use crate::status::{bc_error, bc_status, to_cstring, ErrorState, Failure, Res};
use crate::value::{bc_value, permissive_options, Tree};

/// A request kind: one of the `BC_REQUEST_*` constants (0 means none).
pub type bc_request_kind = i32;
/// No request.
pub const BC_REQUEST_NONE: bc_request_kind = 0;
/// INIT (Bolt 1–2).
pub const BC_REQUEST_INIT: bc_request_kind = 1;
/// HELLO.
pub const BC_REQUEST_HELLO: bc_request_kind = 2;
/// LOGON (5.1+).
pub const BC_REQUEST_LOGON: bc_request_kind = 3;
/// LOGOFF (5.1+).
pub const BC_REQUEST_LOGOFF: bc_request_kind = 4;
/// GOODBYE.
pub const BC_REQUEST_GOODBYE: bc_request_kind = 5;
/// RESET.
pub const BC_REQUEST_RESET: bc_request_kind = 6;
/// ACK_FAILURE (Bolt 1–2).
pub const BC_REQUEST_ACK_FAILURE: bc_request_kind = 7;
/// RUN.
pub const BC_REQUEST_RUN: bc_request_kind = 8;
/// BEGIN.
pub const BC_REQUEST_BEGIN: bc_request_kind = 9;
/// COMMIT.
pub const BC_REQUEST_COMMIT: bc_request_kind = 10;
/// ROLLBACK.
pub const BC_REQUEST_ROLLBACK: bc_request_kind = 11;
/// DISCARD (4.0+).
pub const BC_REQUEST_DISCARD: bc_request_kind = 12;
/// DISCARD_ALL (Bolt 1–3).
pub const BC_REQUEST_DISCARD_ALL: bc_request_kind = 13;
/// PULL (4.0+).
pub const BC_REQUEST_PULL: bc_request_kind = 14;
/// PULL_ALL (Bolt 1–3).
pub const BC_REQUEST_PULL_ALL: bc_request_kind = 15;
/// TELEMETRY (5.4+).
pub const BC_REQUEST_TELEMETRY: bc_request_kind = 16;
/// ROUTE (4.3+).
pub const BC_REQUEST_ROUTE: bc_request_kind = 17;

const REQUEST_KINDS: [(RequestKind, bc_request_kind); 17] = [
    (RequestKind::Init, BC_REQUEST_INIT),
    (RequestKind::Hello, BC_REQUEST_HELLO),
    (RequestKind::Logon, BC_REQUEST_LOGON),
    (RequestKind::Logoff, BC_REQUEST_LOGOFF),
    (RequestKind::Goodbye, BC_REQUEST_GOODBYE),
    (RequestKind::Reset, BC_REQUEST_RESET),
    (RequestKind::AckFailure, BC_REQUEST_ACK_FAILURE),
    (RequestKind::Run, BC_REQUEST_RUN),
    (RequestKind::Begin, BC_REQUEST_BEGIN),
    (RequestKind::Commit, BC_REQUEST_COMMIT),
    (RequestKind::Rollback, BC_REQUEST_ROLLBACK),
    (RequestKind::Discard, BC_REQUEST_DISCARD),
    (RequestKind::DiscardAll, BC_REQUEST_DISCARD_ALL),
    (RequestKind::Pull, BC_REQUEST_PULL),
    (RequestKind::PullAll, BC_REQUEST_PULL_ALL),
    (RequestKind::Telemetry, BC_REQUEST_TELEMETRY),
    (RequestKind::Route, BC_REQUEST_ROUTE),
];

fn request_code(kind: RequestKind) -> bc_request_kind {
    REQUEST_KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(BC_REQUEST_NONE, |(_, c)| *c)
}

fn request_kind(code: bc_request_kind) -> Res<RequestKind> {
    REQUEST_KINDS
        .iter()
        .find(|(_, c)| *c == code)
        .map(|(k, _)| *k)
        .ok_or_else(|| ffi::invalid(format!("unknown request kind {code}")))
}

/// The server state as the connection tracks it: one of the `BC_STATE_*` constants.
pub type bc_server_state = u8;
/// The handshake is not finished.
pub const BC_STATE_HANDSHAKE: bc_server_state = 0;
/// Only HELLO is accepted.
pub const BC_STATE_NEGOTIATION: bc_server_state = 1;
/// Only LOGON is accepted (5.1+).
pub const BC_STATE_AUTHENTICATION: bc_server_state = 2;
/// Idle and authenticated.
pub const BC_STATE_READY: bc_server_state = 3;
/// An auto-commit result is open.
pub const BC_STATE_STREAMING: bc_server_state = 4;
/// Inside a transaction with no open result.
pub const BC_STATE_TX_READY: bc_server_state = 5;
/// Inside a transaction with an open result.
pub const BC_STATE_TX_STREAMING: bc_server_state = 6;
/// A request failed; everything is IGNORED until RESET.
pub const BC_STATE_FAILED: bc_server_state = 7;
/// A RESET is on its way.
pub const BC_STATE_INTERRUPTED: bc_server_state = 8;
/// Finished: close the socket.
pub const BC_STATE_DEFUNCT: bc_server_state = 9;

fn state_code(s: ServerState) -> bc_server_state {
    match s {
        ServerState::Handshake => BC_STATE_HANDSHAKE,
        ServerState::Negotiation => BC_STATE_NEGOTIATION,
        ServerState::Authentication => BC_STATE_AUTHENTICATION,
        ServerState::Ready => BC_STATE_READY,
        ServerState::Streaming => BC_STATE_STREAMING,
        ServerState::TxReady => BC_STATE_TX_READY,
        ServerState::TxStreaming => BC_STATE_TX_STREAMING,
        ServerState::Failed => BC_STATE_FAILED,
        ServerState::Interrupted => BC_STATE_INTERRUPTED,
        ServerState::Defunct => BC_STATE_DEFUNCT,
    }
}

/// What an event reports: one of the `BC_EVENT_*` constants.
pub type bc_event_kind = u8;
/// No event is waiting.
pub const BC_EVENT_NONE: bc_event_kind = 0;
/// The handshake agreed on `version`; requests may be sent now.
pub const BC_EVENT_NEGOTIATED: bc_event_kind = 1;
/// `request` succeeded; `value` is the SUCCESS metadata map.
pub const BC_EVENT_SUCCESS: bc_event_kind = 2;
/// One record of the result the front PULL streams; `value` is the list of its fields.
pub const BC_EVENT_RECORD: bc_event_kind = 3;
/// `request` failed; `code`, `message` and the whole metadata map in `value`.
pub const BC_EVENT_FAILURE: bc_event_kind = 4;
/// `request` was ignored (an earlier request failed, or a RESET overtook it).
pub const BC_EVENT_IGNORED: bc_event_kind = 5;

/// One event of a connection. Everything it points to belongs to the connection and is
/// valid until the next `bc_connection_poll_event` or `bc_connection_free`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_event {
    /// A `BC_EVENT_*` constant.
    pub kind: bc_event_kind,
    /// The request this answers (SUCCESS, FAILURE, IGNORED, RECORD: the PULL); else
    /// `BC_REQUEST_NONE`.
    pub request: bc_request_kind,
    /// The negotiated version (`BC_EVENT_NEGOTIATED` only).
    pub version: bc_version,
    /// RECORD: a `BC_TYPE_LIST` of the fields. SUCCESS, FAILURE: the metadata
    /// `BC_TYPE_MAP`. Otherwise NULL.
    pub value: *const bc_value,
    /// FAILURE: the error code (`neo4j_code` from 5.7, else `code`), NUL-terminated; NULL
    /// when absent or for other events.
    pub code: *const c_char,
    /// FAILURE: the error message, NUL-terminated; NULL when absent or for other events.
    pub message: *const c_char,
}

const NO_EVENT: bc_event = bc_event {
    kind: BC_EVENT_NONE,
    request: BC_REQUEST_NONE,
    version: bc_version {
        major: 0,
        minor: 0,
        utc_patch: 0,
        reserved: [0; 5],
        capabilities: 0,
    },
    value: std::ptr::null(),
    code: std::ptr::null(),
    message: std::ptr::null(),
};

/// Settings of a new connection; start from `bc_connection_config_default`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_connection_config {
    /// `BC_HANDSHAKE_LEGACY` to offer the legacy proposals only (no manifest); else 0.
    pub flags: u32,
    /// Largest chunk written; 0 means 65 535.
    pub max_chunk_size: u16,
    /// Largest message accepted from the server, in bytes; 0 means 64 MiB.
    pub max_message_size: usize,
    /// Most chunks per message accepted from the server; 0 means 1 048 576.
    pub max_chunks: u32,
    /// Bounds on every value decoded from the server.
    pub decode_limits: bc_decode_limits,
    /// The versions to accept and offer (`supported_len` entries), as the list of
    /// `bc_client_handshake_new`; NULL (with `supported_len` 0) for every fully supported
    /// version (6.1 … 4.4). A non-NULL list of 0 entries is refused (`BC_ERR_NO_VERSIONS`).
    pub supported: *const bc_version,
    /// Number of entries at `supported`.
    pub supported_len: usize,
}

/// The current event and the memory its pointers refer to.
#[derive(Default)]
struct Current {
    encoded: Vec<u8>,
    tree: Tree,
    code: Option<CString>,
    message: Option<CString>,
}

/// A sans-IO Bolt client connection. Create with `bc_connection_new`, free with
/// `bc_connection_free`. Not thread-safe.
///
/// The loop: write `bc_connection_output` to the socket (then
/// `bc_connection_consume_output` with the count written); feed what the socket reads to
/// `bc_connection_receive`; take events with `bc_connection_poll_event`; queue requests
/// with `bc_connection_send_*` once `BC_EVENT_NEGOTIATED` arrived.
pub struct bc_connection {
    inner: ClientConnection,
    current: Current,
    /// Where the next event is built; it becomes `current` only once complete.
    spare: Current,
    err: ErrorState,
}

impl Handle for bc_connection {
    fn error_state(&mut self) -> &mut ErrorState {
        &mut self.err
    }
}

impl bc_connection {
    fn send(&mut self, request: &Request<'_>) -> Res {
        self.inner.send(request)?;
        Ok(())
    }

    fn options(&self) -> DecodeOptions {
        DecodeOptions::default().with_uuid(self.inner.version().is_some_and(|v| v.has_uuid()))
    }

    /// Replaces the current event with `event` (built aside first: on failure the
    /// previous event stays as it was).
    fn set_current(&mut self, event: Event) -> Res<bc_event> {
        let c = &mut self.spare;
        c.encoded.clear();
        c.tree.clear();
        c.code = None;
        c.message = None;
        let mut out = NO_EVENT;
        let value: Option<Value> = match event {
            Event::Negotiated(v) => {
                out.kind = BC_EVENT_NEGOTIATED;
                out.version = v.into();
                None
            }
            Event::Success { request, metadata } => {
                out.kind = BC_EVENT_SUCCESS;
                out.request = request_code(request);
                Some(metadata)
            }
            Event::Record(fields) => {
                out.kind = BC_EVENT_RECORD;
                out.request = BC_REQUEST_PULL;
                Some(Value::List(fields))
            }
            Event::Failure {
                request,
                code,
                message,
                metadata,
            } => {
                out.kind = BC_EVENT_FAILURE;
                out.request = request_code(request);
                c.code = code.as_deref().map(to_cstring);
                c.message = message.as_deref().map(to_cstring);
                Some(metadata)
            }
            Event::Ignored { request } => {
                out.kind = BC_EVENT_IGNORED;
                out.request = request_code(request);
                None
            }
            // Only `receive_with` queues it; this binding receives with `receive`, which
            // queues an `Event::Record` per RECORD instead.
            Event::RecordsTaken { .. } => None,
        };
        if let Some(v) = value {
            // Encode the owned value once and build the view tree over those bytes, so
            // that the view points into memory the connection owns.
            let all = EncodeOptions {
                legacy_structs: true,
                uuid: true,
            };
            Encoder::with_options(&mut c.encoded, all).write_value(&v)?;
            let mut dec = Decoder::with_options(&c.encoded, permissive_options());
            c.tree.build(&mut dec)?;
            out.value = c.tree.root().unwrap_or(std::ptr::null());
        }
        // Moving the buffers does not move the memory the event points into (the texts'
        // pointers are taken after the move all the same).
        std::mem::swap(&mut self.current, &mut self.spare);
        // The previous event is dead: its memory beyond a bound is freed.
        self.current.tree.trim_scratch();
        self.spare.tree.clear_and_trim();
        self.spare.encoded.clear();
        self.spare.encoded.shrink_to(4 << 20);
        self.spare.code = None;
        self.spare.message = None;
        let c = &self.current;
        out.code = c.code.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        out.message = c.message.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        Ok(out)
    }
}

/// A dict decoded from PackStream map bytes (empty input: an empty dict).
fn dict<'a>(bytes: &'a [u8], opts: &DecodeOptions, what: &str) -> Res<Dict<'a>> {
    if bytes.is_empty() {
        return Ok(Dict::new());
    }
    match ValueRef::decode_exact_with(bytes, opts)?.into_map() {
        Ok(entries) => Ok(Dict::from(entries)),
        Err(other) => Err(Failure::new(
            bc_status::BC_ERR_WRONG_TYPE,
            format!(
                "{what} must be a PackStream map, found {}",
                other.type_name()
            ),
        )),
    }
}

/// UTF-8 text from C.
///
/// # Safety
/// `ptr` is NULL or readable for `len` bytes during `'a`.
unsafe fn text<'a>(ptr: *const c_char, len: usize) -> Res<&'a str> {
    // SAFETY: forwarded contract.
    let bytes = unsafe { ffi::bytes(ptr.cast(), len) }?;
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::at(
            bc_status::BC_ERR_INVALID_UTF8,
            e.valid_up_to() as u64,
            format!("text is not UTF-8: {e}"),
        )
    })
}

/// Writes the defaults into `*out`: manifest handshake, chunks of 65 535 bytes, messages
/// up to 64 MiB in up to 1 048 576 chunks, the default decode limits, every fully
/// supported version.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_config_default(out: *mut bc_connection_config) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        out.set(bc_connection_config {
            flags: 0,
            max_chunk_size: 0,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_chunks: DEFAULT_MAX_CHUNKS,
            decode_limits: packstream::DecodeLimits::default().into(),
            supported: std::ptr::null(),
            supported_len: 0,
        });
        Ok(())
    })
}

/// Creates a connection (`config` NULL: the defaults); `*out` receives it. Its first
/// output, the handshake, is ready at once in `bc_connection_output`. The caller frees it
/// with `bc_connection_free`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_ARGUMENT` (an unknown flag
/// bit); `BC_ERR_NO_VERSIONS`, `BC_ERR_UNKNOWN_VERSION` (the version list, as
/// `bc_client_handshake_new`).
///
/// # Safety
/// `config` is NULL or readable (and its `supported` NULL or readable for
/// `supported_len` versions); `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_new(
    config: *const bc_connection_config,
    out: *mut *mut bc_connection,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (config, out) = unsafe { (config.as_ref().copied(), Out::new(out)?) };
        let inner = match config {
            None => ConnectionConfig::default(),
            Some(c) => {
                // SAFETY: forwarded contract.
                let options = unsafe { options(c.flags, c.supported, c.supported_len) }?;
                // The settings C has, over the core's defaults for any others.
                #[allow(clippy::field_reassign_with_default)]
                {
                    let mut inner = ConnectionConfig::default();
                    inner.handshake = options.client();
                    inner.dechunk_limits = DechunkLimits {
                        max_message_size: if c.max_message_size == 0 {
                            DEFAULT_MAX_MESSAGE_SIZE
                        } else {
                            c.max_message_size
                        },
                        max_chunks: if c.max_chunks == 0 {
                            DEFAULT_MAX_CHUNKS
                        } else {
                            c.max_chunks
                        },
                    };
                    inner.decode_limits = c.decode_limits.into();
                    inner.max_chunk_size = c.max_chunk_size;
                    inner
                }
            }
        };
        ffi::new_handle(
            out,
            bc_connection {
                inner: ClientConnection::new(inner),
                current: Current::default(),
                spare: Current::default(),
                err: ErrorState::default(),
            },
        );
        Ok(())
    })
}

/// Frees a connection. NULL is ignored. (It does not send GOODBYE: queue it with
/// `bc_connection_send_goodbye` and write the output first for a polite close.)
///
/// # Safety
/// `c` is NULL or a connection from `bc_connection_new` not freed before; nothing it
/// handed out may be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_free(c: *mut bc_connection) {
    // SAFETY: forwarded contract.
    unsafe { ffi::free_handle(c) }
}

/// The bytes waiting to be written to the socket: `*ptr` and `*len` (`*len` may be 0).
/// They belong to the connection and stay valid until the next call that changes it
/// (`bc_connection_consume_output`, `bc_connection_receive`, `bc_connection_send_*`,
/// free).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `c` is NULL or a live connection; `ptr` and `len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_output(
    c: *mut bc_connection,
    ptr: *mut *const u8,
    len: *mut usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let (ptr, len) = (Out::new(ptr)?, Out::new(len)?);
            let out = c.inner.output();
            ptr.set(out.as_ptr());
            len.set(out.len());
            Ok(())
        })
    }
}

/// Marks the first `n` bytes of the output as written (after a possibly partial
/// `send()`/`write()`); the rest stays queued.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_OUT_OF_RANGE` (`n` above the output's
/// length; nothing is consumed).
///
/// # Safety
/// `c` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_consume_output(
    c: *mut bc_connection,
    n: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let have = c.inner.output().len();
            if n > have {
                return Err(Failure::new(
                    bc_status::BC_ERR_OUT_OF_RANGE,
                    format!("cannot consume {n} of {have} output bytes"),
                ));
            }
            c.inner.consume_output(n);
            Ok(())
        })
    }
}

/// Feeds bytes read from the socket (any piece of the stream; they are not kept).
/// Events become available through `bc_connection_poll_event`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_HANDSHAKE`,
/// `BC_ERR_NO_COMMON_VERSION` (handshake); `BC_ERR_MESSAGE_TOO_LARGE`,
/// `BC_ERR_TOO_MANY_CHUNKS` (framing); `BC_ERR_PROTOCOL` (an undecodable or unexpected
/// message; offset = its stream offset); `BC_ERR_DEFUNCT` (already defunct). After any
/// error the connection is defunct; events produced before it are still delivered.
///
/// # Safety
/// `c` is NULL or a live connection; `data` is NULL or readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_receive(
    c: *mut bc_connection,
    data: *const u8,
    len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let data = ffi::bytes(data, len)?;
            c.inner.receive(data).map_err(Failure::in_message)?;
            Ok(())
        })
    }
}

/// Takes the next event into `*out`; `out->kind` is `BC_EVENT_NONE` when none is
/// waiting. The event's pointers are valid until the next `bc_connection_poll_event` or
/// `bc_connection_free` (this call invalidates the previous event's).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `c` is NULL or a live connection; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_poll_event(
    c: *mut bc_connection,
    out: *mut bc_event,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let out = Out::new(out)?;
            let event = match c.inner.poll_event() {
                Some(e) => c.set_current(e)?,
                None => {
                    c.current = Current::default();
                    NO_EVENT
                }
            };
            out.set(event);
            Ok(())
        })
    }
}

/// The server state as of the responses received so far (`BC_STATE_INTERRUPTED` while a
/// RESET is outstanding) into `*out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `c` is NULL or a live connection; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_state(
    c: *mut bc_connection,
    out: *mut bc_server_state,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            Out::new(out)?.set(state_code(c.inner.state()));
            Ok(())
        })
    }
}

/// The negotiated version into `*out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_NOT_NEGOTIATED` (handshake not done).
///
/// # Safety
/// `c` is NULL or a live connection; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_version(
    c: *mut bc_connection,
    out: *mut bc_version,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let out = Out::new(out)?;
            let v = c.inner.version().ok_or_else(|| {
                Failure::new(
                    bc_status::BC_ERR_NOT_NEGOTIATED,
                    "the handshake is not done",
                )
            })?;
            out.set(v.into());
            Ok(())
        })
    }
}

/// How many requests await their summary (SUCCESS, FAILURE or IGNORED) into `*out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `c` is NULL or a live connection; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_pending_requests(
    c: *mut bc_connection,
    out: *mut usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            Out::new(out)?.set(c.inner.pending_requests());
            Ok(())
        })
    }
}

/// Whether a request of `kind` (a `BC_REQUEST_*` constant) may be sent now, into
/// `*out`: false before the handshake, when defunct, or when the server could be in a
/// state that rejects it once the queued requests have run.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_ARGUMENT` (unknown kind).
///
/// # Safety
/// `c` is NULL or a live connection; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_can_send(
    c: *mut bc_connection,
    kind: bc_request_kind,
    out: *mut bool,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let out = Out::new(out)?;
            out.set(c.inner.can_send(request_kind(kind)?));
            Ok(())
        })
    }
}

/// Queues a request given as its encoded message (a PackStream structure, for example
/// written with a `bc_encoder`), read as the negotiated version defines it. This reaches
/// every request, including those without a helper below (ROUTE, TELEMETRY, LOGOFF, …).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_NOT_NEGOTIATED`;
/// `BC_ERR_NOT_IN_VERSION` (a request that does not exist in the negotiated version);
/// `BC_ERR_PROTOCOL` (not a request: unknown signature, wrong field count or types, or
/// a decode error); `BC_ERR_ILLEGAL_REQUEST`; `BC_ERR_DEFUNCT`.
/// Nothing is queued on error.
///
/// # Safety
/// `c` is NULL or a live connection; `msg` is NULL or readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_message(
    c: *mut bc_connection,
    msg: *const u8,
    len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let msg = ffi::bytes(msg, len)?;
            if c.inner.state() == ServerState::Defunct {
                return Err(Failure::new(
                    bc_status::BC_ERR_DEFUNCT,
                    "the connection is defunct",
                ));
            }
            let version = c.inner.version().ok_or_else(|| {
                Failure::new(
                    bc_status::BC_ERR_NOT_NEGOTIATED,
                    "the handshake is not done",
                )
            })?;
            let request = bolt::message::MessageCodec::new(version)
                .decode_request(msg)
                .map_err(Failure::in_message)?;
            c.send(&request)
        })
    }
}

/// Queues HELLO with `user_agent` (`ua_len` bytes of UTF-8) and the entries of `extra`
/// (`extra_len` bytes of an encoded PackStream map, or NULL / 0 for none): for example
/// `"routing"`, `"bolt_agent"`, and on Bolt 4.4 and earlier the auth entries.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_UTF8`; a decode error or
/// `BC_ERR_WRONG_TYPE` for a bad `extra`; `BC_ERR_NOT_NEGOTIATED`;
/// `BC_ERR_ILLEGAL_REQUEST`; `BC_ERR_DEFUNCT`.
///
/// # Safety
/// `c` is NULL or a live connection; `user_agent` and `extra` are NULL or readable for
/// their lengths.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_hello(
    c: *mut bc_connection,
    user_agent: *const c_char,
    ua_len: usize,
    extra: *const u8,
    extra_len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let ua = text(user_agent, ua_len)?;
            let opts = c.options();
            let extra = dict(ffi::bytes(extra, extra_len)?, &opts, "HELLO extra")?;
            let mut hello = Hello::new(ua);
            for (k, v) in extra {
                hello = hello.with_extra(k, v);
            }
            c.send(&Request::Hello(hello))
        })
    }
}

/// Queues LOGON (Bolt 5.1+) with the auth map `auth` (`auth_len` bytes of an encoded
/// PackStream map: `"scheme"`, `"principal"`, `"credentials"`, …).
///
/// Statuses: as `bc_connection_send_hello`.
///
/// # Safety
/// `c` is NULL or a live connection; `auth` is NULL or readable for `auth_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_logon(
    c: *mut bc_connection,
    auth: *const u8,
    auth_len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let opts = c.options();
            let auth = dict(ffi::bytes(auth, auth_len)?, &opts, "LOGON auth")?;
            c.send(&Request::Logon(Logon::new(auth)))
        })
    }
}

/// Queues LOGON (Bolt 5.1+) with basic auth: `user` and `password` (UTF-8, with their
/// lengths).
///
/// Statuses: as `bc_connection_send_hello`.
///
/// # Safety
/// `c` is NULL or a live connection; `user` and `password` are NULL or readable for
/// their lengths.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_logon_basic(
    c: *mut bc_connection,
    user: *const c_char,
    user_len: usize,
    password: *const c_char,
    password_len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let (user, password) = (text(user, user_len)?, text(password, password_len)?);
            c.send(&Request::Logon(Logon::basic(user, password)))
        })
    }
}

/// Queues RUN of `query` (`query_len` bytes of UTF-8) with `params` and `extra`
/// (encoded PackStream maps, or NULL / 0 for empty ones; `extra` holds `"db"`,
/// `"bookmarks"`, `"tx_timeout"`, `"mode"`, …).
///
/// Statuses: as `bc_connection_send_hello`.
///
/// # Safety
/// `c` is NULL or a live connection; `query`, `params` and `extra` are NULL or readable
/// for their lengths.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_run(
    c: *mut bc_connection,
    query: *const c_char,
    query_len: usize,
    params: *const u8,
    params_len: usize,
    extra: *const u8,
    extra_len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let query = text(query, query_len)?;
            let opts = c.options();
            let params = dict(ffi::bytes(params, params_len)?, &opts, "RUN parameters")?;
            let extra = dict(ffi::bytes(extra, extra_len)?, &opts, "RUN extra")?;
            let run = Run::new(query)
                .with_parameters(params)
                .with_extra_dict(extra);
            c.send(&Request::Run(run))
        })
    }
}

/// Queues PULL of `n` records (-1: all) from the result `qid` (-1: the last one run).
/// Records arrive as `BC_EVENT_RECORD`, then SUCCESS (its `has_more` says whether to
/// PULL again).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_NOT_NEGOTIATED`;
/// `BC_ERR_ILLEGAL_REQUEST` (no open result); `BC_ERR_NOT_IN_VERSION` (Bolt 3: use
/// `bc_connection_send_message` with PULL_ALL); `BC_ERR_DEFUNCT`.
///
/// # Safety
/// `c` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_pull(
    c: *mut bc_connection,
    n: i64,
    qid: i64,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let pull = if qid == -1 {
                Pull::new(n)
            } else {
                Pull::new(n).with_qid(qid)
            };
            c.send(&Request::Pull(pull))
        })
    }
}

/// Queues DISCARD of `n` records (-1: all) of the result `qid` (-1: the last one run).
///
/// Statuses: as `bc_connection_send_pull`.
///
/// # Safety
/// `c` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_discard(
    c: *mut bc_connection,
    n: i64,
    qid: i64,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let discard = if qid == -1 {
                Discard::new(n)
            } else {
                Discard::new(n).with_qid(qid)
            };
            c.send(&Request::Discard(discard))
        })
    }
}

/// Queues BEGIN with `extra` (an encoded PackStream map or NULL / 0: `"db"`,
/// `"bookmarks"`, `"tx_timeout"`, `"mode"`, …).
///
/// Statuses: as `bc_connection_send_hello`.
///
/// # Safety
/// `c` is NULL or a live connection; `extra` is NULL or readable for `extra_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_begin(
    c: *mut bc_connection,
    extra: *const u8,
    extra_len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(c, |c| {
            let opts = c.options();
            let extra = dict(ffi::bytes(extra, extra_len)?, &opts, "BEGIN extra")?;
            c.send(&Request::Begin(Begin::from_extra(extra)))
        })
    }
}

/// Queues COMMIT.
///
/// Statuses: as `bc_connection_send_pull`.
///
/// # Safety
/// `c` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_commit(c: *mut bc_connection) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(c, |c| c.send(&Request::Commit)) }
}

/// Queues ROLLBACK.
///
/// Statuses: as `bc_connection_send_pull`.
///
/// # Safety
/// `c` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_rollback(c: *mut bc_connection) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(c, |c| c.send(&Request::Rollback)) }
}

/// Queues RESET (clears a failure, interrupts a running result).
///
/// Statuses: as `bc_connection_send_pull`.
///
/// # Safety
/// `c` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_reset(c: *mut bc_connection) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(c, |c| c.send(&Request::Reset)) }
}

/// Queues GOODBYE; the connection is defunct afterwards (write the output, then close
/// the socket).
///
/// Statuses: as `bc_connection_send_pull`.
///
/// # Safety
/// `c` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_send_goodbye(c: *mut bc_connection) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(c, |c| c.send(&Request::Goodbye)) }
}

/// The connection's last error into `*out` (offsets are stream offsets of the bytes
/// received).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `c` is NULL or a live connection; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_connection_last_error(
    c: *const bc_connection,
    out: *mut bc_error,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (c, out) = unsafe { (ffi::handle_ref(c)?, Out::new(out)?) };
        out.set(c.err.to_c());
        Ok(())
    })
}
