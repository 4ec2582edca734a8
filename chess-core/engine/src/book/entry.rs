//! One Polyglot book entry and the Polyglot move encoding.
//!
//! An entry is 16 bytes, big-endian: the position's key (8 bytes, [`chess_core::polyglot_key`]),
//! the move (2), its weight (2) and a learning field (4) that the engine ignores. The move packs
//! the destination file in bits 0-2, its rank in 3-5, the origin file in 6-8, its rank in 9-11 and
//! the promotion piece in 12-14 (0 none, 1 knight, 2 bishop, 3 rook, 4 queen). Castling is written
//! as the king taking its own rook: `e1h1`, `e1a1`, `e8h8`, `e8a8`.

use chess_core::castling::CastlingSide;
use chess_core::chess_move::{Move, MoveKind};
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use chess_core::square::Square;

/// The size of one entry in a `.bin` file.
pub const ENTRY_BYTES: usize = 16;

/// One book entry: a move recommended in the position with key `key`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The Polyglot key of the position.
    pub key: u64,
    /// The move, Polyglot-encoded ([`encode_move`]).
    pub raw_move: u16,
    /// How often the move should be chosen, relative to the position's other entries.
    pub weight: u16,
    /// Polyglot's learning field (kept, not used).
    pub learn: u32,
}

impl Entry {
    /// Reads an entry from its 16 bytes.
    pub fn from_bytes(bytes: &[u8; ENTRY_BYTES]) -> Entry {
        let mut key = [0; 8];
        key.copy_from_slice(&bytes[0..8]);
        Entry {
            key: u64::from_be_bytes(key),
            raw_move: u16::from_be_bytes([bytes[8], bytes[9]]),
            weight: u16::from_be_bytes([bytes[10], bytes[11]]),
            learn: u32::from_be_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]),
        }
    }

    /// The entry's 16 bytes.
    pub fn to_bytes(&self) -> [u8; ENTRY_BYTES] {
        let mut bytes = [0; ENTRY_BYTES];
        bytes[0..8].copy_from_slice(&self.key.to_be_bytes());
        bytes[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        bytes[10..12].copy_from_slice(&self.weight.to_be_bytes());
        bytes[12..16].copy_from_slice(&self.learn.to_be_bytes());
        bytes
    }
}

fn square_bits(sq: Square) -> u16 {
    let i = sq.index() as u16;
    ((i / 8) << 3) | (i % 8)
}

/// The Polyglot encoding of `mv`.
pub fn encode_move(mv: Move) -> u16 {
    let to = match mv.kind() {
        MoveKind::Castle(side) => {
            let rank = mv.from().index() / 8;
            let file = match side {
                CastlingSide::KingSide => 7,
                CastlingSide::QueenSide => 0,
            };
            Square::from_index_masked((rank * 8 + file) as u8)
        }
        _ => mv.to(),
    };
    let promotion = match mv.promotion_kind() {
        Some(PieceKind::Knight) => 1,
        Some(PieceKind::Bishop) => 2,
        Some(PieceKind::Rook) => 3,
        Some(PieceKind::Queen) => 4,
        _ => 0,
    };
    square_bits(to) | (square_bits(mv.from()) << 6) | (promotion << 12)
}

/// The legal move of `pos` that `raw` encodes, if any (an entry whose move is not legal in the
/// position, as after a key collision, gives `None`).
pub fn decode_move(pos: &Position, raw: u16) -> Option<Move> {
    let raw = raw & 0x7FFF;
    pos.legal_moves()
        .iter()
        .copied()
        .find(|&m| encode_move(m) == raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_round_trip_and_castling_is_king_takes_rook() {
        let pos =
            Position::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("a legal FEN");
        for &m in pos.legal_moves().iter() {
            assert_eq!(decode_move(&pos, encode_move(m)), Some(m));
        }
        let o_o = pos.parse_san("O-O").expect("castling");
        // e1h1: from e1 (file 4, rank 0) to h1 (file 7, rank 0).
        assert_eq!(encode_move(o_o), (4 << 6) | 7);
        let o_o_o = pos.parse_san("O-O-O").expect("castling");
        assert_eq!(encode_move(o_o_o), 4 << 6);
        let promote = pos.parse_uci("b7a8n").expect("a promotion");
        // b7 = file 1, rank 6; a8 = file 0, rank 7; knight = 1.
        assert_eq!(
            encode_move(promote),
            (1 << 12) | (((6 << 3) | 1) << 6) | (7 << 3)
        );
        let entry = Entry {
            key: 0x0123_4567_89AB_CDEF,
            raw_move: 0x1234,
            weight: 0xBEEF,
            learn: 7,
        };
        assert_eq!(Entry::from_bytes(&entry.to_bytes()), entry);
        assert_eq!(entry.to_bytes()[0], 0x01);
    }
}
