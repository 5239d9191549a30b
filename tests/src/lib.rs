//! Support for the end-to-end tests and load tools: a server started on loopback, and
//! WebSocket clients that speak the shared protocol types.
