//! The Bolt version handshake, both roles: `bc_client_handshake`, `bc_server_handshake`,
//! and `bc_version`.

use bolt::handshake::{ClientHandshake, HandshakeOptions, ServerHandshake, Step};
use bolt::BoltVersion;

use crate::ffi::{self, Handle, Out};
use crate::status::{bc_error, bc_status, ErrorState, Failure, Res};

/// A Bolt protocol version as negotiated: number, the 4.3/4.4 `"utc"` patch flag and
/// the manifest capability bits. Initialise with `{major, minor}` (the rest 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct bc_version {
    /// Major version number.
    pub major: u8,
    /// Minor version number.
    pub minor: u8,
    /// Non-zero when the `"utc"` patch is active (4.3 and 4.4 only; the server's HELLO
    /// SUCCESS lists `"utc"` in `patch_bolt`).
    pub utc_patch: u8,
    /// Always 0.
    pub reserved: [u8; 5],
    /// Capability bits agreed in a manifest v1 handshake (normally 0).
    pub capabilities: u64,
}

impl bc_version {
    /// The core version, known or not.
    fn to_core(self) -> BoltVersion {
        BoltVersion::new(self.major, self.minor)
            .with_utc_patch(self.utc_patch != 0)
            .with_capabilities(self.capabilities)
    }

    /// The core version; fails with `BC_ERR_UNKNOWN_VERSION` (the status the version
    /// lists of the handshake and connection give) for versions the library does not know
    /// (5.5, 7.0, …).
    pub(crate) fn to_bolt(self) -> Res<BoltVersion> {
        let v = self.to_core();
        if v.is_known() {
            Ok(v)
        } else {
            Err(Failure::new(
                bc_status::BC_ERR_UNKNOWN_VERSION,
                format!("unknown Bolt version {v}"),
            ))
        }
    }
}

impl From<BoltVersion> for bc_version {
    fn from(v: BoltVersion) -> Self {
        bc_version {
            major: v.major(),
            minor: v.minor(),
            utc_patch: u8::from(v.utc_patch()),
            reserved: [0; 5],
            capabilities: v.capabilities(),
        }
    }
}

/// What a handshake step tells the caller to do (the `kind` of a
/// `bc_handshake_step`): one of the `BC_STEP_*` constants.
pub type bc_step_kind = u8;
/// Every byte was buffered; call receive again when more arrive.
pub const BC_STEP_NEED_MORE: bc_step_kind = 0;
/// Send `send` and keep feeding the peer's bytes (a server that offered a manifest).
pub const BC_STEP_CONTINUE: bc_step_kind = 1;
/// Done: `version` is agreed. Send `send` (may be empty); the input's bytes from
/// `consumed` on already belong to the message stream.
pub const BC_STEP_NEGOTIATED: bc_step_kind = 2;
/// Nothing in common: send `send` (may be empty), then close the connection.
pub const BC_STEP_REJECTED: bc_step_kind = 3;

/// The result of feeding handshake bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_handshake_step {
    /// A `BC_STEP_*` constant.
    pub kind: bc_step_kind,
    /// The agreed version (`BC_STEP_NEGOTIATED` only; zero otherwise).
    pub version: bc_version,
    /// Bytes to send to the peer (`send_len` bytes; may be NULL when 0). Owned by the
    /// handshake: valid until its next receive or its free.
    pub send: *const u8,
    /// Number of bytes at `send`.
    pub send_len: usize,
    /// How many bytes of the input the handshake used; the rest must be fed again
    /// (`BC_STEP_CONTINUE`) or belong to the message stream (`BC_STEP_NEGOTIATED`).
    pub consumed: usize,
}

/// Handshake flag: do not offer (client) or accept (server) the manifest v1 handshake;
/// use the legacy four proposals only.
pub const BC_HANDSHAKE_LEGACY: u32 = 1;

/// The client side of the handshake. Create with `bc_client_handshake_new`, free with
/// `bc_client_handshake_free`. Not thread-safe.
pub struct bc_client_handshake {
    inner: ClientHandshake,
    send: Vec<u8>,
    err: ErrorState,
}

/// The server side of the handshake (for servers, proxies and tests). Create with
/// `bc_server_handshake_new`, free with `bc_server_handshake_free`. Not thread-safe.
pub struct bc_server_handshake {
    inner: ServerHandshake,
    send: Vec<u8>,
    err: ErrorState,
}

impl Handle for bc_client_handshake {
    fn error_state(&mut self) -> &mut ErrorState {
        &mut self.err
    }
}

impl Handle for bc_server_handshake {
    fn error_state(&mut self) -> &mut ErrorState {
        &mut self.err
    }
}

fn check_flags(flags: u32) -> Res {
    if flags & !BC_HANDSHAKE_LEGACY != 0 {
        return Err(ffi::invalid(format!(
            "unknown handshake flag bits {flags:#x}"
        )));
    }
    Ok(())
}

/// The handshake a C caller chose, in the core's terms: `flags` (manifest unless
/// `BC_HANDSHAKE_LEGACY`) and the version list `ptr[0 .. len-1]`, NULL for the defaults.
/// Both roles and the connection derive their configs from it, so the binding keeps no
/// version logic of its own.
///
/// Fails with `BC_ERR_INVALID_ARGUMENT` for unknown flag bits, `BC_ERR_NULL_POINTER` for
/// NULL with a length, and the core's `no_versions` / `unknown_version`
/// (`BC_ERR_NO_VERSIONS`, `BC_ERR_UNKNOWN_VERSION`) for an empty list or a version it
/// does not know.
///
/// # Safety
/// `ptr` is NULL or readable for `len` versions.
pub(crate) unsafe fn options(
    flags: u32,
    ptr: *const bc_version,
    len: usize,
) -> Res<HandshakeOptions> {
    check_flags(flags)?;
    let manifest = flags & BC_HANDSHAKE_LEGACY == 0;
    if ptr.is_null() {
        if len != 0 {
            return Err(ffi::null());
        }
        return Ok(HandshakeOptions::new(None, manifest)?);
    }
    // SAFETY: forwarded contract.
    let list = unsafe { ffi::slice(ptr, len) }?;
    let list: Vec<BoltVersion> = list.iter().map(|v| v.to_core()).collect();
    Ok(HandshakeOptions::new(Some(&list), manifest)?)
}

/// Stores a step's bytes in `send` and describes it.
fn step_out(step: Step, send: &mut Vec<u8>) -> bc_handshake_step {
    let (kind, version, bytes, consumed) = match step {
        Step::NeedMore => (BC_STEP_NEED_MORE, bc_version::default(), Vec::new(), 0),
        Step::Continue { send, consumed } => {
            (BC_STEP_CONTINUE, bc_version::default(), send, consumed)
        }
        Step::Negotiated {
            version,
            send,
            consumed,
        } => (BC_STEP_NEGOTIATED, version.into(), send, consumed),
        Step::Rejected { send, consumed } => {
            (BC_STEP_REJECTED, bc_version::default(), send, consumed)
        }
    };
    *send = bytes;
    bc_handshake_step {
        kind,
        version,
        send: send.as_ptr(),
        send_len: send.len(),
        consumed,
    }
}

/// Creates a client handshake; `*out` receives it.
///
/// With `supported` NULL (and `supported_len` 0) it offers manifest v1, 6.1–6.0, 5.8–5.0
/// and 4.4 (with `BC_HANDSHAKE_LEGACY`: the same without the manifest) and accepts every
/// fully supported version (6.1 … 4.4). With a list it accepts exactly the versions in
/// `supported[0 .. supported_len-1]` and offers only those: manifest v1 (unless
/// `BC_HANDSHAKE_LEGACY`), then the newest three of the list as exact versions (four
/// with `BC_HANDSHAKE_LEGACY`). A manifest server lets it pick any version of the list;
/// a server without the manifest can only pick one it offered, so it never answers with
/// a version the client then refuses.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`out`, or `supported` NULL with a length);
/// `BC_ERR_INVALID_ARGUMENT` (an unknown flag bit); `BC_ERR_NO_VERSIONS` (`supported`
/// not NULL and `supported_len` 0); `BC_ERR_UNKNOWN_VERSION` (a version in the list
/// that `bc_version_is_known` denies).
///
/// # Safety
/// `supported` is NULL or readable for `supported_len` versions; `out` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn bc_client_handshake_new(
    supported: *const bc_version,
    supported_len: usize,
    flags: u32,
    out: *mut *mut bc_client_handshake,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (options, out) = unsafe { (options(flags, supported, supported_len)?, Out::new(out)?) };
        ffi::new_handle(
            out,
            bc_client_handshake {
                inner: ClientHandshake::new(options.client()),
                send: Vec::new(),
                err: ErrorState::default(),
            },
        );
        Ok(())
    })
}

/// Frees a client handshake. NULL is ignored.
///
/// # Safety
/// `h` is NULL or a handshake from `bc_client_handshake_new` not freed before.
#[no_mangle]
pub unsafe extern "C" fn bc_client_handshake_free(h: *mut bc_client_handshake) {
    // SAFETY: forwarded contract.
    unsafe { ffi::free_handle(h) }
}

/// The 20 bytes the client sends first (magic and four proposals), copied to `out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `h` is NULL or a live client handshake; `out` is NULL or writable for 20 bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_client_handshake_hello(
    h: *mut bc_client_handshake,
    out: *mut u8,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(h, |h| {
            Out::new(out.cast::<[u8; 20]>())?.set(h.inner.hello());
            Ok(())
        })
    }
}

/// Feeds bytes received from the server (any piece); `*step` says what to do next (its
/// `send` bytes belong to the handshake, valid until its next receive or free).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_HANDSHAKE` (malformed reply, a version
/// not offered or not supported; offset in the server's bytes); `BC_ERR_INVALID_STATE`
/// (the handshake already finished). After an error every call returns it again.
///
/// # Safety
/// `h` is NULL or a live client handshake; `data` is NULL or readable for `len` bytes;
/// `step` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_client_handshake_receive(
    h: *mut bc_client_handshake,
    data: *const u8,
    len: usize,
    step: *mut bc_handshake_step,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(h, |h| {
            let (data, step) = (ffi::bytes(data, len)?, Out::new(step)?);
            let s = h.inner.receive(data)?;
            step.set(step_out(s, &mut h.send));
            Ok(())
        })
    }
}

/// The client handshake's last error into `*out` (offsets count the server's bytes).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `h` is NULL or a live client handshake; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_client_handshake_last_error(
    h: *const bc_client_handshake,
    out: *mut bc_error,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (h, out) = unsafe { (ffi::handle_ref(h)?, Out::new(out)?) };
        out.set(h.err.to_c());
        Ok(())
    })
}

/// Creates a server handshake; `*out` receives it. It accepts the versions in
/// `supported[0 .. supported_len-1]` (or every fully supported version when `supported`
/// is NULL) and answers a manifest offer unless `BC_HANDSHAKE_LEGACY` is set. The same
/// list and flags give a client (`bc_client_handshake_new`) that agrees with it.
///
/// Statuses: as `bc_client_handshake_new`.
///
/// # Safety
/// As `bc_client_handshake_new`.
#[no_mangle]
pub unsafe extern "C" fn bc_server_handshake_new(
    supported: *const bc_version,
    supported_len: usize,
    flags: u32,
    out: *mut *mut bc_server_handshake,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (options, out) = unsafe { (options(flags, supported, supported_len)?, Out::new(out)?) };
        ffi::new_handle(
            out,
            bc_server_handshake {
                inner: ServerHandshake::new(options.server()),
                send: Vec::new(),
                err: ErrorState::default(),
            },
        );
        Ok(())
    })
}

/// Frees a server handshake. NULL is ignored.
///
/// # Safety
/// `h` is NULL or a handshake from `bc_server_handshake_new` not freed before.
#[no_mangle]
pub unsafe extern "C" fn bc_server_handshake_free(h: *mut bc_server_handshake) {
    // SAFETY: forwarded contract.
    unsafe { ffi::free_handle(h) }
}

/// Feeds bytes received from the client; `*step` says what to do next (as
/// `bc_client_handshake_receive`).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_HANDSHAKE` (bad magic, malformed
/// pick, a version or capability not offered; offset in the client's bytes);
/// `BC_ERR_INVALID_STATE` (already finished).
///
/// # Safety
/// As `bc_client_handshake_receive`.
#[no_mangle]
pub unsafe extern "C" fn bc_server_handshake_receive(
    h: *mut bc_server_handshake,
    data: *const u8,
    len: usize,
    step: *mut bc_handshake_step,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(h, |h| {
            let (data, step) = (ffi::bytes(data, len)?, Out::new(step)?);
            let s = h.inner.receive(data)?;
            step.set(step_out(s, &mut h.send));
            Ok(())
        })
    }
}

/// The server handshake's last error into `*out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `h` is NULL or a live server handshake; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_server_handshake_last_error(
    h: *const bc_server_handshake,
    out: *mut bc_error,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (h, out) = unsafe { (ffi::handle_ref(h)?, Out::new(out)?) };
        out.set(h.err.to_c());
        Ok(())
    })
}

/// Whether the library knows the rules of `version` (fully supported: 4.4, 5.0–5.4,
/// 5.6–5.8, 6.0, 6.1; decode-only: 3.0, 4.0–4.3). 5.5 is never known.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_version_is_known(version: bc_version, out: *mut bool) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        out.set(BoltVersion::new(version.major, version.minor).is_known());
        Ok(())
    })
}
