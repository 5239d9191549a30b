//! Any text frame a client might send: parsing, settings resolution, the name and chat rules and
//! the id echo must never panic, and what parses serializes back to something that parses the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        protocol::fuzzing::client_frame(text);
    }
});
