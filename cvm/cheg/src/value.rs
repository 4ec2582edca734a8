//! CHEG values and the per-run value heap that gives each one a handle.
//!
//! A CVM word cannot hold a set, so every CHEG value lives in a [`Heap`]
//! on the host side and the CVM code moves 32-bit handles around (in
//! globals for program variables, in a frame slot for X). Handles 0, 1
//! and 2 are always undefined, F and T; scalar values are interned, so
//! arithmetic in a loop does not grow the heap; sets get a fresh handle
//! each time one is built and are never changed afterwards, which gives
//! the value semantics the manual implies (SETV copies).

use chess_core::{Colour, PieceKind, Square};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// A piece on the board of the run: its colour, its kind and its square.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PieceVal {
    /// Real colour.
    pub colour: Colour,
    /// Kind.
    pub kind: PieceKind,
    /// Where it stands.
    pub square: Square,
}

/// A move: the square it leaves, the square it reaches and, for a pawn
/// reaching the last rank, the piece it becomes. Castling is the king's
/// two-square move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveVal {
    /// From.
    pub from: Square,
    /// To.
    pub to: Square,
    /// Promotion.
    pub promotion: Option<PieceKind>,
}

/// One CHEG value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Undefined.
    Undef,
    /// T or F.
    Logical(bool),
    /// An integer (64 bits, wrapping).
    Int(i64),
    /// A set: a vector of values, in order.
    Set(Rc<Vec<Value>>),
    /// A piece.
    Piece(PieceVal),
    /// A square.
    Square(Square),
    /// A move.
    Move(MoveVal),
}

impl Value {
    /// The type name used in runtime errors.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Undef => "undefined",
            Value::Logical(_) => "a logical",
            Value::Int(_) => "an integer",
            Value::Set(_) => "a set",
            Value::Piece(_) => "a piece",
            Value::Square(_) => "a square",
            Value::Move(_) => "a move",
        }
    }

    /// A set of the given elements.
    pub fn set(elements: Vec<Value>) -> Value {
        Value::Set(Rc::new(elements))
    }
}

impl fmt::Display for Value {
    /// The `che run` form: `U`, `T`/`F`, decimal, `(e1,e2)`, `e4`,
    /// `e7e8q`, `wR@a1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Undef => f.write_str("U"),
            Value::Logical(b) => f.write_str(if *b { "T" } else { "F" }),
            Value::Int(n) => write!(f, "{n}"),
            Value::Set(items) => {
                f.write_str("(")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Value::Piece(p) => {
                let c = if p.colour == Colour::White { 'w' } else { 'b' };
                write!(f, "{c}{}@{}", p.kind.to_upper_char(), p.square)
            }
            Value::Square(s) => write!(f, "{s}"),
            Value::Move(m) => {
                write!(f, "{}{}", m.from, m.to)?;
                if let Some(k) = m.promotion {
                    write!(f, "{}", k.to_lower_char())?;
                }
                Ok(())
            }
        }
    }
}

/// The handle of the undefined value.
pub const UNDEF: i32 = 0;
/// The handle of F.
pub const FALSE: i32 = 1;
/// The handle of T.
pub const TRUE: i32 = 2;

/// The default bound on the number of values a run may hold.
pub const DEFAULT_HEAP_LIMIT: usize = 1 << 22;

/// The values of one run, by handle.
#[derive(Debug)]
pub struct Heap {
    values: Vec<Value>,
    interned: HashMap<Value, i32>,
    limit: usize,
}

/// The heap is full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the value heap is full ({0} values)")]
pub struct HeapFull(pub usize);

impl Default for Heap {
    fn default() -> Self {
        Heap::new(DEFAULT_HEAP_LIMIT)
    }
}

impl Heap {
    /// An empty heap (but for U, F and T) holding at most `limit` values.
    pub fn new(limit: usize) -> Heap {
        let mut heap = Heap {
            values: Vec::new(),
            interned: HashMap::new(),
            limit: limit.max(3),
        };
        for v in [Value::Undef, Value::Logical(false), Value::Logical(true)] {
            let h = heap.values.len() as i32;
            heap.interned.insert(v.clone(), h);
            heap.values.push(v);
        }
        heap
    }

    /// The value of a handle; an unknown handle reads as undefined (the
    /// CVM code only holds handles the heap gave out, but a host must not
    /// trust that).
    pub fn get(&self, handle: i32) -> &Value {
        usize::try_from(handle)
            .ok()
            .and_then(|i| self.values.get(i))
            .unwrap_or(&Value::Undef)
    }

    /// A handle for `value`.
    pub fn put(&mut self, value: Value) -> Result<i32, HeapFull> {
        let scalar = !matches!(value, Value::Set(_));
        if scalar {
            if let Some(&h) = self.interned.get(&value) {
                return Ok(h);
            }
        }
        if self.values.len() >= self.limit {
            return Err(HeapFull(self.limit));
        }
        let h = self.values.len() as i32;
        if scalar {
            self.interned.insert(value.clone(), h);
        }
        self.values.push(value);
        Ok(h)
    }

    /// Appends `element` to the set behind `set` in place (only for sets
    /// the runtime has just built and nobody else holds).
    pub fn push_into(&mut self, set: i32, element: Value) -> bool {
        match usize::try_from(set)
            .ok()
            .and_then(|i| self.values.get_mut(i))
        {
            Some(Value::Set(items)) => {
                Rc::make_mut(items).push(element);
                true
            }
            _ => false,
        }
    }

    /// Number of values held.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always false: U, F and T are always there.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing() {
        let set = Value::set(vec![
            Value::Int(1),
            Value::Int(-2),
            Value::set(vec![Value::Int(3)]),
            Value::set(vec![]),
        ]);
        assert_eq!(set.to_string(), "(1,-2,(3),())");
        let m = MoveVal {
            from: Square::E7,
            to: Square::E8,
            promotion: Some(PieceKind::Queen),
        };
        assert_eq!(Value::Move(m).to_string(), "e7e8q");
        let p = PieceVal {
            colour: Colour::White,
            kind: PieceKind::Rook,
            square: Square::A1,
        };
        assert_eq!(Value::Piece(p).to_string(), "wR@a1");
        assert_eq!(Value::Undef.to_string(), "U");
    }

    #[test]
    fn heap_interns_scalars_and_bounds_growth() {
        let mut heap = Heap::new(5);
        assert_eq!(heap.put(Value::Logical(true)), Ok(TRUE));
        let a = heap.put(Value::Int(7)).expect("room");
        assert_eq!(heap.put(Value::Int(7)), Ok(a));
        let s = heap.put(Value::set(vec![])).expect("room");
        assert!(heap.push_into(s, Value::Int(1)));
        assert_eq!(heap.get(s), &Value::set(vec![Value::Int(1)]));
        assert_eq!(heap.put(Value::set(vec![])), Err(HeapFull(5)));
        assert_eq!(heap.get(-1), &Value::Undef);
    }
}
