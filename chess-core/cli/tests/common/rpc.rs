//! A client for `che lsp` and `che dap` as an editor is: it starts the
//! command, writes messages with the base protocol's `Content-Length`
//! framing on its standard input and reads framed messages from its
//! standard output on a thread of its own. A message that does not come
//! within a minute fails the test (a hang, not a timing assertion).

#![allow(dead_code)] // each test binary uses part of the client

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long a message may take before the test gives up.
const PATIENCE: Duration = Duration::from_secs(60);

/// A running server and everything it sent.
pub struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    /// Messages received and not yet taken.
    pub backlog: Vec<Value>,
    next: i64,
}

/// Reads one framed message; `None` at the end of the stream.
pub fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The framed bytes of a message.
pub fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

impl Peer {
    /// Starts `che SUBCOMMAND` in `dir`.
    pub fn spawn(subcommand: &str, dir: &std::path::Path) -> Peer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_che"))
            .arg(subcommand)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starts che");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(m) = read_message(&mut reader) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        Peer {
            child,
            stdin,
            rx,
            backlog: Vec::new(),
            next: 1,
        }
    }

    /// Writes raw bytes to the server.
    pub fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("writes");
        stdin.flush().expect("flushes");
    }

    /// Sends one message.
    pub fn send(&mut self, message: &Value) {
        self.write_raw(&frame(message));
    }

    /// A fresh request number.
    pub fn id(&mut self) -> i64 {
        self.next += 1;
        self.next - 1
    }

    /// The next message, from the backlog first.
    pub fn recv(&mut self) -> Value {
        if !self.backlog.is_empty() {
            return self.backlog.remove(0);
        }
        match self.rx.recv_timeout(PATIENCE) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => panic!("no message within {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// The first message that satisfies `want`, keeping the others (in
    /// order) in the backlog.
    pub fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&want) {
            return self.backlog.remove(i);
        }
        let mut skipped = Vec::new();
        loop {
            let m = match self.rx.recv_timeout(PATIENCE) {
                Ok(m) => m,
                Err(e) => panic!("waiting for {what}: {e:?}; got {skipped:#?}"),
            };
            if want(&m) {
                self.backlog.extend(skipped);
                return m;
            }
            skipped.push(m);
        }
    }

    /// Closes the server's input and waits for it to end.
    pub fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("waits")
    }

    /// Waits for the server to end (its input left open).
    pub fn wait(&mut self) -> ExitStatus {
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().expect("polls") {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("the server did not end within a minute");
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
