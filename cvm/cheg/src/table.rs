//! The language's vocabulary in one place: every instruction with the kinds
//! of its arguments, every condition, every ordering and every predefined
//! variable. The parser, the checker, the code generator and the runtime
//! all read these tables.

/// What an argument position takes (the manual's argument types 1-6).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Read: a variable or a literal, needing a value of the given kind.
    Read(Need),
    /// Written: a program variable.
    Write,
    /// Read and written in the same instruction: a program variable whose
    /// value must be of the given kind.
    Update(Need),
    /// A tag.
    Tag,
    /// A condition (an empty field means "always").
    Cond,
    /// An ordering (an empty or missing field means none).
    Order,
    /// A read argument that may be left out (BREAK).
    Optional,
}

/// The kind of value an argument needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Need {
    /// Anything.
    Any,
    /// An integer.
    Int,
    /// A logical.
    Logical,
    /// A set.
    Set,
    /// A square, or a piece (its square) or a move (its destination).
    Square,
    /// A piece, or a square (the piece on it) or a move (the moved piece).
    Piece,
    /// A move.
    Move,
}

impl Need {
    /// How the need reads in a diagnostic.
    pub fn describe(self) -> &'static str {
        match self {
            Need::Any => "a value",
            Need::Int => "an integer",
            Need::Logical => "a logical",
            Need::Set => "a set",
            Need::Square => "a square (or a piece or move)",
            Need::Piece => "a piece (or a square or move)",
            Need::Move => "a move",
        }
    }
}

/// The static kind of an operand, when it is known before running.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Known {
    /// An integer.
    Int,
    /// A logical.
    Logical,
    /// A set.
    Set,
    /// A piece (or undefined when the piece is not on the board).
    Piece,
}

impl Known {
    /// How the kind reads in a diagnostic ("a set where a square is needed").
    pub fn describe(self) -> &'static str {
        match self {
            Known::Int => "an integer",
            Known::Logical => "a logical",
            Known::Set => "a set",
            Known::Piece => "a piece",
        }
    }

    /// Whether a value of this kind can serve where `need` is asked for.
    pub fn fits(self, need: Need) -> bool {
        match need {
            Need::Any => true,
            Need::Int => self == Known::Int,
            Need::Logical => self == Known::Logical,
            Need::Set => self == Known::Set,
            Need::Square | Need::Piece => self == Known::Piece,
            Need::Move => false,
        }
    }
}

use Need as N;
use Slot::{Cond as C, Optional as O, Order as Ord, Read as R, Tag as T, Update as U, Write as W};

macro_rules! instructions {
    ($($variant:ident = $name:literal, [$($slot:expr),*], $doc:literal;)*) => {
        /// Every instruction of the manual.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Instr {
            $(#[doc = $doc] $variant,)*
        }

        impl Instr {
            /// Every instruction, in table order.
            pub const ALL: &'static [Instr] = &[$(Instr::$variant),*];

            /// The mnemonic.
            pub fn name(self) -> &'static str {
                match self { $(Instr::$variant => $name,)* }
            }

            /// The argument positions.
            pub fn slots(self) -> &'static [Slot] {
                match self { $(Instr::$variant => &[$($slot),*],)* }
            }

            /// What the instruction does, in one sentence.
            pub fn doc(self) -> &'static str {
                match self { $(Instr::$variant => $doc,)* }
            }
        }
    };
}

instructions! {
    Break = "BREAK", [O, O, O], "Report the values (one `break` line) and carry on.";
    Return = "RETURN", [R(N::Any)], "Return a value from a subroutine.";
    Cond = "COND", [C, T, T], "Call tag1; go to tag2 if the result satisfies the condition.";
    CondV = "CONDV", [C, R(N::Any), T], "Go to the tag if the value satisfies the condition.";
    CondT = "CONDT", [T, R(N::Any), T], "Call tag1 with X; go to tag2 if it returns T.";
    CondF = "CONDF", [T, R(N::Any), T], "Call tag1 with X; go to tag2 if it returns F.";
    JumpLt = "JUMP<", [R(N::Int), R(N::Int), T], "Go to the tag if var1 < var2.";
    JumpEq = "JUMP=", [R(N::Any), R(N::Any), T], "Go to the tag if var1 = var2.";
    JumpGt = "JUMP>", [R(N::Int), R(N::Int), T], "Go to the tag if var1 > var2.";
    JumpNotLt = "JUMP#<", [R(N::Int), R(N::Int), T], "Go to the tag unless var1 < var2.";
    JumpNotEq = "JUMP#=", [R(N::Any), R(N::Any), T], "Go to the tag unless var1 = var2.";
    JumpNotGt = "JUMP#>", [R(N::Int), R(N::Int), T], "Go to the tag unless var1 > var2.";
    Set = "SET", [W, T, R(N::Any)], "Call the tag with X = var2; var1 := the result.";
    SetV = "SETV", [W, R(N::Any)], "var1 := var2.";
    SetSq = "SETSQ", [W, R(N::Int), R(N::Int)], "var1 := the square of rank var2, file var3.";
    SetMov = "SETMOV", [W, R(N::Piece), R(N::Square)], "var1 := the move of piece var2 to square var3.";
    Exch = "EXCH", [U(N::Any), U(N::Any)], "Exchange two variables.";
    Order = "ORDER", [U(N::Any), U(N::Any), Ord], "Exchange two variables if var1 > var2 by the ordering.";
    Play = "PLAY", [R(N::Set), C, Ord], "Play the first move of the set that satisfies the condition.";
    PlayB = "PLAYB", [R(N::Set), C, Ord], "Try the moves and play the best.";
    Try = "TRY", [R(N::Set), C, Ord], "Try the moves; remember the best with its value.";
    Plan = "PLAN", [T, R(N::Set), R(N::Any)], "Set the plan to the tag and try the moves under it.";
    Unplan = "UNPLAN", [], "Drop the plan.";
    Done = "DONE", [], "Return the best move found by TRY and PLAN.";
    RetBet = "RETBET", [R(N::Int), R(N::Int), R(N::Int)], "DONE if the best value beats the given one.";
    ValRet = "VALRET", [R(N::Int), R(N::Int), R(N::Int)], "Return a value (win, lose, certainty).";
    ValRut = "VALRUT", [R(N::Int), R(N::Int), R(N::Int)], "VALRET, but carry on at the top level.";
    ValOn = "VALON", [R(N::Int), R(N::Int), R(N::Int)], "Record a value and carry on.";
    Leave = "LEAVE", [], "Hand back to the main program with no move.";
    Select = "SELECT", [W, T, R(N::Set)], "var1 := the elements for which the subroutine gives T.";
    SelecC = "SELECC", [W, C, R(N::Set)], "var1 := the elements that satisfy the condition.";
    Pair = "PAIR", [W, R(N::Any), R(N::Any)], "var1 := (var2, var3).";
    Map = "MAP", [W, T, R(N::Set)], "var1 := the subroutine's results for the elements.";
    Member = "MEMBER", [W, R(N::Any), R(N::Set)], "var1 := whether var2 is an element of var3.";
    MemNum = "MEMNUM", [W, R(N::Any), R(N::Set)], "var1 := the position of var2 in var3, or 0.";
    Inters = "INTERS", [W, R(N::Set), R(N::Set)], "var1 := var2 intersected with var3.";
    Union = "UNION", [W, R(N::Set), R(N::Set)], "var1 := var2 followed by var3 - var2.";
    Differ = "DIFFER", [W, R(N::Set), R(N::Set)], "var1 := var2 - var3.";
    Append = "APPEND", [W, R(N::Set), R(N::Set)], "var1 := var2 followed by var3.";
    Piece = "PIECE", [W, R(N::Piece)], "var1 := the piece specified by var2.";
    Square = "SQUARE", [W, R(N::Square)], "var1 := the square specified by var2.";
    Side = "SIDE", [W, R(N::Square)], "var1 := 0 on the king side, 1 on the queen side.";
    Rank = "RANK", [W, R(N::Square)], "var1 := the rank from the side to move's back rank.";
    File = "FILE", [W, R(N::Square)], "var1 := the file, a = 1 .. h = 8.";
    SColor = "SCOLOR", [W, R(N::Square)], "var1 := 0 for a light square, 1 for a dark one.";
    PColor = "PCOLOR", [W, R(N::Piece)], "var1 := 0 for the side to move's piece, 1 otherwise.";
    MvDist = "MVDIST", [W, R(N::Square), R(N::Square)], "var1 := the king-move distance.";
    InSq = "INSQ", [W, R(N::Piece), R(N::Piece)], "var1 := whether the king is in the pawn's square.";
    Opp = "OPP", [W, R(N::Square), R(N::Square)], "var1 := whether the squares are in distant opposition.";
    SqGtRnk = "SQ>RNK", [W, R(N::Square), R(N::Int)], "var1 := the square var3 ranks further up.";
    Card = "CARD", [W, R(N::Set)], "var1 := the number of elements.";
    GetEl = "GETEL", [W, R(N::Set), R(N::Int)], "var1 := the var3th element of var2.";
    SetEl = "SETEL", [R(N::Any), U(N::Set), R(N::Int)], "The var3th element of var2 := var1.";
    Insert = "INSERT", [R(N::Any), U(N::Set), R(N::Int)], "Insert var1 before the var3th element of var2.";
    Unsert = "UNSERT", [W, U(N::Set), R(N::Int)], "Remove the var3th element of var2 into var1.";
    ExchWE = "EXCHWE", [U(N::Any), U(N::Set), R(N::Int)], "Exchange var1 and the var3th element of var2.";
    ExchEl = "EXCHEL", [U(N::Set), R(N::Int), R(N::Int)], "Exchange the var2th and var3th elements of var1.";
    Nor = "NOR", [W, R(N::Logical), R(N::Logical)], "var1 := var2 nor var3.";
    Or = "OR", [W, R(N::Logical), R(N::Logical)], "var1 := var2 or var3.";
    And = "AND", [W, R(N::Logical), R(N::Logical)], "var1 := var2 and var3.";
    Add = "ADD", [W, R(N::Int), R(N::Int)], "var1 := var2 + var3.";
    Sub = "SUB", [W, R(N::Int), R(N::Int)], "var1 := var2 - var3.";
    Mul = "MUL", [W, R(N::Int), R(N::Int)], "var1 := var2 * var3.";
    Div = "DIV", [W, R(N::Int), R(N::Int)], "var1 := var2 / var3, truncated toward zero.";
    Mod = "MOD", [W, R(N::Int), R(N::Int)], "var1 := the remainder of var2 / var3.";
    Dif = "DIF", [W, R(N::Int), R(N::Int)], "var1 := |var2 - var3|.";
    Min = "MIN", [W, R(N::Int), R(N::Int)], "var1 := the smaller of var2 and var3.";
    Max = "MAX", [W, R(N::Int), R(N::Int)], "var1 := the larger of var2 and var3.";
    Abs = "ABS", [W, R(N::Int)], "var1 := |var2|.";
}

impl Instr {
    /// Looks an instruction up by its mnemonic.
    pub fn by_name(name: &str) -> Option<Instr> {
        Instr::ALL.iter().copied().find(|i| i.name() == name)
    }

    /// The number of its position in [`Instr::ALL`] (the runtime's service
    /// numbers are derived from it).
    pub fn index(self) -> usize {
        Instr::ALL.iter().position(|&i| i == self).unwrap_or(0)
    }
}

macro_rules! conditions {
    ($($variant:ident = $name:literal, $need:expr, $doc:literal;)*) => {
        /// Every condition (the empty one is [`Cond::Always`]).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Cond {
            $(#[doc = $doc] $variant,)*
        }

        impl Cond {
            /// Every condition in table order.
            pub const ALL: &'static [Cond] = &[$(Cond::$variant),*];

            /// The name (empty for "always").
            pub fn name(self) -> &'static str {
                match self { $(Cond::$variant => $name,)* }
            }

            /// The kind of value it tests.
            pub fn need(self) -> Need {
                match self { $(Cond::$variant => $need,)* }
            }

            /// What the condition tests, in one sentence.
            pub fn doc(self) -> &'static str {
                match self { $(Cond::$variant => $doc,)* }
            }
        }
    };
}

conditions! {
    Always = "", N::Any, "Always true.";
    Defd = "DEFD", N::Any, "The value is defined.";
    Zero = "=0", N::Int, "The integer is 0.";
    Negative = "<0", N::Int, "The integer is below 0.";
    Positive = ">0", N::Int, "The integer is above 0.";
    Odd = "ODD", N::Int, "The integer is odd.";
    True = "T", N::Logical, "The logical is T.";
    Empty = "EMPTY", N::Set, "The set is empty.";
    Far = "FAR", N::Square, "The square is on the other side of the board from SIDE.";
    Rf = "RF", N::Square, "The square is on a rook file.";
    Nf = "NF", N::Square, "The square is on a knight file.";
    Nnf = "NNF", N::Square, "A knight file on the same side of the board as SIDE.";
    Safe = "SAFE", N::Move, "After the move WK reaches WP no later than BK does.";
    King = "KING", N::Piece, "The piece is a king.";
    Pawn = "PAWN", N::Piece, "The piece is a pawn.";
    Queen = "QUEEN", N::Piece, "The piece is a queen.";
    Rook = "ROOK", N::Piece, "The piece is a rook.";
    Night = "NIGHT", N::Piece, "The piece is a knight.";
    Bish = "BISH", N::Piece, "The piece is a bishop.";
    Passd = "PASSD", N::Piece, "The pawn is passed.";
    Pdp = "PDP", N::Piece, "The pawn is defended by a pawn.";
    Wsq = "WSQ", N::Square, "The square is light.";
    Wpc = "WPC", N::Piece, "The piece belongs to the side to move.";
    Capt = "CAPT", N::Move, "The move captures.";
    Check = "CHECK", N::Move, "The move gives check (in the original source, not in the manual).";
    Opp = "OPP", N::Move, "After the move WK stands in distant opposition to BK.";
    RwkEq = "RWK=", N::Move, "The move keeps WK on its rank.";
}

impl Cond {
    /// Looks a condition up by name.
    pub fn by_name(name: &str) -> Option<Cond> {
        Cond::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Its number in [`Cond::ALL`].
    pub fn index(self) -> usize {
        Cond::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }

    /// The condition with that number.
    pub fn from_index(i: usize) -> Option<Cond> {
        Cond::ALL.get(i).copied()
    }
}

/// The orderings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// No ordering: the set's own order.
    None,
    /// Moves to higher ranks (from the side to move) first.
    Deep,
}

impl Order {
    /// Looks an ordering up by name (`""` is none).
    pub fn by_name(name: &str) -> Option<Order> {
        match name {
            "" => Some(Order::None),
            "DEEP" => Some(Order::Deep),
            _ => None,
        }
    }
}

/// The predefined read-only variables.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Predefined {
    /// The subroutine argument (a frame slot, never a runtime service).
    X,
    /// The search depth in plies.
    Depth,
    /// The legal moves.
    Lm,
    /// The pawn groups.
    Pg,
    /// A piece variable: side (0 = side to move, 1 = other), slot 0..16
    /// in the order K Q R R2 B B2 N N2 P P2 .. P8.
    Piece(u8, u8),
}

/// The names of the 16 piece variables of one side, after the colour
/// letter.
pub const PIECE_SLOTS: [&str; 16] = [
    "K", "Q", "R", "R2", "B", "B2", "N", "N2", "P", "P2", "P3", "P4", "P5", "P6", "P7", "P8",
];

impl Predefined {
    /// Looks a predefined variable up by name.
    pub fn by_name(name: &str) -> Option<Predefined> {
        match name {
            "X" => return Some(Predefined::X),
            "DEPTH" => return Some(Predefined::Depth),
            "LM" => return Some(Predefined::Lm),
            "PG" => return Some(Predefined::Pg),
            _ => {}
        }
        let side = match name.as_bytes().first() {
            Some(b'W') => 0,
            Some(b'B') => 1,
            _ => return None,
        };
        let rest = name.get(1..)?;
        PIECE_SLOTS
            .iter()
            .position(|&s| s == rest)
            .map(|slot| Predefined::Piece(side, slot as u8))
    }

    /// The number the runtime knows it by.
    pub fn code(self) -> i32 {
        match self {
            Predefined::X => 0,
            Predefined::Depth => 1,
            Predefined::Lm => 2,
            Predefined::Pg => 3,
            Predefined::Piece(side, slot) => 16 + i32::from(side) * 16 + i32::from(slot),
        }
    }

    /// The variable with that number.
    pub fn from_code(code: i32) -> Option<Predefined> {
        match code {
            0 => Some(Predefined::X),
            1 => Some(Predefined::Depth),
            2 => Some(Predefined::Lm),
            3 => Some(Predefined::Pg),
            16..=47 => Some(Predefined::Piece(
                ((code - 16) / 16) as u8,
                ((code - 16) % 16) as u8,
            )),
            _ => None,
        }
    }

    /// Its kind, where it is fixed.
    pub fn known(self) -> Option<Known> {
        match self {
            Predefined::X => None,
            Predefined::Depth => Some(Known::Int),
            Predefined::Lm | Predefined::Pg => Some(Known::Set),
            Predefined::Piece(..) => Some(Known::Piece),
        }
    }
}

/// The piece letters an ENTRY line accepts, besides the king: the manual's
/// list K, N, B, R, 2N, BN, 2B, B2N, 2BN, BR, RN, RB, 2R, R2N, RBN, R2B, Q,
/// QN, QB, as (queens, rooks, bishops, knights).
pub const ENTRY_PIECES: &[(&str, [u8; 4])] = &[
    ("K", [0, 0, 0, 0]),
    ("N", [0, 0, 0, 1]),
    ("B", [0, 0, 1, 0]),
    ("R", [0, 1, 0, 0]),
    ("2N", [0, 0, 0, 2]),
    ("BN", [0, 0, 1, 1]),
    ("2B", [0, 0, 2, 0]),
    ("B2N", [0, 0, 1, 2]),
    ("2BN", [0, 0, 2, 1]),
    ("BR", [0, 1, 1, 0]),
    ("RN", [0, 1, 0, 1]),
    ("RB", [0, 1, 1, 0]),
    ("2R", [0, 2, 0, 0]),
    ("R2N", [0, 1, 0, 2]),
    ("RBN", [0, 1, 1, 1]),
    ("R2B", [0, 1, 2, 0]),
    ("Q", [1, 0, 0, 0]),
    ("QN", [1, 0, 0, 1]),
    ("QB", [1, 0, 1, 0]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &i in Instr::ALL {
            assert_eq!(Instr::by_name(i.name()), Some(i));
        }
        for &c in Cond::ALL {
            assert_eq!(Cond::by_name(c.name()), Some(c));
            assert_eq!(Cond::from_index(c.index()), Some(c));
        }
        for code in [0, 1, 2, 3, 16, 31, 32, 47] {
            let p = Predefined::from_code(code).expect("a code");
            assert_eq!(p.code(), code);
        }
        assert_eq!(Predefined::by_name("BP8"), Some(Predefined::Piece(1, 15)));
        assert_eq!(Predefined::by_name("WR2"), Some(Predefined::Piece(0, 3)));
        assert_eq!(Predefined::by_name("WP1"), None);
        // The manual lists 69 instructions (the six JUMPs counted one by one).
        assert_eq!(Instr::ALL.len(), 69);
    }
}
