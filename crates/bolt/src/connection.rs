//! A sans-IO Bolt client connection (and, with the `test-support` feature, a minimal
//! server-side peer for tests).
//!
//! [`ClientConnection`] owns the protocol state of one connection and does no I/O: push
//! the bytes you read from the socket into [`ClientConnection::receive`], send whatever
//! [`ClientConnection::take_output`] returns, and read [`Event`]s from
//! [`ClientConnection::poll_event`]. It
//!
//! * runs the handshake ([`ClientConfig`]: legacy proposals or manifest v1),
//! * frames requests into chunks and de-chunks responses (zero-copy where possible),
//! * lets you pipeline requests and matches every response to its request (FIFO),
//! * tracks the server state (docs/protocol.md §6) and **refuses a request that the server
//!   could reject as a protocol violation** in any state it might be in once the
//!   requests already queued have run, before a byte of it is written,
//! * and gives back-pressure through `PULL {n}`: records arrive batch by batch and the
//!   next batch is only asked for when you send the next PULL.
//!
//! ```
//! use bolt::chunk::Chunker;
//! use bolt::connection::{ClientConnection, ConnectionConfig, Event, ServerState};
//! use bolt::handshake::{ServerConfig, ServerHandshake, Step};
//! use bolt::message::{Hello, Logon, Pull, Record, Request, Response, Run, Success};
//! use bolt::BoltVersion;
//! use packstream::{Value, ValueRef};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut client = ClientConnection::new(ConnectionConfig::default());
//!
//! // Handshake: bytes go back and forth until both sides agree (a `ServerHandshake`
//! // plays the server here).
//! let mut server = ServerHandshake::new(ServerConfig::default());
//! let Step::Continue { send: offer, .. } = server.receive(&client.take_output())? else {
//!     unreachable!()
//! };
//! client.receive(&offer)?;
//! let Step::Negotiated { version, .. } = server.receive(&client.take_output())? else {
//!     unreachable!() // the client's manifest pick
//! };
//! assert_eq!(client.poll_event(), Some(Event::Negotiated(BoltVersion::V6_1)));
//!
//! // Pipeline HELLO, LOGON, RUN and PULL in one write.
//! client.send(&Request::Hello(Hello::new("example/1.0")))?;
//! client.send(&Request::Logon(Logon::basic("neo4j", "secret")))?;
//! client.send(&Request::Run(Run::new("RETURN 1 AS x")))?;
//! client.send(&Request::Pull(Pull::new(100)))?;
//! assert!(!client.take_output().is_empty()); // to the socket
//!
//! // The server answers each in order.
//! let mut reply = Vec::new();
//! for response in [
//!     Response::Success(Success::default()),
//!     Response::Success(Success::default()),
//!     Response::Success(Success::default().with("fields", vec!["x"])),
//!     Response::Record(Record::new(vec![ValueRef::Int(1)])),
//!     Response::Success(Success::default().with("type", "r")),
//! ] {
//!     response.encode_framed(version, &Chunker::default(), &mut reply)?;
//! }
//! client.receive(&reply)?;
//! let events: Vec<Event> = std::iter::from_fn(|| client.poll_event()).collect();
//! assert!(matches!(&events[3], Event::Record(fields) if fields == &[Value::Int(1)]));
//! assert_eq!(client.state(), ServerState::Ready);
//! # Ok(())
//! # }
//! ```
//!
//! With the `test-support` feature, `ServerConnection` plays a minimal server peer in
//! tests.

use std::collections::VecDeque;
use std::fmt;

use packstream::{DecodeLimits, DecodeOptions, Token, Value};

use crate::chunk::{ChunkError, Chunker, DechunkError, DechunkLimits, Dechunker};
use crate::handshake::{ClientConfig, ClientHandshake, HandshakeError, Step};
#[cfg(any(test, feature = "test-support"))]
use crate::handshake::{ServerConfig, ServerHandshake};
use crate::message::{
    BoltAgent, Hello, MessageCodec, MessageEncodeError, MessageError, Request, RequestKind,
    Response, ResponseKind,
};
use crate::version::BoltVersion;

/// The state of the server's side of a connection (docs/protocol.md §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerState {
    /// The handshake is not finished.
    Handshake,
    /// Handshake done; only HELLO (INIT before Bolt 3) is accepted. Called CONNECTED up
    /// to 5.0 and NEGOTIATION from 5.1.
    Negotiation,
    /// HELLO accepted or LOGOFF done (5.1+): only LOGON is accepted.
    Authentication,
    /// Idle and authenticated.
    Ready,
    /// An auto-commit result is open.
    Streaming,
    /// Inside an explicit transaction with no open result.
    TxReady,
    /// Inside an explicit transaction with at least one open result.
    TxStreaming,
    /// A request failed; requests are IGNORED until RESET (or ACK_FAILURE in Bolt 1–2).
    Failed,
    /// A RESET is on its way; everything before it is IGNORED.
    Interrupted,
    /// The connection is finished (GOODBYE, a failed HELLO/LOGON/RESET, or a protocol
    /// error). Close the socket.
    Defunct,
}

impl fmt::Display for ServerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ServerState::Handshake => "HANDSHAKE",
            ServerState::Negotiation => "NEGOTIATION",
            ServerState::Authentication => "AUTHENTICATION",
            ServerState::Ready => "READY",
            ServerState::Streaming => "STREAMING",
            ServerState::TxReady => "TX_READY",
            ServerState::TxStreaming => "TX_STREAMING",
            ServerState::Failed => "FAILED",
            ServerState::Interrupted => "INTERRUPTED",
            ServerState::Defunct => "DEFUNCT",
        })
    }
}

/// Settings of a [`ClientConnection`].
#[derive(Clone, Debug)]
pub struct ConnectionConfig {
    /// What the handshake offers (default: manifest v1, 6.1–6.0, 5.8–5.0, 4.4).
    pub handshake: ClientConfig,
    /// Bounds on incoming messages (size, chunk count).
    pub dechunk_limits: DechunkLimits,
    /// Bounds on decoded values.
    pub decode_limits: DecodeLimits,
    /// Largest chunk written (default 65 535; `0` means the default).
    pub max_chunk_size: u16,
    /// The `bolt_agent` `product` added to a HELLO that has none, on versions that
    /// require one (5.3+, docs/protocol.md §5.3); `platform` and `language` are filled
    /// in from the build. Default `boltcodec/<crate version>`; `None` sends the HELLO as
    /// it is.
    pub bolt_agent: Option<String>,
    /// On 4.3 and 4.4, ask for the `"utc"` patch (`patch_bolt: ["utc"]`) in a HELLO that
    /// names no patches (default `true`). Whether the server accepted it is followed
    /// either way: [`ClientConnection::version`] reports
    /// [`BoltVersion::utc_patch`] from the HELLO's SUCCESS on.
    pub request_utc_patch: bool,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            handshake: ClientConfig::default(),
            dechunk_limits: DechunkLimits::default(),
            decode_limits: DecodeLimits::default(),
            max_chunk_size: 0,
            bolt_agent: Some(concat!("boltcodec/", env!("CARGO_PKG_VERSION")).to_owned()),
            request_utc_patch: true,
        }
    }
}

/// `language` of the `bolt_agent` the connection adds.
const AGENT_LANGUAGE: &str = "Rust";

/// The HELLO to send instead of `request`, when `request` is a HELLO that lacks what the
/// connection adds: `bolt_agent` (`product`) where `v` requires it, `patch_bolt: ["utc"]`
/// on 4.3/4.4 when `utc` (see [`ConnectionConfig`]). `None` sends `request` as it is.
fn completed_hello<'r>(
    request: &Request<'r>,
    v: BoltVersion,
    product: Option<&'r str>,
    platform: &'r str,
    utc: bool,
) -> Option<Hello<'r>> {
    let Request::Hello(hello) = request else {
        return None;
    };
    let agent = product.filter(|_| v.has_bolt_agent() && hello.bolt_agent().is_none());
    let utc = utc && v.supports_utc_patch() && hello.patch_bolt().is_none();
    if agent.is_none() && !utc {
        return None;
    }
    let mut hello = hello.clone();
    if let Some(product) = agent {
        hello = hello.with_bolt_agent(
            BoltAgent::new(product)
                .with_platform(platform)
                .with_language(AGENT_LANGUAGE),
        );
    }
    if utc {
        hello = hello.with_patch_bolt(["utc"]);
    }
    Some(hello)
}

/// What the connection tells its user.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The handshake agreed on this version; requests may be sent now.
    Negotiated(BoltVersion),
    /// A request succeeded. `metadata` is the SUCCESS map.
    Success {
        /// The request it answers.
        request: RequestKind,
        /// The SUCCESS metadata (a map).
        metadata: Value,
    },
    /// One record of the result the front PULL is streaming.
    Record(Vec<Value>),
    /// A request failed.
    Failure {
        /// The request it answers.
        request: RequestKind,
        /// `neo4j_code` (5.7+) or `code`.
        code: Option<String>,
        /// The error message.
        message: Option<String>,
        /// The whole FAILURE metadata (GQL status, cause, …).
        metadata: Value,
    },
    /// A request was ignored because an earlier one failed or a RESET overtook it.
    Ignored {
        /// The request it answers.
        request: RequestKind,
    },
    /// [`ClientConnection::receive_with`] only (where RECORDs queue no
    /// [`Event::Record`]): the next `count` RECORDs handed to its callback, in order,
    /// came here, between the events before and after this one. Consecutive RECORDs make
    /// one event (also across `receive_with` calls while it is not polled yet).
    RecordsTaken {
        /// How many RECORDs.
        count: usize,
    },
}

/// What went wrong on a connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectionError {
    /// The handshake failed.
    #[error("handshake: {0}")]
    Handshake(#[from] HandshakeError),
    /// The server and the client have no version in common.
    #[error("the server accepted none of the offered versions")]
    NoCommonVersion,
    /// Framing of the incoming stream failed.
    #[error("framing: {0}")]
    Dechunk(#[from] DechunkError),
    /// A message could not be decoded.
    #[error("message at stream offset {stream_offset}: {source}")]
    Message {
        /// Offset of the message's first chunk header in the incoming stream.
        stream_offset: u64,
        /// The decode error (its own offset is within the message).
        source: MessageError,
    },
    /// A request could not be encoded.
    #[error("encoding: {0}")]
    Encode(#[from] MessageEncodeError),
    /// A chunk size setting was invalid.
    #[error("chunking: {0}")]
    Chunk(#[from] ChunkError),
    /// A request was sent before the handshake finished.
    #[error("{0} sent before the handshake finished")]
    NotNegotiated(&'static str),
    /// The request is not allowed in a state the server may be in when it arrives.
    #[error("{request} is not allowed in state {state} (Bolt {version})")]
    IllegalRequest {
        /// The request's name.
        request: &'static str,
        /// A state the server may be in when the request arrives.
        state: ServerState,
        /// The negotiated version.
        version: BoltVersion,
    },
    /// The server sent a response that no request asked for.
    #[error("unexpected {response} at stream offset {stream_offset} ({detail})")]
    UnexpectedResponse {
        /// The response's name.
        response: &'static str,
        /// Offset of the message in the incoming stream.
        stream_offset: u64,
        /// Why it was unexpected.
        detail: &'static str,
    },
    /// The connection is defunct; nothing more can be sent or received.
    #[error("the connection is defunct")]
    Defunct,
}

packstream::error_kinds! {
    ConnectionError;
    own {
        ConnectionError::NoCommonVersion => "no_common_version",
        ConnectionError::NotNegotiated(_) => "not_negotiated",
        ConnectionError::IllegalRequest { .. } => "illegal_request",
        ConnectionError::UnexpectedResponse { .. } => "unexpected_response",
        ConnectionError::Defunct => "defunct",
    }
    wrapped {
        ConnectionError::Handshake(e) => e.kind(),
        ConnectionError::Dechunk(e) => e.kind(),
        ConnectionError::Message { source, .. } => source.kind(),
        ConnectionError::Encode(e) => e.kind(),
        ConnectionError::Chunk(e) => e.kind(),
    }
}

impl ConnectionError {
    /// Where in the incoming bytes the error was found, or `None` for errors about what
    /// the caller sent or did:
    ///
    /// * `Handshake`: counted from the server's first reply byte (see
    ///   [`HandshakeError::offset`]);
    /// * `Dechunk`: counted from the first byte after the handshake reply;
    /// * `Message` and `UnexpectedResponse`: the start (first chunk header) of the message
    ///   at fault, counted from the first byte after the handshake reply; the position
    ///   inside the message is [`MessageError::offset`] of the `source`.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            ConnectionError::Handshake(e) => e.offset().map(|o| o as u64),
            ConnectionError::Dechunk(e) => Some(e.offset()),
            ConnectionError::Message { stream_offset, .. }
            | ConnectionError::UnexpectedResponse { stream_offset, .. } => Some(*stream_offset),
            ConnectionError::NoCommonVersion
            | ConnectionError::Encode(_)
            | ConnectionError::Chunk(_)
            | ConnectionError::NotNegotiated(_)
            | ConnectionError::IllegalRequest { .. }
            | ConnectionError::Defunct => None,
        }
    }
}

/// One request awaiting its summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    kind: RequestKind,
    /// A PULL/DISCARD that asks for everything (`n = -1`, or the *_ALL forms).
    to_end: bool,
}

/// The server state plus how many results are open inside a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sv {
    state: ServerState,
    open: u32,
}

impl Sv {
    const fn at(state: ServerState) -> Self {
        Sv { state, open: 0 }
    }
}

/// Whether `kind` may be sent to a server in `sv` (docs/protocol.md §6.2–6.3). Requests
/// that the server answers with IGNORED (in FAILED / INTERRUPTED) are allowed.
fn allowed(kind: RequestKind, sv: Sv, v: BoltVersion) -> bool {
    use RequestKind as K;
    use ServerState as S;
    if kind == K::Goodbye {
        return sv.state != S::Defunct && sv.state != S::Handshake;
    }
    match sv.state {
        S::Handshake | S::Defunct => false,
        S::Negotiation => kind == if v.uses_hello() { K::Hello } else { K::Init },
        S::Authentication => kind == K::Logon,
        S::Ready => matches!(
            kind,
            K::Run | K::Begin | K::Route | K::Telemetry | K::Logoff | K::Reset
        ),
        S::Streaming => matches!(
            kind,
            K::Pull | K::Discard | K::PullAll | K::DiscardAll | K::Reset
        ),
        S::TxReady => matches!(kind, K::Run | K::Commit | K::Rollback | K::Reset),
        S::TxStreaming => {
            matches!(kind, K::Pull | K::Discard | K::PullAll | K::DiscardAll | K::Reset)
                // A second open result inside a transaction needs Bolt 4.0 (qid).
                || (kind == K::Run && v.has_qid())
        }
        S::Failed => !matches!(kind, K::Hello | K::Init | K::Logon),
        S::Interrupted => !matches!(kind, K::Hello | K::Init | K::Logon | K::AckFailure),
    }
}

/// The states a server in `sv` may be in after `p` succeeds (two when a PULL/DISCARD of
/// `n` records may or may not end its result).
fn after_success(p: Pending, sv: Sv, v: BoltVersion) -> [Option<Sv>; 2] {
    use RequestKind as K;
    use ServerState as S;
    let one = |sv| [Some(sv), None];
    match (sv.state, p.kind) {
        (_, K::Goodbye) => one(Sv::at(S::Defunct)),
        // Requests in FAILED / INTERRUPTED are ignored and change nothing, except the
        // ones that clear the failure.
        (_, K::Reset) => one(Sv::at(S::Ready)),
        (S::Failed, K::AckFailure) => one(Sv::at(S::Ready)),
        (S::Failed | S::Interrupted, _) => one(sv),
        (_, K::Hello) if v.has_logon() => one(Sv::at(S::Authentication)),
        (_, K::Hello | K::Init | K::Logon) => one(Sv::at(S::Ready)),
        (_, K::Logoff) => one(Sv::at(S::Authentication)),
        (S::Ready, K::Run) => one(Sv::at(S::Streaming)),
        (S::TxReady | S::TxStreaming, K::Run) => one(Sv {
            state: S::TxStreaming,
            open: sv.open.saturating_add(1),
        }),
        (_, K::Begin) => one(Sv::at(S::TxReady)),
        (_, K::Commit | K::Rollback) => one(Sv::at(S::Ready)),
        (S::Streaming | S::TxStreaming, K::Pull | K::Discard | K::PullAll | K::DiscardAll) => {
            let done = if sv.state == S::Streaming || sv.open <= 1 {
                Sv::at(if sv.state == S::Streaming {
                    S::Ready
                } else {
                    S::TxReady
                })
            } else {
                Sv {
                    state: S::TxStreaming,
                    open: sv.open - 1,
                }
            };
            if p.to_end {
                one(done)
            } else {
                [Some(sv), Some(done)]
            }
        }
        _ => one(sv),
    }
}

/// The state after a summary arrives for `p` in `sv`.
fn after_summary(p: Pending, sv: Sv, v: BoltVersion, response: &Response<'_>) -> Sv {
    use RequestKind as K;
    use ServerState as S;
    match response {
        Response::Success(s) => {
            let [first, second] = after_success(p, sv, v);
            let streaming = matches!(p.kind, K::Pull | K::Discard) && s.has_more();
            match (first, second) {
                (Some(stay), Some(_)) if streaming => stay,
                (_, Some(done)) => done,
                (Some(only), None) => only,
                (None, _) => sv,
            }
        }
        Response::Failure(_) => match p.kind {
            K::Hello | K::Init | K::Logon | K::Reset | K::AckFailure => Sv::at(S::Defunct),
            _ => Sv::at(S::Failed),
        },
        _ => sv,
    }
}

/// The client side of one Bolt connection. See the [module docs](self).
#[derive(Debug)]
pub struct ClientConnection {
    handshake: Option<ClientHandshake>,
    codec: Option<MessageCodec>,
    decode_limits: DecodeLimits,
    chunker: Chunker,
    dechunker: Dechunker,
    out: Vec<u8>,
    pending: VecDeque<Pending>,
    /// The state as of the responses received so far.
    confirmed: Sv,
    events: VecDeque<Event>,
    /// A receive error, or GOODBYE sent: nothing more may be sent. Summaries for the
    /// requests sent before GOODBYE are still delivered.
    defunct: bool,
    /// A receive error happened: the incoming stream is unusable.
    receive_failed: bool,
    /// See [`ConnectionConfig::bolt_agent`].
    bolt_agent: Option<String>,
    /// See [`ConnectionConfig::request_utc_patch`].
    request_utc_patch: bool,
}

impl ClientConnection {
    /// A connection that starts with the handshake: its first bytes are ready in
    /// [`ClientConnection::take_output`].
    pub fn new(config: ConnectionConfig) -> Self {
        let handshake = ClientHandshake::new(config.handshake);
        let out = handshake.hello().to_vec();
        let chunk_size = if config.max_chunk_size == 0 {
            65_535
        } else {
            config.max_chunk_size
        };
        ClientConnection {
            handshake: Some(handshake),
            codec: None,
            decode_limits: config.decode_limits,
            chunker: Chunker::new(usize::from(chunk_size)).unwrap_or_default(),
            dechunker: Dechunker::with_limits(config.dechunk_limits),
            out,
            pending: VecDeque::new(),
            confirmed: Sv::at(ServerState::Handshake),
            events: VecDeque::new(),
            defunct: false,
            receive_failed: false,
            bolt_agent: config.bolt_agent,
            request_utc_patch: config.request_utc_patch,
        }
    }

    /// The negotiated version, once the handshake is done.
    pub fn version(&self) -> Option<BoltVersion> {
        self.codec.as_ref().map(MessageCodec::version)
    }

    /// The server's state as of the responses received so far ([`ServerState::Interrupted`]
    /// while a RESET is outstanding).
    pub fn state(&self) -> ServerState {
        if self.defunct {
            ServerState::Defunct
        } else if self.pending.iter().any(|p| p.kind == RequestKind::Reset) {
            ServerState::Interrupted
        } else {
            self.confirmed.state
        }
    }

    /// How many requests await their summary.
    pub fn pending_requests(&self) -> usize {
        self.pending.len()
    }

    /// Bytes waiting to be written to the socket.
    pub fn output(&self) -> &[u8] {
        &self.out
    }

    /// Marks the first `n` bytes of [`ClientConnection::output`] as written.
    pub fn consume_output(&mut self, n: usize) {
        self.out.drain(..n.min(self.out.len()));
    }

    /// Takes every byte waiting to be written.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The states the server may be in once every queued request has been handled,
    /// assuming each succeeds (a failure only leads to FAILED, where everything but the
    /// login requests is allowed).
    fn predicted(&self, v: BoltVersion) -> Vec<Sv> {
        let mut states = vec![self.confirmed];
        for p in &self.pending {
            let mut next: Vec<Sv> = Vec::with_capacity(states.len() + 1);
            for sv in &states {
                for s in after_success(*p, *sv, v).into_iter().flatten() {
                    if !next.contains(&s) {
                        next.push(s);
                    }
                }
            }
            states = next;
        }
        states
    }

    /// Whether `kind` may be sent now (see [`ClientConnection::send`]).
    pub fn can_send(&self, kind: RequestKind) -> bool {
        match self.version() {
            Some(v) if !self.defunct => self.predicted(v).iter().all(|sv| allowed(kind, *sv, v)),
            _ => false,
        }
    }

    /// Encodes, frames and queues `request`.
    ///
    /// # Errors
    ///
    /// [`ConnectionError::NotNegotiated`] before the handshake is done,
    /// [`ConnectionError::IllegalRequest`] when the server could be in a state that does
    /// not accept it once the queued requests have run (nothing is written then),
    /// [`ConnectionError::Encode`] when it does not exist in the negotiated version, and
    /// [`ConnectionError::Defunct`].
    pub fn send(&mut self, request: &Request<'_>) -> Result<(), ConnectionError> {
        if self.defunct || self.confirmed.state == ServerState::Defunct {
            return Err(ConnectionError::Defunct);
        }
        let Some(v) = self.version() else {
            return Err(ConnectionError::NotNegotiated(request.name()));
        };
        let kind = request.kind();
        if let Some(bad) = self
            .predicted(v)
            .into_iter()
            .find(|sv| !allowed(kind, *sv, v))
        {
            return Err(ConnectionError::IllegalRequest {
                request: request.name(),
                state: bad.state,
                version: v,
            });
        }
        let (product, platform) = match request {
            Request::Hello(_) => (
                self.bolt_agent.clone(),
                format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            ),
            _ => (None, String::new()),
        };
        let utc = self.request_utc_patch;
        match completed_hello(request, v, product.as_deref(), &platform, utc) {
            Some(hello) => Request::Hello(hello).encode_framed(v, &self.chunker, &mut self.out)?,
            None => request.encode_framed(v, &self.chunker, &mut self.out)?,
        };
        let to_end = match request {
            Request::Pull(p) => p.n() == Some(-1),
            Request::Discard(d) => d.n() == Some(-1),
            Request::PullAll | Request::DiscardAll => true,
            _ => false,
        };
        if kind == RequestKind::Goodbye {
            // GOODBYE has no response; the summaries still owed for earlier requests
            // arrive (and are delivered), but nothing may follow it.
            self.defunct = true;
        } else {
            self.pending.push_back(Pending { kind, to_end });
        }
        Ok(())
    }

    /// Feeds bytes read from the socket. Events become available through
    /// [`ClientConnection::poll_event`].
    ///
    /// # Errors
    ///
    /// Any handshake, framing, decoding or protocol error; the connection is defunct
    /// afterwards (events produced before the error are still delivered).
    pub fn receive(&mut self, bytes: &[u8]) -> Result<(), ConnectionError> {
        self.receive_checked(bytes, None)
    }

    /// [`ClientConnection::receive`] for callers that decode RECORDs themselves (a
    /// binding building host values straight from the bytes): every response message,
    /// once the connection has checked that it answers the request at the front, is
    /// handed to `on_message` in stream order. RECORDs are not decoded here and queue no
    /// [`Event::Record`]: where they came, an [`Event::RecordsTaken`] says how many of
    /// those handed over (consecutive ones, in order) belong there, so the caller drains
    /// [`ClientConnection::poll_event`] and cuts the rows it decoded into batches by those
    /// counts. Summaries are handled as by `receive`.
    ///
    /// An error returned by `on_message` (for example a RECORD the caller could not
    /// decode) fails the receive as a [`ConnectionError::Message`] at that message's
    /// stream offset, and the connection is defunct, as for any receive error; the events
    /// before that message are still queued (a refused RECORD is not counted).
    ///
    /// ```
    /// use bolt::chunk::Chunker;
    /// use bolt::connection::{ClientConnection, ConnectionConfig, Event};
    /// use bolt::handshake::{ServerConfig, ServerHandshake, Step};
    /// use bolt::message::{Hello, Logon, Pull, Record, Request, Response, ResponseKind, Run, Success};
    /// use packstream::{Value, ValueRef};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut client = ClientConnection::new(ConnectionConfig::default());
    /// let mut server = ServerHandshake::new(ServerConfig::default());
    /// let Step::Continue { send, .. } = server.receive(&client.take_output())? else { panic!() };
    /// client.receive(&send)?;
    /// let Step::Negotiated { version, .. } = server.receive(&client.take_output())? else { panic!() };
    /// client.send(&Request::Hello(Hello::new("example/1.0")))?;
    /// client.send(&Request::Logon(Logon::none()))?;
    /// client.send(&Request::Run(Run::new("UNWIND [1, 2] AS x RETURN x")))?;
    /// client.send(&Request::Pull(Pull::new(10)))?;
    /// let mut reply = Vec::new();
    /// for response in [
    ///     Response::Success(Success::default()),
    ///     Response::Success(Success::default()),
    ///     Response::Success(Success::default().with("fields", vec!["x"])),
    ///     Response::Record(Record::new(vec![ValueRef::Int(1)])),
    ///     Response::Record(Record::new(vec![ValueRef::Int(2)])),
    ///     Response::Success(Success::default()),
    /// ] {
    ///     response.encode_framed(version, &Chunker::default(), &mut reply)?;
    /// }
    /// let mut rows = std::collections::VecDeque::new();
    /// client.receive_with(&reply, &mut |m| {
    ///     if m.kind == ResponseKind::Record {
    ///         // or straight into host objects
    ///         rows.push_back(Value::decode_exact_with(m.body(), &m.options)?);
    ///     }
    ///     Ok(())
    /// })?;
    /// let mut seen = Vec::new();
    /// while let Some(event) = client.poll_event() {
    ///     match event {
    ///         Event::RecordsTaken { count } => {
    ///             seen.push(format!("{:?}", rows.drain(..count).collect::<Vec<_>>()));
    ///         }
    ///         Event::Negotiated(v) => seen.push(v.to_string()),
    ///         Event::Success { request, .. } => seen.push(request.name().to_owned()),
    ///         other => seen.push(format!("{other:?}")),
    ///     }
    /// }
    /// assert_eq!(
    ///     seen,
    ///     [
    ///         "6.1",
    ///         "HELLO",
    ///         "LOGON",
    ///         "RUN",
    ///         "[List([Int(1)]), List([Int(2)])]",
    ///         "PULL",
    ///     ]
    /// );
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ClientConnection::receive`], plus the errors of `on_message`.
    pub fn receive_with(
        &mut self,
        bytes: &[u8],
        on_message: &mut OnResponse<'_>,
    ) -> Result<(), ConnectionError> {
        self.receive_checked(bytes, Some(on_message))
    }

    fn receive_checked(
        &mut self,
        bytes: &[u8],
        on_message: Option<&mut OnResponse<'_>>,
    ) -> Result<(), ConnectionError> {
        if self.defunct && (self.receive_failed || self.pending.is_empty()) {
            return Err(ConnectionError::Defunct);
        }
        let result = self.receive_inner(bytes, on_message);
        if result.is_err() {
            self.defunct = true;
            self.receive_failed = true;
        }
        result
    }

    fn receive_inner(
        &mut self,
        mut bytes: &[u8],
        mut on_message: Option<&mut OnResponse<'_>>,
    ) -> Result<(), ConnectionError> {
        if let Some(handshake) = self.handshake.as_mut() {
            match handshake.receive(bytes)? {
                Step::NeedMore => return Ok(()),
                Step::Continue { send, consumed } => {
                    self.out.extend_from_slice(&send);
                    bytes = bytes.get(consumed..).unwrap_or_default();
                }
                Step::Rejected { .. } => return Err(ConnectionError::NoCommonVersion),
                Step::Negotiated {
                    version,
                    send,
                    consumed,
                } => {
                    self.out.extend_from_slice(&send);
                    self.codec = Some(MessageCodec::new(version).with_limits(self.decode_limits));
                    self.handshake = None;
                    self.confirmed = Sv::at(ServerState::Negotiation);
                    self.events.push_back(Event::Negotiated(version));
                    bytes = bytes.get(consumed..).unwrap_or_default();
                }
            }
        }
        let Some(mut codec) = self.codec else {
            return Ok(());
        };
        let mut feed = self.dechunker.feed(bytes);
        let mut ended = false;
        loop {
            // After GOODBYE, the last awaited summary ends the stream: a byte after it is
            // refused here as it would be by the next `receive`, however the bytes were
            // split into reads.
            if ended && feed.unprocessed() > 0 {
                return Err(ConnectionError::Defunct);
            }
            let Some(msg) = feed.next_message()? else {
                break;
            };
            let stream_offset = msg.offset();
            let response =
                codec
                    .decode_response(msg.bytes())
                    .map_err(|source| ConnectionError::Message {
                        stream_offset,
                        source,
                    })?;
            let unexpected = |detail| ConnectionError::UnexpectedResponse {
                response: response.name(),
                stream_offset,
                detail,
            };
            let Some(front) = self.pending.front().copied() else {
                return Err(unexpected("no request is waiting for a response"));
            };
            if let Response::Record(_) = &response {
                if !matches!(front.kind, RequestKind::Pull | RequestKind::PullAll) {
                    return Err(unexpected("RECORD for a request that is not PULL"));
                }
            }
            if let Some(f) = on_message.as_deref_mut() {
                f(&ReceivedResponse {
                    kind: response.kind(),
                    bytes: msg.bytes(),
                    stream_offset,
                    version: codec.version(),
                    options: codec.decode_options(),
                })
                .map_err(|source| ConnectionError::Message {
                    stream_offset,
                    source,
                })?;
            }
            match &response {
                Response::Record(_) if on_message.is_some() => match self.events.back_mut() {
                    Some(Event::RecordsTaken { count }) => *count += 1,
                    _ => self.events.push_back(Event::RecordsTaken { count: 1 }),
                },
                Response::Record(record) => {
                    let fields =
                        record
                            .to_owned_values()
                            .map_err(|source| ConnectionError::Message {
                                stream_offset,
                                source,
                            })?;
                    self.events.push_back(Event::Record(fields));
                }
                summary => {
                    self.pending.pop_front();
                    if let (RequestKind::Hello, Response::Success(s)) = (front.kind, summary) {
                        // 4.3/4.4: DateTimes use the UTC structures from now on if the
                        // server accepted the "utc" patch (docs/protocol.md §2.6).
                        let v = codec.version();
                        if v.supports_utc_patch() && s.utc_patch_accepted() {
                            codec = MessageCodec::new(v.with_utc_patch(true))
                                .with_limits(self.decode_limits);
                            self.codec = Some(codec);
                        }
                    }
                    self.confirmed = after_summary(front, self.confirmed, codec.version(), summary);
                    self.events.push_back(match summary {
                        Response::Success(s) => Event::Success {
                            request: front.kind,
                            metadata: s.metadata.to_owned_value(),
                        },
                        Response::Failure(f) => Event::Failure {
                            request: front.kind,
                            code: f.code().map(str::to_owned),
                            message: f.message().map(str::to_owned),
                            metadata: f.metadata.to_owned_value(),
                        },
                        _ => Event::Ignored {
                            request: front.kind,
                        },
                    });
                    ended = self.defunct && self.pending.is_empty();
                }
            }
        }
        Ok(())
    }
}

/// The callback of [`ClientConnection::receive_with`].
pub type OnResponse<'f> = dyn FnMut(&ReceivedResponse<'_>) -> Result<(), MessageError> + 'f;

/// A response message handed to the callback of [`ClientConnection::receive_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceivedResponse<'m> {
    /// Which response it is.
    pub kind: ResponseKind,
    /// The de-chunked message (a RECORD is not decoded by the connection).
    pub bytes: &'m [u8],
    /// Offset of the message's first chunk header in the incoming stream (counted from
    /// the first byte after the handshake reply).
    pub stream_offset: u64,
    /// The version to decode it with (with the `utc` patch once the server accepted it).
    pub version: BoltVersion,
    /// The PackStream options to decode it with: those of `version` and the connection's
    /// [`ConnectionConfig::decode_limits`] (the connection's own codec's options).
    pub options: DecodeOptions,
}

impl<'m> ReceivedResponse<'m> {
    /// The message's one field, after the structure header: for a RECORD its `data`
    /// list, for SUCCESS and FAILURE the metadata map (IGNORED has none: empty). Decode
    /// it as one PackStream value with [`ReceivedResponse::options`]; offsets in it start
    /// at `bytes.len() - body().len()` in the message.
    ///
    /// ```
    /// use bolt::connection::ReceivedResponse;
    /// use bolt::message::ResponseKind;
    /// use bolt::BoltVersion;
    /// use packstream::{DecodeOptions, Value};
    ///
    /// let m = ReceivedResponse {
    ///     kind: ResponseKind::Record,
    ///     bytes: &[0xB1, 0x71, 0x91, 0x01], // RECORD [1]
    ///     stream_offset: 0,
    ///     version: BoltVersion::V5_8,
    ///     options: DecodeOptions::default(),
    /// };
    /// assert_eq!(m.body(), [0x91, 0x01]);
    /// assert_eq!(Value::decode_exact(m.body()).ok(), Some(Value::from(vec![Value::Int(1)])));
    /// ```
    #[must_use]
    pub fn body(&self) -> &'m [u8] {
        match Token::read_first(self.bytes, &self.options) {
            // The connection only hands over messages that decoded as a structure.
            Ok((_, header)) => self.bytes.get(header..).unwrap_or_default(),
            Err(_) => &[],
        }
    }
}

/// One request received by a [`ServerConnection`]: its kind and its message bytes
/// (decode them with [`Request::decode`] and the connection's version). Test support, as
/// [`ServerConnection`].
#[cfg(any(test, feature = "test-support"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceivedRequest {
    kind: RequestKind,
    bytes: Vec<u8>,
}

#[cfg(any(test, feature = "test-support"))]
impl ReceivedRequest {
    /// The request's kind.
    pub fn kind(&self) -> RequestKind {
        self.kind
    }

    /// The de-chunked message bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Decodes the request.
    ///
    /// # Errors
    /// A [`MessageError`] (it decoded once already, so only with another version).
    pub fn decode(&self, version: BoltVersion) -> Result<Request<'_>, MessageError> {
        Request::decode(&self.bytes, version)
    }
}

/// A minimal server side: handshake, framing, request decoding and response encoding.
/// It keeps no protocol state; a test (or a stub server) decides every answer.
///
/// Test support: only with the `test-support` feature (not part of the stable API).
///
/// ```
/// use bolt::connection::{ClientConnection, ConnectionConfig, Event, ServerConnection, ServerState};
/// use bolt::message::{Hello, Logon, Pull, Request, Response, Run, Success, Record};
/// use bolt::BoltVersion;
/// use packstream::{Value, ValueRef};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut client = ClientConnection::new(ConnectionConfig::default());
/// let mut server = ServerConnection::new(Default::default());
///
/// // Handshake: bytes go back and forth until both sides agree.
/// server.receive(&client.take_output())?;
/// client.receive(&server.take_output())?;
/// server.receive(&client.take_output())?; // the client's manifest pick
/// assert_eq!(client.poll_event(), Some(Event::Negotiated(BoltVersion::V6_1)));
///
/// // Pipeline HELLO, LOGON, RUN and PULL in one write.
/// client.send(&Request::Hello(Hello::new("example/1.0")))?;
/// client.send(&Request::Logon(Logon::basic("neo4j", "secret")))?;
/// client.send(&Request::Run(Run::new("RETURN 1 AS x")))?;
/// client.send(&Request::Pull(Pull::new(100)))?;
/// server.receive(&client.take_output())?;
/// let kinds: Vec<_> = std::iter::from_fn(|| server.poll_request()).map(|r| r.kind()).collect();
/// assert_eq!(kinds.len(), 4);
///
/// // The server answers each in order.
/// let v = server.version().unwrap();
/// server.send(&Response::Success(Success::default()))?;
/// server.send(&Response::Success(Success::default()))?;
/// server.send(&Response::Success(Success::default().with("fields", vec!["x"])))?;
/// server.send(&Response::Record(Record::new(vec![ValueRef::Int(1)])))?;
/// server.send(&Response::Success(Success::default().with("type", "r")))?;
/// client.receive(&server.take_output())?;
/// let events: Vec<Event> = std::iter::from_fn(|| client.poll_event()).collect();
/// assert!(matches!(&events[3], Event::Record(fields) if fields == &[Value::Int(1)]));
/// assert_eq!(client.state(), ServerState::Ready);
/// # let _ = v;
/// # Ok(())
/// # }
/// ```
#[cfg(any(test, feature = "test-support"))]
#[derive(Debug)]
pub struct ServerConnection {
    handshake: Option<ServerHandshake>,
    codec: Option<MessageCodec>,
    chunker: Chunker,
    dechunker: Dechunker,
    out: Vec<u8>,
    requests: VecDeque<ReceivedRequest>,
}

#[cfg(any(test, feature = "test-support"))]
impl ServerConnection {
    /// A server side offering what `config` supports.
    pub fn new(config: ServerConfig) -> Self {
        ServerConnection {
            handshake: Some(ServerHandshake::new(config)),
            codec: None,
            chunker: Chunker::default(),
            dechunker: Dechunker::new(),
            out: Vec::new(),
            requests: VecDeque::new(),
        }
    }

    /// The negotiated version.
    pub fn version(&self) -> Option<BoltVersion> {
        self.codec.as_ref().map(MessageCodec::version)
    }

    /// Takes every byte waiting to be written.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// The next request received, if any.
    pub fn poll_request(&mut self) -> Option<ReceivedRequest> {
        self.requests.pop_front()
    }

    /// Feeds bytes from the client.
    ///
    /// # Errors
    /// Handshake, framing and decoding errors.
    pub fn receive(&mut self, mut bytes: &[u8]) -> Result<(), ConnectionError> {
        while let Some(handshake) = self.handshake.as_mut() {
            match handshake.receive(bytes)? {
                Step::NeedMore => return Ok(()),
                Step::Continue { send, consumed } => {
                    self.out.extend_from_slice(&send);
                    bytes = bytes.get(consumed..).unwrap_or_default();
                    if bytes.is_empty() {
                        return Ok(());
                    }
                }
                Step::Rejected { send, .. } => {
                    self.out.extend_from_slice(&send);
                    return Err(ConnectionError::NoCommonVersion);
                }
                Step::Negotiated {
                    version,
                    send,
                    consumed,
                } => {
                    self.out.extend_from_slice(&send);
                    self.codec = Some(MessageCodec::new(version));
                    self.handshake = None;
                    bytes = bytes.get(consumed..).unwrap_or_default();
                }
            }
        }
        let Some(codec) = self.codec else {
            return Ok(());
        };
        let mut feed = self.dechunker.feed(bytes);
        while let Some(msg) = feed.next_message()? {
            let stream_offset = msg.offset();
            let kind = codec
                .decode_request(msg.bytes())
                .map_err(|source| ConnectionError::Message {
                    stream_offset,
                    source,
                })?
                .kind();
            self.requests.push_back(ReceivedRequest {
                kind,
                bytes: msg.bytes().to_vec(),
            });
        }
        Ok(())
    }

    /// Encodes, frames and queues a response.
    ///
    /// # Errors
    /// [`ConnectionError::NotNegotiated`] before the handshake is done; encoding errors.
    pub fn send(&mut self, response: &Response<'_>) -> Result<(), ConnectionError> {
        let Some(v) = self.version() else {
            return Err(ConnectionError::NotNegotiated(response.name()));
        };
        response.encode_framed(v, &self.chunker, &mut self.out)?;
        Ok(())
    }
}
