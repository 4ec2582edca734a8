//! The playground's breakpoints and stepping over HTTP (`POST /api/debug`): the page carries the
//! controls; the server replays the program from its start through the resumptions sent and
//! answers the stop (stack, locals, globals, lists, advice, output so far) or the end with
//! `che run`'s exit status; a line without code moves to the next; runtime errors stop with
//! their message; bad actions are refused; an endless program stops at its fuel with the error.

#[path = "common/http.rs"]
mod http;
use che_cli::serve::limits::Limits;
use http::{request, start};
use serde_json::{json, Value};
use std::net::SocketAddr;

fn debug(addr: SocketAddr, body: Value) -> (u16, Value) {
    let (status, text) = request(addr, "POST", "/api/debug", body.to_string().as_bytes());
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

const PROGRAM: &str = "list seen[3];

function Twice(x)
var y;
begin
  y := x * 2;
  return y;
end;

procedure main()
var n;
begin
  n := Twice(3);
  seen[0] := n;
  SetSqrs(wN, 30, f3);
  write n;
  write n / (n - 6);
end;
";

#[test]
fn breakpoints_and_steps_through_a_program() {
    let addr = start(Limits::default());
    let (status, page) = request(addr, "GET", "/", b"");
    assert_eq!(status, 200);
    assert!(page.contains("id=\"debug\"") && page.contains("id=\"dbg-next\""));

    let body = |actions: Value| json!({"source": PROGRAM, "fen": START, "breakpoints": [2, 12], "actions": actions});
    // Line 2 has no code: its breakpoint moves into Twice; line 12 ("begin") to main's first
    // statement. The first stop is main's.
    let (status, r) = debug(addr, body(json!([])));
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["compiled"], true);
    let bps: Vec<u64> = r["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(bps.len(), 2, "{bps:?}");
    assert!(bps.contains(&13), "{bps:?}");
    let first = &r["stopped"];
    assert_eq!(first["reason"], "breakpoint");
    assert_eq!(first["frames"][0]["name"], "main");
    assert_eq!(first["frames"][0]["file"], "playground.che");
    assert_eq!(first["frames"][0]["line"], 13);

    // Continue: into Twice at its breakpoint, x = 3.
    let (_, r) = debug(addr, body(json!(["continue"])));
    let s = &r["stopped"];
    assert_eq!(s["reason"], "breakpoint");
    let names: Vec<&str> = s["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert_eq!(names, ["Twice", "main"]);
    let x = s["frames"][0]["locals"]
        .as_array()
        .expect("locals")
        .iter()
        .find(|v| v["name"] == "x")
        .expect("x")
        .clone();
    assert_eq!(x["value"], "3");

    // Step out, step over twice: after SetSqrs, the list holds 6 and the advice has f3.
    let (_, r) = debug(addr, body(json!(["continue", "stepOut", "next", "next"])));
    let s = &r["stopped"];
    assert_eq!(s["reason"], "step");
    assert_eq!(s["frames"][0]["line"], 16);
    let seen = s["globals"]
        .as_array()
        .expect("globals")
        .iter()
        .find(|v| v["name"] == "seen")
        .expect("the list")
        .clone();
    assert_eq!(seen["elements"], json!(["6"]));
    assert!(
        s["advice"]
            .as_array()
            .expect("advice")
            .iter()
            .any(|v| v["name"] == "square bonus wN f3" && v["value"] == "30"),
        "{s}"
    );
    assert_eq!(r["output"], json!([]));

    // One more step writes 6; then the division by zero stops with its message.
    let (_, r) = debug(
        addr,
        body(json!([
            "continue", "stepOut", "next", "next", "next", "next"
        ])),
    );
    assert_eq!(r["output"], json!(["6 0x00000006"]));
    let s = &r["stopped"];
    assert_eq!(s["reason"], "exception", "{r}");
    assert!(s["text"]
        .as_str()
        .is_some_and(|t| t.contains("division by zero")));
    assert_eq!(s["frames"][0]["line"], 17);

    // Resuming after the error ends the run with status 2, as `che run`.
    let (_, r) = debug(
        addr,
        body(json!([
            "continue", "stepOut", "next", "next", "next", "next", "continue"
        ])),
    );
    assert_eq!(r["stopped"], Value::Null);
    assert_eq!(r["exit_code"], 2);
    assert!(r["error"]
        .as_str()
        .is_some_and(|t| t.contains("division by zero")));

    // Without breakpoints a clean program runs to its end, status 0.
    let clean = PROGRAM.replace("write n / (n - 6);", "write n + 1;");
    let (_, r) = debug(addr, json!({"source": clean, "fen": START}));
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["output"], json!(["6 0x00000006", "7 0x00000007"]));

    // Stop on entry, a Che program.
    let che3 = "pattern start { wpwns(e2) } { };\nadvice centre goodsqrs(wN d4 e5);\nrule r { start } centre;\n";
    let (_, r) = debug(
        addr,
        json!({"source": che3, "dialect": "che3", "fen": START, "stop_on_entry": true}),
    );
    assert_eq!(r["stopped"]["reason"], "entry", "{r}");
    assert_eq!(r["stopped"]["frames"][0]["file"], "playground.che3");
}

#[test]
fn bad_debug_requests_are_refused_and_endless_programs_stop() {
    let addr = start(Limits::default());
    let (status, r) = debug(
        addr,
        json!({"source": PROGRAM, "fen": START, "actions": ["jump"]}),
    );
    assert_eq!(status, 422);
    assert!(
        r["error"]
            .as_str()
            .is_some_and(|e| e.contains("unknown action `jump`")),
        "{r}"
    );
    let (status, _) = debug(addr, json!({"source": PROGRAM, "fen": "nonsense"}));
    assert_eq!(status, 422);
    let (status, r) = debug(
        addr,
        json!({"source": "procedure main()\nbegin\n  write nope;\nend;\n", "fen": START}),
    );
    assert_eq!(status, 200);
    assert_eq!(r["compiled"], false);
    assert_eq!(r["diagnostics"][0]["line"], 3);
    // An endless loop stops at the playground's fuel with the error; resumed, it ends with
    // status 2.
    let endless = "procedure main()\nvar n;\nbegin\n  while 1 = 1 do n := n + 1; end;\nend;\n";
    let limits = Limits {
        fuel: 100_000,
        ..Limits::default()
    };
    let addr = start(limits);
    let (status, r) = debug(addr, json!({"source": endless, "fen": START}));
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["stopped"]["reason"], "exception");
    assert!(
        r["stopped"]["text"]
            .as_str()
            .is_some_and(|e| e.contains("out of fuel")),
        "{r}"
    );
    let (_, r) = debug(
        addr,
        json!({"source": endless, "fen": START, "actions": ["continue"]}),
    );
    assert_eq!(r["exit_code"], 2);
    assert!(
        r["error"]
            .as_str()
            .is_some_and(|e| e.contains("out of fuel")),
        "{r}"
    );
}

/// A CHEG program: a breakpoint, steps, BREAK, a subroutine.
const CHEG: &str = "ENTRY Q,K
        SETV A,\"5
        ADD A,A,\"1
        BREAK A
        SET B,TWICE,A
        DONE
TWICE:  ADD V,X,X
        RETURN V
        END
";

const KQK: &str = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1";

fn global<'a>(stop: &'a Value, name: &str) -> &'a Value {
    stop["globals"]
        .as_array()
        .expect("globals")
        .iter()
        .find(|v| v["name"] == name)
        .map_or(&Value::Null, |v| &v["value"])
}

#[test]
fn breakpoints_and_steps_through_a_cheg_program() {
    let addr = start(Limits::default());
    let body = |actions: Value| json!({"source": CHEG, "dialect": "cheg", "fen": KQK, "breakpoints": [3], "actions": actions});
    // The breakpoint: before line 3 runs, A is 5.
    let (status, r) = debug(addr, body(json!([])));
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["compiled"], true, "{r}");
    assert_eq!(r["breakpoints"], json!([3]));
    let s = &r["stopped"];
    assert_eq!(s["reason"], "breakpoint", "{r}");
    assert_eq!(s["frames"][0]["file"], "playground.cheg");
    assert_eq!(s["frames"][0]["line"], 3);
    assert_eq!(global(s, "A"), "5", "{s}");

    // A step: line 4, A is 6.
    let (_, r) = debug(addr, body(json!(["next"])));
    let s = &r["stopped"];
    assert_eq!(s["reason"], "step", "{r}");
    assert_eq!(s["frames"][0]["line"], 4);
    assert_eq!(global(s, "A"), "6", "{s}");
    assert_eq!(r["output"], json!([]));

    // BREAK prints its line and stops right after it, on its line, as in `che dap`.
    let (_, r) = debug(addr, body(json!(["next", "next"])));
    let s = &r["stopped"];
    assert_eq!(s["reason"], "breakpoint", "{r}");
    assert_eq!(s["text"], "break 6");
    assert_eq!(s["frames"][0]["line"], 4);
    assert_eq!(r["output"], json!(["break 6"]));

    // Over to line 5, then into the subroutine: two frames.
    let (_, r) = debug(addr, body(json!(["next", "next", "next"])));
    assert_eq!(r["stopped"]["frames"][0]["line"], 5, "{r}");
    let (_, r) = debug(
        addr,
        body(json!(["next", "next", "next", "stepIn", "stepIn"])),
    );
    let s = &r["stopped"];
    assert_eq!(s["reason"], "step", "{r}");
    assert_eq!(s["frames"][0]["line"], 7, "{s}");
    assert!(s["frames"].as_array().map_or(0, Vec::len) > 1, "{s}");
    let names: Vec<&str> = s["frames"][0]["locals"]
        .as_array()
        .expect("locals")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert!(names.contains(&"X"), "{s}");

    // To the end: status 0, the output `che run` prints.
    let (_, r) = debug(addr, body(json!(["next", "next", "continue"])));
    assert_eq!(r["stopped"], Value::Null, "{r}");
    assert_eq!(r["exit_code"], 0, "{r}");
    assert_eq!(r["error"], Value::Null);
    // `che run` on this program and position prints these two lines.
    assert_eq!(r["output"], json!(["break 6", "move none"]), "{r}");

    // No ENTRY matches a position with a rook: the run says so and ends, status 0.
    let (_, r) = debug(
        addr,
        json!({"source": CHEG, "dialect": "cheg", "fen": "8/8/8/4k3/8/8/3RK3/8 w - - 0 1"}),
    );
    assert_eq!(r["exit_code"], 0, "{r}");
    assert_eq!(r["output"], json!(["no entry"]), "{r}");

    // A dialect the debugger does not know is refused.
    let (status, r) = debug(
        addr,
        json!({"source": CHEG, "dialect": "basic", "fen": KQK}),
    );
    assert_eq!(status, 422);
    assert!(
        r["error"].as_str().is_some_and(|e| e.contains("cheg")),
        "{r}"
    );
}
