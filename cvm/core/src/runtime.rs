//! What both backends share at run time: the instance memory (globals and the
//! list heap), the output sink, the host interface, run limits and the typed
//! runtime errors.
//!
//! The interpreter and the JIT must be observably identical, so everything a
//! program can observe besides its own computation lives here, once: the
//! initial state of globals and lists, how `write` formats a line, what a
//! runtime error says.

use crate::module::{Module, SourcePos};
use std::fmt;

/// The mutable state of one instance of a module: globals and lists.
///
/// All lists live in one heap of `i32` slots; list `i` occupies
/// `heap[lists[i].base .. lists[i].base + lists[i].slots]`. The layout is
/// `#[repr(C)]`-friendly so that JIT code can address it through raw
/// pointers: the vectors are never resized after creation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Global variables, by index.
    pub globals: Vec<i32>,
    /// All list slots.
    pub heap: Vec<i32>,
    /// Where each list lives in the heap.
    pub lists: Vec<ListSlice>,
}

/// The place of one list in the heap.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct ListSlice {
    /// First slot.
    pub base: u32,
    /// Number of slots (declared capacity + 1 for the end marker).
    pub slots: u32,
}

impl Memory {
    /// The initial memory of a module: globals at their initial values, list
    /// slots at their initial values and -1 everywhere else.
    pub fn new(module: &Module) -> Memory {
        let globals = module.globals.iter().map(|g| g.init).collect();
        let total: u64 = module.lists.iter().map(|l| l.slots()).sum();
        let mut heap = Vec::with_capacity(total as usize);
        let mut lists = Vec::with_capacity(module.lists.len());
        for l in &module.lists {
            let base = heap.len() as u32;
            heap.extend_from_slice(&l.init);
            heap.resize(base as usize + l.slots() as usize, -1);
            lists.push(ListSlice {
                base,
                slots: l.slots() as u32,
            });
        }
        Memory {
            globals,
            heap,
            lists,
        }
    }

    /// Restores the initial state of `module` without reallocating.
    pub fn reset(&mut self, module: &Module) {
        for (g, def) in self.globals.iter_mut().zip(&module.globals) {
            *g = def.init;
        }
        for (slice, def) in self.lists.iter().zip(&module.lists) {
            let slots = &mut self.heap[slice.base as usize..(slice.base + slice.slots) as usize];
            let n = def.init.len();
            slots[..n].copy_from_slice(&def.init);
            slots[n..].fill(-1);
        }
    }

    /// Restores the state of `initial`, a memory of the same module as it
    /// was made ([`Memory::new`]), which is what [`Memory::reset`] computes
    /// list by list: block copies of the globals, the heap and the list
    /// places when their sizes are still `initial`'s, without reallocating;
    /// a copy of `initial` otherwise (an embedder resized them).
    pub fn reset_to(&mut self, initial: &Memory) {
        if self.same_sizes(initial) {
            self.globals.copy_from_slice(&initial.globals);
            self.heap.copy_from_slice(&initial.heap);
            self.lists.copy_from_slice(&initial.lists);
        } else {
            self.clone_from(initial);
        }
    }

    /// [`Memory::reset_to`] for a memory that only its program's code
    /// changed since it was last reset in full: the globals and the heap
    /// ranges of `plan` (the lists the program can write) are copied back
    /// from `initial`, the lists the program never writes are left as they
    /// are. Falls back to [`Memory::reset_to`] when the sizes differ from
    /// `initial`'s.
    pub fn reset_written_to(&mut self, initial: &Memory, plan: &crate::reset::ResetPlan) {
        if !self.same_sizes(initial) {
            self.reset_to(initial);
            return;
        }
        if !self.globals.is_empty() {
            self.globals.copy_from_slice(&initial.globals);
        }
        for r in plan.ranges() {
            let (start, end) = (r.start as usize, r.end as usize);
            if let (Some(to), Some(from)) =
                (self.heap.get_mut(start..end), initial.heap.get(start..end))
            {
                to.copy_from_slice(from);
            }
        }
    }

    /// Whether `self` and `other` have as many globals, heap slots and
    /// lists (the block copies of a reset need no more).
    fn same_sizes(&self, other: &Memory) -> bool {
        self.globals.len() == other.globals.len()
            && self.heap.len() == other.heap.len()
            && self.lists.len() == other.lists.len()
    }

    /// Whether `self` and `other` have the same number of globals, the
    /// same heap size and their lists in the same places.
    pub fn same_layout(&self, other: &Memory) -> bool {
        self.globals.len() == other.globals.len()
            && self.heap.len() == other.heap.len()
            && self.lists == other.lists
    }

    /// The slots of a list. `id` must be a valid list index (verified code
    /// only produces valid list references).
    pub fn list(&self, id: u32) -> &[i32] {
        let s = self.lists[id as usize];
        &self.heap[s.base as usize..(s.base + s.slots) as usize]
    }

    /// The slots of a list, mutably.
    pub fn list_mut(&mut self, id: u32) -> &mut [i32] {
        let s = self.lists[id as usize];
        &mut self.heap[s.base as usize..(s.base + s.slots) as usize]
    }

    /// The elements of a list before its end marker (or all slots if no
    /// slot holds -1).
    pub fn list_elements(&self, id: u32) -> &[i32] {
        let l = self.list(id);
        let n = l.iter().position(|&v| v == LIST_END).unwrap_or(l.len());
        &l[..n]
    }

    /// Fills a list with `values` followed by the end marker; fails without
    /// writing anything when the list is too short (`values.len()` must not
    /// exceed the declared capacity).
    pub fn fill_list(&mut self, id: u32, values: &[i32]) -> Result<(), TrapKind> {
        let slots = self.list_mut(id);
        if values.len() >= slots.len() {
            return Err(TrapKind::ListOverflow {
                needed: values.len() as u32,
                capacity: slots.len() as u32 - 1,
            });
        }
        slots[..values.len()].copy_from_slice(values);
        slots[values.len()] = LIST_END;
        Ok(())
    }
}

/// The list end marker, `CHE_LISTEND`.
pub const LIST_END: i32 = -1;

/// Receives what a program writes with `write` and `textout`.
pub trait Output {
    /// A `write EXPR;` line with the value.
    fn write_value(&mut self, value: i32);
    /// A `TextOut(t);` line with the text.
    fn write_text(&mut self, text: &str);
}

/// Formats a value the way `write` prints it: the decimal value, a space,
/// `0x` and eight upper-case hex digits of its two's complement.
pub fn format_value(value: i32) -> String {
    format!("{value} 0x{:08X}", value as u32)
}

/// One line of program output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputLine {
    /// From `write`.
    Value(i32),
    /// From `textout`.
    Text(String),
}

impl fmt::Display for OutputLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputLine::Value(v) => f.write_str(&format_value(*v)),
            OutputLine::Text(t) => f.write_str(t),
        }
    }
}

/// An [`Output`] that keeps every line, for tests and embedders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CollectOutput {
    /// The lines, in order.
    pub lines: Vec<OutputLine>,
}

impl Output for CollectOutput {
    fn write_value(&mut self, value: i32) {
        self.lines.push(OutputLine::Value(value));
    }
    fn write_text(&mut self, text: &str) {
        self.lines.push(OutputLine::Text(text.to_string()));
    }
}

/// An [`Output`] that discards everything.
#[derive(Copy, Clone, Debug, Default)]
pub struct NullOutput;

impl Output for NullOutput {
    fn write_value(&mut self, _: i32) {}
    fn write_text(&mut self, _: &str) {}
}

/// An [`Output`] that prints each line to a [`std::io::Write`] (for example
/// standard output). Write errors are remembered, not raised: a program's
/// run does not depend on whether its output could be delivered.
#[derive(Debug)]
pub struct WriterOutput<W: std::io::Write> {
    writer: W,
    /// The first I/O error met, if any.
    pub error: Option<std::io::Error>,
}

impl<W: std::io::Write> WriterOutput<W> {
    /// Wraps a writer.
    pub fn new(writer: W) -> Self {
        WriterOutput {
            writer,
            error: None,
        }
    }

    fn line(&mut self, s: &str) {
        if self.error.is_none() {
            if let Err(e) = writeln!(self.writer, "{s}") {
                self.error = Some(e);
            }
        }
    }
}

impl<W: std::io::Write> Output for WriterOutput<W> {
    fn write_value(&mut self, value: i32) {
        self.line(&format_value(value));
    }
    fn write_text(&mut self, text: &str) {
        self.line(text);
    }
}

/// What the VM asks of its embedder while a program runs.
///
/// Every method has a neutral default, so an embedder without a chess
/// position (a benchmark, a test) can pass [`NoHost`].
///
/// ```
/// use cvm::{asm, BoardView, CollectOutput, Host, Interpreter, Program, Vm};
///
/// /// A host with a position: the chess intrinsics read it.
/// struct OnePosition(BoardView);
/// impl Host for OnePosition {
///     fn board(&self) -> Option<&BoardView> {
///         Some(&self.0)
///     }
/// }
///
/// let board = BoardView::from_fen("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1").unwrap();
/// // PcOnSqrs(wP, e4): intrinsic 4 with the piece and a list holding e4.
/// let (id, _) = cvm::intrinsics::by_name("PcOnSqrs").unwrap();
/// let wp = cvm_chess::lit::parse_piece("wP").unwrap();
/// let e4 = cvm_chess::lit::parse_square("e4").unwrap();
/// let program = Program::new(asm::assemble(&format!("
/// .list sq 2 = {e4}
/// .entry main
/// .func main params 0 lists 0 locals 0 stack 2 value
///     push {wp}
///     lref sq
///     intr {id}
///     retv
/// .end
/// ")).unwrap()).unwrap();
/// let mut vm = Interpreter::new(&program);
/// let mut host = OnePosition(board);
/// let done = vm.run_entry(&mut host, &mut CollectOutput::default()).unwrap();
/// assert_eq!(done.value(), Some(1));
/// ```
pub trait Host {
    /// The score, in centipawns from the program's side, that the engine
    /// gave its move `prev_moves` moves ago (`GetScore`), or 0 when none is
    /// known.
    fn game_score(&self, prev_moves: i32) -> i32 {
        let _ = prev_moves;
        0
    }

    /// The position the chess intrinsics read, or `None` without one (they
    /// then see [`cvm_chess::board::BoardView::EMPTY`]).
    fn board(&self) -> Option<&cvm_chess::board::BoardView> {
        None
    }

    /// The engine's own setting of style parameter `id` (`GetStyle`; only
    /// called with ids of [`cvm_chess::style::STYLE_PARAMS`]). The
    /// default reports the documented standard values.
    fn style_default(&self, id: i32) -> i32 {
        cvm_chess::style::default_value(id)
    }

    /// A service of the embedder beyond the chess intrinsics (`HostCall`):
    /// `service` names it, `args` are its three words. Front ends whose
    /// values do not fit in one word (CHEG keeps its sets, pieces and
    /// moves in a value heap on the host side) reach their runtime this
    /// way; the meaning of the numbers is a contract between the front end
    /// and its host, not part of the CVM. An error is raised as a runtime
    /// error at the `intr` instruction, on either backend. The default
    /// answers 0, like the other host queries without an answer.
    fn extension(&mut self, service: i32, args: [i32; 3]) -> Result<i32, TrapKind> {
        let _ = (service, args);
        Ok(0)
    }

    /// [`Host::extension`] with the fuel its work costs: what both
    /// backends call for `HostCall`. `budget` is the fuel the run has left
    /// once the call's own unit is paid, capped at
    /// [`crate::fuel::HOST_BUDGET_MAX`] (so an unbounded run offers the
    /// cap), the same number on every backend.
    ///
    /// The answer's [`HostAnswer::fuel`] is charged after the service
    /// returns, at the `intr`. When it exceeds `budget` the run fails with
    /// out-of-fuel at the `intr` and the budget is spent (all the fuel
    /// left, for any run with less than the cap), whatever the service
    /// answered; returning `Err(TrapKind::OutOfFuel)` does the same. So a
    /// service that sees its work will cost more than `budget` should stop
    /// there and report more (for example with [`HostAnswer::exhausted`]):
    /// the run cannot pay for the rest. Any other error fails the run at
    /// the `intr` with only the call's own unit spent.
    ///
    /// The host promises a constant: the time a service takes is at most
    /// that many nanoseconds for each unit it reports (plus one unit's
    /// worth for the call), so that fuel bounds the time a run spends in
    /// its host as it bounds the rest (docs/cvm.md, "Fuel"). The default
    /// calls [`Host::extension`] and reports no work, which is right only
    /// for services that take constant time.
    fn extension_metered(
        &mut self,
        service: i32,
        args: [i32; 3],
        budget: u64,
    ) -> Result<HostAnswer, TrapKind> {
        let _ = budget;
        self.extension(service, args).map(HostAnswer::free)
    }
}

/// What a host service answers when it says what its work costs
/// ([`Host::extension_metered`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct HostAnswer {
    /// The value `HostCall` pushes.
    pub value: i32,
    /// The fuel the service's work costs, charged after it returned (on
    /// top of the one unit every `HostCall` charges before it starts).
    pub fuel: u64,
}

impl HostAnswer {
    /// An answer whose work costs nothing beyond the call.
    pub const fn free(value: i32) -> HostAnswer {
        HostAnswer { value, fuel: 0 }
    }

    /// An answer whose work costs `fuel` units.
    pub const fn costing(value: i32, fuel: u64) -> HostAnswer {
        HostAnswer { value, fuel }
    }

    /// The answer of a service that stopped because its work would cost
    /// more than `budget`: the run fails with out-of-fuel.
    pub const fn exhausted(budget: u64) -> HostAnswer {
        HostAnswer {
            value: 0,
            fuel: budget.saturating_add(1),
        }
    }
}

/// A [`Host`] with every default.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoHost;

impl Host for NoHost {}

/// Bounds on one run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Units of fuel the run may spend (each executed call, the entry
    /// included, and each taken backward jump charging for the code it pays
    /// for, see [`crate::fuel`]; each output line by its size; each
    /// intrinsic call its cost, see [`crate::intrinsics::cost`]); `None` is
    /// unbounded.
    pub fuel: Option<u64>,
    /// The deepest call nesting allowed; the embedder's call is depth 1.
    pub max_depth: u32,
}

/// The default call-depth limit.
pub const DEFAULT_MAX_DEPTH: u32 = 1000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: None,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// The kinds of runtime error. Both backends raise the same kind at the same
/// code offset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrapKind {
    /// `/` or `%` with a zero divisor.
    #[error("division by zero")]
    DivisionByZero,
    /// A list element was addressed below 0 or past the list's last slot.
    #[error("list index {index} out of bounds (the list has {slots} slots)")]
    ListIndex {
        /// The index used.
        index: i32,
        /// Number of slots of the list (capacity + 1).
        slots: u32,
    },
    /// A `Get` function found more elements than the list can hold.
    #[error("list too short: {needed} elements do not fit a list of capacity {capacity}")]
    ListOverflow {
        /// Elements found.
        needed: u32,
        /// The list's capacity.
        capacity: u32,
    },
    /// A call would exceed the call-depth limit.
    #[error("call depth limit of {0} exceeded")]
    CallDepth(u32),
    /// The run used up its fuel.
    #[error("out of fuel")]
    OutOfFuel,
    /// An intrinsic refused its arguments.
    #[error("{0}")]
    Intrinsic(String),
    /// The embedder asked for a function that does not exist or passed the
    /// wrong arguments.
    #[error("{0}")]
    BadCall(String),
}

/// A runtime error: its kind, the code offset of the instruction that raised
/// it and, when the module has a line table, the source position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// What went wrong.
    pub kind: TrapKind,
    /// Code offset (in words) of the failing instruction.
    pub offset: u32,
    /// The source position of that instruction, if known.
    pub pos: Option<SourcePos>,
}

impl RuntimeError {
    /// A call the instance refuses before running anything (offset 0, no
    /// source position).
    pub fn bad_call(message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            kind: TrapKind::BadCall(message.into()),
            offset: 0,
            pos: None,
        }
    }

    /// The call refused when the embedder changed the instance memory's
    /// layout (the number of globals, the heap's size or a list's place),
    /// which every backend's code relies on.
    pub fn layout_changed() -> RuntimeError {
        RuntimeError::bad_call("the instance memory no longer has the module's layout")
    }

    /// An error at `offset`, located through the module's line table.
    pub fn new(kind: TrapKind, offset: u32, module: &Module) -> RuntimeError {
        RuntimeError {
            kind,
            offset,
            pos: module.source_pos(offset),
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pos {
            Some(pos) => write!(f, "{pos}: error: {}", self.kind),
            None => write!(f, "code offset {}: error: {}", self.offset, self.kind),
        }
    }
}

impl std::error::Error for RuntimeError {}

/// How a run ended without error.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The called routine returned; the value is `Some` for functions.
    Returned(Option<i32>),
    /// The program executed `halt`.
    Halted,
}

impl Completion {
    /// The returned value, if any.
    pub fn value(self) -> Option<i32> {
        match self {
            Completion::Returned(v) => v,
            Completion::Halted => None,
        }
    }
}

/// Integer semantics shared by both backends and the optimizer's constant
/// folding, so that the three can never disagree.
pub mod arith {
    /// `a / b` truncated toward zero, wrapping for `i32::MIN / -1`; `None`
    /// for a zero divisor.
    #[inline]
    pub fn div(a: i32, b: i32) -> Option<i32> {
        if b == 0 {
            None
        } else {
            Some(a.wrapping_div(b))
        }
    }

    /// `a % b` with the sign of `a` (0 for `i32::MIN % -1`); `None` for a
    /// zero divisor.
    #[inline]
    pub fn rem(a: i32, b: i32) -> Option<i32> {
        if b == 0 {
            None
        } else {
            Some(a.wrapping_rem(b))
        }
    }
}

/// The state an intrinsic may read and change (`cvm::intrinsics::Ctx`).
pub struct Ctx<'a> {
    /// Globals and lists of the running instance.
    pub memory: &'a mut Memory,
    /// Where output goes.
    pub output: &'a mut dyn Output,
    /// The embedder.
    pub host: &'a mut dyn Host,
    /// The advice table the advice functions write.
    pub advice: &'a mut cvm_chess::advice_table::AdviceTable,
}
