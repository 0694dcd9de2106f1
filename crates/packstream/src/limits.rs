//! Limits and options for decoding untrusted input.

/// Bounds that decoding enforces before it allocates anything.
///
/// Every declared size is checked, in this order, against the PackStream maximum
/// (2 147 483 647, else [`SizeTooLarge`](crate::ErrorKind::SizeTooLarge)), against these
/// limits (else [`LimitExceeded`](crate::ErrorKind::LimitExceeded)), and against the bytes
/// that remain — a list item needs at least one byte, a map entry two — (else
/// [`UnexpectedEnd`](crate::ErrorKind::UnexpectedEnd)). Pre-allocation is further capped by
/// the bytes not yet promised to the other open containers, so nested headers that each
/// claim the whole input cannot multiply it. Whatever the limits, decoding `n` bytes into a
/// tree allocates at most `96 * n + 64 KiB` at its peak (the test suite asserts this with a
/// counting allocator on arbitrary and hostile input; typical data stays far below). The
/// limits let a caller bound it further. Beyond the decoded value, a thread that decodes
/// or drops a list or structure of 32 to 2,048 items whose first item allocates keeps
/// one scratch buffer of at most 64 KiB for the next such call (items are gathered there
/// so that the list's own vector is allocated after its children and freed before them,
/// which keeps glibc's small-block caches fast); whatever the input, no more is kept.
///
/// ```
/// use packstream::{DecodeLimits, DecodeOptions, ErrorKind, ValueRef};
/// let opts = DecodeOptions::default().with_limits(DecodeLimits { max_depth: 2, ..DecodeLimits::default() });
/// // [[[]]] is three levels deep.
/// let err = ValueRef::decode_exact_with(&[0x91, 0x91, 0x90], &opts).unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (ErrorKind::LimitExceeded, 2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Deepest nesting of lists, maps and structures (the outermost container is depth 1).
    /// Default 1024. Any value is safe for the stack: decoding, encoding and the pull
    /// [`Decoder`](crate::Decoder) are iterative past a few levels, and so are dropping,
    /// cloning, comparing, printing and converting a [`ValueRef`](crate::ValueRef) or
    /// [`Value`](crate::Value) (tests in `tests/deep.rs` build, walk and drop a value
    /// 1,000,000 levels deep on a 256 KiB stack). What a raised limit costs is memory:
    /// the decoder keeps a few bytes per open container.
    pub max_depth: u32,
    /// Longest string, in bytes. Default 2 147 483 647.
    pub max_string_len: u32,
    /// Longest byte array. Default 2 147 483 647.
    pub max_bytes_len: u32,
    /// Most items in one list, entries in one map or fields in one structure.
    /// Default 2 147 483 647.
    pub max_container_len: u32,
    /// Most items, entries and fields in one decoded value, summed over all of its
    /// containers (as declared by their headers). Default 2^26 = 67 108 864.
    pub max_total_elements: u64,
}

impl DecodeLimits {
    /// The defaults described on each field.
    pub const DEFAULT: DecodeLimits = DecodeLimits {
        max_depth: 1024,
        max_string_len: crate::marker::MAX_SIZE,
        max_bytes_len: crate::marker::MAX_SIZE,
        max_container_len: crate::marker::MAX_SIZE,
        max_total_elements: 1 << 26,
    };
}

impl Default for DecodeLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Decoder options: limits plus the protocol extensions that are off by default.
///
/// ```
/// use packstream::{DecodeOptions, ValueRef};
/// let uuid = [0xE0, 0x55, 0x0E, 0x84, 0x00, 0xE2, 0x9B, 0x41, 0xD4,
///             0xA7, 0x16, 0x44, 0x66, 0x55, 0x44, 0x00, 0x00];
/// assert!(ValueRef::decode_exact(&uuid).is_err()); // E0 is reserved in PackStream v1
/// let v2 = DecodeOptions::default().with_uuid(true); // Bolt 6.1 turns this on
/// assert!(matches!(ValueRef::decode_exact_with(&uuid, &v2), Ok(ValueRef::Uuid(_))));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeOptions {
    /// Size and depth bounds.
    pub limits: DecodeLimits,
    /// Accept the legacy `DC`/`DD` (STRUCT_8/STRUCT_16) markers. Off by default: they are
    /// not in the current specification, though the Java server and JS driver accept them.
    pub legacy_structs: bool,
    /// PackStream v2: accept the `E0` UUID marker. Bolt 6.1 turns this on.
    pub uuid: bool,
}

impl DecodeOptions {
    /// Replaces the limits.
    #[must_use]
    pub const fn with_limits(mut self, limits: DecodeLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Enables or disables `DC`/`DD` structures.
    #[must_use]
    pub const fn with_legacy_structs(mut self, on: bool) -> Self {
        self.legacy_structs = on;
        self
    }

    /// Enables or disables the PackStream v2 UUID marker.
    #[must_use]
    pub const fn with_uuid(mut self, on: bool) -> Self {
        self.uuid = on;
        self
    }
}

/// Encoder options.
///
/// ```
/// use packstream::{EncodeOptions, Encoder};
/// let mut out = Vec::new();
/// let mut enc = Encoder::with_options(&mut out, EncodeOptions { legacy_structs: true, ..Default::default() });
/// enc.write_struct_header(0x01, 16).unwrap();
/// assert_eq!(out, [0xDC, 16, 0x01]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EncodeOptions {
    /// Write structures of 16+ fields with `DC`/`DD` instead of failing.
    pub legacy_structs: bool,
    /// PackStream v2: allow writing UUID values (Bolt 6.1+).
    pub uuid: bool,
}
