//! Writing a game as PGN (Portable Game Notation), the format every chess database reads.
//!
//! The seven-tag roster comes first (with `SetUp` and `FEN` when the game did not start from the
//! initial position), then the moves in SAN with move numbers, wrapped before 80 columns, and the
//! result. Moves are rendered from the game's own positions, so the text always replays.

use chess_core::chess_move::Move;
use chess_core::colour::Colour;
use chess_core::fen::STARTPOS_FEN;
use chess_core::position::Position;
use std::time::{SystemTime, UNIX_EPOCH};

/// The tags of a game besides its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tags {
    /// `Event`.
    pub event: String,
    /// `Site`.
    pub site: String,
    /// `Date`, `YYYY.MM.DD`.
    pub date: String,
    /// `Round`.
    pub round: String,
    /// `White`.
    pub white: String,
    /// `Black`.
    pub black: String,
    /// `Result`: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

impl Default for Tags {
    fn default() -> Self {
        Tags {
            event: "Che terminal game".into(),
            site: "?".into(),
            date: today(),
            round: "-".into(),
            white: "?".into(),
            black: "?".into(),
            result: "*".into(),
        }
    }
}

/// Today's date (UTC) in PGN form.
pub fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The Gregorian date of a day count since 1970-01-01 (the well-known "days to civil"
/// conversion by eras of 400 years).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The whole game as PGN text (ending with a newline).
pub fn write(tags: &Tags, start: &Position, moves: &[Move]) -> String {
    let mut text = String::new();
    let mut tag = |name: &str, value: &str| {
        text.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    };
    tag("Event", &tags.event);
    tag("Site", &tags.site);
    tag("Date", &tags.date);
    tag("Round", &tags.round);
    tag("White", &tags.white);
    tag("Black", &tags.black);
    tag("Result", &tags.result);
    let fen = start.to_fen();
    if fen != STARTPOS_FEN {
        tag("SetUp", "1");
        tag("FEN", &fen);
    }
    text.push('\n');

    let mut tokens = Vec::with_capacity(moves.len() * 3 / 2 + 1);
    let mut pos = *start;
    for (i, &mv) in moves.iter().enumerate() {
        let number = pos.fullmove_number();
        match pos.side_to_move() {
            Colour::White => tokens.push(format!("{number}.")),
            Colour::Black if i == 0 => tokens.push(format!("{number}...")),
            Colour::Black => {}
        }
        tokens.push(pos.san(mv));
        pos.play(mv);
    }
    tokens.push(tags.result.clone());

    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    text.push_str(&line);
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(start: &Position, uci: &[&str]) -> Vec<Move> {
        let mut pos = *start;
        uci.iter()
            .map(|t| {
                let m = pos.parse_uci(t).unwrap();
                pos.play(m);
                m
            })
            .collect()
    }

    #[test]
    fn scholars_mate() {
        let start = Position::startpos();
        let moves = play(
            &start,
            &["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"],
        );
        let tags = Tags {
            date: "2024.01.02".into(),
            white: "Human".into(),
            black: "Che".into(),
            result: "1-0".into(),
            ..Tags::default()
        };
        let text = write(&tags, &start, &moves);
        assert_eq!(
            text,
            "[Event \"Che terminal game\"]\n[Site \"?\"]\n[Date \"2024.01.02\"]\n[Round \"-\"]\n\
             [White \"Human\"]\n[Black \"Che\"]\n[Result \"1-0\"]\n\n\
             1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n"
        );
    }

    #[test]
    fn set_up_positions_and_black_first() {
        let start = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 30").unwrap();
        let moves = play(&start, &["e8d7", "e2e4"]);
        let text = write(&Tags::default(), &start, &moves);
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 30\"]\n"));
        assert!(text.ends_with("30... Kd7 31. e4 *\n"));
    }

    #[test]
    fn dates_and_wrapping() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        let start = Position::startpos();
        let mut moves = Vec::new();
        let mut pos = start;
        for _ in 0..10 {
            for t in ["g1f3", "g8f6", "f3g1", "f6g8"] {
                let m = pos.parse_uci(t).unwrap();
                pos.play(m);
                moves.push(m);
            }
        }
        let text = write(&Tags::default(), &start, &moves);
        assert!(text.lines().all(|l| l.len() < 80));
        assert_eq!(escape("a\"b"), "a\\\"b");
    }
}
