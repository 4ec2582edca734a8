//! Debugging without a session: run a program from its start through a
//! list of resumptions and report the stop the last one leads to.
//!
//! Programs are deterministic, so the n-th stop of a run is the same every
//! time it is reached the same way. A client that keeps only its
//! breakpoints and the resumptions it asked for (continue, next, step in,
//! step out) can therefore ask a stateless server for the state at each
//! stop: the playground does. Each request costs the run up to its stop and
//! is bounded by fuel like any run.
//!
//! A CHEG program runs on its own host ([`HostView`]): its globals show as
//! its runtime's values, its BREAK lines and closing lines (the move and
//! value) are output, and a BREAK stops the run after it as `che dap`'s
//! does.

use crate::debug::machine::{Machine, Stepped};
use crate::debug::session::{
    snapshot, BreakWatch, HostView, Prepared, Resume, Snapshot, Stepper, StopReason,
};
use cvm::{Host, Limits, Output};
use std::collections::HashSet;

/// What a replay runs with.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// Breakpoints as (line-table file, line).
    pub breakpoints: HashSet<(u32, u32)>,
    /// The resumptions, one per stop, in order.
    pub actions: Vec<Resume>,
    /// Stop before the first instruction.
    pub stop_on_entry: bool,
    /// The fuel of the whole run (as `che run --fuel`).
    pub fuel: Option<u64>,
    /// Output lines kept; the rest are counted.
    pub output_lines: usize,
    /// Output bytes kept (the lines' text); the rest are counted as lines.
    pub output_bytes: usize,
}

/// Where a replay ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The stop reached after the last resumption, with the state there;
    /// `None` when the run ended first.
    pub stop: Option<(StopReason, Snapshot)>,
    /// Stops passed on the way (resumed by the actions).
    pub resumed: usize,
    /// What the program printed up to the stop or the end.
    pub output: Vec<String>,
    /// Lines printed beyond those kept.
    pub output_dropped: u64,
    /// `che run`'s exit status when the run ended (0, or 2 after a
    /// runtime error); `None` at a stop.
    pub exit_code: Option<i32>,
    /// The runtime error that ended the run, rendered.
    pub error: Option<String>,
    /// True when `cancel` stopped the replay.
    pub cancelled: bool,
}

/// Output lines as `che run` prints them, the first `keep` kept.
struct Lines {
    lines: Vec<String>,
    keep: usize,
    bytes_left: usize,
    dropped: u64,
}

impl Lines {
    fn push(&mut self, line: String) {
        if self.lines.len() < self.keep && line.len() <= self.bytes_left {
            self.bytes_left -= line.len();
            self.lines.push(line);
        } else {
            self.dropped += 1;
        }
    }
}

impl Output for Lines {
    fn write_value(&mut self, value: i32) {
        self.push(cvm::format_value(value));
    }

    fn write_text(&mut self, text: &str) {
        self.push(text.to_string());
    }
}

/// How many instructions run between two calls of `cancel`.
const CANCEL_EVERY: u64 = 4096;

/// Runs the entry point of `prepared` on `host` through the resumptions
/// of `options`; `cancel` is asked now and then whether to give up.
pub fn replay<H: Host + HostView>(
    prepared: &Prepared,
    host: &mut H,
    options: &ReplayOptions,
    cancel: &dyn Fn() -> bool,
) -> Replayed {
    let mut machine = Machine::new(&prepared.program);
    machine.set_limits(Limits {
        fuel: options.fuel,
        ..Limits::default()
    });
    let mut out = Lines {
        lines: Vec::new(),
        keep: options.output_lines,
        bytes_left: options.output_bytes,
        dropped: 0,
    };
    let mut done = Replayed {
        stop: None,
        resumed: 0,
        output: Vec::new(),
        output_dropped: 0,
        exit_code: None,
        error: None,
        cancelled: false,
    };
    let mut stepper = Stepper::new(options.stop_on_entry);
    stepper.breakpoints = options.breakpoints.clone();
    let mut actions = options.actions.iter();
    let mut count = 0u64;
    let mut breaks = BreakWatch::default();
    let mut pending: Option<StopReason> = None;
    let result = match machine.start_entry() {
        Err(e) => Err(e),
        Ok(()) => loop {
            let Some(at) = machine.offset() else {
                break Ok(());
            };
            count += 1;
            if count % CANCEL_EVERY == 0 && cancel() {
                done.cancelled = true;
                break Ok(());
            }
            let depth = machine.frames().len();
            let mut reason = stepper.check(depth, prepared.line_at(at));
            if let Some(r) = pending.take() {
                reason = Some(r);
            }
            if let Some(reason) = reason {
                match actions.next() {
                    Some(&how) => {
                        done.resumed += 1;
                        stepper.resume(how, depth);
                    }
                    None => {
                        let view = snapshot(prepared, &machine, &|i, v| host.global(i, v));
                        done.stop = Some((reason, view));
                        break Ok(());
                    }
                }
            }
            let mut printed = Vec::new();
            let (stepped, stop) = breaks.step(
                &mut machine,
                at,
                prepared.cheg.is_some(),
                host,
                &mut out,
                &mut |line| printed.push(line.to_string()),
            );
            for line in printed {
                out.push(line);
            }
            pending = stop;
            match stepped {
                Stepped::Running => {}
                Stepped::Done(Ok(_)) => break Ok(()),
                Stepped::Done(Err(e)) => break Err(e),
            }
        },
    };
    match result {
        Ok(()) if done.stop.is_none() && !done.cancelled => {
            for line in host.summary() {
                out.push(line);
            }
            done.exit_code = Some(0);
        }
        Ok(()) => {}
        Err(e) => {
            let message = prepared.render_error(&e);
            if actions.next().is_some() || machine.frames().is_empty() {
                done.resumed += usize::from(!machine.frames().is_empty());
                done.exit_code = Some(2);
                done.error = Some(message);
            } else {
                done.stop = Some((
                    StopReason::Exception(message),
                    snapshot(prepared, &machine, &|i, v| host.global(i, v)),
                ));
            }
        }
    }
    done.output = out.lines;
    done.output_dropped = out.dropped;
    done
}
