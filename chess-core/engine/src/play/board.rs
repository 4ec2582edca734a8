//! The board as text, for the terminal game and UCI's `d`.
//!
//! White pieces are upper-case letters and Black's lower-case, as in FEN; empty light squares are
//! `.` and empty dark squares `:`, a nod to Tiny Chess 86, whose screen marked the dark squares.
//! The board can be shown from Black's side, and the last move's squares are marked.

use chess_core::chess_move::Move;
use chess_core::piece::Piece;
use chess_core::position::Position;
use chess_core::square::Square;

/// The board of `pos` as text: rank 8 at the top unless `flipped`, with coordinates; the squares
/// of `last` are bracketed.
pub fn render(pos: &Position, flipped: bool, last: Option<Move>) -> String {
    render_with(|sq| pos.piece_on(sq), flipped, last)
}

/// A board given square by square (also boards that are not legal positions, such as one being
/// set up), drawn like [`render`].
pub fn render_with(
    piece_at: impl Fn(Square) -> Option<Piece>,
    flipped: bool,
    last: Option<Move>,
) -> String {
    let mut text = String::from("   +-------------------------+\n");
    for row in 0..8 {
        let rank = if flipped { row } else { 7 - row };
        text.push_str(&format!(" {} |", rank + 1));
        for col in 0..8 {
            let file = if flipped { 7 - col } else { col };
            let sq = Square::from_index_masked((rank * 8 + file) as u8);
            let c = match piece_at(sq) {
                Some(p) => p.to_char(),
                None if (rank + file) % 2 == 0 => ':',
                None => '.',
            };
            let marked = last.is_some_and(|m| m.from() == sq || m.to() == sq);
            if marked {
                text.push_str(&format!("[{c}]"));
            } else {
                text.push_str(&format!(" {c} "));
            }
        }
        text.push_str(" |\n");
    }
    text.push_str("   +-------------------------+\n    ");
    for col in 0..8 {
        let file = if flipped { 7 - col } else { col };
        text.push_str(&format!(" {} ", (b'a' + file as u8) as char));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_picture() {
        let text = render(&Position::startpos(), false, None);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], " 8 | r  n  b  q  k  b  n  r  |");
        assert_eq!(lines[3], " 6 | .  :  .  :  .  :  .  :  |");
        assert_eq!(lines[8], " 1 | R  N  B  Q  K  B  N  R  |");
        assert_eq!(lines[10], "     a  b  c  d  e  f  g  h ");
        let flipped = render(&Position::startpos(), true, None);
        assert!(flipped
            .lines()
            .nth(1)
            .unwrap()
            .starts_with(" 1 | R  N  B  K  Q"));
        let pos = Position::startpos();
        let e4 = pos.parse_uci("e2e4").unwrap();
        let after = render(&pos.after(e4), false, Some(e4));
        assert!(after.contains("[P]") && after.contains("[.]"));
    }
}
