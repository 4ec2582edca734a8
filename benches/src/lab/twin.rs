//! The hand-written native Rust twins of the bundled advice programs.
//!
//! [`ShannyTwin`] is `cvm/chepp/examples/shanny.che` (with `midgame.che`, `endgame.che` and the
//! standard library functions it calls) and the `Evaluate()` hook of
//! `chess-core/engine/che/evaluate.che`, written the way an engine author would write the same
//! knowledge in Rust: bitboard tests on the board view, and the advice functions of `cvm-chess`
//! (the same rules the CVM's intrinsics apply) to write the advice table. [`check_twin`] holds
//! it equal to the program, on the interpreter and the JIT, on every position it is given: the
//! same advice table and printed lines from `main()`, the same value from `Evaluate()`.

use che_engine::advisor::{Advisor, Backend, ProgramSource};
use che_engine::host::{board_view, AdviceHost};
use che_engine::native::NativeAdvice;
use chess_core::Position;
use cvm_chess::advice;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::{kind, BoardView};
use cvm_chess::pattern;

const WHITE: usize = 0;
const BLACK: usize = 1;

/// The bit of a square given by file (0 = a) and rank (0 = 1).
const fn bit(file: u32, rank: u32) -> u64 {
    1 << (rank * 8 + file)
}

/// A square index given by file and rank.
const fn sq(file: u32, rank: u32) -> usize {
    (rank * 8 + file) as usize
}

const RANK: [u64; 8] = {
    let mut r = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        r[i] = 0xFF << (8 * i);
        i += 1;
    }
    r
};

/// `CHE_MVBONUS` and `CHE_SQRBONUS` of `stdlib.che`.
const BONUS: i32 = 20;
/// The files of `kkside` (f, g, h).
const KKSIDE: u64 = 0xE0E0_E0E0_E0E0_E0E0;
/// d4 e4 d5 e5.
const CENTRE: [u64; 4] = [bit(3, 3), bit(4, 3), bit(3, 4), bit(4, 4)];

/// The literal values the twin hands to the advice functions (a Che++ compiler folds these).
struct Literals {
    white: i32,
    black: i32,
    any_rook: i32,
    any_king: i32,
    white_queen: i32,
    white_bishop: i32,
    e2e4: i32,
    d2d4: i32,
    d1_any: i32,
    d8_any: i32,
    d3h7: i32,
}

fn literals() -> Literals {
    use cvm_chess::lit;
    let piece = |c, k| lit::make_piece(c, k);
    let mv = |f: usize, t: i32| lit::make_move(f as i32, t);
    Literals {
        white: lit::WHITE,
        black: lit::BLACK,
        any_rook: piece(lit::ANY_COLOUR, kind::ROOK as i32),
        any_king: piece(lit::ANY_COLOUR, kind::KING as i32),
        white_queen: piece(lit::WHITE, kind::QUEEN as i32),
        white_bishop: piece(lit::WHITE, kind::BISHOP as i32),
        e2e4: mv(sq(4, 1), sq(4, 3) as i32),
        d2d4: mv(sq(3, 1), sq(3, 3) as i32),
        d1_any: mv(sq(3, 0), lit::ALL_SQUARES),
        d8_any: mv(sq(3, 7), lit::ALL_SQUARES),
        d3h7: mv(sq(3, 2), sq(7, 6) as i32),
    }
}

/// The game phases of `stdlib.che`'s `GamePhase()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Midgame,
    Endgame,
    LateEndgame,
    PawnEndgame,
}

fn officers(b: &BoardView) -> u64 {
    (0..2)
        .map(|c| {
            b.pieces[c][kind::KNIGHT]
                | b.pieces[c][kind::BISHOP]
                | b.pieces[c][kind::ROOK]
                | b.pieces[c][kind::QUEEN]
        })
        .fold(0, |a, s| a | s)
}

fn phase(b: &BoardView) -> Phase {
    let officers = officers(b).count_ones();
    let queens = (b.pieces[WHITE][kind::QUEEN] | b.pieces[BLACK][kind::QUEEN]).count_ones();
    if officers == 0 {
        Phase::PawnEndgame
    } else if queens >= 1 && officers > 4 {
        Phase::Midgame
    } else if officers <= 2 {
        Phase::LateEndgame
    } else {
        Phase::Endgame
    }
}

/// The native twin of the bundled example program `<shanny-eval>`: `main()` of `shanny.che`
/// and `Evaluate()` of `evaluate.che`.
pub struct ShannyTwin {
    lit: Literals,
}

impl Default for ShannyTwin {
    fn default() -> Self {
        ShannyTwin { lit: literals() }
    }
}

/// Discards verbose reports (the bundled program never turns verbose mode on).
fn quiet(_: &str) {}

impl ShannyTwin {
    /// `main()` with the steps the engine takes around it at the root of a
    /// search, as a VM session's `run_root` takes them: `host` set to
    /// `pos`, `table` cleared (in proportion to what the last run wrote,
    /// as the VMs' reset does), the run, its printed lines collected.
    #[inline]
    pub fn run_root(
        &self,
        host: &mut AdviceHost,
        table: &mut AdviceTable,
        pos: &Position,
    ) -> Vec<String> {
        host.set_position(pos);
        table.clear_written();
        let mut lines: Vec<String> = Vec::new();
        self.main(host.board_view(), table, &mut |l| lines.push(l.to_string()));
        lines
    }

    /// `main()`: the advice for `b` into `table`; printed lines to `out`.
    pub fn main(&self, b: &BoardView, table: &mut AdviceTable, out: &mut dyn FnMut(&str)) {
        match phase(b) {
            Phase::Midgame => {
                self.opening(b, table);
                self.colle(b, table, out);
            }
            Phase::Endgame | Phase::LateEndgame => self.endgame(b, table),
            Phase::PawnEndgame => self.pawn_endgame(b, table),
        }
    }

    /// `OpeningAdvices()`: nobody has touched the centre pawns.
    fn opening(&self, b: &BoardView, table: &mut AdviceTable) {
        let l = &self.lit;
        let home = bit(3, 1) | bit(4, 1);
        let black_home = bit(3, 6) | bit(4, 6);
        if b.pieces[WHITE][kind::PAWN] & home == home
            && b.pieces[BLACK][kind::PAWN] & black_home == black_home
        {
            let say = &mut quiet;
            advice::set_mvs(table, say, l.white, BONUS, l.e2e4);
            advice::set_mvs(table, say, l.white, BONUS, l.d2d4);
            advice::set_pmvs(b, table, say, l.black, BONUS, bit(4, 4));
            advice::set_pmvs(b, table, say, l.black, BONUS, bit(3, 4));
            advice::set_mvs(table, say, l.white, -BONUS, l.d1_any);
            advice::set_mvs(table, say, l.black, -BONUS, l.d8_any);
        }
    }

    /// `Colle()`: White's Colle system and its plans.
    fn colle(&self, b: &BoardView, table: &mut AdviceTable, out: &mut dyn FnMut(&str)) {
        let l = &self.lit;
        let pawns = b.pieces[WHITE][kind::PAWN];
        let colle_pawns = bit(2, 2) | bit(3, 3) | bit(4, 2);
        let is_colle = pawns & colle_pawns == colle_pawns
            && b.pieces[WHITE][kind::KNIGHT] & bit(5, 2) != 0
            && b.pieces[WHITE][kind::BISHOP] & bit(3, 2) != 0
            && pawns & bit(2, 3) == 0;
        if is_colle {
            out("white Colle Position");
            advice::set_pmvs(b, table, &mut quiet, l.white, BONUS, bit(4, 3));
            advice::set_diags(table, l.white_bishop, 30, l.d3h7);
            advice::set_sqrs(table, l.white_queen, BONUS, bit(2, 1));
            advice::set_sqrs(table, l.white_queen, BONUS, bit(4, 1));
        }
    }

    /// `EndGameRules()`: rooks behind passed pawns, the king to the centre.
    fn endgame(&self, b: &BoardView, table: &mut AdviceTable) {
        let l = &self.lit;
        const FACTOR: i32 = 5;
        for pawn in squares(pattern::passed_pawns_of(b, WHITE)) {
            // The pawn's square and those below it on its file.
            let behind: Vec<usize> = (0..=pawn / 8).rev().map(|r| r * 8 + pawn % 8).collect();
            let bonus = behind.len() as i32 * FACTOR;
            for s in behind {
                advice::set_sqrs(table, l.any_rook, bonus, 1 << s);
            }
        }
        for pawn in squares(pattern::passed_pawns_of(b, BLACK)) {
            let behind: Vec<usize> = (pawn / 8..8).map(|r| r * 8 + pawn % 8).collect();
            let bonus = behind.len() as i32 * FACTOR;
            for s in behind {
                advice::set_sqrs(table, l.any_rook, bonus, 1 << s);
            }
        }
        self.king_to_centre(table);
    }

    /// `GoodSqrs(?K, d4 e4 d5 e5)`.
    fn king_to_centre(&self, table: &mut AdviceTable) {
        for m in CENTRE {
            advice::set_sqrs(table, self.lit.any_king, BONUS, m);
        }
    }

    /// `PawnEndGameRules()`: the king to the centre, passed pawns forward.
    fn pawn_endgame(&self, b: &BoardView, table: &mut AdviceTable) {
        let l = &self.lit;
        self.king_to_centre(table);
        if pattern::passed_pawns_of(b, WHITE) != 0 {
            for r in [4, 5, 6, 7] {
                advice::set_pmvs(b, table, &mut quiet, l.white, BONUS, RANK[r]);
            }
        }
        if pattern::passed_pawns_of(b, BLACK) != 0 {
            for r in [3, 2, 1, 0] {
                advice::set_pmvs(b, table, &mut quiet, l.black, BONUS, RANK[r]);
            }
        }
    }

    /// `Evaluate()`: passed pawns, knight activity and a castled king's pawns, in centipawns
    /// from White's point of view.
    pub fn evaluate(&self, b: &BoardView) -> i32 {
        let passed = |c| pattern::passed_pawns_of(b, c).count_ones() as i32;
        let knights = |c: usize| {
            let occupied = b.occupied();
            cvm_chess::attacks::of_set(c, kind::KNIGHT, b.pieces[c][kind::KNIGHT], occupied)
                .count_ones() as i32
        };
        let mut v = 4 * (passed(WHITE) - passed(BLACK));
        v += 2 * (knights(WHITE) - knights(BLACK));
        let castled = |c: usize, pawns: u64| {
            let king = b.pieces[c][kind::KING];
            king != 0 && king & !KKSIDE == 0 && b.pieces[c][kind::PAWN] & pawns == pawns
        };
        if castled(WHITE, bit(5, 1) | bit(6, 1) | bit(7, 1)) {
            v += 10;
        }
        if castled(BLACK, bit(5, 6) | bit(6, 6) | bit(7, 6)) {
            v -= 10;
        }
        v
    }
}

/// The squares of a set, ascending.
fn squares(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let s = set.trailing_zeros() as usize;
            set &= set - 1;
            s
        })
    })
}

impl NativeAdvice for ShannyTwin {
    fn name(&self) -> &str {
        "shanny-eval (native twin)"
    }

    fn root(&mut self, board: &BoardView, table: &mut AdviceTable, out: &mut dyn FnMut(&str)) {
        self.main(board, table, out);
    }

    fn has_hook(&self) -> bool {
        true
    }

    fn evaluate(&mut self, board: &BoardView) -> Option<i32> {
        Some(ShannyTwin::evaluate(self, board))
    }
}

/// Where the twin and the program part.
#[derive(Debug, thiserror::Error)]
pub enum TwinError {
    /// The bundled program did not load.
    #[error("the bundled program: {0}")]
    Load(String),
    /// The program stopped with a runtime error.
    #[error("the program failed on {backend} at {fen}: {message}")]
    Run {
        /// The backend.
        backend: Backend,
        /// The position.
        fen: String,
        /// The runtime error.
        message: String,
    },
    /// The twin's answer differs from the program's.
    #[error("the native twin differs from the program on {backend} at {fen}: {what}")]
    Differs {
        /// The backend.
        backend: Backend,
        /// The position.
        fen: String,
        /// Which output differs.
        what: String,
    },
}

/// Runs the program `<shanny-eval>` and the twin on every position, on both backends: the same
/// advice table and printed lines from `main()`, the same value from `Evaluate()` (for White to
/// move, the program's own point of view). Returns how many positions were compared.
pub fn check_twin(positions: &[Position]) -> Result<usize, TwinError> {
    let mut advisor =
        Advisor::load(&ProgramSource::ShannyEval).map_err(|e| TwinError::Load(e.to_string()))?;
    let twin = ShannyTwin::default();
    for backend in [Backend::Interp, Backend::Jit] {
        let mut host = AdviceHost::new(&Position::startpos());
        let mut session = advisor
            .session(backend, &mut host)
            .map_err(|e| TwinError::Load(e.to_string()))?;
        for pos in positions {
            let fen = pos.to_fen();
            let run = session.run_root(pos).map_err(|message| TwinError::Run {
                backend,
                fen: fen.clone(),
                message,
            })?;
            let board = board_view(pos);
            let mut table = Box::<AdviceTable>::default();
            let mut lines = Vec::new();
            twin.main(&board, &mut table, &mut |l| lines.push(l.to_string()));
            let differs = |what: &str| TwinError::Differs {
                backend,
                fen: fen.clone(),
                what: what.to_string(),
            };
            if session.advice() != &*table {
                return Err(differs("main(): advice table"));
            }
            if run.output != lines {
                return Err(differs(&format!(
                    "main(): printed {:?}, twin {:?}",
                    run.output, lines
                )));
            }
            // The session answers for the side to move; the twin for White.
            let program = session.call_hook(pos).map(|v| match pos.side_to_move() {
                chess_core::Colour::White => v,
                chess_core::Colour::Black => -v,
            });
            let native = twin.evaluate(&board);
            if program != Some(native) {
                return Err(differs(&format!(
                    "Evaluate(): program {program:?}, twin {native}"
                )));
            }
        }
    }
    Ok(positions.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_twin_matches_the_program_on_the_oracle_positions() {
        let positions = crate::oracle_positions();
        assert_eq!(positions.len(), 240);
        assert_eq!(check_twin(&positions).unwrap(), 240);
    }

    #[test]
    fn every_branch_of_the_program_is_compared() {
        // A Colle (prints a line, pawn move, diagonal, queen squares), an endgame with passed
        // pawns on both sides (rooks behind them), a pawn endgame, the start position (opening
        // advice), and a castled king behind its pawns (the hook's +10).
        let fens = [
            "rnbqkb1r/ppp2ppp/4pn2/3p4/3P4/2PBPN2/PP3PPP/RNBQK2R b KQkq - 0 5",
            "4k3/1P4p1/8/8/8/8/p5P1/R3K2r w - - 0 1",
            "4k3/p7/8/8/8/8/6PP/4K3 w - - 0 1",
            chess_core::STARTPOS_FEN,
            "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 0 6",
        ];
        let positions: Vec<Position> = fens
            .iter()
            .map(|f| Position::from_fen(f).unwrap())
            .collect();
        assert_eq!(check_twin(&positions).unwrap(), fens.len());
        let twin = ShannyTwin::default();
        let mut lines = Vec::new();
        let mut table = Box::<AdviceTable>::default();
        twin.main(&board_view(&positions[0]), &mut table, &mut |l| {
            lines.push(l.to_string())
        });
        assert_eq!(lines, ["white Colle Position"]);
        // GoodPMvs(w, e4) with the pawn on e3: e3e4 gets 20.
        assert_eq!(table.move_bonus[0][20][28], 20);
        assert_eq!(phase(&board_view(&positions[2])), Phase::PawnEndgame);
        // Both kings castled behind f, g, h pawns (+10 - 10), no passed pawns; the white knights
        // (b1, f3) control 10 squares, the black ones (c6, f6) 16: 2 * (10 - 16) = -12.
        assert_eq!(twin.evaluate(&board_view(&positions[4])), -12);
    }
}
