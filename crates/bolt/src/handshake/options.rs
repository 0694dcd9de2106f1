//! [`HandshakeOptions`]: the two choices a caller makes about a handshake (which versions,
//! whether to use manifest v1), turned into the config of either role in one place.

use super::{normalize, ClientConfig, Proposal, ServerConfig};
use crate::version::BoltVersion;

/// Which versions a handshake allows and whether it uses manifest v1, for either role.
///
/// This is the shape in which the bindings take a handshake from their callers (Python's
/// `versions=` and `manifest=`, Node's `versions` and `manifest` options, C's version
/// array and `BC_HANDSHAKE_LEGACY` flag); [`HandshakeOptions::client`] and
/// [`HandshakeOptions::server`] derive both roles' configs from it, so that a client and a
/// server built from the same options agree.
///
/// * No version list: the defaults ([`ClientConfig::default`] or [`ClientConfig::legacy`];
///   [`ServerConfig::default`]).
/// * A version list: exactly those versions are supported. The client proposes the
///   manifest in the first slot (unless it is off) and fills the other slots with the
///   newest versions of the list as exact proposals (three, or four without the
///   manifest); a manifest server lets it pick any version of the list. It never
///   proposes a version it would then refuse, so a server that predates the manifest
///   picks one of the list or none. The server offers the list in its manifest, or
///   answers legacy proposals from it.
///
/// ```
/// use bolt::handshake::{HandshakeOptions, Proposal};
/// use bolt::BoltVersion;
///
/// let options = HandshakeOptions::new(Some(&[BoltVersion::V4_4, BoltVersion::V5_4]), true)?;
/// let client = options.client();
/// let [manifest, newest, older, empty] = *client.proposals();
/// assert_eq!((manifest, empty), (Proposal::MANIFEST_V1, Proposal::Empty));
/// assert_eq!([newest, older], [BoltVersion::V5_4, BoltVersion::V4_4].map(Proposal::exact));
/// assert_eq!(options.server().supported(), client.supported());
/// assert!(HandshakeOptions::new(Some(&[BoltVersion::new(5, 5)]), true).is_err());
/// # Ok::<(), bolt::handshake::VersionListError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandshakeOptions {
    /// `None`: the defaults; else the versions, newest first, each known.
    versions: Option<Vec<BoltVersion>>,
    manifest: bool,
}

/// A version list [`HandshakeOptions::new`] refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VersionListError {
    /// The list names no version.
    #[error("the version list is empty: give one or more Bolt versions such as 5.8 or 4.4")]
    Empty,
    /// A version this crate has no rules for (5.5, or a number no Neo4j release used).
    #[error("Bolt {0} is not a version this crate knows; known: {known}", known = known_versions())]
    Unknown(BoltVersion),
}

/// Every [`BoltVersion::is_known`] version, newest first: `"6.1, 6.0, …, 3.0"`.
fn known_versions() -> String {
    let known = BoltVersion::SUPPORTED
        .iter()
        .chain(BoltVersion::DECODE_ONLY);
    known
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

packstream::error_kinds! {
    VersionListError;
    own {
        VersionListError::Empty => "no_versions",
        VersionListError::Unknown(..) => "unknown_version",
    }
    wrapped {}
}

impl VersionListError {
    /// Always `None`: a caller's argument, not bytes, is at fault.
    #[must_use]
    pub const fn offset(&self) -> Option<u64> {
        None
    }
}

impl HandshakeOptions {
    /// Options allowing `versions` (`None`: every supported version, the defaults), with
    /// or without manifest v1.
    ///
    /// # Errors
    /// [`VersionListError::Empty`] for an empty list, [`VersionListError::Unknown`] for a
    /// version that is not [`BoltVersion::is_known`].
    pub fn new(versions: Option<&[BoltVersion]>, manifest: bool) -> Result<Self, VersionListError> {
        let versions = match versions {
            None => None,
            Some([]) => return Err(VersionListError::Empty),
            Some(list) => {
                if let Some(v) = list.iter().find(|v| !v.is_known()) {
                    return Err(VersionListError::Unknown(*v));
                }
                Some(normalize(list))
            }
        };
        Ok(Self { versions, manifest })
    }

    /// The versions chosen, newest first; `None` for the defaults.
    #[must_use]
    pub fn versions(&self) -> Option<&[BoltVersion]> {
        self.versions.as_deref()
    }

    /// Whether manifest v1 is used.
    #[must_use]
    pub fn manifest(&self) -> bool {
        self.manifest
    }

    /// The client's config: its proposals and supported versions.
    #[must_use]
    pub fn client(&self) -> ClientConfig {
        let Some(list) = &self.versions else {
            return if self.manifest {
                ClientConfig::default()
            } else {
                ClientConfig::legacy()
            };
        };
        let mut slots = [Proposal::Empty; 4];
        let mut free = slots.iter_mut();
        if self.manifest {
            if let Some(first) = free.next() {
                *first = Proposal::MANIFEST_V1;
            }
        }
        // `list` is newest first.
        for (slot, v) in free.zip(list) {
            *slot = Proposal::exact(*v);
        }
        ClientConfig::new(slots).with_supported(list)
    }

    /// The server's config: its supported versions and whether it answers a manifest.
    #[must_use]
    pub fn server(&self) -> ServerConfig {
        match &self.versions {
            None => ServerConfig::default(),
            Some(list) => ServerConfig::new(list),
        }
        .with_manifest(self.manifest)
    }
}
