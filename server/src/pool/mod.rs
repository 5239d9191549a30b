//! The pool (A7): where a player waits for a race with strangers. [`matcher`] decides, as a pure
//! function, which of the waiting players race together; [`queue`] keeps each difficulty's
//! waiting players on this node, runs the matcher on a tick, and seats every race it forms in a
//! new pool room (no host, not listed, started by the pool).

pub mod matcher;
pub mod queue;
