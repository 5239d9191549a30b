// The DPLL search itself, included once per vector kind by `mod.rs` (which says what it owns):
// the including module supplies `V8`, `V16` and the `simd!` macro that puts the right
// `#[target_feature]` (or none) on every function, so this text is compiled once per kind
// (AVX-512, AVX2, portable) and every kind reads the same.

/// One band (three boxes in a row or a column): the configurations each digit may still take
/// there, and eliminations waiting to be applied.
#[derive(Clone, Copy)]
struct Band {
    /// Lanes 0..6: the digits (bits) for which configuration `k` is still possible.
    configurations: V8,
    /// Configurations to remove at the band's next update.
    eliminations: V8,
}

/// The whole solver state: six bands and nine boxes (4x4 lanes each: 3x3 cells, negative
/// triads at the margins).
#[derive(Clone, Copy)]
struct State {
    /// `[vertical][band]`.
    bands: [[Band; 3]; 2],
    boxen: [V16; 9],
}

/// The counting search.
struct Search {
    limit: usize,
    count: usize,
    want_first: bool,
    first: Option<[u8; 81]>,
    guesses: u64,
}

simd! {
    /// Restrict box (`box_i`, `box_j`) to `candidates` and propagate inside the box to a
    /// fixpoint, adding what that asserts to its two bands' pending eliminations. The bands to
    /// revisit (bit `k` for band `k`: 0..3 horizontal, 3..6 vertical), or `None` on a
    /// contradiction.
    fn box_restrict(state: &mut State, box_i: usize, box_j: usize, candidates: V16) -> Option<u8> {
        let box_idx = box_i * 3 + box_j;
        if state.boxen[box_idx].subset_of(candidates) {
            return Some(0);
        }
        let mut eliminating = state.boxen[box_idx].and_not(candidates);
        let minimums = V16::load(&BOX_MINIMUMS);
        let (mut h_elims, mut v_elims) = (V8::zero(), V8::zero());
        loop {
            let cells = state.boxen[box_idx].and_not(eliminating);
            state.boxen[box_idx] = cells;
            let counts = cells.popcounts9();
            if counts.any_lt(minimums) {
                return None;
            }
            let assertions = cells.and(counts.lanes_eq(minimums));
            let assertions = gather_triad_assertions::<false>(cells, assertions);
            let assertions = gather_triad_assertions::<true>(cells, assertions);
            let (h, v) = assertions_to_eliminations(assertions, box_i, box_j, &mut eliminating);
            h_elims = h_elims.or(h);
            v_elims = v_elims.or(v);
            if !eliminating.intersects(cells) {
                break;
            }
        }
        let h_band = &mut state.bands[0][box_i].eliminations;
        *h_band = h_band.or(h_elims);
        let v_band = &mut state.bands[1][box_j].eliminations;
        *v_band = v_band.or(v_elims);
        Some(1 << box_i | 1 << (3 + box_j))
    }

    /// Rows (`COLS == false`) or columns of the 4x4 lanes rotated by one.
    fn rotate<const COLS: bool>(x: V16) -> V16 {
        if COLS {
            x.rotate_cols()
        } else {
            x.rotate_rows()
        }
    }

    /// Adds to `assertions` the candidates that occur once in a row (or column) of the 4x4
    /// lanes: each row and column is an exactly-one clause (three cells and their triad).
    fn gather_triad_assertions<const COLS: bool>(cells: V16, assertions: V16) -> V16 {
        let mut one = cells;
        let mut rotated = rotate::<COLS>(cells);
        let mut two = one.and(rotated);
        one = one.or(rotated);
        rotated = rotate::<COLS>(rotated);
        two = one.and(rotated).or(two);
        one = one.or(rotated);
        rotated = rotate::<COLS>(rotated);
        two = one.and(rotated).or(two);
        V16::x_y_andnot_z_or(cells, two, assertions)
    }

    /// The box's own eliminations (added to `box_elims`) and the band eliminations (horizontal,
    /// vertical) that follow from asserted cells and negative triads.
    fn assertions_to_eliminations(
        assertions: V16,
        box_i: usize,
        box_j: usize,
        box_elims: &mut V16,
    ) -> (V8, V8) {
        let cells_only = assertions.and(V16::load(&CELL3X3_MASK));
        let mut across_rows = cells_only;
        across_rows = across_rows.or(across_rows.rotate_rows());
        across_rows = across_rows.or(across_rows.rotate_rows2());
        let mut across_cols = cells_only;
        across_cols = across_cols.or(across_cols.rotate_cols());
        across_cols = across_cols.or(across_cols.rotate_cols2());
        let new_box = across_cols
            .or(across_cols.shuffle(V16::load(&ROW_ROTATE_3X3_1)))
            .or(across_cols.shuffle(V16::load(&ROW_ROTATE_3X3_2)));
        let new_box = new_box.or(across_rows).or(cells_only.lanes_nonzero());
        *box_elims = V16::x_y_xor_z_or(new_box, cells_only, *box_elims);
        let negative = V16::from_halves(horizontal_triads(assertions), assertions.hi());
        let positive = V16::from_halves(horizontal_triads(new_box), new_box.hi());
        let k = box_j * 3 + box_i;
        let elims = negative
            .shuffle(V16::load(&TRIADS_TO_CONFIGS16[0][k]))
            .or(positive.shuffle(V16::load(&TRIADS_TO_CONFIGS16[1][k])))
            .or(positive.shuffle(V16::load(&TRIADS_TO_CONFIGS16[2][k])));
        (elims.lo(), elims.hi())
    }

    /// The horizontal triad lanes (3, 7, 11) of a box in lanes 4, 5, 6.
    fn horizontal_triads(cells: V16) -> V8 {
        let split = cells.shuffle(V16::load(&HORIZONTAL_TRIADS));
        split.lo().or(split.hi())
    }

    /// Propagate after the givens, breadth first: apply pending band eliminations until none
    /// is left, starting from the bands in `dirty` (bit `k`: band `k`, 0..3 horizontal, 3..6
    /// vertical); `false` on a contradiction. With many changes everywhere (the givens) this
    /// does less work than the depth-first [`band_eliminate`], which finds the contradictions
    /// of a guess sooner.
    fn propagate(state: &mut State, mut dirty: u8) -> bool {
        while dirty != 0 {
            let k = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            let band = &state.bands[k / 3][k % 3];
            if !band.configurations.intersects(band.eliminations) {
                continue;
            }
            let more = if k < 3 {
                band_restrict_boxes::<false>(state, k)
            } else {
                band_restrict_boxes::<true>(state, k - 3)
            };
            match more {
                Some(more) => dirty |= more,
                None => return false,
            }
        }
        true
    }

    /// [`band_update`] without the recursion: the bands to revisit, or `None` on a
    /// contradiction.
    fn band_restrict_boxes<const VERTICAL: bool>(
        state: &mut State,
        band_idx: usize,
    ) -> Option<u8> {
        let peer_triads = band_triads::<VERTICAL>(state, band_idx);
        let mut dirty = 0;
        for (p, &triads) in peer_triads.iter().enumerate() {
            let candidates = triads_to_candidates::<VERTICAL>(triads);
            let (box_i, box_j) = if VERTICAL { (p, band_idx) } else { (band_idx, p) };
            dirty |= box_restrict(state, box_i, box_j, candidates)?;
        }
        Some(dirty)
    }

    /// Apply a band's pending eliminations and infer what a triad held by all its remaining
    /// configurations forces: the positive triads left for each of its three boxes.
    fn band_triads<const VERTICAL: bool>(state: &mut State, band_idx: usize) -> [V8; 3] {
        let band = &mut state.bands[usize::from(VERTICAL)][band_idx];
        let configs = band.configurations.and_not(band.eliminations);
        let triads = configs_to_triads(configs);
        let asserting = triads.and(triads.popcounts9().lanes_eq(V16::splat(3)));
        let (lo, hi) = (asserting.lo(), asserting.hi());
        let t = |shift: usize, peer: usize| V8::load(&TRIADS_TO_CONFIGS[shift][peer]);
        let configs = configs.and_not(
            lo.rotate_cols()
                .shuffle(t(1, 0))
                .or(lo.rotate_cols().shuffle(t(2, 0)))
                .or(lo.shuffle(t(1, 1))),
        );
        let configs = configs.and_not(
            lo.shuffle(t(2, 1))
                .or(hi.rotate_cols().shuffle(t(1, 2)))
                .or(hi.rotate_cols().shuffle(t(2, 2))),
        );
        band.configurations = configs;
        let triads = configs_to_triads(configs);
        [triads.lo(), triads.lo().rotate_cols(), triads.hi()]
    }

    /// Depth first, as tdoku: apply a band's pending eliminations, restrict its three boxes
    /// (the inbound peer `from_peer` last) and follow each box's changes into its bands at once
    /// (the band of the other orientation first); `false` on a contradiction.
    fn band_eliminate<const VERTICAL: bool>(
        state: &mut State,
        band_idx: usize,
        from_peer: usize,
    ) -> bool {
        let band = &state.bands[usize::from(VERTICAL)][band_idx];
        !band.configurations.intersects(band.eliminations)
            || band_update::<VERTICAL>(state, band_idx, from_peer)
    }
}

simd! {
    outlined:
    /// [`band_eliminate`] when there is something to eliminate: kept out of line, so that the
    /// common no-op check costs no call.
    fn band_update<const VERTICAL: bool>(
        state: &mut State,
        band_idx: usize,
        from_peer: usize,
    ) -> bool {
        let peer_triads = band_triads::<VERTICAL>(state, band_idx);
        for p in [(from_peer + 1) % 3, (from_peer + 2) % 3, from_peer % 3] {
            let candidates = triads_to_candidates::<VERTICAL>(peer_triads[p]);
            let (box_i, box_j) = if VERTICAL { (p, band_idx) } else { (band_idx, p) };
            let ok = match box_restrict(state, box_i, box_j, candidates) {
                None => false,
                Some(0) => true,
                Some(_) if VERTICAL => {
                    band_eliminate::<false>(state, box_i, box_j)
                        && band_eliminate::<true>(state, box_j, box_i)
                }
                Some(_) => {
                    band_eliminate::<true>(state, box_j, box_i)
                        && band_eliminate::<false>(state, box_i, box_j)
                }
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

simd! {
    /// A band's configurations as the 3x3 matrix of positive triads (row `p`: box peer `p`).
    fn configs_to_triads(configs: V8) -> V16 {
        let both = V16::from_halves(configs, configs);
        both.shuffle(V16::load(&CONFIGS_TO_TRIADS[0]))
            .or(both.shuffle(V16::load(&CONFIGS_TO_TRIADS[1])))
    }

    /// A box peer's positive triads (lanes 0..3) as the box candidates they allow.
    fn triads_to_candidates<const VERTICAL: bool>(triads: V8) -> V16 {
        let padded = triads.or(V8::load(&TRIAD_PAD));
        let both = V16::from_halves(padded, padded);
        let table = &TRIADS_TO_CANDIDATES[usize::from(VERTICAL)];
        both.shuffle(V16::load(&table[0]))
            .or(both.shuffle(V16::load(&table[1])))
    }

    /// The band (0..3 horizontal, 3..6 vertical) with the fewest configurations left that is
    /// not yet fixed, and in it a digit (one bit in lanes 0..6) with the fewest configurations
    /// (two if any, else three, else more); `None` when every band is fixed (solved).
    fn choose_branch(state: &State) -> Option<(usize, V8)> {
        let mut pops = [0xffffu16; 8];
        for (k, pop) in pops.iter_mut().take(6).enumerate() {
            *pop = state.bands[k / 3][k % 3].configurations.popcount() as u16;
        }
        let min_pos = V8::load(&pops).min_pos_from(10);
        if min_pos & 0xff00 != 0 {
            return None;
        }
        let best = (min_pos >> 16) as usize;
        let configs = state.bands[best / 3][best % 3].configurations;
        let rot = V8::load(&BAND_ROTATE);
        let mut one = configs;
        let mut rotated = one.shuffle(rot);
        let mut two = one.and(rotated);
        one = one.or(rotated);
        rotated = rotated.shuffle(rot);
        let mut three = two.and(rotated);
        two = two.or(one.and(rotated));
        one = one.or(rotated);
        rotated = rotated.shuffle(rot);
        let mut four = three.and(rotated);
        three = three.or(two.and(rotated));
        two = two.or(one.and(rotated));
        one = one.or(rotated);
        for _ in 0..2 {
            rotated = rotated.shuffle(rot);
            four = four.or(three.and(rotated));
            three = three.or(two.and(rotated));
            two = two.or(one.and(rotated));
            one = one.or(rotated);
        }
        let only_two = two.and_not(three);
        let only_three = three.and_not(four);
        let pick = if !only_two.all_zero() {
            only_two
        } else if !only_three.all_zero() {
            only_three
        } else {
            four
        };
        Some((best, pick.low_bit()))
    }

    /// Try the first configuration of the chosen digit in a copy, then its negation in place.
    fn branch<const VERTICAL: bool>(
        search: &mut Search,
        band_idx: usize,
        value_mask: V8,
        state: &mut State,
    ) {
        let v = usize::from(VERTICAL);
        let value_configs = state.bands[v][band_idx].configurations.and(value_mask);
        search.guesses += 1;
        let mut copy = *state;
        let assignment = value_configs.clear_low_bit();
        let elims = &mut copy.bands[v][band_idx].eliminations;
        *elims = elims.or(assignment);
        if band_eliminate::<VERTICAL>(&mut copy, band_idx, 0) {
            count(search, &mut copy);
            if search.count >= search.limit {
                return;
            }
        }
        let negation = value_configs.xor(assignment);
        let elims = &mut state.bands[v][band_idx].eliminations;
        *elims = elims.or(negation);
        if band_eliminate::<VERTICAL>(state, band_idx, 0) {
            count(search, state);
        }
    }

    /// Count the solutions below `state` (which it may change) until the limit.
    fn count(search: &mut Search, state: &mut State) {
        match choose_branch(state) {
            None => {
                search.count += 1;
                if search.want_first && search.count == 1 {
                    search.first = Some(extract(state));
                }
            }
            Some((band, mask)) if band < 3 => branch::<false>(search, band, mask, state),
            Some((band, mask)) => branch::<true>(search, band - 3, mask, state),
        }
    }

    /// Place a given: its own box directly, its two bands as pending eliminations.
    fn init_clue(state: &mut State, pos: usize, digit: u8) {
        let (box_i, box_j) = (pos / 27, pos % 9 / 3);
        let (elem_i, elem_j) = (pos / 9 % 3, pos % 3);
        let box_idx = box_i * 3 + box_j;
        let value = usize::from(digit - 1);
        let candidate = V8::splat(1 << value);
        let assignment = V16::load(&CELL_ASSIGNMENT[value][elem_i * 4 + elem_j]);
        state.boxen[box_idx] = state.boxen[box_idx].and_not(assignment);
        let h = &mut state.bands[0][box_i].eliminations;
        *h = V8::load(&PEER_ELEM_TO_CONFIGS[box_j][elem_i]).and(candidate).or(*h);
        let v = &mut state.bands[1][box_j].eliminations;
        *v = V8::load(&PEER_ELEM_TO_CONFIGS[box_i][elem_j]).and(candidate).or(*v);
    }

    /// Bit `i` set when `cells[i]` is not 0 (at most 64 cells).
    fn nonzero_bits(cells: &[u8]) -> u64 {
        let mut bits = 0u64;
        for (i, &digit) in cells.iter().enumerate() {
            bits |= u64::from(digit != 0) << i;
        }
        bits
    }

    /// The state with the givens placed and propagated; `None` when two givens clash or
    /// propagation finds a contradiction.
    fn init(cells: &[u8; 81]) -> Option<State> {
        let band = Band {
            configurations: V8::load(&BAND_START),
            eliminations: V8::zero(),
        };
        let mut state = State {
            bands: [[band; 3]; 2],
            boxen: [V16::splat(ALL); 9],
        };
        // The givens as bits, found without a branch per cell (most cells are empty).
        let mut seen = [0u16; 27];
        let halves = [(0, nonzero_bits(&cells[..64])), (64, nonzero_bits(&cells[64..]))];
        for (base, mut givens) in halves {
            while givens != 0 {
                let pos = base + givens.trailing_zeros() as usize;
                givens &= givens - 1;
                let digit = cells[pos];
                let bit = 1u16 << digit;
                let (row, col) = (pos / 9, pos % 9);
                let units = [row, 9 + col, 18 + row / 3 * 3 + col / 3];
                if units.iter().any(|&u| seen[u] & bit != 0) {
                    return None;
                }
                for u in units {
                    seen[u] |= bit;
                }
                init_clue(&mut state, pos, digit);
            }
        }
        propagate(&mut state, 0b11_1111).then_some(state)
    }

    /// The digits (1..=9) of a solved state; 0 where a cell is not a single digit (never, in a
    /// solved state).
    fn extract(state: &State) -> [u8; 81] {
        let mut out = [0u8; 81];
        for (box_idx, cells) in state.boxen.iter().enumerate() {
            let lanes = cells.to_array();
            let base = box_idx / 3 * 27 + box_idx % 3 * 3;
            for r in 0..3 {
                for c in 0..3 {
                    let x = lanes[r * 4 + c];
                    if x.is_power_of_two() {
                        out[base + r * 9 + c] = x.trailing_zeros() as u8 + 1;
                    }
                }
            }
        }
        out
    }

    /// Count the solutions of `cells` (0 = empty, 1..=9 given) up to `limit`; clashing givens
    /// have none.
    pub(super) fn solve(cells: &[u8; 81], limit: usize, want_first: bool) -> Outcome {
        let mut search = Search {
            limit,
            count: 0,
            want_first,
            first: None,
            guesses: 0,
        };
        if let Some(mut state) = init(cells) {
            count(&mut search, &mut state);
        }
        Outcome {
            count: search.count,
            first: search.first,
            guesses: search.guesses,
        }
    }
}
