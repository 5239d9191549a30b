//! The file-descriptor budget: raise the soft `RLIMIT_NOFILE` to the hard limit, and keep the
//! connection cap below it, so that clients past the cap still get `server_full` instead of
//! a listener that can no longer accept.
//!
//! The budget is the limit less what the process holds already when the cap is fitted (the
//! database and its journal, the listener, the runtime, logs), less [`MARGIN`] for what it
//! opens later, less the sockets accepted past the cap ([`super::OVERFLOW`]).

use super::OVERFLOW;

/// Descriptors kept back for what the server opens after the cap is fitted: Redis and
/// PostgreSQL connections, log files, a spooled result, the accept loop's two reserve
/// descriptors ([`super::admit::Reserve`]) and the one refusal that waits for its client's
/// handshake, sockets evicted but not yet closed.
pub const MARGIN: u64 = 16;

/// Descriptors assumed held at start where they cannot be counted.
const HELD_UNKNOWN: u64 = 32;

/// The connection cap that fits the file-descriptor limit (after raising it), at most `max`.
pub fn fit_connections(max: usize) -> usize {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read or raise the file descriptor limit");
            return max;
        }
    };
    let held = open_descriptors().unwrap_or(HELD_UNKNOWN);
    let reserve = held + MARGIN + OVERFLOW as u64;
    let fits = usize::try_from(limit.saturating_sub(reserve)).unwrap_or(usize::MAX);
    if fits >= max {
        return max;
    }
    tracing::warn!(
        max_connections = max,
        fd_limit = limit,
        fds_open = held,
        lowered_to = fits,
        "the file descriptor limit cannot hold max connections plus the server's own \
         descriptors, a margin of {MARGIN} and {OVERFLOW} for refusals: lowering the cap"
    );
    fits
}

/// How many descriptors the process has open, where the system lists them.
fn open_descriptors() -> Option<u64> {
    ["/proc/self/fd", "/dev/fd"]
        .iter()
        .find_map(|dir| std::fs::read_dir(dir).ok())
        .map(|entries| entries.count() as u64)
}

/// Whether an accept error means the process (EMFILE) or the system (ENFILE) has no
/// descriptor left for the socket.
pub fn out_of_descriptors(e: &std::io::Error) -> bool {
    // The same numbers on Linux, the BSDs and macOS.
    const ENFILE: i32 = 23;
    const EMFILE: i32 = 24;
    cfg!(unix) && matches!(e.raw_os_error(), Some(ENFILE | EMFILE))
}
