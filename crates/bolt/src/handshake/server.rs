//! The server role: [`ServerConfig`] and the [`ServerHandshake`] state machine.

use super::{
    normalize, ClientHello, HandshakeError, ManifestOffer, ManifestPick, Proposal, Received, Step,
    VersionRange, CLIENT_HELLO_LEN, MAX_PICK_LEN, NO_VERSION,
};
use crate::version::BoltVersion;

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
    received: Received,
    phase: ServerPhase,
}

impl ServerHandshake {
    /// A server handshake with this configuration.
    #[must_use]
    pub fn new(config: ServerConfig) -> Self {
        Self {
            config,
            received: Received::default(),
            phase: ServerPhase::Hello,
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
        self.received.check()?;
        let result = match self.phase {
            ServerPhase::Finished => return Err(HandshakeError::Finished),
            ServerPhase::Hello => self.receive_hello(input),
            ServerPhase::Pick => self.receive_pick(input),
        };
        match result {
            Err(_) | Ok(Step::NeedMore) => {}
            Ok(Step::Continue { .. }) => self.phase = ServerPhase::Pick,
            Ok(_) => self.phase = ServerPhase::Finished,
        }
        self.received.settle(result)
    }

    fn receive_hello(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        let parsed = self
            .received
            .parse(input, CLIENT_HELLO_LEN, ClientHello::parse)?;
        let Some((hello, consumed)) = parsed else {
            return Ok(Step::NeedMore);
        };
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
        let parsed = self.received.parse(input, MAX_PICK_LEN, |buf| {
            ManifestPick::parse_at(buf, CLIENT_HELLO_LEN)
        })?;
        let Some((pick, consumed)) = parsed else {
            return Ok(Step::NeedMore);
        };
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
