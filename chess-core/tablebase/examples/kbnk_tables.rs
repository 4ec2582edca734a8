//! Fits the value tables of the shipped KBNK endgame program (`kbnk.cheg`) to the tablebase's
//! distance to mate and writes them as CHEG (`kbnk_tables.cheg`):
//!
//! ```text
//! cargo run --release -p che-tablebase --example kbnk_tables -- TABLE_DIR OUT.cheg [RAW]
//! ```
//!
//! (with `RAW`, the fitted tables are also written there as plain text, and an existing `RAW`
//! is read instead of fitting again: only the CHEG text is written.)
//!
//! (`TABLE_DIR` holds or receives the cached tables.) The program's value at a node (our side to
//! move) is 8000 minus an estimate, in tenths of a ply, of the distance to mate: the sum of five
//! tables in the frame the program uses (the bishop on dark squares, the files mirrored
//! otherwise, then the board turned by one of the symmetries that keep the two mating corners
//! so that the bare king stands in the triangle `file <= rank`, `file + rank <= 9`, one of 20
//! squares):
//!
//! - `XAN`: the bare king (20) x our king (64) x the knight (64);
//! - `XNB`: the bare king x the knight x the bishop (32 dark squares);
//! - `XAB`: the bare king x our king x the bishop;
//! - `NET`: the worst escape square (0..7, files plus ranks from a mating corner, the worst
//!   square the bare king reaches in two steps over squares our men do not attack) x the bare
//!   king's free squares (0..8);
//! - `HUNG`: the minor pieces next to the bare king that nothing guards (0..2) x a fork (0, 1)
//!   x the moves of ours that keep both pieces (0 when nothing hangs, else 1, 2, or 3
//!   for three or more).
//!
//! With a piece hanging and no move of ours that keeps both pieces, the piece is lost: the
//! value is 1000 instead, below every estimate (the program's NSAVE; a move that stalemates the
//! bare king does not count as keeping the pieces). So it is when one to three moves keep both
//! pieces and after each of them a step of the bare king leaves a piece lost (the program's
//! NLOST2). Such positions are left out of the fit.
//!
//! The tables are kept symmetric where the frame is not unique (the bare king on an edge of its
//! triangle, where the symmetry that keeps its square gives a second frame; the program picks
//! the other one when Black is to move, since it sees the board from the side to move).
//!
//! The tables are fitted by least squares (backfitting: each table in turn set to the mean
//! residual of its cells, shrunk by five samples) to the table's distance to mate of positions
//! the program meets: the positions after each of our moves and each reply along the games the
//! program plays from a training sample, against the table's best defence. A position the table
//! counts as drawn (a piece that will be lost) gets the distance 90 plies, longer than any mate.
//! This is repeated (the games played with the tables of the round before, the positions added
//! to those collected so far: "dataset aggregation"), starting from games played with tables
//! fitted to random positions only. 200,000 random won positions weigh a tenth each throughout.
//! Each round's tables are scored on a validation sample (a seed of its own; neither is the
//! engine test's) by playing the program's rule in this process; the best round (the most
//! games won, then the fewest moves) is kept.
//!
//! Then *decision training* corrects the choices themselves: the program plays a larger
//! training sample (32,000 positions, the same seed), and wherever its move is not one of the
//! table's fastest (a longer distance to mate after it than after the best move), the three
//! large tables' cells of the chosen move's worst leaf go up by half a ply (a longer estimate)
//! and those of the best fastest move's worst leaf down by as much (a perceptron step). Six
//! passes; after each the validation sample is played, and the best tables (the fitted ones or
//! a pass, by the same order) are written.
//!
//! The program's rule, played here as the engine plays it at `go depth 2`: every legal move
//! (our king's first, then the knight's, then the bishop's; the first of equal scores kept),
//! scored by its worst reply's value; mate scores above everything, a stalemate, a dead draw by
//! material or a position the game has had twice already (its third occurrence) 0, and a
//! position the game has had once half its value (the engine's rule for returns, `docs/cheg.md`).
//! The value is the program's: 9000 for a mate in two found by the program's own small search,
//! 1000 for a piece lost (now or a move later), else 8000 minus the tables' sum.
//! Everything is deterministic: the same arguments write the same file.

use che_tablebase::playout::{play_out, sample, End, Want};
use che_tablebase::{Material, Outcome, Tablebase};
use chess_core::{Colour, Move, PieceKind, Position, Square};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// A square as (file, rank), 1..8 each.
type Sq = (i32, i32);

/// The men of a KBNK position in the program's frame.
#[derive(Clone, Copy, Debug)]
struct Men {
    /// Our king.
    a: Sq,
    /// The bishop.
    y: Sq,
    /// The knight.
    z: Sq,
    /// The bare king.
    x: Sq,
}

fn sq_of(s: Square) -> Sq {
    (s.file().index() as i32 + 1, s.rank().index() as i32 + 1)
}

/// The men of `pos` with `us` the side with the minor pieces, turned so that the bishop stands
/// on a dark square (the mating corners (1,1) and (8,8)).
fn men(pos: &Position, us: Colour) -> Option<Men> {
    let b = pos.pieces(us, PieceKind::Bishop).first()?;
    let n = pos.pieces(us, PieceKind::Knight).first()?;
    let mut m = Men {
        a: sq_of(pos.king_square(us)),
        y: sq_of(b),
        z: sq_of(n),
        x: sq_of(pos.king_square(!us)),
    };
    if (m.y.0 + m.y.1) % 2 == 1 {
        for s in [&mut m.a, &mut m.y, &mut m.z, &mut m.x] {
            s.0 = 9 - s.0;
        }
    }
    Some(m)
}

/// One of the four symmetries of the board that keep the square colours and the two mating
/// corners: 0 none, 1 the transpose, 2 the half turn, 3 the other transpose.
fn sym(s: Sq, k: usize) -> Sq {
    match k {
        0 => s,
        1 => (s.1, s.0),
        2 => (9 - s.0, 9 - s.1),
        _ => (9 - s.1, 9 - s.0),
    }
}

fn map_men(m: &Men, k: usize) -> Men {
    Men {
        a: sym(m.a, k),
        y: sym(m.y, k),
        z: sym(m.z, k),
        x: sym(m.x, k),
    }
}

/// The men turned as the program turns them: the transpose when the bare king's file is above
/// its rank, then the other transpose when its file plus rank is above 9.
fn canonical(m: &Men) -> Men {
    let mut c = *m;
    if c.x.0 > c.x.1 {
        c = map_men(&c, 1);
    }
    if c.x.0 + c.x.1 > 9 {
        c = map_men(&c, 3);
    }
    c
}

fn dist(a: Sq, b: Sq) -> i32 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

/// Files plus ranks to the nearer mating corner.
fn nbad(s: Sq) -> i32 {
    (s.0 + s.1 - 2).min(16 - s.0 - s.1)
}

fn on_board(s: Sq) -> bool {
    (1..=8).contains(&s.0) && (1..=8).contains(&s.1)
}

/// The program's NATT: `s` attacked by our king `k`, knight `n` or bishop `y` (`None`: that
/// man off the board), the bare king not blocking the bishop.
fn att(s: Sq, k: Option<Sq>, n: Option<Sq>, y: Option<Sq>) -> bool {
    if k.is_some_and(|k| dist(s, k) <= 1) {
        return true;
    }
    if n.is_some_and(|n| (s.0 - n.0).abs() * (s.1 - n.1).abs() == 2) {
        return true;
    }
    if let Some(y) = y {
        let (df, dr) = (s.0 - y.0, s.1 - y.1);
        if df.abs() == dr.abs() && df != 0 {
            let step = (df.signum(), dr.signum());
            let mut c = (y.0 + step.0, y.1 + step.1);
            loop {
                if c == s {
                    return true;
                }
                if Some(c) == k || Some(c) == n {
                    return false;
                }
                c = (c.0 + step.0, c.1 + step.1);
            }
        }
    }
    false
}

fn attacked(m: &Men, s: Sq) -> bool {
    att(s, Some(m.a), Some(m.z), Some(m.y))
}

/// A square the bare king could step to: on the board, none of the men's and not attacked.
fn free(m: &Men, s: Sq) -> bool {
    on_board(s) && s != m.x && s != m.a && s != m.y && s != m.z && !attacked(m, s)
}

/// The program's net and loose pieces: (the worst escape square, the free squares next to the
/// bare king, the minor pieces next to it that nothing guards, a fork).
fn net(m: &Men) -> (usize, usize, usize, usize) {
    let (xf, xr) = m.x;
    let mut mob = 0;
    let mut e = nbad(m.x);
    for dr in -2..=2 {
        for df in -2..=2 {
            let s = (xf + df, xr + dr);
            if !free(m, s) {
                continue;
            }
            let reach = if df.abs().max(dr.abs()) == 1 {
                mob += 1;
                true
            } else {
                let mut ok = false;
                for er in -1..=1 {
                    for ef in -1..=1 {
                        if (ef - df).abs().max((er - dr).abs()) <= 1 && free(m, (xf + ef, xr + er))
                        {
                            ok = true;
                        }
                    }
                }
                ok
            };
            if reach {
                e = e.max(nbad(s));
            }
        }
    }
    let mut hung = 0;
    if dist(m.x, m.z) <= 1 && dist(m.a, m.z) >= 2 && !att(m.z, Some(m.a), None, Some(m.y)) {
        hung += 1;
    }
    if dist(m.x, m.y) <= 1 && dist(m.a, m.y) >= 2 && !att(m.y, Some(m.a), Some(m.z), None) {
        hung += 1;
    }
    let fork =
        dist(m.x, m.z) <= 1 && dist(m.x, m.y) <= 1 && dist(m.a, m.z) >= 2 && dist(m.a, m.y) >= 2;
    (e as usize, mob, hung, usize::from(fork))
}

const KING_STEPS: [Sq; 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];
const KNIGHT_JUMPS: [Sq; 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const BISHOP_LINES: [Sq; 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

/// The program's NMATED: the bare king on `s` in check and every square next to it off the
/// board or attacked.
fn mated(m: &Men, s: Sq) -> bool {
    attacked(m, s)
        && KING_STEPS
            .iter()
            .map(|d| (s.0 + d.0, s.1 + d.1))
            .all(|t| !on_board(t) || attacked(m, t))
}

/// The program's NMATE1: a move of the bishop mates the bare king on `s`.
fn bishop_mates(m: &Men, s: Sq) -> bool {
    for d in BISHOP_LINES {
        let mut t = (m.y.0 + d.0, m.y.1 + d.1);
        while on_board(t) && t != m.a && t != m.z && t != s {
            if (t.0 - s.0).abs() == (t.1 - s.1).abs() && mated(&Men { y: t, x: s, ..*m }, s) {
                return true;
            }
            t = (t.0 + d.0, t.1 + d.1);
        }
    }
    false
}

/// The program's NAFT1 (the knight moved, the bare king to move): mated now, or every reply
/// (to an edge square within files plus ranks 2 of a mating corner, taking nothing) met by a
/// bishop's mate.
fn after_knight(m: &Men) -> bool {
    let mut replies = 0;
    for d in KING_STEPS {
        let s = (m.x.0 + d.0, m.x.1 + d.1);
        if !on_board(s) || attacked(m, s) {
            continue;
        }
        replies += 1;
        let edge = s.0 == 1 || s.1 == 1 || s.0 == 8 || s.1 == 8;
        if s == m.z || s == m.y || nbad(s) > 2 || !edge || !bishop_mates(m, s) {
            return false;
        }
    }
    replies > 0 || attacked(m, m.x)
}

/// The program's NM2: a knight's move mates at once or leaves only replies a bishop's move
/// mates after.
fn mate_in_two(m: &Men) -> bool {
    KNIGHT_JUMPS.iter().any(|d| {
        let t = (m.z.0 + d.0, m.z.1 + d.1);
        on_board(t) && t != m.a && t != m.y && t != m.x && after_knight(&Men { z: t, ..*m })
    })
}

/// A minor piece next to the bare king that nothing guards (the program's NHANG).
fn hanging(m: &Men) -> bool {
    (dist(m.x, m.z) <= 1 && !att(m.z, Some(m.a), Some(m.z), Some(m.y)))
        || (dist(m.x, m.y) <= 1 && !att(m.y, Some(m.a), Some(m.z), Some(m.y)))
}

/// The bare king (to move) stalemated: not in check, and no square next to it free.
fn stalemated(m: &Men) -> bool {
    !attacked(m, m.x)
        && KING_STEPS
            .iter()
            .all(|d| !free(m, (m.x.0 + d.0, m.x.1 + d.1)))
}

/// The program's NSAVE (our side to move): the positions after the moves of ours that keep
/// both pieces (nothing hangs after them and the bare king is not stalemated), the first
/// `cap` of them. Our king's steps (not onto our men, not next to the bare king), the knight's
/// jumps, the bishop's moves along its lines up to the first man, in that order.
fn saving(m: &Men, cap: usize) -> Vec<Men> {
    let king = KING_STEPS.iter().filter_map(|d| {
        let t = (m.a.0 + d.0, m.a.1 + d.1);
        (on_board(t) && t != m.y && t != m.z && dist(t, m.x) >= 2).then_some(Men { a: t, ..*m })
    });
    let knight = KNIGHT_JUMPS.iter().filter_map(|d| {
        let t = (m.z.0 + d.0, m.z.1 + d.1);
        (on_board(t) && t != m.a && t != m.y && t != m.x).then_some(Men { z: t, ..*m })
    });
    let bishop = BISHOP_LINES.iter().flat_map(|d| {
        let mut line = Vec::new();
        let mut t = (m.y.0 + d.0, m.y.1 + d.1);
        while on_board(t) && t != m.a && t != m.z && t != m.x {
            line.push(Men { y: t, ..*m });
            t = (t.0 + d.0, t.1 + d.1);
        }
        line
    });
    king.chain(knight)
        .chain(bishop)
        .filter(|after| !hanging(after) && !stalemated(after))
        .take(cap)
        .collect()
}

/// The number of moves [`saving`] finds, up to `cap`.
fn savers(m: &Men, cap: usize) -> usize {
    saving(m, cap).len()
}

/// A piece lost (our side to move): one hangs and no move of ours keeps both pieces.
fn lost(m: &Men) -> bool {
    hanging(m) && savers(m, 1) == 0
}

/// A piece lost now or a move later (the program's NSAVE, then NLOST2 over its moves): one
/// hangs, and either no move of ours keeps both pieces ([`lost`]) or one to three do and after
/// each of them a step of the bare king leaves a piece lost. One search of the keeping moves
/// answers both.
fn piece_lost(m: &Men) -> bool {
    if !hanging(m) {
        return false;
    }
    let keep = saving(m, 4);
    keep.is_empty()
        || (keep.len() <= 3
            && keep.iter().all(|after| {
                KING_STEPS.iter().any(|d| {
                    let t = (after.x.0 + d.0, after.x.1 + d.1);
                    free(after, t) && lost(&Men { x: t, ..*after })
                })
            }))
}

/// The value of a position where a piece is lost (the program's NSAVE found no move).
const LOST: i64 = 1000;

/// The value of a mate in two found by the program's own search (NM2).
const MATE_IN_TWO: i64 = 9000;

/// Table sizes: XAN, XNB, XAB, NET, HUNG.
const SIZES: [usize; 5] = [20 * 64 * 64, 20 * 64 * 32, 20 * 64 * 32, 8 * 9, 3 * 2 * 4];

/// The first index of each file's squares of the bare king's triangle.
const X_OFFSET: [i32; 4] = [0, 8, 14, 18];

fn square_index(s: Sq) -> usize {
    ((s.0 - 1) * 8 + (s.1 - 1)) as usize
}

/// The bare king's index in its triangle (0..19) for a square of the triangle.
fn triangle_index(x: Sq) -> usize {
    (X_OFFSET[(x.0 - 1) as usize] + x.1 - x.0) as usize
}

/// The symmetry (for [`sym`]) that keeps the triangle's square `x` where `x` lies on an edge of
/// the triangle (`file == rank`: the transpose, `file + rank == 9`: the other one), else `None`.
fn twin_symmetry(x: Sq) -> Option<usize> {
    if x.0 == x.1 {
        Some(1)
    } else if x.0 + x.1 == 9 {
        Some(3)
    } else {
        None
    }
}

/// The other canonical image of `c` (in the canonical frame): with the bare king on an edge of
/// its triangle (`file == rank` or `file + rank == 9`) the symmetry that keeps that square turns
/// the other men and leaves the bare king in the triangle, so two frames fit; `None` inside.
/// The program for the side to move Black sees the board with its ranks turned round and may
/// pick the other image, so the tables must give both the same value ([`Tables::symmetric`]).
fn twin(c: &Men) -> Option<Men> {
    twin_symmetry(c.x).map(|k| map_men(c, k))
}

/// The cells of the five tables for men in the canonical frame.
fn cells(c: &Men) -> [u32; 5] {
    let xi = triangle_index(c.x);
    let (a, n, b) = (square_index(c.a), square_index(c.z), square_index(c.y) / 2);
    let (e, mob, hung, fork) = net(c);
    [
        ((xi * 64 + a) * 64 + n) as u32,
        ((xi * 64 + n) * 32 + b) as u32,
        ((xi * 64 + a) * 32 + b) as u32,
        (e * 9 + mob) as u32,
        ((hung * 2 + fork) * 4 + if hung > 0 { savers(c, 3) } else { 0 }) as u32,
    ]
}

/// The value tables in tenths of a ply, with the constant.
#[derive(Clone)]
struct Tables {
    constant: i32,
    t: Vec<Vec<i32>>,
}

impl Tables {
    /// The program's value of a node (our side to move).
    fn value(&self, m: &Men) -> i64 {
        if nbad(m.x) <= 1 && dist(m.a, m.x) <= 2 && mate_in_two(m) {
            return MATE_IN_TWO;
        }
        if piece_lost(m) {
            return LOST;
        }
        let cl = cells(&canonical(m));
        let sum: i32 = self.constant + (0..5).map(|k| self.t[k][cl[k] as usize]).sum::<i32>();
        8000 - i64::from(sum)
    }

    /// Adds `delta` to the cells of the three large tables that value `m`, and to its twin's
    /// (so the tables stay symmetric).
    fn shift(&mut self, m: &Men, delta: i32) {
        let c = canonical(m);
        let cl = cells(&c);
        for (t, &i) in self.t.iter_mut().zip(&cl).take(3) {
            t[i as usize] += delta;
        }
        if let Some(tw) = twin(&c) {
            for (t, (&i, &j)) in self.t.iter_mut().zip(cl.iter().zip(&cells(&tw))).take(3) {
                if i != j {
                    t[j as usize] += delta;
                }
            }
        }
    }

    /// The tables made symmetric: each pair of twin cells (see [`twin`]) set to the lower of
    /// its two entries' mean, so a position has one value whichever frame reads it.
    fn symmetric(mut self) -> Tables {
        let squares: Vec<Sq> = (0..64).map(|i| (i / 8 + 1, i % 8 + 1)).collect();
        let dark: Vec<Sq> = squares
            .iter()
            .copied()
            .filter(|s| (s.0 + s.1) % 2 == 0)
            .collect();
        for &x in squares.iter().filter(|x| x.0 <= x.1 && x.0 + x.1 <= 9) {
            let Some(k) = twin_symmetry(x) else { continue };
            let xi = triangle_index(x);
            let mut pair = |table: usize, i: usize, j: usize| {
                if i < j {
                    let mean = (self.t[table][i] + self.t[table][j]).div_euclid(2);
                    self.t[table][i] = mean;
                    self.t[table][j] = mean;
                }
            };
            for &a in &squares {
                for &n in &squares {
                    let (a2, n2) = (sym(a, k), sym(n, k));
                    pair(
                        0,
                        (xi * 64 + square_index(a)) * 64 + square_index(n),
                        (xi * 64 + square_index(a2)) * 64 + square_index(n2),
                    );
                }
                for &y in &dark {
                    let (a2, y2) = (sym(a, k), sym(y, k));
                    // XNB with `a` as the knight, XAB with `a` as our king.
                    let (i, j) = (
                        square_index(a) * 32 + square_index(y) / 2,
                        square_index(a2) * 32 + square_index(y2) / 2,
                    );
                    pair(1, xi * 64 * 32 + i, xi * 64 * 32 + j);
                    pair(2, xi * 64 * 32 + i, xi * 64 * 32 + j);
                }
            }
        }
        self
    }
}

const MATE: i64 = 1_000_000;

/// A move as the program scores it at `go depth 2`: its worst reply's value, and the men of that
/// reply's position when the value came from the tables (for decision training).
struct Scored {
    mv: Move,
    score: i64,
    leaf: Option<Men>,
}

/// Every legal move scored as the program scores it, in the order of its tries; `seen` counts
/// the game's positions.
fn scored(pos: &Position, seen: &Seen, us: Colour, tables: &Tables) -> Vec<Scored> {
    let order = |m: &Move| {
        let kind = match pos.kind_on(m.from()) {
            Some(PieceKind::King) => 0,
            Some(PieceKind::Knight) => 1,
            _ => 2,
        };
        (kind, m.from().index(), m.to().index())
    };
    let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
    moves.sort_by_key(order);
    moves
        .into_iter()
        .map(|mv| {
            let p1 = pos.after(mv);
            let replies = p1.legal_moves();
            if replies.is_empty() {
                let score = if p1.is_check() { MATE } else { 0 };
                return Scored {
                    mv,
                    score,
                    leaf: None,
                };
            }
            let back = seen.get(&p1.hash()).copied().unwrap_or(0);
            if back >= 2 {
                return Scored {
                    mv,
                    score: 0,
                    leaf: None,
                };
            }
            let mut worst = Scored {
                mv,
                score: MATE,
                leaf: None,
            };
            for &r in replies.iter() {
                let p2 = p1.after(r);
                let again = seen.get(&p2.hash()).copied().unwrap_or(0);
                let (score, leaf) = match men(&p2, us) {
                    Some(mm) if !p2.is_insufficient_material() && again < 2 => {
                        let v = tables.value(&mm);
                        let v = if again == 1 { v / 2 } else { v };
                        (v, (v != MATE_IN_TWO && v != LOST).then_some(mm))
                    }
                    _ => (0, None),
                };
                if score < worst.score {
                    worst = Scored { mv, score, leaf };
                }
            }
            if back == 1 {
                worst.score /= 2;
            }
            worst
        })
        .collect()
}

/// The index of the program's choice among `scores`: the first of the highest.
fn chosen(scores: &[Scored]) -> usize {
    let mut best = 0;
    for (i, s) in scores.iter().enumerate() {
        if s.score > scores[best].score {
            best = i;
        }
    }
    best
}

/// The program's choice at `go depth 2`; `seen` counts the game's positions.
fn choose(pos: &Position, seen: &Seen, us: Colour, tables: &Tables) -> Move {
    let scores = scored(pos, seen, us, tables);
    scores[chosen(&scores)].mv
}

/// How often each position (by hash) has stood on the board in a game so far.
type Seen = HashMap<u64, u32>;

/// The positions of a game so far, counted.
fn seen_in(start: &Position, moves: &[Move]) -> Seen {
    let mut seen = Seen::new();
    let mut p = *start;
    *seen.entry(p.hash()).or_default() += 1;
    for &m in moves {
        p = p.after(m);
        *seen.entry(p.hash()).or_default() += 1;
    }
    seen
}

/// The training sample's size (seed `0x1234`) for the rounds of dataset aggregation.
const TRAINING: usize = 4000;

/// The decision training's sample (the same seed, so it begins with the training sample): the
/// passes are cheap, and the rare starts where a piece is lost early need many games to show.
const DECISION_TRAINING: usize = 32_000;

/// Rounds of dataset aggregation.
const ROUNDS: usize = 10;

/// Passes of decision training.
const PASSES: usize = 6;

/// Half a ply: the step of decision training, in the tables' tenths of a ply.
const STEP: i32 = 5;

/// One pass of decision training over `starts`: the program plays each game with the tables as
/// they are being changed; at every choice whose distance to mate (the table's, after the move)
/// is longer than the best move's, the chosen move's worst leaf is moved down (its cells of the
/// three large tables up by [`STEP`]) and the best move's up (the fastest moves' highest
/// scored). Returns the number of such choices.
fn train_decisions(
    tb: &Tablebase,
    starts: &[che_tablebase::playout::Start],
    tables: &mut Tables,
) -> usize {
    let mut wrong = 0;
    for st in starts {
        let us = st.position.side_to_move();
        play_out(tb, &st.position, Want::Won, |pos, moves| {
            let scores = scored(pos, &seen_in(&st.position, moves), us, tables);
            let c = chosen(&scores);
            let distance = |m: Move| match tb.probe(&pos.after(m)) {
                Some(Outcome::Loss { plies }) => u32::from(plies),
                _ => u32::MAX,
            };
            let d: Vec<u32> = scores.iter().map(|s| distance(s.mv)).collect();
            let fastest = d.iter().copied().min().unwrap_or(u32::MAX);
            if d[c] > fastest {
                wrong += 1;
                let best = (0..scores.len())
                    .filter(|&i| d[i] == fastest)
                    .max_by_key(|&i| (scores[i].score, std::cmp::Reverse(i)));
                if let Some(leaf) = best.and_then(|b| scores[b].leaf) {
                    tables.shift(&leaf, -STEP);
                }
                if let Some(leaf) = scores[c].leaf {
                    tables.shift(&leaf, STEP);
                }
            }
            Ok((scores[c].mv, 0))
        });
    }
    wrong
}

/// Plays the program's rule from every start against the table; returns the games won, the
/// moves they took and every game's moves.
fn play(
    tb: &Tablebase,
    starts: &[che_tablebase::playout::Start],
    tables: &Tables,
) -> (usize, u64, Vec<(Position, Vec<Move>)>) {
    let mut won = 0;
    let mut moves_total = 0;
    let mut games = Vec::new();
    for st in starts {
        let us = st.position.side_to_move();
        let game = play_out(tb, &st.position, Want::Won, |pos, moves| {
            Ok((choose(pos, &seen_in(&st.position, moves), us, tables), 0))
        });
        if let End::Mate { moves } = game.end {
            won += 1;
            moves_total += u64::from(moves);
        }
        games.push((st.position, game.moves));
    }
    (won, moves_total, games)
}

/// A sample row: the cells of the five tables, the target (plies) and the weight.
struct Row {
    cells: [u32; 5],
    y: f32,
    w: f32,
}

/// Adds a position (our side to move) under every symmetry, canonical.
fn add(rows: &mut Vec<Row>, m: &Men, y: f32, w: f32) {
    for k in 0..4 {
        rows.push(Row {
            cells: cells(&canonical(&map_men(m, k))),
            y,
            w,
        });
    }
}

/// The plies a drawn position (a piece about to be lost) counts as.
const DRAWN_PLIES: f32 = 90.0;

/// Collects every third position after one of our moves and a reply along `games`.
fn collect(tb: &Tablebase, games: &[(Position, Vec<Move>)], rows: &mut Vec<Row>) {
    let mut k = 0u64;
    for (start, moves) in games {
        let us = start.side_to_move();
        let mut p = *start;
        for &m in moves {
            if p.side_to_move() == us {
                for m1 in p.legal_moves().iter().copied() {
                    let p1 = p.after(m1);
                    for r in p1.legal_moves().iter().copied() {
                        let p2 = p1.after(r);
                        k += 1;
                        if k % 3 != 0 {
                            continue;
                        }
                        let Some(mm) = men(&p2, us) else { continue };
                        if piece_lost(&mm) {
                            continue;
                        }
                        match tb.probe(&p2) {
                            Some(Outcome::Win { plies }) => add(rows, &mm, f32::from(plies), 1.0),
                            Some(Outcome::Draw) => add(rows, &mm, DRAWN_PLIES, 1.0),
                            _ => {}
                        }
                    }
                }
            }
            p = p.after(m);
        }
    }
}

/// A small xorshift generator for the random positions.
struct Rng(u64);

impl Rng {
    fn square(&mut self) -> Sq {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let v = (self.0 % 64) as i32;
        (v / 8 + 1, v % 8 + 1)
    }
}

fn fen_of(m: &Men) -> String {
    let mut board = [['.'; 8]; 8];
    for (s, c) in [(m.a, 'K'), (m.y, 'B'), (m.z, 'N'), (m.x, 'k')] {
        board[(s.1 - 1) as usize][(s.0 - 1) as usize] = c;
    }
    let mut fen = String::new();
    for r in (0..8).rev() {
        let mut empty = 0;
        for &c in &board[r] {
            if c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    let _ = write!(fen, "{empty}");
                    empty = 0;
                }
                fen.push(c);
            }
        }
        if empty > 0 {
            let _ = write!(fen, "{empty}");
        }
        if r > 0 {
            fen.push('/');
        }
    }
    fen + " w - - 0 1"
}

/// `n` random won positions, White (our side) to move, the bishop on a dark square.
fn random_wins(tb: &Tablebase, n: usize, seed: u64, rows: &mut Vec<Row>, w: f32) {
    let mut rng = Rng(seed | 1);
    let mut found = 0;
    while found < n {
        let m = Men {
            a: rng.square(),
            y: rng.square(),
            z: rng.square(),
            x: rng.square(),
        };
        let all = [m.a, m.y, m.z, m.x];
        let distinct = (0..4).all(|i| (i + 1..4).all(|j| all[i] != all[j]));
        if (m.y.0 + m.y.1) % 2 == 1 || !distinct || dist(m.a, m.x) < 2 || attacked(&m, m.x) {
            continue;
        }
        let Ok(p) = Position::from_fen(&fen_of(&m)) else {
            continue;
        };
        if let Some(Outcome::Win { plies }) = tb.probe(&p) {
            add(rows, &m, f32::from(plies), w);
            found += 1;
        }
    }
}

/// Least squares by backfitting: each table in turn becomes the weighted mean residual of its
/// cells (the sums shrunk by `SHRINK` samples' weight towards 0).
fn fit(rows: &[Row]) -> (f64, Vec<Vec<f64>>) {
    const SHRINK: f64 = 5.0;
    const SWEEPS: usize = 8;
    let wsum: f64 = rows.iter().map(|r| f64::from(r.w)).sum();
    let constant = rows
        .iter()
        .map(|r| f64::from(r.w) * f64::from(r.y))
        .sum::<f64>()
        / wsum;
    let mut t: Vec<Vec<f64>> = SIZES.iter().map(|&n| vec![0.0; n]).collect();
    for _ in 0..SWEEPS {
        for k in 0..5 {
            let mut sum = vec![0.0; SIZES[k]];
            let mut weight = vec![0.0; SIZES[k]];
            for r in rows {
                let others: f64 = (0..5)
                    .filter(|&j| j != k)
                    .map(|j| t[j][r.cells[j] as usize])
                    .sum();
                let c = r.cells[k] as usize;
                sum[c] += f64::from(r.w) * (f64::from(r.y) - constant - others);
                weight[c] += f64::from(r.w);
            }
            for c in 0..SIZES[k] {
                t[k][c] = sum[c] / (weight[c] + SHRINK);
            }
        }
    }
    (constant, t)
}

/// The fitted tables in tenths of a ply.
fn rounded(constant: f64, t: &[Vec<f64>]) -> Tables {
    Tables {
        constant: (constant * 10.0).round() as i32,
        t: t.iter()
            .map(|v| v.iter().map(|x| (x * 10.0).round() as i32).collect())
            .collect(),
    }
}

/// The tables as CHEG: one subroutine per table (`NTXAN`, `NTXNB`, `NTXAB`) returns, for X the
/// bare king's index in its triangle, the table's list for that square: for each square of the
/// second man in turn, the entries over the third man's squares. A tree of comparisons on X
/// picks the line, so a run builds only the lists it uses. The CHEG code stays short on purpose:
/// every subroutine call of a CHEG program is charged fuel by the length of the whole program's
/// code (docs/cheg.md, "How programs map to the CVM"), so a line per bare king square keeps the
/// calls cheap, at the price of building 8,192 list elements a run. `NET` and `HUNG` are single
/// lists, the constant is `NTC`.
fn cheg(tables: &Tables) -> String {
    let mut s = String::new();
    s.push_str(
        "; KBNK: the value tables of kbnk.cheg, generated by\n\
         ;   cargo run --release -p che-tablebase --example kbnk_tables -- TABLE_DIR OUT.cheg\n\
         ; (chess-core/tablebase/examples/kbnk_tables.rs; do not edit by hand). Each entry is a\n\
         ; part of the estimated distance to mate in tenths of a ply, fitted by least squares\n\
         ; to the tablebase's distances of positions met in the program's own games (see the\n\
         ; generator and docs/cheg.md). NTXAN, NTXNB and NTXAB (X: the bare king's index in\n\
         ; its triangle, 0..19) return the table's list for that square: for each square of\n\
         ; the second man in turn (index (file - 1) * 8 + rank - 1), the entries over the\n\
         ; third man's square (the knight's, 64, or the bishop's, 32, its square index\n\
         ; halved); a tree of comparisons on X picks the line.\n",
    );
    for (k, name) in [(0usize, "XAN"), (1, "XNB"), (2, "XAB")] {
        let width = if k == 0 { 64 } else { 32 };
        let _ = writeln!(s, ";\n; {name}: 20 lines of {} entries.", width * 64);
        tree(&mut s, name, 0, 20, &tables.t[k], width * 64, true);
    }
    let list = |v: &[i32]| v.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
    let _ = writeln!(
        s,
        ";\n; NET (the worst escape square times 9 plus the free squares, + 1) and HUNG\n\
         ; (at (the loose pieces times 2 plus the fork) times 4 plus the moves that save\n\
         ; both pieces, + 1), and the constant.\n\
         NTNET:  RETURN \"({})\nNTHUNG: RETURN \"({})\nNTC:    RETURN \"{}\nEND",
        list(&tables.t[3]),
        list(&tables.t[4]),
        tables.constant
    );
    s
}

/// The comparison tree for keys `lo..hi` of table `name`: a node's tag is `NT<name><lo>H<hi>`
/// (the whole tree's `NT<name>`); the right half follows its comparison, the left is jumped to.
fn tree(s: &mut String, name: &str, lo: usize, hi: usize, t: &[i32], width: usize, top: bool) {
    let tag = if top {
        format!("NT{name}:")
    } else {
        format!("NT{name}{lo}H{hi}:")
    };
    if hi - lo == 1 {
        let list = t[lo * width..(lo + 1) * width]
            .iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let _ = writeln!(s, "{tag} RETURN \"({list})");
        return;
    }
    let mid = (lo + hi) / 2;
    let _ = writeln!(s, "{tag} JUMP< X,\"{mid},NT{name}{lo}H{mid}");
    tree(s, name, mid, hi, t, width, false);
    tree(s, name, lo, mid, t, width, false);
}

/// The tables as plain text (the constant, then one line per table), for `--raw`.
fn raw_text(t: &Tables) -> String {
    let mut s = format!("{}\n", t.constant);
    for v in &t.t {
        s += &v.iter().map(i32::to_string).collect::<Vec<_>>().join(" ");
        s.push('\n');
    }
    s
}

fn parse_raw(text: &str) -> Option<Tables> {
    let mut lines = text.lines();
    let constant = lines.next()?.trim().parse().ok()?;
    let t = lines
        .map(|l| {
            l.split(' ')
                .map(|x| x.parse().ok())
                .collect::<Option<Vec<i32>>>()
        })
        .collect::<Option<Vec<_>>>()?;
    (t.len() == 5 && (0..5).all(|k| t[k].len() == SIZES[k])).then_some(Tables { constant, t })
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), Some(out)) = (
        args.next().map(PathBuf::from),
        args.next().map(PathBuf::from),
    ) else {
        eprintln!("usage: kbnk_tables TABLE_DIR OUT.cheg [RAW]");
        std::process::exit(2);
    };
    // RAW: the fitted tables as text; an existing file is read instead of fitting again.
    let raw = args.next().map(PathBuf::from);
    if let Some(tables) = raw
        .as_ref()
        .and_then(|r| std::fs::read_to_string(r).ok())
        .and_then(|t| parse_raw(&t))
    {
        std::fs::write(&out, cheg(&tables)).expect("write the tables");
        return;
    }
    let tb = Tablebase::load_or_generate(&dir).expect("the tablebase");
    let train = sample(&tb, Material::Kbnk, Want::Won, TRAINING, 0x1234).expect("a sample");
    let validate = sample(&tb, Material::Kbnk, Want::Won, 500, 0x7777).expect("a sample");
    let mut rows = Vec::new();
    random_wins(&tb, 200_000, 4242, &mut rows, 0.1);
    let (c, t) = fit(&rows);
    let mut tables = rounded(c, &t).symmetric();
    // The best tables so far: the most games won, then the fewest moves.
    let mut best: Option<((usize, std::cmp::Reverse<u64>), Tables)> = None;
    for round in 0..ROUNDS {
        let (_, _, games) = play(&tb, &train, &tables);
        collect(&tb, &games, &mut rows);
        let (c, t) = fit(&rows);
        tables = rounded(c, &t).symmetric();
        let (won, moves, _) = play(&tb, &validate, &tables);
        eprintln!(
            "round {round}: {} rows, validation {won}/{} won, {:.1} moves",
            rows.len() / 4,
            validate.len(),
            moves as f64 / won.max(1) as f64
        );
        let key = (won, std::cmp::Reverse(moves));
        if best.as_ref().is_none_or(|b| key > b.0) {
            best = Some((key, tables.clone()));
        }
    }
    let (mut key, mut tables) = best.expect("a round");
    eprintln!("the best round: {} won", key.0);
    let many = sample(&tb, Material::Kbnk, Want::Won, DECISION_TRAINING, 0x1234).expect("a sample");
    let mut trained = tables.clone();
    for pass in 1..=PASSES {
        let wrong = train_decisions(&tb, &many, &mut trained);
        let (w, moves, _) = play(&tb, &validate, &trained);
        eprintln!(
            "decision training {pass}: {wrong} slower choices, validation {w}/{} won, {:.1} moves",
            validate.len(),
            moves as f64 / w.max(1) as f64
        );
        if (w, std::cmp::Reverse(moves)) > key {
            key = (w, std::cmp::Reverse(moves));
            tables = trained.clone();
        }
    }
    eprintln!("writing the tables ({} won)", key.0);
    if let Some(raw) = raw {
        std::fs::write(raw, raw_text(&tables)).expect("write the raw tables");
    }
    std::fs::write(&out, cheg(&tables)).expect("write the tables");
}
