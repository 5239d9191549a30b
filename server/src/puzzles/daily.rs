//! The daily challenge (Amendment A6): one puzzle per UTC day and difficulty, derived from the
//! date and a server secret, so nobody can compute tomorrow's in advance, and everyone who
//! plays a day gets the same grid. Each identity has one attempt per day and difficulty; an
//! attempt counts from its start (kept here while the process runs; the store keeps it once
//! the race is stored).
//!
//! The secret is the `daily_secret` setting, else 32 random bytes kept beside the SQLite file
//! (`<db>.daily-secret`, owner-only) or in the PostgreSQL database (shared by every node), so
//! a restart keeps the day's puzzle.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use engine::{generator, Difficulty};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sha2::{Digest, Sha256};

use super::SolvedPuzzle;

/// The day's puzzles and the attempts begun.
#[derive(Debug)]
pub struct Daily {
    secret: Vec<u8>,
    puzzles: Mutex<HashMap<(String, Difficulty), SolvedPuzzle>>,
    begun: Mutex<HashSet<(String, String, Difficulty)>>,
}

impl Daily {
    /// A daily with this secret.
    pub fn new(secret: impl Into<Vec<u8>>) -> Daily {
        Daily {
            secret: secret.into(),
            puzzles: Mutex::new(HashMap::new()),
            begun: Mutex::new(HashSet::new()),
        }
    }

    /// The secret kept beside `db` (made on first use), or a random one for this process when
    /// it cannot be kept (the day's puzzle then changes on restart; logged).
    pub fn beside(db: &Path) -> Daily {
        let mut path = db.as_os_str().to_owned();
        path.push(".daily-secret");
        let path = std::path::PathBuf::from(path);
        if let Ok(text) = std::fs::read_to_string(&path) {
            if text.trim().len() >= 32 {
                return Daily::new(text.trim().as_bytes().to_vec());
            }
        }
        let text = fresh_secret();
        if let Err(e) = keep(&path, &text) {
            tracing::warn!(path = %path.display(), error = %e, "cannot keep the daily secret; the daily changes on restart");
        }
        Daily::new(text.into_bytes())
    }

    /// The seed of a day's puzzle: SHA-256 of the secret, the date and the difficulty.
    fn seed(&self, date: &str, difficulty: Difficulty) -> u64 {
        let mut h = Sha256::new();
        h.update(&self.secret);
        h.update([0]);
        h.update(date.as_bytes());
        h.update([0]);
        h.update(difficulty.as_str().as_bytes());
        let d = h.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&d[..8]);
        u64::from_le_bytes(first)
    }

    /// The puzzle of `date` at `difficulty`, generated once (it blocks: call it off the async
    /// workers) and graded to its difficulty by the generator.
    pub fn puzzle(&self, date: &str, difficulty: Difficulty) -> SolvedPuzzle {
        let key = (date.to_owned(), difficulty);
        if let Some(d) = self.puzzles.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return d;
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.seed(date, difficulty));
        let g = generator::generate(&mut rng, difficulty, true);
        let dealt = SolvedPuzzle::classic(g.puzzle, g.solution);
        if let Ok(mut m) = self.puzzles.lock() {
            // Yesterday's puzzles are not needed any more.
            m.retain(|(d, _), _| d.as_str() >= date);
            m.insert(key, dealt.clone());
        }
        dealt
    }

    /// Mark `handle`'s attempt at `date`/`difficulty` begun; false when it already was.
    pub fn begin(&self, handle: &str, date: &str, difficulty: Difficulty) -> bool {
        match self.begun.lock() {
            Ok(mut s) => {
                s.retain(|(_, d, _)| d.as_str() >= date);
                s.insert((handle.to_owned(), date.to_owned(), difficulty))
            }
            Err(_) => false,
        }
    }
}

/// A new random secret: 32 bytes from the OS, in hex.
pub fn fresh_secret() -> String {
    crate::hex::secret_256()
}

/// Write the secret owner-only.
fn keep(path: &Path, text: &str) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts.open(path)?.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_has_one_puzzle_per_difficulty_and_a_secret_changes_it() {
        let a = Daily::new(b"one secret".to_vec());
        let b = Daily::new(b"another secret".to_vec());
        let p = a.puzzle("2026-12-01", Difficulty::Easy);
        assert_eq!(
            p,
            a.puzzle("2026-12-01", Difficulty::Easy),
            "the same all day"
        );
        assert_eq!(
            p,
            Daily::new(b"one secret".to_vec()).puzzle("2026-12-01", Difficulty::Easy)
        );
        assert_ne!(
            p,
            a.puzzle("2026-12-02", Difficulty::Easy),
            "a new day, a new puzzle"
        );
        assert_ne!(
            p,
            b.puzzle("2026-12-01", Difficulty::Easy),
            "not guessable without the secret"
        );
        let g = engine::grader::grade(&p.puzzle);
        assert_eq!(g.level, engine::Level::Easy);
    }

    #[test]
    fn an_attempt_begins_once() {
        let d = Daily::new(b"s".to_vec());
        assert!(d.begin("hA", "2026-12-01", Difficulty::Easy));
        assert!(!d.begin("hA", "2026-12-01", Difficulty::Easy));
        assert!(d.begin("hA", "2026-12-01", Difficulty::Hard));
        assert!(d.begin("hB", "2026-12-01", Difficulty::Easy));
    }

    #[test]
    fn the_secret_is_kept_beside_the_database() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("results.sqlite3");
        let first = Daily::beside(&db).puzzle("2026-12-01", Difficulty::Easy);
        let again = Daily::beside(&db).puzzle("2026-12-01", Difficulty::Easy);
        assert_eq!(first, again, "a restart keeps the day's puzzle");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let meta = std::fs::metadata(dir.path().join("results.sqlite3.daily-secret"));
            assert_eq!(
                meta.expect("secret file").permissions().mode() & 0o777,
                0o600
            );
        }
    }
}
