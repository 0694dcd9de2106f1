//! Set-up shared by this crate's connection tests (`mod common;` in each file that uses
//! it), so that each test file does not build its own connected pair.

use bolt::connection::{ClientConnection, ConnectionConfig, Event, ServerConnection, ServerState};
use bolt::handshake::HandshakeOptions;
use bolt::BoltVersion;

/// A client and a server connection past the handshake on `version`: the client offers
/// it alone (one exact proposal, no manifest) with the rest of `config` (whose handshake
/// is replaced); the server accepts just that version. The client's `Negotiated` event
/// is taken; nothing else has been sent.
pub(crate) fn negotiated(
    version: BoltVersion,
    config: ConnectionConfig,
) -> (ClientConnection, ServerConnection) {
    let options = HandshakeOptions::new(Some(&[version]), false).expect("a known version");
    let mut client = ClientConnection::new(ConnectionConfig {
        handshake: options.client(),
        ..config
    });
    let mut server = ServerConnection::new(options.server());
    server
        .receive(&client.take_output())
        .expect("server handshake");
    client
        .receive(&server.take_output())
        .expect("client handshake");
    assert_eq!(client.poll_event(), Some(Event::Negotiated(version)));
    assert_eq!(server.version(), Some(version));
    assert_eq!(client.state(), ServerState::Negotiation);
    (client, server)
}
