//! The player's identities (Amendment A6): one secret key per server, registered on first use
//! and kept in `keys.toml` beside the config file, readable by its owner only (mode 0600: a key
//! is a password). `--anonymous` plays without one. Keys never reach the log or the screen.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use protocol::{ClientMsg, IdentityKey, ServerMsg};
use serde::{Deserialize, Serialize};

use crate::net::{self, Endpoint, Identity, Intent, NetEvent, ServerUrl};

/// The keys file's name in the config directory.
const FILE_NAME: &str = "keys.toml";

/// What `keys.toml` holds: per server (`ws://host:port`), the key and its public handle.
#[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Keys {
    /// By server.
    #[serde(default)]
    pub servers: BTreeMap<String, Entry>,
}

/// One server's identity.
#[derive(Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    /// The secret.
    pub key: String,
    /// The public id the server gave it.
    pub handle: String,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Entry {{ key: …, handle: {} }}", self.handle)
    }
}

/// The keys file's path, if the platform has a config directory.
pub fn file_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "sudoku-race").map(|d| d.config_dir().join(FILE_NAME))
}

/// The name a server goes by in the keys file: its scheme, host and port (the path and any
/// room code do not change whose key it is).
pub fn server_id(url: &ServerUrl) -> String {
    let scheme = if url.is_secure() { "wss" } else { "ws" };
    format!("{scheme}://{}:{}", url.hostname(), url.port())
}

/// Read the keys file; a missing or unreadable one is empty (a new key is registered).
pub fn load(path: &Path) -> Keys {
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text).unwrap_or_else(|e| {
            tracing::warn!(path = %path.display(), error = %e, "keys file unreadable; ignoring it");
            Keys::default()
        }),
        Err(_) => Keys::default(),
    }
}

/// Write the keys file, owner-only.
pub fn save(path: &Path, keys: &Keys) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = toml::to_string(keys).map_err(std::io::Error::other)?;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        opts.mode(0o600);
        let mut f = opts.open(path)?;
        // An older file may have been made with looser bits: tighten them too.
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        f.write_all(text.as_bytes())?;
    }
    #[cfg(not(unix))]
    {
        let mut f = opts.open(path)?;
        f.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// The identity to play under on `to`: the kept key, or a new one registered as `name` and
/// kept. Never fails the command: a server that cannot register (an older one) or a file that
/// cannot be written leaves the player anonymous, with a log line.
pub async fn identity_for(to: &Endpoint, name: &str, file: Option<&Path>) -> Identity {
    let id = server_id(&to.url);
    let mut keys = file.map(load).unwrap_or_default();
    if let Some(entry) = keys.servers.get(&id) {
        return Identity {
            key: Some(IdentityKey::from(entry.key.clone())),
            bot: false,
        };
    }
    let Some((key, handle)) = register(to, name).await else {
        return Identity::default();
    };
    tracing::info!(server = %id, %handle, "registered an identity");
    if let Some(path) = file {
        keys.servers.insert(
            id,
            Entry {
                key: key.as_str().to_owned(),
                handle,
            },
        );
        if let Err(e) = save(path, &keys) {
            tracing::warn!(path = %path.display(), error = %e, "cannot keep the key; playing this once");
        }
    }
    Identity {
        key: Some(key),
        bot: false,
    }
}

/// Ask `to` for a new identity: (key, handle), or `None` (logged) when it cannot give one.
async fn register(to: &Endpoint, name: &str) -> Option<(IdentityKey, String)> {
    let (session, mut events) = net::connect(to.clone(), Intent::Nothing);
    session.send(ClientMsg::Register {
        name: name.to_owned(),
    });
    let wait = async {
        while let Some(ev) = events.recv().await {
            match ev {
                NetEvent::Message(m) => match *m {
                    ServerMsg::Registered { key, handle } => return Some((key, handle)),
                    ServerMsg::Error { code, message, .. } => {
                        tracing::warn!(code = code.as_str(), %message, "the server did not register us");
                        return None;
                    }
                    _ => {}
                },
                NetEvent::Closed { error } => {
                    tracing::warn!(?error, "closed before registering");
                    return None;
                }
                _ => {}
            }
        }
        None
    };
    let got = tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .unwrap_or_else(|_| {
            tracing::warn!("no answer to register in 10 s");
            None
        });
    drop(session);
    got
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_owner_only_and_stay_out_of_debug() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sub").join(FILE_NAME);
        let mut keys = Keys::default();
        keys.servers.insert(
            "ws://127.0.0.1:7878".into(),
            Entry {
                key: "s3cr3t".into(),
                handle: "hABCDEFG".into(),
            },
        );
        save(&path, &keys).expect("save");
        assert_eq!(load(&path), keys);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(!format!("{keys:?}").contains("s3cr3t"));
        assert!(load(&dir.path().join("none.toml")).servers.is_empty());
    }

    #[test]
    fn a_server_is_named_by_scheme_host_and_port() {
        for (url, id) in [
            ("ws://127.0.0.1:7878/ws", "ws://127.0.0.1:7878"),
            (
                "wss://race.example.org/r/AB23",
                "wss://race.example.org:443",
            ),
        ] {
            let u: ServerUrl = url.parse().expect("url");
            assert_eq!(server_id(&u), id);
        }
    }
}
