//! The file-descriptor budget: raise the soft `RLIMIT_NOFILE` to the hard limit, and keep the
//! connection cap below it, so that clients past the cap still get `server_full` instead of
//! a listener that can no longer accept.

/// Descriptors kept back from the cap: the database (and its journal), the listener, the
/// runtime, logs, and the few sockets accepted past the cap ([`super::OVERFLOW`]).
pub const RESERVE: u64 = 64;

/// The connection cap that fits the file-descriptor limit (after raising it), at most `max`.
pub fn fit_connections(max: usize) -> usize {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read or raise the file descriptor limit");
            return max;
        }
    };
    let fits = usize::try_from(limit.saturating_sub(RESERVE)).unwrap_or(usize::MAX);
    if fits >= max {
        return max;
    }
    tracing::warn!(
        max_connections = max,
        fd_limit = limit,
        lowered_to = fits,
        "the file descriptor limit cannot hold max connections plus {RESERVE}: lowering the cap"
    );
    fits
}
