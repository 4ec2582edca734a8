//! Bitboard chess for the Che project: positions, legal move generation, notation and perft.
//!
//! The crate is the chess half of Che: the engine (`che-engine`) searches with it, the engine's
//! CVM host fills its board view from it, and the command-line tools read and print positions and
//! moves through it. It depends on nothing outside std. It is organised as one small module per
//! job, read bottom-up:
//!
//! * [`square`], [`colour`], [`piece`], [`bitboard`], [`castling`]: the vocabulary. Squares are
//!   numbered a1 = 0 ... h8 = 63, colours White = 0, Black = 1, kinds Pawn = 0 ... King = 5.
//! * [`attacks`]: attack sets of every piece; sliders by magic bitboards generated in `build.rs`.
//! * [`zobrist`]: the hash keys.
//! * [`position`]: the [`Position`] with O(1) accessors for the CVM board view and the game-state
//!   rules (check, mate, stalemate, insufficient material, fifty moves); [`make`] plays moves on it.
//! * [`chess_move`], [`movelist`], [`movegen`]: the [`Move`] type and legal move generation.
//! * [`fen`], [`epd`], [`san`], [`uci_move`]: reading and writing positions and moves.
//! * [`game`]: a position with its history, for threefold repetition and the game's outcome.
//! * [`perft`](mod@perft): move-path enumeration, the standard correctness test and speed benchmark.
//!
//! ```
//! use chess_core::{perft, Position};
//!
//! let pos = Position::startpos();
//! assert_eq!(perft(&pos, 3), 8_902);
//! ```

pub mod attacks;
pub mod bitboard;
pub mod castling;
pub mod chess_move;
pub mod colour;
pub mod epd;
pub mod fen;
pub mod game;
pub mod make;
pub mod movegen;
pub mod movelist;
pub mod perft;
pub mod piece;
pub mod polyglot;
pub mod position;
pub mod san;
pub mod square;
pub mod uci_move;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use castling::{CastlingRights, CastlingSide};
pub use chess_move::{Move, MoveKind};
pub use colour::Colour;
pub use epd::{Epd, EpdError, EpdOperation};
pub use fen::{FenError, FenField, FenProblem, STARTPOS_FEN};
pub use game::{Game, Outcome};
pub use movegen::{count_legal_moves, legal_moves, legal_moves_into};
pub use movelist::MoveList;
pub use perft::{divide, perft, perft_until, DepthError, PerftCount, MAX_PERFT_DEPTH};
pub use piece::{Piece, PieceKind};
pub use polyglot::polyglot_key;
pub use position::Position;
pub use san::SanError;
pub use square::{File, Rank, Square};
pub use uci_move::UciMoveError;
