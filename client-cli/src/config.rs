//! The user's settings: the server to use and the display name, from a flag, an environment
//! variable (`SUDOKU_RACE_SERVER`, `SUDOKU_RACE_NAME`), the config file, or the default, in that
//! order. The file is `config.toml` in the platform's config directory (`directories`: on Linux
//! `$XDG_CONFIG_HOME/sudoku-race/`, else `~/.config/sudoku-race/`):
//!
//! ```toml
//! server = "wss://race.example.org/ws"
//! name = "ada"
//! ```
//!
//! Every value keeps where it came from ([`Source`]), so `sudoku-race config` can say. A file
//! that does not parse is an error naming the file and the line, never silently ignored; a
//! missing file is no error. Values are kept as text here: the commands check them (a server URL
//! with [`ServerUrl`](crate::net::ServerUrl), a name with `PlayerName`) and say which source
//! gave the bad one.

use std::fmt;
use std::path::{Path, PathBuf};

use protocol::PlayerName;
use serde::Deserialize;

/// The environment variable for the server.
pub const SERVER_ENV: &str = "SUDOKU_RACE_SERVER";
/// The environment variable for the display name.
pub const NAME_ENV: &str = "SUDOKU_RACE_NAME";
/// The config file's name inside the config directory.
pub const FILE_NAME: &str = "config.toml";

/// Why the settings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read the config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// The file is not TOML, or holds something other than `server` and `name` strings.
    #[error("bad config file {}, line {line}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// What the TOML parser said.
        message: String,
    },
}

/// Where a value in force came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag (`--server`, `--name`).
    Flag,
    /// An environment variable.
    Env(&'static str),
    /// The config file.
    File(PathBuf),
    /// Nothing was set.
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag => f.write_str("the command line"),
            Source::Env(var) => write!(f, "the environment variable {var}"),
            Source::File(p) => write!(f, "the config file {}", p.display()),
            Source::Default => f.write_str("the default"),
        }
    }
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sourced {
    /// The value as given.
    pub value: String,
    /// Where it came from.
    pub source: Source,
}

/// What the config file holds (both optional; anything else is an error, so a typo is caught).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    /// The server URL.
    pub server: Option<String>,
    /// The display name.
    pub name: Option<String>,
}

impl FileSettings {
    /// Parse the text of the file at `path` (named in the error).
    pub fn parse(text: &str, path: &Path) -> Result<FileSettings, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start).min(text.len());
            ConfigError::Malformed {
                path: path.to_owned(),
                line: text.as_bytes()[..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1,
                message: e.message().trim().to_owned(),
            }
        })
    }

    /// Read the file at `path`; a missing file is empty settings.
    pub fn load(path: &Path) -> Result<FileSettings, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => FileSettings::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileSettings::default()),
            Err(source) => Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }
}

/// The default display name: the login name, else `player` (kept to the wire's name rules).
pub fn default_name() -> String {
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find_map(|n| {
            // A long login name is cut to fit, as it always was; one the rules refuse otherwise
            // (empty, control characters) gives way to the next variable.
            let cut: String = n.trim().chars().take(protocol::MAX_NAME_CHARS).collect();
            PlayerName::try_from(cut.as_str()).ok()
        })
        .map_or_else(|| "player".to_owned(), |n| n.to_string())
}

/// The config file's path in the platform's config directory, if the platform has one.
pub fn file_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "sudoku-race").map(|d| d.config_dir().join(FILE_NAME))
}

/// The settings in force for one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The config file consulted (None when the platform has no config directory).
    pub file: Option<PathBuf>,
    /// Whether that file exists.
    pub file_found: bool,
    /// The server URL: `Source::Default` means none was set anywhere.
    pub server: Sourced,
    /// The display name.
    pub name: Sourced,
}

/// What the command line gave.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `--server`.
    pub server: Option<String>,
    /// `--name`.
    pub name: Option<String>,
}

impl Settings {
    /// The settings from the real environment and the platform's config file.
    pub fn load(flags: Flags) -> Result<Settings, ConfigError> {
        Settings::resolve(flags, |k| std::env::var(k).ok(), file_path())
    }

    /// The settings from `flags`, then `env` (a variable lookup), then the file at `file`, then
    /// the defaults (`default_server`, the login name). An empty variable counts as unset.
    pub fn resolve(
        flags: Flags,
        env: impl Fn(&str) -> Option<String>,
        file: Option<PathBuf>,
    ) -> Result<Settings, ConfigError> {
        let (from_file, file_found) = match &file {
            Some(p) => (FileSettings::load(p)?, p.is_file()),
            None => (FileSettings::default(), false),
        };
        let pick = |flag: Option<String>, var: &'static str, filed: Option<String>| {
            let env = env(var).filter(|v| !v.trim().is_empty());
            if let Some(value) = flag {
                Some(Sourced {
                    value,
                    source: Source::Flag,
                })
            } else if let Some(value) = env {
                Some(Sourced {
                    value,
                    source: Source::Env(var),
                })
            } else {
                filed.map(|value| Sourced {
                    value,
                    source: Source::File(file.clone().unwrap_or_default()),
                })
            }
        };
        let server = pick(flags.server, SERVER_ENV, from_file.server).unwrap_or(Sourced {
            value: crate::net::DEFAULT_SERVER.to_owned(),
            source: Source::Default,
        });
        let name = pick(flags.name, NAME_ENV, from_file.name).unwrap_or_else(|| Sourced {
            value: default_name(),
            source: Source::Default,
        });
        Ok(Settings {
            file,
            file_found,
            server,
            name,
        })
    }

    /// Whether a server was set anywhere (flag, environment or file).
    pub fn server_configured(&self) -> bool {
        self.server.source != Source::Default
    }

    /// What `sudoku-race config` prints.
    pub fn report(&self) -> String {
        let file = match &self.file {
            Some(p) if self.file_found => format!("{}", p.display()),
            Some(p) => format!("{} (not there: defaults apply)", p.display()),
            None => "none (this platform has no config directory)".to_owned(),
        };
        let from = |s: &Source| match s {
            Source::Default => "default".to_owned(),
            Source::Flag => "flag".to_owned(),
            Source::Env(var) => format!("env {var}"),
            Source::File(_) => "config file".to_owned(),
        };
        format!(
            "config file: {file}\nserver = {:?}  # {}\nname = {:?}  # {}\n",
            self.server.value,
            from(&self.server.source),
            self.name.value,
            from(&self.name.source),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn flag_beats_env_beats_file_beats_default() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, "server = \"ws://file:1/ws\"\nname = \"filed\"\n").expect("write");
        let vars = [(SERVER_ENV, "ws://env:1/ws"), (NAME_ENV, "envy")];
        let flags = Flags {
            server: Some("ws://flag:1/ws".into()),
            name: None,
        };
        let s = Settings::resolve(flags, env(&vars), Some(path.clone())).expect("settings");
        assert_eq!(
            (s.server.value.as_str(), &s.server.source),
            ("ws://flag:1/ws", &Source::Flag)
        );
        assert_eq!(
            (s.name.value.as_str(), &s.name.source),
            ("envy", &Source::Env(NAME_ENV))
        );
        let s = Settings::resolve(
            Flags::default(),
            env(&[(NAME_ENV, " ")]),
            Some(path.clone()),
        )
        .expect("settings");
        assert_eq!(s.server.source, Source::File(path.clone()));
        assert_eq!(s.name.value, "filed");
        assert!(s.server_configured() && s.file_found);
        let none = dir.path().join("missing.toml");
        let s = Settings::resolve(Flags::default(), env(&[]), Some(none)).expect("settings");
        assert_eq!(s.server.value, crate::net::DEFAULT_SERVER);
        assert_eq!(s.server.source, Source::Default);
        assert!(!s.server_configured() && !s.file_found);
    }

    #[test]
    fn a_malformed_file_names_the_file_and_line() {
        let path = Path::new("/x/config.toml");
        for (text, line) in [
            ("name = \"a\"\nserver = ws://h\n", 2),
            ("name = \"a\"\n\nsever = \"ws://h/ws\"\n", 3),
            ("name = 3\n", 1),
        ] {
            match FileSettings::parse(text, path) {
                Err(e @ ConfigError::Malformed { line: l, .. }) => {
                    assert_eq!(l, line, "{e}");
                    assert!(
                        e.to_string()
                            .starts_with("bad config file /x/config.toml, line "),
                        "{e}"
                    );
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert_eq!(
            FileSettings::parse("", path).expect("empty is fine"),
            FileSettings::default()
        );
    }

    #[test]
    fn the_report_says_where_each_value_came_from() {
        let s = Settings {
            file: Some("/c/config.toml".into()),
            file_found: false,
            server: Sourced {
                value: "ws://h:1/ws".into(),
                source: Source::Env(SERVER_ENV),
            },
            name: Sourced {
                value: "ada".into(),
                source: Source::Flag,
            },
        };
        assert_eq!(
            s.report(),
            "config file: /c/config.toml (not there: defaults apply)\n\
             server = \"ws://h:1/ws\"  # env SUDOKU_RACE_SERVER\n\
             name = \"ada\"  # flag\n"
        );
    }
}
