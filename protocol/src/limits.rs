//! The protocol version and the size limits the contract fixes.

/// Protocol version sent in `welcome`.
pub const PROTOCOL_VERSION: u32 = 1;

/// Largest text frame the server accepts, in bytes (close 1009 above it).
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// Longest chat text, in characters.
pub const MAX_CHAT_CHARS: usize = 200;

/// Longest name, in characters, after trimming.
pub const MAX_NAME_CHARS: usize = 24;
