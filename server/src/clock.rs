//! The wall clock, for the places allowed to read it (the room task, for race records; the
//! transport, for identities, the daily date and the API's "today"). The rules never read it:
//! time reaches them as arguments (`server/clippy.toml` forbids clocks everywhere else).

/// The wall clock in Unix milliseconds.
#[allow(clippy::disallowed_methods)] // this module is where the wall clock is read
pub fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
