//! Any sequence of commands into one room's rules: no panic, no solution before `race_over`,
//! names distinct by key, consistent standings (`server::fuzzing::room_rules` states them).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    server::fuzzing::room_rules(data);
});
