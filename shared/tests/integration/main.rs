//! The engine's one integration-test binary: the solver, transforms, validator and generator on
//! the data sets and under properties, and the grader against the shared puzzle sets.

mod engine;
mod grader;
