//! The wire contract (version 1) between the race server and its clients, as serde types.
//!
//! One JSON object per WebSocket text frame, tagged by `"type"`. [`ClientMsg`] is what clients
//! send, [`ServerMsg`] what the server sends. Unknown fields are ignored on both sides.
//! Optional fields serialize as `null`, never omitted, so clients can rely on every documented key.
//!
//! Numbers a client sends (cells, digits, settings) are parsed as wide integers and checked by
//! the server, so that an out-of-range value gets its own error code rather than a parse error.

use serde::{Deserialize, Serialize};

use crate::engine::Difficulty;

/// Protocol version sent in `welcome`.
pub const PROTOCOL_VERSION: u32 = 1;

/// Largest text frame the server accepts, in bytes (close 1009 above it).
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// Longest chat text, in characters.
pub const MAX_CHAT_CHARS: usize = 200;

/// Longest name, in characters, after trimming.
pub const MAX_NAME_CHARS: usize = 24;

/// A client's message id: any JSON number or string, echoed back verbatim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MsgId {
    /// A JSON number.
    Number(serde_json::Number),
    /// A JSON string.
    String(String),
}

impl MsgId {
    /// The id as a whole number, when it is one (clients that number their messages).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            MsgId::Number(n) => n.as_u64(),
            MsgId::String(_) => None,
        }
    }
}

/// Room settings as a client sends them: every field optional; the server fills defaults and
/// checks ranges (`invalid_settings`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SettingsRequest {
    /// `easy` | `medium` | `hard` | `expert`; a string, checked by the server.
    #[serde(default)]
    pub difficulty: Option<String>,
    /// 1..=16.
    #[serde(default, deserialize_with = "int_setting")]
    pub max_players: Option<i64>,
    /// 60..=7200.
    #[serde(default, deserialize_with = "int_setting")]
    pub time_limit_s: Option<i64>,
    /// 0..=10, 0 = unlimited.
    #[serde(default, deserialize_with = "int_setting")]
    pub max_mistakes: Option<i64>,
    /// 0..=120.
    #[serde(default, deserialize_with = "int_setting")]
    pub penalty_s: Option<i64>,
    /// Listed in `room_list` while in the lobby.
    #[serde(default)]
    pub public: Option<bool>,
}

/// An integer setting: any JSON number with no fraction is well-typed (`8`, `8.0`, `1e20`); one
/// beyond `i64` saturates, so that `resolve` calls it out of range (`invalid_settings`) rather
/// than mistyped. A string, a bool or a fraction is the wrong type (`bad_message`).
fn int_setting<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(v) = n.as_i64() {
        return Ok(Some(v));
    }
    if n.as_u64().is_some() {
        return Ok(Some(i64::MAX));
    }
    match n.as_f64() {
        // `as` saturates at the bounds of i64.
        Some(f) if f.is_finite() && f.fract() == 0.0 => Ok(Some(f as i64)),
        _ => Err(serde::de::Error::custom(format!(
            "invalid type: {n}, expected an integer"
        ))),
    }
}

/// A room's settings, complete and in range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Difficulty of the puzzles dealt.
    pub difficulty: Difficulty,
    /// Most players in the room (1..=16).
    pub max_players: u8,
    /// Race time limit in seconds (60..=7200).
    pub time_limit_s: u32,
    /// Mistakes that eliminate a player (0 = unlimited).
    pub max_mistakes: u8,
    /// Seconds added to a player's time per mistake (0..=120).
    pub penalty_s: u32,
    /// Whether the room is listed in `room_list` while in the lobby.
    pub public: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            difficulty: Difficulty::Medium,
            max_players: 8,
            time_limit_s: 1800,
            max_mistakes: 3,
            penalty_s: 10,
            public: true,
        }
    }
}

/// Which setting is out of range, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct InvalidSettings {
    /// The field's wire name.
    pub field: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl SettingsRequest {
    /// Defaults filled in, ranges checked; never silently clamped.
    pub fn resolve(&self) -> Result<Settings, InvalidSettings> {
        fn range(
            field: &'static str,
            v: Option<i64>,
            lo: i64,
            hi: i64,
            default: i64,
        ) -> Result<i64, InvalidSettings> {
            match v {
                None => Ok(default),
                Some(v) if (lo..=hi).contains(&v) => Ok(v),
                Some(v) => Err(InvalidSettings {
                    field,
                    reason: format!("{v} is outside {lo}..={hi}"),
                }),
            }
        }
        let d = Settings::default();
        let difficulty = match &self.difficulty {
            None => d.difficulty,
            Some(s) => s
                .parse()
                .map_err(
                    |e: crate::engine::difficulty::UnknownDifficulty| InvalidSettings {
                        field: "difficulty",
                        reason: e.to_string(),
                    },
                )?,
        };
        // The casts below are lossless: each value was just checked against a small range.
        Ok(Settings {
            difficulty,
            max_players: range("max_players", self.max_players, 1, 16, d.max_players.into())? as u8,
            time_limit_s: range(
                "time_limit_s",
                self.time_limit_s,
                60,
                7200,
                d.time_limit_s.into(),
            )? as u32,
            max_mistakes: range(
                "max_mistakes",
                self.max_mistakes,
                0,
                10,
                d.max_mistakes.into(),
            )? as u8,
            penalty_s: range("penalty_s", self.penalty_s, 0, 120, d.penalty_s.into())? as u32,
            public: self.public.unwrap_or(d.public),
        })
    }
}

/// A message from a client to the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Open a room; the sender becomes its host and a player.
    CreateRoom {
        /// The creator's display name.
        name: String,
        /// Room settings; defaults where absent.
        #[serde(default)]
        settings: Option<SettingsRequest>,
    },
    /// Join a room as a player (lobby or between races).
    JoinRoom {
        /// Room code (upper-cased by the server).
        room: String,
        /// Display name.
        name: String,
    },
    /// Watch a room, any phase.
    Spectate {
        /// Room code.
        room: String,
        /// Display name (default `spectator`).
        #[serde(default)]
        name: Option<String>,
    },
    /// Take back a held seat.
    Resume {
        /// The seat's token from `room_joined`.
        token: String,
    },
    /// Ask for the public rooms in the lobby.
    ListRooms,
    /// Mark oneself ready (or not) in the lobby.
    SetReady {
        /// Ready or not.
        ready: bool,
    },
    /// Host: start the countdown (from the lobby, or a rematch from `finished`).
    StartRace,
    /// Place a digit while racing.
    Place {
        /// Cell 0..=80 (checked by the server).
        cell: i64,
        /// Digit 1..=9 (checked by the server).
        digit: i64,
        /// Echoed back in `placement`.
        #[serde(default)]
        id: Option<MsgId>,
    },
    /// Give up the race; the solution is sent to the forfeiter at once.
    Forfeit,
    /// Say something to the room.
    Chat {
        /// 1..=200 characters.
        text: String,
    },
    /// Leave the room (a deliberate quit; no seat is held).
    Leave,
    /// Liveness check; answered with `pong`.
    Ping {
        /// Echoed back.
        #[serde(default)]
        id: Option<MsgId>,
    },
}

/// A connection's role in a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Races.
    Player,
    /// Watches.
    Spectator,
}

/// A room's phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Waiting for the host to start.
    Lobby,
    /// Counting down to the race start.
    Countdown,
    /// Racing.
    Racing,
    /// Between races: results are in.
    Finished,
}

/// A player's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerStatus {
    /// In the lobby, or waiting for the next race.
    Waiting,
    /// In the race.
    Racing,
    /// Filled every cell.
    Solved,
    /// Gave up, or left during the race.
    Forfeited,
    /// Reached the room's `max_mistakes`.
    Eliminated,
    /// Still racing when the time limit was reached.
    TimedOut,
}

/// A player as others see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Opaque id.
    pub player_id: String,
    /// Display name.
    pub name: String,
    /// Ready mark in the lobby.
    pub ready: bool,
    /// False while the seat is held after a drop.
    pub connected: bool,
    /// Race status.
    pub status: PlayerStatus,
}

/// Who you are in the room you joined.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct You {
    /// Your player id; null for a spectator.
    pub player_id: Option<String>,
    /// Your resume token; null for a spectator.
    pub token: Option<String>,
    /// Player or spectator.
    pub role: Role,
}

/// A player's progress, as broadcast after each placement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Whose.
    pub player_id: String,
    /// Correct non-given cells.
    pub filled: u32,
    /// Empty cells in the puzzle.
    pub to_fill: u32,
    /// Mistakes so far.
    pub mistakes: u32,
}

/// The race as seen by someone joining or resuming mid-race.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceView {
    /// Opaque race id.
    pub race_id: String,
    /// The puzzle; null during the countdown.
    pub puzzle: Option<String>,
    /// The race's difficulty.
    pub difficulty: Difficulty,
    /// Time limit in seconds.
    pub time_limit_s: u32,
    /// Race time elapsed (0 during the countdown).
    pub elapsed_ms: u64,
    /// This player's board (givens plus accepted digits); null for spectators and during the countdown.
    pub board: Option<String>,
    /// This player's mistakes (0 for spectators).
    pub mistakes: u32,
    /// Every player's progress.
    pub progress: Vec<Progress>,
}

/// One row of `room_list`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomSummary {
    /// Room code.
    pub room: String,
    /// Players present (held seats included).
    pub players: u32,
    /// The room's `max_players`.
    pub max_players: u8,
    /// The room's difficulty.
    pub difficulty: Difficulty,
}

/// Why a placement was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceReason {
    /// Not the solution's digit (a mistake).
    Wrong,
    /// Clashes with a digit on the player's board (a mistake).
    Conflict,
    /// The cell holds a given.
    Given,
    /// The cell already holds an accepted digit.
    Filled,
}

/// How a player's race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishStatus {
    /// Filled every cell.
    Solved,
    /// Gave up or left.
    Forfeited,
    /// Reached `max_mistakes`.
    Eliminated,
    /// Still racing at the time limit.
    TimedOut,
}

impl From<FinishStatus> for PlayerStatus {
    fn from(s: FinishStatus) -> PlayerStatus {
        match s {
            FinishStatus::Solved => PlayerStatus::Solved,
            FinishStatus::Forfeited => PlayerStatus::Forfeited,
            FinishStatus::Eliminated => PlayerStatus::Eliminated,
            FinishStatus::TimedOut => PlayerStatus::TimedOut,
        }
    }
}

/// Why a race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverReason {
    /// Every player solved, forfeited, was eliminated or left.
    AllDone,
    /// The race clock reached the time limit.
    TimeLimit,
}

/// One row of the final standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// 1-based; equal standings share a rank and the next rank skips.
    pub rank: u32,
    /// Whose.
    pub player_id: String,
    /// Their name.
    pub name: String,
    /// How their race ended.
    pub status: FinishStatus,
    /// Time with penalties; null unless solved.
    pub time_ms: Option<u64>,
    /// Correct non-given cells.
    pub filled: u32,
    /// Mistakes.
    pub mistakes: u32,
}

/// Error codes of the `error` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, not an object, unknown type, missing or mistyped field, out-of-range cell or
    /// digit, bad chat length, a binary frame.
    BadMessage,
    /// No room with that code.
    UnknownRoom,
    /// The room has `max_players` players.
    RoomFull,
    /// Joining as a player during countdown or racing.
    RaceInProgress,
    /// A room message from a connection in no room.
    NotInRoom,
    /// A second room for one connection.
    AlreadyInRoom,
    /// A host-only message from someone else.
    NotHost,
    /// A player's message from a spectator.
    NotPlayer,
    /// Right role, wrong moment.
    WrongPhase,
    /// A setting out of range.
    InvalidSettings,
    /// An empty, too long or control-character name.
    InvalidName,
    /// The name is already in the room.
    NameTaken,
    /// An unknown or expired resume token.
    InvalidToken,
    /// Over the message rate limit.
    RateLimited,
    /// A server-wide limit is reached.
    ServerFull,
}

impl ErrorCode {
    /// The wire name, e.g. `"bad_message"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadMessage => "bad_message",
            ErrorCode::UnknownRoom => "unknown_room",
            ErrorCode::RoomFull => "room_full",
            ErrorCode::RaceInProgress => "race_in_progress",
            ErrorCode::NotInRoom => "not_in_room",
            ErrorCode::AlreadyInRoom => "already_in_room",
            ErrorCode::NotHost => "not_host",
            ErrorCode::NotPlayer => "not_player",
            ErrorCode::WrongPhase => "wrong_phase",
            ErrorCode::InvalidSettings => "invalid_settings",
            ErrorCode::InvalidName => "invalid_name",
            ErrorCode::NameTaken => "name_taken",
            ErrorCode::InvalidToken => "invalid_token",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ServerFull => "server_full",
        }
    }
}

/// A message from the server to a client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// First message on every connection.
    Welcome {
        /// Protocol version ([`PROTOCOL_VERSION`]).
        protocol: u32,
        /// `name/version` of the server.
        server: String,
    },
    /// You are in a room (after create, join, spectate or resume).
    RoomJoined {
        /// Room code.
        room: String,
        /// Your identity in the room.
        you: You,
        /// The host's player id.
        host: String,
        /// The room's settings.
        settings: Settings,
        /// The room's phase.
        phase: Phase,
        /// Everyone seated (held seats included).
        players: Vec<Player>,
        /// The current or last race; null in the lobby before any race.
        race: Option<RaceView>,
    },
    /// Answer to `list_rooms`.
    RoomList {
        /// Public rooms in the lobby.
        rooms: Vec<RoomSummary>,
    },
    /// Someone took a seat.
    PlayerJoined {
        /// Who.
        player: Player,
    },
    /// A seat was given up or expired.
    PlayerLeft {
        /// Whose.
        player_id: String,
    },
    /// A player's ready mark or connection changed.
    PlayerUpdated {
        /// The player now.
        player: Player,
    },
    /// The host changed.
    HostChanged {
        /// The new host.
        player_id: String,
    },
    /// The race starts in this long.
    Countdown {
        /// Milliseconds to the start.
        starts_in_ms: u64,
    },
    /// The race has started: here is the puzzle.
    RaceStarted {
        /// Opaque race id.
        race_id: String,
        /// The puzzle grid.
        puzzle: String,
        /// Its difficulty.
        difficulty: Difficulty,
        /// Time limit in seconds.
        time_limit_s: u32,
    },
    /// The outcome of your `place`.
    Placement {
        /// Your id, echoed; null if you sent none.
        id: Option<MsgId>,
        /// The cell.
        cell: u8,
        /// The digit.
        digit: u8,
        /// Whether the digit is now on your board.
        accepted: bool,
        /// Why not, when not accepted.
        reason: Option<PlaceReason>,
        /// Cells on your board that clash (only with `conflict`).
        conflicts: Vec<u8>,
        /// Your mistakes so far.
        mistakes: u32,
        /// Your total penalty so far.
        penalty_ms: u64,
    },
    /// A player's progress changed.
    Progress(Progress),
    /// A player is out of the race (or solved it).
    PlayerFinished {
        /// Who.
        player_id: String,
        /// How.
        status: FinishStatus,
        /// Time with penalties; null unless solved.
        time_ms: Option<u64>,
    },
    /// The race is over.
    RaceOver {
        /// Which race.
        race_id: String,
        /// Why it ended.
        reason: OverReason,
        /// Final standings.
        standings: Vec<Standing>,
        /// The solution grid.
        solution: String,
    },
    /// The solution, for a player who is out of the race.
    Solution {
        /// The solution grid.
        solution: String,
    },
    /// A chat line.
    Chat {
        /// The speaker; null for a spectator.
        player_id: Option<String>,
        /// The speaker's name.
        name: String,
        /// What they said.
        text: String,
    },
    /// The room you are watching is gone.
    RoomClosed {
        /// Its code.
        room: String,
    },
    /// Answer to `ping`.
    Pong {
        /// The ping's id, echoed.
        id: Option<MsgId>,
    },
    /// Your last message failed.
    Error {
        /// What kind of failure.
        code: ErrorCode,
        /// Human-readable detail.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_parse_from_contract_examples() {
        let m: ClientMsg =
            serde_json::from_str(r#"{"type":"place","cell":80,"digit":9,"id":"a1","extra":1}"#)
                .unwrap();
        assert_eq!(
            m,
            ClientMsg::Place {
                cell: 80,
                digit: 9,
                id: Some(MsgId::String("a1".into()))
            }
        );
        let m: ClientMsg = serde_json::from_str(r#"{"type":"list_rooms"}"#).unwrap();
        assert_eq!(m, ClientMsg::ListRooms);
        let m: ClientMsg = serde_json::from_str(r#"{"type":"create_room","name":"ann"}"#).unwrap();
        assert!(matches!(m, ClientMsg::CreateRoom { settings: None, .. }));
        assert!(
            serde_json::from_str::<ClientMsg>(r#"{"type":"place","cell":"x","digit":1}"#).is_err()
        );
        assert!(serde_json::from_str::<ClientMsg>(r#"{"type":"nope"}"#).is_err());
    }

    #[test]
    fn server_messages_keep_null_fields() {
        let m = ServerMsg::Placement {
            id: None,
            cell: 3,
            digit: 4,
            accepted: true,
            reason: None,
            conflicts: vec![],
            mistakes: 0,
            penalty_ms: 0,
        };
        let s = serde_json::to_string(&m).unwrap();
        assert_eq!(
            s,
            r#"{"type":"placement","id":null,"cell":3,"digit":4,"accepted":true,"reason":null,"conflicts":[],"mistakes":0,"penalty_ms":0}"#
        );
        let p = ServerMsg::Progress(Progress {
            player_id: "p1".into(),
            filled: 1,
            to_fill: 50,
            mistakes: 0,
        });
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"type":"progress","player_id":"p1","filled":1,"to_fill":50,"mistakes":0}"#
        );
        assert_eq!(
            serde_json::from_str::<ServerMsg>(&serde_json::to_string(&p).unwrap()).unwrap(),
            p
        );
    }

    #[test]
    fn settings_resolve_defaults_and_reject_out_of_range() {
        assert_eq!(
            SettingsRequest::default().resolve().unwrap(),
            Settings::default()
        );
        let bad = SettingsRequest {
            max_players: Some(17),
            ..Default::default()
        };
        assert_eq!(bad.resolve().unwrap_err().field, "max_players");
        let bad = SettingsRequest {
            difficulty: Some("insane".into()),
            ..Default::default()
        };
        assert_eq!(bad.resolve().unwrap_err().field, "difficulty");
        let ok = SettingsRequest {
            max_mistakes: Some(0),
            public: Some(false),
            ..Default::default()
        };
        let s = ok.resolve().unwrap();
        assert_eq!((s.max_mistakes, s.public), (0, false));
    }

    #[track_caller]
    fn check_int_setting(json: &str, expected: Option<Option<i64>>) {
        let got = serde_json::from_str::<SettingsRequest>(json)
            .ok()
            .map(|r| r.max_players);
        assert_eq!(got, expected, "{json}");
    }

    #[test]
    fn integer_settings_are_any_whole_number() {
        check_int_setting(r#"{"max_players":8}"#, Some(Some(8)));
        check_int_setting(r#"{"max_players":8.0}"#, Some(Some(8)));
        check_int_setting(r#"{"max_players":-3}"#, Some(Some(-3)));
        check_int_setting(r#"{"max_players":null}"#, Some(None));
        check_int_setting(r#"{}"#, Some(None));
        check_int_setting(
            r#"{"max_players":18446744073709551615}"#,
            Some(Some(i64::MAX)),
        );
        check_int_setting(r#"{"max_players":1e20}"#, Some(Some(i64::MAX)));
        check_int_setting(r#"{"max_players":-1e20}"#, Some(Some(i64::MIN)));
        check_int_setting(r#"{"max_players":8.5}"#, None);
        check_int_setting(r#"{"max_players":"8"}"#, None);
        check_int_setting(r#"{"max_players":true}"#, None);
        // Inside a client message too (internally tagged: buffered before it is read).
        let m: ClientMsg = serde_json::from_str(
            r#"{"type":"create_room","name":"x","settings":{"penalty_s":1e3}}"#,
        )
        .unwrap();
        let ClientMsg::CreateRoom { settings, .. } = m else {
            panic!("create_room")
        };
        assert_eq!(settings.unwrap().penalty_s, Some(1000));
    }
}
