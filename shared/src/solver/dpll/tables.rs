//! The DPLL solver's constant vectors, as plain lane arrays that both vector kinds load: the
//! shuffle controls that turn band configurations into triads and triads into box candidates,
//! the masks a given applies, and the box minimums. The layouts are explained in the parent
//! module.

/// All nine digits.
pub(super) const ALL: u16 = 0x1ff;
/// A shuffle lane that yields zero.
const Z: u16 = 0xffff;

/// The `vpshufb` control pair that moves 16-bit lane `k` (of the same half).
const fn s(k: u16) -> u16 {
    ((2 * k + 1) << 8) | (2 * k)
}

/// A band's configurations before any given: six per digit.
pub(super) const BAND_START: [u16; 8] = [ALL, ALL, ALL, ALL, ALL, ALL, 0, 0];

/// The fewest candidates a box lane may keep: one per cell, six per negative triad.
pub(super) const BOX_MINIMUMS: [u16; 16] = [1, 1, 1, 6, 1, 1, 1, 6, 1, 1, 1, 6, 6, 6, 6, 0];

/// The nine cells of a box, without the triad lanes.
pub(super) const CELL3X3_MASK: [u16; 16] = [
    ALL, ALL, ALL, 0, ALL, ALL, ALL, 0, ALL, ALL, ALL, 0, 0, 0, 0, 0,
];

/// The 3x3 cells' rows rotated by one (within each half).
pub(super) const ROW_ROTATE_3X3_1: [u16; 16] = [
    s(1),
    s(2),
    s(0),
    s(3),
    s(5),
    s(6),
    s(4),
    s(7),
    s(1),
    s(2),
    s(0),
    s(3),
    s(4),
    s(5),
    s(6),
    s(7),
];
/// The 3x3 cells' rows rotated by two.
pub(super) const ROW_ROTATE_3X3_2: [u16; 16] = [
    s(2),
    s(0),
    s(1),
    s(3),
    s(6),
    s(4),
    s(5),
    s(7),
    s(2),
    s(0),
    s(1),
    s(3),
    s(4),
    s(5),
    s(6),
    s(7),
];

/// Moves a box's horizontal triad lanes (3, 7, 11) to lanes 4, 5, 6 (split over the halves).
pub(super) const HORIZONTAL_TRIADS: [u16; 16] =
    [Z, Z, Z, Z, s(3), s(7), Z, Z, Z, Z, Z, Z, Z, Z, s(3), Z];

/// Rotates a band's six configurations by one.
pub(super) const BAND_ROTATE: [u16; 8] = [s(1), s(2), s(3), s(4), s(5), s(0), Z, Z];

/// The triads lanes 0..3 of a band vector with the opposite orientation's lane (3) all set.
pub(super) const TRIAD_PAD: [u16; 8] = [0, 0, 0, ALL, 0, 0, 0, 0];

/// For a box peer `p` of a band and the element (mini-row or mini-column) `e` holding a given:
/// the configurations that put the digit elsewhere in that box.
pub(super) static PEER_ELEM_TO_CONFIGS: [[[u16; 8]; 4]; 3] = [
    [
        [0, ALL, ALL, ALL, 0, ALL, 0, 0],
        [ALL, 0, ALL, ALL, ALL, 0, 0, 0],
        [ALL, ALL, 0, 0, ALL, ALL, 0, 0],
        [0; 8],
    ],
    [
        [ALL, ALL, 0, ALL, ALL, 0, 0, 0],
        [0, ALL, ALL, 0, ALL, ALL, 0, 0],
        [ALL, 0, ALL, ALL, 0, ALL, 0, 0],
        [0; 8],
    ],
    [
        [ALL, 0, ALL, 0, ALL, ALL, 0, 0],
        [ALL, ALL, 0, ALL, 0, ALL, 0, 0],
        [0, ALL, ALL, ALL, ALL, 0, 0, 0],
        [0; 8],
    ],
];

/// Triads in lanes 4, 5, 6 of a box peer to the configurations they rule out, one table per
/// rotation of the peer's elements (shift 0, 1, 2), one row per peer.
pub(super) static TRIADS_TO_CONFIGS: [[[u16; 8]; 3]; 3] = [
    [
        [s(4), s(5), s(6), s(6), s(4), s(5), Z, Z],
        [s(5), s(6), s(4), s(5), s(6), s(4), Z, Z],
        [s(6), s(4), s(5), s(4), s(5), s(6), Z, Z],
    ],
    [
        [s(5), s(6), s(4), s(4), s(5), s(6), Z, Z],
        [s(6), s(4), s(5), s(6), s(4), s(5), Z, Z],
        [s(4), s(5), s(6), s(5), s(6), s(4), Z, Z],
    ],
    [
        [s(6), s(4), s(5), s(5), s(6), s(4), Z, Z],
        [s(4), s(5), s(6), s(4), s(5), s(6), Z, Z],
        [s(5), s(6), s(4), s(6), s(4), s(5), Z, Z],
    ],
];

/// [`TRIADS_TO_CONFIGS`] for both bands of a box at once: `[shift][3 * j + i]` is peer `i`'s
/// row in the low half and peer `j`'s in the high half.
pub(super) static TRIADS_TO_CONFIGS16: [[[u16; 16]; 9]; 3] = {
    let mut t = [[[0u16; 16]; 9]; 3];
    let mut shift = 0;
    while shift < 3 {
        let mut k = 0;
        while k < 9 {
            let mut lane = 0;
            while lane < 8 {
                t[shift][k][lane] = TRIADS_TO_CONFIGS[shift][k / 3][lane];
                t[shift][k][lane + 8] = TRIADS_TO_CONFIGS[shift][k % 3][lane];
                lane += 1;
            }
            k += 1;
        }
        shift += 1;
    }
    t
};

/// Two shuffles of a band's configurations (in both halves), or'ed together, give the 3x3
/// matrix of positive triads: row `p` for box peer `p`.
pub(super) const CONFIGS_TO_TRIADS: [[u16; 16]; 2] = [
    [
        s(0),
        s(1),
        s(2),
        Z,
        s(2),
        s(0),
        s(1),
        Z,
        s(1),
        s(2),
        s(0),
        Z,
        Z,
        Z,
        Z,
        Z,
    ],
    [
        s(4),
        s(5),
        s(3),
        Z,
        s(5),
        s(3),
        s(4),
        Z,
        s(3),
        s(4),
        s(5),
        Z,
        Z,
        Z,
        Z,
        Z,
    ],
];

/// Two shuffles of a peer's positive triads (lanes 0..3, lane 3 all set), or'ed together, give
/// the box candidates they allow; `[vertical][k]`.
pub(super) const TRIADS_TO_CANDIDATES: [[[u16; 16]; 2]; 2] = [
    [
        [
            s(0),
            s(0),
            s(0),
            s(1),
            s(1),
            s(1),
            s(1),
            s(2),
            s(2),
            s(2),
            s(2),
            s(0),
            s(3),
            s(3),
            s(3),
            s(3),
        ],
        [
            s(0),
            s(0),
            s(0),
            s(2),
            s(1),
            s(1),
            s(1),
            s(0),
            s(2),
            s(2),
            s(2),
            s(1),
            s(3),
            s(3),
            s(3),
            s(3),
        ],
    ],
    [
        [
            s(0),
            s(1),
            s(2),
            s(3),
            s(0),
            s(1),
            s(2),
            s(3),
            s(0),
            s(1),
            s(2),
            s(3),
            s(1),
            s(2),
            s(0),
            s(3),
        ],
        [
            s(0),
            s(1),
            s(2),
            s(3),
            s(0),
            s(1),
            s(2),
            s(3),
            s(0),
            s(1),
            s(2),
            s(3),
            s(2),
            s(0),
            s(1),
            s(3),
        ],
    ],
];

/// What placing digit `value` in box lane `elem` removes from the box: the other digits of the
/// cell, the digit from the other cells and from the two negative triads of the cell's row and
/// column. `[value][elem]`.
pub(super) static CELL_ASSIGNMENT: [[[u16; 16]; 16]; 9] = {
    let mut t = [[[0u16; 16]; 16]; 9];
    let mut value = 0;
    while value < 9 {
        let bit = 1u16 << value;
        let mut i = 0;
        while i < 11 {
            if i % 4 < 3 {
                let mut j = 0;
                while j < 15 {
                    t[value][i][j] = if j == i {
                        ALL ^ bit
                    } else if (j / 4 < 3 && j % 4 < 3) || j / 4 == i / 4 || j % 4 == i % 4 {
                        bit
                    } else {
                        0
                    };
                    j += 1;
                }
            }
            i += 1;
        }
        value += 1;
    }
    t
};
