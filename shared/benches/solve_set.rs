//! The uniqueness check timed on puzzle files, for `solver-vs-tdoku.sh` (which runs tdoku's
//! solver on the same files in turn): `solve_set PASSES FILE...` prints, per file, a line
//! `FILE<TAB>median ns per puzzle<TAB>puzzles<TAB>unique<TAB>solutions counted`.
//!
//! Each pass counts every puzzle of the file up to 2 solutions (`solver::count_solutions`), in
//! this process, with the puzzles parsed beforehand; the figure is the median pass in this
//! thread's CPU time (the machine is shared: wall time would count other processes' turns).

use engine::grid::Grid;
use engine::solver;

/// This thread's CPU time in seconds.
#[allow(unsafe_code)]
fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call, which only
    // writes it.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() -> std::process::ExitCode {
    // `cargo bench` passes `--bench`; everything starting with `-` is ignored.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let Some((passes, files)) = args.split_first() else {
        eprintln!("usage: solve_set PASSES FILE...");
        return std::process::ExitCode::FAILURE;
    };
    let Ok(passes) = passes.parse::<usize>() else {
        eprintln!("PASSES must be a number, not {passes}");
        return std::process::ExitCode::FAILURE;
    };
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("{file}: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        let grids: Vec<Grid> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| Grid::parse(l).ok())
            .collect();
        let (mut unique, mut counted) = (0, 0);
        let mut times: Vec<f64> = (0..passes.max(1))
            .map(|_| {
                let start = cpu_seconds();
                let (mut u, mut c) = (0, 0);
                for grid in &grids {
                    let n = solver::count_solutions(grid, 2);
                    u += usize::from(n == 1);
                    c += n;
                }
                let elapsed = cpu_seconds() - start;
                (unique, counted) = (u, c);
                elapsed
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let ns = median * 1e9 / grids.len().max(1) as f64;
        println!("{file}\t{ns:.1}\t{}\t{unique}\t{counted}", grids.len());
    }
    std::process::ExitCode::SUCCESS
}
