//! The experiments, one module each (see [`crate::lab::experiment::registry`]).

pub mod breakeven;
pub mod cost;
pub mod endgame;
pub mod optimizer;
pub mod safety;
pub mod search;
pub mod strength;
