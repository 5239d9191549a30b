//! `register`, and identities on the connection (Amendment A6): minting a key and a handle, and
//! turning the key a client sends into the [`Identity`] a room sees. The key goes no further than
//! here: rooms, logs and the store get the handle (the store also the key's hash).
//!
//! The count of identities a connection registered is its `Registrations`'. The store
//! blocks, so every call runs on a blocking thread.

use std::sync::Arc;

use protocol::{ErrorCode, IdentityKey, PlayerName, ServerMsg};
use rand::rngs::OsRng;
use rand::Rng;

use super::peer::Peer;
use crate::clock::unix_ms;
use crate::room::handle::Identity;
use crate::store::{key_hash, Store, StoreError};

/// Characters of a handle: the room-code alphabet (no 0/O, 1/I/L), so handles read aloud.
const HANDLE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A refusal: the contract's code and a message for the client.
pub type Refused = (ErrorCode, String);

/// A fresh secret key: 256 bits from the OS's CSPRNG, as 64 lowercase hex digits.
fn mint_key() -> String {
    crate::hex::secret_256()
}

/// A fresh public handle, `h` and 7 characters (31^7 ≈ 2.8e10 of them; a clash is retried).
fn mint_handle() -> String {
    let mut rng = OsRng;
    let tail: String = (0..7)
        .map(|_| char::from(HANDLE_ALPHABET[rng.gen_range(0..HANDLE_ALPHABET.len())]))
        .collect();
    format!("h{tail}")
}

/// `register` {`name`}: a new identity, stored as the key's hash.
pub async fn register(
    store: &Arc<dyn Store>,
    name: &str,
    now_unix_ms: i64,
) -> Result<(IdentityKey, String), Refused> {
    let name = PlayerName::try_from(name)
        .map_err(|why| (ErrorCode::InvalidName, why.to_string()))?
        .to_string();
    let store = store.clone();
    let done = tokio::task::spawn_blocking(move || {
        let key = mint_key();
        let hash = key_hash(&key);
        // A handle clash is a one-in-billions event; a few tries make it never.
        for _ in 0..8 {
            let handle = mint_handle();
            match store.register(&handle, hash, &name, now_unix_ms) {
                Ok(()) => return Ok((IdentityKey::from(key), handle)),
                Err(StoreError::HandleTaken { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::HandleTaken {
            handle: "(eight in a row)".into(),
        })
    })
    .await;
    match done {
        Ok(Ok(minted)) => Ok(minted),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "registering a player failed");
            Err((ErrorCode::ServerFull, "cannot register right now".into()))
        }
        Err(e) => {
            tracing::error!(error = %e, "the register task panicked");
            Err((ErrorCode::ServerFull, "cannot register right now".into()))
        }
    }
}

/// Who a `create_room`, `join_room` or `spectate` speaks for: anonymous without a key, the
/// key's player with one, `invalid_key` for a key nobody registered.
pub async fn identify(
    store: &Arc<dyn Store>,
    key: Option<IdentityKey>,
    bot: bool,
) -> Result<Identity, Refused> {
    Ok(lookup(store, key, bot).await?.0)
}

/// [`identify`], with the name the key's player registered under (`None` when anonymous).
pub async fn lookup(
    store: &Arc<dyn Store>,
    key: Option<IdentityKey>,
    bot: bool,
) -> Result<(Identity, Option<String>), Refused> {
    let Some(key) = key else {
        return Ok((
            Identity {
                handle: None,
                bot,
                banned: false,
                draws: Default::default(),
            },
            None,
        ));
    };
    let hash = key_hash(key.as_str());
    let store = store.clone();
    match tokio::task::spawn_blocking(move || store.player_by_key(hash)).await {
        Ok(Ok(Some(player))) => Ok((
            Identity {
                handle: Some(player.handle),
                bot,
                banned: player.banned,
                draws: Default::default(),
            },
            Some(player.name),
        )),
        Ok(Ok(None)) => Err((
            ErrorCode::InvalidKey,
            "unknown key: register again, or play without one".into(),
        )),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "looking up a key failed");
            Err((
                ErrorCode::InvalidKey,
                "identities are unavailable right now".into(),
            ))
        }
        Err(e) => {
            tracing::error!(error = %e, "the key lookup panicked");
            Err((
                ErrorCode::InvalidKey,
                "identities are unavailable right now".into(),
            ))
        }
    }
}

/// Identities one connection may register.
const MAX_REGISTRATIONS: u8 = 3;

impl Peer {
    /// The identity behind a key (A6), or `None` once the refusal is sent.
    pub(super) async fn identify(
        &mut self,
        key: Option<IdentityKey>,
        bot: bool,
    ) -> Option<Identity> {
        match identify(self.server.play.store(), key, bot).await {
            Ok(who) => Some(who),
            Err((code, message)) => {
                self.error(code, message);
                None
            }
        }
    }
}

/// The identities one connection has registered (at most [`MAX_REGISTRATIONS`]).
#[derive(Default)]
pub(super) struct Registrations(u8);

impl Registrations {
    /// `register`: a new identity for this client. A connection gets a few (a player who lost
    /// a key may ask again); more are `rate_limited`, so one socket cannot fill the table.
    pub(super) async fn register(&mut self, peer: &mut Peer, name: String) {
        if self.0 >= MAX_REGISTRATIONS {
            return peer.error(
                ErrorCode::RateLimited,
                "too many identities from one connection",
            );
        }
        match register(peer.server.play.store(), &name, unix_ms()).await {
            Ok((key, handle)) => {
                self.0 += 1;
                tracing::info!(%handle, "registered a player");
                peer.send(&ServerMsg::Registered { key, handle });
            }
            Err((code, message)) => peer.error(code, message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_handles_have_their_shape() {
        let k = mint_key();
        assert_eq!(k.len(), 64);
        assert!(k.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(k, mint_key());
        let h = mint_handle();
        assert_eq!(h.len(), 8);
        assert!(h.starts_with('h'));
        assert!(h[1..].bytes().all(|b| HANDLE_ALPHABET.contains(&b)));
    }
}
