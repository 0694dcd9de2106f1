//! Both roles of the Bolt handshake (legacy proposals and manifest v1) for JS, on their
//! own: `bolt::handshake` steps in, plain objects out.

use bolt::handshake::{ClientHandshake, HandshakeError, ServerHandshake, Step};
use bolt::BoltVersion;
use napi::bindgen_prelude::{Buffer, BufferSlice};
use napi_derive::napi;

use crate::connection::{error_info, handshake_options};
use crate::decode::ErrorInfo;

/// What a handshake wants next, as data.
#[napi(object)]
pub struct NativeStep {
    /// `needMore`, `continue`, `negotiated`, `rejected` or `error`.
    pub step: String,
    /// Bytes to send to the peer (empty if none).
    pub send: Buffer,
    /// How many bytes of the input the handshake used (the rest belongs to the messages).
    pub consumed: u32,
    /// The agreed version (`negotiated`).
    pub version: Option<String>,
    /// The error (`error`).
    pub error: Option<ErrorInfo>,
}

fn step_data(result: Result<Step, HandshakeError>) -> NativeStep {
    let (step, send, consumed, version): (&str, Vec<u8>, usize, Option<BoltVersion>) = match result
    {
        Ok(Step::NeedMore) => ("needMore", Vec::new(), 0, None),
        Ok(Step::Continue { send, consumed }) => ("continue", send, consumed, None),
        Ok(Step::Negotiated {
            version,
            send,
            consumed,
        }) => ("negotiated", send, consumed, Some(version)),
        Ok(Step::Rejected { send, consumed }) => ("rejected", send, consumed, None),
        Err(e) => {
            return NativeStep {
                step: "error".to_owned(),
                send: Vec::new().into(),
                consumed: 0,
                version: None,
                error: Some(error_info(&e, None)),
            }
        }
    };
    NativeStep {
        step: step.to_owned(),
        send: send.into(),
        consumed: consumed as u32,
        version: version.map(|v| v.to_string()),
        error: None,
    }
}

/// The client role.
#[napi]
pub struct NativeClientHandshake {
    inner: ClientHandshake,
}

#[napi]
impl NativeClientHandshake {
    /// A client offering `versions` (default: every supported one), with manifest v1
    /// unless `manifest` is false (`bolt::handshake::HandshakeOptions`). Throws for an
    /// unparsable or unknown version, or an empty list.
    #[napi(constructor)]
    pub fn new(versions: Option<Vec<String>>, manifest: Option<bool>) -> napi::Result<Self> {
        let options = handshake_options(versions.as_deref(), manifest.unwrap_or(true))
            .map_err(|e| napi::Error::from_reason(e.message))?;
        Ok(NativeClientHandshake {
            inner: ClientHandshake::new(options.client()),
        })
    }

    /// The 20 bytes to send first: the magic and the four proposals.
    #[napi]
    pub fn hello(&self) -> Buffer {
        self.inner.hello().to_vec().into()
    }

    /// Feeds the server's bytes.
    #[napi]
    pub fn receive(&mut self, input: BufferSlice<'_>) -> NativeStep {
        step_data(self.inner.receive(&input))
    }
}

/// The server role.
#[napi]
pub struct NativeServerHandshake {
    inner: ServerHandshake,
}

#[napi]
impl NativeServerHandshake {
    /// A server accepting `versions` (default: every supported one), answering manifest
    /// proposals unless `manifest` is false (`bolt::handshake::HandshakeOptions`). Throws
    /// for an unparsable or unknown version, or an empty list.
    #[napi(constructor)]
    pub fn new(versions: Option<Vec<String>>, manifest: Option<bool>) -> napi::Result<Self> {
        let options = handshake_options(versions.as_deref(), manifest.unwrap_or(true))
            .map_err(|e| napi::Error::from_reason(e.message))?;
        Ok(NativeServerHandshake {
            inner: ServerHandshake::new(options.server()),
        })
    }

    /// Feeds the client's bytes.
    #[napi]
    pub fn receive(&mut self, input: BufferSlice<'_>) -> NativeStep {
        step_data(self.inner.receive(&input))
    }
}
