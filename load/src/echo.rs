//! A bare WebSocket echo server on the race server's stack (tokio, tokio-tungstenite, the socket
//! and buffer settings of `server::net::tuning` itself, the same reader + batching-writer shape
//! per connection): the ceiling for this stack on this machine, against which the race server's
//! cost is compared.
//!
//! A connection to `/ws?group=K` joins group `K`: each text frame it sends goes to every member
//! of the group, itself included, so a group of 8 mirrors a room's fan-out. A connection with
//! no group gets its own frames back, as a plain echo.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use server::net::tuning;

/// Buffer and queue sizes of the echo server. The defaults are the race server's own
/// (`server::net::tuning`), read from there so that the baseline cannot drift from it.
#[derive(Clone, Copy, Debug)]
pub struct EchoConfig {
    /// Largest incoming message, in bytes.
    pub max_message_bytes: usize,
    /// tungstenite's read buffer per connection (allocated eagerly).
    pub read_buffer: usize,
    /// Bytes buffered before a write reaches the socket (a flush always writes).
    pub write_buffer: usize,
    /// Outgoing queue per connection, in messages.
    pub queue: usize,
}

impl Default for EchoConfig {
    fn default() -> Self {
        let max_message_bytes = protocol::MAX_MESSAGE_BYTES;
        let server = tuning::websocket_config(max_message_bytes);
        EchoConfig {
            max_message_bytes,
            read_buffer: server.read_buffer_size,
            write_buffer: server.write_buffer_size,
            queue: tuning::OUT_QUEUE,
        }
    }
}

impl EchoConfig {
    /// The race server's WebSocket settings, with only the sizes this config changes replaced.
    fn websocket(&self) -> WebSocketConfig {
        let mut ws = tuning::websocket_config(self.max_message_bytes);
        if self.read_buffer != ws.read_buffer_size {
            ws = ws.read_buffer_size(self.read_buffer);
        }
        if self.write_buffer != ws.write_buffer_size {
            ws = ws.write_buffer_size(self.write_buffer);
        }
        ws
    }
}

type Members = Arc<Mutex<Vec<(u64, mpsc::Sender<Message>)>>>;

#[derive(Default)]
struct Groups {
    by_id: Mutex<HashMap<u64, Members>>,
}

impl Groups {
    fn join(&self, group: u64, conn: u64, tx: mpsc::Sender<Message>) -> Members {
        let members = {
            let mut by_id = self.by_id.lock().expect("groups lock poisoned");
            Arc::clone(by_id.entry(group).or_default())
        };
        members
            .lock()
            .expect("group lock poisoned")
            .push((conn, tx));
        members
    }

    fn leave(&self, group: u64, conn: u64, members: &Members) {
        let empty = {
            let mut m = members.lock().expect("group lock poisoned");
            m.retain(|(c, _)| *c != conn);
            m.is_empty()
        };
        if empty {
            let mut by_id = self.by_id.lock().expect("groups lock poisoned");
            if by_id
                .get(&group)
                .is_some_and(|g| g.lock().expect("group lock poisoned").is_empty())
            {
                by_id.remove(&group);
            }
        }
    }
}

/// Serves echo connections on `listener` until `shutdown` completes, then closes them all.
pub async fn serve(
    listener: TcpListener,
    config: EchoConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    let groups = Arc::new(Groups::default());
    let cancel = CancellationToken::new();
    let tracker = TaskTracker::new();
    let mut next_conn = 0u64;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (tcp, _peer) = match accepted {
                    Ok(a) => a,
                    // Out of descriptors, or a connection reset before accept: keep serving.
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                        continue;
                    }
                };
                next_conn += 1;
                let conn = next_conn;
                let groups = Arc::clone(&groups);
                let cancel = cancel.clone();
                tracker.spawn(async move {
                    if let Err(e) = handle(tcp, conn, config, &groups, cancel).await {
                        tracing::debug!(conn, error = %e, "echo connection ended");
                    }
                });
            }
        }
    }
    cancel.cancel();
    tracker.close();
    tracker.wait().await;
    Ok(())
}

/// The group named in a request's query (`group=K`), if any.
fn group_of(query: Option<&str>) -> Option<u64> {
    query?
        .split('&')
        .find_map(|kv| kv.strip_prefix("group="))
        .and_then(|v| v.parse().ok())
}

// The handshake callback's error type is tungstenite's, large or not.
#[allow(clippy::result_large_err)]
async fn handle(
    tcp: TcpStream,
    conn: u64,
    config: EchoConfig,
    groups: &Groups,
    cancel: CancellationToken,
) -> Result<()> {
    tuning::tune_socket(&tcp);
    let mut group = None;
    let ws = tokio_tungstenite::accept_hdr_async_with_config(
        tcp,
        |req: &Request, resp: Response| {
            group = group_of(req.uri().query());
            Ok(resp)
        },
        Some(config.websocket()),
    )
    .await
    .context("websocket handshake")?;
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::channel::<Message>(config.queue);
    let solo_tx = tx.clone();
    let members = group.map(|g| groups.join(g, conn, tx));

    // The writer, its own task as in the race server: everything ready goes out in one flush.
    let writer = tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            sink.feed(msg).await?;
            while let Ok(more) = rx.try_recv() {
                sink.feed(more).await?;
            }
            sink.flush().await?;
        }
        let _ = sink.close().await;
        anyhow::Ok(())
    });
    // The reader owns the senders: when it ends, they are dropped and the writer drains,
    // closes and ends.
    let reader = async move {
        let read = async {
            while let Some(frame) = stream.next().await {
                match frame.context("receive")? {
                    Message::Text(text) => {
                        let msg = Message::Text(text);
                        match &members {
                            Some(members) => {
                                let members = members.lock().expect("group lock poisoned");
                                for (_, member) in members.iter() {
                                    // A full queue drops the frame for that member only.
                                    let _ = member.try_send(msg.clone());
                                }
                            }
                            None => {
                                let _ = solo_tx.try_send(msg);
                            }
                        }
                    }
                    Message::Close(_) => break,
                    _ => {}
                }
            }
            anyhow::Ok(())
        };
        let result = tokio::select! {
            r = read => r,
            () = cancel.cancelled() => Ok(()),
        };
        if let (Some(g), Some(m)) = (group, &members) {
            groups.leave(g, conn, m);
        }
        result
    };
    let read = reader.await;
    let written = writer.await.context("echo writer task")?;
    read.and(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(query: Option<&str>, expected: Option<u64>) {
        assert_eq!(group_of(query), expected);
    }

    #[test]
    fn group_comes_from_the_query() {
        check(None, None);
        check(Some("group=7"), Some(7));
        check(Some("x=1&group=12"), Some(12));
        check(Some("group=x"), None);
    }

    #[test]
    fn default_websocket_settings_are_the_race_servers() {
        let echo = EchoConfig::default().websocket();
        let server = tuning::websocket_config(protocol::MAX_MESSAGE_BYTES);
        assert_eq!(echo.read_buffer_size, server.read_buffer_size);
        assert_eq!(echo.write_buffer_size, server.write_buffer_size);
        assert_eq!(echo.max_write_buffer_size, server.max_write_buffer_size);
        assert_eq!(echo.max_message_size, server.max_message_size);
        assert_eq!(echo.max_frame_size, server.max_frame_size);
        assert_eq!(EchoConfig::default().queue, tuning::OUT_QUEUE);
    }

    #[test]
    fn a_changed_size_replaces_only_itself() {
        let config = EchoConfig {
            read_buffer: 512,
            ..EchoConfig::default()
        };
        let (echo, server) = (config.websocket(), EchoConfig::default().websocket());
        assert_eq!(echo.read_buffer_size, 512);
        assert_eq!(echo.write_buffer_size, server.write_buffer_size);
        assert_eq!(echo.max_write_buffer_size, server.max_write_buffer_size);
        assert_eq!(echo.max_message_size, server.max_message_size);
    }
}
