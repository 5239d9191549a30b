//! `sudoku-race`: the terminal client and engine tools.

fn main() {}
