//! The playground under a bounded burst of hostile requests on loopback, through the `che serve`
//! binary with its default limits: output floods, error floods, endless programs, a flood of
//! engine moves, idle and slow (slowloris) connections, slow bodies, foreign `Host` and `Origin`
//! headers. Meanwhile normal requests keep answering (200, within a generous bound), and the
//! server's peak memory (`VmHWM` of /proc/PID/status) stays under the documented limit.
#![cfg(target_os = "linux")]

#[path = "common/http.rs"]
mod http;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The server's documented peak memory under this burst (docs/playground.md, "Limits").
const PEAK_LIMIT_KB: u64 = 512 * 1024;

/// A normal request must answer within this (generous: a slot may be taken by hostile work
/// until its time runs out, and idle connections hold the accept queue until theirs does).
const NORMAL_BOUND: Duration = Duration::from_secs(60);

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The server process; killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_che"))
        .args(["serve", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("che serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut line = String::new();
    BufReader::new(stderr)
        .read_line(&mut line)
        .expect("announce");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Server { child, addr }
}

/// Sends one request (`Connection: close`) with the given extra header lines; the status and
/// body, or status 0 when the connection failed.
fn request(addr: SocketAddr, method: &str, path: &str, extra: &str, body: &[u8]) -> (u16, String) {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return (0, String::new());
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(90)));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if s.write_all(head.as_bytes()).is_err() {
        return (0, String::new());
    }
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.take(64 << 20).read_to_end(&mut raw);
    http::parse_response(&raw)
}

fn run_body(source: &str, backend: &str) -> Vec<u8> {
    serde_json::json!({"source": source, "fen": START, "backend": backend})
        .to_string()
        .into_bytes()
}

/// The peak resident memory of a process, in kB.
fn peak_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[test]
fn hostile_burst_leaves_normal_requests_answered_and_memory_bounded() {
    let server = start();
    let addr = server.addr;
    // Hostile requests, each on a thread of its own; their answers are only collected.
    let mut hostile = Vec::new();
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let spawn = |name: &'static str, f: Box<dyn FnOnce() -> u16 + Send>| {
        let statuses = Arc::clone(&statuses);
        std::thread::spawn(move || {
            let status = f();
            statuses.lock().expect("lock").push((name, status));
        })
    };
    let flood = "procedure main()\nbegin\n  while 1 do\n    write 1;\n  end;\nend;\n";
    let endless = "procedure main()\nvar i;\nbegin\n  while 1 do\n    i := i + 1;\n  end;\nend;\n";
    let errors = "@ ".repeat(20_000);
    for _ in 0..6 {
        hostile.push(spawn(
            "output flood",
            Box::new(move || request(addr, "POST", "/api/run", "", &run_body(flood, "all")).0),
        ));
    }
    for _ in 0..3 {
        let errors = errors.clone();
        hostile.push(spawn(
            "error flood",
            Box::new(move || request(addr, "POST", "/api/run", "", &run_body(&errors, "all")).0),
        ));
    }
    for _ in 0..2 {
        hostile.push(spawn(
            "endless",
            Box::new(move || request(addr, "POST", "/api/run", "", &run_body(endless, "all")).0),
        ));
    }
    for _ in 0..12 {
        hostile.push(spawn(
            "engine move",
            Box::new(move || {
                let body = serde_json::json!({"source": "", "fen": START, "depth": 12}).to_string();
                request(addr, "POST", "/api/move", "", body.as_bytes()).0
            }),
        ));
    }
    // Foreign Host and Origin: refused at once.
    for (extra, host) in [
        ("", "evil.example"),
        ("", "evil.example:80"),
        ("Origin: http://evil.example\r\n", ""),
    ] {
        let Ok(mut s) = TcpStream::connect(addr) else {
            panic!("connect")
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(60)));
        let host = if host.is_empty() {
            addr.to_string()
        } else {
            host.to_string()
        };
        let body = run_body(flood, "all");
        let head = format!(
            "POST /api/run HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Length: {}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).expect("head");
        let _ = s.write_all(&body);
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        assert!(text.starts_with("HTTP/1.1 403"), "{host} {extra}: {text}");
    }
    // Idle connections (more than the 256 the server keeps open), slowloris heads and stalled
    // bodies.
    let mut idle = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = TcpStream::connect(addr) {
            idle.push(s);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut slow = Vec::new();
    for i in 0..20 {
        let stop = Arc::clone(&stop);
        slow.push(std::thread::spawn(move || {
            let Ok(mut s) = TcpStream::connect(addr) else { return };
            let head = if i % 2 == 0 {
                format!("POST /api/run HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ")
            } else {
                format!("POST /api/run HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 60000\r\n\r\n{{\"source\": \"")
            };
            let _ = s.write_all(head.as_bytes());
            while !stop.load(Ordering::Relaxed) {
                if s.write_all(b"a").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }));
    }
    // Normal requests while all that goes on.
    let started = Instant::now();
    let mut normal = 0;
    while started.elapsed() < Duration::from_secs(30) {
        let t = Instant::now();
        let (status, _) = request(addr, "GET", "/", "", b"");
        assert_eq!(status, 200, "the page after {:?}", started.elapsed());
        let (status, body) = request(
            addr,
            "POST",
            "/api/run",
            "",
            &run_body("procedure main()\nbegin\n  write 42;\nend;\n", "interp"),
        );
        assert_eq!(
            status,
            200,
            "a normal run after {:?}: {body}",
            started.elapsed()
        );
        assert!(body.contains("42 0x0000002A"), "{body}");
        let took = t.elapsed();
        assert!(took < NORMAL_BOUND, "normal requests took {took:?}");
        normal += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    for t in hostile {
        let _ = t.join();
    }
    for t in slow {
        let _ = t.join();
    }
    drop(idle);
    let statuses = statuses.lock().expect("lock").clone();
    for (name, status) in &statuses {
        assert!([200, 503].contains(status), "{name}: status {status}");
    }
    // Still answering afterwards.
    assert_eq!(request(addr, "GET", "/", "", b"").0, 200);
    let peak = peak_kb(server.child.id());
    eprintln!(
        "{normal} normal rounds; hostile statuses {statuses:?}; server peak {} MB",
        peak / 1024
    );
    assert!(peak < PEAK_LIMIT_KB, "the server peaked at {peak} kB");
}
