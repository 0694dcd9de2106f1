//! The client role: [`ClientConfig`] and the [`ClientHandshake`] state machine.

use super::{
    normalize, ClientHello, HandshakeError, ManifestPick, Proposal, Received, ServerResponse, Step,
    VersionRange, CLIENT_HELLO_LEN, MAX_PICK_LEN, MAX_SERVER_RESPONSE_LEN,
};
use crate::version::BoltVersion;

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
    received: Received,
    finished: bool,
}

impl ClientHandshake {
    /// A client handshake with this configuration.
    #[must_use]
    pub fn new(config: ClientConfig) -> Self {
        Self {
            config,
            received: Received::default(),
            finished: false,
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
        self.received.check()?;
        if self.finished {
            return Err(HandshakeError::Finished);
        }
        let result = self.receive_inner(input);
        self.finished = matches!(result, Ok(ref step) if *step != Step::NeedMore);
        self.received.settle(result)
    }

    fn receive_inner(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        let parsed = self
            .received
            .parse(input, MAX_SERVER_RESPONSE_LEN, ServerResponse::parse)?;
        let Some((response, consumed)) = parsed else {
            return Ok(Step::NeedMore);
        };
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
