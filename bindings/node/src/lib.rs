//! Node.js addon of boltcodec: the native half of the `boltcodec` npm package.
//!
//! The JS package (`index.js`) does the work that has to happen on the JS side: it creates
//! the JS values and encodes JS values to PackStream (see `README.md` for why). This crate
//! does what is worth a native call: it de-chunks Bolt messages and decodes PackStream with
//! the core crates' limits and checks, writing a compact "tape" (module `tape`) that JS turns
//! into values in one pass. One call handles one value, one read from a socket or a whole
//! batch of RECORD messages, so the cost of crossing into native code is paid once.
//!
//! Hostile input never panics here: every error becomes data in the tape or in the
//! returned error record, and JS throws it as an `Error` carrying the byte offset.
#![deny(unsafe_code)]

#[cfg(feature = "arrow")]
mod arrow;
mod connection;
mod decode;
mod encode;
mod handshake;
mod messages;
mod tape;
mod ws;

#[cfg(feature = "arrow")]
pub use arrow::{decode_records_to_arrow_ipc, ArrowIpcResult};
pub use connection::{NativeConnection, NativeConnectionOptions, NativeEvent};
pub use decode::{
    codec_copy_out, codec_decode_frames, codec_decode_value, codec_end_of_stream, codec_error_info,
    codec_header_bytes, codec_is_at_boundary, codec_key_count, codec_key_strings, codec_push,
    codec_reset, codec_stream_error, decode_frames_async, native_codec, DecodeFramesTask,
    DecodedBatch, ErrorInfo, NativeCodec, NativeOptions,
};
pub use encode::pack_native;
pub use handshake::{NativeClientHandshake, NativeServerHandshake, NativeStep};
pub use ws::{NativeWebSocket, NativeWsResult};
