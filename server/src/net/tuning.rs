//! The transport settings every connection gets: WebSocket buffers and limits, TCP options, the
//! outgoing queue. Public so that the echo baseline (`load/`) builds its connections with exactly
//! these, and the comparison between the two cannot drift.

use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// Outgoing messages queued per connection before it counts as not reading (the outbox's).
pub use crate::outbox::OUT_QUEUE;

/// The WebSocket settings: small buffers so an idle connection costs little. tungstenite
/// allocates the read buffer whole at the start and grows it for a bigger frame, so 256 bytes
/// (a placement is under 100, a join under 256) saves 1.75 KiB per connection against 2048;
/// the write buffer grows on demand.
pub fn websocket_config(max_message_bytes: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(256)
        .write_buffer_size(4096)
        .max_write_buffer_size(256 * 1024)
        .max_message_size(Some(max_message_bytes))
        .max_frame_size(Some(max_message_bytes))
}

/// Socket options for an accepted connection: no Nagle delay (a placement's answer is small and
/// must not wait for the next one).
pub fn tune_socket(stream: &TcpStream) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "cannot set TCP_NODELAY");
    }
}
