//! The status codes every fallible call returns, the per-handle error record, and the
//! one mapping from the core crates' errors (through their `kind()` and `offset()`).

use std::ffi::{c_char, CStr, CString};

use bolt::handshake::HandshakeError;
use packstream::ErrorInfo;

use crate::ffi;

/// The result of every fallible call: `BC_OK` (0) or an error.
///
/// The decode errors (`BC_ERR_UNEXPECTED_END` … `BC_ERR_TRAILING_BYTES`) are the error
/// kinds of the language-neutral test vectors; `bc_status_name` returns their names
/// (`"unexpected_end"`, …). New codes may be added at the end in later versions.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum bc_status {
    /// Success.
    BC_OK = 0,
    /// A required pointer argument was NULL (or a data pointer was NULL with a length
    /// above 0).
    BC_ERR_NULL_POINTER = 1,
    /// An argument is out of its range: an unknown enum value or flag bit, a chunk size
    /// of 0, a length above `PTRDIFF_MAX`, … (an unknown Bolt version is
    /// `BC_ERR_UNKNOWN_VERSION`).
    BC_ERR_INVALID_ARGUMENT = 2,
    /// A value accessor was called on a value of another type (or a typed view on a
    /// structure of another kind).
    BC_ERR_WRONG_TYPE = 3,
    /// An index is beyond the end of a list, map, structure, path or vector.
    BC_ERR_OUT_OF_RANGE = 4,
    /// A map has no entry with that key.
    BC_ERR_NOT_FOUND = 5,
    /// An output buffer is too small; the size needed was reported.
    BC_ERR_BUFFER_TOO_SMALL = 6,
    /// The call does not fit the handle's state (an encoder message not begun, a value
    /// not complete, a handshake already finished, …).
    BC_ERR_INVALID_STATE = 7,
    /// Decode: the input ended before the value did (more bytes may complete it).
    BC_ERR_UNEXPECTED_END = 8,
    /// Decode: a reserved marker byte.
    BC_ERR_RESERVED_MARKER = 9,
    /// A string is not valid UTF-8 (decoding, or a string given to the encoder).
    BC_ERR_INVALID_UTF8 = 10,
    /// A map key is not a string (decoding, or a key written by the encoder).
    BC_ERR_NON_STRING_KEY = 11,
    /// A size above 2 147 483 647, the PackStream maximum (decoding or encoding).
    BC_ERR_SIZE_TOO_LARGE = 12,
    /// Decode: a `bc_decode_limits` bound was exceeded.
    BC_ERR_LIMIT_EXCEEDED = 13,
    /// Decode: bytes were left after the one value expected.
    BC_ERR_TRAILING_BYTES = 14,
    /// Encode: a structure of more than 15 fields without the legacy-structs option.
    BC_ERR_TOO_MANY_FIELDS = 15,
    /// Encode: a UUID without the UUID option (PackStream v2, Bolt 6.1+).
    BC_ERR_UUID_NOT_ENABLED = 16,
    /// Framing: a message of 0 bytes.
    BC_ERR_EMPTY_MESSAGE = 17,
    /// Dechunking: a message above the configured maximum size.
    BC_ERR_MESSAGE_TOO_LARGE = 18,
    /// Dechunking: a message of more chunks than the configured maximum.
    BC_ERR_TOO_MANY_CHUNKS = 19,
    /// Dechunking: the stream ended inside a message.
    BC_ERR_TRUNCATED = 20,
    /// Handshake: the peer's bytes are malformed or name a version that was not offered.
    BC_ERR_HANDSHAKE = 21,
    /// Handshake: the peers have no version in common.
    BC_ERR_NO_COMMON_VERSION = 22,
    /// Connection: a request before the handshake finished.
    BC_ERR_NOT_NEGOTIATED = 23,
    /// Connection: the request is not allowed in a state the server may be in when it
    /// arrives (nothing was queued).
    BC_ERR_ILLEGAL_REQUEST = 24,
    /// The request or structure does not exist in the negotiated Bolt version.
    BC_ERR_NOT_IN_VERSION = 25,
    /// Connection: the server sent a message that cannot be decoded or that no request
    /// asked for. The connection is defunct.
    BC_ERR_PROTOCOL = 26,
    /// Connection: the connection is defunct (after GOODBYE, a failed login or reset, or
    /// any error); close the socket.
    BC_ERR_DEFUNCT = 27,
    /// A Bolt structure with the tag of the requested kind is malformed or not valid in
    /// the version (`bc_value_broken_reason` says why).
    BC_ERR_BROKEN_STRUCT = 28,
    /// An internal error: a panic was caught at the boundary (a bug in boltcodec). The
    /// handle involved should be freed.
    BC_ERR_INTERNAL = 29,
    /// Handshake and connection settings: a version list with no version in it (a
    /// non-NULL pointer with a length of 0; NULL stands for the defaults). Named
    /// `"no_versions"`, the core's error kind.
    BC_ERR_NO_VERSIONS = 30,
    /// A Bolt version the library has no rules for (5.5, 7.0, …; see
    /// `bc_version_is_known`): in the version list of the handshake and connection
    /// settings, or the single version given to the structure views, `bc_value_format`
    /// and the Arrow functions. Named `"unknown_version"`, the core's error kind.
    BC_ERR_UNKNOWN_VERSION = 31,
}

/// The last status value; statuses are `0 ..= BC_STATUS_MAX`.
pub const BC_STATUS_MAX: i32 = 31;

/// The last error recorded on a handle: its status, a message and, where the error has
/// one, a byte offset.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_error {
    /// The status of the call that failed (`BC_OK` if none has failed).
    pub status: bc_status,
    /// The byte offset the error refers to, or -1. Decode errors: offset in the decoded
    /// input; dechunk errors: offset in the stream fed to the dechunker; connection
    /// errors: offset in the server's bytes after its handshake reply (0 is the first byte
    /// of its first message); handshake errors: offset in the peer's handshake bytes.
    pub offset: i64,
    /// A NUL-terminated, human-readable description (never NULL; `""` if none). Owned by
    /// the handle: valid until the next call on that handle that fails, or its reset or
    /// free.
    pub message: *const c_char,
}

/// The error record a handle keeps.
#[derive(Debug)]
pub(crate) struct ErrorState {
    status: bc_status,
    offset: i64,
    message: CString,
}

impl Default for ErrorState {
    fn default() -> Self {
        ErrorState {
            status: bc_status::BC_OK,
            offset: -1,
            message: CString::default(),
        }
    }
}

impl ErrorState {
    /// Records an error and returns its status.
    pub(crate) fn set(&mut self, e: Failure) -> bc_status {
        self.status = e.status;
        self.offset = e.offset;
        self.message = to_cstring(&e.message);
        e.status
    }

    /// Clears the record.
    pub(crate) fn clear(&mut self) {
        *self = ErrorState::default();
    }

    /// The record as C sees it.
    pub(crate) fn to_c(&self) -> bc_error {
        bc_error {
            status: self.status,
            offset: self.offset,
            message: self.message.as_ptr(),
        }
    }
}

/// A C string from any text (an interior NUL is shown as `\0`).
pub(crate) fn to_cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap_or_default()
}

/// An error on its way to C: status, offset (-1 if none) and message.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub(crate) status: bc_status,
    pub(crate) offset: i64,
    pub(crate) message: String,
}

impl Failure {
    /// A failure without an offset.
    pub(crate) fn new(status: bc_status, message: impl Into<String>) -> Self {
        Failure {
            status,
            offset: -1,
            message: message.into(),
        }
    }

    /// A failure at a byte offset.
    pub(crate) fn at(status: bc_status, offset: u64, message: impl Into<String>) -> Self {
        Failure {
            status,
            offset: i64::try_from(offset).unwrap_or(i64::MAX),
            message: message.into(),
        }
    }
}

/// Result type of the internal functions behind the entry points.
pub(crate) type Res<T = ()> = Result<T, Failure>;

/// The status of an error kind: the kind names of the core crates' errors
/// (`tests/vectors/README.md`, "Error kinds"), which every error type returns from
/// `kind()`. The one place the C library maps errors; `None` for a name it does not
/// know (a kind added to the core later), which [`Failure::from`] reports as
/// `BC_ERR_INTERNAL`.
pub(crate) fn kind_status(kind: &str) -> Option<bc_status> {
    use bc_status as S;
    Some(match kind {
        // PackStream decoding: the test vectors' kinds.
        "unexpected_end" => S::BC_ERR_UNEXPECTED_END,
        "reserved_marker" => S::BC_ERR_RESERVED_MARKER,
        "invalid_utf8" => S::BC_ERR_INVALID_UTF8,
        "non_string_key" => S::BC_ERR_NON_STRING_KEY,
        "size_too_large" => S::BC_ERR_SIZE_TOO_LARGE,
        "limit_exceeded" => S::BC_ERR_LIMIT_EXCEEDED,
        "trailing_bytes" => S::BC_ERR_TRAILING_BYTES,
        // Encoding, and arguments out of range.
        "too_many_fields" => S::BC_ERR_TOO_MANY_FIELDS,
        "uuid_not_enabled" => S::BC_ERR_UUID_NOT_ENABLED,
        // The streaming writer: the encoder's calls in an order the declared sizes do
        // not allow.
        "too_many_items" | "too_few_items" | "unfinished" | "nothing_open" => {
            S::BC_ERR_INVALID_STATE
        }
        "invalid_tag" | "invalid_max_chunk_size" | "invalid_version_string" | "schema" => {
            S::BC_ERR_INVALID_ARGUMENT
        }
        // Framing.
        "empty_message" => S::BC_ERR_EMPTY_MESSAGE,
        "message_too_large" => S::BC_ERR_MESSAGE_TOO_LARGE,
        "too_many_chunks" => S::BC_ERR_TOO_MANY_CHUNKS,
        "truncated" => S::BC_ERR_TRUNCATED,
        // Messages: a message that is not what the protocol allows there, or one of
        // another version.
        "not_a_structure"
        | "unknown_signature"
        | "field_count"
        | "field_type"
        | "unexpected_response"
        | "failure"
        | "protocol" => S::BC_ERR_PROTOCOL,
        "not_in_version" | "unrepresentable" => S::BC_ERR_NOT_IN_VERSION,
        // Handshake and connection.
        "handshake_finished" => S::BC_ERR_INVALID_STATE,
        "no_versions" => S::BC_ERR_NO_VERSIONS,
        "unknown_version" => S::BC_ERR_UNKNOWN_VERSION,
        "no_common_version" => S::BC_ERR_NO_COMMON_VERSION,
        "not_negotiated" => S::BC_ERR_NOT_NEGOTIATED,
        "illegal_request" => S::BC_ERR_ILLEGAL_REQUEST,
        "defunct" => S::BC_ERR_DEFUNCT,
        k if HandshakeError::KINDS.contains(&k) => S::BC_ERR_HANDSHAKE,
        // Arrow.
        "type_changed" => S::BC_ERR_WRONG_TYPE,
        "too_large" => S::BC_ERR_SIZE_TOO_LARGE,
        // Bugs in boltcodec: a consistency check, the library misusing a chunker, an
        // Arrow array it could not assemble, a serde message (no serde in the C API).
        "internal" | "invalid_start" | "arrow" | "serde_custom" => S::BC_ERR_INTERNAL,
        _ => return None,
    })
}

/// Every error of the core crates (and of `boltcodec-arrow`) reaches C through here:
/// its status from [`kind_status`] of its `kind()`, its offset from its `offset()`, its
/// message from its `Display`.
impl<E: ErrorInfo> From<E> for Failure {
    fn from(e: E) -> Self {
        let status = kind_status(e.kind_name()).unwrap_or(bc_status::BC_ERR_INTERNAL);
        let message = e.to_string();
        match e.byte_offset() {
            Some(at) => Failure::at(status, at, message),
            None => Failure::new(status, message),
        }
    }
}

impl Failure {
    /// The failure of an error met while decoding a complete message (one the server
    /// sent, or one the caller gave as a message): a PackStream decode error inside it
    /// means that the message is malformed, `BC_ERR_PROTOCOL`. The decode statuses are
    /// for values decoded on their own, where `BC_ERR_UNEXPECTED_END` says "more bytes
    /// may complete it", which a complete message never is. Other kinds (framing,
    /// handshake, a message of another version) keep their own status.
    pub(crate) fn in_message<E: ErrorInfo>(e: E) -> Self {
        let is_decode = <packstream::Error as ErrorInfo>::kinds().contains(&e.kind_name());
        let f = Failure::from(e);
        if is_decode {
            Failure {
                status: bc_status::BC_ERR_PROTOCOL,
                ..f
            }
        } else {
            f
        }
    }
}

/// The name of a status: `"ok"`, `"null_pointer"`, …, and for the decode errors the
/// error kinds of the test vectors (`"unexpected_end"`, `"reserved_marker"`,
/// `"invalid_utf8"`, `"non_string_key"`, `"size_too_large"`, `"limit_exceeded"`,
/// `"trailing_bytes"`).
///
/// Takes any integer: values that are not a status give `"unknown_status"`.
///
/// Returns a static NUL-terminated string (never NULL, never to be freed).
#[no_mangle]
pub extern "C" fn bc_status_name(status: i32) -> *const c_char {
    let name: &'static CStr = ffi::catch(c"unknown_status", || status_name(status));
    name.as_ptr()
}

fn status_name(status: i32) -> &'static CStr {
    match status {
        0 => c"ok",
        1 => c"null_pointer",
        2 => c"invalid_argument",
        3 => c"wrong_type",
        4 => c"out_of_range",
        5 => c"not_found",
        6 => c"buffer_too_small",
        7 => c"invalid_state",
        8 => c"unexpected_end",
        9 => c"reserved_marker",
        10 => c"invalid_utf8",
        11 => c"non_string_key",
        12 => c"size_too_large",
        13 => c"limit_exceeded",
        14 => c"trailing_bytes",
        15 => c"too_many_fields",
        16 => c"uuid_not_enabled",
        17 => c"empty_message",
        18 => c"message_too_large",
        19 => c"too_many_chunks",
        20 => c"truncated",
        21 => c"handshake",
        22 => c"no_common_version",
        23 => c"not_negotiated",
        24 => c"illegal_request",
        25 => c"not_in_version",
        26 => c"protocol",
        27 => c"defunct",
        28 => c"broken_struct",
        29 => c"internal",
        30 => c"no_versions",
        31 => c"unknown_version",
        _ => c"unknown_status",
    }
}

/// The library version, `"MAJOR.MINOR.PATCH"`: a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn bc_library_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"0.0.0",
        };
    VERSION.as_ptr()
}

/// Self-test of the panic guard: panics inside the library and returns what every entry
/// point returns after a caught panic, `BC_ERR_INTERNAL`. No state is touched; the Rust
/// panic hook prints one line to stderr. Test suites call it to check that no panic can
/// cross into C.
#[no_mangle]
pub extern "C" fn bc_selftest_panic() -> bc_status {
    #[allow(clippy::panic)] // the deliberate panic this function exists for
    ffi::guard(|| panic!("bc_selftest_panic: deliberate panic"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bolt::chunk::{ChunkError, DechunkError};
    use bolt::connection::ConnectionError;
    use bolt::handshake::VersionListError;
    use bolt::message::{MessageEncodeError, MessageError, Response};
    use bolt::BoltVersion;
    use packstream::{EncodeError, ErrorKind, ValueRef};

    /// The kinds of every error type that can reach C.
    fn kinds_c_can_meet() -> Vec<&'static str> {
        [
            <packstream::Error as ErrorInfo>::kinds(),
            EncodeError::KINDS,
            packstream::WriteError::KINDS,
            ChunkError::KINDS,
            DechunkError::KINDS,
            MessageError::KINDS,
            MessageEncodeError::KINDS,
            HandshakeError::KINDS,
            VersionListError::KINDS,
            ConnectionError::KINDS,
            bolt_arrow::Error::KINDS,
        ]
        .concat()
    }

    #[test]
    fn every_kind_of_every_error_c_can_meet_has_a_status_of_its_own() {
        for kind in kinds_c_can_meet() {
            assert!(kind_status(kind).is_some(), "{kind} has no status");
        }
        assert_eq!(kind_status("a kind added later"), None);
    }

    #[test]
    fn decode_statuses_are_named_as_the_core_kinds() {
        for kind in ErrorKind::ALL {
            let status = kind_status(kind.as_str()).map(|s| s as i32);
            let name = status.map(|s| status_name(s).to_str().unwrap_or_default());
            assert_eq!(name, Some(kind.as_str()));
        }
    }

    #[test]
    fn a_decode_error_keeps_its_status_and_offset_alone_and_is_a_protocol_error_in_a_message() {
        // [1, 2.0 cut short]
        let bytes = [0x92, 0x01, 0xC1, 0x40];
        let alone = Failure::from(ValueRef::decode(&bytes).unwrap_err());
        assert_eq!(
            (alone.status, alone.offset),
            (bc_status::BC_ERR_UNEXPECTED_END, 2)
        );
        // SUCCESS whose metadata is cut short: the message is complete, so malformed.
        let msg = [0xB1, 0x70, 0xA1, 0x81];
        let err = Response::decode(&msg, BoltVersion::V5_8).unwrap_err();
        let offset = err.offset() as i64;
        let f = Failure::in_message(err);
        assert_eq!((f.status, f.offset), (bc_status::BC_ERR_PROTOCOL, offset));
        // Kinds of other layers keep their status in a message too.
        let f = Failure::in_message(HandshakeError::Finished);
        assert_eq!((f.status, f.offset), (bc_status::BC_ERR_INVALID_STATE, -1));
        let f = Failure::in_message(DechunkError::Truncated {
            offset: 7,
            message_offset: 3,
        });
        assert_eq!((f.status, f.offset), (bc_status::BC_ERR_TRUNCATED, 7));
    }
}
