//! The WebSocket protocol over real sockets: the message contract, bad input, the close
//! handshake, the conformance script, resuming a seat, a proxy's headers, lag compensation,
//! fan-out to slow readers, and the same over TLS.

mod bad_input;
mod close_handshake;
mod conformance;
mod contract;
mod fanout;
mod lag;
mod proxy;
mod resume;
mod tls;
