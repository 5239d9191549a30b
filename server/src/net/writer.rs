//! A connection's way out and its close (Amendment A2): the writer task drains the bounded
//! outgoing queue (`feed` every ready message, `flush` once, ping on a timer); when the
//! connection closes it sends what was queued before the close (not for a slow reader; for
//! [`LINGER`] at most), then the Close frame (again for [`LINGER`] at most). [`linger`] keeps
//! reading and discarding the client's input until its Close or EOF, at most [`LINGER`] after
//! the writer is done, so that TCP is never closed on unread input: that would reset the
//! connection and lose the close on the client's side. When the framing broke (1002, 1007,
//! 1009) the input is discarded as raw bytes, and a stream that ends in a Close frame ends the
//! wait as a recognised Close does.

use std::sync::Arc;
use std::time::Duration;

use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::error::{Error as WsError, ProtocolError};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode as WsCloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use tokio_util::task::AbortOnDropHandle;

use crate::metrics::Metrics;
use crate::outbox::stop::{Reason, Side};
use crate::outbox::{CloseCode, Out, Outbox};

/// How long the server waits for the client's side of the close after sending its own.
pub const LINGER: Duration = Duration::from_secs(2);

/// An upgraded WebSocket, over plain TCP or TLS.
pub type Ws = WebSocketStream<TokioIo<Upgraded>>;

/// The writer half.
pub type Sink = SplitSink<Ws, Message>;

/// Write until the connection closes; returns the sink for [`linger`]. Pings the client twice
/// per `idle_timeout`, and closes it (1000) when it has sent nothing for that long.
#[allow(clippy::disallowed_methods)] // the ping timer starts now: transport reads the clock
pub async fn write_loop(
    mut sink: Sink,
    mut rx: mpsc::UnboundedReceiver<Out>,
    handle: Outbox,
    idle_timeout: Duration,
    metrics: Arc<Metrics>,
) -> Sink {
    let ping_every = (idle_timeout / 2).max(Duration::from_millis(100));
    let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let stop = handle.stop();
    loop {
        let first = tokio::select! {
            biased;
            () = stop.wait(Side::Writer, Reason::Closing) => break,
            m = rx.recv() => match m {
                Some(m) => {
                    handle.progress();
                    handle.taken(&m);
                    m.into_message()
                }
                None => break,
            },
            _ = ping.tick() => {
                if handle.silent_for() >= idle_timeout {
                    tracing::info!("idle timeout");
                    handle.close(CloseCode::Normal);
                    continue;
                }
                Message::Ping(Default::default())
            }
        };
        let batch = async {
            sink.feed(first).await?;
            while let Ok(m) = rx.try_recv() {
                handle.taken(&m);
                sink.feed(m.into_message()).await?;
            }
            sink.flush().await
        };
        // The write first: it almost always completes at once, and then the stall timer below
        // is never made (a sleep per message would cost a timer-wheel entry each).
        let res = tokio::select! {
            biased;
            r = batch => r,
            // A client that stopped reading blocks the flush: give up on it when asked.
            () = stop.wait(Side::Writer, Reason::Closing) => break,
            // Or when its queue has not drained within the slow-reader rule.
            () = handle.stalled() => {
                handle.close_slow(&metrics);
                break;
            }
        };
        if let Err(e) = res {
            if matches!(e, WsError::WriteBufferFull(_)) {
                handle.close_slow(&metrics);
            } else {
                tracing::debug!(error = %e, "write failed");
                handle.close_quietly();
                return sink;
            }
            break;
        }
    }
    // Boxed: it runs once, and inline its state would be part of the task all along.
    Box::pin(wind_down(sink, rx, &handle)).await
}

/// The connection is closing: what was queued before the close, then the Close frame, each
/// for [`LINGER`] at most; returns the sink for [`linger`].
async fn wind_down(mut sink: Sink, mut rx: mpsc::UnboundedReceiver<Out>, handle: &Outbox) -> Sink {
    let code = handle.close_code();
    if !handle.is_slow() {
        // Deliver what was queued before the close (welcome + server_full, final results), for
        // [`LINGER`] at most: a client busy sending may not read it that soon, and the Close
        // must still follow what went out, not be dropped with the rest of the queue.
        let deliver = async {
            while let Ok(m) = rx.try_recv() {
                sink.feed(m.into_message()).await?;
            }
            Ok::<_, WsError>(())
        };
        if let Ok(Err(e)) = tokio::time::timeout(LINGER, deliver).await {
            // The client closed first (its Close's answer waits in the sink), or the socket
            // failed: the flush below sends the one or fails at once.
            tracing::debug!(error = %e, "write failed while closing");
        }
    }
    let close = async {
        if let Some(code) = code {
            let frame = CloseFrame {
                code: WsCloseCode::from(code.as_u16()),
                reason: code.reason().into(),
            };
            if let Err(e) = sink.feed(Message::Close(Some(frame))).await {
                tracing::debug!(error = %e, "close frame not sent");
            }
        }
        sink.flush().await
    };
    let _ = tokio::time::timeout(LINGER, close).await;
    sink
}

/// How the reader left the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadEnd {
    /// The client sent its Close, or EOF, or the socket failed: nothing more to read.
    Done,
    /// The server is closing; the frames are sound, so the client's Close can be recognised.
    Open,
    /// The framing broke (protocol error, bad UTF-8, too big): only raw bytes can be discarded.
    Broken,
}

/// Wait for the writer, reading and discarding input meanwhile (per `end`), until the client's
/// Close or EOF or [`LINGER`] after the writer is done; only then may TCP close.
#[allow(clippy::disallowed_methods)] // the linger deadline: transport reads the clock
pub async fn linger(
    mut stream: SplitStream<Ws>,
    writer: AbortOnDropHandle<Sink>,
    mut end: ReadEnd,
) {
    let mut writer = writer;
    let mut sink = None;
    let mut deadline = None;
    while end == ReadEnd::Open {
        let until = deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        tokio::select! {
            r = &mut writer, if deadline.is_none() => {
                sink = r.ok();
                deadline = Some(Instant::now() + LINGER);
            }
            () = tokio::time::sleep_until(until), if deadline.is_some() => return,
            m = stream.next() => match m {
                Some(Ok(Message::Close(_))) | None => end = ReadEnd::Done,
                Some(Ok(_)) => {}
                Some(Err(
                    WsError::Io(_)
                    | WsError::ConnectionClosed
                    | WsError::AlreadyClosed
                    | WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake),
                )) => end = ReadEnd::Done,
                Some(Err(_)) => end = ReadEnd::Broken,
            },
        }
    }
    let sink = match sink {
        Some(s) => Some(s),
        None if deadline.is_some() => None,
        // The writer bounds its own wind-down.
        None => writer.await.ok(),
    };
    if end == ReadEnd::Done {
        return;
    }
    let Some(sink) = sink else { return };
    let Ok(mut ws) = stream.reunite(sink) else {
        return;
    };
    let deadline = deadline.unwrap_or_else(|| Instant::now() + LINGER);
    let discard = async {
        let mut buf = [0u8; 2048];
        // The last bytes read, enough to hold the client's Close frame.
        let mut tail = Vec::with_capacity(2 * MAX_CLOSE_FRAME);
        while let Ok(n) = ws.get_mut().read(&mut buf).await {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[n.saturating_sub(MAX_CLOSE_FRAME)..n]);
            tail.drain(..tail.len().saturating_sub(MAX_CLOSE_FRAME));
            // The client's answer to our Close is the last thing it sends: TCP may end now.
            if ends_with_close(&tail) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout_at(deadline, discard).await;
}

/// The longest Close frame a client sends: 2 header bytes, a 4-byte mask, 125 bytes of payload.
const MAX_CLOSE_FRAME: usize = 131;

/// Whether `bytes` end with a whole masked Close frame (RFC 6455 §5.5.1) whose code is one a
/// peer may send and whose reason is UTF-8. After the framing broke, frames can no longer be
/// told apart, but the client's Close is the last thing it sends: a stream that ends in one is
/// the end of the handshake. Raw bytes that happen to look like one end the wait early, which
/// costs nothing: the server's own Close went out before.
fn ends_with_close(bytes: &[u8]) -> bool {
    (0..=125usize).any(|n| {
        let Some(at) = bytes.len().checked_sub(6 + n) else {
            return false;
        };
        let frame = &bytes[at..];
        if frame[0] != 0x88 || usize::from(frame[1]) != 0x80 | n || n == 1 {
            return false;
        }
        let (mask, masked) = frame[2..].split_at(4);
        let payload: Vec<u8> = masked
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ mask[i % 4])
            .collect();
        if n == 0 {
            return true;
        }
        let code = u16::from_be_bytes([payload[0], payload[1]]);
        WsCloseCode::from(code).is_allowed() && std::str::from_utf8(&payload[2..]).is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked_close(payload: &[u8]) -> Vec<u8> {
        let mask = [9, 200, 33, 71];
        let mut f = vec![0x88, 0x80 | payload.len() as u8];
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        f
    }

    #[track_caller]
    fn check(bytes: &[u8], expected: bool) {
        assert_eq!(ends_with_close(bytes), expected, "{bytes:?}");
    }

    #[test]
    fn a_client_close_at_the_end_of_the_stream() {
        let mut with_reason = 1000u16.to_be_bytes().to_vec();
        with_reason.extend_from_slice("bye é".as_bytes());
        for payload in [&b""[..], &1009u16.to_be_bytes(), &with_reason, &[b'x'; 0]] {
            let mut stream = vec![0x81, 0x85, 1, 2, 3, 4, 5, 6, 7, 8, 9];
            stream.extend(masked_close(payload));
            check(&stream, true);
            check(&masked_close(payload), true);
        }
        let mut long = 4000u16.to_be_bytes().to_vec();
        long.extend_from_slice(&[b'r'; 123]);
        check(&masked_close(&long), true);
    }

    #[test]
    fn anything_else_is_not_one() {
        check(b"", false);
        check(&[0x88], false);
        // Unmasked (a server's), cut short, followed by more bytes, a one-byte payload.
        check(&[0x88, 0x02, 0x03, 0xe8], false);
        check(&masked_close(&1000u16.to_be_bytes())[..7], false);
        let mut more = masked_close(&1000u16.to_be_bytes());
        more.push(0);
        check(&more, false);
        check(&masked_close(&[3]), false);
        // Codes a peer may not send; a reason that is not UTF-8.
        check(&masked_close(&1005u16.to_be_bytes()), false);
        check(&masked_close(&999u16.to_be_bytes()), false);
        check(&masked_close(&[0x03, 0xe8, 0xff]), false);
    }
}
