//! Result streaming: PULL and DISCARD (v4.0+, `extra: Dict {n, qid}`). Their Bolt 1–3
//! forms PULL_ALL and DISCARD_ALL have no fields and are plain
//! [`Request`](super::Request) variants (docs/protocol.md §5.8).

use super::dict::{Dict, IntoValueRef};

macro_rules! stream_request {
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $ty<'a> {
            /// The `extra` dict, every entry in wire order.
            pub extra: Dict<'a>,
        }

        impl<'a> $ty<'a> {
            /// `{"n": n}`: `n` records (`-1` = all).
            #[must_use]
            pub fn new(n: i64) -> Self {
                $ty {
                    extra: Dict::new().with("n", n),
                }
            }

            /// `{"n": -1}`: all records.
            #[must_use]
            pub fn all() -> Self {
                Self::new(-1)
            }

            /// A message with this `extra`.
            #[must_use]
            pub fn from_extra(extra: Dict<'a>) -> Self {
                $ty { extra }
            }

            /// `n`, how many records (`-1` = all). Required by the protocol.
            #[must_use]
            pub fn n(&self) -> Option<i64> {
                self.extra.get_int("n")
            }

            /// `qid`, the query inside an explicit transaction; absent means `-1`, the
            /// most recent one.
            #[must_use]
            pub fn qid(&self) -> Option<i64> {
                self.extra.get_int("qid")
            }

            /// Sets `qid`.
            #[must_use]
            pub fn with_qid(mut self, qid: i64) -> Self {
                self.extra.insert("qid", qid);
                self
            }

            /// Sets any `extra` entry.
            #[must_use]
            pub fn with_extra(mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Self {
                self.extra.insert(key, value);
                self
            }
        }
    };
}

stream_request!(
    /// PULL (`3F`, v4.0+): `extra: Dict {n, qid}` (docs/protocol.md §5.8).
    ///
    /// Its signature is the same byte as the UnsupportedType structure's; only the
    /// outermost structure of a message is read as a message.
    ///
    /// ```
    /// use bolt::message::{Pull, Request};
    /// use bolt::BoltVersion;
    ///
    /// // docs/protocol.md §5.1 examples.
    /// assert_eq!(Request::Pull(Pull::all()).to_vec(BoltVersion::V4_4)?,
    ///            [0xB1, 0x3F, 0xA1, 0x81, 0x6E, 0xFF]);
    /// assert_eq!(Request::Pull(Pull::new(1000).with_qid(-1)).to_vec(BoltVersion::V5_8)?,
    ///            [0xB1, 0x3F, 0xA2, 0x81, 0x6E, 0xC9, 0x03, 0xE8, 0x83, 0x71, 0x69, 0x64, 0xFF]);
    /// // Bolt 3 has PULL_ALL instead.
    /// assert_eq!(Request::decode(&[0xB0, 0x3F], BoltVersion::V3_0)?, Request::PullAll);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    Pull
);

stream_request!(
    /// DISCARD (`2F`, v4.0+): `extra: Dict {n, qid}` (docs/protocol.md §5.8).
    ///
    /// ```
    /// use bolt::message::{Discard, Request};
    /// use bolt::BoltVersion;
    ///
    /// assert_eq!(Request::Discard(Discard::all()).to_vec(BoltVersion::V5_0)?,
    ///            [0xB1, 0x2F, 0xA1, 0x81, 0x6E, 0xFF]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    Discard
);
