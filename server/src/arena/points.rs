//! An arena's points (A7), pure: one per racer beaten plus 2 for a solve, doubled while the
//! player's previous two races were both wins (the streak). A win is first place with a
//! solve; a racer beaten is one ranked below.

use protocol::{ArenaStanding, PlayerName};

/// One racer's result in an arena race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finish {
    /// Their handle (arena members are identified).
    pub handle: String,
    /// Their place, 1 first.
    pub rank: u32,
    /// Whether they solved.
    pub solved: bool,
}

/// A member's standing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Public handle.
    pub handle: String,
    /// The name they joined under.
    pub name: PlayerName,
    /// Points so far.
    pub points: u32,
    /// Races finished in the arena.
    pub races: u32,
    /// Races won.
    pub wins: u32,
    /// Wins in a row now.
    pub streak: u32,
}

impl Member {
    /// A member with nothing yet.
    pub fn new(handle: String, name: PlayerName) -> Member {
        Member {
            handle,
            name,
            points: 0,
            races: 0,
            wins: 0,
            streak: 0,
        }
    }

    /// The row on the wire.
    pub fn standing(&self) -> ArenaStanding {
        ArenaStanding {
            handle: self.handle.clone(),
            name: self.name.clone(),
            points: self.points,
            races: self.races,
            wins: self.wins,
            streak: self.streak,
        }
    }
}

/// The points `me` earns among `all` (`me` included), given the streak they bring.
pub fn points(me: &Finish, all: &[Finish], streak_before: u32) -> u32 {
    let beaten = all.iter().filter(|o| o.rank > me.rank).count();
    let base = u32::try_from(beaten).unwrap_or(u32::MAX) + if me.solved { 2 } else { 0 };
    if streak_before >= 2 {
        base.saturating_mul(2)
    } else {
        base
    }
}

/// Count one race in `members` (those of its racers who are members).
pub fn score(members: &mut [Member], race: &[Finish]) {
    for f in race {
        let Some(m) = members.iter_mut().find(|m| m.handle == f.handle) else {
            continue;
        };
        m.points = m.points.saturating_add(points(f, race, m.streak));
        m.races += 1;
        if f.rank == 1 && f.solved {
            m.wins += 1;
            m.streak += 1;
        } else {
            m.streak = 0;
        }
    }
}

/// Best first: points, then wins, then fewer races, then name.
pub fn table(members: &[Member]) -> Vec<ArenaStanding> {
    let mut rows: Vec<&Member> = members.iter().collect();
    rows.sort_by(|a, b| {
        (b.points, b.wins, a.races, a.name.as_str()).cmp(&(
            a.points,
            a.wins,
            b.races,
            b.name.as_str(),
        ))
    });
    rows.into_iter().map(Member::standing).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(handle: &str, rank: u32, solved: bool) -> Finish {
        Finish {
            handle: handle.into(),
            rank,
            solved,
        }
    }

    fn members(names: &[&str]) -> Vec<Member> {
        names
            .iter()
            .map(|n| Member::new((*n).into(), PlayerName::try_from(*n).unwrap()))
            .collect()
    }

    fn row<'a>(t: &'a [Member], h: &str) -> &'a Member {
        t.iter().find(|m| m.handle == h).unwrap()
    }

    #[test]
    fn one_per_racer_beaten_and_two_for_a_solve() {
        let race = [f("a", 1, true), f("b", 2, true), f("c", 3, false)];
        assert_eq!(points(&race[0], &race, 0), 2 + 2);
        assert_eq!(points(&race[1], &race, 0), 1 + 2);
        assert_eq!(points(&race[2], &race, 0), 0);
        // Doubled on a streak of two or more, not of one.
        assert_eq!(points(&race[0], &race, 1), 4);
        assert_eq!(points(&race[0], &race, 2), 8);
        assert_eq!(points(&race[2], &race, 5), 0);
    }

    #[test]
    fn the_third_straight_win_counts_double_and_a_loss_ends_the_streak() {
        let mut t = members(&["a", "b"]);
        let a_wins = [f("a", 1, true), f("b", 2, true)];
        score(&mut t, &a_wins); // a: 3, streak 1
        score(&mut t, &a_wins); // a: 6, streak 2
        assert_eq!((row(&t, "a").points, row(&t, "a").streak), (6, 2));
        score(&mut t, &a_wins); // third win: (1 + 2) * 2
        assert_eq!((row(&t, "a").points, row(&t, "a").streak), (12, 3));
        let b_wins = [f("b", 1, true), f("a", 2, true)];
        score(&mut t, &b_wins); // a still on a streak of 3 when it loses: 2 * 2
        let a = row(&t, "a");
        assert_eq!((a.points, a.races, a.wins, a.streak), (16, 4, 3, 0));
        let b = row(&t, "b");
        assert_eq!((b.points, b.races, b.wins, b.streak), (3 * 2 + 3, 4, 1, 1));
        // First place without a solve is no win.
        score(&mut t, &[f("b", 1, false), f("a", 2, false)]);
        assert_eq!(row(&t, "b").streak, 0);
        let table = table(&t);
        assert_eq!(table[0].handle, "a");
        assert_eq!(table[0].points, 16);
    }

    #[test]
    fn racers_who_are_not_members_are_still_beaten_but_not_scored() {
        let mut t = members(&["a"]);
        score(&mut t, &[f("x", 1, true), f("a", 2, true), f("y", 3, true)]);
        assert_eq!(row(&t, "a").points, 3);
        assert_eq!(t.len(), 1);
    }
}
