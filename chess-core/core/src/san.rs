//! Standard Algebraic Notation (SAN): `Nf3`, `exd5`, `Raxd1`, `e8=Q+`, `O-O-O#`.
//!
//! SAN is what people read and what PGN stores. Writing follows the FIDE rules exactly as
//! python-chess does (the reference the tests compare against): the piece letter, the least
//! disambiguation that makes the move unique (file, else rank, else both), `x` for captures,
//! `=` and the piece for promotions, `+` for check and `#` for mate. Reading is lenient in the same
//! places python-chess is: check and mate marks and `!`/`?` annotations are ignored, `x` and `-`
//! are optional, `0-0` is accepted for `O-O`, the `=` of a promotion may be left out, and more
//! disambiguation than needed is allowed. What is read must still name exactly one legal move.

use crate::castling::CastlingSide;
use crate::chess_move::Move;
use crate::piece::PieceKind;
use crate::position::Position;
use crate::square::{File, Rank, Square};
use std::error::Error;
use std::fmt;

/// Why a SAN string was rejected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SanError {
    /// The text is not SAN.
    Syntax(String),
    /// No legal move matches.
    Illegal(String),
    /// More than one legal move matches.
    Ambiguous(String),
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax(text) => write!(
                f,
                "`{text}` is not a move in SAN (such as e4, Nf3, exd5, Raxd1, e8=Q or O-O)"
            ),
            SanError::Illegal(text) => write!(f, "`{text}` is not a legal move in this position"),
            SanError::Ambiguous(text) => write!(
                f,
                "`{text}` is ambiguous in this position; add the origin file or rank"
            ),
        }
    }
}

impl Error for SanError {}

/// A parsed SAN pattern, before it is matched against the legal moves.
struct Pattern {
    /// The moving piece's kind; `None` when the origin square alone identifies it.
    kind: Option<PieceKind>,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    to: Square,
    promotion: Option<PieceKind>,
}

/// Parses the non-castling SAN forms into a pattern.
fn parse_pattern(text: &str) -> Option<Pattern> {
    let chars: Vec<char> = text.chars().collect();
    let mut end = chars.len();
    let mut promotion = None;
    if end >= 3 {
        let last = chars[end - 1];
        if let Some(kind) = PieceKind::from_char(last).filter(|&k| k != PieceKind::Pawn) {
            // A king "promotion" is well formed (python-chess reads it too) but never legal.
            promotion = Some(kind);
            end -= 1;
            if chars[end - 1] == '=' {
                end -= 1;
            }
        }
    }
    if end < 2 {
        return None;
    }
    let to = Square::new(
        File::from_char(chars[end - 2])?,
        Rank::from_char(chars[end - 1])?,
    );
    let mut prefix = &chars[..end - 2];
    if let Some((&last, rest)) = prefix.split_last() {
        if last == 'x' || last == '-' {
            prefix = rest;
        }
    }
    let mut kind = PieceKind::Pawn;
    let mut lettered = false;
    if let Some((&first, rest)) = prefix.split_first() {
        if matches!(first, 'N' | 'B' | 'R' | 'Q' | 'K') {
            lettered = true;
            kind = PieceKind::from_char(first)?;
            prefix = rest;
        }
    }
    let mut from_file = None;
    let mut from_rank = None;
    match prefix {
        [] => {}
        [c] => match (File::from_char(*c), Rank::from_char(*c)) {
            (Some(f), _) => from_file = Some(f),
            (_, Some(r)) => from_rank = Some(r),
            _ => return None,
        },
        [f, r] => {
            from_file = Some(File::from_char(*f)?);
            from_rank = Some(Rank::from_char(*r)?);
        }
        _ => return None,
    }
    Some(Pattern {
        kind: if !lettered && from_file.is_some() && from_rank.is_some() {
            // A fully specified origin (long algebraic, `g1f3`) may name any piece.
            None
        } else {
            Some(kind)
        },
        from_file,
        from_rank,
        to,
        promotion,
    })
}

impl Position {
    /// Reads a move in SAN and checks that it names exactly one legal move.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let core = text.trim_end_matches(['+', '#', '!', '?']);
        if core.is_empty() {
            return Err(SanError::Syntax(text.to_owned()));
        }
        let castling = match core {
            "O-O" | "0-0" => Some(CastlingSide::KingSide),
            "O-O-O" | "0-0-0" => Some(CastlingSide::QueenSide),
            _ => None,
        };
        let legal = self.legal_moves();
        let mut found: Option<Move> = None;
        let mut count = 0;
        if let Some(side) = castling {
            for &mv in legal.iter() {
                if mv.is_castle() && CastlingSide::of_king_move(mv.from(), mv.to()) == side {
                    found = Some(mv);
                    count += 1;
                }
            }
        } else {
            let pattern = parse_pattern(core).ok_or_else(|| SanError::Syntax(text.to_owned()))?;
            for &mv in legal.iter() {
                let from = mv.from();
                let kind = self.kind_on(from);
                let kind_ok = match pattern.kind {
                    // Castling is only written O-O / O-O-O, or as a fully specified origin.
                    Some(k) => kind == Some(k) && !mv.is_castle(),
                    None => true,
                };
                // A pawn move without an origin file is a push: `d5` never means `exd5`.
                let pawn_ok = pattern.kind != Some(PieceKind::Pawn)
                    || pattern.from_file.is_some()
                    || from.file() == pattern.to.file();
                let matches = mv.to() == pattern.to
                    && kind_ok
                    && pawn_ok
                    && pattern.from_file.is_none_or(|f| from.file() == f)
                    && pattern.from_rank.is_none_or(|r| from.rank() == r)
                    && mv.promotion_kind() == pattern.promotion;
                if matches {
                    found = Some(mv);
                    count += 1;
                }
            }
        }
        match (found, count) {
            (Some(mv), 1) => Ok(mv),
            (None, _) => Err(SanError::Illegal(text.to_owned())),
            _ => Err(SanError::Ambiguous(text.to_owned())),
        }
    }

    /// Writes a legal move in SAN, with `+` or `#` when it gives check or mate.
    pub fn san(&self, mv: Move) -> String {
        let mut out = self.san_without_suffix(mv);
        let after = self.after(mv);
        if after.is_check() {
            out.push(if after.has_legal_move() { '+' } else { '#' });
        }
        out
    }

    /// SAN without the check or mate mark.
    fn san_without_suffix(&self, mv: Move) -> String {
        if mv.is_castle() {
            return match CastlingSide::of_king_move(mv.from(), mv.to()) {
                CastlingSide::KingSide => "O-O".to_owned(),
                CastlingSide::QueenSide => "O-O-O".to_owned(),
            };
        }
        let from = mv.from();
        let to = mv.to();
        let kind = self.kind_on(from).unwrap_or(PieceKind::Pawn);
        let capture = self.occupied().contains(to) || mv.is_en_passant();
        let mut out = String::with_capacity(8);
        if kind == PieceKind::Pawn {
            if capture {
                out.push(from.file().to_char());
                out.push('x');
            }
            out.push_str(&to.to_string());
            if let Some(promotion) = mv.promotion_kind() {
                out.push('=');
                out.push(promotion.to_upper_char());
            }
            return out;
        }
        out.push(kind.to_upper_char());
        // Other pieces of the same kind that could also go to `to`.
        let rivals: Vec<Square> = self
            .legal_moves()
            .iter()
            .filter(|m| m.to() == to && m.from() != from && self.kind_on(m.from()) == Some(kind))
            .map(|m| m.from())
            .collect();
        if !rivals.is_empty() {
            let file_shared = rivals.iter().any(|s| s.file() == from.file());
            let rank_shared = rivals.iter().any(|s| s.rank() == from.rank());
            if !file_shared {
                out.push(from.file().to_char());
            } else if !rank_shared {
                out.push(from.rank().to_char());
            } else {
                out.push(from.file().to_char());
                out.push(from.rank().to_char());
            }
        }
        if capture {
            out.push('x');
        }
        out.push_str(&to.to_string());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_moves() {
        let pos = Position::startpos();
        let nf3 = pos.parse_san("Nf3").expect("legal");
        assert_eq!(nf3.to_string(), "g1f3");
        assert_eq!(pos.san(nf3), "Nf3");
        assert_eq!(
            pos.parse_san("e4").map(|m| m.to_string()),
            Ok("e2e4".to_owned())
        );
        assert_eq!(
            pos.parse_san("Nd2"),
            Err(SanError::Illegal("Nd2".to_owned()))
        );
        assert_eq!(pos.parse_san("N"), Err(SanError::Syntax("N".to_owned())));
        assert_eq!(pos.parse_san(""), Err(SanError::Syntax(String::new())));
        assert_eq!(pos.parse_san("+"), Err(SanError::Syntax("+".to_owned())));
    }

    #[test]
    fn ambiguity_is_reported() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1").expect("valid");
        assert_eq!(
            pos.parse_san("Rd1"),
            Err(SanError::Ambiguous("Rd1".to_owned()))
        );
        let rad1 = pos.parse_san("Rad1").expect("legal");
        assert_eq!(pos.san(rad1), "Rad1");
    }
}
