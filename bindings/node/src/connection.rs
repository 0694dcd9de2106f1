//! The sans-IO Bolt client connection for JS: `bolt::connection::ClientConnection` with
//! its responses decoded onto the tape (the decoding path of `nativeCodec`), so that a
//! whole read's RECORDs become JS rows in one pass.
//!
//! The core keeps the protocol: handshake, framing, matching responses to requests, the
//! state rules, `bolt_agent` and the 4.4 `utc` patch. This module converts: options in,
//! events and errors out as data (JS throws them as `ConnectionError`).

use bolt::connection::{
    ClientConnection, ConnectionConfig, ConnectionError, Event, ReceivedResponse, ServerState,
};
use bolt::handshake::HandshakeOptions;
use bolt::message::{MessageCodec, MessageError, RequestKind, Response, ResponseKind};
use bolt::BoltVersion;
use napi::bindgen_prelude::{Buffer, BufferSlice};
use napi_derive::napi;
use packstream::{Decoder, ErrorKind};

use crate::decode::{ErrorInfo, NativeOptions};
use crate::tape::{FailedMessage, KeyTable, Shape, Tape};

/// Settings of a `NativeConnection`; every field is optional.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct NativeConnectionOptions {
    /// Versions to accept, newest first (`"5.8"`); default every supported one.
    pub versions: Option<Vec<String>>,
    /// Offer manifest v1 (default true); false sends the legacy proposals only.
    pub manifest: Option<bool>,
    /// The `bolt_agent` product added to a HELLO without one on 5.3+; `""` adds none.
    pub bolt_agent: Option<String>,
    /// Ask for the `utc` patch on 4.4 (default true).
    pub utc_patch: Option<bool>,
    /// Largest chunk written (default 65535).
    pub max_chunk_size: Option<u32>,
    /// Decoding limits of received messages.
    pub decode: Option<NativeOptions>,
}

/// One entry of the event list of a `receive`.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct NativeEvent {
    /// `negotiated`, `records`, `success`, `failure` or `ignored`.
    pub kind: String,
    /// The request a summary answers (`RUN`, `PULL`, …).
    pub request: Option<String>,
    /// The negotiated version (`negotiated`).
    pub version: Option<String>,
    /// How many tape messages the event takes: the rows of `records`, 1 for SUCCESS and
    /// FAILURE (their metadata map), 0 for `ignored` and `negotiated`.
    pub count: u32,
    /// `has_more` of a PULL/DISCARD SUCCESS.
    pub has_more: Option<bool>,
    /// FAILURE: `neo4j_code` or `code`.
    pub code: Option<String>,
    /// FAILURE: the message.
    pub message: Option<String>,
}

impl NativeEvent {
    fn new(kind: &str, count: u32) -> Self {
        NativeEvent {
            kind: kind.to_owned(),
            request: None,
            version: None,
            count,
            has_more: None,
            code: None,
            message: None,
        }
    }
}

/// A core error as data: kind and offsets through `packstream::ErrorInfo`.
pub(crate) fn error_info<E: packstream::ErrorInfo>(
    e: &E,
    message_offset: Option<u64>,
) -> ErrorInfo {
    ErrorInfo {
        kind: e.kind_name().to_owned(),
        offset: e.byte_offset().map_or(-1.0, |o| o as f64),
        message_offset: message_offset.map_or(-1.0, |o| o as f64),
        message: e.to_string(),
    }
}

/// A connection error as data. For a message that failed to decode, `offset` is the
/// position inside the message and `messageOffset` where the message starts in the
/// stream (counted from the first byte after the handshake reply), as for
/// `BoltcodecError`.
fn connection_error(e: &ConnectionError) -> ErrorInfo {
    match e {
        ConnectionError::Message {
            stream_offset,
            source,
        } => ErrorInfo {
            kind: source.kind().to_owned(),
            offset: source.offset() as f64,
            message_offset: *stream_offset as f64,
            message: e.to_string(),
        },
        ConnectionError::Dechunk(d) => error_info(e, d.message_offset().into()),
        ConnectionError::UnexpectedResponse { stream_offset, .. } => {
            error_info(e, Some(*stream_offset))
        }
        _ => error_info(e, None),
    }
}

/// A caller error (bad version string, bad options) as data.
pub(crate) fn usage_error(kind: &str, message: String) -> ErrorInfo {
    ErrorInfo {
        kind: kind.to_owned(),
        offset: -1.0,
        message_offset: -1.0,
        message,
    }
}

/// Parses version strings; unknown ones are an error naming them.
pub(crate) fn parse_versions(versions: &[String]) -> Result<Vec<BoltVersion>, ErrorInfo> {
    versions
        .iter()
        .map(|s| {
            s.parse::<BoltVersion>()
                .map_err(|e| usage_error("bad_version", format!("version {s:?}: {e}")))
        })
        .collect()
}

/// The core's handshake options from the JS arguments (version strings; `None`: every
/// supported version): one reading of `versions` and `manifest` for both roles. An
/// unparsable string, an empty list or an unknown version is an error.
pub(crate) fn handshake_options(
    versions: Option<&[String]>,
    manifest: bool,
) -> Result<HandshakeOptions, ErrorInfo> {
    let list = versions.map(parse_versions).transpose()?;
    HandshakeOptions::new(list.as_deref(), manifest).map_err(|e| error_info(&e, None))
}

fn state_name(s: ServerState) -> String {
    s.to_string()
}

/// The core's request kind by protocol name.
pub(crate) fn request_kind(name: &str) -> Option<RequestKind> {
    RequestKind::ALL.iter().copied().find(|k| k.name() == name)
}

/// The client side of one Bolt connection (see `ClientConnection` in JS).
#[napi]
pub struct NativeConnection {
    conn: ClientConnection,
    keys: KeyTable,
    tape: Tape,
    events: Vec<NativeEvent>,
    error: Option<ErrorInfo>,
}

#[napi]
impl NativeConnection {
    /// A connection whose handshake bytes are ready in `takeOutput`. Throws for an
    /// unparsable or unknown version, an empty version list or a `maxChunkSize` outside
    /// 1…65535.
    #[napi(constructor)]
    pub fn new(options: Option<NativeConnectionOptions>) -> napi::Result<Self> {
        let o = options.unwrap_or_default();
        let handshake = handshake_options(o.versions.as_deref(), o.manifest.unwrap_or(true))
            .map_err(|e| napi::Error::from_reason(e.message))?
            .client();
        let decode = o.decode.unwrap_or_default();
        let mut config = ConnectionConfig {
            handshake,
            dechunk_limits: decode.dechunk_limits(),
            decode_limits: decode.decode_options().limits,
            max_chunk_size: match o.max_chunk_size {
                None => 0,
                Some(n @ 1..=65_535) => n as u16,
                Some(n) => {
                    return Err(napi::Error::from_reason(format!(
                        "maxChunkSize must be 1…65535, got {n}"
                    )))
                }
            },
            ..ConnectionConfig::default()
        };
        if let Some(agent) = o.bolt_agent {
            config.bolt_agent = (!agent.is_empty()).then_some(agent);
        }
        if let Some(utc) = o.utc_patch {
            config.request_utc_patch = utc;
        }
        Ok(NativeConnection {
            conn: ClientConnection::new(config),
            keys: KeyTable::default(),
            tape: Tape::default(),
            events: Vec::new(),
            error: None,
        })
    }

    /// Takes every byte waiting to be written to the socket.
    #[napi]
    pub fn take_output(&mut self) -> Buffer {
        self.conn.take_output().into()
    }

    /// The negotiated version (`"5.8"`), or null before the handshake is done.
    #[napi]
    pub fn version(&self) -> Option<String> {
        self.conn.version().map(|v| v.to_string())
    }

    /// The server's state as of the responses received (`READY`, `STREAMING`, …).
    #[napi]
    pub fn state(&self) -> String {
        state_name(self.conn.state())
    }

    /// How many requests await their summary.
    #[napi]
    pub fn pending_requests(&self) -> u32 {
        self.conn.pending_requests() as u32
    }

    /// Whether the request type (`"RUN"`) may be sent now.
    #[napi]
    pub fn can_send(&self, kind: String) -> bool {
        request_kind(&kind).is_some_and(|k| self.conn.can_send(k))
    }

    /// Builds the request `kind` from its packed options (a PackStream map written by the
    /// JS encoder) and queues it. Returns the error as data (nothing is queued then).
    #[napi]
    pub fn send(&mut self, kind: String, options: BufferSlice<'_>) -> Option<ErrorInfo> {
        let Some(version) = self.conn.version() else {
            let e =
                ConnectionError::NotNegotiated(request_kind(&kind).map_or("request", |k| k.name()));
            return Some(connection_error(&e));
        };
        match crate::messages::build(&kind, &options, version) {
            Ok(request) => self.conn.send(&request).err().map(|e| connection_error(&e)),
            Err(bad) => Some(usage_error("bad_request", bad.0)),
        }
    }

    /// Feeds bytes read from the socket: decodes every response they complete onto the
    /// tape (RECORDs as their field lists, summaries whole) and copies it into `out` (as
    /// `codecDecodeFrames` does: the byte length, or minus the size needed). The events are in
    /// `events()`, a receive error in `error()`; the events before an error are kept.
    #[napi]
    pub fn receive(&mut self, input: BufferSlice<'_>, out: BufferSlice<'_>) -> i64 {
        self.tape.start(&self.keys);
        self.events.clear();
        let (tape, keys) = (&mut self.tape, &mut self.keys);
        let result = self.conn.receive_with(&input, &mut |m| {
            let failed = tape.errors.len();
            match m.kind {
                ResponseKind::Record => {
                    let mut dec = Decoder::with_options(m.bytes, m.options);
                    tape.received(m.bytes, m.stream_offset, &mut dec, keys, Shape::Record);
                    if tape.errors.len() > failed {
                        return Err(record_error(m, &tape.errors[failed]));
                    }
                }
                ResponseKind::Ignored => {}
                _ => {
                    // SUCCESS / FAILURE: the connection has decoded the message (one
                    // field, the metadata map); only that map goes on the tape, so that
                    // no `hydrate` hook sees the message structure itself.
                    let metadata = m.body();
                    let mut dec = Decoder::with_options(metadata, m.options);
                    tape.received(metadata, m.stream_offset, &mut dec, keys, Shape::Any);
                }
            }
            Ok(())
        });
        self.error = result.err().map(|e| connection_error(&e));
        self.events = std::iter::from_fn(|| self.conn.poll_event())
            .map(native_event)
            .collect();
        self.copy_out(out)
    }

    /// The events of the last `receive`.
    #[napi]
    pub fn events(&self) -> Vec<NativeEvent> {
        self.events.clone()
    }

    /// The error of the last `receive`, if it failed (the connection is then defunct).
    #[napi]
    pub fn error(&self) -> Option<ErrorInfo> {
        self.error.clone()
    }

    /// Copies the last tape into `out` again, after `receive` said it was too small.
    #[napi]
    pub fn copy_out(&mut self, mut out: BufferSlice<'_>) -> i64 {
        let len = self.tape.out_len() as i64;
        if self.tape.write_out(&mut out, 0) {
            self.tape.release(4 << 20);
            len
        } else {
            -len
        }
    }

    /// The interned keys of ids `from` to `to` (exclusive), as `codecKeyStrings`.
    #[napi]
    pub fn key_strings(&self, from: u32, to: u32) -> Vec<String> {
        self.keys.strings(from, to)
    }

    /// The error of the `index`-th failed message of the last tape.
    #[napi]
    pub fn error_info(&self, index: u32) -> Option<ErrorInfo> {
        self.tape.errors.get(index as usize).map(ErrorInfo::from)
    }
}

impl KeyTable {
    /// The keys of ids `from` to `to` (exclusive), for the JS side's key list.
    pub(crate) fn strings(&self, from: u32, to: u32) -> Vec<String> {
        (from..to)
            .map_while(|i| self.get(i as usize).map(str::to_owned))
            .collect()
    }
}

impl From<&FailedMessage> for ErrorInfo {
    fn from(e: &FailedMessage) -> Self {
        ErrorInfo {
            kind: e.kind.to_owned(),
            offset: e.offset as f64,
            message_offset: e.message_offset as f64,
            message: e.message.clone(),
        }
    }
}

/// A core event as the JS side's event: the tape holds the RECORDs of `records` events
/// (as many as `count`) and the metadata of `success` and `failure` ones, in order.
fn native_event(event: Event) -> NativeEvent {
    let mut e = NativeEvent::new("", 1);
    match event {
        Event::Success { request, metadata } => {
            e.kind = "success".to_owned();
            e.request = Some(request.name().to_owned());
            if matches!(request, RequestKind::Pull | RequestKind::Discard) {
                let more = bolt::message::Dict::from_value(&metadata)
                    .map(bolt::message::Success::from_metadata)
                    .is_some_and(|s| s.has_more());
                e.has_more = Some(more);
            }
        }
        Event::Failure {
            request,
            code,
            message,
            ..
        } => {
            e.kind = "failure".to_owned();
            e.request = Some(request.name().to_owned());
            e.code = code;
            e.message = message;
        }
        Event::Ignored { request } => {
            e.kind = "ignored".to_owned();
            e.request = Some(request.name().to_owned());
            e.count = 0;
        }
        Event::Negotiated(v) => {
            e.kind = "negotiated".to_owned();
            e.version = Some(v.to_string());
            e.count = 0;
        }
        Event::RecordsTaken { count } => {
            e.kind = "records".to_owned();
            e.count = u32::try_from(count).unwrap_or(u32::MAX);
        }
        Event::Record(_) => {
            // `receive_with` queues no RECORD events (`RecordsTaken` instead).
            e.kind = "records".to_owned();
            e.count = 0;
        }
    }
    e
}

/// The core's error for a RECORD the tape could not take: decoded again by the core
/// (only a failing message is), which names the problem and its offset in the message;
/// should the core accept it after all, the tape's own kind and offset.
fn record_error(m: &ReceivedResponse<'_>, failed: &FailedMessage) -> MessageError {
    let codec = MessageCodec::new(m.version).with_limits(m.options.limits);
    match codec.decode_response(m.bytes) {
        Err(e) => return e,
        Ok(Response::Record(r)) => {
            if let Err(e) = r.fields() {
                return e;
            }
        }
        Ok(_) => {}
    }
    let kind = ErrorKind::ALL
        .into_iter()
        .find(|k| k.as_str() == failed.kind)
        .unwrap_or(ErrorKind::LimitExceeded);
    MessageError::PackStream(packstream::Error::new(
        kind,
        failed.offset,
        "a decodable RECORD",
    ))
}
