//! The opening book: Polyglot `.bin` books, read, chosen from and built.
//!
//! Polyglot books are the format every chess GUI understands: a sorted array of 16-byte entries
//! ([`entry`]), each a position key ([`chess_core::polyglot_key`]), a move and a weight. The
//! engine plays from its book (UCI options `OwnBook` and `BookFile`, terminal command `book
//! on|off`) while the position is in it, choosing a move at random with probability proportional
//! to its weight ([`choose`]). Books are built from PGN games ([`pgn`], [`build`]) by
//! `che-engine book`; the engine ships one ([`BUNDLED`]) built from the main lines the project
//! wrote itself (`chess-core/engine/book/lines.pgn`).

pub mod build;
pub mod choose;
pub mod entry;
pub mod pgn;

use chess_core::chess_move::Move;
use chess_core::polyglot_key;
use chess_core::position::Position;
use entry::{decode_move, Entry, ENTRY_BYTES};
use std::path::Path;

/// The book shipped with the engine, `chess-core/engine/book/che.bin` (built by `che-engine book
/// chess-core/engine/book/lines.pgn -o chess-core/engine/book/che.bin`).
pub const BUNDLED: &[u8] = include_bytes!("../../book/che.bin");

/// The name that stands for the bundled book in `BookFile`.
pub const BUNDLED_NAME: &str = "<che>";

/// Why a book could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file could not be read.
    #[error("cannot read the book {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The size is not a whole number of 16-byte entries.
    #[error("not a Polyglot book: {0} bytes is not a multiple of 16")]
    Size(usize),
}

/// An opening book in memory: its entries sorted by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    entries: Vec<Entry>,
}

impl Book {
    /// A book of `entries` (sorted by key here if they are not; the order of a key's entries is
    /// kept).
    pub fn from_entries(mut entries: Vec<Entry>) -> Book {
        entries.sort_by_key(|e| e.key);
        Book { entries }
    }

    /// Reads a book from the bytes of a `.bin` file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if bytes.len() % ENTRY_BYTES != 0 {
            return Err(BookError::Size(bytes.len()));
        }
        let entries = bytes
            .chunks_exact(ENTRY_BYTES)
            .filter_map(|chunk| <&[u8; ENTRY_BYTES]>::try_from(chunk).ok())
            .map(Entry::from_bytes)
            .collect();
        Ok(Book::from_entries(entries))
    }

    /// Reads the book named by `BookFile`: a path, or [`BUNDLED_NAME`] for the bundled book.
    pub fn load(name: &str) -> Result<Book, BookError> {
        if name.trim() == BUNDLED_NAME {
            return Book::from_bytes(BUNDLED);
        }
        let path = Path::new(name.trim());
        let bytes = cvm_frontend::file::read_bounded(path, cvm_frontend::file::DATA_LIMIT)
            .map_err(|e| BookError::Io {
                path: name.trim().to_string(),
                source: e.into(),
            })?;
        Book::from_bytes(&bytes)
    }

    /// The bytes of the book as a `.bin` file.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.entries.iter().flat_map(Entry::to_bytes).collect()
    }

    /// The entries, sorted by key.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The book's moves in `pos` with their weights, in the book's order; entries with weight 0
    /// or a move that is not legal here are left out.
    pub fn moves(&self, pos: &Position) -> Vec<(Move, u16)> {
        let key = polyglot_key(pos);
        let first = self.entries.partition_point(|e| e.key < key);
        self.entries[first..]
            .iter()
            .take_while(|e| e.key == key)
            .filter(|e| e.weight > 0)
            .filter_map(|e| decode_move(pos, e.raw_move).map(|m| (m, e.weight)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_book_knows_the_start_position() {
        let book = Book::load(BUNDLED_NAME).expect("the bundled book");
        let moves = book.moves(&Position::startpos());
        assert!(moves.len() >= 3, "{moves:?}");
        assert!(moves.iter().any(|(m, _)| m.to_string() == "e2e4"));
        assert!(book.entries().windows(2).all(|w| w[0].key <= w[1].key));
    }

    #[test]
    fn bad_books_are_refused() {
        assert!(matches!(
            Book::from_bytes(&[0; 17]),
            Err(BookError::Size(17))
        ));
        assert!(matches!(
            Book::load("/nonexistent/book.bin"),
            Err(BookError::Io { .. })
        ));
        assert_eq!(Book::from_bytes(&[]).expect("empty").entries().len(), 0);
    }
}
