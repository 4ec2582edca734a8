//! The runtime: a [`cvm::Host`] that answers the `HostCall` services of
//! compiled CHEG code with a per-run value heap, the position, and a
//! [`Searcher`] for TRY, PLAYB and PLAN. What a run produced (BREAK lines,
//! the chosen move, the value) is collected in a [`Report`].

pub mod board;
pub mod meter;
pub mod ops;

use crate::ast::{Literal, Program};
use crate::search::{Plan, Searcher, TryMove};
use crate::service as svc;
use crate::table::{Cond, Instr, Order, Predefined};
use crate::value::{Heap, MoveVal, Value};
use board::Board;
use chess_core::{Move, PieceKind, Position};
use cvm::{HostAnswer, TrapKind};
use meter::{Meter, CONDITION_STEPS, MOVEGEN_STEPS, NODE_STEPS, PRINT_STEPS, SERVICE_STEPS};
use ops::{int, set};

/// What one run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The ENTRY that matched (its index), or `None` when none did.
    pub entry: Option<usize>,
    /// One `break ...` line per executed BREAK.
    pub breaks: Vec<String>,
    /// The move chosen by PLAY, PLAYB, DONE or RETBET.
    pub chosen: Option<Move>,
    /// The last (win, lose, certainty) given by VALRET, VALRUT or VALON.
    pub value: Option<[i64; 3]>,
    /// The best move found by TRY and PLAN so far and its score.
    pub best: Option<(Move, i32)>,
    /// Whether the run ended by an instruction (rather than by an error).
    pub finished: bool,
}

impl Report {
    /// The lines `che run` prints after the BREAK lines: `move ...` and,
    /// when a value was given, `value W L C`; or `no entry`.
    pub fn summary_lines(&self) -> Vec<String> {
        if self.entry.is_none() {
            return vec!["no entry".to_string()];
        }
        let mut out = vec![match self.chosen {
            Some(m) => format!("move {m}"),
            None => "move none".to_string(),
        }];
        if let Some([w, l, c]) = self.value {
            out.push(format!("value {w} {l} {c}"));
        }
        out
    }

    /// Every line `che run` prints for the run, in order.
    pub fn lines(&self) -> Vec<String> {
        let mut out = self.breaks.clone();
        out.extend(self.summary_lines());
        out
    }
}

/// The score of a (win, lose, certainty) value, on the searcher's scale:
/// following the original's conversion, the difference win - lose counts;
/// with certainty 500 or more it is a certain result (0 for a certain
/// draw, otherwise 20000 plus the clamped difference, signed), below that
/// the difference is taken as hundredths of a pawn.
pub fn score_of(win: i64, lose: i64, certainty: i64) -> i32 {
    let d = win.saturating_sub(lose);
    if certainty >= 500 {
        if d == 0 {
            0
        } else {
            let d = d.clamp(-500, 500) as i32;
            d.signum() * 20_000 + d
        }
    } else {
        d.clamp(-19_999, 19_999) as i32
    }
}

/// The first ENTRY of `program` that matches the material of `position`,
/// read from the side to move's point of view (its pieces are "White"'s),
/// as START chooses it.
pub fn matching_entry(program: &Program, position: &Position) -> Option<usize> {
    let us = position.side_to_move();
    let count = |c, k| position.pieces(c, k).count() as u8;
    program.entries.iter().position(|e| {
        let sides = [(us, &e.white), (!us, &e.black)];
        let pieces_match = sides.iter().all(|(c, m)| {
            count(*c, PieceKind::Queen) == m.queens
                && count(*c, PieceKind::Rook) == m.rooks
                && count(*c, PieceKind::Bishop) == m.bishops
                && count(*c, PieceKind::Knight) == m.knights
                && count(*c, PieceKind::Pawn) == m.pawns
        });
        let diff = i32::from(count(us, PieceKind::Pawn)) - i32::from(count(!us, PieceKind::Pawn));
        pieces_match && e.diff.is_none_or(|d| d.holds(diff))
    })
}

/// The host of one CHEG run.
pub struct ChegHost<'a> {
    program: &'a Program,
    board: Board,
    heap: Heap,
    searcher: &'a mut dyn Searcher,
    depth: i32,
    plan: Option<Plan>,
    literals: Vec<Option<i32>>,
    predefined: Vec<Option<i32>>,
    report: Report,
    /// The work of the service call in progress.
    meter: Meter,
}

impl<'a> ChegHost<'a> {
    /// A host for running `program` on `position`, searching with
    /// `searcher`.
    pub fn new(program: &'a Program, position: Position, searcher: &'a mut dyn Searcher) -> Self {
        ChegHost {
            program,
            board: Board::new(position),
            heap: Heap::default(),
            searcher,
            depth: 1,
            plan: None,
            literals: vec![None; program.literals.len()],
            predefined: vec![None; 48],
            report: Report::default(),
            meter: Meter::unlimited(),
        }
    }

    /// Sets DEPTH (1, the default, is the top level) and the plan the
    /// run starts under (deeper plies of an engine search).
    pub fn set_context(&mut self, depth: i32, plan: Option<Plan>) {
        self.depth = depth;
        self.plan = plan;
    }

    /// What the run did so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Takes the report.
    pub fn into_report(self) -> Report {
        self.report
    }

    /// The value of a handle.
    pub fn value(&self, handle: i32) -> &Value {
        self.heap.get(handle)
    }

    fn put(&mut self, v: Value) -> Result<i32, TrapKind> {
        self.heap
            .put(v)
            .map_err(|e| TrapKind::Intrinsic(e.to_string()))
    }

    fn get(&self, h: i32) -> Value {
        self.heap.get(h).clone()
    }

    fn start(&mut self) -> Result<i32, TrapKind> {
        if let Some(plan) = &self.plan {
            self.report.entry = Some(usize::MAX);
            return Ok(plan.target);
        }
        // An ENTRY line is tested in a step or so.
        self.meter.add(self.program.entries.len() as u64)?;
        match matching_entry(self.program, &self.board.position) {
            Some(i) => {
                self.report.entry = Some(i);
                Ok((self.program.tags.len() + i) as i32)
            }
            None => Ok(-1),
        }
    }

    fn literal(&mut self, k: i32) -> Result<i32, TrapKind> {
        let index = usize::try_from(k).ok().filter(|&i| i < self.literals.len());
        let Some(index) = index else {
            return Err(TrapKind::Intrinsic(format!("no literal {k}")));
        };
        if let Some(h) = self.literals[index] {
            return Ok(h);
        }
        let v = literal_value(&self.program.literals[index]);
        self.meter.nodes(&v, 1)?;
        let h = self.put(v)?;
        self.literals[index] = Some(h);
        Ok(h)
    }

    fn predefined(&mut self, code: i32) -> Result<i32, TrapKind> {
        let Some(p) = Predefined::from_code(code) else {
            return Err(TrapKind::Intrinsic(format!(
                "no predefined variable {code}"
            )));
        };
        let slot = code as usize;
        if let Some(Some(h)) = self.predefined.get(slot) {
            return Ok(*h);
        }
        if matches!(p, Predefined::Lm | Predefined::Pg) {
            self.meter.add(MOVEGEN_STEPS)?;
        }
        let v = self.fresh_predefined(p);
        self.meter.nodes(&v, 1)?;
        let h = self.put(v)?;
        if let Some(s) = self.predefined.get_mut(slot) {
            *s = Some(h);
        }
        Ok(h)
    }

    /// The value predefined variable `p` has for the program now: what
    /// `predefined` would read (the value it already read, else the one
    /// on this run's position), without charging the meter or caching.
    /// X, the subroutine argument, lives in the running routine's frame
    /// and is undefined here.
    pub fn predefined_value(&self, p: Predefined) -> Value {
        if let Some(Some(h)) = self.predefined.get(p.code() as usize) {
            return self.heap.get(*h).clone();
        }
        self.fresh_predefined(p)
    }

    /// The value of predefined variable `p` on this run's position (X:
    /// undefined), computed anew.
    fn fresh_predefined(&self, p: Predefined) -> Value {
        match p {
            Predefined::X => Value::Undef,
            Predefined::Depth => Value::Int(i64::from(self.depth)),
            Predefined::Lm => Value::set(
                self.board
                    .legal_moves()
                    .iter()
                    .map(|&m| Board::move_value(m))
                    .collect(),
            ),
            Predefined::Pg => Value::set(
                self.board
                    .pawn_groups()
                    .into_iter()
                    .map(|g| Value::set(g.into_iter().map(Value::Piece).collect()))
                    .collect(),
            ),
            Predefined::Piece(side, k) => self.board.piece_variables()[usize::from(side) & 1]
                .get(usize::from(k))
                .copied()
                .flatten()
                .map_or(Value::Undef, Value::Piece),
        }
    }

    fn piece_var(&self, side: usize, slot: usize) -> Option<crate::value::PieceVal> {
        self.board.piece_variables()[side][slot]
    }

    /// Evaluates condition `code` ([`svc::cond_code`]) on `v`, with `side`
    /// the value of the program variable SIDE.
    fn condition(&self, code: i32, v: &Value, side: &Value) -> Result<bool, TrapKind> {
        let negated = code & 256 != 0;
        let Some(cond) = Cond::from_index((code & 255) as usize) else {
            return Err(TrapKind::Intrinsic(format!("no condition {code}")));
        };
        let name = cond.name();
        let b = &self.board;
        let side_value = || match side {
            Value::Int(n) => Ok(*n),
            Value::Undef => Err(TrapKind::Intrinsic(format!("{name}: SIDE is undefined"))),
            other => Err(TrapKind::Intrinsic(format!(
                "{name}: SIDE is {}, not an integer",
                other.kind_name()
            ))),
        };
        let kind_is = |k: PieceKind| b.piece_of(name, v).map(|p| p.kind == k);
        let pawn = || {
            let p = b.piece_of(name, v)?;
            if p.kind == PieceKind::Pawn {
                Ok(p)
            } else {
                Err(TrapKind::Intrinsic(format!(
                    "{name}: {} is not a pawn",
                    Value::Piece(p)
                )))
            }
        };
        let result = match cond {
            Cond::Always => true,
            Cond::Defd => *v != Value::Undef,
            Cond::Zero => int(name, v)? == 0,
            Cond::Negative => int(name, v)? < 0,
            Cond::Positive => int(name, v)? > 0,
            Cond::Odd => int(name, v)? % 2 != 0,
            Cond::True => ops::logical(name, v)?,
            Cond::Empty => set(name, v)?.is_empty(),
            Cond::Far => {
                let sq = Board::square_of(name, v)?;
                b.side(sq) != side_value()?
            }
            Cond::Rf => matches!(b.file(Board::square_of(name, v)?), 1 | 8),
            Cond::Nf => matches!(b.file(Board::square_of(name, v)?), 2 | 7),
            Cond::Nnf => {
                let sq = Board::square_of(name, v)?;
                matches!(b.file(sq), 2 | 7) && b.side(sq) == side_value()?
            }
            Cond::Safe => self.safe(v)?,
            Cond::King => kind_is(PieceKind::King)?,
            Cond::Pawn => kind_is(PieceKind::Pawn)?,
            Cond::Queen => kind_is(PieceKind::Queen)?,
            Cond::Rook => kind_is(PieceKind::Rook)?,
            Cond::Night => kind_is(PieceKind::Knight)?,
            Cond::Bish => kind_is(PieceKind::Bishop)?,
            Cond::Passd => b.passed(&pawn()?),
            Cond::Pdp => b.pawn_defended(&pawn()?),
            Cond::Wsq => Board::light(Board::square_of(name, v)?),
            Cond::Wpc => b.piece_of(name, v)?.colour == b.us,
            Cond::Capt => b.captures(&Board::move_of(name, v)?),
            Cond::Check => b.gives_check(&Board::move_of(name, v)?),
            Cond::Opp => {
                let m = Board::move_of(name, v)?;
                let wk = self.king_after(name, &m)?;
                let bk = self
                    .piece_var(1, 0)
                    .ok_or_else(|| TrapKind::Intrinsic(format!("{name}: BK is undefined")))?;
                Board::opposition(wk, bk.square)
            }
            Cond::RwkEq => {
                let m = Board::move_of(name, v)?;
                let moved = b.piece_of(name, v)?;
                if moved.kind != PieceKind::King {
                    true
                } else {
                    b.rank(m.to) == b.rank(m.from)
                }
            }
        };
        Ok(result != negated)
    }

    /// Where WK stands after move `m`: its destination for a king move,
    /// else WK's square.
    fn king_after(&self, name: &str, m: &MoveVal) -> Result<chess_core::Square, TrapKind> {
        let moved = self.board.piece_of(name, &Value::Move(*m))?;
        if moved.kind == PieceKind::King {
            return Ok(m.to);
        }
        self.piece_var(0, 0)
            .map(|k| k.square)
            .ok_or_else(|| TrapKind::Intrinsic(format!("{name}: WK is undefined")))
    }

    /// SAFE: after the move, WK is no farther (in king moves) from the
    /// pawn than BK is; the pawn is the moved pawn's destination for a
    /// pawn move, else WP.
    fn safe(&self, v: &Value) -> Result<bool, TrapKind> {
        let name = "SAFE";
        let m = Board::move_of(name, v)?;
        let moved = self.board.piece_of(name, v)?;
        let undefined = |what: &str| TrapKind::Intrinsic(format!("{name}: {what} is undefined"));
        let wk = self.king_after(name, &m)?;
        let pawn = if moved.kind == PieceKind::Pawn {
            m.to
        } else {
            self.piece_var(0, 8).ok_or_else(|| undefined("WP"))?.square
        };
        let bk = self.piece_var(1, 0).ok_or_else(|| undefined("BK"))?.square;
        Ok(Board::distance(wk, pawn) <= Board::distance(bk, pawn))
    }

    /// Whether ORDER with `code` puts `b` before `a` (exchanges them).
    fn order_exchanges(&self, code: i32, a: &Value, b: &Value) -> Result<bool, TrapKind> {
        let reversed = code & 256 != 0;
        let order = if code & 255 == 1 {
            Order::Deep
        } else {
            Order::None
        };
        match order {
            Order::None => Ok(false),
            Order::Deep => {
                let ra = self.board.rank(Board::move_of("DEEP", a)?.to);
                let rb = self.board.rank(Board::move_of("DEEP", b)?.to);
                Ok(if reversed { ra > rb } else { ra < rb })
            }
        }
    }

    /// The elements of `set` that satisfy condition `cond`, stably sorted
    /// by ordering `order`.
    fn select(
        &mut self,
        what: &str,
        set_value: &Value,
        cond: i32,
        order: i32,
        side: &Value,
    ) -> Result<Vec<Value>, TrapKind> {
        let items = set(what, set_value)?;
        let mut out = Vec::new();
        for e in items {
            self.meter.add(CONDITION_STEPS)?;
            if self.condition(cond, e, side)? {
                out.push(e.clone());
            }
        }
        if order & 255 != 0 {
            // A rank per element and a sort.
            let n = out.len() as u64;
            self.meter
                .add(n.saturating_mul(u64::from(64 - n.leading_zeros())))?;
            let mut keyed = Vec::with_capacity(out.len());
            for e in out {
                let r = self.board.rank(Board::move_of("DEEP", &e)?.to);
                keyed.push((r, e));
            }
            if order & 256 != 0 {
                keyed.sort_by_key(|(r, _)| *r);
            } else {
                keyed.sort_by_key(|(r, _)| std::cmp::Reverse(*r));
            }
            out = keyed.into_iter().map(|(_, e)| e).collect();
        }
        Ok(out)
    }

    /// Tries the moves in order with the searcher, keeping the best.
    fn try_moves(&mut self, what: &str, moves: &[Value]) -> Result<(), TrapKind> {
        for v in moves {
            let m = Board::move_of(what, v)?;
            // The legality test, and before every search the check that
            // the budget is not spent already.
            self.meter.add(MOVEGEN_STEPS)?;
            let Some(legal) = self.board.legal(&m) else {
                continue;
            };
            let found = self.searcher.search(&TryMove {
                position: &self.board.position,
                mv: legal,
                depth: self.depth,
                plan: self.plan.as_ref(),
            });
            self.meter.add(found.nodes.saturating_mul(NODE_STEPS))?;
            let score = found.value;
            if self.report.best.is_none_or(|(_, b)| score > b) {
                self.report.best = Some((legal, score));
            }
        }
        Ok(())
    }

    fn end(&mut self, chosen: Option<Move>) -> i32 {
        self.report.chosen = chosen;
        self.report.finished = true;
        1
    }

    fn give_value(&mut self, what: &str, w: &Value, l: &Value, c: &Value) -> Result<(), TrapKind> {
        self.report.value = Some([int(what, w)?, int(what, l)?, int(what, c)?]);
        Ok(())
    }

    fn instruction(&mut self, instr: Instr, args: [i32; 3]) -> Result<i32, TrapKind> {
        let [a, b, c] = args;
        let name = instr.name();
        let (va, vb, vc) = (self.get(a), self.get(b), self.get(c));
        let value = match instr {
            Instr::Break => {
                let mut line = String::from("break");
                for h in args {
                    if h >= 0 {
                        self.meter.nodes(self.heap.get(h), PRINT_STEPS)?;
                        line.push(' ');
                        line.push_str(&self.heap.get(h).to_string());
                    }
                }
                self.report.breaks.push(line);
                return Ok(0);
            }
            Instr::Play | Instr::PlayB | Instr::Try => {
                let chosen = self.select(name, &va, b & 0xFFFF, b >> 16, &vc)?;
                if instr == Instr::Try {
                    self.try_moves(name, &chosen)?;
                    return Ok(0);
                }
                if chosen.is_empty() {
                    return Ok(0);
                }
                if instr == Instr::PlayB {
                    self.try_moves(name, &chosen)?;
                    let best = self.report.best.map(|(m, _)| m);
                    return Ok(if best.is_some() { self.end(best) } else { 0 });
                }
                let m = Board::move_of(name, &chosen[0])?;
                let Some(legal) = self.board.legal(&m) else {
                    return Err(TrapKind::Intrinsic(format!(
                        "PLAY: {} is not a legal move",
                        chosen[0]
                    )));
                };
                return Ok(self.end(Some(legal)));
            }
            Instr::Plan => {
                let moves = set(name, &vb)?.to_vec();
                self.meter.add(moves.len() as u64)?;
                self.plan = Some(Plan {
                    target: a,
                    variable: vc,
                });
                self.try_moves(name, &moves)?;
                return Ok(0);
            }
            Instr::Unplan => {
                self.plan = None;
                return Ok(0);
            }
            Instr::Done => {
                let best = self.report.best.map(|(m, _)| m);
                return Ok(self.end(best));
            }
            Instr::Leave => return Ok(self.end(None)),
            Instr::RetBet => {
                let bar = score_of(int(name, &va)?, int(name, &vb)?, int(name, &vc)?);
                return Ok(match self.report.best {
                    Some((m, s)) if s > bar => self.end(Some(m)),
                    _ => 0,
                });
            }
            Instr::ValRet => {
                self.give_value(name, &va, &vb, &vc)?;
                return Ok(self.end(None));
            }
            Instr::ValRut => {
                self.give_value(name, &va, &vb, &vc)?;
                return Ok(if self.depth <= 1 { 0 } else { self.end(None) });
            }
            Instr::ValOn => {
                self.give_value(name, &va, &vb, &vc)?;
                return Ok(0);
            }
            Instr::SelecC => Value::set(self.select(name, &vb, a, 0, &vc)?),
            Instr::Add
            | Instr::Sub
            | Instr::Mul
            | Instr::Div
            | Instr::Mod
            | Instr::Dif
            | Instr::Min
            | Instr::Max
            | Instr::Abs => ops::arithmetic(instr, &va, &vb)?,
            Instr::Nor | Instr::Or | Instr::And => ops::logic(instr, &va, &vb)?,
            Instr::Pair
            | Instr::Member
            | Instr::MemNum
            | Instr::Card
            | Instr::Inters
            | Instr::Union
            | Instr::Differ
            | Instr::Append
            | Instr::GetEl
            | Instr::SetEl
            | Instr::Insert
            | Instr::Unsert
            | Instr::ExchWE
            | Instr::ExchEl => ops::set_op_metered(instr, &va, &vb, &vc, &mut self.meter)?,
            Instr::Piece => Value::Piece(self.board.piece_of(name, &va)?),
            Instr::Square => Value::Square(Board::square_of(name, &va)?),
            Instr::Side => Value::Int(self.board.side(Board::square_of(name, &va)?)),
            Instr::Rank => Value::Int(self.board.rank(Board::square_of(name, &va)?)),
            Instr::File => Value::Int(self.board.file(Board::square_of(name, &va)?)),
            Instr::SColor => Value::Int(if Board::light(Board::square_of(name, &va)?) {
                0
            } else {
                1
            }),
            Instr::PColor => {
                Value::Int(if self.board.piece_of(name, &va)?.colour == self.board.us {
                    0
                } else {
                    1
                })
            }
            Instr::MvDist => Value::Int(Board::distance(
                Board::square_of(name, &va)?,
                Board::square_of(name, &vb)?,
            )),
            Instr::Opp => Value::Logical(Board::opposition(
                Board::square_of(name, &va)?,
                Board::square_of(name, &vb)?,
            )),
            Instr::InSq => {
                let king = self.board.piece_of(name, &va)?;
                let pawn = self.board.piece_of(name, &vb)?;
                if king.kind != PieceKind::King || pawn.kind != PieceKind::Pawn {
                    return Err(TrapKind::Intrinsic(format!(
                        "INSQ: {} and {} are not a king and a pawn",
                        Value::Piece(king),
                        Value::Piece(pawn)
                    )));
                }
                Value::Logical(self.board.in_square(&king, &pawn))
            }
            Instr::SqGtRnk => {
                let sq = Board::square_of(name, &va)?;
                let up = int(name, &vb)?;
                let rank = self.board.rank(sq).saturating_add(up);
                match self.board.square_at(rank, self.board.file(sq)) {
                    Some(s) => Value::Square(s),
                    None => {
                        return Err(TrapKind::Intrinsic(format!(
                            "SQ>RNK: {sq} moved {up} ranks leaves the board"
                        )))
                    }
                }
            }
            Instr::SetSq => {
                let (rank, file) = (int(name, &va)?, int(name, &vb)?);
                match self.board.square_at(rank, file) {
                    Some(s) => Value::Square(s),
                    None => {
                        return Err(TrapKind::Intrinsic(format!(
                            "SETSQ: there is no square at rank {rank}, file {file}"
                        )))
                    }
                }
            }
            Instr::SetMov => {
                let p = self.board.piece_of(name, &va)?;
                let to = Board::square_of(name, &vb)?;
                let last = Board::rank_for(p.colour, to) == 8;
                let promotion = (p.kind == PieceKind::Pawn && last).then_some(PieceKind::Queen);
                Value::Move(MoveVal {
                    from: p.square,
                    to,
                    promotion,
                })
            }
            _ => {
                return Err(TrapKind::Intrinsic(format!(
                    "{name} has no runtime service"
                )))
            }
        };
        self.put(value)
    }
}

/// The value of a literal.
pub fn literal_value(lit: &Literal) -> Value {
    match lit {
        Literal::Logical(b) => Value::Logical(*b),
        Literal::Int(n) => Value::Int(*n),
        Literal::Set(items) => Value::set(items.iter().map(literal_value).collect()),
    }
}

/// The services charge fuel for their work (docs/cheg.md, "Fuel"):
/// [`cvm::Host::extension_metered`] counts it on a [`Meter`] and stops a
/// service whose work the run's budget cannot pay for.
impl cvm::Host for ChegHost<'_> {
    fn extension(&mut self, service: i32, args: [i32; 3]) -> Result<i32, TrapKind> {
        self.extension_metered(service, args, cvm::fuel::HOST_BUDGET_MAX)
            .map(|answer| answer.value)
    }

    fn extension_metered(
        &mut self,
        service: i32,
        args: [i32; 3],
        budget: u64,
    ) -> Result<HostAnswer, TrapKind> {
        self.meter = Meter::new(budget);
        self.meter.add(SERVICE_STEPS)?;
        let value = self.service(service, args)?;
        Ok(HostAnswer::costing(value, self.meter.fuel()))
    }
}

impl ChegHost<'_> {
    /// Answers one `HostCall`, counting its work on `self.meter`.
    fn service(&mut self, service: i32, args: [i32; 3]) -> Result<i32, TrapKind> {
        let [a, b, c] = args;
        match service {
            svc::START => self.start(),
            svc::LITERAL => self.literal(a),
            svc::PREDEFINED => self.predefined(a),
            svc::PLAN_VARIABLE => match self.plan.as_ref().map(|p| p.variable.clone()) {
                Some(v) if self.report.entry == Some(usize::MAX) => self.put(v),
                _ => Ok(0),
            },
            svc::FINISH => Ok(if self.report.finished {
                1
            } else {
                self.end(None)
            }),
            svc::CONDITION => {
                self.meter.add(CONDITION_STEPS)?;
                let (v, side) = (self.get(b), self.get(c));
                Ok(i32::from(self.condition(a, &v, &side)?))
            }
            svc::ORDER => {
                let (x, y) = (self.get(b), self.get(c));
                Ok(i32::from(self.order_exchanges(a, &x, &y)?))
            }
            svc::COUNT => {
                let what = usize::try_from(b)
                    .ok()
                    .and_then(|i| Instr::ALL.get(i))
                    .map_or("loop", |i| i.name());
                Ok(set(what, self.heap.get(a))?.len() as i32)
            }
            svc::ELEMENT => {
                let e = usize::try_from(b)
                    .ok()
                    .and_then(|i| {
                        set("loop", self.heap.get(a))
                            .ok()?
                            .get(i.wrapping_sub(1))
                            .cloned()
                    })
                    .unwrap_or(Value::Undef);
                self.put(e)
            }
            svc::NEW_SET => self.put(Value::set(Vec::new())),
            svc::PUSH => {
                let e = self.get(b);
                if self.heap.push_into(a, e) {
                    Ok(0)
                } else {
                    Err(TrapKind::Intrinsic("internal: PUSH into a non-set".into()))
                }
            }
            svc::IS_TRUE => Ok(i32::from(*self.heap.get(a) == Value::Logical(true))),
            svc::LOGICAL => match self.heap.get(a) {
                Value::Logical(t) => Ok(i32::from(*t)),
                other => Err(ops::type_error(
                    "CONDT/CONDF",
                    "T or F from the subroutine",
                    other,
                )),
            },
            svc::EQUAL => {
                let (x, y) = (self.get(a), self.get(b));
                Ok(i32::from(self.meter.equal(&x, &y)?))
            }
            svc::LESS => {
                let x = int("JUMP", self.heap.get(a))?;
                let y = int("JUMP", self.heap.get(b))?;
                Ok(i32::from(x < y))
            }
            svc::UNSERT_ELEMENT | svc::EXCHWE_ELEMENT => {
                let what = if service == svc::UNSERT_ELEMENT {
                    "UNSERT"
                } else {
                    "EXCHWE"
                };
                let index = int(what, self.heap.get(b))?;
                let items = set(what, self.heap.get(a))?;
                let e = if service == svc::UNSERT_ELEMENT {
                    ops::unsert_element(items, index)
                } else {
                    ops::exchwe_element(items, index)
                };
                self.put(e)
            }
            s if s >= svc::INSTRUCTION => {
                let instr = Instr::ALL
                    .get((s - svc::INSTRUCTION) as usize)
                    .copied()
                    .ok_or_else(|| TrapKind::Intrinsic(format!("no CHEG service {s}")))?;
                self.instruction(instr, [a, b, c])
            }
            s => Err(TrapKind::Intrinsic(format!("no CHEG service {s}"))),
        }
    }
}
