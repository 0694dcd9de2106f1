//! Connection set-up and authentication: HELLO, INIT (Bolt 1/2), LOGON (5.1+) and the
//! `bolt_agent` dict (docs/protocol.md §5.2–§5.4). The field-less LOGOFF, GOODBYE, RESET
//! and ACK_FAILURE are plain [`Request`](super::Request) variants.

use super::dict::{get_str, Dict, Entries, IntoValueRef};

/// Reads the auth entries (`scheme`, `principal`, `credentials`, `realm`, `parameters`)
/// of a dict field.
macro_rules! auth_accessors {
    ($ty:ident, $field:ident) => {
        impl<'a> $ty<'a> {
            /// The auth `scheme` ("none", "basic", "bearer", "kerberos" or custom).
            #[must_use]
            pub fn scheme(&self) -> Option<&'a str> {
                self.$field.get_str("scheme")
            }

            /// The auth `principal` (user name).
            #[must_use]
            pub fn principal(&self) -> Option<&'a str> {
                self.$field.get_str("principal")
            }

            /// The auth `credentials` (password, token or ticket).
            #[must_use]
            pub fn credentials(&self) -> Option<&'a str> {
                self.$field.get_str("credentials")
            }

            /// The auth `realm`.
            #[must_use]
            pub fn realm(&self) -> Option<&'a str> {
                self.$field.get_str("realm")
            }

            /// The auth `parameters` dict of custom schemes.
            #[must_use]
            pub fn auth_parameters(&self) -> Option<&Entries<'a>> {
                self.$field.get_map("parameters")
            }
        }
    };
}

/// The notification filter accessors and builders shared by HELLO, RUN and BEGIN
/// (docs/protocol.md §5.3, §5.6).
macro_rules! notification_filters {
    ($ty:ident, $field:ident) => {
        impl<'a> $ty<'a> {
            /// `notifications_minimum_severity` (v5.2+): "WARNING", "INFORMATION" or
            /// "OFF".
            #[must_use]
            pub fn notifications_minimum_severity(&self) -> Option<&'a str> {
                self.$field.get_str("notifications_minimum_severity")
            }

            /// `notifications_disabled_categories` (v5.2–5.4).
            #[must_use]
            pub fn notifications_disabled_categories(&self) -> Option<Vec<&'a str>> {
                self.$field
                    .get_str_list("notifications_disabled_categories")
            }

            /// `notifications_disabled_classifications` (v5.6+, the new name of the
            /// categories key).
            #[must_use]
            pub fn notifications_disabled_classifications(&self) -> Option<Vec<&'a str>> {
                self.$field
                    .get_str_list("notifications_disabled_classifications")
            }

            /// The disabled notification groups under whichever key is present
            /// (classifications first, then categories).
            #[must_use]
            pub fn disabled_notifications(&self) -> Option<Vec<&'a str>> {
                self.notifications_disabled_classifications()
                    .or_else(|| self.notifications_disabled_categories())
            }

            /// Sets `notifications_minimum_severity`.
            #[must_use]
            pub fn with_notifications_minimum_severity(mut self, severity: &'a str) -> Self {
                self.$field
                    .insert("notifications_minimum_severity", severity);
                self
            }

            /// Sets the disabled notification groups under the key `version` uses
            /// ([`BoltVersion::disabled_notifications_key`](crate::BoltVersion::disabled_notifications_key));
            /// before 5.2, which has no such key, nothing is set.
            #[must_use]
            pub fn with_disabled_notifications(
                mut self,
                version: crate::BoltVersion,
                groups: impl IntoIterator<Item = &'a str>,
            ) -> Self {
                if let Some(key) = version.disabled_notifications_key() {
                    self.$field.insert(key, super::dict::str_list(groups));
                }
                self
            }
        }
    };
}

pub(crate) use notification_filters;

/// `bolt_agent`, the HELLO entry (v5.3+, mandatory) naming the *driver*
/// (docs/protocol.md §5.3).
///
/// ```
/// use bolt::message::BoltAgent;
///
/// let agent = BoltAgent::new("rust-bolt/0.1").with_language("Rust/1.85");
/// assert_eq!(agent.to_dict().to_string(),
///            r#"{"product": "rust-bolt/0.1", "language": "Rust/1.85"}"#);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoltAgent<'a> {
    /// `product`, "name/version" of the driver (required).
    pub product: &'a str,
    /// `platform`, for example the OS and architecture.
    pub platform: Option<&'a str>,
    /// `language`, for example "Python/3.11.7-final-0".
    pub language: Option<&'a str>,
    /// `language_details`, for example the compiler or runtime build.
    pub language_details: Option<&'a str>,
}

impl<'a> BoltAgent<'a> {
    /// An agent with only a product.
    #[must_use]
    pub const fn new(product: &'a str) -> Self {
        BoltAgent {
            product,
            platform: None,
            language: None,
            language_details: None,
        }
    }

    /// Sets `platform`.
    #[must_use]
    pub const fn with_platform(mut self, platform: &'a str) -> Self {
        self.platform = Some(platform);
        self
    }

    /// Sets `language`.
    #[must_use]
    pub const fn with_language(mut self, language: &'a str) -> Self {
        self.language = Some(language);
        self
    }

    /// Sets `language_details`.
    #[must_use]
    pub const fn with_language_details(mut self, details: &'a str) -> Self {
        self.language_details = Some(details);
        self
    }

    /// Reads an agent from its dict; `None` unless `product` is a string. Entries of
    /// other types are read as absent.
    #[must_use]
    pub fn from_entries(entries: &Entries<'a>) -> Option<Self> {
        Some(BoltAgent {
            product: get_str(entries, "product")?,
            platform: get_str(entries, "platform"),
            language: get_str(entries, "language"),
            language_details: get_str(entries, "language_details"),
        })
    }

    /// The dict: `product`, then each other entry that is set, in the order the
    /// official drivers use.
    #[must_use]
    pub fn to_dict(&self) -> Dict<'a> {
        let mut d = Dict::with_capacity(4).with("product", self.product);
        for (k, v) in [
            ("platform", self.platform),
            ("language", self.language),
            ("language_details", self.language_details),
        ] {
            if let Some(v) = v {
                d.insert(k, v);
            }
        }
        d
    }
}

/// HELLO (`01`, v3+): `extra: Dict` (docs/protocol.md §5.3).
///
/// Keys: `user_agent`; `routing` (v4.1+); `patch_bolt` (4.3–4.4); the notification
/// filters (v5.2+); `bolt_agent` (v5.3+, mandatory); and up to 5.0 the auth entries
/// (`scheme`, `principal`, `credentials`, …), which from 5.1 travel in [`Logon`].
/// Every other key is kept in [`Hello::extra`] as it came.
///
/// `Debug` and `Display` never show `credentials`.
///
/// ```
/// use bolt::message::{BoltAgent, Hello, Request};
/// use bolt::BoltVersion;
///
/// // docs/protocol.md §5.1 example.
/// let hello = Hello::new("my-app/1.0").with_bolt_agent(BoltAgent::new("rust-bolt/0.1"));
/// let bytes = Request::Hello(hello.clone()).to_vec(BoltVersion::V5_8)?;
/// assert_eq!(&bytes[..4], [0xB1, 0x01, 0xA2, 0x8A]);
///
/// let Request::Hello(decoded) = Request::decode(&bytes, BoltVersion::V5_8)? else { panic!() };
/// assert_eq!(decoded, hello);
/// assert_eq!(decoded.user_agent(), Some("my-app/1.0"));
/// assert_eq!(decoded.bolt_agent().map(|a| a.product), Some("rust-bolt/0.1"));
///
/// // Up to 5.0 the credentials travel in HELLO; they never show in Debug output.
/// let old = Hello::new("my-app/1.0").with_auth(bolt::message::Logon::basic("neo4j", "pw").auth);
/// assert_eq!(old.credentials(), Some("pw"));
/// assert!(!format!("{old:?}").contains("pw"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hello<'a> {
    /// The `extra` dict, every entry in wire order.
    pub extra: Dict<'a>,
}

impl<'a> Hello<'a> {
    /// A HELLO with only `user_agent` (the *application's* "Name/Version").
    #[must_use]
    pub fn new(user_agent: &'a str) -> Self {
        Hello {
            extra: Dict::new().with("user_agent", user_agent),
        }
    }

    /// A HELLO with this `extra` dict.
    #[must_use]
    pub fn from_extra(extra: Dict<'a>) -> Self {
        Hello { extra }
    }

    /// `user_agent`.
    #[must_use]
    pub fn user_agent(&self) -> Option<&'a str> {
        self.extra.get_str("user_agent")
    }

    /// `bolt_agent` (v5.3+), if it is a dict with a string `product`.
    #[must_use]
    pub fn bolt_agent(&self) -> Option<BoltAgent<'a>> {
        BoltAgent::from_entries(self.extra.get_map("bolt_agent")?)
    }

    /// `routing` (v4.1+): `None` when absent or null (no server-side routing), the
    /// routing context otherwise (`{}` = route without context).
    #[must_use]
    pub fn routing(&self) -> Option<&Entries<'a>> {
        self.extra.get_map("routing")
    }

    /// `patch_bolt` (4.3–4.4), for example `["utc"]`.
    #[must_use]
    pub fn patch_bolt(&self) -> Option<Vec<&'a str>> {
        self.extra.get_str_list("patch_bolt")
    }

    /// Sets `user_agent`.
    #[must_use]
    pub fn with_user_agent(mut self, user_agent: &'a str) -> Self {
        self.extra.insert("user_agent", user_agent);
        self
    }

    /// Sets `bolt_agent`.
    #[must_use]
    pub fn with_bolt_agent(mut self, agent: BoltAgent<'a>) -> Self {
        self.extra.insert("bolt_agent", agent.to_dict());
        self
    }

    /// Sets `routing` to a routing context (`Dict::new()` to route without one).
    #[must_use]
    pub fn with_routing(mut self, context: Dict<'a>) -> Self {
        self.extra.insert("routing", context);
        self
    }

    /// Sets `patch_bolt`, for example `["utc"]` (4.3–4.4 only).
    #[must_use]
    pub fn with_patch_bolt(mut self, patches: impl IntoIterator<Item = &'a str>) -> Self {
        self.extra
            .insert("patch_bolt", super::dict::str_list(patches));
        self
    }

    /// Adds the auth entries of `auth` (see [`Logon`]'s constructors) to `extra`, for
    /// versions up to 5.0 ([`BoltVersion::hello_carries_auth`](crate::BoltVersion::hello_carries_auth)).
    #[must_use]
    pub fn with_auth(mut self, auth: Dict<'a>) -> Self {
        for (k, v) in auth {
            self.extra.insert(k, v);
        }
        self
    }

    /// Sets any `extra` entry.
    #[must_use]
    pub fn with_extra(mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Self {
        self.extra.insert(key, value);
        self
    }
}

auth_accessors!(Hello, extra);
notification_filters!(Hello, extra);

/// INIT (`01`, Bolt 1/2): `user_agent: String, auth_token: Dict` (docs/protocol.md §5.2).
///
/// ```
/// use bolt::message::{Dict, Init, Request};
/// use bolt::BoltVersion;
///
/// let v2 = BoltVersion::new(2, 0);
/// let init = Init::new("my-app/1.0", Dict::new().with("scheme", "none"));
/// let bytes = Request::Init(init.clone()).to_vec(v2)?;
/// assert_eq!(bytes[..3], [0xB2, 0x01, 0x8A]);
/// assert_eq!(Request::decode(&bytes, v2)?, Request::Init(init));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Init<'a> {
    /// `user_agent`.
    pub user_agent: &'a str,
    /// `auth_token`.
    pub auth_token: Dict<'a>,
}

impl<'a> Init<'a> {
    /// An INIT.
    #[must_use]
    pub fn new(user_agent: &'a str, auth_token: Dict<'a>) -> Self {
        Init {
            user_agent,
            auth_token,
        }
    }
}

auth_accessors!(Init, auth_token);

/// LOGON (`6A`, v5.1+): `auth: Dict` (docs/protocol.md §5.4).
///
/// The constructors write the keys in the official drivers' order, so the bytes match
/// theirs. `Debug` and `Display` never show `credentials`.
///
/// ```
/// use bolt::message::{Logon, Request};
/// use bolt::BoltVersion;
///
/// let logon = Logon::basic("neo4j", "pw");
/// let bytes = Request::Logon(logon.clone()).to_vec(BoltVersion::V5_1)?;
/// // docs/protocol.md §5.1 example.
/// assert_eq!(bytes, b"\xB1\x6A\xA3\x86scheme\x85basic\x89principal\x85neo4j\x8Bcredentials\x82pw");
/// assert_eq!(logon.principal(), Some("neo4j"));
/// assert_eq!(format!("{logon:?}"),
///            r#"Logon { auth: Dict{"scheme": "basic", "principal": "neo4j", "credentials": "********"} }"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Logon<'a> {
    /// The auth dict, every entry in wire order.
    pub auth: Dict<'a>,
}

impl<'a> Logon<'a> {
    /// A LOGON with this auth dict.
    #[must_use]
    pub fn new(auth: Dict<'a>) -> Self {
        Logon { auth }
    }

    /// `{"scheme": "none"}`.
    #[must_use]
    pub fn none() -> Self {
        Logon::new(Dict::new().with("scheme", "none"))
    }

    /// `{"scheme": "basic", "principal": …, "credentials": …}`.
    #[must_use]
    pub fn basic(principal: &'a str, credentials: &'a str) -> Self {
        Logon::new(
            Dict::with_capacity(3)
                .with("scheme", "basic")
                .with("principal", principal)
                .with("credentials", credentials),
        )
    }

    /// `{"scheme": "bearer", "credentials": token}`.
    #[must_use]
    pub fn bearer(token: &'a str) -> Self {
        Logon::new(
            Dict::with_capacity(2)
                .with("scheme", "bearer")
                .with("credentials", token),
        )
    }

    /// `{"scheme": "kerberos", "principal": "", "credentials": ticket}` (the
    /// drivers' form, base64 ticket).
    #[must_use]
    pub fn kerberos(base64_ticket: &'a str) -> Self {
        Logon::new(
            Dict::with_capacity(3)
                .with("scheme", "kerberos")
                .with("principal", "")
                .with("credentials", base64_ticket),
        )
    }

    /// Sets `realm`.
    #[must_use]
    pub fn with_realm(mut self, realm: &'a str) -> Self {
        self.auth.insert("realm", realm);
        self
    }

    /// Sets any auth entry (for example `parameters` of a custom scheme).
    #[must_use]
    pub fn with_entry(mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Self {
        self.auth.insert(key, value);
        self
    }
}

auth_accessors!(Logon, auth);
