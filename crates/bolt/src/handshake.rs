//! The Bolt version handshake, both roles, sans-IO (docs/protocol.md §3).
//!
//! Nothing here touches a socket: each role is a small state machine that takes the
//! bytes the peer sent (in pieces of any size) and says what to send back. The pure
//! parsers and encoders underneath ([`ClientHello`], [`ServerResponse`],
//! [`ManifestOffer`], [`ManifestPick`], [`decode_varint`], …) are public too, for tools
//! and tests.
//!
//! # The exchange
//!
//! ```text
//! client                                   server
//!   60 60 B0 17  + 4 proposals (16 bytes) ->
//!                                        <- 00 00 mm MM         chosen version, or
//!                                        <- 00 00 00 00         none (server closes), or
//!                                        <- 00 00 01 FF N ranges… caps   manifest v1
//!   (manifest only) 00 00 mm MM caps     ->
//!   chunked HELLO …                      ->
//! ```
//!
//! A proposal is `00 RR mm MM`: version MM.mm and the RR minors below it
//! (docs/protocol.md §3.3), or the manifest marker `00 00 01 FF`
//! (docs/protocol.md §3.4). The manifest's counts and capabilities are unsigned LEB128
//! varints of at most 10 bytes ([`decode_varint`]).
//!
//! # Example: a client and a server talking to each other
//!
//! ```
//! use bolt::handshake::{ClientConfig, ClientHandshake, ServerConfig, ServerHandshake, Step};
//! use bolt::BoltVersion;
//!
//! # fn main() -> Result<(), bolt::handshake::HandshakeError> {
//! let mut client = ClientHandshake::new(ClientConfig::default()); // offers the manifest
//! let mut server = ServerHandshake::new(ServerConfig::default());
//!
//! // client -> server: magic and proposals
//! let hello = client.hello();
//! let Step::Continue { send: offer, .. } = server.receive(&hello)? else { panic!() };
//! // server -> client: the manifest offer; the client picks and answers
//! let Step::Negotiated { version, send: pick, .. } = client.receive(&offer)? else { panic!() };
//! assert_eq!(version, BoltVersion::V6_1);
//! // client -> server: the pick (a real client may append its HELLO message right away)
//! let Step::Negotiated { version: agreed, .. } = server.receive(&pick)? else { panic!() };
//! assert_eq!(agreed, version);
//! # Ok(())
//! # }
//! ```
//!
//! # Errors and partial input
//!
//! "Need more bytes" is not an error: the state machines return [`Step::NeedMore`] and the
//! pure parsers [`Status::NeedMore`]. Malformed input gives a [`HandshakeError`] naming the
//! byte offset (counted from the first byte this direction sent) and what was expected.
//! After an error a state machine is poisoned and returns the same error again.

use crate::version::BoltVersion;

/// The 4 bytes every Bolt client sends first (docs/protocol.md §3.2).
pub const MAGIC: [u8; 4] = [0x60, 0x60, 0xB0, 0x17];

/// The proposal slot (and server reply) announcing handshake manifest v1: two reserved
/// zero bytes, manifest version `01`, marker `FF` (docs/protocol.md §3.4).
pub const MANIFEST_V1: [u8; 4] = [0x00, 0x00, 0x01, 0xFF];

/// The "no version" slot filler and the server's "nothing in common" reply.
pub const NO_VERSION: [u8; 4] = [0; 4];

/// Length of the client's opening bytes: magic plus four 4-byte proposals.
pub const CLIENT_HELLO_LEN: usize = 20;

/// The longest accepted varint: 10 bytes carry 64 bits (docs/protocol.md §3.4).
pub const MAX_VARINT_LEN: usize = 10;

/// The most version ranges accepted in a manifest offer. Real servers send about four;
/// the cap bounds the memory a hostile server can make a client hold.
pub const MAX_MANIFEST_RANGES: usize = 256;

/// The 4-byte reply that an HTTP server starts with (`"HTTP"`).
const HTTP: [u8; 4] = *b"HTTP";

/// The longest server reply the client buffers: marker, count, ranges, capabilities.
const MAX_SERVER_RESPONSE_LEN: usize =
    4 + MAX_VARINT_LEN + 4 * MAX_MANIFEST_RANGES + MAX_VARINT_LEN;

/// The longest manifest pick: version plus capabilities.
const MAX_PICK_LEN: usize = 4 + MAX_VARINT_LEN;

/// Result of a parser that may need more input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status<T> {
    /// Parsed; the value (and, where the type says so, the bytes consumed).
    Complete(T),
    /// The input ends before the item does. Call again with more bytes.
    NeedMore,
}

/// A malformed handshake. Offsets count bytes from the start of the sending side's stream
/// (the client's magic is byte 0 of the client stream, the server's first reply byte is
/// byte 0 of the server stream).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandshakeError {
    /// The client did not start with `60 60 B0 17`.
    #[error("byte {offset}: expected Bolt magic byte {expected:#04x}, found {found:#04x}")]
    BadMagic {
        /// Offset of the wrong byte.
        offset: usize,
        /// The magic byte expected there.
        expected: u8,
        /// The byte found.
        found: u8,
    },
    /// The server answered `"HTTP"`: this port speaks HTTP, not Bolt.
    #[error("byte {offset}: expected a 4-byte Bolt version reply, found \"HTTP\" (an HTTP port?)")]
    HttpResponse {
        /// Offset of the reply.
        offset: usize,
    },
    /// A version field that is not `00 00 minor major`.
    #[error("byte {offset}: expected a version \"00 00 minor major\", found {found:02x?}")]
    MalformedVersion {
        /// Offset of the 4 bytes.
        offset: usize,
        /// The 4 bytes found.
        found: [u8; 4],
    },
    /// A manifest marker with a manifest version other than 1.
    #[error("byte {offset}: expected handshake manifest version 1, found version {version}")]
    UnknownManifestVersion {
        /// Offset of the 4-byte marker.
        offset: usize,
        /// The manifest version found.
        version: u8,
    },
    /// The server answered with a manifest although the client did not offer one.
    #[error(
        "byte {offset}: the server replied with a handshake manifest the client did not offer"
    )]
    ManifestNotOffered {
        /// Offset of the marker.
        offset: usize,
    },
    /// A varint whose 10th byte still has the continuation bit set.
    #[error("byte {offset}: varint longer than {MAX_VARINT_LEN} bytes")]
    VarintTooLong {
        /// Offset of the 10th byte.
        offset: usize,
    },
    /// A 10-byte varint whose value does not fit in 64 bits.
    #[error("byte {offset}: varint value does not fit in 64 bits")]
    VarintOverflow {
        /// Offset of the 10th byte.
        offset: usize,
    },
    /// A manifest offer that announces more ranges than [`MAX_MANIFEST_RANGES`].
    #[error(
        "byte {offset}: manifest announces {count} version ranges, at most {max} are accepted"
    )]
    TooManyRanges {
        /// Offset of the count varint.
        offset: usize,
        /// The announced count.
        count: u64,
        /// The accepted maximum.
        max: usize,
    },
    /// The peer chose a version that was not offered to it.
    #[error("byte {offset}: expected one of the offered versions, the peer chose {version}")]
    VersionNotOffered {
        /// Offset of the version.
        offset: usize,
        /// The version chosen.
        version: BoltVersion,
    },
    /// The server chose a version the client offered in a range but does not implement
    /// (for example 5.5 inside an offered 5.8–5.0 range).
    #[error("byte {offset}: the server chose {version}, which this client does not support")]
    UnsupportedVersion {
        /// Offset of the version.
        offset: usize,
        /// The version chosen.
        version: BoltVersion,
    },
    /// The client selected capability bits the server did not offer.
    #[error("byte {offset}: expected capabilities within {offered:#x}, the client selected {selected:#x}")]
    CapabilitiesNotOffered {
        /// Offset of the capabilities varint.
        offset: usize,
        /// The bits selected.
        selected: u64,
        /// The bits offered.
        offered: u64,
    },
    /// `receive` was called after the handshake had finished.
    #[error(
        "the handshake has already finished; the remaining bytes belong to the message stream"
    )]
    Finished,
}

packstream::error_kinds! {
    HandshakeError;
    own {
        HandshakeError::BadMagic { .. } => "bad_magic",
        HandshakeError::HttpResponse { .. } => "http_response",
        HandshakeError::MalformedVersion { .. } => "malformed_version",
        HandshakeError::UnknownManifestVersion { .. } => "unknown_manifest_version",
        HandshakeError::ManifestNotOffered { .. } => "manifest_not_offered",
        HandshakeError::VarintTooLong { .. } => "varint_too_long",
        HandshakeError::VarintOverflow { .. } => "varint_overflow",
        HandshakeError::TooManyRanges { .. } => "too_many_ranges",
        HandshakeError::VersionNotOffered { .. } => "version_not_offered",
        HandshakeError::UnsupportedVersion { .. } => "unsupported_version",
        HandshakeError::CapabilitiesNotOffered { .. } => "capabilities_not_offered",
        HandshakeError::Finished => "handshake_finished",
    }
    wrapped {}
}

impl HandshakeError {
    /// Where the error was found, counted from the first byte of the sending side's
    /// handshake stream (the client's magic, or the server's first reply byte); `None`
    /// for `Finished`, which is a misuse rather than a fault in bytes.
    #[must_use]
    pub const fn offset(&self) -> Option<usize> {
        match *self {
            HandshakeError::BadMagic { offset, .. }
            | HandshakeError::HttpResponse { offset }
            | HandshakeError::MalformedVersion { offset, .. }
            | HandshakeError::UnknownManifestVersion { offset, .. }
            | HandshakeError::ManifestNotOffered { offset }
            | HandshakeError::VarintTooLong { offset }
            | HandshakeError::VarintOverflow { offset }
            | HandshakeError::TooManyRanges { offset, .. }
            | HandshakeError::VersionNotOffered { offset, .. }
            | HandshakeError::UnsupportedVersion { offset, .. }
            | HandshakeError::CapabilitiesNotOffered { offset, .. } => Some(offset),
            HandshakeError::Finished => None,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Varint
// ---------------------------------------------------------------------------------------

/// Appends `value` as an unsigned LEB128 varint (7 bits per byte, least significant group
/// first, `0x80` = more bytes follow; docs/protocol.md §3.4). Writes 1 to 10 bytes.
///
/// ```
/// let mut out = Vec::new();
/// bolt::handshake::encode_varint(300, &mut out);
/// assert_eq!(out, [0xAC, 0x02]);
/// ```
pub fn encode_varint(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let [low, ..] = (value & 0x7F).to_le_bytes();
        value >>= 7;
        if value == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// The number of bytes [`encode_varint`] writes for `value` (1 to 10).
#[must_use]
pub const fn varint_len(value: u64) -> usize {
    let bits = 64 - value.leading_zeros() as usize;
    if bits == 0 {
        1
    } else {
        bits.div_ceil(7)
    }
}

/// Decodes an unsigned LEB128 varint from the start of `input`.
///
/// Returns the value and the number of bytes it took. Non-minimal encodings (such as
/// `80 00` for 0) are accepted, as LEB128 allows them.
///
/// # Errors
///
/// [`HandshakeError::VarintTooLong`] if the 10th byte still has the continuation bit,
/// [`HandshakeError::VarintOverflow`] if a 10-byte varint exceeds 64 bits. Offsets are
/// relative to `input`.
///
/// ```
/// use bolt::handshake::{decode_varint, Status};
/// assert_eq!(decode_varint(&[0xFF, 0x82, 0x71]), Ok(Status::Complete((1_851_775, 3))));
/// assert_eq!(decode_varint(&[0x80]), Ok(Status::NeedMore));
/// assert!(decode_varint(&[0xFF; 11]).is_err());
/// ```
pub fn decode_varint(input: &[u8]) -> Result<Status<(u64, usize)>, HandshakeError> {
    decode_varint_at(input, 0)
}

fn decode_varint_at(input: &[u8], base: usize) -> Result<Status<(u64, usize)>, HandshakeError> {
    let mut value: u64 = 0;
    for (i, &byte) in input.iter().take(MAX_VARINT_LEN).enumerate() {
        if i == MAX_VARINT_LEN - 1 {
            if byte & 0x80 != 0 {
                return Err(HandshakeError::VarintTooLong { offset: base + i });
            }
            if byte > 1 {
                return Err(HandshakeError::VarintOverflow { offset: base + i });
            }
        }
        value |= u64::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(Status::Complete((value, i + 1)));
        }
    }
    Ok(Status::NeedMore)
}

// ---------------------------------------------------------------------------------------
// Ranges and proposals
// ---------------------------------------------------------------------------------------

/// A contiguous range of minor versions of one major version, as carried in a proposal
/// slot or manifest entry `00 RR mm MM`: MM.mm down to MM.(mm−RR) (docs/protocol.md §3.3).
///
/// A range never crosses a major version. If RR exceeds mm the range stops at minor 0.
///
/// ```
/// use bolt::handshake::VersionRange;
/// use bolt::BoltVersion;
///
/// let r = VersionRange::from_bytes([0x00, 0x08, 0x08, 0x05]);
/// assert_eq!((r.highest(), r.lowest()), (BoltVersion::V5_8, BoltVersion::V5_0));
/// assert!(r.contains(BoltVersion::V5_3));
/// assert_eq!(r.versions().count(), 9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VersionRange {
    major: u8,
    minor: u8,
    range: u8,
}

impl VersionRange {
    /// The range `major.minor` down to `major.(minor − range)` (stopping at 0).
    #[must_use]
    pub const fn new(major: u8, minor: u8, range: u8) -> Self {
        Self {
            major,
            minor,
            range,
        }
    }

    /// The range holding only `version`.
    #[must_use]
    pub const fn exact(version: BoltVersion) -> Self {
        Self::new(version.major(), version.minor(), 0)
    }

    /// The range from `high` down to `low`, or `None` if they differ in major version or
    /// `low > high`.
    #[must_use]
    pub const fn between(high: BoltVersion, low: BoltVersion) -> Option<Self> {
        if high.major() != low.major() || low.minor() > high.minor() {
            return None;
        }
        Some(Self::new(
            high.major(),
            high.minor(),
            high.minor() - low.minor(),
        ))
    }

    /// Reads a slot `00 RR mm MM`. The first (reserved) byte is ignored.
    ///
    /// Slots are read the way their era wrote them (docs/protocol.md §3.3, §9.1): for Bolt
    /// 1–3 only the major byte counts (minor and range are taken as 0); from 4.0 the minor
    /// byte, and the range byte (introduced with 4.3, back-ported to 4.2) are honoured.
    /// A pre-4.3 client writes 0 in the range byte, so honouring it is always safe.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 4]) -> Self {
        let [_, range, minor, major] = bytes;
        if major < 4 {
            Self::new(major, 0, 0)
        } else {
            Self::new(major, minor, range)
        }
    }

    /// The slot bytes `00 RR mm MM`.
    #[must_use]
    pub const fn to_bytes(self) -> [u8; 4] {
        [0, self.range, self.minor, self.major]
    }

    /// The major version.
    #[must_use]
    pub const fn major(self) -> u8 {
        self.major
    }

    /// The highest version in the range.
    #[must_use]
    pub const fn highest(self) -> BoltVersion {
        BoltVersion::new(self.major, self.minor)
    }

    /// The lowest version in the range.
    #[must_use]
    pub const fn lowest(self) -> BoltVersion {
        BoltVersion::new(self.major, self.minor.saturating_sub(self.range))
    }

    /// Whether `version`'s number lies in the range.
    #[must_use]
    pub const fn contains(self, version: BoltVersion) -> bool {
        version.major() == self.major
            && version.minor() <= self.minor
            && version.minor() >= self.minor.saturating_sub(self.range)
    }

    /// Whether the range holds `version` or a version equivalent to it (4.1 ≈ 4.2).
    #[must_use]
    pub const fn contains_equivalent(self, version: BoltVersion) -> bool {
        self.contains(version)
            || (version.major() == 4
                && (version.minor() == 1 || version.minor() == 2)
                && (self.contains(BoltVersion::V4_1) || self.contains(BoltVersion::V4_2)))
    }

    /// The versions of the range, newest first.
    pub fn versions(self) -> impl DoubleEndedIterator<Item = BoltVersion> + Clone {
        let major = self.major;
        (self.minor.saturating_sub(self.range)..=self.minor)
            .rev()
            .map(move |minor| BoltVersion::new(major, minor))
    }
}

/// One of the four proposal slots of the client's opening bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proposal {
    /// `00 00 00 00`: an unused slot.
    Empty,
    /// A version or range of versions.
    Versions(VersionRange),
    /// A handshake manifest marker `00 00 VV FF` with manifest version VV. Only version 1
    /// exists; servers skip slots with another manifest version.
    Manifest(u8),
}

impl Proposal {
    /// The manifest v1 proposal `00 00 01 FF`.
    pub const MANIFEST_V1: Self = Self::Manifest(1);

    /// A proposal for exactly `version`.
    #[must_use]
    pub const fn exact(version: BoltVersion) -> Self {
        Self::Versions(VersionRange::exact(version))
    }

    /// A proposal for `high` down to `low`, or `None` if they differ in major version or
    /// `low > high`.
    #[must_use]
    pub const fn range(high: BoltVersion, low: BoltVersion) -> Option<Self> {
        match VersionRange::between(high, low) {
            Some(r) => Some(Self::Versions(r)),
            None => None,
        }
    }

    /// Reads one 4-byte slot: major byte `FF` is a manifest marker, major version 0 is
    /// [`Proposal::Empty`] (before Bolt 4 only the major byte counts, so `00 00 07 00`
    /// is as empty as `00 00 00 00`; it used to read as a range of version 0.0, which
    /// wrote back as `00 00 00 00` and so read back as `Empty`: test
    /// `a_major_zero_slot_did_not_read_back_as_itself`), anything else a version range
    /// ([`VersionRange::from_bytes`]). The reserved first byte is ignored.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 4]) -> Self {
        let [_, _, minor, major] = bytes;
        if major == 0xFF {
            Self::Manifest(minor)
        } else if major == 0 {
            Self::Empty
        } else {
            Self::Versions(VersionRange::from_bytes(bytes))
        }
    }

    /// The slot's 4 bytes.
    #[must_use]
    pub const fn to_bytes(self) -> [u8; 4] {
        match self {
            Self::Empty => NO_VERSION,
            Self::Versions(r) => r.to_bytes(),
            Self::Manifest(v) => [0, 0, v, 0xFF],
        }
    }
}

// ---------------------------------------------------------------------------------------
// Wire pieces: pure parsers and encoders
// ---------------------------------------------------------------------------------------

/// The client's opening 20 bytes: magic and four proposals (docs/protocol.md §3.2, §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientHello {
    /// The four proposals, in the client's order of preference.
    pub proposals: [Proposal; 4],
}

impl ClientHello {
    /// The 20 bytes: [`MAGIC`] then the four slots.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; CLIENT_HELLO_LEN] {
        let mut out = [0u8; CLIENT_HELLO_LEN];
        let slots = core::iter::once(MAGIC).chain(self.proposals.iter().map(|p| p.to_bytes()));
        for (dst, src) in out.chunks_exact_mut(4).zip(slots) {
            dst.copy_from_slice(&src);
        }
        out
    }

    /// Parses the opening bytes. Returns the hello and 20 (the bytes consumed).
    ///
    /// A wrong magic byte is reported as soon as it arrives, without waiting for all 20
    /// bytes (so a TLS ClientHello or `GET ` fails fast).
    ///
    /// # Errors
    ///
    /// [`HandshakeError::BadMagic`].
    pub fn parse(input: &[u8]) -> Result<Status<(Self, usize)>, HandshakeError> {
        for (offset, (&found, &expected)) in input.iter().zip(MAGIC.iter()).enumerate() {
            if found != expected {
                return Err(HandshakeError::BadMagic {
                    offset,
                    expected,
                    found,
                });
            }
        }
        let Some(slots) = input.get(MAGIC.len()..CLIENT_HELLO_LEN) else {
            return Ok(Status::NeedMore);
        };
        let mut proposals = [Proposal::Empty; 4];
        for (p, chunk) in proposals.iter_mut().zip(slots.chunks_exact(4)) {
            *p = Proposal::from_bytes(take4(chunk));
        }
        Ok(Status::Complete((Self { proposals }, CLIENT_HELLO_LEN)))
    }
}

/// Copies a 4-byte chunk into an array (zero-padded if shorter; callers pass exactly 4).
fn take4(bytes: &[u8]) -> [u8; 4] {
    let mut out = [0u8; 4];
    for (d, s) in out.iter_mut().zip(bytes) {
        *d = *s;
    }
    out
}

/// Reads a strict version field `00 00 mm MM`.
fn strict_version(bytes: [u8; 4], offset: usize) -> Result<BoltVersion, HandshakeError> {
    match bytes {
        [0, 0, minor, major] => Ok(BoltVersion::new(major, minor)),
        found => Err(HandshakeError::MalformedVersion { offset, found }),
    }
}

/// The server's list of versions and capabilities in a manifest v1 exchange
/// (docs/protocol.md §3.4).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ManifestOffer {
    /// The offered version ranges, in the server's order.
    pub ranges: Vec<VersionRange>,
    /// The offered capability bits.
    pub capabilities: u64,
}

impl ManifestOffer {
    /// Appends the whole reply: [`MANIFEST_V1`], varint count, ranges, varint
    /// capabilities.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&MANIFEST_V1);
        encode_varint(self.ranges.len() as u64, out);
        for r in &self.ranges {
            out.extend_from_slice(&r.to_bytes());
        }
        encode_varint(self.capabilities, out);
    }

    /// Parses what follows the `00 00 01 FF` marker: count, ranges, capabilities.
    /// Returns the offer and the bytes consumed (not counting the marker).
    ///
    /// # Errors
    ///
    /// Varint errors and [`HandshakeError::TooManyRanges`]; offsets relative to `input`.
    pub fn parse_body(input: &[u8]) -> Result<Status<(Self, usize)>, HandshakeError> {
        Self::parse_body_at(input, 0)
    }

    fn parse_body_at(input: &[u8], base: usize) -> Result<Status<(Self, usize)>, HandshakeError> {
        let (count, mut pos) = match decode_varint_at(input, base)? {
            Status::Complete(v) => v,
            Status::NeedMore => return Ok(Status::NeedMore),
        };
        let n = match usize::try_from(count) {
            Ok(n) if n <= MAX_MANIFEST_RANGES => n,
            _ => {
                return Err(HandshakeError::TooManyRanges {
                    offset: base,
                    count,
                    max: MAX_MANIFEST_RANGES,
                })
            }
        };
        let Some(range_bytes) = input.get(pos..pos + 4 * n) else {
            return Ok(Status::NeedMore);
        };
        let ranges = range_bytes
            .chunks_exact(4)
            .map(|c| VersionRange::from_bytes(take4(c)))
            .collect();
        pos += 4 * n;
        let rest = input.get(pos..).unwrap_or_default();
        let (capabilities, len) = match decode_varint_at(rest, base + pos)? {
            Status::Complete(v) => v,
            Status::NeedMore => return Ok(Status::NeedMore),
        };
        Ok(Status::Complete((
            Self {
                ranges,
                capabilities,
            },
            pos + len,
        )))
    }

    /// Whether any range contains `version`.
    #[must_use]
    pub fn offers(&self, version: BoltVersion) -> bool {
        self.ranges.iter().any(|r| r.contains(version))
    }

    /// The best version to pick: the first of `supported` (expected newest first) that
    /// the offer contains and that is [`BoltVersion::is_known`] (so never 5.5, and never a
    /// version merely because a server range names it).
    #[must_use]
    pub fn choose(&self, supported: &[BoltVersion]) -> Option<BoltVersion> {
        supported
            .iter()
            .copied()
            .find(|v| v.is_known() && self.offers(*v))
    }
}

/// The server's reply to the client's opening bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ServerResponse {
    /// `00 00 mm MM`: the chosen version. The handshake is over.
    Version(BoltVersion),
    /// `00 00 00 00`: nothing in common; the server closes the connection.
    NoVersion,
    /// `00 00 01 FF` and a manifest v1 offer; the client must answer with a
    /// [`ManifestPick`].
    Manifest(ManifestOffer),
}

impl ServerResponse {
    /// Parses the server's reply. Returns the reply and the bytes it took.
    ///
    /// # Errors
    ///
    /// [`HandshakeError::HttpResponse`], [`HandshakeError::MalformedVersion`],
    /// [`HandshakeError::UnknownManifestVersion`] and the manifest body errors.
    pub fn parse(input: &[u8]) -> Result<Status<(Self, usize)>, HandshakeError> {
        let Some(head) = input.get(..4) else {
            return Ok(Status::NeedMore);
        };
        match take4(head) {
            NO_VERSION => Ok(Status::Complete((Self::NoVersion, 4))),
            HTTP => Err(HandshakeError::HttpResponse { offset: 0 }),
            MANIFEST_V1 => {
                let body = input.get(4..).unwrap_or_default();
                Ok(match ManifestOffer::parse_body_at(body, 4)? {
                    Status::Complete((offer, n)) => {
                        Status::Complete((Self::Manifest(offer), 4 + n))
                    }
                    Status::NeedMore => Status::NeedMore,
                })
            }
            [0, 0, version, 0xFF] => {
                Err(HandshakeError::UnknownManifestVersion { offset: 0, version })
            }
            bytes => Ok(Status::Complete((
                Self::Version(strict_version(bytes, 0)?),
                4,
            ))),
        }
    }

    /// Appends the reply's bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Self::Version(v) => out.extend_from_slice(&v.to_bytes()),
            Self::NoVersion => out.extend_from_slice(&NO_VERSION),
            Self::Manifest(offer) => offer.encode(out),
        }
    }
}

/// The client's answer to a manifest offer: one exact version and the capability bits it
/// selects (docs/protocol.md §3.4). Version `0.0` means "nothing in common".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ManifestPick {
    /// The chosen version (`0.0` = none).
    pub version: BoltVersion,
    /// The selected capability bits.
    pub capabilities: u64,
}

impl ManifestPick {
    /// The pick a client sends when it supports none of the offered versions:
    /// `00 00 00 00` and capabilities `00`.
    pub const NONE: Self = Self {
        version: BoltVersion::new(0, 0),
        capabilities: 0,
    };

    /// Appends `00 00 mm MM` and the capabilities varint.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.version.to_bytes());
        encode_varint(self.capabilities, out);
    }

    /// Parses a pick; returns it and the bytes consumed (5 to 14).
    ///
    /// # Errors
    ///
    /// [`HandshakeError::MalformedVersion`] (a range byte or reserved byte set) and varint
    /// errors, offsets relative to `input`.
    pub fn parse(input: &[u8]) -> Result<Status<(Self, usize)>, HandshakeError> {
        Self::parse_at(input, 0)
    }

    fn parse_at(input: &[u8], base: usize) -> Result<Status<(Self, usize)>, HandshakeError> {
        let Some(head) = input.get(..4) else {
            return Ok(Status::NeedMore);
        };
        let version = strict_version(take4(head), base)?;
        let rest = input.get(4..).unwrap_or_default();
        Ok(match decode_varint_at(rest, base + 4)? {
            Status::Complete((capabilities, n)) => Status::Complete((
                Self {
                    version,
                    capabilities,
                },
                4 + n,
            )),
            Status::NeedMore => Status::NeedMore,
        })
    }
}

// ---------------------------------------------------------------------------------------
// State machines
// ---------------------------------------------------------------------------------------

/// What a handshake state machine wants next. Returned by [`ClientHandshake::receive`]
/// and [`ServerHandshake::receive`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum Step {
    /// Every byte given was buffered; call `receive` again when more arrive.
    NeedMore,
    /// Send `send` to the peer and keep feeding its bytes (the server after offering a
    /// manifest). `input[consumed..]` was not used and must be fed again.
    Continue {
        /// Bytes to send.
        send: Vec<u8>,
        /// How many bytes of the last input the handshake used.
        consumed: usize,
    },
    /// The handshake is complete. Send `send` (possibly empty: the client's manifest
    /// pick); `input[consumed..]` already belongs to the message stream.
    Negotiated {
        /// The agreed version, with the agreed capability bits.
        version: BoltVersion,
        /// Bytes to send (may be empty).
        send: Vec<u8>,
        /// How many bytes of the last input the handshake used.
        consumed: usize,
    },
    /// Nothing in common. Send `send` (possibly empty), then close the connection.
    Rejected {
        /// Bytes to send (may be empty).
        send: Vec<u8>,
        /// How many bytes of the last input the handshake used.
        consumed: usize,
    },
}

/// Keeps versions this crate knows, newest first, without duplicates (by number).
fn normalize(versions: &[BoltVersion]) -> Vec<BoltVersion> {
    let mut out: Vec<BoltVersion> = versions.iter().copied().filter(|v| v.is_known()).collect();
    out.sort_by(|a, b| b.cmp(a));
    out.dedup_by(|a, b| a.same_number(*b));
    out
}

/// Appends as much of `input` as a phase can need to `buf`; returns how many bytes of
/// `input` were appended.
fn buffer_phase(buf: &mut Vec<u8>, input: &[u8], max: usize) -> usize {
    let take = max.saturating_sub(buf.len()).min(input.len());
    buf.extend_from_slice(input.get(..take).unwrap_or_default());
    take
}

/// What the client offers and supports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    proposals: [Proposal; 4],
    supported: Vec<BoltVersion>,
    capabilities: u64,
}

impl Default for ClientConfig {
    /// Slots `00 00 01 FF` (manifest v1), `00 01 01 06` (6.1–6.0), `00 08 08 05`
    /// (5.8–5.0), `00 00 04 04` (4.4); supports [`BoltVersion::SUPPORTED`]; selects no
    /// capability bits.
    ///
    /// A server that does not know the manifest skips the marker and picks from the
    /// other slots; 5.5 inside the 5.8–5.0 range is harmless because no server picks it
    /// (and this client would refuse it).
    fn default() -> Self {
        Self::new([
            Proposal::MANIFEST_V1,
            Proposal::Versions(VersionRange::new(6, 1, 1)),
            Proposal::Versions(VersionRange::new(5, 8, 8)),
            Proposal::exact(BoltVersion::V4_4),
        ])
    }
}

impl ClientConfig {
    /// A config with these proposal slots, supporting [`BoltVersion::SUPPORTED`] and
    /// selecting no capability bits.
    ///
    /// Each slot is stored as a server will read it ([`Proposal::from_bytes`] of its
    /// bytes): a Bolt 1–3 range is just its major version.
    #[must_use]
    pub fn new(proposals: [Proposal; 4]) -> Self {
        Self {
            proposals: proposals.map(|p| Proposal::from_bytes(p.to_bytes())),
            supported: BoltVersion::SUPPORTED.to_vec(),
            capabilities: 0,
        }
    }

    /// The default offer without the manifest: `00 01 01 06`, `00 08 08 05`,
    /// `00 00 04 04`, `00 00 00 00`.
    #[must_use]
    pub fn legacy() -> Self {
        Self::new([
            Proposal::Versions(VersionRange::new(6, 1, 1)),
            Proposal::Versions(VersionRange::new(5, 8, 8)),
            Proposal::exact(BoltVersion::V4_4),
            Proposal::Empty,
        ])
    }

    /// Sets the versions this client implements. Versions that are not
    /// [`BoltVersion::is_known`] (5.5, unknown numbers) are dropped; the list is sorted
    /// newest first. The manifest choice takes the newest of these that the server
    /// offers, and a legacy reply outside them is refused.
    #[must_use]
    pub fn with_supported(mut self, versions: &[BoltVersion]) -> Self {
        self.supported = normalize(versions);
        self
    }

    /// Sets the capability bits this client understands; the pick selects the offered
    /// ones among them. No public bits exist yet (docs/protocol.md §3.4, §11): keep 0.
    #[must_use]
    pub fn with_capabilities(mut self, capabilities: u64) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The proposal slots.
    #[must_use]
    pub fn proposals(&self) -> &[Proposal; 4] {
        &self.proposals
    }

    /// The supported versions, newest first.
    #[must_use]
    pub fn supported(&self) -> &[BoltVersion] {
        &self.supported
    }

    /// The capability bits this client understands.
    #[must_use]
    pub fn capabilities(&self) -> u64 {
        self.capabilities
    }

    /// Whether a slot offers manifest v1.
    #[must_use]
    pub fn offers_manifest(&self) -> bool {
        self.proposals.contains(&Proposal::MANIFEST_V1)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Running,
    Finished,
}

/// The client side of the handshake.
///
/// 1. Send [`ClientHandshake::hello`].
/// 2. Feed every byte the server sends to [`ClientHandshake::receive`] until it returns
///    something other than [`Step::NeedMore`].
/// 3. On [`Step::Negotiated`] send `send` (the manifest pick, empty after a legacy
///    reply); bytes after `consumed` are the start of the message stream.
///
/// The client checks that a legacy reply names a version it offered and supports, and
/// picks from a manifest the newest version in [`ClientConfig::supported`] that the server
/// offers (never 5.5).
///
/// ```
/// use bolt::handshake::{ClientConfig, ClientHandshake, Step};
/// use bolt::BoltVersion;
///
/// let mut client = ClientHandshake::new(ClientConfig::legacy());
/// assert_eq!(&client.hello()[..8], [0x60, 0x60, 0xB0, 0x17, 0x00, 0x01, 0x01, 0x06]);
/// assert_eq!(client.receive(&[0x00, 0x00])?, Step::NeedMore);
/// let step = client.receive(&[0x08, 0x05])?;
/// assert_eq!(step, Step::Negotiated { version: BoltVersion::V5_8, send: vec![], consumed: 2 });
/// # Ok::<(), bolt::handshake::HandshakeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ClientHandshake {
    config: ClientConfig,
    buf: Vec<u8>,
    phase: Phase,
    error: Option<HandshakeError>,
}

impl ClientHandshake {
    /// A client handshake with this configuration.
    #[must_use]
    pub fn new(config: ClientConfig) -> Self {
        Self {
            config,
            buf: Vec::new(),
            phase: Phase::Running,
            error: None,
        }
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The 20 bytes to send first: magic and proposals.
    #[must_use]
    pub fn hello(&self) -> [u8; CLIENT_HELLO_LEN] {
        ClientHello {
            proposals: self.config.proposals,
        }
        .to_bytes()
    }

    /// Feeds bytes received from the server.
    ///
    /// # Errors
    ///
    /// Any [`HandshakeError`] of a malformed or unacceptable reply; after one, every call
    /// returns it again. [`HandshakeError::Finished`] once the handshake is complete.
    pub fn receive(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.phase == Phase::Finished {
            return Err(HandshakeError::Finished);
        }
        let result = self.receive_inner(input);
        match &result {
            Err(e) => self.error = Some(e.clone()),
            Ok(Step::NeedMore) => {}
            Ok(_) => {
                self.phase = Phase::Finished;
                self.buf = Vec::new();
            }
        }
        result
    }

    fn receive_inner(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        let before = self.buf.len();
        buffer_phase(&mut self.buf, input, MAX_SERVER_RESPONSE_LEN);
        let (response, used) = match ServerResponse::parse(&self.buf)? {
            Status::Complete(v) => v,
            Status::NeedMore => return Ok(Step::NeedMore),
        };
        let consumed = used.saturating_sub(before);
        match response {
            ServerResponse::NoVersion => Ok(Step::Rejected {
                send: Vec::new(),
                consumed,
            }),
            ServerResponse::Version(version) => {
                let offered = self.config.proposals.iter().any(|p| match p {
                    Proposal::Versions(r) => r.contains_equivalent(version),
                    _ => false,
                });
                if !offered {
                    return Err(HandshakeError::VersionNotOffered { offset: 0, version });
                }
                if !self
                    .config
                    .supported
                    .iter()
                    .any(|s| s.is_equivalent(version))
                {
                    return Err(HandshakeError::UnsupportedVersion { offset: 0, version });
                }
                Ok(Step::Negotiated {
                    version,
                    send: Vec::new(),
                    consumed,
                })
            }
            ServerResponse::Manifest(offer) => {
                if !self.config.offers_manifest() {
                    return Err(HandshakeError::ManifestNotOffered { offset: 0 });
                }
                let mut send = Vec::with_capacity(MAX_PICK_LEN);
                match offer.choose(&self.config.supported) {
                    Some(version) => {
                        let capabilities = offer.capabilities & self.config.capabilities;
                        ManifestPick {
                            version,
                            capabilities,
                        }
                        .encode(&mut send);
                        Ok(Step::Negotiated {
                            version: version.with_capabilities(capabilities),
                            send,
                            consumed,
                        })
                    }
                    None => {
                        ManifestPick::NONE.encode(&mut send);
                        Ok(Step::Rejected { send, consumed })
                    }
                }
            }
        }
    }
}

/// What the server supports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    supported: Vec<BoltVersion>,
    manifest: bool,
    capabilities: u64,
}

impl Default for ServerConfig {
    /// Supports [`BoltVersion::SUPPORTED`], answers manifest v1 proposals, offers no
    /// capability bits.
    fn default() -> Self {
        Self::new(BoltVersion::SUPPORTED)
    }
}

impl ServerConfig {
    /// A config supporting `versions` (those that are not [`BoltVersion::is_known`] —
    /// 5.5 and unknown numbers — are dropped), answering manifest proposals, offering no
    /// capability bits.
    #[must_use]
    pub fn new(versions: &[BoltVersion]) -> Self {
        Self {
            supported: normalize(versions),
            manifest: true,
            capabilities: 0,
        }
    }

    /// Whether to answer a manifest v1 proposal with a manifest offer (default `true`).
    /// When `false` the server behaves like one that predates manifests and skips the
    /// marker slot.
    #[must_use]
    pub fn with_manifest(mut self, enabled: bool) -> Self {
        self.manifest = enabled;
        self
    }

    /// Sets the capability bits offered in a manifest.
    #[must_use]
    pub fn with_capabilities(mut self, capabilities: u64) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The supported versions, newest first.
    #[must_use]
    pub fn supported(&self) -> &[BoltVersion] {
        &self.supported
    }

    /// The version ranges of a manifest offer: the supported versions grouped into
    /// contiguous ranges, ordered by major then minor ascending (the order the Neo4j
    /// server uses, e.g. `00 04 04 04  00 04 04 05  00 02 08 05  00 01 01 06`).
    #[must_use]
    pub fn manifest_ranges(&self) -> Vec<VersionRange> {
        let mut out: Vec<VersionRange> = Vec::new();
        for v in self.supported.iter().rev() {
            if let Some(last) = out.last_mut() {
                let extends = last.major == v.major()
                    && last.minor.checked_add(1) == Some(v.minor())
                    && last.range < u8::MAX;
                if extends {
                    last.minor = v.minor();
                    last.range += 1;
                    continue;
                }
            }
            out.push(VersionRange::exact(*v));
        }
        out
    }

    /// The complete manifest offer.
    #[must_use]
    pub fn manifest_offer(&self) -> ManifestOffer {
        ManifestOffer {
            ranges: self.manifest_ranges(),
            capabilities: self.capabilities,
        }
    }

    /// Whether the server supports exactly `version`'s number.
    fn supports(&self, version: BoltVersion) -> bool {
        self.supported.iter().any(|s| s.same_number(version))
    }

    /// Whether the server supports `version` or a version equivalent to it (4.1 ≈ 4.2).
    fn supports_equivalent(&self, version: BoltVersion) -> bool {
        self.supported.iter().any(|s| s.is_equivalent(version))
    }

    /// The version to answer for one proposed range: the newest version of the range the
    /// server supports exactly, else the newest it supports through equivalence (named
    /// as the client wrote it, so the client recognises it).
    fn pick_from(&self, range: VersionRange) -> Option<BoltVersion> {
        range
            .versions()
            .find(|v| self.supports(*v))
            .or_else(|| range.versions().find(|v| self.supports_equivalent(*v)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ServerPhase {
    Hello,
    Pick,
    Finished,
}

/// The server side of the handshake.
///
/// 1. Feed the client's bytes to [`ServerHandshake::receive`].
/// 2. On [`Step::Negotiated`] send `send` (the 4-byte version); on [`Step::Rejected`]
///    send `send` (`00 00 00 00`, or nothing after a manifest) and close; on
///    [`Step::Continue`] send the manifest offer and keep feeding: the client's pick
///    completes the handshake. Bytes after `consumed` are not handshake bytes (after
///    `Negotiated`, the client's first messages).
///
/// The proposals are tried in the client's order; the first slot that yields a supported
/// version (the newest of its range) or an acceptable manifest marker wins. 4.1 and 4.2
/// are interchangeable: when a range holds no version the server supports exactly but
/// one it supports through that equivalence, the reply names the version as the client
/// wrote it (docs/protocol.md §3.3, §9.1).
///
/// ```
/// use bolt::handshake::{ServerConfig, ServerHandshake, Step};
/// use bolt::BoltVersion;
///
/// let mut server = ServerHandshake::new(ServerConfig::default());
/// let hello = [0x60, 0x60, 0xB0, 0x17, 0, 0, 4, 4, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0];
/// let step = server.receive(&hello)?;
/// assert_eq!(step, Step::Negotiated { version: BoltVersion::V4_4, send: vec![0, 0, 4, 4], consumed: 20 });
/// # Ok::<(), bolt::handshake::HandshakeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ServerHandshake {
    config: ServerConfig,
    buf: Vec<u8>,
    phase: ServerPhase,
    error: Option<HandshakeError>,
}

impl ServerHandshake {
    /// A server handshake with this configuration.
    #[must_use]
    pub fn new(config: ServerConfig) -> Self {
        Self {
            config,
            buf: Vec::new(),
            phase: ServerPhase::Hello,
            error: None,
        }
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The version the server picks from these proposals, or `Ok(None)` for a manifest
    /// offer, or `Err(())` when nothing fits.
    fn choose(&self, hello: &ClientHello) -> Result<Option<BoltVersion>, ()> {
        for proposal in &hello.proposals {
            match *proposal {
                Proposal::Empty => {}
                Proposal::Manifest(1) if self.config.manifest => return Ok(None),
                Proposal::Manifest(_) => {}
                Proposal::Versions(range) => {
                    if let Some(v) = self.config.pick_from(range) {
                        return Ok(Some(v));
                    }
                }
            }
        }
        Err(())
    }

    /// Feeds bytes received from the client.
    ///
    /// # Errors
    ///
    /// [`HandshakeError::BadMagic`], and in the manifest exchange
    /// [`HandshakeError::MalformedVersion`], [`HandshakeError::VersionNotOffered`],
    /// [`HandshakeError::CapabilitiesNotOffered`] and varint errors. After an error every
    /// call returns it again; [`HandshakeError::Finished`] once the handshake is complete.
    pub fn receive(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let result = match self.phase {
            ServerPhase::Finished => return Err(HandshakeError::Finished),
            ServerPhase::Hello => self.receive_hello(input),
            ServerPhase::Pick => self.receive_pick(input),
        };
        match &result {
            Err(e) => self.error = Some(e.clone()),
            Ok(Step::NeedMore) => {}
            Ok(Step::Continue { .. }) => {
                self.phase = ServerPhase::Pick;
                self.buf.clear();
            }
            Ok(_) => {
                self.phase = ServerPhase::Finished;
                self.buf = Vec::new();
            }
        }
        result
    }

    fn receive_hello(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        let before = self.buf.len();
        buffer_phase(&mut self.buf, input, CLIENT_HELLO_LEN);
        let (hello, used) = match ClientHello::parse(&self.buf)? {
            Status::Complete(v) => v,
            Status::NeedMore => return Ok(Step::NeedMore),
        };
        let consumed = used.saturating_sub(before);
        Ok(match self.choose(&hello) {
            Ok(Some(version)) => Step::Negotiated {
                version,
                send: version.to_bytes().to_vec(),
                consumed,
            },
            Ok(None) => {
                let mut send = Vec::new();
                self.config.manifest_offer().encode(&mut send);
                Step::Continue { send, consumed }
            }
            Err(()) => Step::Rejected {
                send: NO_VERSION.to_vec(),
                consumed,
            },
        })
    }

    fn receive_pick(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        let before = self.buf.len();
        buffer_phase(&mut self.buf, input, MAX_PICK_LEN);
        let (pick, used) = match ManifestPick::parse_at(&self.buf, CLIENT_HELLO_LEN)? {
            Status::Complete(v) => v,
            Status::NeedMore => return Ok(Step::NeedMore),
        };
        let consumed = used.saturating_sub(before);
        if pick.version.to_bytes() == NO_VERSION {
            return Ok(Step::Rejected {
                send: Vec::new(),
                consumed,
            });
        }
        if !self.config.supports(pick.version) {
            return Err(HandshakeError::VersionNotOffered {
                offset: CLIENT_HELLO_LEN,
                version: pick.version,
            });
        }
        if pick.capabilities & !self.config.capabilities != 0 {
            return Err(HandshakeError::CapabilitiesNotOffered {
                offset: CLIENT_HELLO_LEN + 4,
                selected: pick.capabilities,
                offered: self.config.capabilities,
            });
        }
        Ok(Step::Negotiated {
            version: pick.version.with_capabilities(pick.capabilities),
            send: Vec::new(),
            consumed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BoltVersion as V;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Feeds `input` one byte at a time; returns the final step and the index of the byte
    /// that completed it.
    fn feed_bytewise(
        mut receive: impl FnMut(&[u8]) -> Result<Step, HandshakeError>,
        input: &[u8],
    ) -> Result<(Step, usize), HandshakeError> {
        for (i, b) in input.iter().enumerate() {
            match receive(std::slice::from_ref(b))? {
                Step::NeedMore => {}
                step => return Ok((step, i)),
            }
        }
        Ok((Step::NeedMore, input.len()))
    }

    /// The servers of the captures: Neo4j 5.26 installs 4.0–4.4, 5.0–5.4 and 5.6–5.8.
    fn neo4j_5_26() -> ServerConfig {
        ServerConfig::new(&[
            V::V4_0,
            V::V4_1,
            V::V4_2,
            V::V4_3,
            V::V4_4,
            V::V5_0,
            V::V5_1,
            V::V5_2,
            V::V5_3,
            V::V5_4,
            V::V5_6,
            V::V5_7,
            V::V5_8,
        ])
    }

    /// Neo4j 2026.08 adds 6.0 and 6.1.
    fn neo4j_2026() -> ServerConfig {
        let mut v = neo4j_5_26().supported().to_vec();
        v.extend([V::V6_0, V::V6_1]);
        ServerConfig::new(&v)
    }

    fn config_from_hello(hello: &[u8]) -> ClientConfig {
        let Status::Complete((h, 20)) = ClientHello::parse(hello).unwrap() else {
            panic!("incomplete hello")
        };
        ClientConfig::new(h.proposals)
    }

    #[test]
    fn varint_vectors() {
        // docs/protocol.md §3.4
        let table: [(u64, &str); 9] = [
            (0, "00"),
            (1, "01"),
            (127, "7f"),
            (128, "8001"),
            (300, "ac02"),
            (1_851_775, "ff8271"),
            (u64::from(u32::MAX), "ffffffff0f"),
            (1 << 63, "80808080808080808001"),
            (u64::MAX, "ffffffffffffffffff01"),
        ];
        for (value, bytes) in table {
            let mut out = Vec::new();
            encode_varint(value, &mut out);
            assert_eq!(out, hex(bytes), "{value}");
            assert_eq!(varint_len(value), out.len(), "{value}");
            assert_eq!(
                decode_varint(&out),
                Ok(Status::Complete((value, out.len())))
            );
            for cut in 0..out.len() {
                assert_eq!(decode_varint(&out[..cut]), Ok(Status::NeedMore));
            }
        }
        // non-minimal forms are valid LEB128
        assert_eq!(decode_varint(&hex("8000")), Ok(Status::Complete((0, 2))));
        assert_eq!(
            decode_varint(&hex("ff00ff")),
            Ok(Status::Complete((127, 2)))
        );
    }

    #[test]
    fn varint_rejects_overlong_and_overflow() {
        assert_eq!(
            decode_varint(&[0x80; 10]),
            Err(HandshakeError::VarintTooLong { offset: 9 })
        );
        // 9 continuation bytes then a 10th byte: only 0 or 1 fit in 64 bits.
        let mut v = vec![0xFF; 9];
        v.push(0x02);
        assert_eq!(
            decode_varint(&v),
            Err(HandshakeError::VarintOverflow { offset: 9 })
        );
        // the error comes as soon as the 10th byte is there
        assert_eq!(decode_varint(&[0x80; 9]), Ok(Status::NeedMore));
    }

    #[test]
    fn ranges_and_proposals() {
        let r = VersionRange::from_bytes([0, 8, 8, 5]);
        assert_eq!(r.versions().count(), 9);
        assert!(r.contains(V::new(5, 5))); // the range covers it; choosing is another matter
        assert_eq!(r.to_bytes(), [0, 8, 8, 5]);
        // range larger than minor stops at 0
        let r = VersionRange::new(5, 2, 9);
        assert_eq!(r.lowest(), V::V5_0);
        assert_eq!(r.versions().count(), 3);
        // Bolt 1-3 slots: only the major byte counts
        assert_eq!(
            VersionRange::from_bytes([0, 3, 5, 3]),
            VersionRange::exact(V::V3_0)
        );
        assert_eq!(
            VersionRange::between(V::V5_8, V::V5_6),
            Some(VersionRange::new(5, 8, 2))
        );
        assert_eq!(VersionRange::between(V::V5_0, V::V4_4), None);
        assert_eq!(VersionRange::between(V::V5_0, V::V5_1), None);
        assert!(VersionRange::exact(V::V4_1).contains_equivalent(V::V4_2));
        assert!(!VersionRange::exact(V::V4_3).contains_equivalent(V::V4_2));

        assert_eq!(Proposal::from_bytes(MANIFEST_V1), Proposal::MANIFEST_V1);
        assert_eq!(Proposal::from_bytes([0, 0, 2, 0xFF]), Proposal::Manifest(2));
        assert_eq!(Proposal::from_bytes(NO_VERSION), Proposal::Empty);
        assert_eq!(Proposal::from_bytes([7, 0, 0, 0]), Proposal::Empty); // reserved byte ignored
        assert_eq!(Proposal::MANIFEST_V1.to_bytes(), MANIFEST_V1);
        assert_eq!(
            Proposal::range(V::V6_1, V::V6_0).map(Proposal::to_bytes),
            Some([0, 1, 1, 6])
        );
    }

    #[test]
    fn default_client_hello_bytes() {
        assert_eq!(
            ClientHandshake::new(ClientConfig::default())
                .hello()
                .to_vec(),
            hex("6060b017 000001ff 00010106 00080805 00000404")
        );
        assert_eq!(
            ClientHandshake::new(ClientConfig::legacy())
                .hello()
                .to_vec(),
            hex("6060b017 00010106 00080805 00000404 00000000")
        );
        assert!(ClientConfig::default().offers_manifest());
        assert!(!ClientConfig::legacy().offers_manifest());
    }

    /// `neo4j-5.26.30/bolt-5.8/node.txt`: manifest handshake as sent by the Python driver.
    #[test]
    fn capture_5_26_bolt_5_8_manifest() {
        let c2s_hello = hex("6060b017000001ff000808050002040400000003");
        let s2c = hex("000001ff0300040404000404050002080500");
        let c2s_pick = hex("0000080500");

        // client role, fed in one piece and byte by byte
        let config = config_from_hello(&c2s_hello);
        let mut client = ClientHandshake::new(config.clone());
        assert_eq!(client.hello().to_vec(), c2s_hello);
        let expected = Step::Negotiated {
            version: V::V5_8,
            send: c2s_pick.clone(),
            consumed: s2c.len(),
        };
        assert_eq!(client.receive(&s2c), Ok(expected));
        assert_eq!(client.receive(&[]), Err(HandshakeError::Finished));
        let mut client = ClientHandshake::new(config);
        let (step, at) = feed_bytewise(|b| client.receive(b), &s2c).unwrap();
        assert_eq!(at, s2c.len() - 1);
        assert!(
            matches!(step, Step::Negotiated { version: V::V5_8, ref send, consumed: 1 } if *send == c2s_pick)
        );

        // server role
        let mut server = ServerHandshake::new(neo4j_5_26());
        assert_eq!(
            server.receive(&c2s_hello),
            Ok(Step::Continue {
                send: s2c.clone(),
                consumed: 20
            })
        );
        assert_eq!(
            server.receive(&c2s_pick),
            Ok(Step::Negotiated {
                version: V::V5_8,
                send: vec![],
                consumed: 5
            })
        );
    }

    /// `neo4j-2026.08.1/bolt-6.1/node.txt`: the server also offers 6.1–6.0.
    #[test]
    fn capture_2026_bolt_6_1_manifest() {
        let c2s_hello = hex("6060b017000001ff000808050002040400000003");
        let s2c = hex("000001ff040004040400040405000208050001010600");
        let c2s_pick = hex("0000010600");

        let mut client = ClientHandshake::new(config_from_hello(&c2s_hello));
        assert_eq!(
            client.receive(&s2c),
            Ok(Step::Negotiated {
                version: V::V6_1,
                send: c2s_pick.clone(),
                consumed: s2c.len()
            })
        );
        let mut server = ServerHandshake::new(neo4j_2026());
        assert_eq!(
            server.receive(&c2s_hello),
            Ok(Step::Continue {
                send: s2c,
                consumed: 20
            })
        );
        assert_eq!(
            server.receive(&c2s_pick),
            Ok(Step::Negotiated {
                version: V::V6_1,
                send: vec![],
                consumed: 5
            })
        );
        // the ranges the server lists, in its order
        assert_eq!(
            neo4j_2026()
                .manifest_ranges()
                .iter()
                .map(|r| r.to_bytes())
                .collect::<Vec<_>>(),
            [[0, 4, 4, 4], [0, 4, 4, 5], [0, 2, 8, 5], [0, 1, 1, 6]]
        );
    }

    /// `neo4j-5.26.30/bolt-4.4/node.txt` and `neo4j-5.26.30/bolt-5.0/node.txt`: legacy
    /// handshakes (the capture proxy rewrote the proposals).
    #[test]
    fn capture_5_26_legacy() {
        for (c2s, s2c, version) in [
            (
                "6060b01700000404000000000000000000000000",
                "00000404",
                V::V4_4,
            ),
            (
                "6060b01700000005000000000000000000000000",
                "00000005",
                V::V5_0,
            ),
        ] {
            let (c2s, s2c) = (hex(c2s), hex(s2c));
            let mut server = ServerHandshake::new(neo4j_5_26());
            assert_eq!(
                server.receive(&c2s),
                Ok(Step::Negotiated {
                    version,
                    send: s2c.clone(),
                    consumed: 20
                })
            );
            let mut client = ClientHandshake::new(config_from_hello(&c2s));
            assert_eq!(client.hello().to_vec(), c2s);
            assert_eq!(
                client.receive(&s2c),
                Ok(Step::Negotiated {
                    version,
                    send: vec![],
                    consumed: 4
                })
            );
        }
    }

    /// docs/protocol.md §3.3 examples.
    #[test]
    fn reference_legacy_examples() {
        // a 4.1 server and the offer 4.3..4.0, 4.1, 4.0, 3
        let hello = hex("6060b017 00030304 00000104 00000004 00000003");
        let mut server = ServerHandshake::new(ServerConfig::new(&[V::V4_1]));
        assert_eq!(
            server.receive(&hello),
            Ok(Step::Negotiated {
                version: V::V4_1,
                send: hex("00000104"),
                consumed: 20
            })
        );
        // Bolt 3
        let hello = hex("6060b017 00000003 00000002 00000001 00000000");
        let mut server = ServerHandshake::new(ServerConfig::new(&[V::V3_0, V::V4_4]));
        assert_eq!(
            server.receive(&hello),
            Ok(Step::Negotiated {
                version: V::V3_0,
                send: hex("00000003"),
                consumed: 20
            })
        );
    }

    #[test]
    fn four_two_is_four_one() {
        // client offers only 4.2, server supports only 4.1: reply names 4.2
        let hello = hex("6060b017 00000204 00000000 00000000 00000000");
        let mut server = ServerHandshake::new(ServerConfig::new(&[V::V4_1]));
        assert_eq!(
            server.receive(&hello),
            Ok(Step::Negotiated {
                version: V::V4_2,
                send: hex("00000204"),
                consumed: 20
            })
        );
        // a client that offered 4.1 accepts a server that answers 4.2
        let config = ClientConfig::new([
            Proposal::exact(V::V4_1),
            Proposal::Empty,
            Proposal::Empty,
            Proposal::Empty,
        ])
        .with_supported(&[V::V4_1]);
        let mut client = ClientHandshake::new(config);
        assert_eq!(
            client.receive(&hex("00000204")),
            Ok(Step::Negotiated {
                version: V::V4_2,
                send: vec![],
                consumed: 4
            })
        );
    }

    /// docs/protocol.md §3.4, the docs example: a client supporting up to 5.7 with
    /// capability bit 0b1000.
    #[test]
    fn reference_manifest_example() {
        let supported: Vec<V> = V::SUPPORTED
            .iter()
            .copied()
            .filter(|v| *v <= V::V5_7)
            .collect();
        let config = config_from_hello(&hex("6060b017 000001ff 00000404 00000003 00000002"))
            .with_supported(&supported)
            .with_capabilities(0b1000);
        let mut client = ClientHandshake::new(config);
        assert_eq!(
            client.receive(&hex("000001ff 02 00020805 00040404 09")),
            Ok(Step::Negotiated {
                version: V::V5_7.with_capabilities(0b1000),
                send: hex("00000705 08"),
                consumed: 14
            })
        );
    }

    /// docs/protocol.md §3.4, the testkit vectors (driver supporting up to 5.7; unknown
    /// majors skipped; a wide range does not make the client pick a version it lacks).
    #[test]
    fn testkit_manifest_vectors() {
        let up_to_5_7: Vec<V> = V::SUPPORTED
            .iter()
            .copied()
            .filter(|v| *v <= V::V5_7)
            .collect();
        let cases = [
            ("000001ff 03 00070705 00040404 00000003 00", "0000070500"),
            ("000001ff 03 00000003 00070705 00040404 00", "0000070500"),
            ("000001ff 03 00000003 00040404 00070705 00", "0000070500"),
            ("000001ff 02 000707f2 00070705 00", "0000070500"),
            ("000001ff 02 00000404 00ffff05 00", "0000070500"),
        ];
        for (offer, pick) in cases {
            let config = ClientConfig::default().with_supported(&up_to_5_7);
            let mut client = ClientHandshake::new(config);
            let Ok(Step::Negotiated { send, .. }) = client.receive(&hex(offer)) else {
                panic!("{offer}")
            };
            assert_eq!(send, hex(pick), "{offer}");
        }
        // with everything supported, the 5.255..5.0 range gives 5.8, never 5.5
        let mut client = ClientHandshake::new(ClientConfig::default());
        let Ok(Step::Negotiated { version, send, .. }) =
            client.receive(&hex("000001ff 02 00000404 00ffff05 00"))
        else {
            panic!()
        };
        assert_eq!((version, send), (V::V5_8, hex("0000080500")));
        // 5.5 alone is never picked
        let mut client = ClientHandshake::new(ClientConfig::default());
        assert_eq!(
            client.receive(&hex("000001ff 01 00000505 00")),
            Ok(Step::Rejected {
                send: hex("0000000000"),
                consumed: 10
            })
        );
    }

    #[test]
    fn client_capabilities_are_intersected() {
        let mut client = ClientHandshake::new(ClientConfig::default().with_capabilities(0b0110));
        assert_eq!(
            client.receive(&hex("000001ff 01 00000805 8501")), // caps 0x85 = 0b1000_0101
            Ok(Step::Negotiated {
                version: V::V5_8.with_capabilities(0b0100),
                send: hex("00000805 04"),
                consumed: 11
            })
        );
    }

    #[test]
    fn client_errors() {
        let client = || ClientHandshake::new(ClientConfig::default());
        assert_eq!(
            client().receive(b"HTTP/1.1 400"),
            Err(HandshakeError::HttpResponse { offset: 0 })
        );
        assert_eq!(
            client().receive(&hex("01000404")),
            Err(HandshakeError::MalformedVersion {
                offset: 0,
                found: [1, 0, 4, 4]
            })
        );
        assert_eq!(
            client().receive(&hex("00000002")),
            Err(HandshakeError::VersionNotOffered {
                offset: 0,
                version: V::new(2, 0)
            })
        );
        // 5.5 is inside the offered 5.8..5.0 range, but this client does not speak it
        assert_eq!(
            client().receive(&hex("00000505")),
            Err(HandshakeError::UnsupportedVersion {
                offset: 0,
                version: V::new(5, 5)
            })
        );
        assert_eq!(
            client().receive(&hex("000002ff")),
            Err(HandshakeError::UnknownManifestVersion {
                offset: 0,
                version: 2
            })
        );
        let mut legacy = ClientHandshake::new(ClientConfig::legacy());
        assert_eq!(
            legacy.receive(&hex("000001ff 01 00000805 00")),
            Err(HandshakeError::ManifestNotOffered { offset: 0 })
        );
        // too many ranges is reported from the count alone
        assert_eq!(
            client().receive(&hex("000001ff 8102")),
            Err(HandshakeError::TooManyRanges {
                offset: 4,
                count: 257,
                max: MAX_MANIFEST_RANGES
            })
        );
        // capabilities varint overflow, offset in the server stream
        let mut c = client();
        let err = c.receive(&hex("000001ff 01 00000805 ffffffffffffffffff7f"));
        assert_eq!(err, Err(HandshakeError::VarintOverflow { offset: 18 }));
        // poisoned: the same error again
        assert_eq!(c.receive(&[0]), err);
        // nothing in common, legacy
        assert_eq!(
            client().receive(&hex("00000000 ffff")),
            Ok(Step::Rejected {
                send: vec![],
                consumed: 4
            })
        );
    }

    #[test]
    fn client_consumed_leaves_stream_bytes() {
        let mut client = ClientHandshake::new(ClientConfig::default());
        assert_eq!(client.receive(&hex("000001ff 01")), Ok(Step::NeedMore));
        let step = client.receive(&hex("00000805 00 0002b07e0000"));
        assert!(matches!(step, Ok(Step::Negotiated { consumed: 5, .. })));
    }

    #[test]
    fn server_errors_and_edge_cases() {
        let server = || ServerHandshake::new(ServerConfig::default());
        // wrong magic fails on the first wrong byte
        assert_eq!(
            server().receive(b"G"),
            Err(HandshakeError::BadMagic {
                offset: 0,
                expected: 0x60,
                found: b'G'
            })
        );
        let mut s = server();
        assert_eq!(s.receive(&[0x60, 0x60]), Ok(Step::NeedMore));
        assert_eq!(
            s.receive(&[0xB0, 0x18]),
            Err(HandshakeError::BadMagic {
                offset: 3,
                expected: 0x17,
                found: 0x18
            })
        );
        // nothing in common
        assert_eq!(
            server().receive(&hex("6060b017 00000003 00000002 00000001 00000000")),
            Ok(Step::Rejected {
                send: hex("00000000"),
                consumed: 20
            })
        );
        // manifest disabled: the marker slot is skipped
        let mut s = ServerHandshake::new(ServerConfig::default().with_manifest(false));
        assert_eq!(
            s.receive(&hex("6060b017 000001ff 00080805 00000404 00000000")),
            Ok(Step::Negotiated {
                version: V::V5_8,
                send: hex("00000805"),
                consumed: 20
            })
        );
        // unknown manifest versions are skipped
        assert_eq!(
            server().receive(&hex("6060b017 000002ff 00000404 00000000 00000000")),
            Ok(Step::Negotiated {
                version: V::V4_4,
                send: hex("00000404"),
                consumed: 20
            })
        );
        // the first slot that fits wins, even before a manifest slot
        assert_eq!(
            server().receive(&hex("6060b017 00000404 000001ff 00000000 00000000")),
            Ok(Step::Negotiated {
                version: V::V4_4,
                send: hex("00000404"),
                consumed: 20
            })
        );
        // 5.5 is never selected, even when offered alone
        assert_eq!(
            server().receive(&hex("6060b017 00000505 00000000 00000000 00000000")),
            Ok(Step::Rejected {
                send: hex("00000000"),
                consumed: 20
            })
        );
        // ... and a range over it gives the newest other version
        assert_eq!(
            server().receive(&hex("6060b017 00010605 00000000 00000000 00000000")),
            Ok(Step::Negotiated {
                version: V::V5_6,
                send: hex("00000605"),
                consumed: 20
            })
        );
        // extra bytes after the hello are not consumed
        let mut s = server();
        let mut bytes = hex("6060b017 000001ff 00000000 00000000 00000000");
        bytes.extend(hex("0000"));
        assert!(matches!(
            s.receive(&bytes),
            Ok(Step::Continue { consumed: 20, .. })
        ));
        // client picks
        let pick = |bytes: &str| {
            let mut s = ServerHandshake::new(ServerConfig::default().with_capabilities(0b11));
            let first = s.receive(&hex("6060b017 000001ff 00000000 00000000 00000000"));
            assert!(matches!(first, Ok(Step::Continue { .. })));
            s.receive(&hex(bytes))
        };
        assert_eq!(
            pick("00000000 00"),
            Ok(Step::Rejected {
                send: vec![],
                consumed: 5
            })
        );
        assert_eq!(
            pick("00000505 00"),
            Err(HandshakeError::VersionNotOffered {
                offset: 20,
                version: V::new(5, 5)
            })
        );
        assert_eq!(
            pick("00080805 00"),
            Err(HandshakeError::MalformedVersion {
                offset: 20,
                found: [0, 8, 8, 5]
            })
        );
        assert_eq!(
            pick("00000805 04"),
            Err(HandshakeError::CapabilitiesNotOffered {
                offset: 24,
                selected: 4,
                offered: 3
            })
        );
        assert_eq!(
            pick("00000805 02 b0"),
            Ok(Step::Negotiated {
                version: V::V5_8.with_capabilities(2),
                send: vec![],
                consumed: 5
            })
        );
        // after the end
        let mut s = server();
        let _ = s.receive(&hex("6060b017 00000404 00000000 00000000 00000000"));
        assert_eq!(s.receive(&[]), Err(HandshakeError::Finished));
    }

    #[test]
    fn server_response_round_trip() {
        for response in [
            ServerResponse::Version(V::V5_8),
            ServerResponse::NoVersion,
            ServerResponse::Manifest(
                ServerConfig::default()
                    .with_capabilities(u64::MAX)
                    .manifest_offer(),
            ),
            ServerResponse::Manifest(ManifestOffer::default()),
        ] {
            let mut out = Vec::new();
            response.encode(&mut out);
            assert_eq!(
                ServerResponse::parse(&out),
                Ok(Status::Complete((response.clone(), out.len())))
            );
            for cut in 0..out.len() {
                assert_eq!(ServerResponse::parse(&out[..cut]), Ok(Status::NeedMore));
            }
        }
    }

    #[test]
    fn errors_display_offset_and_expectation() {
        let e = HandshakeError::BadMagic {
            offset: 1,
            expected: 0x60,
            found: 0x47,
        };
        assert_eq!(
            e.to_string(),
            "byte 1: expected Bolt magic byte 0x60, found 0x47"
        );
        let e = HandshakeError::MalformedVersion {
            offset: 0,
            found: [1, 0, 4, 4],
        };
        assert_eq!(
            e.to_string(),
            "byte 0: expected a version \"00 00 minor major\", found [01, 00, 04, 04]"
        );
    }
}
