//! The engine's worker thread and the shared output.
//!
//! A front end must keep reading its input while the engine thinks — UCI's `stop` and `quit`, the
//! terminal player's `stop` or a new depth — so the engine runs on a thread of its own and the
//! front end talks to it through a queue of jobs ([`EngineHandle::submit`]) and the shared
//! [`SearchControl`] (stop flag and live limits). The engine is created on the worker thread and
//! never leaves it (the JIT's code is tied to its thread), and the thread gets a large stack so
//! that neither the search nor JIT-compiled advice code ever needs to switch stacks.
//!
//! [`Out`] is the line-oriented output both threads write to: standard output for the programs, a
//! list of captured lines for tests.

use crate::engine::Engine;
use crate::options::EngineOptions;
use crate::search::SearchControl;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Stack size of the worker thread.
pub const WORKER_STACK: usize = 64 << 20;

enum Sink {
    Writer(Box<dyn Write + Send>),
    Capture(Vec<String>),
}

/// A line-oriented output that several threads may share; every line is flushed at once.
#[derive(Clone)]
pub struct Out {
    sink: Arc<Mutex<Sink>>,
}

impl Out {
    /// Lines go to standard output.
    pub fn stdout() -> Out {
        Out::writer(Box::new(std::io::stdout()))
    }

    /// Lines go to `writer`.
    pub fn writer(writer: Box<dyn Write + Send>) -> Out {
        Out {
            sink: Arc::new(Mutex::new(Sink::Writer(writer))),
        }
    }

    /// Lines are kept for [`Out::lines`].
    pub fn capture() -> Out {
        Out {
            sink: Arc::new(Mutex::new(Sink::Capture(Vec::new()))),
        }
    }

    /// Writes one line (write errors, such as a closed pipe, are ignored: there is no one left
    /// to tell).
    pub fn line(&self, text: &str) {
        let mut guard = match self.sink.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        match &mut *guard {
            Sink::Writer(w) => {
                let _ = writeln!(w, "{text}");
                let _ = w.flush();
            }
            Sink::Capture(lines) => lines.push(text.to_string()),
        }
    }

    /// Writes several lines (a multi-line text is split at its line breaks).
    pub fn text(&self, text: &str) {
        for l in text.lines() {
            self.line(l);
        }
    }

    /// The captured lines so far (empty for a writer).
    pub fn lines(&self) -> Vec<String> {
        let guard = match self.sink.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        match &*guard {
            Sink::Capture(lines) => lines.clone(),
            Sink::Writer(_) => Vec::new(),
        }
    }

    /// Removes and returns the captured lines.
    pub fn take_lines(&self) -> Vec<String> {
        let mut guard = match self.sink.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        match &mut *guard {
            Sink::Capture(lines) => std::mem::take(lines),
            Sink::Writer(_) => Vec::new(),
        }
    }
}

type Job = Box<dyn FnOnce(&mut Engine) + Send>;

enum Message {
    Job(Job),
    Quit,
}

/// How long shutting down waits for a job that cannot be interrupted (such as a deep `go perft`)
/// before leaving the thread to end with the process.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Reads lines from `input` as text, replacing bytes that are not UTF-8 (a stray byte must not
/// end a session); `None` at the end of the input or on a read error.
pub fn read_line_lossy(input: &mut impl BufRead) -> Option<String> {
    let mut bytes = Vec::new();
    match input.read_until(b'\n', &mut bytes) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            let text = String::from_utf8_lossy(&bytes);
            Some(text.trim_end_matches(['\n', '\r']).to_string())
        }
    }
}

/// The front end's side of the worker thread.
pub struct EngineHandle {
    jobs: Sender<Message>,
    control: Arc<SearchControl>,
    busy: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// Disconnects when the worker thread has finished.
    finished: Receiver<()>,
}

/// Why the worker could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the engine thread: {0}")]
pub struct SpawnError(#[from] std::io::Error);

impl EngineHandle {
    /// Starts the worker thread with an engine built from `options`.
    pub fn spawn(options: EngineOptions) -> Result<EngineHandle, SpawnError> {
        let (tx, rx) = mpsc::channel::<Message>();
        let (finished_tx, finished) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("che-engine".into())
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let _finished = finished_tx;
                let mut engine = Engine::new(options);
                for message in rx {
                    match message {
                        Message::Job(job) => job(&mut engine),
                        Message::Quit => break,
                    }
                }
            })?;
        Ok(EngineHandle {
            jobs: tx,
            control: Arc::new(SearchControl::new()),
            busy: Arc::new(AtomicBool::new(false)),
            thread: Some(thread),
            finished,
        })
    }

    /// Queues a job for the engine; jobs run one after the other, in order.
    pub fn submit(&self, job: impl FnOnce(&mut Engine) + Send + 'static) {
        // A send fails only after the worker has gone, when nothing is left to do.
        let _ = self.jobs.send(Message::Job(Box::new(job)));
    }

    /// Queues a search: marks the engine busy until `job` returns. The stop flag is cleared now,
    /// so a `stop` that arrives before the job starts still stops it.
    pub fn submit_search(&self, job: impl FnOnce(&mut Engine, &SearchControl) + Send + 'static) {
        self.control.arm(None, crate::search::TimePlan::default());
        self.busy.store(true, Ordering::SeqCst);
        let control = Arc::clone(&self.control);
        let busy = Arc::clone(&self.busy);
        self.submit(move |engine| {
            job(engine, &control);
            busy.store(false, Ordering::SeqCst);
        });
    }

    /// The shared stop flag and live limits.
    pub fn control(&self) -> &SearchControl {
        &self.control
    }

    /// Whether a search is queued or running.
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    /// Blocks until every job queued so far has run.
    pub fn wait(&self) {
        let (tx, rx) = mpsc::channel();
        self.submit(move |_| {
            let _ = tx.send(());
        });
        let _ = rx.recv();
    }

    /// Stops any search, lets queued jobs finish and ends the thread.
    pub fn quit(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.control.stop();
        let _ = self.jobs.send(Message::Quit);
        if let Some(t) = self.thread.take() {
            match self.finished.recv_timeout(SHUTDOWN_GRACE) {
                Err(RecvTimeoutError::Timeout) => {} // still busy: it ends with the process
                _ => {
                    let _ = t.join();
                }
            }
        }
    }
}

impl Drop for EngineHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_lossily() {
        let mut input: &[u8] = b"uci\r\nposition \xFF\xFE startpos\nlast";
        assert_eq!(read_line_lossy(&mut input).as_deref(), Some("uci"));
        assert_eq!(
            read_line_lossy(&mut input).as_deref(),
            Some("position \u{FFFD}\u{FFFD} startpos")
        );
        assert_eq!(read_line_lossy(&mut input).as_deref(), Some("last"));
        assert_eq!(read_line_lossy(&mut input), None);
    }

    #[test]
    fn jobs_run_in_order_on_the_worker() {
        let out = Out::capture();
        let handle = EngineHandle::spawn(EngineOptions {
            hash_mb: 1,
            ..EngineOptions::default()
        })
        .unwrap();
        for i in 0..3 {
            let out = out.clone();
            handle.submit(move |_| out.line(&format!("job {i}")));
        }
        handle.wait();
        assert_eq!(out.lines(), ["job 0", "job 1", "job 2"]);
        handle.quit();
    }
}
