//! The opening handshake (RFC 6455 §4): the client's HTTP/1.1 upgrade request and the
//! server's `101 Switching Protocols` response, both roles, sans-IO.

use super::{base64, sha1};
use crate::handshake::Status;

/// The GUID RFC 6455 §1.3 appends to the key before hashing it.
pub const WS_GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// The largest HTTP head (request or response line, headers and the empty line) either
/// role accepts: 64 KiB, Neo4j's limit on the upgrade request (docs/protocol.md §8).
pub const MAX_HEAD_SIZE: usize = 64 * 1024;

/// The longest status reason kept in [`UpgradeError::UnexpectedStatus`].
const MAX_REASON_LEN: usize = 256;

/// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64 of the SHA-1 of the key (as
/// sent, in base64) followed by [`WS_GUID`] (RFC 6455 §4.2.2).
///
/// ```
/// // The example of RFC 6455 §1.3.
/// assert_eq!(
///     bolt::ws::accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
///     "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
/// );
/// ```
#[must_use]
pub fn accept_key(key: &str) -> String {
    let mut input = Vec::with_capacity(key.len() + WS_GUID.len());
    input.extend_from_slice(key.as_bytes());
    input.extend_from_slice(WS_GUID.as_bytes());
    base64::encode(&sha1::sha1(&input))
}

/// A failed opening handshake, or a request that cannot be built. Offsets count bytes
/// of the HTTP head being parsed (its first byte is offset 0).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpgradeError {
    /// An argument for building the request is unusable (it would break or smuggle HTTP).
    #[error("invalid {argument}: expected {expected}")]
    InvalidArgument {
        /// The argument.
        argument: &'static str,
        /// What it must look like.
        expected: &'static str,
    },
    /// No `\r\n\r\n` within [`MAX_HEAD_SIZE`] bytes (or a request built over that size).
    #[error("byte {offset}: HTTP head longer than {max} bytes")]
    HeadTooLarge {
        /// Where the limit was hit.
        offset: usize,
        /// The limit.
        max: usize,
    },
    /// A malformed status line or request line.
    #[error("byte {offset}: malformed HTTP start line, expected {expected}")]
    MalformedStartLine {
        /// Offset of the first wrong byte.
        offset: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// The server answered with a status other than 101.
    #[error("byte {offset}: expected status 101 Switching Protocols, found {code} {reason:?}")]
    UnexpectedStatus {
        /// Offset of the status code.
        offset: usize,
        /// The status code.
        code: u16,
        /// The reason phrase (at most 256 bytes of it, lossily decoded).
        reason: String,
    },
    /// A header line that is not `name: value` with a token name and no control
    /// characters (line folding included).
    #[error("byte {offset}: malformed header line, expected \"name: value\"")]
    MalformedHeader {
        /// Offset of the line or of the offending byte.
        offset: usize,
    },
    /// A required header is missing.
    #[error("byte {offset}: missing header {name}")]
    MissingHeader {
        /// Offset of the end of the headers.
        offset: usize,
        /// The header.
        name: &'static str,
    },
    /// A header with a wrong value, or repeated where it must be single.
    #[error("byte {offset}: header {name}: expected {expected}")]
    InvalidHeader {
        /// Offset of the value.
        offset: usize,
        /// The header.
        name: &'static str,
        /// What was expected.
        expected: &'static str,
    },
    /// `Sec-WebSocket-Accept` does not match the key sent.
    #[error("byte {offset}: Sec-WebSocket-Accept {found:?}, expected {expected:?}")]
    AcceptMismatch {
        /// Offset of the value.
        offset: usize,
        /// The value the key calls for.
        expected: String,
        /// The value received.
        found: String,
    },
    /// The server selected an extension the client did not offer (it offers none).
    #[error("byte {offset}: the server selected extension {value:?}, the client offered none")]
    UnexpectedExtension {
        /// Offset of the value.
        offset: usize,
        /// The header value.
        value: String,
    },
    /// The server selected a subprotocol the client did not offer (it offers none).
    #[error("byte {offset}: the server selected subprotocol {value:?}, the client offered none")]
    UnexpectedSubprotocol {
        /// Offset of the value.
        offset: usize,
        /// The header value.
        value: String,
    },
    /// The client asked for a WebSocket version other than 13.
    #[error("byte {offset}: Sec-WebSocket-Version {found:?}, expected 13")]
    UnsupportedVersion {
        /// Offset of the value.
        offset: usize,
        /// The version asked for.
        found: String,
    },
    /// `receive` was called after the head was complete.
    #[error("the opening handshake has already finished; the remaining bytes are frames")]
    Finished,
}

packstream::error_kinds! {
    UpgradeError;
    own {
        UpgradeError::InvalidArgument { .. } => "upgrade_invalid_argument",
        UpgradeError::HeadTooLarge { .. } => "upgrade_head_too_large",
        UpgradeError::MalformedStartLine { .. } => "upgrade_malformed_start_line",
        UpgradeError::UnexpectedStatus { .. } => "upgrade_unexpected_status",
        UpgradeError::MalformedHeader { .. } => "upgrade_malformed_header",
        UpgradeError::MissingHeader { .. } => "upgrade_missing_header",
        UpgradeError::InvalidHeader { .. } => "upgrade_invalid_header",
        UpgradeError::AcceptMismatch { .. } => "upgrade_accept_mismatch",
        UpgradeError::UnexpectedExtension { .. } => "upgrade_unexpected_extension",
        UpgradeError::UnexpectedSubprotocol { .. } => "upgrade_unexpected_subprotocol",
        UpgradeError::UnsupportedVersion { .. } => "upgrade_unsupported_version",
        UpgradeError::Finished => "upgrade_finished",
    }
    wrapped {}
}

impl UpgradeError {
    /// Where the error was found, counted from the first byte of the HTTP head being
    /// parsed; `None` for `InvalidArgument` (a request that cannot be built) and
    /// `Finished`.
    #[must_use]
    pub const fn offset(&self) -> Option<usize> {
        match *self {
            UpgradeError::HeadTooLarge { offset, .. }
            | UpgradeError::MalformedStartLine { offset, .. }
            | UpgradeError::UnexpectedStatus { offset, .. }
            | UpgradeError::MalformedHeader { offset }
            | UpgradeError::MissingHeader { offset, .. }
            | UpgradeError::InvalidHeader { offset, .. }
            | UpgradeError::AcceptMismatch { offset, .. }
            | UpgradeError::UnexpectedExtension { offset, .. }
            | UpgradeError::UnexpectedSubprotocol { offset, .. }
            | UpgradeError::UnsupportedVersion { offset, .. } => Some(offset),
            UpgradeError::InvalidArgument { .. } | UpgradeError::Finished => None,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shared parsing
// ---------------------------------------------------------------------------------------

/// Collects an HTTP head up to and including its empty line.
#[derive(Clone, Debug, Default)]
struct HeadBuffer {
    buf: Vec<u8>,
}

impl HeadBuffer {
    /// Buffers `input`; returns how much of it the head used once it is complete. Bytes
    /// are checked against `prefix` (the fixed start of the first line) as they arrive.
    fn push(
        &mut self,
        input: &[u8],
        prefix: &[u8],
        expected: &'static str,
    ) -> Result<Option<usize>, UpgradeError> {
        let before = self.buf.len();
        let take = MAX_HEAD_SIZE.saturating_sub(before).min(input.len());
        self.buf
            .extend_from_slice(input.get(..take).unwrap_or_default());
        let new = self.buf.iter().zip(prefix).enumerate().skip(before);
        for (offset, (got, want)) in new {
            if got != want {
                return Err(UpgradeError::MalformedStartLine { offset, expected });
            }
        }
        let from = before.saturating_sub(3);
        let found = self
            .buf
            .get(from..)
            .and_then(|s| s.windows(4).position(|w| w == b"\r\n\r\n"));
        if let Some(p) = found {
            let end = from + p + 4;
            self.buf.truncate(end);
            return Ok(Some(end.saturating_sub(before)));
        }
        if self.buf.len() >= MAX_HEAD_SIZE {
            return Err(UpgradeError::HeadTooLarge {
                offset: MAX_HEAD_SIZE,
                max: MAX_HEAD_SIZE,
            });
        }
        Ok(None)
    }
}

/// The lines of a complete head, without their CRLF, each with its offset; stops at the
/// empty line.
struct Lines<'a> {
    head: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.head.get(self.pos..)?;
        let end = rest.windows(2).position(|w| w == b"\r\n")?;
        let line = rest.get(..end)?;
        let offset = self.pos;
        self.pos += end + 2;
        if line.is_empty() {
            self.pos = self.head.len();
            return None;
        }
        Some((offset, line))
    }
}

/// A header field.
struct Field<'a> {
    name: &'a [u8],
    value: &'a [u8],
    value_offset: usize,
}

const fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

const fn is_ows(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn trim_ows(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_ows(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_ows(*last) {
            break;
        }
        s = rest;
    }
    s
}

fn parse_field(offset: usize, line: &[u8]) -> Result<Field<'_>, UpgradeError> {
    let malformed = UpgradeError::MalformedHeader { offset };
    let colon = line
        .iter()
        .position(|&b| b == b':')
        .ok_or(malformed.clone())?;
    let (name, rest) = line.split_at(colon);
    if name.is_empty() || !name.iter().all(|&b| is_tchar(b)) {
        return Err(malformed);
    }
    let raw = rest.get(1..).unwrap_or_default();
    if let Some(bad) = raw
        .iter()
        .position(|&b| (b < 0x20 && b != b'\t') || b == 0x7F)
    {
        return Err(UpgradeError::MalformedHeader {
            offset: offset + colon + 1 + bad,
        });
    }
    let leading = raw.iter().take_while(|&&b| is_ows(b)).count();
    Ok(Field {
        name,
        value: trim_ows(raw),
        value_offset: offset + colon + 1 + leading,
    })
}

/// Whether a comma-separated header value holds `token` (ASCII case-insensitive).
fn has_token(value: &[u8], token: &str) -> bool {
    value
        .split(|&b| b == b',')
        .any(|t| trim_ows(t).eq_ignore_ascii_case(token.as_bytes()))
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A header that must carry a token (`Upgrade: websocket`, `Connection: Upgrade`); it
/// may be repeated, and one occurrence holding the token suffices.
#[derive(Default)]
struct TokenHeader {
    first: Option<usize>,
    ok: bool,
}

impl TokenHeader {
    fn see(&mut self, field: &Field<'_>, token: &str) {
        self.first.get_or_insert(field.value_offset);
        self.ok |= has_token(field.value, token);
    }

    fn check(
        &self,
        end: usize,
        name: &'static str,
        expected: &'static str,
    ) -> Result<(), UpgradeError> {
        match self.first {
            None => Err(UpgradeError::MissingHeader { offset: end, name }),
            Some(offset) if !self.ok => Err(UpgradeError::InvalidHeader {
                offset,
                name,
                expected,
            }),
            Some(_) => Ok(()),
        }
    }
}

/// A header that must appear at most once: its value and offset.
fn single<'a>(
    slot: &mut Option<(usize, &'a [u8])>,
    field: &Field<'a>,
    name: &'static str,
) -> Result<(), UpgradeError> {
    if slot.is_some() {
        return Err(UpgradeError::InvalidHeader {
            offset: field.value_offset,
            name,
            expected: "a single occurrence",
        });
    }
    *slot = Some((field.value_offset, field.value));
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Running,
    Finished,
}

// ---------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------

/// The client side of the opening handshake.
///
/// 1. Build it with the `Host` value, the path and a 16-byte key, and send
///    [`ClientUpgrade::request`].
/// 2. Feed the server's bytes to [`ClientUpgrade::receive`] until it returns
///    [`Status::Complete`] with the number of bytes of that input the response used; the
///    bytes after them are already frames.
///
/// The response must be `HTTP/1.1 101`, with `Upgrade: websocket`, `Connection: Upgrade`
/// (ASCII case-insensitive, in any token list) and the right `Sec-WebSocket-Accept`. The
/// client offers no subprotocol and no extension (Neo4j accepts neither,
/// docs/protocol.md §8), so a response selecting one is refused.
///
/// **The key must be random, fresh for every connection** (RFC 6455 §4.1: "a randomly
/// selected 16-byte value"). Being sans-IO, this type does not generate it: take it from
/// the operating system's generator or another good source.
///
/// ```
/// use bolt::handshake::Status;
/// use bolt::ws::ClientUpgrade;
///
/// # fn main() -> Result<(), bolt::ws::UpgradeError> {
/// let key = *b"the sample nonce"; // RFC 6455 §1.3; use random bytes in real code
/// let mut upgrade = ClientUpgrade::new("localhost:7687", "/", key)?;
/// assert!(upgrade.request().starts_with(b"GET / HTTP/1.1\r\nHost: localhost:7687\r\n"));
/// assert_eq!(upgrade.key(), "dGhlIHNhbXBsZSBub25jZQ==");
///
/// let response = b"HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\n\
///     connection: upgrade\r\nsec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\
///     \x82\x04\x00\x00\x08\x05";
/// assert_eq!(upgrade.receive(&response[..20])?, Status::NeedMore);
/// let Status::Complete(used) = upgrade.receive(&response[20..])? else { unreachable!() };
/// assert_eq!(&response[20 + used..], b"\x82\x04\x00\x00\x08\x05"); // the first frame
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ClientUpgrade {
    request: Vec<u8>,
    key: String,
    accept: String,
    head: HeadBuffer,
    phase: Phase,
    error: Option<UpgradeError>,
}

/// Headers the client writes itself (or must not write: it offers no extension or
/// subprotocol).
const RESERVED_HEADERS: [&str; 7] = [
    "host",
    "upgrade",
    "connection",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
    "sec-websocket-protocol",
];

impl ClientUpgrade {
    /// A handshake for `host` (the `Host` header value, with the port unless it is 80 or
    /// 443: `"db.example.com:7687"`) and `path` (Neo4j serves `"/"`), with the random
    /// 16-byte `key`.
    ///
    /// # Errors
    ///
    /// [`UpgradeError::InvalidArgument`] if `host` is empty or holds anything but visible
    /// ASCII (no `/`, `?`, `#`), or `path` does not start with `/` or holds anything
    /// but visible ASCII (no `#`).
    pub fn new(host: &str, path: &str, key: [u8; 16]) -> Result<Self, UpgradeError> {
        let host_ok = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_graphic() && !matches!(b, b'/' | b'?' | b'#'));
        if !host_ok {
            return Err(UpgradeError::InvalidArgument {
                argument: "host",
                expected: "visible ASCII without '/', '?' or '#', such as \"localhost:7687\"",
            });
        }
        let path_ok =
            path.starts_with('/') && path.bytes().all(|b| b.is_ascii_graphic() && b != b'#');
        if !path_ok {
            return Err(UpgradeError::InvalidArgument {
                argument: "path",
                expected: "'/' followed by visible ASCII without '#'",
            });
        }
        let key = base64::encode(&key);
        let accept = accept_key(&key);
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .into_bytes();
        if request.len() > MAX_HEAD_SIZE {
            return Err(UpgradeError::HeadTooLarge {
                offset: request.len(),
                max: MAX_HEAD_SIZE,
            });
        }
        Ok(Self {
            request,
            key,
            accept,
            head: HeadBuffer::default(),
            phase: Phase::Running,
            error: None,
        })
    }

    /// This handshake with one more request header (such as `Origin`, `User-Agent` or
    /// `Authorization` for a proxy).
    ///
    /// # Errors
    ///
    /// [`UpgradeError::InvalidArgument`] if `name` is not an HTTP token or is one of the
    /// headers the handshake writes itself (`Host`, `Upgrade`, `Connection`,
    /// `Sec-WebSocket-*`), or `value` holds control characters or non-ASCII;
    /// [`UpgradeError::HeadTooLarge`] if the request would exceed [`MAX_HEAD_SIZE`].
    pub fn with_header(mut self, name: &str, value: &str) -> Result<Self, UpgradeError> {
        let name_ok = !name.is_empty()
            && name.bytes().all(is_tchar)
            && !RESERVED_HEADERS
                .iter()
                .any(|r| r.eq_ignore_ascii_case(name));
        if !name_ok {
            return Err(UpgradeError::InvalidArgument {
                argument: "header name",
                expected: "an HTTP token other than Host, Upgrade, Connection, Sec-WebSocket-*",
            });
        }
        if !value
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
        {
            return Err(UpgradeError::InvalidArgument {
                argument: "header value",
                expected: "visible ASCII, spaces and tabs",
            });
        }
        let len = self.request.len() + name.len() + value.len() + 4;
        if len > MAX_HEAD_SIZE {
            return Err(UpgradeError::HeadTooLarge {
                offset: len,
                max: MAX_HEAD_SIZE,
            });
        }
        self.request.truncate(self.request.len().saturating_sub(2));
        self.request
            .extend_from_slice(format!("{name}: {value}\r\n\r\n").as_bytes());
        Ok(self)
    }

    /// The request to send.
    #[must_use]
    pub fn request(&self) -> &[u8] {
        &self.request
    }

    /// The `Sec-WebSocket-Key` sent (base64 of the key).
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The `Sec-WebSocket-Accept` the server must answer.
    #[must_use]
    pub fn expected_accept(&self) -> &str {
        &self.accept
    }

    /// Feeds bytes of the server's response. Returns [`Status::NeedMore`] until the head
    /// is complete, then `Complete(used)`: the response took `input[..used]`, and
    /// `input[used..]` is the start of the frame stream.
    ///
    /// # Errors
    ///
    /// Any [`UpgradeError`] of a response that refuses or botches the upgrade; afterwards
    /// every call returns it again. [`UpgradeError::Finished`] after completion.
    pub fn receive(&mut self, input: &[u8]) -> Result<Status<usize>, UpgradeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.phase == Phase::Finished {
            return Err(UpgradeError::Finished);
        }
        let result =
            self.head
                .push(input, b"HTTP/1.1 ", "\"HTTP/1.1 \"")
                .and_then(|done| match done {
                    None => Ok(Status::NeedMore),
                    Some(used) => check_response(&self.head.buf, &self.accept)
                        .map(|()| Status::Complete(used)),
                });
        match &result {
            Err(e) => self.error = Some(e.clone()),
            Ok(Status::Complete(_)) => {
                self.phase = Phase::Finished;
                self.head = HeadBuffer::default();
            }
            Ok(Status::NeedMore) => {}
        }
        result
    }
}

/// Checks a complete response head.
fn check_response(head: &[u8], accept: &str) -> Result<(), UpgradeError> {
    let mut lines = Lines { head, pos: 0 };
    let Some((_, status)) = lines.next() else {
        return Err(UpgradeError::MalformedStartLine {
            offset: 0,
            expected: "a status line",
        });
    };
    // "HTTP/1.1 " (checked as it arrived), 3 digits, then the end or " reason".
    let code = match status.get(9..12) {
        Some(&[a, b, c]) if [a, b, c].iter().all(u8::is_ascii_digit) => {
            u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0')
        }
        _ => {
            return Err(UpgradeError::MalformedStartLine {
                offset: 9,
                expected: "a 3-digit status code",
            })
        }
    };
    if !matches!(status.get(12), None | Some(b' ')) {
        return Err(UpgradeError::MalformedStartLine {
            offset: 12,
            expected: "a space after the status code",
        });
    }
    if code != 101 {
        let reason = status.get(13..).unwrap_or_default();
        let reason = reason.get(..MAX_REASON_LEN).unwrap_or(reason);
        return Err(UpgradeError::UnexpectedStatus {
            offset: 9,
            code,
            reason: lossy(reason),
        });
    }
    let mut upgrade = TokenHeader::default();
    let mut connection = TokenHeader::default();
    let mut found_accept = None;
    for (offset, line) in lines {
        let field = parse_field(offset, line)?;
        let name = field.name;
        if name.eq_ignore_ascii_case(b"upgrade") {
            upgrade.see(&field, "websocket");
        } else if name.eq_ignore_ascii_case(b"connection") {
            connection.see(&field, "upgrade");
        } else if name.eq_ignore_ascii_case(b"sec-websocket-accept") {
            single(&mut found_accept, &field, "Sec-WebSocket-Accept")?;
        } else if name.eq_ignore_ascii_case(b"sec-websocket-extensions") {
            if !field.value.is_empty() {
                return Err(UpgradeError::UnexpectedExtension {
                    offset: field.value_offset,
                    value: lossy(field.value),
                });
            }
        } else if name.eq_ignore_ascii_case(b"sec-websocket-protocol") && !field.value.is_empty() {
            return Err(UpgradeError::UnexpectedSubprotocol {
                offset: field.value_offset,
                value: lossy(field.value),
            });
        }
    }
    let end = head.len().saturating_sub(2);
    upgrade.check(end, "Upgrade", "\"websocket\"")?;
    connection.check(end, "Connection", "the token \"Upgrade\"")?;
    match found_accept {
        None => Err(UpgradeError::MissingHeader {
            offset: end,
            name: "Sec-WebSocket-Accept",
        }),
        Some((offset, value)) if value != accept.as_bytes() => Err(UpgradeError::AcceptMismatch {
            offset,
            expected: accept.to_owned(),
            found: lossy(value),
        }),
        Some(_) => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------

/// A valid upgrade request, as parsed by [`ServerUpgrade::receive`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpgradeRequest {
    target: String,
    host: String,
    key: String,
    origin: Option<String>,
    protocols: Option<String>,
    extensions: Option<String>,
    used: usize,
}

impl UpgradeRequest {
    /// The request target, normally a path such as `"/"` (Neo4j serves only `"/"`).
    #[must_use]
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The `Host` header.
    #[must_use]
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The `Sec-WebSocket-Key` header (base64 of 16 bytes).
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The `Origin` header, sent by browsers.
    #[must_use]
    pub fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// The subprotocols the client offered (`Sec-WebSocket-Protocol`, comma-joined).
    /// [`UpgradeRequest::response`] selects none of them.
    #[must_use]
    pub fn protocols(&self) -> Option<&str> {
        self.protocols.as_deref()
    }

    /// The extensions the client offered (`Sec-WebSocket-Extensions`, comma-joined).
    /// [`UpgradeRequest::response`] selects none of them.
    #[must_use]
    pub fn extensions(&self) -> Option<&str> {
        self.extensions.as_deref()
    }

    /// How many bytes of the last input the request used; the rest are frames.
    #[must_use]
    pub fn used(&self) -> usize {
        self.used
    }

    /// The `101 Switching Protocols` response accepting the upgrade, with no subprotocol
    /// and no extension.
    #[must_use]
    pub fn response(&self) -> Vec<u8> {
        format!(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Accept: {}\r\n\r\n",
            accept_key(&self.key)
        )
        .into_bytes()
    }
}

/// The server side of the opening handshake (minimal: enough for tests and for simple
/// servers).
///
/// Feed the client's bytes to [`ServerUpgrade::receive`] until it returns the
/// [`UpgradeRequest`]; check its [`target`](UpgradeRequest::target) if you care, send
/// [`UpgradeRequest::response`], and give the bytes after
/// [`used`](UpgradeRequest::used) to the frame decoder. On an error, send
/// [`ServerUpgrade::rejection`] and close.
///
/// The request must be `GET <target> HTTP/1.1` with `Host`, `Upgrade: websocket`,
/// `Connection: Upgrade`, a `Sec-WebSocket-Key` of 16 bytes in base64 and
/// `Sec-WebSocket-Version: 13` (RFC 6455 §4.2.1).
///
/// ```
/// use bolt::handshake::Status;
/// use bolt::ws::{ClientUpgrade, ServerUpgrade};
///
/// # fn main() -> Result<(), bolt::ws::UpgradeError> {
/// let mut client = ClientUpgrade::new("localhost:7687", "/", [7; 16])?;
/// let mut server = ServerUpgrade::new();
/// let Status::Complete(request) = server.receive(client.request())? else { unreachable!() };
/// assert_eq!((request.target(), request.host()), ("/", "localhost:7687"));
/// assert_eq!(client.receive(&request.response())?, Status::Complete(request.response().len()));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ServerUpgrade {
    head: HeadBuffer,
    phase: Phase,
    error: Option<UpgradeError>,
}

impl Default for ServerUpgrade {
    fn default() -> Self {
        Self::new()
    }
}

impl ServerUpgrade {
    /// A server handshake waiting for the request.
    #[must_use]
    pub fn new() -> Self {
        Self {
            head: HeadBuffer::default(),
            phase: Phase::Running,
            error: None,
        }
    }

    /// Feeds bytes of the client's request. Returns [`Status::NeedMore`] until the head
    /// is complete, then the request.
    ///
    /// # Errors
    ///
    /// Any [`UpgradeError`] of a request that is not a valid WebSocket upgrade; afterwards
    /// every call returns it again. [`UpgradeError::Finished`] after completion.
    pub fn receive(&mut self, input: &[u8]) -> Result<Status<UpgradeRequest>, UpgradeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.phase == Phase::Finished {
            return Err(UpgradeError::Finished);
        }
        let result = self
            .head
            .push(input, b"GET ", "\"GET \"")
            .and_then(|done| match done {
                None => Ok(Status::NeedMore),
                Some(used) => parse_request(&self.head.buf, used).map(Status::Complete),
            });
        match &result {
            Err(e) => self.error = Some(e.clone()),
            Ok(Status::Complete(_)) => {
                self.phase = Phase::Finished;
                self.head = HeadBuffer::default();
            }
            Ok(Status::NeedMore) => {}
        }
        result
    }

    /// The response refusing a failed upgrade: `426 Upgrade Required` with
    /// `Sec-WebSocket-Version: 13` for a wrong version, `431` for an oversized head,
    /// `400 Bad Request` otherwise; each closes the connection.
    #[must_use]
    pub fn rejection(error: &UpgradeError) -> Vec<u8> {
        let status = match error {
            UpgradeError::UnsupportedVersion { .. } => {
                "426 Upgrade Required\r\nSec-WebSocket-Version: 13"
            }
            UpgradeError::HeadTooLarge { .. } => "431 Request Header Fields Too Large",
            _ => "400 Bad Request",
        };
        format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes()
    }
}

/// Checks a complete request head.
fn parse_request(head: &[u8], used: usize) -> Result<UpgradeRequest, UpgradeError> {
    let mut lines = Lines { head, pos: 0 };
    let Some((_, line)) = lines.next() else {
        return Err(UpgradeError::MalformedStartLine {
            offset: 0,
            expected: "a request line",
        });
    };
    // "GET " (checked as it arrived), the target, " HTTP/1.1".
    let rest = line.get(4..).unwrap_or_default();
    let target_len = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
    let (target, version) = rest.split_at(target_len);
    if target.is_empty() || !target.iter().all(u8::is_ascii_graphic) {
        return Err(UpgradeError::MalformedStartLine {
            offset: 4,
            expected: "a request target of visible ASCII",
        });
    }
    if version != b" HTTP/1.1" {
        return Err(UpgradeError::MalformedStartLine {
            offset: 4 + target_len,
            expected: "\" HTTP/1.1\" after the target",
        });
    }
    let mut host = None;
    let mut key = None;
    let mut version = None;
    let mut upgrade = TokenHeader::default();
    let mut connection = TokenHeader::default();
    let mut origin = None;
    let mut protocols: Option<Vec<u8>> = None;
    let mut extensions: Option<Vec<u8>> = None;
    let join = |list: &mut Option<Vec<u8>>, value: &[u8]| {
        let list = list.get_or_insert_with(Vec::new);
        if !list.is_empty() {
            list.extend_from_slice(b", ");
        }
        list.extend_from_slice(value);
    };
    for (offset, line) in lines {
        let field = parse_field(offset, line)?;
        let name = field.name;
        if name.eq_ignore_ascii_case(b"host") {
            single(&mut host, &field, "Host")?;
        } else if name.eq_ignore_ascii_case(b"upgrade") {
            upgrade.see(&field, "websocket");
        } else if name.eq_ignore_ascii_case(b"connection") {
            connection.see(&field, "upgrade");
        } else if name.eq_ignore_ascii_case(b"sec-websocket-key") {
            single(&mut key, &field, "Sec-WebSocket-Key")?;
        } else if name.eq_ignore_ascii_case(b"sec-websocket-version") {
            single(&mut version, &field, "Sec-WebSocket-Version")?;
        } else if name.eq_ignore_ascii_case(b"origin") {
            single(&mut origin, &field, "Origin")?;
        } else if name.eq_ignore_ascii_case(b"sec-websocket-protocol") {
            join(&mut protocols, field.value);
        } else if name.eq_ignore_ascii_case(b"sec-websocket-extensions") {
            join(&mut extensions, field.value);
        }
    }
    let end = head.len().saturating_sub(2);
    let missing = |name| UpgradeError::MissingHeader { offset: end, name };
    let (_, host) = host.ok_or_else(|| missing("Host"))?;
    upgrade.check(end, "Upgrade", "\"websocket\"")?;
    connection.check(end, "Connection", "the token \"Upgrade\"")?;
    let (key_offset, key) = key.ok_or_else(|| missing("Sec-WebSocket-Key"))?;
    if base64::decode(key).is_none_or(|k| k.len() != 16) {
        return Err(UpgradeError::InvalidHeader {
            offset: key_offset,
            name: "Sec-WebSocket-Key",
            expected: "16 bytes in base64",
        });
    }
    let (version_offset, version) = version.ok_or_else(|| missing("Sec-WebSocket-Version"))?;
    if version != b"13" {
        return Err(UpgradeError::UnsupportedVersion {
            offset: version_offset,
            found: lossy(version),
        });
    }
    Ok(UpgradeRequest {
        target: lossy(target),
        host: lossy(host),
        key: lossy(key),
        origin: origin.map(|(_, o)| lossy(o)),
        protocols: protocols.map(|p| lossy(&p)),
        extensions: extensions.map(|e| lossy(&e)),
        used,
    })
}
