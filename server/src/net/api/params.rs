//! Checking what a client put in an API request: the query string's parameters and the ids in
//! the path. Everything here is pure, so each rule has a unit test; a refusal is the message a
//! `400` carries. Values are taken as sent (no percent-decoding): every valid value is plain
//! ASCII letters, digits and `-`, which no client needs to encode.

use engine::Difficulty;

use crate::store::Period;

/// Most rows one page may ask for. Larger asks are refused, not clamped, so a client never
/// mistakes a short page for the end of the list.
pub const MAX_LIMIT: u32 = 100;
/// Deepest offset: past it a board is too far down to page through, and the query too slow.
pub const MAX_OFFSET: u32 = 100_000;
/// Rows when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 20;
/// Longest handle accepted (minted ones are 8 characters; this leaves room for longer ones).
pub const MAX_HANDLE_LEN: usize = 32;
/// Longest race id accepted (minted ones are a room code, `-` and 16 hex digits).
pub const MAX_RACE_ID_LEN: usize = 64;

/// A refusal: the `error` text of a `400`.
pub type Refusal = String;

/// A query string split into its parameters, refusing one given twice (which of the two a
/// client meant is a guess we do not make). Parameters nobody asks for are ignored.
#[derive(Debug, Default)]
pub struct Query<'a> {
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Query<'a> {
    /// Split `query` (without the `?`); `None` is no query at all.
    pub fn parse(query: Option<&'a str>) -> Result<Query<'a>, Refusal> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for part in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (name, value) = part.split_once('=').unwrap_or((part, ""));
            if pairs.iter().any(|(n, _)| *n == name) {
                return Err(format!("parameter {name:?} is given more than once"));
            }
            pairs.push((name, value));
        }
        Ok(Query { pairs })
    }

    fn get(&self, name: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// `difficulty`, [`Difficulty::Medium`] when absent.
    pub fn difficulty(&self) -> Result<Difficulty, Refusal> {
        match self.get("difficulty") {
            None => Ok(Difficulty::Medium),
            Some(s) => s.parse().map_err(|_| {
                format!("unknown difficulty {s:?} (expected easy, medium, hard or expert)")
            }),
        }
    }

    /// `period`, [`Period::All`] when absent.
    pub fn period(&self) -> Result<Period, Refusal> {
        match self.get("period") {
            None => Ok(Period::All),
            Some(s) => Period::parse(s)
                .ok_or_else(|| format!("unknown period {s:?} (expected day, week, month or all)")),
        }
    }

    /// `limit` in 1..=[`MAX_LIMIT`], [`DEFAULT_LIMIT`] when absent.
    pub fn limit(&self) -> Result<u32, Refusal> {
        let limit = self.integer("limit", DEFAULT_LIMIT)?;
        if limit == 0 || limit > MAX_LIMIT {
            return Err(format!(
                "limit must be 1 to {MAX_LIMIT} (larger pages are refused, not clamped), got {limit}"
            ));
        }
        Ok(limit)
    }

    /// `offset` in 0..=[`MAX_OFFSET`], 0 when absent.
    pub fn offset(&self) -> Result<u32, Refusal> {
        let offset = self.integer("offset", 0)?;
        if offset > MAX_OFFSET {
            return Err(format!("offset must be 0 to {MAX_OFFSET}, got {offset}"));
        }
        Ok(offset)
    }

    /// A parameter that must be a plain decimal integer: digits only (no sign, no spaces).
    fn integer(&self, name: &str, default: u32) -> Result<u32, Refusal> {
        let Some(s) = self.get(name) else {
            return Ok(default);
        };
        let refused = || format!("{name} must be a non-negative integer, got {s:?}");
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(refused());
        }
        // Digits only, so a failure here is only overflow: out of range, said as such.
        s.parse::<u32>()
            .map_err(|_| format!("{name} {s:?} is out of range"))
    }
}

/// Who a player path names (A8): a handle, or a player's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerRef {
    /// Shaped like a handle: tried as a handle first, then as a name.
    Handle(String),
    /// Not a handle's shape: a name.
    Name(String),
}

/// The player segment of `/api/players/X`: percent-decoded (a name may hold spaces and any
/// letter), then a handle if it has a handle's shape, else a name as A3 allows names.
pub fn player(raw: &str) -> Result<PlayerRef, Refusal> {
    let decoded = percent_decode(raw).ok_or("the player is not valid percent-encoded UTF-8")?;
    if let Ok(h) = handle(&decoded) {
        return Ok(PlayerRef::Handle(h.to_owned()));
    }
    match protocol::PlayerName::try_from(decoded.as_str()) {
        Ok(name) => Ok(PlayerRef::Name(name.to_string())),
        Err(_) => Err("the player must be a handle (like hK7QM2XP) or a player's name".into()),
    }
}

/// `%XX` escapes decoded (a `+` stays a `+`: this is a path, not a form); `None` for a broken
/// escape or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A handle from the path: `h` and capital letters or digits (minted ones are `h` and seven of
/// the room-code alphabet), at most [`MAX_HANDLE_LEN`] characters.
pub fn handle(s: &str) -> Result<&str, Refusal> {
    if s.len() > MAX_HANDLE_LEN {
        return Err(format!("handle is longer than {MAX_HANDLE_LEN} characters"));
    }
    let shaped = s.strip_prefix('h').is_some_and(|tail| {
        !tail.is_empty()
            && tail
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    });
    if !shaped {
        return Err(
            "handle must be h followed by capital letters and digits (like hK7QM2XP)".into(),
        );
    }
    Ok(s)
}

/// A race id from the path: ASCII letters, digits and `-`, 1 to [`MAX_RACE_ID_LEN`] long.
pub fn race_id(s: &str) -> Result<&str, Refusal> {
    if s.len() > MAX_RACE_ID_LEN {
        return Err(format!(
            "race id is longer than {MAX_RACE_ID_LEN} characters"
        ));
    }
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Err("race id must be ASCII letters, digits and -".into());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn query(q: &str) -> Query<'_> {
        Query::parse(Some(q)).expect("a query")
    }

    #[test]
    fn a_player_is_a_handle_or_a_name() {
        assert_eq!(player("hK7QM2XP"), Ok(PlayerRef::Handle("hK7QM2XP".into())));
        assert_eq!(player("Ann%20Lee"), Ok(PlayerRef::Name("Ann Lee".into())));
        assert_eq!(player("Z%C3%A9"), Ok(PlayerRef::Name("Zé".into())));
        assert!(player("%ZZ").is_err());
        assert!(player("%FF").is_err());
        assert!(player("%").is_err());
        assert!(player(&"n".repeat(300)).is_err());
    }

    #[test]
    fn defaults_when_absent() {
        let q = Query::parse(None).expect("no query");
        assert_eq!(q.difficulty(), Ok(Difficulty::Medium));
        assert_eq!(q.period(), Ok(Period::All));
        assert_eq!(q.limit(), Ok(DEFAULT_LIMIT));
        assert_eq!(q.offset(), Ok(0));
    }

    #[test]
    fn names_and_ranges() {
        let q = query("difficulty=expert&period=week&limit=100&offset=100000&x=1");
        assert_eq!(q.difficulty(), Ok(Difficulty::Expert));
        assert_eq!(q.period(), Ok(Period::Week));
        assert_eq!(q.limit(), Ok(100));
        assert_eq!(q.offset(), Ok(100_000));
        assert!(query("difficulty=Easy").difficulty().is_err());
        assert!(query("difficulty=").difficulty().is_err());
        assert!(query("period=year").period().is_err());
        assert!(Query::parse(Some("limit=1&limit=2")).is_err());
    }

    #[test]
    fn integers_are_plain_digits_in_range() {
        for bad in [
            "limit=0",
            "limit=101",
            "limit=-1",
            "limit=+5",
            "limit=1.5",
            "limit=",
            "limit=abc",
            "limit=%31",
            "limit=99999999999999999999",
        ] {
            assert!(query(bad).limit().is_err(), "{bad}");
        }
        assert!(query("limit=101")
            .limit()
            .is_err_and(|e| e.contains("not clamped")));
        assert_eq!(query("limit=007").limit(), Ok(7));
        assert!(query("offset=100001").offset().is_err());
        assert!(query("offset=-0").offset().is_err());
    }

    #[test]
    fn handles_and_race_ids() {
        assert_eq!(handle("hK7QM2XP"), Ok("hK7QM2XP"));
        for bad in ["", "h", "K7QM2XP", "hk7qm2xp", "h K7", "h%41", "hÄ"] {
            assert!(handle(bad).is_err(), "{bad:?}");
        }
        assert!(handle(&format!("h{}", "A".repeat(32))).is_err());
        assert!(handle(&format!("h{}", "A".repeat(31))).is_ok());
        assert_eq!(race_id("ABCD-00ff"), Ok("ABCD-00ff"));
        for bad in ["", "a b", "a/b", "a_b", "a.b", "é"] {
            assert!(race_id(bad).is_err(), "{bad:?}");
        }
        assert!(race_id(&"a".repeat(65)).is_err());
        assert!(race_id(&"a".repeat(64)).is_ok());
    }
}
