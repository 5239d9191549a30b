//! A lean WebSocket client for tests and load: one TCP connection with `TCP_NODELAY` and small
//! buffers (optionally under TLS), JSON frames in and out as the shared protocol types, every
//! receive under a timeout.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures::{SinkExt, StreamExt};
use protocol::{ClientMsg, ServerMsg};
use tokio::net::TcpStream;
use tokio_rustls::rustls::ClientConfig;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

/// A client's WebSocket over TCP, plain or TLS.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Client-side WebSocket settings: a read buffer of `read_buffer` bytes (tungstenite allocates
/// it eagerly, so thousands of idle clients want it small) and frames written at once.
pub fn client_config(read_buffer: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(read_buffer)
        .write_buffer_size(0)
        .max_message_size(Some(1 << 20))
        .max_frame_size(Some(1 << 20))
}

/// Opens a WebSocket to `ws://addr{path}` (path like `/ws`).
pub async fn connect(addr: SocketAddr, path: &str, read_buffer: usize) -> Result<Ws> {
    connect_tls(addr, path, read_buffer, None).await
}

/// Opens a WebSocket to `addr{path}`: `wss://localhost:PORT{path}` over TLS with `tls` (the
/// certificate names `localhost`), else plain `ws://`.
pub async fn connect_tls(
    addr: SocketAddr,
    path: &str,
    read_buffer: usize,
    tls: Option<&Arc<ClientConfig>>,
) -> Result<Ws> {
    let tcp = TcpStream::connect(addr)
        .await
        .with_context(|| format!("connect to {addr}"))?;
    tcp.set_nodelay(true).context("set TCP_NODELAY")?;
    let (url, connector) = match tls {
        Some(c) => (
            format!("wss://localhost:{}{path}", addr.port()),
            Connector::Rustls(Arc::clone(c)),
        ),
        None => (format!("ws://{addr}{path}"), Connector::Plain),
    };
    let (ws, _response) = tokio_tungstenite::client_async_tls_with_config(
        url,
        tcp,
        Some(client_config(read_buffer)),
        Some(connector),
    )
    .await
    .with_context(|| format!("websocket handshake with {addr}"))?;
    Ok(ws)
}

/// Sends one protocol message as a text frame.
pub async fn send(ws: &mut Ws, msg: &ClientMsg) -> Result<()> {
    let text = serde_json::to_string(msg).context("serialize client message")?;
    ws.send(Message::text(text)).await.context("send")
}

/// Receives the next protocol message, skipping control frames. A close, the end of the
/// stream, a binary frame, unparsable JSON or `timeout` without a message is an error.
pub async fn recv(ws: &mut Ws, timeout: Duration) -> Result<ServerMsg> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let frame = tokio::time::timeout_at(deadline, ws.next())
            .await
            .context("timed out waiting for a message")?;
        match frame {
            None => bail!("connection ended"),
            Some(Err(e)) => return Err(e).context("receive"),
            Some(Ok(Message::Text(text))) => {
                return serde_json::from_str(text.as_str())
                    .with_context(|| format!("parse server message {text}"));
            }
            Some(Ok(Message::Close(frame))) => bail!("closed by the server: {frame:?}"),
            Some(Ok(Message::Binary(_))) => bail!("unexpected binary frame"),
            Some(Ok(_)) => {}
        }
    }
}

/// Receives until a message for which `wanted` returns `Some`, skipping the others; an
/// `error` message from the server ends the wait with an error.
pub async fn recv_until<T>(
    ws: &mut Ws,
    timeout: Duration,
    mut wanted: impl FnMut(ServerMsg) -> Option<T>,
) -> Result<T> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let msg = recv(ws, left).await?;
        if let ServerMsg::Error { code, message, .. } = &msg {
            bail!("server error {}: {message}", code.as_str());
        }
        if let Some(t) = wanted(msg) {
            return Ok(t);
        }
    }
}

/// Waits (up to `timeout`) for the `welcome` every connection starts with.
pub async fn welcomed(ws: &mut Ws, timeout: Duration) -> Result<()> {
    recv_until(ws, timeout, |m| {
        matches!(m, ServerMsg::Welcome { .. }).then_some(())
    })
    .await
    .context("welcome")
}

/// Closes politely: a close frame, then waits (up to `timeout`) for the server's reply or
/// the end of the stream.
pub async fn close(mut ws: Ws, timeout: Duration) {
    if ws.close(None).await.is_err() {
        return;
    }
    let _ = tokio::time::timeout(timeout, async {
        while let Some(Ok(_)) = ws.next().await {}
    })
    .await;
}
