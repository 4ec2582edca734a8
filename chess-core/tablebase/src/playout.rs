//! Play-outs against perfect play: seeded samples of won or drawn positions, and games in which a
//! player under test moves for one side and the table for the other.
//!
//! This is the referee the engine's endgame tests and the experiment harness share. The player
//! is any function from a game so far to a move (the engine behind it is not this crate's
//! business); the table answers with [`Tablebase::best_move`], the longest resistance when it
//! loses and a move that keeps the draw when the position is drawn.
//!
//! ```
//! use che_tablebase::playout::{play_out, sample, End, Want};
//! use che_tablebase::{Material, Tablebase};
//!
//! let tb = Tablebase::generate();
//! let start = sample(&tb, Material::Kqk, Want::Won, 1, 7)?.remove(0);
//! // The player under test is the table itself: it mates in exactly the table's distance.
//! let game = play_out(&tb, &start.position, Want::Won, |pos, _moves| {
//!     tb.best_move(pos).map(|m| (m, 0)).ok_or_else(|| "no move".to_string())
//! });
//! assert_eq!(game.end, End::Mate { moves: start.plies.div_ceil(2) });
//! # Ok::<(), che_tablebase::playout::SampleError>(())
//! ```

use crate::material::Material;
use crate::outcome::Outcome;
use crate::tablebase::Tablebase;
use chess_core::colour::Colour;
use chess_core::{Move, Position};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Which positions a sample takes, and which side the player under test takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Want {
    /// Won for the strong side with the strong side to move: the player attacks and must mate.
    Won,
    /// Drawn by the table, either side to move: the player defends the bare king and must never
    /// move into a position the table counts as lost.
    Drawn,
}

impl Want {
    /// `won` or `drawn`.
    pub const fn name(self) -> &'static str {
        match self {
            Want::Won => "won",
            Want::Drawn => "drawn",
        }
    }
}

/// One sampled starting position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// The position.
    pub position: Position,
    /// The table's distance to mate in plies for the side to move (0 for a drawn position).
    pub plies: u32,
}

/// A sample could not be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleError {
    /// The ending.
    pub material: Material,
    /// What was wanted.
    pub want: Want,
    /// How many positions were asked for.
    pub wanted: usize,
    /// How many distinct ones were found before giving up.
    pub found: usize,
}

impl fmt::Display for SampleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "only {} distinct {} {} positions found of the {} asked for",
            self.found,
            self.want.name(),
            self.material.name(),
            self.wanted
        )
    }
}

impl std::error::Error for SampleError {}

/// A small deterministic generator (xorshift64*), so that a seed names the same sample on every
/// machine.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random placements tried per position asked for before a sample gives up.
const ATTEMPTS_PER_POSITION: usize = 20_000;

/// `count` distinct random positions of `material` that the table counts as `want`, drawn from
/// `seed`: the men placed uniformly at random (the strong side White or Black at random, no pawn
/// on the first or last rank), the strong side to move for [`Want::Won`] and either side for
/// [`Want::Drawn`] (a drawn position with no legal move is skipped). The same arguments give the
/// same positions in the same order.
pub fn sample(
    tb: &Tablebase,
    material: Material,
    want: Want,
    count: usize,
    seed: u64,
) -> Result<Vec<Start>, SampleError> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(count);
    let mut seen = HashSet::new();
    let budget = count.saturating_mul(ATTEMPTS_PER_POSITION).max(1);
    for _ in 0..budget {
        if out.len() == count {
            return Ok(out);
        }
        let strong_white = rng.below(2) == 0;
        let mut pieces = vec!['K', 'k'];
        pieces.extend(material.men().iter().map(|kind| kind.to_lower_char()));
        let mut board = ['.'; 64];
        let mut ok = true;
        for (i, p) in pieces.into_iter().enumerate() {
            // The first king and the men belong to the strong side.
            let strong = i != 1;
            let p = if strong == strong_white {
                p.to_ascii_uppercase()
            } else {
                p.to_ascii_lowercase()
            };
            let sq = rng.below(64) as usize;
            let rank = sq / 8;
            if board[sq] != '.' || (p.eq_ignore_ascii_case(&'p') && (rank == 0 || rank == 7)) {
                ok = false;
                break;
            }
            board[sq] = p;
        }
        if !ok {
            continue;
        }
        let strong_to_move = match want {
            Want::Won => true,
            Want::Drawn => rng.below(2) == 0,
        };
        let white_to_move = strong_white == strong_to_move;
        let fen = format!(
            "{} {} - - 0 1",
            placement(&board),
            if white_to_move { "w" } else { "b" }
        );
        let Ok(pos) = Position::from_fen(&fen) else {
            continue;
        };
        let plies = match (want, tb.probe(&pos)) {
            (Want::Won, Some(Outcome::Win { plies })) => u32::from(plies),
            (Want::Drawn, Some(Outcome::Draw)) if !pos.legal_moves().is_empty() => 0,
            _ => continue,
        };
        if seen.insert(pos.hash()) {
            out.push(Start {
                position: pos,
                plies,
            });
        }
    }
    if out.len() == count {
        return Ok(out);
    }
    Err(SampleError {
        material,
        want,
        wanted: count,
        found: out.len(),
    })
}

/// The piece placement field of a FEN for `board` (a1 first).
fn placement(board: &[char; 64]) -> String {
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let c = board[rank * 8 + file];
            if c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    fen.push_str(&empty.to_string());
                    empty = 0;
                }
                fen.push(c);
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen
}

/// How a play-out ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The player attacked and mated on its `moves`-th move.
    Mate {
        /// The player's moves, the mating one included.
        moves: u32,
    },
    /// The player defended and the game ended drawn: the pawn taken (or another dead draw by
    /// material), stalemate, threefold repetition, the fifty-move rule, or [`DEFENCE_PLIES`]
    /// plies in positions the table counts as drawn.
    Held,
    /// The player failed: as attacker anything but mate (stalemate, a draw by rule, a lost
    /// man), as defender a move into a position the table counts as lost; or the player or
    /// the table had no move to give.
    Failed {
        /// What happened, with the position.
        why: String,
    },
}

impl End {
    /// `mate`, `held` or `failed`.
    pub const fn name(&self) -> &'static str {
        match self {
            End::Mate { .. } => "mate",
            End::Held => "held",
            End::Failed { .. } => "failed",
        }
    }

    /// Whether the player did its job (mated, or held the draw).
    pub const fn succeeded(&self) -> bool {
        !matches!(self, End::Failed { .. })
    }
}

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// How it ended.
    pub end: End,
    /// The moves of both sides from the start.
    pub moves: Vec<Move>,
    /// The nodes the player reported, summed over its moves.
    pub nodes: u64,
}

/// Plies a defence is played for before it counts as held.
pub const DEFENCE_PLIES: usize = 120;

/// Plays `start` out. The player under test takes the strong side when `want` is
/// [`Want::Won`] (the side to move at the start) and the bare king's side when it is
/// [`Want::Drawn`]; `player(position, moves)` gets the position reached and the moves from
/// `start` that reached it, and answers with its move and the nodes it searched (a move that is
/// not legal, or an error, ends the game as failed). The table plays the other side.
///
/// The game ends by mate or stalemate, by a dead draw by material, threefold repetition or the
/// fifty-move rule (pawn moves and captures reset the counter; a KPK game goes on after the
/// promotion in the KQK or KRK table), when a defender moves into a lost position, or, when
/// defending, after [`DEFENCE_PLIES`] plies.
pub fn play_out<F>(tb: &Tablebase, start: &Position, want: Want, mut player: F) -> Game
where
    F: FnMut(&Position, &[Move]) -> Result<(Move, u64), String>,
{
    let player_side = match want {
        Want::Won => start.side_to_move(),
        Want::Drawn => bare_king_side(start),
    };
    let mut game = Game {
        end: End::Held,
        moves: Vec::new(),
        nodes: 0,
    };
    let mut pos = *start;
    let mut player_moves = 0;
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let failed = |why: String| End::Failed { why };
    loop {
        let repeats = seen.entry(pos.hash()).or_insert(0);
        *repeats += 1;
        let threefold = *repeats >= 3;
        if pos.legal_moves().is_empty() {
            game.end = match want {
                Want::Won if pos.is_check() && pos.side_to_move() != player_side => End::Mate {
                    moves: player_moves,
                },
                Want::Drawn if !pos.is_check() => End::Held,
                _ => failed(format!("no moves at {}", pos.to_fen())),
            };
            return game;
        }
        if pos.halfmove_clock() >= 100 || pos.is_insufficient_material() || threefold {
            game.end = match want {
                Want::Won => failed(format!("drawn by rule at {}", pos.to_fen())),
                Want::Drawn => End::Held,
            };
            return game;
        }
        if want == Want::Drawn && game.moves.len() >= DEFENCE_PLIES {
            game.end = End::Held;
            return game;
        }
        let mv = if pos.side_to_move() == player_side {
            player_moves += 1;
            match player(&pos, &game.moves) {
                Ok((mv, nodes)) if pos.is_legal(mv) => {
                    game.nodes += nodes;
                    mv
                }
                Ok((mv, _)) => {
                    game.end = failed(format!("illegal move {mv} at {}", pos.to_fen()));
                    return game;
                }
                Err(why) => {
                    game.end = failed(format!("{why} at {}", pos.to_fen()));
                    return game;
                }
            }
        } else {
            match tb.best_move(&pos) {
                Some(mv) => mv,
                None => {
                    game.end = failed(format!("the table has no move at {}", pos.to_fen()));
                    return game;
                }
            }
        };
        game.moves.push(mv);
        pos = pos.after(mv);
        if want == Want::Drawn && pos.side_to_move() != player_side {
            if let Some(Outcome::Win { .. }) = tb.probe(&pos) {
                game.end = failed(format!("moved into a lost position {}", pos.to_fen()));
                return game;
            }
        }
    }
}

/// The side with only its king (the side to move if both have more).
fn bare_king_side(pos: &Position) -> Colour {
    if pos.by_colour(pos.side_to_move()).count() == 1 {
        pos.side_to_move()
    } else {
        !pos.side_to_move()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four tables, generated once for this test binary.
    fn tb() -> &'static Tablebase {
        static TABLES: std::sync::OnceLock<Tablebase> = std::sync::OnceLock::new();
        TABLES.get_or_init(Tablebase::generate)
    }

    #[test]
    fn samples_are_what_they_claim_and_repeat_with_their_seed() {
        let tb = tb();
        for material in Material::ALL {
            for want in [Want::Won, Want::Drawn] {
                let a = sample(tb, material, want, 20, 11).expect("sample");
                assert_eq!(a, sample(tb, material, want, 20, 11).expect("sample"));
                assert_ne!(a, sample(tb, material, want, 20, 12).expect("sample"));
                let hashes: HashSet<u64> = a.iter().map(|s| s.position.hash()).collect();
                assert_eq!(hashes.len(), a.len());
                for s in &a {
                    assert_eq!(Material::identify(&s.position).map(|m| m.0), Some(material));
                    let expect = match want {
                        Want::Won => Outcome::Win {
                            plies: s.plies as u8,
                        },
                        Want::Drawn => Outcome::Draw,
                    };
                    assert_eq!(tb.probe(&s.position), Some(expect));
                }
                // Both colours play the strong side somewhere in the sample.
                let strong_white = a
                    .iter()
                    .filter(|s| s.position.by_colour(Colour::White).count() > 1)
                    .count();
                assert!(strong_white > 0 && strong_white < a.len(), "{material:?}");
            }
        }
    }

    #[test]
    fn a_sample_error_names_what_was_missing() {
        let err = SampleError {
            material: Material::Kbnk,
            want: Want::Drawn,
            wanted: 10,
            found: 3,
        };
        assert_eq!(
            err.to_string(),
            "only 3 distinct drawn KBNK positions found of the 10 asked for"
        );
    }

    #[test]
    fn the_table_against_itself_mates_in_its_distance_and_holds_its_draws() {
        let tb = tb();
        for material in Material::ALL {
            for s in sample(tb, material, Want::Won, 10, 5).expect("sample") {
                let game = play_out(tb, &s.position, Want::Won, |pos, _| {
                    tb.best_move(pos).map(|m| (m, 1)).ok_or("none".into())
                });
                assert_eq!(
                    game.end,
                    End::Mate {
                        moves: s.plies.div_ceil(2)
                    },
                    "{}",
                    s.position.to_fen()
                );
                assert_eq!(game.moves.len(), s.plies as usize);
                assert_eq!(game.nodes, u64::from(s.plies.div_ceil(2)));
            }
        }
        for s in sample(tb, Material::Kpk, Want::Drawn, 10, 5).expect("sample") {
            let game = play_out(tb, &s.position, Want::Drawn, |pos, _| {
                tb.best_move(pos).map(|m| (m, 0)).ok_or("none".into())
            });
            assert_eq!(game.end, End::Held, "{}", s.position.to_fen());
        }
    }

    #[test]
    fn a_bad_player_fails_and_says_where() {
        let tb = tb();
        let s = &sample(tb, Material::Krk, Want::Won, 1, 9).expect("sample")[0];
        // The first legal move every time: never mates within the rules in KRK from a random
        // won position (it shuffles, and the repetition or the fifty-move rule ends it).
        let game = play_out(tb, &s.position, Want::Won, |pos, _| {
            Ok((pos.legal_moves()[0], 0))
        });
        assert!(matches!(game.end, End::Failed { .. }), "{:?}", game.end);
        // A player with no move to give.
        let game = play_out(tb, &s.position, Want::Won, |_, _| Err("gave up".into()));
        match game.end {
            End::Failed { why } => assert!(why.starts_with("gave up at "), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(game.moves.is_empty());
    }
}
