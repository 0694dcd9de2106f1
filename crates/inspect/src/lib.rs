//! The engine of `bolt-inspect`: follows both directions of one Bolt session — handshake,
//! chunks, messages — and renders every message readably. Built only on the sans-IO
//! `bolt` and `packstream` crates, so the same code serves capture files, hex dumps and
//! a live proxy.
//!
//! ```
//! use boltcodec_inspect::{Direction, Session};
//! let mut session = Session::new();
//! let mut lines = Vec::new();
//! // A client offering Bolt 4.4 only, and the server accepting it.
//! let hello = [0x60, 0x60, 0xB0, 0x17, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
//! session.feed(Direction::ClientToServer, &hello, &mut lines);
//! session.feed(Direction::ServerToClient, &[0, 0, 4, 4], &mut lines);
//! // RESET, chunked.
//! session.feed(Direction::ClientToServer, &[0, 2, 0xB0, 0x0F, 0, 0], &mut lines);
//! assert_eq!(lines.last().unwrap(), "C>S #1   RESET");
//! ```

use std::fmt::Write as _;

use bolt::chunk::Dechunker;
use bolt::handshake::{
    ClientConfig, ClientHandshake, ClientHello, Proposal, ServerConfig, ServerHandshake, Status,
    Step,
};
use bolt::message::{Request, RequestKind, Response, ResponseKind};
use bolt::structs::DisplayValue;
use bolt::BoltVersion;
use packstream::{DecodeOptions, ValueRef};

/// Which way bytes travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Client (driver) to server.
    ClientToServer,
    /// Server to client.
    ServerToClient,
}

impl Direction {
    /// `C>S` or `S>C`, as in the capture format.
    pub fn arrow(self) -> &'static str {
        match self {
            Direction::ClientToServer => "C>S",
            Direction::ServerToClient => "S>C",
        }
    }
}

/// One direction's framing state.
#[derive(Debug, Default)]
struct Side {
    in_handshake: bool,
    hello_bytes: Vec<u8>,
    dechunker: Dechunker,
    messages: usize,
    failed: bool,
}

/// Both directions of one Bolt session.
#[derive(Debug)]
pub struct Session {
    client: Side,
    server: Side,
    /// Parses the client's handshake bytes (a server's view).
    server_role: ServerHandshake,
    /// Parses the server's handshake bytes, once the client's proposals are known.
    client_role: Option<ClientHandshake>,
    version: Option<BoltVersion>,
    /// HELLO asked for the `utc` patch and its SUCCESS has not arrived yet.
    utc_requested: bool,
    /// Longest rendering of one message, in characters (0 = unlimited).
    pub max_width: usize,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// A session waiting for the client's handshake.
    pub fn new() -> Self {
        let all: Vec<BoltVersion> = BoltVersion::SUPPORTED
            .iter()
            .chain(BoltVersion::DECODE_ONLY)
            .copied()
            .collect();
        Session {
            client: Side {
                in_handshake: true,
                ..Side::default()
            },
            server: Side {
                in_handshake: true,
                ..Side::default()
            },
            server_role: ServerHandshake::new(ServerConfig::new(&all)),
            client_role: None,
            version: None,
            utc_requested: false,
            max_width: 200,
        }
    }

    /// The negotiated version, once known.
    pub fn version(&self) -> Option<BoltVersion> {
        self.version
    }

    /// Message counts (client, server).
    pub fn message_counts(&self) -> (usize, usize) {
        (self.client.messages, self.server.messages)
    }

    /// NOOP chunks seen in both directions.
    pub fn noops(&self) -> u64 {
        self.client.dechunker.noop_count() + self.server.dechunker.noop_count()
    }

    /// Feeds bytes that travelled in `dir`; appends one line per event to `out`.
    pub fn feed(&mut self, dir: Direction, mut bytes: &[u8], out: &mut Vec<String>) {
        let side = match dir {
            Direction::ClientToServer => &self.client,
            Direction::ServerToClient => &self.server,
        };
        if side.failed {
            return;
        }
        while self.side(dir).in_handshake && !bytes.is_empty() {
            match self.handshake_step(dir, bytes, out) {
                Ok(Some(rest)) => bytes = rest,
                Ok(None) => return,
                Err(e) => {
                    out.push(format!("{} handshake error: {e}", dir.arrow()));
                    self.side_mut(dir).failed = true;
                    return;
                }
            }
        }
        self.messages(dir, bytes, out);
    }

    fn side(&self, dir: Direction) -> &Side {
        match dir {
            Direction::ClientToServer => &self.client,
            Direction::ServerToClient => &self.server,
        }
    }

    fn side_mut(&mut self, dir: Direction) -> &mut Side {
        match dir {
            Direction::ClientToServer => &mut self.client,
            Direction::ServerToClient => &mut self.server,
        }
    }

    /// Runs the handshake parser of `dir` on `bytes`; returns what is left for the
    /// message stream, or `None` when everything was consumed.
    fn handshake_step<'b>(
        &mut self,
        dir: Direction,
        bytes: &'b [u8],
        out: &mut Vec<String>,
    ) -> Result<Option<&'b [u8]>, bolt::handshake::HandshakeError> {
        let step = match dir {
            Direction::ClientToServer => {
                if self.client_role.is_none() {
                    self.client.hello_bytes.extend_from_slice(bytes);
                    if let Status::Complete((hello, _)) =
                        ClientHello::parse(&self.client.hello_bytes)?
                    {
                        let offered: Vec<String> = hello.proposals.iter().map(proposal).collect();
                        out.push(format!(
                            "C>S handshake: magic + proposals {}",
                            offered.join(", ")
                        ));
                        let all: Vec<BoltVersion> = BoltVersion::SUPPORTED
                            .iter()
                            .chain(BoltVersion::DECODE_ONLY)
                            .copied()
                            .collect();
                        self.client_role = Some(ClientHandshake::new(
                            ClientConfig::new(hello.proposals).with_supported(&all),
                        ));
                    }
                }
                self.server_role.receive(bytes)?
            }
            Direction::ServerToClient => match self.client_role.as_mut() {
                Some(c) => c.receive(bytes)?,
                None => {
                    out.push("S>C bytes before the client's handshake".into());
                    self.server.failed = true;
                    return Ok(None);
                }
            },
        };
        Ok(match step {
            Step::NeedMore => None,
            Step::Continue { consumed, .. } => Some(bytes.get(consumed..).unwrap_or_default()),
            Step::Rejected { .. } => {
                out.push(format!("{} handshake: no common version", dir.arrow()));
                self.side_mut(dir).failed = true;
                None
            }
            Step::Negotiated {
                version, consumed, ..
            } => {
                if dir == Direction::ServerToClient {
                    out.push(format!("S>C handshake: Bolt {version} agreed"));
                    self.version = Some(version);
                } else {
                    out.push("C>S handshake complete".into());
                }
                self.side_mut(dir).in_handshake = false;
                Some(bytes.get(consumed..).unwrap_or_default())
            }
        })
    }

    fn messages(&mut self, dir: Direction, bytes: &[u8], out: &mut Vec<String>) {
        let version = self.version.unwrap_or(BoltVersion::V5_8);
        let max_width = self.max_width;
        let side = self.side_mut(dir);
        let mut feed = side.dechunker.feed(bytes);
        let mut count = side.messages;
        let mut failed = false;
        let mut patches = Vec::new();
        loop {
            match feed.next_message() {
                Ok(Some(msg)) => {
                    count += 1;
                    let line = render(dir, version, msg.bytes());
                    patches.push(msg.bytes().to_vec());
                    out.push(clip(
                        format!("{} #{count:<3} {line}", dir.arrow()),
                        max_width,
                    ));
                }
                Ok(None) => break,
                Err(e) => {
                    out.push(format!("{} framing error: {e}", dir.arrow()));
                    failed = true;
                    break;
                }
            }
        }
        drop(feed);
        side.messages = count;
        side.failed = failed;
        for bytes in patches {
            self.observe_patch(dir, &bytes);
        }
    }

    /// Follows the `utc` patch of Bolt 4.3/4.4: requested in HELLO's `patch_bolt`, in
    /// force once the HELLO's SUCCESS lists it too. It changes the DateTime structures.
    fn observe_patch(&mut self, dir: Direction, bytes: &[u8]) {
        let Some(version) = self.version else { return };
        if !version.supports_utc_patch() || version.utc_patch() {
            return;
        }
        match dir {
            Direction::ClientToServer if self.client.messages <= 2 => {
                if let Ok(Request::Hello(h)) = Request::decode(bytes, version) {
                    self.utc_requested = h.patch_bolt().is_some_and(|p| p.contains(&"utc"));
                }
            }
            Direction::ServerToClient if self.utc_requested => {
                if let Ok(Response::Success(s)) = Response::decode(bytes, version) {
                    if s.utc_patch_accepted() {
                        self.version = Some(version.with_utc_patch(true));
                    }
                    self.utc_requested = false;
                }
            }
            _ => {}
        }
    }
}

/// Renders one message: its name, then each field (values in Cypher-like notation);
/// HELLO/LOGON/INIT through the message layer, which hides credentials.
pub fn render(dir: Direction, version: BoltVersion, bytes: &[u8]) -> String {
    let opts = DecodeOptions::default().with_uuid(version.has_uuid());
    let value = match ValueRef::decode_exact_with(bytes, &opts) {
        Ok(v) => v,
        Err(e) => return format!("undecodable message ({e})"),
    };
    let Some(s) = value.as_struct() else {
        return format!("not a message: {value}");
    };
    let name = match dir {
        Direction::ClientToServer => RequestKind::for_signature(s.tag, version).map(|k| k.name()),
        Direction::ServerToClient => ResponseKind::for_signature(s.tag).map(|k| k.name()),
    };
    let Some(name) = name else {
        return format!("unknown message {:#04X} {value}", s.tag);
    };
    // Validate with the message layer (field counts and types for the version).
    if dir == Direction::ClientToServer {
        match Request::decode(bytes, version) {
            Ok(req @ (Request::Hello(_) | Request::Logon(_) | Request::Init(_))) => {
                return req.to_string()
            }
            Ok(_) => {}
            Err(e) => return format!("{name} (invalid for Bolt {version}: {e})"),
        }
    } else if let Err(e) = Response::decode(bytes, version) {
        return format!("{name} (invalid for Bolt {version}: {e})");
    }
    let mut line = name.to_owned();
    for f in &s.fields {
        let _ = write!(line, " {}", DisplayValue::new(f).with_version(version));
    }
    line
}

/// `5.8–5.0`, `4.4`, `manifest v1`, or `-` for an empty slot.
fn proposal(p: &Proposal) -> String {
    match p {
        Proposal::Empty => "-".into(),
        Proposal::Manifest(v) => format!("manifest v{v}"),
        Proposal::Versions(r) if r.highest() == r.lowest() => r.highest().to_string(),
        Proposal::Versions(r) => format!("{}–{}", r.highest(), r.lowest()),
    }
}

fn clip(mut s: String, max: usize) -> String {
    if max > 0 && s.chars().count() > max {
        let cut = s.char_indices().nth(max).map_or(s.len(), |(i, _)| i);
        s.truncate(cut);
        s.push('…');
    }
    s
}
