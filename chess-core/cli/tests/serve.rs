//! `che serve` over HTTP on loopback: the page and its assets, compiling and running on both
//! backends, diagnostics with their lines, the engine's move, and bad input (malformed JSON and
//! FEN, a body over the size limit, an endless program, an unknown route), then a bounded stream
//! of fuzzed requests after which the server still answers. Requests are written by hand over a
//! `TcpStream` (HTTP/1.1, `Connection: close`).

#[path = "common/http.rs"]
mod http;
use che_cli::serve::limits::Limits;
use http::{request, start};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

fn post_json(addr: SocketAddr, path: &str, value: serde_json::Value) -> (u16, serde_json::Value) {
    let (status, body) = request(addr, "POST", path, value.to_string().as_bytes());
    let json = serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
    (status, json)
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn page_run_diagnostics_and_engine() {
    let addr = start(Limits::default());
    let (status, page) = request(addr, "GET", "/", b"");
    assert_eq!(status, 200);
    assert!(page.contains("<textarea id=\"source\""), "{page}");
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no network use"
    );
    for asset in ["/app.js", "/style.css", "/example.che"] {
        assert_eq!(request(addr, "GET", asset, b"").0, 200, "{asset}");
    }
    let (status, _) = request(addr, "GET", "/nothing-here", b"");
    assert_eq!(status, 404);

    // A program on every backend: the same output and advice, with timings and a listing.
    let source = "procedure main()\nbegin\n  SetMvs(w, 40, e2e4);\n  SetSqrs(wN, 30, f3);\n  write 6 * 7;\nend;\n";
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": source, "fen": START, "backend": "both"}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["compiled"], true);
    let runs = r["runs"].as_array().expect("runs");
    // "both" means every backend: interp, jit and the tiered auto.
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[0]["backend"], "interp");
    assert_eq!(runs[1]["backend"], "jit");
    assert_eq!(runs[2]["backend"], "auto");
    for run in runs {
        assert_eq!(run["output"], serde_json::json!(["42 0x0000002A"]), "{run}");
        assert_eq!(run["advice"]["move_bonus"]["w"]["e2e4"], 40);
        assert_eq!(run["advice"]["square_bonus"]["wN"]["f3"], 30);
        let svg = run["svg"].as_str().expect("svg");
        assert!(svg.contains(r#"data-move="e2e4" data-side="w" data-bonus="40""#));
        assert!(run["run_ms"].as_f64().is_some());
    }
    assert!(r["listing"].as_str().expect("listing").contains("main"));

    // A broken program: the diagnostic names its line.
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": "procedure main()\nbegin\n  x := ;\nend;\n", "fen": START}),
    );
    assert_eq!(status, 200);
    assert_eq!(r["compiled"], false);
    let d = &r["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 3, "{r}");

    // The engine's move with the program loaded: e2e4 gets a large bonus.
    let source = "procedure main()\nbegin\n  SetMvs(w, 300, a2a3);\nend;\n";
    let (status, m) = post_json(
        addr,
        "/api/move",
        serde_json::json!({"source": source, "fen": START, "depth": 4}),
    );
    assert_eq!(status, 200, "{m}");
    assert_eq!(m["bestmove"], "a2a3", "{m}");
    assert_eq!(m["pv"][0], "a3", "{m}");
}

#[test]
fn che3_programs_run_with_diagnostics_and_advise_the_engine() {
    let addr = start(Limits::default());
    // A rule with no patterns runs its advice unconditionally.
    let source =
        "# Nimzo 3 Che\nadvice push strongmvs(wP a2a3) goodsqrs(wN f3);\nrule always { } push;\n";
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": source, "dialect": "che3", "fen": START}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["compiled"], true, "{r}");
    let runs = r["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 3);
    for run in runs {
        assert!(run["error"].is_null(), "{run}");
        assert!(
            run["advice"]["move_bonus"]["w"]["a2a3"]
                .as_i64()
                .unwrap_or(0)
                > 0,
            "{run}"
        );
        assert!(
            run["advice"]["square_bonus"]["wN"]["f3"]
                .as_i64()
                .unwrap_or(0)
                > 0,
            "{run}"
        );
    }
    // The same text is not Che++.
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": source, "fen": START}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["compiled"], false, "{r}");
    // A Che error names its line: an upper-case square.
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": "advice a goodsqrs(wN f3);\nadvice b goodsqrs(wN E4);\nrule r { } a b;\n", "dialect": "che3", "fen": START}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["compiled"], false, "{r}");
    assert_eq!(r["diagnostics"][0]["line"], 2, "{r}");
    // An unknown dialect is refused, and the server answers afterwards.
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": source, "dialect": "cobol", "fen": START}),
    );
    assert!((400..500).contains(&status), "{status} {r}");
    assert!(r["error"].as_str().unwrap_or("").contains("dialect"), "{r}");
    // The engine follows the Che program's advice.
    let source = "advice push strongmvs(wP a2a3);\nrule always { } push;\n";
    let (status, m) = post_json(
        addr,
        "/api/move",
        serde_json::json!({"source": source, "dialect": "che3", "fen": START, "depth": 3}),
    );
    assert_eq!(status, 200, "{m}");
    assert!(
        m["notes"].as_array().is_some_and(|n| n
            .iter()
            .all(|x| !x.as_str().unwrap_or("").starts_with("error"))),
        "{m}"
    );
    assert!(m["bestmove"].is_string(), "{m}");
}

#[test]
fn bad_input_gets_clear_errors_and_the_server_stays_up() {
    let limits = Limits {
        body_bytes: 4096,
        fuel: 2_000_000,
        request_time: Duration::from_secs(5),
        ..Limits::default()
    };
    let addr = start(limits);
    // Malformed FEN.
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": "procedure main()\nbegin\nend;\n", "fen": "8/8/8 w"}),
    );
    assert_eq!(status, 422);
    assert!(
        r["error"]
            .as_str()
            .expect("error")
            .starts_with("invalid FEN"),
        "{r}"
    );
    let (status, _) = post_json(addr, "/api/move", serde_json::json!({"fen": "nonsense"}));
    assert_eq!(status, 422);
    // Malformed JSON, a wrong field type.
    let (status, _) = request(addr, "POST", "/api/run", b"{not json");
    assert_eq!(status, 400);
    let (status, _) = request(addr, "POST", "/api/run", br#"{"source": 5, "fen": "x"}"#);
    assert_eq!(status, 422);
    // A body over the limit.
    let huge = serde_json::json!({"source": "x".repeat(10_000), "fen": START});
    let (status, _) = post_json(addr, "/api/run", huge);
    assert_eq!(status, 413);
    // An endless program: stopped by fuel, reported with its line, well within the time limit.
    let started = Instant::now();
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": "procedure main()\nvar i;\nbegin\n  while 1 do\n    i := i + 1;\nend;\n", "fen": START}),
    );
    assert!(
        started.elapsed() < limits.request_time,
        "{:?}",
        started.elapsed()
    );
    assert_eq!(status, 200, "{r}");
    for run in r["runs"].as_array().expect("runs") {
        assert!(
            run["error"].as_str().expect("an error").contains("fuel"),
            "{run}"
        );
    }
    // Still up.
    assert_eq!(request(addr, "GET", "/", b"").0, 200);
}

/// A small deterministic generator (xorshift64*).
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

#[test]
fn a_fuzzed_stream_of_requests() {
    let limits = Limits {
        body_bytes: 8192,
        fuel: 1_000_000,
        request_time: Duration::from_secs(4),
        move_time: Duration::from_millis(300),
        max_depth: 4,
        ..Limits::default()
    };
    let addr = start(limits);
    let pieces = [
        "procedure main()\nbegin\n",
        "end;\n",
        "SetMvs(w, 10, e2e4);\n",
        "write 1 / 0;\n",
        "while 1 do ;\n",
        "x := ;",
        "SetSqrs(wN, 5, f3);\n",
        "{",
        "\"",
        "\u{0}\u{ff}",
        "function f(a) begin return f(a + 1); end;\n",
        "write f(1);\n",
    ];
    let fens = [
        START,
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
        "",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "7k/5QQ1/8/8/8/8/8/K7 b - - 0 1",
    ];
    let mut state = 0x5EED_u64;
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut sent = 0;
    while sent < 120 && Instant::now() < deadline {
        let mut source = String::new();
        for _ in 0..next(&mut state) % 6 {
            source.push_str(pieces[(next(&mut state) % pieces.len() as u64) as usize]);
        }
        let fen = fens[(next(&mut state) % fens.len() as u64) as usize];
        let started = Instant::now();
        let (status, _) = match next(&mut state) % 5 {
            0 => post_json(
                addr,
                "/api/move",
                serde_json::json!({"source": source, "fen": fen, "depth": next(&mut state) % 20}),
            ),
            1 => {
                // Raw bytes, possibly not JSON at all.
                let len = (next(&mut state) % 64) as usize;
                let bytes: Vec<u8> = (0..len).map(|_| next(&mut state) as u8).collect();
                let (s, _) = request(addr, "POST", "/api/run", &bytes);
                (s, serde_json::Value::Null)
            }
            _ => {
                let backend =
                    ["interp", "jit", "auto", "all", "both", "x"][(next(&mut state) % 6) as usize];
                post_json(
                    addr,
                    "/api/run",
                    serde_json::json!({"source": source, "fen": fen, "backend": backend}),
                )
            }
        };
        let took = started.elapsed();
        assert!(
            [200, 400, 413, 415, 422, 503].contains(&status),
            "status {status} for {source:?} on {fen:?}"
        );
        // The time limit plus a margin for the connection and the answer.
        assert!(
            took < limits.request_time + Duration::from_secs(1),
            "{took:?} for {source:?}"
        );
        sent += 1;
    }
    assert!(sent >= 20, "only {sent} requests in the time");
    assert_eq!(request(addr, "GET", "/", b"").0, 200);
}

#[test]
fn work_past_its_time_is_stopped_and_keeps_its_slot_until_it_ends() {
    let limits = Limits {
        fuel: 2_000_000_000,
        request_time: Duration::from_millis(300),
        queue_time: Duration::from_millis(500),
        concurrent: 2,
        ..Limits::default()
    };
    let addr = start(limits);
    let endless = "procedure main()\nvar i;\nbegin\n  while 1 do\n    i := i + 1;\n  end;\nend;\n";
    let small = serde_json::json!({"source": "procedure main()\nbegin\n  write 7;\nend;\n", "fen": START, "backend": "interp"});
    let (status, r) = post_json(
        addr,
        "/api/run",
        serde_json::json!({"source": endless, "fen": START, "backend": "all"}),
    );
    assert_eq!(status, 503, "{r}");
    assert!(
        r["error"].as_str().unwrap_or("").contains("was stopped"),
        "{r}"
    );
    // The stopped work still runs its current backend (bounded by fuel): its slot is not
    // handed to the next run, which waits and is refused.
    let (status, r) = post_json(addr, "/api/run", small.clone());
    assert_eq!(status, 503, "{r}");
    assert!(r["error"].as_str().unwrap_or("").contains("busy"), "{r}");
    // Once the work has ended (before its next backends: it was stopped), runs are answered.
    let started = Instant::now();
    loop {
        let (status, r) = post_json(addr, "/api/run", small.clone());
        if status == 200 {
            assert_eq!(r["runs"][0]["output"][0], "7 0x00000007", "{r}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no slot came free: {r}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn foreign_hosts_and_origins_are_refused() {
    let addr = start(Limits::default());
    for (host, origin, want) in [
        (addr.to_string(), None, 200),
        (format!("localhost:{}", addr.port()), None, 200),
        (format!("[::1]:{}", addr.port()), None, 200),
        ("evil.example".to_string(), None, 403),
        (format!("evil.example:{}", addr.port()), None, 403),
        (addr.to_string(), Some("http://evil.example"), 403),
        (addr.to_string(), Some("null"), 403),
        (
            addr.to_string(),
            Some(format!("http://{addr}").as_str()),
            200,
        ),
    ] {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        let head = format!("GET / HTTP/1.1\r\nHost: {host}\r\n{origin}Connection: close\r\n\r\n");
        s.write_all(head.as_bytes()).expect("send");
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        let status: u16 = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        assert_eq!(status, want, "Host {host}, {origin}: {text}");
    }
}

#[test]
fn idle_and_slow_connections_are_closed() {
    let limits = Limits {
        idle_time: Duration::from_millis(500),
        body_time: Duration::from_millis(500),
        ..Limits::default()
    };
    let addr = start(limits);
    // An idle connection, a head trickling in, a body that stops: each ends within a bound.
    let cases: [(&str, &[u8]); 3] = [
        ("idle", b""),
        ("slow head", b"GET / HTTP/1.1\r\nX-Slow: a"),
        (
            "stalled body",
            b"POST /api/run HTTP/1.1\r\nHost: HOST\r\nContent-Length: 100\r\n\r\n{\"so",
        ),
    ];
    for (what, bytes) in cases {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let text = String::from_utf8_lossy(bytes).replace("HOST", &addr.to_string());
        s.write_all(text.as_bytes()).expect("send");
        let started = Instant::now();
        let mut keep_trickling = what == "slow head";
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            if keep_trickling {
                keep_trickling = s.write_all(b"a").is_ok();
                s.set_read_timeout(Some(Duration::from_millis(100)))
                    .expect("timeout");
            }
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(_) => break,
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{what}: the connection stayed open"
            );
        }
        let answer = String::from_utf8_lossy(&answer);
        if what == "stalled body" {
            assert!(answer.starts_with("HTTP/1.1 408"), "{what}: {answer}");
        }
    }
}
