//! Bolt over WebSocket for JS: `bolt::ws`'s opening handshake and frame adapter, both
//! roles. Bytes in, bytes out; the socket stays in JS.

use bolt::handshake::Status;
use bolt::ws::{
    ClientUpgrade, CloseCode, NoMask, ServerUpgrade, WireStatus, WsStream, XorShiftMask,
};
use napi::bindgen_prelude::{Buffer, BufferSlice};
use napi_derive::napi;

use crate::connection::{error_info, usage_error};
use crate::decode::ErrorInfo;

/// The result of feeding wire bytes (or upgrade bytes) to a WebSocket endpoint.
#[napi(object)]
pub struct NativeWsResult {
    /// The Bolt bytes the frames carried (empty during the upgrade).
    pub data: Buffer,
    /// Bytes to send back (pongs, the close reply, the upgrade response).
    pub send: Buffer,
    /// Whether the opening handshake is complete (after this call).
    pub open: bool,
    /// Whether the peer's close frame has arrived.
    pub closed: bool,
    /// How many input bytes the upgrade used (the rest are frames).
    pub consumed: u32,
    /// The error, if any (the data before it is kept).
    pub error: Option<ErrorInfo>,
}

impl NativeWsResult {
    fn empty() -> Self {
        NativeWsResult {
            data: Vec::new().into(),
            send: Vec::new().into(),
            open: false,
            closed: false,
            consumed: 0,
            error: None,
        }
    }
}

/// Both roles' frame streams.
enum Stream {
    Client(WsStream<XorShiftMask>),
    Server(WsStream<NoMask>),
}

/// Both roles' opening handshakes.
enum Upgrade {
    Client(ClientUpgrade),
    Server(ServerUpgrade),
    Done,
}

/// One end of a Bolt-over-WebSocket connection.
#[napi]
pub struct NativeWebSocket {
    upgrade: Upgrade,
    stream: Stream,
}

#[napi]
impl NativeWebSocket {
    /// The client end: upgrade request for `host` and `path` with the 16-byte `key`;
    /// frames masked with keys from `maskSeed` (8 bytes). Both must be random for every
    /// connection. Throws for an invalid host, path or key length.
    #[napi(factory)]
    pub fn client(
        host: String,
        path: String,
        key: BufferSlice<'_>,
        mask_seed: BufferSlice<'_>,
    ) -> napi::Result<Self> {
        let key: [u8; 16] = key
            .as_ref()
            .try_into()
            .map_err(|_| napi::Error::from_reason("the WebSocket key must be 16 bytes"))?;
        let seed: [u8; 8] = mask_seed
            .as_ref()
            .try_into()
            .map_err(|_| napi::Error::from_reason("the mask seed must be 8 bytes"))?;
        let upgrade = ClientUpgrade::new(&host, &path, key)
            .map_err(|e| napi::Error::from_reason(e.to_string()))?;
        Ok(NativeWebSocket {
            upgrade: Upgrade::Client(upgrade),
            stream: Stream::Client(WsStream::client(XorShiftMask::new(u64::from_le_bytes(
                seed,
            )))),
        })
    }

    /// The server end: waits for the client's upgrade request.
    #[napi(factory)]
    pub fn server() -> Self {
        NativeWebSocket {
            upgrade: Upgrade::Server(ServerUpgrade::new()),
            stream: Stream::Server(WsStream::server()),
        }
    }

    /// The client's upgrade request (empty for the server end or once open).
    #[napi]
    pub fn upgrade_request(&self) -> Buffer {
        match &self.upgrade {
            Upgrade::Client(u) => u.request().to_vec().into(),
            _ => Vec::new().into(),
        }
    }

    /// Whether the opening handshake is complete.
    #[napi]
    pub fn is_open(&self) -> bool {
        matches!(self.upgrade, Upgrade::Done)
    }

    /// Feeds bytes from the peer: the rest of the upgrade, then frames. Returns the Bolt
    /// bytes they carry and what to send back.
    #[napi]
    pub fn receive(&mut self, input: BufferSlice<'_>) -> NativeWsResult {
        let mut out = NativeWsResult::empty();
        let mut rest: &[u8] = &input;
        let mut send = Vec::new();
        match &mut self.upgrade {
            Upgrade::Done => {}
            Upgrade::Client(u) => match u.receive(rest) {
                Ok(Status::NeedMore) => return out,
                Ok(Status::Complete(used)) => {
                    out.consumed = used as u32;
                    rest = rest.get(used..).unwrap_or_default();
                    self.upgrade = Upgrade::Done;
                }
                Err(e) => {
                    out.error = Some(error_info(&e, None));
                    return out;
                }
            },
            Upgrade::Server(u) => match u.receive(rest) {
                Ok(Status::NeedMore) => return out,
                Ok(Status::Complete(request)) => {
                    send.extend_from_slice(&request.response());
                    out.consumed = request.used() as u32;
                    rest = rest.get(request.used()..).unwrap_or_default();
                    self.upgrade = Upgrade::Done;
                }
                Err(e) => {
                    out.send = ServerUpgrade::rejection(&e).into();
                    out.error = Some(error_info(&e, None));
                    return out;
                }
            },
        }
        out.open = true;
        let mut data = Vec::new();
        let result = match &mut self.stream {
            Stream::Client(s) => s.from_wire(rest, &mut data, &mut send),
            Stream::Server(s) => s.from_wire(rest, &mut data, &mut send),
        };
        match result {
            Ok(WireStatus::Open) => {}
            Ok(WireStatus::Closed(_)) => out.closed = true,
            Err(e) => out.error = Some(error_info(&e, None)),
        }
        out.data = data.into();
        out.send = send.into();
        out
    }

    /// Bolt bytes as binary frames, to write to the socket. Returns the error as data
    /// when this end has already sent its close frame or is not open yet.
    #[napi]
    pub fn send(&mut self, bolt: BufferSlice<'_>) -> napi::Either<Buffer, ErrorInfo> {
        if !self.is_open() {
            return napi::Either::B(usage_error(
                "ws_not_open",
                "the WebSocket opening handshake is not complete".to_owned(),
            ));
        }
        let mut out = Vec::new();
        let result = match &mut self.stream {
            Stream::Client(s) => s.to_wire(&bolt, &mut out),
            Stream::Server(s) => s.to_wire(&bolt, &mut out),
        };
        match result {
            Ok(_) => napi::Either::A(out.into()),
            Err(e) => napi::Either::B(error_info(&e, None)),
        }
    }

    /// This end's close frame (status `code`, default none, and `reason`); empty if
    /// already sent.
    #[napi]
    pub fn close(
        &mut self,
        code: Option<u32>,
        reason: Option<String>,
    ) -> napi::Either<Buffer, ErrorInfo> {
        let code = code.map(|c| CloseCode(u16::try_from(c).unwrap_or(0)));
        let reason = reason.unwrap_or_default();
        let mut out = Vec::new();
        let result = match &mut self.stream {
            Stream::Client(s) => s.close(code, &reason, &mut out),
            Stream::Server(s) => s.close(code, &reason, &mut out),
        };
        match result {
            Ok(_) => napi::Either::A(out.into()),
            Err(e) => napi::Either::B(error_info(&e, None)),
        }
    }
}
