//! [`JsonWs`]: a test's WebSocket client. It sends JSON values as text frames and reads text
//! frames back as JSON, skipping pings and pongs; every receive waits at most its timeout, so
//! a server that stops answering fails the test instead of hanging it.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// A check every received message must pass (a suite's contract check), else `recv` fails.
pub type Check = fn(&Value) -> Result<()>;

/// A JSON WebSocket client over any stream (plain TCP, TLS).
pub struct JsonWs<S> {
    ws: WebSocketStream<S>,
    timeout: Duration,
    check: Option<Check>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> JsonWs<S> {
    /// A client on an open WebSocket whose receives each wait at most `timeout`.
    pub fn new(ws: WebSocketStream<S>, timeout: Duration) -> Self {
        JsonWs {
            ws,
            timeout,
            check: None,
        }
    }

    /// Every message received from now on must pass `check`.
    pub fn with_check(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }

    /// Change the receive timeout (paused-clock tests need a long one).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The WebSocket, for a test that reads and writes it from two tasks.
    pub fn into_inner(self) -> WebSocketStream<S> {
        self.ws
    }

    /// Send a JSON value as a text frame.
    pub async fn send(&mut self, v: Value) {
        self.send_raw(Message::Text(v.to_string().into())).await;
    }

    /// Send any frame.
    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.expect("send");
    }

    /// The next message, which must be a text frame holding JSON (and pass the check).
    pub async fn recv(&mut self) -> Result<Value> {
        loop {
            let next = tokio::time::timeout(self.timeout, self.ws.next())
                .await
                .context("timed out waiting for a message")?;
            match next {
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(&t)?;
                    if let Some(check) = self.check {
                        check(&v)?;
                    }
                    return Ok(v);
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                Some(Ok(m)) => bail!("unexpected frame {m:?}"),
                Some(Err(e)) => bail!("read error: {e}"),
                None => bail!("connection ended"),
            }
        }
    }

    /// Skip messages until one that `wanted` accepts; each receive is bounded as in
    /// [`JsonWs::recv`].
    pub async fn recv_until(&mut self, mut wanted: impl FnMut(&Value) -> bool) -> Result<Value> {
        loop {
            let v = self.recv().await?;
            if wanted(&v) {
                return Ok(v);
            }
        }
    }

    /// Skip messages until one of this `type` arrives; panics if none does.
    pub async fn until(&mut self, ty: &str) -> Value {
        self.recv_until(|v| v["type"] == ty)
            .await
            .unwrap_or_else(|e| panic!("waiting for {ty}: {e:#}"))
    }

    /// Skip messages until one of these `type`s arrives; panics if none does.
    pub async fn until_any(&mut self, types: &[&str]) -> Value {
        self.recv_until(|v| types.iter().any(|t| v["type"] == *t))
            .await
            .unwrap_or_else(|e| panic!("waiting for one of {types:?}: {e:#}"))
    }

    /// Read until the connection ends, skipping any messages before it: the close frame's
    /// code, or `None` if it ended without one.
    pub async fn close_code(&mut self) -> Option<u16> {
        loop {
            let next = tokio::time::timeout(self.timeout, self.ws.next())
                .await
                .expect("timed out waiting for the close");
            match next {
                Some(Ok(Message::Close(f))) => return f.map(|f| u16::from(f.code)),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// Close cleanly with 1000 and wait for the server's close reply: its code, as
    /// [`JsonWs::close_code`].
    pub async fn close(mut self) -> Option<u16> {
        let bye = CloseFrame {
            code: CloseCode::Normal,
            reason: "bye".into(),
        };
        let _ = self.ws.close(Some(bye)).await;
        self.close_code().await
    }
}
