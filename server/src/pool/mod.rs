//! The pool (A7, "Play now"): where players wait for a race with strangers, one pool per
//! difficulty, until enough compatible players are there or the wait is up.
//!
//! [`matcher`] decides who races whom, as a pure function of who is waiting and the time; it
//! owns no state, reads no clock and does no IO. Queues, rooms and messages are the caller's.

pub mod matcher;
