//! The engine tools, run as the real binary: `solve`, `generate`, `grade`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use engine::{grader, solver, Grid};

const PUZZLE: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/// Run `sudoku-race ARGS` with `stdin` as its input.
fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-race"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("stdin takes the input");
    child.wait_with_output().expect("the binary finishes")
}

#[track_caller]
fn check(args: &[&str], stdin: &str, stdout: &str, stderr: &str, success: bool) {
    let out = run(args, stdin);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        stdout,
        "stdout of {args:?}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        stderr,
        "stderr of {args:?}"
    );
    assert_eq!(out.status.success(), success, "status of {args:?}");
}

#[test]
fn solve_answers_solution_none_or_multiple() {
    let input = format!(
        "# a comment\n{PUZZLE}\n\n{}\n55{}\n",
        ".".repeat(81),
        ".".repeat(79)
    );
    check(
        &["solve"],
        &input,
        &format!("{SOLUTION}\nmultiple\nnone\n"),
        "",
        true,
    );
}

#[test]
fn solve_reports_bad_lines_and_goes_on() {
    let input = format!("{PUZZLE}\n123\n{}x\n{PUZZLE}\n", ".".repeat(80));
    check(
        &["solve"],
        &input,
        // A placeholder keeps output lines matching input lines.
        &format!("{SOLUTION}\nerror\nerror\n{SOLUTION}\n"),
        "line 2: expected 81 characters, found 3\nline 3: bad character 'x' at position 81\n",
        false,
    );
}

#[test]
fn solve_reads_a_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("puzzles.txt");
    std::fs::write(&path, format!("{PUZZLE}\n")).expect("write");
    let path = path.to_str().expect("utf-8 path");
    check(&["solve", path], "", &format!("{SOLUTION}\n"), "", true);
    let out = run(&["solve", "/nonexistent/puzzles.txt"], "");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/puzzles.txt"));
}

/// The puzzle lines `generate ARGS` prints, checked to be unique.
fn generated(args: &[&str]) -> Vec<Grid> {
    let out = run(args, "");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| Grid::parse(l).expect("generate prints grid lines"))
        .inspect(|p| assert_eq!(solver::count_solutions(p, 2), 1, "{p}"))
        .collect()
}

#[test]
fn generate_prints_fresh_reproducible_puzzles_at_the_level() {
    for level in ["easy", "medium", "hard", "expert"] {
        let args = [
            "generate",
            "--difficulty",
            level,
            "--count",
            "3",
            "--seed",
            "7",
        ];
        let puzzles = generated(&args);
        assert_eq!(puzzles.len(), 3);
        assert!(puzzles[0] != puzzles[1] && puzzles[1] != puzzles[2] && puzzles[0] != puzzles[2]);
        assert_eq!(generated(&args), puzzles, "same seed, same puzzles");
        for p in &puzzles {
            assert_eq!(grader::grade(p).level.as_str(), level, "{p}");
        }
    }
    let symmetric = generated(&["generate", "-d", "hard", "--symmetric", "--seed", "1"]);
    let b = symmetric[0].as_bytes();
    assert!((0..81).all(|c| (b[c] == 0) == (b[80 - c] == 0)));
    assert_eq!(generated(&["generate", "-d", "easy"]).len(), 1);
}

#[test]
fn generate_refuses_an_unknown_difficulty() {
    let out = run(&["generate", "--difficulty", "extreme"], "");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown difficulty"));
}

#[test]
fn difficulty_flags_take_any_case() {
    assert_eq!(
        generated(&["generate", "--difficulty", "Hard", "--seed", "3"]).len(),
        1
    );
    assert_eq!(generated(&["generate", "-d", "EASY"]).len(), 1);
}

#[test]
fn an_extreme_puzzle_scores_above_expert_ones() {
    // AI Escargot printed `extreme 14` once, below easy puzzles.
    let escargot =
        "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..";
    let out = run(&["grade"], escargot);
    let text = String::from_utf8_lossy(&out.stdout);
    let (level, score) = text.trim().split_once(' ').expect("LEVEL SCORE");
    assert_eq!(level, "extreme");
    assert!(
        score.parse::<u32>().expect("a score") >= grader::EXTREME_FLOOR,
        "{text}"
    );
}

#[test]
fn grade_prints_level_and_score_or_invalid() {
    let easy = Grid::parse(PUZZLE).expect("parses");
    let expected = grader::grade(&easy);
    assert_eq!(expected.level.as_str(), "easy");
    let input = format!("{PUZZLE}\n# skipped\n{}\nbad\n", ".".repeat(81));
    check(
        &["grade"],
        &input,
        &format!("easy {}\ninvalid\nerror\n", expected.score),
        "line 4: expected 81 characters, found 3\n",
        false,
    );
    let out = run(&["grade", "--explain"], PUZZLE);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(format!("easy {}", expected.score).as_str())
    );
    let steps: Vec<&str> = lines.collect();
    assert_eq!(steps.len(), expected.steps.len());
    assert!(steps[0].trim_start().starts_with("1. "), "{}", steps[0]);
}

/// The committed solo bank (`sudoku-race bank > client-web/public/assets/solo/bank.json`) is
/// sound: every puzzle has exactly one solution, the one given; it grades at its difficulty with
/// its score; its hints place the solution's digits, cover every empty cell once, and follow
/// the grader's own order of placements.
#[test]
fn the_committed_solo_bank_is_sound() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../client-web/public/assets/solo/bank.json"
    );
    let text = std::fs::read_to_string(path).expect("the bank is committed");
    let bank: serde_json::Value = serde_json::from_str(&text).expect("the bank is JSON");
    let names: Vec<&str> = grader::Technique::ORDER.iter().map(|t| t.name()).collect();
    assert_eq!(bank["techniques"], serde_json::json!(names));
    for level in ["easy", "medium", "hard", "expert"] {
        let list = bank[level].as_array().expect("a list per difficulty");
        assert!(!list.is_empty(), "{level}");
        for e in list {
            check_bank_entry(level, e);
        }
    }
}

#[track_caller]
fn check_bank_entry(level: &str, e: &serde_json::Value) {
    let p = e["p"].as_str().expect("puzzle");
    let s = e["s"].as_str().expect("solution");
    let puzzle = Grid::parse(p).expect("the puzzle parses");
    assert_eq!(solver::count_solutions(&puzzle, 2), 1, "{p}");
    let solution = solver::solve_unique(&puzzle).expect("one solution");
    assert_eq!(solution.to_line(), s, "{p}");
    let grading = grader::grade(&puzzle);
    assert_eq!(grading.level.as_str(), level, "{p}");
    assert_eq!(e["level"], level);
    assert_eq!(e["score"], grading.score, "{p}");

    // The hints: the solution's digit in every empty cell, once each.
    let h = e["h"].as_str().expect("hints");
    assert_eq!(h.len() % 4, 0);
    let mut board = p.as_bytes().to_vec();
    let mut order = Vec::new();
    for hint in h.as_bytes().chunks(4) {
        let cell: usize = std::str::from_utf8(&hint[..2])
            .expect("ascii")
            .parse()
            .expect("a cell");
        assert!(cell < 81, "{p}: {hint:?}");
        assert_eq!(board[cell], b'.', "{p}: cell {cell} hinted twice or given");
        assert_eq!(hint[2], s.as_bytes()[cell], "{p}: cell {cell}");
        let t = usize::from(hint[3] - b'a');
        assert!(t < grader::Technique::ORDER.len(), "{p}: {hint:?}");
        board[cell] = hint[2];
        order.push((cell, hint[2] - b'0', grader::Technique::ORDER[t]));
    }
    assert_eq!(board, s.as_bytes(), "{p}: hints leave cells empty");

    // In the grader's order: its placements, first time each cell is placed.
    let mut seen = [false; 81];
    let grader_order: Vec<_> = grading
        .steps
        .iter()
        .flat_map(|st| {
            st.placements
                .iter()
                .map(move |&(c, d)| (c, d, st.technique))
        })
        .filter(|&(c, _, _)| !std::mem::replace(&mut seen[c.idx()], true))
        .map(|(c, d, t)| (c.idx(), d.get(), t))
        .collect();
    assert_eq!(order, grader_order, "{p}");

    // Each via names a step before an existing hint, with cells on the board.
    for v in e["via"].as_array().expect("via") {
        let at = v[0].as_u64().expect("hint index") as usize;
        assert!(at < order.len(), "{p}: {v}");
        let t = v[1].as_u64().expect("technique") as usize;
        assert!(
            (grader::Technique::ORDER
                .iter()
                .position(|&x| x == grader::Technique::Pointing)
                .expect("in the ladder")..grader::Technique::ORDER.len())
                .contains(&t),
            "{p}: {v}"
        );
        let cells = v[2].as_str().expect("cells");
        assert!(!cells.is_empty() && cells.len() % 2 == 0, "{p}: {v}");
        assert!(cells.as_bytes().chunks(2).all(|c| std::str::from_utf8(c)
            .ok()
            .and_then(|c| c.parse::<usize>().ok())
            .is_some_and(|c| c < 81)));
    }
}

#[test]
fn variant_puzzles_go_round_generate_solve_and_grade_as_json() {
    for (variant, difficulty) in [("killer", "medium"), ("jigsaw", "easy"), ("x", "hard")] {
        let args = [
            "generate",
            "--variant",
            variant,
            "-d",
            difficulty,
            "-n",
            "2",
            "-s",
            "34",
        ];
        let out = run(&args, "");
        assert!(out.status.success(), "{args:?}");
        let lines = String::from_utf8_lossy(&out.stdout).into_owned();
        let solutions: Vec<String> = lines
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("one JSON object a line");
                assert_eq!(v["variant"], variant);
                v["solution"].as_str().expect("a solution").to_owned()
            })
            .collect();
        let expected: String = solutions.iter().map(|s| format!("{s}\n")).collect();
        check(&["solve"], &lines, &expected, "", true);
        let graded = format!("{difficulty} ");
        let out = run(&["grade", "--variant", variant], &lines);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(text.lines().all(|l| l.starts_with(&graded)), "{text}");
    }
    // A killer without its cages, and a JSON line of another variant: errors, not panics.
    let dots = ".".repeat(81);
    let out = run(&["solve", "--variant", "killer", "--puzzle", &dots], "");
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "error\n");
    let x = format!(r#"{{"variant":"x","puzzle":"{dots}"}}"#);
    check(
        &["solve", "--variant", "windoku"],
        &x,
        "error\n",
        "line 1: a x puzzle where --variant windoku was asked\n",
        false,
    );
}
