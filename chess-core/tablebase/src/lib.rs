//! Endgame tables for KQK, KRK, KBNK and KPK by retrograde analysis: an independent reference
//! for testing the engine, and a perfect defender to play against.
//!
//! ```
//! use che_tablebase::{Material, Outcome, Table};
//! use chess_core::Position;
//!
//! let table = Table::generate(Material::Krk);
//! let pos = Position::from_fen("8/8/8/8/8/2k5/1R6/K7 w - - 0 1")?;
//! assert_eq!(table.probe(&pos), Some(Outcome::Win { plies: 31 })); // mate in 16 moves
//! let best = table.best_move(&pos).expect("a legal move"); // the fastest mate
//! assert_eq!(table.probe(&pos.after(best)), Some(Outcome::Loss { plies: 30 }));
//! # Ok::<(), chess_core::FenError>(())
//! ```
//!
//! # What a table holds
//!
//! For every legal position of its ending, with either side to move and the strong side playing
//! either colour, the [`Outcome`] for the side to move: a win or a loss with the exact **distance
//! to mate in plies** (DTM) under perfect play, or a draw. KPK is solved to mate as well: a
//! promotion to a queen or rook continues in the KQK or KRK table (a KPK table carries both), a
//! promotion to a bishop or knight and any capture of the last man are draws by insufficient
//! material. The fifty-move rule is not modelled; in these endings the longest mates are far
//! shorter than fifty moves, and in KPK pawn moves reset the counter.
//!
//! [`Table::best_move`] plays the DTM-optimal move: the winner mates as fast as possible, the
//! loser delays mate as long as possible, and in a draw a move that keeps the draw; ties go to the
//! first move in `chess-core`'s move order. So a winner's best move shortens the distance by one
//! ply, and so does a loser's best move (never by more).
//!
//! # How it is built
//!
//! * `layout`: positions are indexed with the strong side as White. Pawnless endings use
//!   the board's eight symmetries (strong king in the a1-d1-d4 triangle, ties on the diagonal
//!   broken by the other men), KPK the left-right mirror (pawn on files a-d): 81,920 entries for
//!   KQK and KRK, 5,242,880 for KBNK, 196,608 for KPK, one byte each.
//! * `moves`: moves and un-moves on the generator's own small position type, using
//!   `chess-core`'s attack tables only (not its move generator, which the tests use to check the
//!   tables independently).
//! * `generate`: retrograde analysis from the mates, one round per ply.
//! * [`Table`], [`Tablebase`]: probing real [`chess_core::Position`]s (a Black strong side is
//!   mirrored onto White), best moves, statistics; [`Tablebase`] bundles all four endings.
//! * Caching: [`Table::load_or_generate`] keeps a small versioned, checksummed file per ending,
//!   by default under [`default_cache_dir`] (inside Cargo's target directory; never in git).
//! * [`playout`]: seeded samples of won and drawn positions, and games of a player under test
//!   against the table's best play (the referee of the engine's endgame tests and of the
//!   experiment harness's endgame experiment).
//!
//! Generation times (release build on the noisy 2-core development VM, best of several runs):
//! KQK and KRK 0.03 s, KBNK 1.6 s (typically 2-3.5 s), KPK 0.08 s including its KQK and KRK;
//! [`Tablebase::generate`] runs the three pawnless tables on their own threads. Reading a cached
//! table back takes milliseconds (KBNK, 5.2 MB: about 20 ms). The method, the validation against
//! published figures and python-chess, and the measurements are described in
//! `docs/tablebase.md`.

#![deny(missing_docs)]

mod cache;
mod generate;
mod layout;
mod material;
mod men;
mod moves;
mod outcome;
pub mod playout;
mod table;
mod tablebase;

pub use cache::{cache_path, default_cache_dir, CacheError, FormatProblem, FORMAT_VERSION};
pub use material::{Material, Side};
pub use outcome::Outcome;
pub use table::{Counts, Table};
pub use tablebase::Tablebase;
