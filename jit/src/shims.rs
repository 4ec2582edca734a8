//! Shims: the Rust functions compiled code calls for what it does not do
//! natively (intrinsics that are not inlined, `write`, `textout`).
//!
//! They are `extern "C"` and registered with the JIT linker under the names
//! in [`SYMBOLS`]. Each takes the run [`Context`] as its first argument.
//! Errors never unwind through compiled frames: an intrinsic's error is
//! stored in the context and a sentinel is returned, and so is a panic in
//! embedder code (a `Host` or `Output` implementation), which is caught
//! here and resumed by the instance once compiled code has returned. Both
//! backends call the very same intrinsic functions
//! ([`cvm::intrinsics::INTRINSICS`]), so intrinsics behave identically.

use crate::context::{trap, Context, ENTRY, SHIM_TRAP};
use cvm::intrinsics::{Ctx, ParamKind, INTRINSICS, MAX_PARAMS};
use cvm::TrapKind;
use cvm_chess::board::BoardView;
use cvm_chess::pattern as patterns;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Symbol name of [`intrinsic`].
pub(crate) const INTRINSIC: &str = "che_jit_intrinsic";
/// Symbol name of [`intrinsic_flush`].
pub(crate) const INTRINSIC_FLUSH: &str = "che_jit_intrinsic_flush";
/// Symbol name of [`write`].
pub(crate) const WRITE: &str = "che_jit_write";
/// Symbol name of [`textout`].
pub(crate) const TEXTOUT: &str = "che_jit_textout";
/// Symbol name of [`pattern_set`].
pub(crate) const PATTERN: &str = "che_jit_pattern_set";
/// Symbol name of [`pattern_mask`].
pub(crate) const PATTERN_MASK: &str = "che_jit_pattern_mask";
/// Symbol name of [`flush_fill`].
pub(crate) const FLUSH_FILL: &str = "che_jit_flush_fill";
/// Symbol name of [`osr_poll`].
pub(crate) const OSR_POLL: &str = "che_jit_osr_poll";

/// Set in the intrinsic number compiled code passes to [`intrinsic`] (and
/// [`intrinsic_flush`]) when it has charged the call's cost itself, known
/// when it was compiled: the shim then only runs the intrinsic
/// ([`cvm::intrinsics::invoke_paid`]) instead of computing the cost from
/// the arguments. No intrinsic number comes near it.
pub(crate) const PAID: u32 = 1 << 31;

/// What [`osr_poll`] returns when the frame stays on its code.
pub(crate) const NOT_SWITCHED: i64 = i64::MIN + 1;

/// The square sets [`pattern_set`] computes, by number.
pub(crate) mod pattern {
    /// `DblPwns`: doubled pawns of a colour.
    pub const DOUBLED: u32 = 0;
    /// `Passed`: passed pawns of a colour.
    pub const PASSED: u32 = 1;
    /// `Control`: squares a piece controls.
    pub const CONTROL: u32 = 2;
    /// `ExchngCtrl`: squares a colour has exchange control over.
    pub const EXCHANGE: u32 = 3;
}

/// The shims and their addresses, for `JITBuilder::symbol`.
pub(crate) fn symbols() -> [(&'static str, *const u8); 8] {
    [
        (
            FLUSH_FILL,
            flush_fill as extern "C" fn(*mut c_void, u32) -> i64 as *const u8,
        ),
        (
            INTRINSIC,
            intrinsic as extern "C" fn(*mut c_void, u32, *mut i32, i64) -> i64 as *const u8,
        ),
        (
            INTRINSIC_FLUSH,
            intrinsic_flush as extern "C" fn(*mut c_void, u32, *mut i32, i64) -> i64 as *const u8,
        ),
        (
            WRITE,
            write as extern "C" fn(*mut c_void, i32) -> i64 as *const u8,
        ),
        (
            TEXTOUT,
            textout as extern "C" fn(*mut c_void, u32) -> i64 as *const u8,
        ),
        (
            PATTERN,
            pattern_set as extern "C" fn(*mut c_void, u32, i32, u64) -> i64 as *const u8,
        ),
        (
            PATTERN_MASK,
            pattern_mask as extern "C" fn(*mut c_void, u32, i32, u64, u32, i64, *mut i32) -> i64
                as *const u8,
        ),
        (
            OSR_POLL,
            osr_poll as extern "C" fn(*mut c_void, u32, u32, *const i32, i64, u32) -> i64
                as *const u8,
        ),
    ]
}

/// Baseline code compiled for on-stack replacement took
/// [`crate::context::POLL_EVERY`] back edges: the one to the loop header
/// `target` of function `func`, whose frame (slots, then operand stack)
/// lies at `frame`, with `fuel` and `depth_left` (the frame's). When the
/// context knows better code for `func` with an entry at `target`
/// ([`crate::context::BetterCode`]) and the native stack can hold what it
/// may need, the frame continues there, on the same context: returns what
/// that code returned (the fuel left or a negative status; the value is in
/// [`Context::result`]). Otherwise [`NOT_SWITCHED`], and the frame goes on.
///
/// With `target` [`ENTRY`], the poll is made at the entry of `func` (whose
/// flag in [`Context::ready`] is set) with its arguments as the first frame
/// slots: the call then runs on the better code from its start, as if its
/// caller had called that code.
extern "C" fn osr_poll(
    ctx: *mut c_void,
    func: u32,
    target: u32,
    frame: *const i32,
    fuel: i64,
    depth_left: u32,
) -> i64 {
    let ctx = ctx.cast::<Context<'_>>();
    // SAFETY: compiled code passes the context pointer it received (see
    // `intrinsic`); no reference to it is kept across the nested run
    // below, which uses the same context through the same pointer.
    let at_entry = target == ENTRY;
    let better = unsafe {
        if !at_entry {
            (*ctx).poll = crate::context::POLL_EVERY;
        }
        (*ctx).better
    };
    let Some(better) = better else {
        return NOT_SWITCHED;
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        better.with_better(func, &mut |jit, compiled| {
            let program = &jit.program;
            let f = &program.module().functions[func as usize];
            let info = program.function_info(func);
            if !at_entry
                && (!jit.osr
                    || crate::shared::osr_heads(f, info)
                        .binary_search(&target)
                        .is_err())
            {
                return NOT_SWITCHED;
            }
            let frames = match jit.depth_bounds.get(func as usize).copied().flatten() {
                Some(bound) => bound.min(depth_left),
                None => depth_left,
            };
            let enough = crate::stack::need(u64::from(frames), jit.max_frame)
                .is_some_and(crate::stack::enough_here);
            if !enough {
                return NOT_SWITCHED;
            }
            // Code that proves its fuel at entry takes only a frame that
            // brings enough (`CompiledFn::fuel_bound`); the frame goes on
            // with its checks otherwise.
            if !compiled.runs_with(fuel) {
                return NOT_SWITCHED;
            }
            let arity = f.arity() as usize;
            let (state, args) = if at_entry {
                // SAFETY: baseline code passes its frame slots, the
                // parameters first, as at least `arity` words of its frame.
                let args = unsafe { std::slice::from_raw_parts(frame, arity) };
                (Vec::new(), args.to_vec())
            } else {
                let depth = crate::shared::stack_depth_at(info, target);
                let words = (f.frame_slots() + depth) as usize;
                let mut state = Vec::with_capacity(1 + words);
                state.push(target as i32);
                // SAFETY: baseline code passes its frame slots, followed by
                // its operand stack, as at least `words` words of its frame.
                state.extend_from_slice(unsafe { std::slice::from_raw_parts(frame, words) });
                (state, vec![0i32; arity])
            };
            // SAFETY: `compiled` is finalized code of `jit` with its
            // trampoline, alive while `jit` is borrowed; the state and the
            // arguments outlive the call; the context is the running one,
            // whose memory the code may use; the native stack was checked.
            // An entry leaves the context's state pointer null.
            unsafe {
                if !at_entry {
                    (*ctx).osr = state.as_ptr();
                }
                let entry: crate::instance::Entry =
                    std::mem::transmute::<*const u8, crate::instance::Entry>(compiled.entry);
                entry(
                    ctx.cast::<c_void>(),
                    compiled.code,
                    fuel,
                    depth_left,
                    args.as_ptr(),
                )
            }
        })
    }));
    match outcome {
        Ok(Some(status)) => {
            if status != NOT_SWITCHED {
                better.switched(at_entry);
            }
            status
        }
        Ok(None) => NOT_SWITCHED,
        Err(panic) => {
            // SAFETY: as above.
            unsafe {
                (*ctx).trap_code = trap::SHIM;
                (*ctx).panic = Some(panic);
            }
            crate::context::STATUS_TRAP
        }
    }
}

/// Runs `f` on the context, turning a panic into a stored payload and the
/// [`SHIM_TRAP`] sentinel.
fn guarded(ctx: &mut Context<'_>, f: impl FnOnce(&mut Context<'_>) -> i64) -> i64 {
    match catch_unwind(AssertUnwindSafe(|| f(ctx))) {
        Ok(v) => v,
        Err(panic) => {
            ctx.trap_code = trap::SHIM;
            ctx.panic = Some(panic);
            SHIM_TRAP
        }
    }
}

/// Charges `cost` from `fuel` (the fuel left in compiled code): the fuel
/// then left, or [`SHIM_TRAP`] after recording out-of-fuel (and the fuel,
/// untouched) in the context.
fn charge(ctx: &mut Context<'_>, fuel: i64, cost: u64) -> i64 {
    match u64::try_from(fuel) {
        Ok(f) if f >= cost => fuel - cost as i64,
        _ => {
            ctx.trap_code = trap::SHIM;
            ctx.payload = Some(TrapKind::OutOfFuel);
            ctx.fuel_left = fuel;
            SHIM_TRAP
        }
    }
}

/// Calls intrinsic `id` with the arguments at `args` (one `i32` per
/// parameter of the intrinsic) with `fuel` left, charging as the
/// interpreter does through the same function ([`cvm::intrinsics::invoke`]:
/// its cost before the call, a host service's reported work after it).
/// Returns the fuel left and stores the result in `args[0]`; or returns
/// [`SHIM_TRAP`] after storing the error and the fuel left in the context
/// (out of fuel before the call: nothing was done; after a host service:
/// its budget was spent; an intrinsic's error: the cost was charged).
/// With [`PAID`] set in `id` compiled code has charged the cost already,
/// and `fuel` is what is left after it.
extern "C" fn intrinsic(ctx: *mut c_void, id: u32, args: *mut i32, fuel: i64) -> i64 {
    let (id, paid) = (id & !PAID, id & PAID != 0);
    run_intrinsic(ctx, id, args, fuel, |call, args, fuel, measured| {
        Some(if paid {
            cvm::intrinsics::invoke_paid(id, call, args, fuel)
        } else {
            cvm::intrinsics::invoke_measured(id, call, args, fuel, measured)
        })
    })
}

/// The frame of an intrinsic shim: the context and the arguments (one
/// `i32` per parameter of intrinsic `id`) made Rust values, `invoke` run on
/// them with the fuel left (and the measured constant lists), its result
/// stored in `args[0]` and the fuel left returned; or [`SHIM_TRAP`] with
/// the error and the fuel left stored in the context. `invoke` returning
/// `None` is an error (a call the shim cannot make).
#[inline(always)]
fn run_intrinsic(
    ctx: *mut c_void,
    id: u32,
    args: *mut i32,
    fuel: i64,
    invoke: impl FnOnce(
        &mut Ctx<'_>,
        &[i32],
        u64,
        &[Option<cvm::intrinsics::ListWork>],
    ) -> Option<Result<(i32, u64), (TrapKind, u64)>>,
) -> i64 {
    // SAFETY: compiled code passes the context pointer it received, which
    // the instance created from a live `Context` that outlives the run and
    // that nothing else accesses while compiled code runs.
    let ctx = unsafe { &mut *ctx.cast::<Context<'_>>() };
    let Some(info) = INTRINSICS.get(id as usize) else {
        ctx.trap_code = trap::SHIM;
        ctx.payload = Some(TrapKind::BadCall(format!("no intrinsic {id}")));
        ctx.fuel_left = fuel;
        return SHIM_TRAP;
    };
    let Ok(fuel) = u64::try_from(fuel) else {
        // Compiled code never passes negative fuel; were it to, no charge
        // could be paid.
        ctx.trap_code = trap::SHIM;
        ctx.payload = Some(TrapKind::OutOfFuel);
        ctx.fuel_left = fuel;
        return SHIM_TRAP;
    };
    let n = info.params.len().min(MAX_PARAMS);
    // SAFETY: compiled code stores the intrinsic's arguments, one per
    // parameter, in a stack slot of MAX_PARAMS words (at least one) and
    // passes its address; nothing else refers to it during the call.
    let args = unsafe { std::slice::from_raw_parts_mut(args, n.max(1)) };
    guarded(ctx, |ctx| {
        // SAFETY: the pointers were made by the instance from exclusive
        // borrows that live for the whole run; compiled code is suspended
        // while this shim runs, so these are the only live references.
        let (memory, output, host, advice) = unsafe {
            (
                &mut *ctx.memory,
                &mut *ctx.output,
                &mut *ctx.host,
                &mut *ctx.advice,
            )
        };
        let mut call = Ctx {
            memory,
            output,
            host: &mut *host,
            advice,
        };
        let result = invoke(&mut call, &args[..n], fuel, ctx.measured);
        // Inlined pattern code reads the board through the context's
        // pointer. Only a host service has the host mutably
        // (`Host::extension`), so only after one may the host's board view
        // be another one: take the pointer anew then.
        if id == cvm::intrinsics::HOST_CALL {
            ctx.board = host.board().unwrap_or(&BoardView::EMPTY);
        }
        // The fuel left never exceeds the fuel given, which came from an
        // `i64`.
        let as_i64 = |left: u64| i64::try_from(left).unwrap_or(i64::MAX);
        match result {
            Some(Ok((v, left))) => {
                args[0] = v;
                as_i64(left)
            }
            Some(Err((kind, left))) => {
                ctx.trap_code = trap::SHIM;
                ctx.payload = Some(kind);
                ctx.fuel_left = as_i64(left);
                SHIM_TRAP
            }
            None => {
                ctx.trap_code = trap::SHIM;
                ctx.payload = Some(TrapKind::BadCall(format!(
                    "intrinsic {id} cannot be called here"
                )));
                ctx.fuel_left = as_i64(fuel);
                SHIM_TRAP
            }
        }
    })
}

/// [`intrinsic`] for a call that names a deferred list
/// (`crate::deferred`). A square-set reader (`SetSqrs`) whose list has a
/// fill waiting takes the waiting set
/// ([`cvm::intrinsics::invoke_on_squares`]) and the squares stay
/// unwritten; otherwise the list's waiting fill is written first, so that
/// the intrinsic reads what memory would hold and its own fill lands on
/// it. Compiled code calls it where the list argument is known to be
/// deferred (a fill Cranelift's code does not compile inline, a square-set
/// reader, every such call in baseline code); every other call goes to
/// [`intrinsic`], which needs no look at the waiting fills.
extern "C" fn intrinsic_flush(ctx: *mut c_void, id: u32, args: *mut i32, fuel: i64) -> i64 {
    let set = {
        // SAFETY: as in `intrinsic`; the references end before it runs.
        let ctx = unsafe { &mut *ctx.cast::<Context<'_>>() };
        // SAFETY: the instance made the pointers from its own record and
        // from the memory borrowed for the whole run; compiled code is
        // suspended, so these are the only live references.
        let pending = unsafe { ctx.pending.as_mut() };
        let mut set = None;
        if let (Some(pending), Some(info)) = (pending, INTRINSICS.get((id & !PAID) as usize)) {
            let n = info.params.len().min(MAX_PARAMS);
            // SAFETY: as in `intrinsic`: one word per parameter.
            let args = unsafe { std::slice::from_raw_parts(args, n) };
            let reads_set = id & PAID == 0 && cvm::intrinsics::reads_square_set(id);
            for (p, &arg) in info.params.iter().zip(args) {
                if let ParamKind::List { out, .. } = p.kind {
                    if reads_set {
                        set = pending.waiting_set(arg as u32);
                    }
                    if set.is_none() {
                        // SAFETY: see above.
                        pending.flush_list(arg as u32, unsafe { &mut *ctx.memory });
                    }
                    if out {
                        pending.mark_written();
                    }
                }
            }
        }
        set
    };
    match set {
        Some((set, count)) => intrinsic_set(ctx, id, args, set, count, fuel),
        None => intrinsic(ctx, id, args, fuel),
    }
}

/// A square-set reader (`SetSqrs`) called with the set of its list's
/// waiting fill, `count` squares ([`intrinsic_flush`],
/// [`cvm::intrinsics::invoke_on_squares`]): as [`intrinsic`] in everything
/// else (the cost is charged here).
fn intrinsic_set(
    ctx: *mut c_void,
    id: u32,
    args: *mut i32,
    set: u64,
    count: u32,
    fuel: i64,
) -> i64 {
    // A waiting fill fits its list by the check before it was recorded, so
    // the reader never declines it.
    run_intrinsic(ctx, id, args, fuel, |call, args, fuel, _| {
        cvm::intrinsics::invoke_on_squares(id, call, args, set, count, fuel)
    })
}

/// Writes the waiting fill in slot `slot` of the run's record of deferred
/// fills (`crate::deferred`) into memory: what compiled code calls, on a
/// cold path, before it records a fill with fewer squares than the one
/// waiting (so that the slots past the new end marker hold what they
/// would). Returns 0.
extern "C" fn flush_fill(ctx: *mut c_void, slot: u32) -> i64 {
    // SAFETY: as in `intrinsic`.
    let ctx = unsafe { &mut *ctx.cast::<Context<'_>>() };
    // SAFETY: as in `intrinsic_flush`: the instance's record and the run's
    // memory, nothing else refers to them while this shim runs.
    if let Some(pending) = unsafe { ctx.pending.as_mut() } {
        // SAFETY: see above.
        pending.flush_slot(slot as usize, unsafe { &mut *ctx.memory });
    }
    0
}

/// `write`: one output line with `value`. Returns 0, or [`SHIM_TRAP`] when
/// the output panicked.
extern "C" fn write(ctx: *mut c_void, value: i32) -> i64 {
    // SAFETY: as in `intrinsic`.
    let ctx = unsafe { &mut *ctx.cast::<Context<'_>>() };
    guarded(ctx, |ctx| {
        // SAFETY: as in `intrinsic`.
        unsafe { &mut *ctx.output }.write_value(value);
        0
    })
}

/// `textout`: one output line with text `text`. Returns 0, or
/// [`SHIM_TRAP`] when the output panicked.
extern "C" fn textout(ctx: *mut c_void, text: u32) -> i64 {
    // SAFETY: as in `intrinsic`.
    let ctx = unsafe { &mut *ctx.cast::<Context<'_>>() };
    guarded(ctx, |ctx| {
        let Some(t) = ctx.texts.get(text as usize) else {
            ctx.trap_code = trap::SHIM;
            ctx.payload = Some(TrapKind::BadCall(format!("no text {text}")));
            return SHIM_TRAP;
        };
        // SAFETY: as in `intrinsic`.
        unsafe { &mut *ctx.output }.write_text(&t.text);
        0
    })
}

/// The square set of a pattern whose list argument the compiler folded
/// into masks (see [`crate::inline`]): `kind` is one of [`pattern`], `arg`
/// the colour or piece, `within` the squares the list names (the set only
/// matters there). Stores the set in the context's `set_out` and returns 0,
/// or [`SHIM_TRAP`] on a panic.
extern "C" fn pattern_set(ctx: *mut c_void, kind: u32, arg: i32, within: u64) -> i64 {
    // SAFETY: as in `intrinsic`.
    let ctx = unsafe { &mut *ctx.cast::<Context<'_>>() };
    guarded(ctx, |ctx| {
        // SAFETY: the run set the pointer from the host's board view (or
        // the static empty board), which lives while the host is borrowed
        // for the run; nothing writes it while compiled code runs.
        let board = unsafe { &*ctx.board };
        ctx.set_out = match kind {
            pattern::DOUBLED => patterns::doubled_pawns(board, arg),
            pattern::PASSED => patterns::passed_pawns(board, arg),
            pattern::CONTROL => patterns::control(board, arg),
            _ => patterns::exchange_control_within(board, arg, within),
        };
        0
    })
}

/// A folded pattern (`pat.all` when `any` is 0, `pat.any` otherwise) whose
/// scalar argument was not known at compile time: charges its cost
/// ([`cvm::intrinsics::cost_folded`]) from `fuel`, then evaluates intrinsic
/// `id`'s folded form on the run's board and stores 1 or 0 in `*out`.
/// Returns the fuel left, or [`SHIM_TRAP`] (out of fuel, or a panic).
extern "C" fn pattern_mask(
    ctx: *mut c_void,
    id: u32,
    arg: i32,
    mask: u64,
    any: u32,
    fuel: i64,
    out: *mut i32,
) -> i64 {
    // SAFETY: as in `intrinsic`.
    let ctx = unsafe { &mut *ctx.cast::<Context<'_>>() };
    let left = charge(ctx, fuel, cvm::intrinsics::cost_folded(id, arg, mask));
    if left == SHIM_TRAP {
        return SHIM_TRAP;
    }
    guarded(ctx, |ctx| {
        let mode = if any == 0 {
            patterns::Mode::All
        } else {
            patterns::Mode::Any
        };
        let hit = match INTRINSICS.get(id as usize).and_then(|i| i.fold) {
            // SAFETY: as in `pattern_set`.
            Some(fold) => (fold.func)(unsafe { &*ctx.board }, arg, mask, mode),
            None => false,
        };
        // SAFETY: compiled code passes a stack slot of at least one word
        // that nothing else refers to during the call.
        unsafe { *out = i32::from(hit) };
        left
    })
}
