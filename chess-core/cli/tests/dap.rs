//! `che dap` driven over standard input and output as an editor drives it:
//! initialize, launch, the initialized event, setBreakpoints (a line
//! without code moved to the next line with code), configurationDone,
//! stopped events (breakpoint, step, entry, pause, a runtime error with
//! the command line's message, CHEG's BREAK), threads, stackTrace, scopes,
//! variables (locals, globals, lists and their elements, the advice
//! table), next, stepIn, stepOut, continue, pause, disconnect, the
//! program's output as output events (the lines `che run` prints) and
//! exited with `che run`'s exit status.

#[path = "common/rpc.rs"]
mod rpc;

use rpc::Peer;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = "include stdlib.che

var total;
list squares[4];

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
  squares[0] := n;
  total := n + 1;
  GoodSqrs(wN, d4 e5);
  write total;
  write n;
end;
";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("che-dap-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.canonicalize().expect("canonical")
}

/// `che run`'s standard output and exit status.
fn che_run(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_che"))
        .arg("run")
        .args(args)
        .output()
        .expect("runs che");
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        out.status.code().expect("an exit status"),
    )
}

/// `che run`'s first line on standard error.
fn che_run_error(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_che"))
        .arg("run")
        .args(args)
        .output()
        .expect("runs che");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

struct Session {
    peer: Peer,
}

impl Session {
    fn start(dir: &Path) -> Session {
        let mut peer = Peer::spawn("dap", dir);
        let id = peer.id();
        peer.send(
            &json!({"seq": id, "type": "request", "command": "initialize",
            "arguments": {"adapterID": "che", "linesStartAt1": true, "columnsStartAt1": true}}),
        );
        let r = peer.wait_for("initialize", |m| {
            m["type"] == "response" && m["request_seq"] == id
        });
        assert_eq!(r["success"], true);
        assert_eq!(r["body"]["supportsConfigurationDoneRequest"], true);
        Session { peer }
    }

    fn request(&mut self, command: &str, arguments: Value) -> Value {
        let id = self.peer.id();
        self.peer.send(
            &json!({"seq": id, "type": "request", "command": command, "arguments": arguments}),
        );
        self.peer.wait_for(command, |m| {
            m["type"] == "response" && m["request_seq"] == id
        })
    }

    fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let r = self.request(command, arguments);
        assert_eq!(r["success"], true, "{command}: {r}");
        r["body"].clone()
    }

    fn event(&mut self, name: &str) -> Value {
        self.peer
            .wait_for(name, |m| m["type"] == "event" && m["event"] == name)["body"]
            .clone()
    }

    fn launch(&mut self, arguments: Value) {
        self.ok("launch", arguments);
        self.event("initialized");
    }

    fn stopped(&mut self, reason: &str) -> Value {
        let body = self.event("stopped");
        assert_eq!(body["reason"], reason, "{body}");
        assert_eq!(body["threadId"], 1);
        body
    }

    fn frames(&mut self) -> Vec<Value> {
        let body = self.ok("stackTrace", json!({"threadId": 1}));
        body["stackFrames"].as_array().expect("frames").clone()
    }

    /// (name, value, reference) of a variables reference.
    fn variables(&mut self, reference: &Value) -> Vec<(String, String, u64)> {
        let body = self.ok("variables", json!({"variablesReference": reference}));
        body["variables"]
            .as_array()
            .expect("variables")
            .iter()
            .map(|v| {
                (
                    v["name"].as_str().unwrap_or("").to_string(),
                    v["value"].as_str().unwrap_or("").to_string(),
                    v["variablesReference"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    }

    /// The scopes of frame `id` by name.
    fn scope(&mut self, frame: &Value, name: &str) -> Vec<(String, String, u64)> {
        let body = self.ok("scopes", json!({"frameId": frame["id"]}));
        let scope = body["scopes"]
            .as_array()
            .expect("scopes")
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no scope {name}: {body}"))
            .clone();
        self.variables(&scope["variablesReference"])
    }

    /// Everything the program wrote, up to the exited event; the exit code.
    fn finish(&mut self) -> (String, i64) {
        let exited = self.event("exited");
        self.event("terminated");
        let mut text = String::new();
        for m in self
            .peer
            .backlog
            .iter()
            .filter(|m| m["event"] == "output" && m["body"]["category"] == "stdout")
        {
            text.push_str(m["body"]["output"].as_str().unwrap_or(""));
        }
        (text, exited["exitCode"].as_i64().expect("exit code"))
    }

    fn disconnect(mut self) {
        self.ok("disconnect", json!({}));
        let status = self.peer.wait();
        assert!(status.success(), "{status:?}");
    }
}

fn value_of<'a>(vars: &'a [(String, String, u64)], name: &str) -> &'a str {
    &vars
        .iter()
        .find(|v| v.0 == name)
        .unwrap_or_else(|| panic!("no {name} in {vars:?}"))
        .1
}

#[test]
fn breakpoints_steps_variables_output_and_exit_in_che_plus_plus() {
    let d = dir("chepp");
    let path = d.join("prog.che");
    std::fs::write(&path, PROGRAM).unwrap();
    let (expected_out, expected_code) = che_run(&[path.to_str().unwrap()]);
    let mut s = Session::start(&d);
    s.launch(json!({"program": path, "fen": chess_core::STARTPOS_FEN}));
    // Line 12 is blank: the breakpoint moves to the next line with code.
    let body = s.ok(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": 9}, {"line": 12}, {"line": 400}]}),
    );
    let bps = body["breakpoints"].as_array().expect("breakpoints").clone();
    assert_eq!(bps[0]["verified"], true);
    assert_eq!(bps[0]["line"], 9);
    assert_eq!(bps[1]["verified"], true);
    let moved = bps[1]["line"].as_u64().expect("line");
    assert!((13..=17).contains(&moved), "moved to {moved}");
    assert_eq!(bps[2]["verified"], false);
    s.ok("configurationDone", json!({}));

    let threads = s.ok("threads", json!({}));
    assert_eq!(threads["threads"][0]["id"], 1);

    // First stop: main's first line with code.
    s.stopped("breakpoint");
    let frames = s.frames();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["name"], "main");
    assert_eq!(frames[0]["line"], moved);
    assert_eq!(frames[0]["source"]["path"], path.to_str().unwrap());

    // Then the breakpoint in Twice, called from line 16.
    s.ok("continue", json!({"threadId": 1}));
    s.stopped("breakpoint");
    let frames = s.frames();
    let names: Vec<&str> = frames.iter().filter_map(|f| f["name"].as_str()).collect();
    assert_eq!(names, ["Twice", "main"]);
    assert_eq!(frames[0]["line"], 9);
    assert_eq!(frames[1]["line"], 16);
    let locals = s.scope(&frames[0], "Locals");
    assert_eq!(value_of(&locals, "x"), "3");
    assert_eq!(value_of(&locals, "y"), "0");
    let globals = s.scope(&frames[0], "Globals");
    assert_eq!(value_of(&globals, "total"), "0");
    // Evaluating a name: the frame's local, a global; an unknown name is an error.
    let r = s.ok(
        "evaluate",
        json!({"expression": "x", "frameId": frames[0]["id"], "context": "hover"}),
    );
    assert_eq!(r["result"], "3");
    let r = s.ok(
        "evaluate",
        json!({"expression": "n", "frameId": frames[1]["id"]}),
    );
    assert_eq!(r["result"], "0");
    let r = s.ok(
        "evaluate",
        json!({"expression": "total", "frameId": frames[0]["id"]}),
    );
    assert_eq!(r["result"], "0");
    let r = s.request(
        "evaluate",
        json!({"expression": "nope", "frameId": frames[0]["id"]}),
    );
    assert_eq!(r["success"], false);

    s.ok("next", json!({"threadId": 1}));
    s.stopped("step");
    let frames = s.frames();
    assert_eq!(frames[0]["line"], 10);
    assert_eq!(value_of(&s.scope(&frames[0], "Locals"), "y"), "6");

    // Out of Twice: the next line of main.
    s.ok("stepOut", json!({"threadId": 1}));
    s.stopped("step");
    let frames = s.frames();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["line"], 17);
    assert_eq!(value_of(&s.scope(&frames[0], "Locals"), "n"), "6");

    s.ok("next", json!({"threadId": 1}));
    s.stopped("step");
    s.ok("stepIn", json!({"threadId": 1}));
    s.stopped("step");
    let frames = s.frames();
    assert_eq!(frames[0]["line"], 19);
    // squares[0] was set on line 17: the list and its elements.
    let globals = s.scope(&frames[0], "Globals");
    let squares = globals.iter().find(|v| v.0 == "squares").expect("the list");
    assert!(squares.2 > 0, "{squares:?}");
    let elements = s.variables(&json!(squares.2));
    assert_eq!(elements, [("[0]".to_string(), "6".to_string(), 0)]);
    assert_eq!(value_of(&globals, "total"), "7");

    // Over GoodSqrs: the advice table has the knight's squares.
    s.ok("next", json!({"threadId": 1}));
    s.stopped("step");
    let frames = s.frames();
    assert_eq!(frames[0]["line"], 20);
    let advice = s.scope(&frames[0], "Advice");
    assert!(
        advice
            .iter()
            .any(|v| v.0 == "square bonus wN d4" && v.1 != "0"),
        "{advice:?}"
    );

    s.ok("continue", json!({"threadId": 1}));
    let (out, code) = s.finish();
    assert_eq!(out, expected_out);
    assert_eq!(code, i64::from(expected_code));
    s.disconnect();
}

#[test]
fn a_runtime_error_stops_with_its_message_and_exits_2() {
    let d = dir("error");
    let path = d.join("div.che");
    std::fs::write(
        &path,
        "procedure main()\nvar n, d;\nbegin\n  n := 10;\n  write n;\n  write n / d;\nend;\n",
    )
    .unwrap();
    let (expected_out, expected_code) = che_run(&[path.to_str().unwrap()]);
    assert_eq!(expected_code, 2);
    let message = che_run_error(&[path.to_str().unwrap()]);
    let mut s = Session::start(&d);
    s.ok(
        "launch",
        json!({"program": path, "fen": chess_core::STARTPOS_FEN, "backend": "jit", "stopOnEntry": true}),
    );
    let notice = s.peer.wait_for("the backend notice", |m| {
        m["event"] == "output"
            && m["body"]["output"]
                .as_str()
                .is_some_and(|o| o.contains("interpreter"))
    });
    assert!(notice["body"]["output"].as_str().unwrap().contains("jit"));
    s.event("initialized");
    s.ok("configurationDone", json!({}));
    s.stopped("entry");
    assert_eq!(s.frames()[0]["line"], 4);
    s.ok("continue", json!({"threadId": 1}));
    let stop = s.stopped("exception");
    let text = stop["text"].as_str().expect("the message");
    assert!(text.starts_with(&message), "{text:?} against {message:?}");
    let frames = s.frames();
    assert_eq!(frames[0]["line"], 6);
    assert_eq!(value_of(&s.scope(&frames[0], "Locals"), "n"), "10");
    s.ok("continue", json!({"threadId": 1}));
    let (out, code) = s.finish();
    assert_eq!(out, expected_out);
    assert_eq!(code, 2);
    s.disconnect();
}

#[test]
fn pause_stops_a_running_loop_and_disconnect_ends_it() {
    let d = dir("pause");
    let path = d.join("loop.che");
    std::fs::write(
        &path,
        "procedure main()\nvar n;\nbegin\n  while 1 = 1 do\n    n := n + 1;\n  end;\nend;\n",
    )
    .unwrap();
    let mut s = Session::start(&d);
    s.launch(json!({"program": path}));
    s.ok("configurationDone", json!({}));
    s.ok("pause", json!({"threadId": 1}));
    s.stopped("pause");
    let frames = s.frames();
    assert_eq!(frames[0]["name"], "main");
    let line = frames[0]["line"].as_u64().expect("line");
    assert!((4..=6).contains(&line), "{line}");
    s.disconnect();
}

#[test]
fn a_che_program_runs_to_its_end_under_the_debugger() {
    let d = dir("che3");
    let path = d.join("plan.che3");
    std::fs::write(
        &path,
        "pattern start { wpwns(e2) } { };\nadvice centre goodsqrs(wN d4 e5);\nrule r { start } centre;\n",
    )
    .unwrap();
    let (expected_out, expected_code) = che_run(&[path.to_str().unwrap()]);
    let mut s = Session::start(&d);
    s.launch(json!({"program": path, "stopOnEntry": true}));
    s.ok("configurationDone", json!({}));
    s.stopped("entry");
    let frames = s.frames();
    assert!(frames[0]["source"]["path"]
        .as_str()
        .is_some_and(|p| p.ends_with("plan.che3")));
    s.ok("stepIn", json!({"threadId": 1}));
    s.stopped("step");
    s.ok("continue", json!({"threadId": 1}));
    let (out, code) = s.finish();
    assert_eq!((out, code), (expected_out, i64::from(expected_code)));
    s.disconnect();
}

#[test]
fn cheg_break_stops_continue_resumes_and_trace_shows_operands() {
    let d = dir("cheg");
    let path = d.join("brk.cheg");
    std::fs::write(
        &path,
        "ENTRY Q,K\n        SETV A,\"5\n        BREAK A\n        ADD A,A,\"1\n        BREAK A,\"7\n        DONE\n        END\n",
    )
    .unwrap();
    let fen = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1";
    let (expected_out, expected_code) = che_run(&[path.to_str().unwrap(), "--fen", fen]);
    let mut s = Session::start(&d);
    s.launch(json!({"program": path, "fen": fen, "trace": true}));
    s.ok("configurationDone", json!({}));
    let stop = s.stopped("breakpoint");
    assert_eq!(stop["text"], "break 5");
    assert_eq!(s.frames()[0]["line"], 3);
    s.ok("continue", json!({"threadId": 1}));
    let stop = s.stopped("breakpoint");
    assert_eq!(stop["text"], "break 6 7");
    let frames = s.frames();
    assert_eq!(frames[0]["line"], 5);
    assert_eq!(value_of(&s.scope(&frames[0], "Globals"), "A"), "6");
    s.ok("continue", json!({"threadId": 1}));
    let (out, code) = s.finish();
    assert_eq!((out, code), (expected_out, i64::from(expected_code)));
    let trace: Vec<String> = s
        .peer
        .backlog
        .iter()
        .filter(|m| m["event"] == "output" && m["body"]["category"] == "console")
        .filter_map(|m| m["body"]["output"].as_str().map(str::to_string))
        .collect();
    assert!(
        trace
            .iter()
            .any(|t| t == "trace 4: ADD A,A,\"1  [A=5 A=5]\n"),
        "{trace:#?}"
    );
    assert!(
        trace.iter().any(|t| t.starts_with("trace 6: DONE")),
        "{trace:#?}"
    );
    s.disconnect();
}

#[test]
fn a_program_that_does_not_compile_fails_the_launch() {
    let d = dir("broken");
    let path = d.join("broken.che");
    std::fs::write(&path, "procedure main()\nbegin\n  write nope;\nend;\n").unwrap();
    let mut s = Session::start(&d);
    let r = s.request("launch", json!({"program": path}));
    assert_eq!(r["success"], false);
    assert!(
        r["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot find `nope`")),
        "{r}"
    );
    s.disconnect();
}

#[test]
fn requests_out_of_order_and_broken_input_are_answered_without_a_crash() {
    let d = dir("order");
    let mut s = Session::start(&d);
    for (command, args) in [
        ("stackTrace", json!({"threadId": 1})),
        ("next", json!({"threadId": 1})),
        ("variables", json!({"variablesReference": 1})),
        ("launch", json!({})),
        (
            "launch",
            json!({"program": "nowhere.che", "fen": "not a position"}),
        ),
        (
            "launch",
            json!({"program": "nowhere.che", "dialect": "cobol"}),
        ),
        ("launch", json!({"program": d.join("missing.che")})),
        ("launch", json!({"program": d.join("module.cmp")})),
        ("evaluateEverything", json!({})),
    ] {
        let r = s.request(command, args);
        assert_eq!(r["success"], false, "{command}: {r}");
        assert!(r["message"].as_str().is_some_and(|m| !m.is_empty()), "{r}");
    }
    // A broken header ends the adapter with a message and status 1.
    s.peer.write_raw(b"Content-Length: lots\r\n\r\n{}");
    let status = s.peer.wait();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn stepping_into_the_standard_library_shows_its_copy() {
    let d = dir("stdlib");
    let path = d.join("prog.che");
    std::fs::write(&path, PROGRAM).unwrap();
    let mut s = Session::start(&d);
    s.launch(json!({"program": path}));
    s.ok(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": 19}]}),
    );
    s.ok("configurationDone", json!({}));
    s.stopped("breakpoint");
    s.ok("stepIn", json!({"threadId": 1}));
    s.stopped("step");
    let frames = s.frames();
    assert_eq!(frames[0]["name"], "GoodSqrs");
    assert_eq!(frames[1]["name"], "main");
    let copy = frames[0]["source"]["path"].as_str().expect("a path");
    assert!(copy.ends_with("stdlib.che"), "{copy}");
    let text = std::fs::read_to_string(copy).expect("the copy exists");
    let line = frames[0]["line"].as_u64().expect("line") as usize;
    let start = text.lines().take(line).collect::<Vec<_>>();
    assert!(
        start
            .iter()
            .rev()
            .take(6)
            .any(|l| l.contains("procedure GoodSqrs")),
        "line {line} of the copy is not in GoodSqrs"
    );
    s.ok("stepOut", json!({"threadId": 1}));
    s.stopped("step");
    assert_eq!(s.frames()[0]["line"], 20);
    s.disconnect();
}

#[test]
fn a_shipped_cheg_program_plays_the_move_che_run_plays() {
    // TRY values every legal move with the engine's search, as `che run`
    // does; a material-only lookahead picks another move here (every queen
    // move keeps the material).
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/endgames/kqk.cheg");
    let d = dir("kqk");
    for fen in [
        "8/8/8/4k3/8/8/3QK3/8 w - - 0 1",
        "7k/8/8/8/8/8/Q7/K7 w - - 0 1",
    ] {
        let (expected_out, expected_code) = che_run(&[program.to_str().unwrap(), "--fen", fen]);
        assert!(expected_out.starts_with("move "), "{expected_out}");
        let mut s = Session::start(&d);
        s.launch(json!({"program": program, "fen": fen}));
        s.ok("configurationDone", json!({}));
        let (out, code) = s.finish();
        assert_eq!(
            (out, code),
            (expected_out, i64::from(expected_code)),
            "{fen}"
        );
        s.disconnect();
    }
}

#[test]
fn cheg_trace_shows_the_values_of_predefined_operands() {
    let d = dir("cheg-pre");
    let path = d.join("pre.cheg");
    std::fs::write(
        &path,
        "ENTRY Q,K\n        SETV A,\"5\n        SET B,TWICE,A\n        SETV K,WK\n        ADD D,DEPTH,\"0\n        DONE\nTWICE:  ADD V,X,X\n        RETURN V\n        END\n",
    )
    .unwrap();
    let fen = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1";
    let mut s = Session::start(&d);
    s.launch(json!({"program": path, "fen": fen, "trace": true}));
    s.ok("configurationDone", json!({}));
    let (_, code) = s.finish();
    assert_eq!(code, 0);
    let trace: Vec<String> = s
        .peer
        .backlog
        .iter()
        .filter(|m| m["event"] == "output" && m["body"]["category"] == "console")
        .filter_map(|m| m["body"]["output"].as_str().map(str::to_string))
        .collect();
    // X is the subroutine's argument (A, 5); WK the white king on e2 (as
    // BREAK prints a piece); DEPTH 1 at the top level.
    for want in [
        "trace 7: TWICE:  ADD V,X,X  [V=U X=5 X=5]\n",
        "trace 4: SETV K,WK  [K=U WK=wK@e2]\n",
        "trace 5: ADD D,DEPTH,\"0  [D=U DEPTH=1]\n",
    ] {
        assert!(
            trace.iter().any(|t| t == want),
            "{want:?} not in {trace:#?}"
        );
    }
    s.disconnect();
}

/// A client that configures before it launches (the `initialized` event
/// comes with the answer to `initialize`): breakpoints set before the
/// launch are placed at it and reported by `breakpoint` events, and a
/// `configurationDone` before the launch starts the run once launched.
#[test]
fn a_client_may_configure_before_it_launches() {
    let d = dir("early");
    let path = d.join("prog.che");
    std::fs::write(&path, PROGRAM).unwrap();
    let (expected_out, expected_code) = che_run(&[path.to_str().unwrap()]);
    let mut s = Session::start(&d);
    s.event("initialized");
    let body = s.ok(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": 9}, {"line": 400}]}),
    );
    let early = body["breakpoints"].as_array().expect("breakpoints").clone();
    assert_eq!(early.len(), 2);
    assert!(early.iter().all(|b| b["verified"] == false), "{body}");
    s.ok("configurationDone", json!({}));
    s.ok(
        "launch",
        json!({"program": path, "fen": chess_core::STARTPOS_FEN}),
    );
    // Each early breakpoint is placed, or not, and said so.
    let mut placed = Vec::new();
    for _ in 0..2 {
        let b = s.event("breakpoint");
        assert_eq!(b["reason"], "changed");
        placed.push(b["breakpoint"].clone());
    }
    placed.sort_by_key(|b| b["id"].as_u64());
    assert_eq!(placed[0]["id"], early[0]["id"]);
    assert_eq!(placed[0]["verified"], true);
    assert_eq!(placed[0]["line"], 9);
    assert_eq!(placed[1]["verified"], false);
    // The run started at the launch and stops at the breakpoint in Twice.
    s.stopped("breakpoint");
    assert_eq!(s.frames()[0]["line"], 9);
    s.ok("continue", json!({"threadId": 1}));
    let (out, code) = s.finish();
    assert_eq!((out, code), (expected_out, i64::from(expected_code)));
    s.disconnect();
}
