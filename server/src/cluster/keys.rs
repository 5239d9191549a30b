//! What cluster mode keeps in Redis, by name, and how long it lives. Every key a node writes
//! expires unless the node renews it, so a node that dies leaves nothing behind for long.

use std::time::Duration;

use protocol::{ResumeToken, RoomCode};

use crate::room::journal;

/// How long a node's keys live unless renewed: a dead owner's rooms are gone within this
/// (the bound is 15 s; a lost node is noticed within `LEASE + CHECK_EVERY`).
pub const LEASE: Duration = Duration::from_secs(10);
/// How often a node renews its keys (three renewals fit in a lease, so one lost or late
/// renewal never lets a key lapse).
pub const RENEW_EVERY: Duration = Duration::from_secs(3);
/// How long a node's own key lives unless renewed: a killed node is known dead within this,
/// and its rooms are taken over at once (A12: from a kill to the room answering again, under
/// 2 s). Short, so renewed often; one key per node, so that costs Redis little.
pub const NODE_LEASE: Duration = Duration::from_millis(1200);
/// How often a node renews its own key (six renewals fit in its lease: a node whose worker is
/// held up a second is not judged dead).
pub const NODE_RENEW_EVERY: Duration = Duration::from_millis(200);
/// How often a node looks for dead nodes whose rooms need a new owner.
pub const NODE_POLL: Duration = Duration::from_millis(200);
/// How often a node checks that the nodes it relays with are alive.
pub const CHECK_EVERY: Duration = Duration::from_millis(500);

/// Every node that has run (`SADD` at start): where a dead node's rooms are looked for.
pub const NODES: &str = "sr:nodes";

/// The codes of the rooms node `id` owns (added as it claims one, rewritten at each
/// renewal): what another node takes over when `id` dies.
pub fn owned(id: &str) -> String {
    format!("sr:own:{id}")
}
/// How long a member node waits before asking again for a fresh view that nobody heard.
pub const RESYNC_RETRY: Duration = Duration::from_millis(500);

/// A node is alive while this exists.
pub fn node(id: &str) -> String {
    format!("sr:node:{id}")
}

/// Room code → the id of the node that owns it (claimed with `SET NX`).
pub fn room(code: &RoomCode) -> String {
    format!("sr:room:{code}")
}

/// Room code → its `list_rooms` row (JSON), while it is listed.
pub fn listing(code: &RoomCode) -> String {
    format!("sr:list:{code}")
}

/// The pattern of every listing key.
pub const LISTING_PATTERN: &str = "sr:list:*";

/// Resume token → room code. The key is the token's SHA-256, so Redis never holds a token
/// (a seat rebuilt from its room's log holds `#HASH` in its token's place: that hash).
pub fn token(token: &ResumeToken) -> String {
    match token.as_str().strip_prefix('#') {
        Some(hash) => format!("sr:tok:{hash}"),
        None => format!("sr:tok:{}", journal::token_hash(token.as_str())),
    }
}

/// A room's command log (A9): a stream of its task's commands, deleted when it closes.
pub fn log(code: &RoomCode) -> String {
    format!("sr:log:{code}")
}

/// Where a log key's room code begins.
pub const fn log_prefix_len() -> usize {
    "sr:log:".len()
}

/// How long a room's log outlives its last renewal: its owner's lease, and then the time
/// another node has to take the room over from it.
pub const LOG_LEASE: Duration = Duration::from_secs(30);

/// The codes of the rooms created from an address (the per-address limit, cluster-wide).
pub fn address(ip: std::net::IpAddr) -> String {
    format!("sr:ip:{ip}")
}

/// Commands to a room, read by its owner.
pub fn room_channel(code: &RoomCode) -> String {
    format!("sr:r:{code}")
}

/// The prefix of every room channel.
pub const ROOM_CHANNEL_PREFIX: &str = "sr:r:";

/// Messages to a node's connections, and answers to its relayed commands.
pub fn node_channel(id: &str) -> String {
    format!("sr:n:{id}")
}

/// The prefix of every node channel.
pub const NODE_CHANNEL_PREFIX: &str = "sr:n:";

/// The cluster-wide pool of a difficulty (A7): a hash of `NODE:CONN` → the waiting
/// connection's entry (JSON), one per connection waiting on any node.
pub fn pool(difficulty: engine::Difficulty) -> String {
    format!("sr:pool:{difficulty}")
}

/// A pool entry's field: the connection `conn` of node `node`.
pub fn pool_field(node: &str, conn: u64) -> String {
    format!("{node}:{conn}")
}

/// The id of the node that forms the pool's races (`SET` while free or its own, leased).
pub const POOL_LEASE_KEY: &str = "sr:pool:lease";
/// How long the pool's lease lives unless renewed: races stop forming for at most this long
/// after its node dies, then another node takes it over.
pub const POOL_LEASE: Duration = Duration::from_secs(3);
/// How often a node renews the pool's lease, or tries to take it (six tries fit in a lease).
pub const POOL_LEAD_EVERY: Duration = Duration::from_millis(500);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_key_does_not_hold_the_token() {
        let t = ResumeToken::from("0123456789abcdef0123456789abcdef".to_owned());
        let k = token(&t);
        assert!(!k.contains(t.as_str()));
        assert_eq!(k.len(), "sr:tok:".len() + 64);
        assert!(LEASE + CHECK_EVERY < Duration::from_secs(15));
        assert!(NODE_RENEW_EVERY * 6 <= NODE_LEASE);
        assert!(NODE_LEASE + NODE_POLL < Duration::from_secs(2));
        assert!(RENEW_EVERY * 3 <= LEASE);
        assert!(POOL_LEAD_EVERY * 3 <= POOL_LEASE);
    }
}
