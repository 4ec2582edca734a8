//! The service numbers of `HostCall`: the contract between the code the
//! compiler emits and the runtime host that answers it. Every call passes
//! three words; handles are value-heap handles ([`crate::value`]), -1 marks
//! an absent argument.

/// Start of a run: `() -> dispatch target` of the first matching ENTRY (or
/// of the plan's tag when a plan is active), or -1 when none matches.
pub const START: i32 = 1;
/// `(literal index) -> handle`.
pub const LITERAL: i32 = 2;
/// `(predefined code) -> handle` ([`crate::table::Predefined::code`]).
pub const PREDEFINED: i32 = 3;
/// The top level returned or ran past the last instruction: `() -> 1`,
/// the run ends as by LEAVE.
pub const FINISH: i32 = 4;
/// `(condition code, value, SIDE) -> 0/1` ([`cond_code`]).
pub const CONDITION: i32 = 5;
/// `(order code, a, b) -> 1` when ORDER exchanges a and b.
pub const ORDER: i32 = 6;
/// `(set, instruction number) -> number of elements` (an error naming
/// the instruction for a non-set).
pub const COUNT: i32 = 7;
/// `(set, n) -> handle` of the nth element, n from 1 (raw index).
pub const ELEMENT: i32 = 8;
/// `() -> handle` of a fresh empty set.
pub const NEW_SET: i32 = 9;
/// `(fresh set, element) -> 0`: appends in place.
pub const PUSH: i32 = 10;
/// `(value) -> 1` if the value is T, else 0 (SELECT).
pub const IS_TRUE: i32 = 11;
/// `(value) -> 1` for T, 0 for F, an error otherwise (CONDT, CONDF).
pub const LOGICAL: i32 = 12;
/// `(a, b) -> 1` if equal (structurally for sets).
pub const EQUAL: i32 = 13;
/// `(a, b) -> 1` if the integer a is below the integer b.
pub const LESS: i32 = 14;
/// `(set, index) -> the element` that UNSERT removes.
pub const UNSERT_ELEMENT: i32 = 15;
/// `(set, index) -> the element` that EXCHWE takes out of the set.
pub const EXCHWE_ELEMENT: i32 = 16;
/// `() -> handle` of the plan variable when the run started under a plan
/// (X of the top level), else of the undefined value.
pub const PLAN_VARIABLE: i32 = 17;
/// Instructions with a value operation: `INSTRUCTION + Instr::index()`.
pub const INSTRUCTION: i32 = 64;

/// The word for a condition argument: its table index, plus 256 when
/// negated.
pub fn cond_code(cond: crate::table::Cond, negated: bool) -> i32 {
    cond.index() as i32 | if negated { 256 } else { 0 }
}

/// The word for an ordering argument: 0 none, 1 DEEP, plus 256 reversed.
pub fn order_code(order: crate::table::Order, reversed: bool) -> i32 {
    let base = match order {
        crate::table::Order::None => 0,
        crate::table::Order::Deep => 1,
    };
    base | if reversed { 256 } else { 0 }
}
