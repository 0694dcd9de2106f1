//! The handshake's wire pieces as pure parsers and encoders: version ranges and
//! proposals, the client hello, the server's reply, the manifest offer and pick.

use super::{
    decode_varint_at, encode_varint, HandshakeError, Status, CLIENT_HELLO_LEN, HTTP, MAGIC,
    MANIFEST_V1, MAX_MANIFEST_RANGES, NO_VERSION,
};
use crate::version::BoltVersion;

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
    pub(super) major: u8,
    pub(super) minor: u8,
    pub(super) range: u8,
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
pub(super) fn take4(bytes: &[u8]) -> [u8; 4] {
    let mut out = [0u8; 4];
    for (d, s) in out.iter_mut().zip(bytes) {
        *d = *s;
    }
    out
}

/// Reads a strict version field `00 00 mm MM`.
pub(super) fn strict_version(bytes: [u8; 4], offset: usize) -> Result<BoltVersion, HandshakeError> {
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

    pub(super) fn parse_at(
        input: &[u8],
        base: usize,
    ) -> Result<Status<(Self, usize)>, HandshakeError> {
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
