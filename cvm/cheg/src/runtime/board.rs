//! The chess side of the runtime: the position of the run seen from the
//! side to move ("white" in the manual), and the chess instructions and
//! conditions over it.
//!
//! The board is seen from the side to move, as if it sat on White's side:
//! ranks count from its back rank (1..8) and files from its left, a = 1
//! .. h = 8 with White to move and h = 1 .. a = 8 with Black to move; SIDE
//! is 0 for that side's files 5-8 and 1 for 1-4. Square colours are
//! physical (a1 is dark), and values print in real coordinates.

use crate::runtime::ops::type_error;
use crate::value::{MoveVal, PieceVal, Value};
use chess_core::{Colour, Move, PieceKind, Position, Square};
use cvm::TrapKind;

/// The position of a run and what is derived from it once.
#[derive(Clone, Debug)]
pub struct Board {
    /// The position.
    pub position: Position,
    /// The side to move.
    pub us: Colour,
    legal: Vec<Move>,
}

fn err(message: impl Into<String>) -> TrapKind {
    TrapKind::Intrinsic(message.into())
}

impl Board {
    /// The board of `position`.
    pub fn new(position: Position) -> Board {
        let mut legal: Vec<Move> = position.legal_moves().as_slice().to_vec();
        legal.sort_by_key(|m| {
            (
                m.from().index(),
                m.to().index(),
                promo_rank(m.promotion_kind()),
            )
        });
        Board {
            us: position.side_to_move(),
            position,
            legal,
        }
    }

    /// The legal moves, ordered by from-square, then to-square (a1, b1,
    /// .., h8), then promotion piece (Q, R, B, N).
    pub fn legal_moves(&self) -> &[Move] {
        &self.legal
    }

    /// The rank of `sq` counted from `colour`'s back rank, 1..8.
    pub fn rank_for(colour: Colour, sq: Square) -> i64 {
        let r = sq.rank().index() as i64;
        if colour == Colour::White {
            r + 1
        } else {
            8 - r
        }
    }

    /// The rank of `sq` from the side to move.
    pub fn rank(&self, sq: Square) -> i64 {
        Board::rank_for(self.us, sq)
    }

    /// The file of `sq` from the side to move's left: a = 1 .. h = 8 with
    /// White to move, h = 1 .. a = 8 with Black to move.
    pub fn file(&self, sq: Square) -> i64 {
        let f = sq.file().index() as i64;
        if self.us == Colour::White {
            f + 1
        } else {
            8 - f
        }
    }

    /// 0 for the files 5-8 from the side to move (e-h with White to move),
    /// 1 for the files 1-4.
    pub fn side(&self, sq: Square) -> i64 {
        if self.file(sq) >= 5 {
            0
        } else {
            1
        }
    }

    /// True for a light square.
    pub fn light(sq: Square) -> bool {
        (sq.file().index() + sq.rank().index()) % 2 == 1
    }

    /// The king-move distance.
    pub fn distance(a: Square, b: Square) -> i64 {
        let df = (a.file().index() as i64 - b.file().index() as i64).abs();
        let dr = (a.rank().index() as i64 - b.rank().index() as i64).abs();
        df.max(dr)
    }

    /// Distant opposition as the original tests it: an even number of
    /// files and an even number of ranks apart.
    pub fn opposition(a: Square, b: Square) -> bool {
        let df = a.file().index() as i64 - b.file().index() as i64;
        let dr = a.rank().index() as i64 - b.rank().index() as i64;
        df % 2 == 0 && dr % 2 == 0
    }

    /// The piece on `sq`, if any.
    pub fn piece_on(&self, sq: Square) -> Option<PieceVal> {
        self.position.piece_on(sq).map(|p| PieceVal {
            colour: p.colour,
            kind: p.kind,
            square: sq,
        })
    }

    /// The square a value specifies: a square, a piece's square, a move's
    /// destination.
    pub fn square_of(what: &str, v: &Value) -> Result<Square, TrapKind> {
        match v {
            Value::Square(s) => Ok(*s),
            Value::Piece(p) => Ok(p.square),
            Value::Move(m) => Ok(m.to),
            other => Err(type_error(what, "a square (or a piece or move)", other)),
        }
    }

    /// The piece a value specifies: a piece, the piece on a square, the
    /// piece a move moves.
    pub fn piece_of(&self, what: &str, v: &Value) -> Result<PieceVal, TrapKind> {
        let sq = match v {
            Value::Piece(p) => return Ok(*p),
            Value::Square(s) => *s,
            Value::Move(m) => m.from,
            other => return Err(type_error(what, "a piece (or a square or move)", other)),
        };
        self.piece_on(sq)
            .ok_or_else(|| err(format!("{what}: there is no piece on {sq}")))
    }

    /// The move in a value.
    pub fn move_of(what: &str, v: &Value) -> Result<MoveVal, TrapKind> {
        match v {
            Value::Move(m) => Ok(*m),
            other => Err(type_error(what, "a move", other)),
        }
    }

    /// The value of a legal move.
    pub fn move_value(m: Move) -> Value {
        Value::Move(MoveVal {
            from: m.from(),
            to: m.to(),
            promotion: m.promotion_kind(),
        })
    }

    /// The legal move a move value names, if it is legal here.
    pub fn legal(&self, m: &MoveVal) -> Option<Move> {
        self.legal
            .iter()
            .copied()
            .find(|l| l.from() == m.from && l.to() == m.to && l.promotion_kind() == m.promotion)
    }

    /// The piece variables: `[side][slot]` with side 0 the side to move
    /// and slots K Q R R2 B B2 N N2 P .. P8, each kind's pieces taken in
    /// square order a1, b1, .., h8.
    pub fn piece_variables(&self) -> [[Option<PieceVal>; 16]; 2] {
        let mut out = [[None; 16]; 2];
        for (side, colour) in [self.us, !self.us].into_iter().enumerate() {
            let slots: [(PieceKind, usize, usize); 6] = [
                (PieceKind::King, 0, 1),
                (PieceKind::Queen, 1, 1),
                (PieceKind::Rook, 2, 2),
                (PieceKind::Bishop, 4, 2),
                (PieceKind::Knight, 6, 2),
                (PieceKind::Pawn, 8, 8),
            ];
            for (kind, first, count) in slots {
                let bb = self.position.pieces(colour, kind);
                for (k, sq) in bb.into_iter().take(count).enumerate() {
                    out[side][first + k] = Some(PieceVal {
                        colour,
                        kind,
                        square: sq,
                    });
                }
            }
        }
        out
    }

    /// The pawn groups: the pawns of both sides, file by file from a to h
    /// (on a file from rank 1 up), split where a file has no pawn.
    pub fn pawn_groups(&self) -> Vec<Vec<PieceVal>> {
        let mut groups = Vec::new();
        let mut current: Vec<PieceVal> = Vec::new();
        for file in 0..8u8 {
            let mut on_file = Vec::new();
            for rank in 0..8u8 {
                if let Some(sq) = Square::from_index(rank * 8 + file) {
                    if let Some(p) = self.piece_on(sq).filter(|p| p.kind == PieceKind::Pawn) {
                        on_file.push(p);
                    }
                }
            }
            if on_file.is_empty() {
                if !current.is_empty() {
                    groups.push(std::mem::take(&mut current));
                }
            } else {
                current.extend(on_file);
            }
        }
        if !current.is_empty() {
            groups.push(current);
        }
        groups
    }

    /// A pawn with no enemy pawn ahead of it on its own or a neighbouring
    /// file.
    pub fn passed(&self, p: &PieceVal) -> bool {
        let enemy = self.position.pieces(!p.colour, PieceKind::Pawn);
        let my_rank = Board::rank_for(p.colour, p.square);
        let file = p.square.file().index() as i64;
        !enemy.into_iter().any(|e| {
            let ef = e.file().index() as i64;
            (ef - file).abs() <= 1 && Board::rank_for(p.colour, e) > my_rank
        })
    }

    /// A pawn that a pawn of its own side defends.
    pub fn pawn_defended(&self, p: &PieceVal) -> bool {
        let forward: i8 = if p.colour == Colour::White { 1 } else { -1 };
        [-1i8, 1].into_iter().any(|df| {
            p.square
                .offset(df, -forward)
                .and_then(|s| self.piece_on(s))
                .is_some_and(|d| d.colour == p.colour && d.kind == PieceKind::Pawn)
        })
    }

    /// Whether the move captures: its destination is occupied, or it is a
    /// pawn's move to the en-passant square.
    pub fn captures(&self, m: &MoveVal) -> bool {
        if self.position.piece_on(m.to).is_some() {
            return true;
        }
        let pawn = self
            .piece_on(m.from)
            .is_some_and(|p| p.kind == PieceKind::Pawn);
        pawn && self.position.en_passant() == Some(m.to) && m.from.file() != m.to.file()
    }

    /// Whether the (legal) move gives check; false for a move that is not
    /// legal here.
    pub fn gives_check(&self, m: &MoveVal) -> bool {
        self.legal(m).is_some_and(|l| self.position.gives_check(l))
    }

    /// INSQ: whether `king` is in the square of `pawn`, by the original's
    /// rule: with T = 9 - the king's rank and P = 9 - the pawn's rank, both
    /// counted from the pawn's side (P = 6 for a pawn on its second rank,
    /// which can move two squares, and P + 1 when the king is the pawn's
    /// enemy and its side is to move), the king is in the square iff
    /// T <= P and the files differ by less than P.
    pub fn in_square(&self, king: &PieceVal, pawn: &PieceVal) -> bool {
        let t = 9 - Board::rank_for(pawn.colour, king.square);
        let mut p = 9 - Board::rank_for(pawn.colour, pawn.square);
        if p == 7 {
            p = 6;
        }
        if king.colour != pawn.colour && king.colour == self.us {
            p += 1;
        }
        let files = (self.file(king.square) - self.file(pawn.square)).abs();
        t <= p && files < p
    }

    /// SETSQ: the square of rank `rank` and file `file`, both counted
    /// from the side to move.
    pub fn square_at(&self, rank: i64, file: i64) -> Option<Square> {
        if !(1..=8).contains(&rank) || !(1..=8).contains(&file) {
            return None;
        }
        let (real_rank, real_file) = if self.us == Colour::White {
            (rank - 1, file - 1)
        } else {
            (8 - rank, 8 - file)
        };
        Square::from_index((real_rank * 8 + real_file) as u8)
    }
}

fn promo_rank(kind: Option<PieceKind>) -> u8 {
    match kind {
        None => 0,
        Some(PieceKind::Queen) => 1,
        Some(PieceKind::Rook) => 2,
        Some(PieceKind::Bishop) => 3,
        Some(_) => 4,
    }
}
