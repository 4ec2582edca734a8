//! The fuel the runtime's services charge: each `HostCall` counts the work
//! it does in steps and reports `⌊steps / STEPS_PER_UNIT⌋` units of fuel
//! ([`cvm::Host::extension_metered`]), on top of the one unit every
//! `HostCall` charges. A service stops as soon as its steps exceed what
//! the run's budget can pay for, so that no single call runs much longer
//! than its fuel allows (docs/cheg.md, "Fuel").
//!
//! A step is about the time of touching one set element (copying it,
//! comparing one node of two values, testing it): a few nanoseconds. The
//! weights of heavier work are the constants below, chosen by measurement
//! so that one unit of fuel takes about as long in a service as elsewhere
//! (at most about 25 ns, docs/cvm.md, "What a unit of fuel buys").

use crate::value::Value;
use cvm::TrapKind;
use std::rc::Rc;

/// The steps one unit of fuel pays for.
pub const STEPS_PER_UNIT: u64 = 4;
/// Steps every service call counts: the fixed work of a call into the
/// runtime (reading its handles, putting the result into the heap), on
/// top of the one unit every `HostCall` charges.
pub const SERVICE_STEPS: u64 = 8;
/// Steps per position a TRY, PLAYB or PLAN search visits (a legal-move
/// generation and a move made).
pub const NODE_STEPS: u64 = 32;
/// Steps for generating the legal moves of the position (the legality
/// test of a tried move, LM, PG).
pub const MOVEGEN_STEPS: u64 = 32;
/// Steps per condition tested on the board by SELECT, PLAY, TRY and
/// CONDITION (a check or capture test makes the move or reads the board).
pub const CONDITION_STEPS: u64 = 4;
/// Steps per value node a BREAK line prints.
pub const PRINT_STEPS: u64 = 8;

/// The work of one service call, in steps, and the most its budget pays.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Meter {
    steps: u64,
    limit: u64,
}

impl Default for Meter {
    fn default() -> Self {
        Meter::unlimited()
    }
}

impl Meter {
    /// A meter for a call whose budget is `budget` units: it may count up
    /// to the steps those units pay for (the remainder of a unit
    /// included).
    pub fn new(budget: u64) -> Meter {
        Meter {
            steps: 0,
            limit: budget
                .saturating_mul(STEPS_PER_UNIT)
                .saturating_add(STEPS_PER_UNIT - 1),
        }
    }

    /// A meter without a limit (for tests and for
    /// [`cvm::Host::extension`] callers that do not meter).
    pub fn unlimited() -> Meter {
        Meter {
            steps: 0,
            limit: u64::MAX,
        }
    }

    /// Counts `steps` more; out-of-fuel when the budget cannot pay for
    /// the work so far.
    pub fn add(&mut self, steps: u64) -> Result<(), TrapKind> {
        self.steps = self.steps.saturating_add(steps);
        if self.steps > self.limit {
            Err(TrapKind::OutOfFuel)
        } else {
            Ok(())
        }
    }

    /// The steps counted.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The fuel the work counted so far costs: `⌊steps / STEPS_PER_UNIT⌋`.
    pub fn fuel(&self) -> u64 {
        self.steps / STEPS_PER_UNIT
    }

    /// Structural equality (the same answer as `==`), one step per pair
    /// of nodes compared: a set that is the very same object as the other
    /// is equal at once.
    pub fn equal(&mut self, a: &Value, b: &Value) -> Result<bool, TrapKind> {
        self.add(1)?;
        match (a, b) {
            (Value::Set(x), Value::Set(y)) => {
                if Rc::ptr_eq(x, y) {
                    return Ok(true);
                }
                if x.len() != y.len() {
                    return Ok(false);
                }
                for (p, q) in x.iter().zip(y.iter()) {
                    if !self.equal(p, q)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            _ => Ok(a == b),
        }
    }

    /// Whether `items` holds a value equal to `v`, with the position
    /// (from 0) of the first.
    pub fn position(&mut self, items: &[Value], v: &Value) -> Result<Option<usize>, TrapKind> {
        for (i, e) in items.iter().enumerate() {
            if self.equal(e, v)? {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// `weight` steps for every node of `v` (a set and each of its
    /// elements, nested sets through to their leaves), counted as it goes
    /// so that a value shared many times over cannot be walked past the
    /// budget.
    pub fn nodes(&mut self, v: &Value, weight: u64) -> Result<(), TrapKind> {
        self.add(weight)?;
        if let Value::Set(items) = v {
            for e in items.iter() {
                self.nodes(e, weight)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Value {
        Value::set(v.iter().map(|&n| Value::Int(n)).collect())
    }

    #[test]
    fn equality_agrees_with_eq_and_counts_nodes() {
        let a = Value::set(vec![ints(&[1, 2]), Value::Int(3)]);
        let b = Value::set(vec![ints(&[1, 2]), Value::Int(3)]);
        let c = Value::set(vec![ints(&[1, 5]), Value::Int(3)]);
        let mut m = Meter::unlimited();
        assert!(m.equal(&a, &b).expect("unlimited"));
        // The two sets, the inner sets, 1, 2 and 3.
        assert_eq!(m.steps(), 5);
        let mut m = Meter::unlimited();
        assert!(!m.equal(&a, &c).expect("unlimited"));
        assert!(a != c);
        // The very same set: one step.
        let mut m = Meter::unlimited();
        assert!(m.equal(&a, &a.clone()).expect("unlimited"));
        assert_eq!(m.steps(), 1);
    }

    #[test]
    fn the_budget_stops_the_work() {
        // Budget 2 units: up to 2 x 4 + 3 = 11 steps.
        let mut m = Meter::new(2);
        assert!(m.add(11).is_ok());
        assert_eq!(m.fuel(), 2);
        assert_eq!(m.add(1), Err(TrapKind::OutOfFuel));
        // A value shared over and over: 2^40 nodes, stopped early.
        let mut v = Value::Int(0);
        for _ in 0..40 {
            v = Value::set(vec![v.clone(), v]);
        }
        let mut m = Meter::new(1000);
        assert_eq!(m.nodes(&v, PRINT_STEPS), Err(TrapKind::OutOfFuel));
        assert!(m.steps() < 1000 * STEPS_PER_UNIT + STEPS_PER_UNIT + PRINT_STEPS);
    }
}
