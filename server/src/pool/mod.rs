//! The pool (A7, "Play now"): where players wait for a race with strangers, one pool per
//! difficulty, until enough compatible players are there or the wait is up.
//!
//! [`matcher`] decides who races whom, as a pure function of who is waiting and the time; it
//! owns no state, reads no clock and does no IO. [`queue`] is the state around it on this node:
//! each difficulty's waiting players, the tick that runs the matcher, and the seating of every
//! race it forms in a new pool room (no host, not listed, started by the pool). [`shared`] is
//! the seam of a cluster-wide pool: the pool's state kept where every node sees it.

pub mod matcher;
pub mod queue;
pub mod shared;
