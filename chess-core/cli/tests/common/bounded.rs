#![allow(dead_code)]
//! Running a command line under a deadline, with its output kept to a bound: for tests that
//! feed hostile input, where the failure to catch is a hang or an output without end.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a bounded run gave.
pub struct Ran {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Standard output (its first [`KEEP`] bytes).
    pub stdout: String,
    /// Standard error (its first [`KEEP`] bytes).
    pub stderr: String,
    /// All bytes written to standard output.
    pub stdout_bytes: usize,
    /// All bytes written to standard error.
    pub stderr_bytes: usize,
}

/// The bytes of each stream kept for the test to read.
pub const KEEP: usize = 1 << 20;

/// Reads a stream to its end, keeping the first [`KEEP`] bytes; returns them and the total.
fn drain(mut r: impl Read) -> (Vec<u8>, usize) {
    let mut kept = Vec::new();
    let mut total = 0;
    let mut buf = [0u8; 64 * 1024];
    while let Ok(n) = r.read(&mut buf) {
        if n == 0 {
            break;
        }
        total += n;
        let room = KEEP.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    (kept, total)
}

/// Runs `program` with `args`, `input` on standard input, and fails the test if it has not
/// ended after `deadline` (the process is killed first).
pub fn run(program: &str, args: &[&str], input: &str, deadline: Duration) -> Ran {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.stdout.take().expect("stdout");
    let err = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || drain(out));
    let err = std::thread::spawn(move || drain(err));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`{program} {}` did not end within {deadline:?}",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    let (out, stdout_bytes) = out.join().expect("stdout reader");
    let (err, stderr_bytes) = err.join().expect("stderr reader");
    Ran {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        stdout_bytes,
        stderr_bytes,
    }
}

/// A fresh folder for one test's files.
pub fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("che-bounded-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp folder");
    d
}

/// A file of `len` zero bytes that takes no disk space (a sparse file).
pub fn sparse(path: &std::path::Path, len: u64) {
    let f = std::fs::File::create(path).expect("create");
    f.set_len(len).expect("set_len");
}
