//! What every Che function means, written once in terms of the Che++
//! chess intrinsics.
//!
//! Che++ 1.1 grew out of Che, and most Che functions are one Che++ call
//! with a fixed bonus: `goodsqrs(wN d4)` is `SetSqrs(wN, 20, d4)`. A few
//! need a test first (a pawn move is advised only when the pawn stands on
//! its from-square; a king attack only when the enemy king is on that
//! side), a few several calls (`pwnrams`, `piecesonbrd`), and `isendgame`
//! a little arithmetic. This module turns a checked call into that plan: a
//! [`Check`] for a pattern function, a list of [`Effect`]s for an advice
//! function. The code generator ([`crate::codegen`]) emits CVM code from the
//! plan and the converter ([`crate::convert`]) prints it as Che++, so the
//! two cannot disagree on what a function does: they write the same advice
//! table through the same intrinsics.
//!
//! The bonuses are those of the Che++ standard library (`stdlib.che`):
//! good and weak moves ±20, squares ±20, kept and traded pieces ±20,
//! lines 20, control 30; strong and bad moves are twice a good or weak
//! move, ±40.

use crate::functions::Func;
use crate::hir::FnCall;
use cvm_chess::lit::{self, LitKind};

/// A bonus value of the advice functions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bonus {
    /// A good move (`CHE_MVBONUS`).
    GoodMove,
    /// A strong move: twice a good one.
    StrongMove,
    /// A weak move (`CHE_MVMALUS`).
    WeakMove,
    /// A bad move: twice a weak one.
    BadMove,
    /// A good square (`CHE_SQRBONUS`).
    GoodSquare,
    /// A bad square (`CHE_SQRMALUS`).
    BadSquare,
    /// A piece to keep (`CHE_PCBONUS`).
    Keep,
    /// A piece to trade (`CHE_PCMALUS`).
    Trade,
    /// A good line (`CHE_DIAGBONUS`).
    Line,
    /// Square control (`CHE_CTRLBONUS`).
    Control,
}

impl Bonus {
    /// Every bonus.
    pub const ALL: [Bonus; 10] = [
        Bonus::GoodMove,
        Bonus::StrongMove,
        Bonus::WeakMove,
        Bonus::BadMove,
        Bonus::GoodSquare,
        Bonus::BadSquare,
        Bonus::Keep,
        Bonus::Trade,
        Bonus::Line,
        Bonus::Control,
    ];

    /// The value in centipawns.
    pub fn value(self) -> i32 {
        match self {
            Bonus::GoodMove | Bonus::GoodSquare | Bonus::Keep | Bonus::Line => 20,
            Bonus::WeakMove | Bonus::BadSquare | Bonus::Trade => -20,
            Bonus::StrongMove => 40,
            Bonus::BadMove => -40,
            Bonus::Control => 30,
        }
    }
}

/// The material values `isendgame` counts, by piece kind (knight, bishop,
/// rook, queen): the engine's standard values of `ST_KNIGHTMAT` ...
/// `ST_QUEENMAT`.
pub const ENDGAME_VALUES: [(i32, i32); 4] = [(1, 300), (2, 325), (3, 500), (4, 900)];

/// The most material (pawns and kings not counted) of an endgame: four
/// rooks and two bishops.
pub const ENDGAME_LIMIT: i32 = 4 * 500 + 2 * 325;

/// A scalar argument of an intrinsic call.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// A chess literal (colour, piece, compoperator, ...).
    Lit(LitKind, i32),
    /// A number.
    Int(i32),
    /// A bonus.
    Bonus(Bonus),
}

impl Scalar {
    /// The CVM value.
    pub fn value(self) -> i32 {
        match self {
            Scalar::Lit(_, v) | Scalar::Int(v) => v,
            Scalar::Bonus(b) => b.value(),
        }
    }
}

/// An argument of an intrinsic call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IArg {
    /// One value.
    Scalar(Scalar),
    /// A constant list of literals of one kind (never empty).
    List(LitKind, Vec<i32>),
}

/// A call of a Che++ intrinsic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intr {
    /// The intrinsic's name in `cvm::intrinsics::INTRINSICS`.
    pub name: &'static str,
    /// Its arguments.
    pub args: Vec<IArg>,
}

/// How a pattern function is decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// A pattern intrinsic's answer.
    Intr(Intr),
    /// Known at compile time (an empty list, a pawn ram on the eighth row).
    Const(bool),
    /// `isendgame`: the material of both sides' pieces against
    /// [`ENDGAME_LIMIT`].
    Endgame,
    /// Every check holds (evaluated in order, stopping at the first false).
    All(Vec<Check>),
}

/// What an advice function does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// An advice intrinsic's call.
    Intr(Intr),
    /// The effects, when the check holds.
    When(Check, Vec<Effect>),
}

/// What a call with an empty list means, for the checker's warning.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WhenEmpty {
    /// The pattern always holds.
    Holds,
    /// The pattern never holds.
    Fails,
    /// The advice does nothing.
    Nothing,
}

fn piece(colour: i32, kind: i32) -> Scalar {
    Scalar::Lit(LitKind::Piece, lit::make_piece(colour, kind))
}

fn colour(c: i32) -> Scalar {
    Scalar::Lit(LitKind::Colour, c)
}

fn compop(name: &str) -> Scalar {
    Scalar::Lit(
        LitKind::CompOp,
        lit::parse_compop(name).unwrap_or(lit::COMPOP_BASE),
    )
}

fn side(name: &str) -> IArg {
    let v = lit::parse_word(name).map_or(lit::SIDE_BASE, |(_, v)| v);
    IArg::List(LitKind::BoardSide, vec![v])
}

fn intr(name: &'static str, args: Vec<IArg>) -> Intr {
    Intr { name, args }
}

fn s(x: Scalar) -> IArg {
    IArg::Scalar(x)
}

const PAWN: i32 = 0;

/// The colour (0 or 1) of a piece value.
fn colour_of(piece: i32) -> i32 {
    lit::split_piece(piece).map_or(lit::WHITE, |(c, _)| c)
}

/// `wpwns`-like functions' empty-list meaning, or `None` for functions
/// without a list.
pub fn when_empty(func: Func) -> Option<WhenEmpty> {
    use Func::*;
    Some(match func {
        Wpwns | Bpwns | Wpwncols | Bpwncols | Opencols | Pwnrams | Piececols | Piecerows
        | Piecesonbrd => WhenEmpty::Holds,
        Orwpwns | Orbpwns | Piecesqrs => WhenEmpty::Fails,
        Isendgame | Wkingside | Bkingside | Wminattack | Bminattack | Wqsattack | Bqsattack
        | Wkingattack | Bkingattack => return None,
        _ => WhenEmpty::Nothing,
    })
}

/// The square value of a file wildcard for a column value (`dline` ->
/// `d.`), or of a rank wildcard for a row value (`row3` -> `.3`).
fn line_square(kind: LitKind, value: i32) -> i32 {
    match kind {
        LitKind::Column => lit::FILE_WILDCARD + (value - lit::COLUMN_BASE),
        _ => lit::RANK_WILDCARD + (value - lit::ROW_BASE),
    }
}

/// `piececols`/`piecerows`/`piecesonbrd`: each distinct element counted
/// with its multiplicity. Elements named once share one `PcOnSqrs`;
/// an element named n > 1 times needs n pieces (`CmpNrPcs >= n`).
fn counted(piece_value: Scalar, sets: &[i32]) -> Check {
    let mut distinct: Vec<(i32, i32)> = Vec::new();
    for &v in sets {
        match distinct.iter_mut().find(|(d, _)| *d == v) {
            Some((_, n)) => *n += 1,
            None => distinct.push((v, 1)),
        }
    }
    let singles: Vec<i32> = distinct
        .iter()
        .filter(|(_, n)| *n == 1)
        .map(|(v, _)| *v)
        .collect();
    let mut checks = Vec::new();
    if !singles.is_empty() {
        checks.push(Check::Intr(intr(
            "PcOnSqrs",
            vec![s(piece_value), IArg::List(LitKind::Square, singles)],
        )));
    }
    for &(v, n) in distinct.iter().filter(|(_, n)| *n > 1) {
        checks.push(Check::Intr(intr(
            "CmpNrPcs",
            vec![
                s(piece_value),
                s(compop(">=")),
                s(Scalar::Int(n)),
                IArg::List(LitKind::Square, vec![v]),
            ],
        )));
    }
    all(checks)
}

fn all(mut checks: Vec<Check>) -> Check {
    match checks.len() {
        0 => Check::Const(true),
        1 => checks.remove(0),
        _ => Check::All(checks),
    }
}

/// The plan of a pattern function's call.
pub fn check(call: &FnCall) -> Check {
    use Func::*;
    let values = call.values();
    let list = |kind| IArg::List(kind, values.clone());
    let the_piece = call.piece.map_or(piece(lit::WHITE, PAWN), |p| {
        Scalar::Lit(LitKind::Piece, p.value)
    });
    if values.is_empty() {
        match when_empty(call.func) {
            Some(WhenEmpty::Holds) => return Check::Const(true),
            Some(WhenEmpty::Fails) => return Check::Const(false),
            _ => {}
        }
    }
    match call.func {
        Wpwns => Check::Intr(intr(
            "PcOnSqrs",
            vec![s(piece(0, PAWN)), list(LitKind::Square)],
        )),
        Bpwns => Check::Intr(intr(
            "PcOnSqrs",
            vec![s(piece(1, PAWN)), list(LitKind::Square)],
        )),
        Orwpwns => Check::Intr(intr(
            "orPcOnSqrs",
            vec![s(piece(0, PAWN)), list(LitKind::Square)],
        )),
        Orbpwns => Check::Intr(intr(
            "orPcOnSqrs",
            vec![s(piece(1, PAWN)), list(LitKind::Square)],
        )),
        Wpwncols | Bpwncols | Opencols => {
            let (c, op) = match call.func {
                Wpwncols => (lit::WHITE, ">"),
                Bpwncols => (lit::BLACK, ">"),
                _ => (lit::ANY_COLOUR, "="),
            };
            Check::Intr(intr(
                "POnLine",
                vec![
                    s(colour(c)),
                    s(compop(op)),
                    s(Scalar::Int(0)),
                    list(LitKind::Column),
                ],
            ))
        }
        Pwnrams => {
            if values.iter().any(|&sq| sq >= 56) {
                return Check::Const(false);
            }
            let above: Vec<i32> = values.iter().map(|sq| sq + 8).collect();
            Check::All(vec![
                Check::Intr(intr(
                    "PcOnSqrs",
                    vec![s(piece(0, PAWN)), list(LitKind::Square)],
                )),
                Check::Intr(intr(
                    "PcOnSqrs",
                    vec![s(piece(1, PAWN)), IArg::List(LitKind::Square, above)],
                )),
            ])
        }
        Piecesqrs => Check::Intr(intr(
            "orPcOnSqrs",
            vec![s(the_piece), list(LitKind::Square)],
        )),
        Piececols | Piecerows => {
            let kind = if call.func == Piececols {
                LitKind::Column
            } else {
                LitKind::Row
            };
            let sets: Vec<i32> = values.iter().map(|&v| line_square(kind, v)).collect();
            counted(the_piece, &sets)
        }
        Piecesonbrd => {
            let mut distinct: Vec<(i32, i32)> = Vec::new();
            for &v in &values {
                match distinct.iter_mut().find(|(d, _)| *d == v) {
                    Some((_, n)) => *n += 1,
                    None => distinct.push((v, 1)),
                }
            }
            let board = IArg::List(LitKind::Square, vec![lit::ALL_SQUARES]);
            all(distinct
                .into_iter()
                .map(|(p, n)| {
                    let p = Scalar::Lit(LitKind::Piece, p);
                    if n == 1 {
                        Check::Intr(intr("PcOnSqrs", vec![s(p), board.clone()]))
                    } else {
                        Check::Intr(intr(
                            "CmpNrPcs",
                            vec![s(p), s(compop(">=")), s(Scalar::Int(n)), board.clone()],
                        ))
                    }
                })
                .collect())
        }
        Wkingside | Bkingside => {
            let c = if call.func == Wkingside {
                lit::WHITE
            } else {
                lit::BLACK
            };
            Check::Intr(intr(
                "KingPos",
                vec![s(colour(c)), list(LitKind::BoardSide)],
            ))
        }
        Isendgame => Check::Endgame,
        // Advice functions are never checked (the checker refuses them in
        // patterns); they hold trivially should one arrive here.
        _ => Check::Const(true),
    }
}

/// The plan of an advice function's call.
pub fn effects(call: &FnCall) -> Vec<Effect> {
    use Func::*;
    let values = call.values();
    if values.is_empty() && when_empty(call.func) == Some(WhenEmpty::Nothing) {
        return Vec::new();
    }
    let list = |kind| IArg::List(kind, values.clone());
    let piece_value = call.piece.map_or(lit::make_piece(0, PAWN), |p| p.value);
    let the_piece = Scalar::Lit(LitKind::Piece, piece_value);
    let own = colour(colour_of(piece_value));
    let one = |e: Intr| vec![Effect::Intr(e)];
    match call.func {
        Wpwnmvs | Bpwnmvs => {
            let c = if call.func == Wpwnmvs {
                lit::WHITE
            } else {
                lit::BLACK
            };
            values
                .iter()
                .map(|&mv| {
                    let from = lit::split_move(mv).map_or(0, |(f, _)| f);
                    Effect::When(
                        Check::Intr(intr(
                            "PcOnSqrs",
                            vec![s(piece(c, PAWN)), IArg::List(LitKind::Square, vec![from])],
                        )),
                        vec![Effect::Intr(intr(
                            "SetMvs",
                            vec![
                                s(colour(c)),
                                s(Scalar::Bonus(Bonus::GoodMove)),
                                IArg::List(LitKind::Move, vec![mv]),
                            ],
                        ))],
                    )
                })
                .collect()
        }
        Goodmvs | Strongmvs | Weakmvs | Badmvs => {
            let bonus = match call.func {
                Goodmvs => Bonus::GoodMove,
                Strongmvs => Bonus::StrongMove,
                Weakmvs => Bonus::WeakMove,
                _ => Bonus::BadMove,
            };
            one(intr(
                "SetMvs",
                vec![s(own), s(Scalar::Bonus(bonus)), list(LitKind::Move)],
            ))
        }
        Mvtosqrs | Mvnotsqrs => {
            let bonus = if call.func == Mvtosqrs {
                Bonus::GoodMove
            } else {
                Bonus::WeakMove
            };
            let moves = values
                .iter()
                .map(|&sq| lit::make_move(lit::ALL_SQUARES, sq))
                .collect();
            one(intr(
                "SetMvs",
                vec![
                    s(own),
                    s(Scalar::Bonus(bonus)),
                    IArg::List(LitKind::Move, moves),
                ],
            ))
        }
        Wctrlsqrs | Bctrlsqrs => {
            let c = if call.func == Wctrlsqrs {
                lit::WHITE
            } else {
                lit::BLACK
            };
            one(intr(
                "CtrlSqrs",
                vec![
                    s(piece(c, lit::ANY_KIND)),
                    s(Scalar::Bonus(Bonus::Control)),
                    list(LitKind::Square),
                ],
            ))
        }
        Wminattack | Bminattack => {
            let c = if call.func == Wminattack {
                lit::WHITE
            } else {
                lit::BLACK
            };
            one(intr("MinAttack", vec![s(colour(c))]))
        }
        Wqsattack | Bqsattack => {
            let c = if call.func == Wqsattack {
                lit::WHITE
            } else {
                lit::BLACK
            };
            one(intr("Attack", vec![s(colour(c)), side("qside")]))
        }
        Wkingattack | Bkingattack => {
            let (c, enemy) = if call.func == Wkingattack {
                (lit::WHITE, lit::BLACK)
            } else {
                (lit::BLACK, lit::WHITE)
            };
            vec![Effect::When(
                Check::Intr(intr(
                    "KingPos",
                    vec![s(colour(enemy)), list(LitKind::BoardSide)],
                )),
                one(intr("Attack", vec![s(colour(c)), list(LitKind::BoardSide)])),
            )]
        }
        WexchgBs | BexchgBs | WkeepBs | BkeepBs => {
            let c = if matches!(call.func, WexchgBs | WkeepBs) {
                lit::WHITE
            } else {
                lit::BLACK
            };
            let bonus = if matches!(call.func, WexchgBs | BexchgBs) {
                Bonus::Trade
            } else {
                Bonus::Keep
            };
            one(intr(
                "KeepBs",
                vec![
                    s(colour(c)),
                    s(Scalar::Bonus(bonus)),
                    list(LitKind::SquareColour),
                ],
            ))
        }
        Exchgpieces | Keeppieces => {
            let bonus = if call.func == Exchgpieces {
                Bonus::Trade
            } else {
                Bonus::Keep
            };
            one(intr(
                "KeepPcs",
                vec![s(Scalar::Bonus(bonus)), list(LitKind::Piece)],
            ))
        }
        Goodsqrs | Badsqrs => {
            let bonus = if call.func == Goodsqrs {
                Bonus::GoodSquare
            } else {
                Bonus::BadSquare
            };
            one(intr(
                "SetSqrs",
                vec![s(the_piece), s(Scalar::Bonus(bonus)), list(LitKind::Square)],
            ))
        }
        Goodcols | Goodrows => {
            let kind = if call.func == Goodcols {
                LitKind::Column
            } else {
                LitKind::Row
            };
            let squares = values.iter().map(|&v| line_square(kind, v)).collect();
            one(intr(
                "SetSqrs",
                vec![
                    s(the_piece),
                    s(Scalar::Bonus(Bonus::GoodSquare)),
                    IArg::List(LitKind::Square, squares),
                ],
            ))
        }
        Gooddiags => one(intr(
            "SetDiags",
            vec![
                s(the_piece),
                s(Scalar::Bonus(Bonus::Line)),
                list(LitKind::Move),
            ],
        )),
        // Pattern functions never reach here (the checker refuses them in
        // advices); they do nothing should one arrive.
        _ => Vec::new(),
    }
}

/// The piece value `isendgame` counts for a kind: both colours.
pub fn endgame_piece(kind: i32) -> i32 {
    lit::make_piece(lit::ANY_COLOUR, kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::intrinsics::{by_name, ParamKind};
    use cvm_chess::style;

    #[test]
    fn endgame_values_are_the_standard_material() {
        let ids = [
            style::ST_KNIGHTMAT,
            style::ST_BISHOPMAT,
            style::ST_ROOKMAT,
            style::ST_QUEENMAT,
        ];
        for ((_, v), id) in ENDGAME_VALUES.iter().zip(ids) {
            assert_eq!(*v, style::default_value(id));
        }
        assert_eq!(ENDGAME_LIMIT, 2650);
    }

    /// Every plan calls intrinsics that exist, with arguments of the kinds
    /// their parameters take.
    #[test]
    fn plans_fit_the_intrinsic_table() {
        use crate::functions::{Role, Shape, FUNCTIONS};
        use crate::hir::Arg;
        use crate::source::Span;
        fn walk_check(c: &Check, out: &mut Vec<(Intr, bool)>) {
            match c {
                Check::Intr(i) => out.push((i.clone(), true)),
                Check::All(cs) => cs.iter().for_each(|c| walk_check(c, out)),
                Check::Const(_) | Check::Endgame => {}
            }
        }
        fn walk_effect(e: &Effect, out: &mut Vec<(Intr, bool)>) {
            match e {
                Effect::Intr(i) => out.push((i.clone(), false)),
                Effect::When(c, es) => {
                    walk_check(c, out);
                    es.iter().for_each(|e| walk_effect(e, out));
                }
            }
        }
        let arg = |kind: LitKind, word: &str| Arg {
            kind,
            value: cvm_chess::lit::parse_word(word).unwrap().1,
            span: Span::default(),
        };
        let sample = |kind: LitKind| match kind {
            LitKind::Square => vec![arg(kind, "e4"), arg(kind, "d5")],
            LitKind::Move => vec![arg(kind, "e2e4"), arg(kind, "g1f3")],
            LitKind::Piece => vec![arg(kind, "wN"), arg(kind, "bQ"), arg(kind, "wN")],
            LitKind::Column => vec![arg(kind, "dline"), arg(kind, "dline"), arg(kind, "eline")],
            LitKind::Row => vec![arg(kind, "row2"), arg(kind, "row7")],
            LitKind::BoardSide => vec![arg(kind, "kside")],
            _ => vec![arg(kind, "lsqr")],
        };
        for row in FUNCTIONS {
            let (piece, list) = match row.shape {
                Shape::Nothing => (None, Vec::new()),
                Shape::List(k) => (None, sample(k)),
                Shape::PieceList(k) => (Some(arg(LitKind::Piece, "wR")), sample(k)),
                Shape::Side => (None, sample(LitKind::BoardSide)),
            };
            let call = FnCall {
                func: row.func,
                piece,
                list,
                span: Span::default(),
            };
            let mut calls = Vec::new();
            match row.role {
                Role::Pattern => walk_check(&check(&call), &mut calls),
                Role::Advice => effects(&call)
                    .iter()
                    .for_each(|e| walk_effect(e, &mut calls)),
            }
            if row.func != Func::Isendgame {
                assert!(!calls.is_empty(), "{}", row.name);
            }
            for (c, tests) in calls {
                let (_, info) =
                    by_name(c.name).unwrap_or_else(|| panic!("{}: {}", row.name, c.name));
                assert_eq!(info.params.len(), c.args.len(), "{}: {}", row.name, c.name);
                assert_eq!(info.returns, tests, "{}: {}", row.name, c.name);
                for (p, a) in info.params.iter().zip(&c.args) {
                    match (p.kind, a) {
                        (ParamKind::List { out, .. }, IArg::List(_, v)) => {
                            assert!(!out && !v.is_empty(), "{}: {}", row.name, c.name)
                        }
                        (ParamKind::List { .. }, _) | (_, IArg::List(..)) => {
                            panic!("{}: {} argument {}", row.name, c.name, p.name)
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}
