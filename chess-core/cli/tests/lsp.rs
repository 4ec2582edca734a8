//! `che lsp` driven over standard input and output as an editor drives it:
//! `Content-Length` framing (a message split across writes, two in one
//! write), initialize, didOpen, publishDiagnostics (the command line's
//! message at its line and column, cleared once fixed), hover,
//! definition, completion, documentSymbol, shutdown and exit, for Che++,
//! Che and CHEG documents.

#[path = "common/rpc.rs"]
mod rpc;

use rpc::{frame, Peer};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("che-lsp-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.canonicalize().expect("exists").display())
}

const HELPER: &str = "# Twice doubles its argument.
function Twice(x)
begin
  return x * 2;
end;
";

const MAIN: &str = "include stdlib.che
include helper.che

var total;

procedure main()
var sq, n;
begin
  n := Twice(3);
  total := n + CHE_MVBONUS;
  if PcOnSqrs(wP, e2 e4) then write 1; end;
  SetMvs(w, 10, e2e.);
  write total;
end;
";

/// A started server, initialized.
fn start(dir: &Path) -> Peer {
    let mut peer = Peer::spawn("lsp", dir);
    let id = peer.id();
    peer.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "processId": null, "rootUri": null, "capabilities": {}}}),
    );
    let init = peer.wait_for("initialize", |m| m["id"] == id);
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["textDocumentSync"], 1, "full synchronisation: {init}");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert_eq!(caps["documentSymbolProvider"], true);
    assert!(caps["completionProvider"].is_object());
    peer.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    peer
}

fn open(peer: &mut Peer, path: &Path, language: &str, text: &str) {
    peer.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri(path), "languageId": language, "version": 1, "text": text}}}),
    );
}

fn change(peer: &mut Peer, path: &Path, version: i32, text: &str) {
    peer.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri(path), "version": version},
        "contentChanges": [{"text": text}]}}),
    );
}

fn diagnostics_for(peer: &mut Peer, path: &Path) -> Vec<Value> {
    let u = uri(path);
    let m = peer.wait_for("publishDiagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u.as_str()
    });
    m["params"]["diagnostics"]
        .as_array()
        .expect("a list")
        .clone()
}

fn request(peer: &mut Peer, method: &str, params: Value) -> Value {
    let id = peer.id();
    peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    let m = peer.wait_for(method, |m| m["id"] == id);
    assert!(m.get("error").is_none(), "{method}: {m}");
    m["result"].clone()
}

fn at(path: &Path, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}})
}

/// The line and character of the first occurrence of `needle` in `text`
/// (0-based), plus `skip` characters.
fn find(text: &str, needle: &str, skip: u32) -> (u32, u32) {
    let at = text.find(needle).expect("needle in text");
    let line = text[..at].matches('\n').count() as u32;
    let col = (at - text[..at].rfind('\n').map_or(0, |i| i + 1)) as u32;
    (line, col + skip)
}

fn hover_text(peer: &mut Peer, path: &Path, text: &str, needle: &str) -> String {
    let (l, c) = find(text, needle, 1);
    let h = request(peer, "textDocument/hover", at(path, l, c));
    h["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("a hover for {needle}: {h}"))
        .to_string()
}

fn shutdown(mut peer: Peer) {
    let result = request(&mut peer, "shutdown", Value::Null);
    assert_eq!(result, Value::Null);
    peer.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    let status = peer.wait();
    assert!(status.success(), "exit status {status:?}");
}

/// The command line's first diagnostic: (line, column, message).
fn cli_diagnostic(path: &Path) -> (u32, u32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_che"))
        .args(["compile", path.to_str().expect("utf-8")])
        .arg("-o")
        .arg(path.with_extension("cmp"))
        .output()
        .expect("runs che");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let first = err.lines().next().expect("a diagnostic").to_string();
    let (place, message) = first
        .split_once(": error: ")
        .expect("file:line:col: error:");
    let mut parts = place.rsplitn(3, ':');
    let col: u32 = parts.next().and_then(|c| c.parse().ok()).expect("column");
    let line: u32 = parts.next().and_then(|l| l.parse().ok()).expect("line");
    (line, col, message.to_string())
}

#[test]
fn diagnostics_appear_as_the_command_line_gives_them_and_clear_when_fixed() {
    let d = dir("diag");
    let helper = d.join("helper.che");
    std::fs::write(&helper, HELPER).unwrap();
    let main = d.join("main.che");
    let broken = MAIN.replace("Twice(3)", "Twice(nothing)");
    std::fs::write(&main, &broken).unwrap();
    let (line, col, message) = cli_diagnostic(&main);

    let mut peer = start(&d);
    open(&mut peer, &main, "che", &broken);
    let diags = diagnostics_for(&mut peer, &main);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d0 = &diags[0];
    assert_eq!(d0["severity"], 1);
    assert_eq!(d0["range"]["start"]["line"], line - 1);
    assert_eq!(d0["range"]["start"]["character"], col - 1);
    assert_eq!(
        d0["range"]["end"]["character"],
        col - 1 + "nothing".len() as u32
    );
    let shown = d0["message"].as_str().expect("message");
    assert!(shown.starts_with(&message), "{shown:?} against {message:?}");

    change(&mut peer, &main, 2, MAIN);
    assert_eq!(diagnostics_for(&mut peer, &main), Vec::<Value>::new());

    // An error in an included file that is open is published for that file.
    open(&mut peer, &helper, "che", HELPER);
    let _ = diagnostics_for(&mut peer, &helper);
    change(&mut peer, &helper, 2, &HELPER.replace("x * 2", "x * y"));
    let diags = diagnostics_for(&mut peer, &helper);
    assert!(
        diags
            .iter()
            .any(|d| d["message"].as_str().is_some_and(|m| m.contains("`y`"))),
        "{diags:#?}"
    );
    shutdown(peer);
}

#[test]
fn framing_survives_split_and_joined_messages() {
    let d = dir("framing");
    let main = d.join("split.che");
    let text = "procedure main()\nbegin\n  write nope;\nend;\n";
    std::fs::write(&main, text).unwrap();
    let mut peer = Peer::spawn("lsp", &d);
    let init = frame(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    let (a, b) = init.split_at(10);
    peer.write_raw(a);
    std::thread::sleep(std::time::Duration::from_millis(50));
    peer.write_raw(b);
    assert_eq!(peer.wait_for("initialize", |m| m["id"] == 1)["id"], 1);
    let mut both = frame(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    both.extend(frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri(&main), "languageId": "che", "version": 1, "text": text}}}),
    ));
    peer.write_raw(&both);
    let diags = diagnostics_for(&mut peer, &main);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0]["range"]["start"]["line"], 2);
    // An unknown request is answered with an error, and the server goes on.
    peer.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "che/nothing", "params": {}}));
    let answer = peer.wait_for("the error", |m| m["id"] == 7);
    assert_eq!(answer["error"]["code"], -32601);
    shutdown(peer);
}

#[test]
fn hover_definition_completion_and_symbols_in_che_plus_plus() {
    let d = dir("features");
    let helper = d.join("helper.che");
    std::fs::write(&helper, HELPER).unwrap();
    let main = d.join("main.che");
    std::fs::write(&main, MAIN).unwrap();
    let mut peer = start(&d);
    open(&mut peer, &main, "che", MAIN);
    assert_eq!(diagnostics_for(&mut peer, &main), Vec::<Value>::new());

    // Hover: an intrinsic with its signature and its line from the table.
    let (_, pc) = cvm::intrinsics::by_name("PcOnSqrs").expect("intrinsic");
    let h = hover_text(&mut peer, &main, MAIN, "PcOnSqrs");
    assert!(h.contains("PcOnSqrs(") && h.contains(pc.doc), "{h}");
    // A routine of the standard library and a constant, with their comment.
    let h = hover_text(&mut peer, &main, MAIN, "CHE_MVBONUS");
    assert!(
        h.contains("const CHE_MVBONUS := 20") && h.contains("a good move"),
        "{h}"
    );
    // A routine of an included file, with its comment.
    let h = hover_text(&mut peer, &main, MAIN, "Twice");
    assert!(
        h.contains("function Twice(x)") && h.contains("doubles"),
        "{h}"
    );
    // Names with their kind.
    let h = hover_text(&mut peer, &main, MAIN, "total :=");
    assert!(h.contains("global variable"), "{h}");
    let h = hover_text(&mut peer, &main, MAIN, "n := Twice");
    assert!(h.contains("local variable"), "{h}");
    // Chess literals in words.
    let h = hover_text(&mut peer, &main, MAIN, "e2e.");
    assert!(
        h.contains("move") && h.contains("e2") && h.contains("e-file"),
        "{h}"
    );
    let h = hover_text(&mut peer, &main, MAIN, "wP,");
    assert!(h.contains("white pawn"), "{h}");

    // Definition across an include ...
    let (l, c) = find(MAIN, "Twice", 2);
    let loc = request(&mut peer, "textDocument/definition", at(&main, l, c));
    assert_eq!(loc["uri"], uri(&helper));
    assert_eq!(loc["range"]["start"]["line"], 1);
    assert_eq!(loc["range"]["start"]["character"], 9);
    // ... and into the standard library, whose copy holds the name there.
    let (l, c) = find(MAIN, "CHE_MVBONUS", 2);
    let loc = request(&mut peer, "textDocument/definition", at(&main, l, c));
    let target = loc["uri"].as_str().expect("uri");
    assert!(target.ends_with("/stdlib.che"), "{target}");
    let std_text = std::fs::read_to_string(target.trim_start_matches("file://")).expect("the copy");
    let line = loc["range"]["start"]["line"].as_u64().expect("line") as usize;
    assert!(std_text
        .lines()
        .nth(line)
        .expect("line")
        .contains("const CHE_MVBONUS"));
    // A local resolves to its declaration in the routine.
    let (l, c) = find(MAIN, "n := Twice", 0);
    let loc = request(&mut peer, "textDocument/definition", at(&main, l, c));
    assert_eq!(loc["range"]["start"]["line"], 6);

    // Completion: intrinsics, standard routines, style constants, names in scope.
    let (l, c) = find(MAIN, "write total", 0);
    let items = request(&mut peer, "textDocument/completion", at(&main, l, c));
    let labels: Vec<&str> = items
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for want in [
        "PcOnSqrs",
        "KingPos",
        "GoodSqrs",
        "ST_KINGSAFTY",
        "Twice",
        "total",
        "sq",
        "n",
    ] {
        assert!(labels.contains(&want), "{want} missing from completion");
    }
    // Outside main, main's locals are not in scope.
    let items = request(&mut peer, "textDocument/completion", at(&main, 3, 0));
    assert!(!items
        .as_array()
        .expect("items")
        .iter()
        .any(|i| i["label"] == "sq"));

    // Document symbols: the document's own declarations, main with its locals.
    let symbols = request(
        &mut peer,
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&main)}}),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["total", "main"]);
    let children: Vec<&str> = symbols[1]["children"]
        .as_array()
        .expect("main's locals")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(children, ["sq", "n"]);
    shutdown(peer);
}

#[test]
fn che_and_cheg_documents() {
    let d = dir("dialects");
    let che3_text = "# Whether White castled short.\npattern castled { piecesqrs(wK g1 h1) } { };\nadvice centre goodsqrs(wN d4 e5);\nrule r { castled } centre;\n";
    let che3_path = d.join("plan.che3");
    std::fs::write(&che3_path, che3_text).unwrap();
    let cheg_text = "ENTRY Q,K\n        JUMP> DEPTH,\"1,LATER\n        TRY LM,,\n        DONE\nLATER:  SETV A,WK\n        VALRET A,\"0,\"500\n        END\n";
    let cheg_path = d.join("kqk.cheg");
    std::fs::write(&cheg_path, cheg_text).unwrap();

    let mut peer = start(&d);
    open(&mut peer, &che3_path, "che3", che3_text);
    assert_eq!(diagnostics_for(&mut peer, &che3_path), Vec::<Value>::new());
    let h = hover_text(&mut peer, &che3_path, che3_text, "goodsqrs");
    let doc = che3::functions::by_name("goodsqrs")
        .expect("a Che function")
        .doc;
    assert!(h.contains(doc), "{h}");
    let h = hover_text(&mut peer, &che3_path, che3_text, "castled }");
    assert!(h.contains("pattern") && h.contains("castled short"), "{h}");
    let (l, c) = find(che3_text, "castled }", 1);
    let loc = request(&mut peer, "textDocument/definition", at(&che3_path, l, c));
    assert_eq!(loc["range"]["start"]["line"], 1);
    change(
        &mut peer,
        &che3_path,
        2,
        &che3_text.replace("goodsqrs", "goodsquares"),
    );
    let diags = diagnostics_for(&mut peer, &che3_path);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["range"]["start"]["line"], 2);

    open(&mut peer, &cheg_path, "cheg", cheg_text);
    assert_eq!(diagnostics_for(&mut peer, &cheg_path), Vec::<Value>::new());
    let (l, c) = find(cheg_text, "TRY", 0);
    let items = request(&mut peer, "textDocument/completion", at(&cheg_path, l, c));
    let labels: Vec<&str> = items
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for want in [
        "JUMP<", "SELECT", "BREAK", "DEFD", "=0", "LATER", "DEPTH", "A",
    ] {
        assert!(labels.contains(&want), "{want} missing from {labels:?}");
    }
    let h = hover_text(&mut peer, &cheg_path, cheg_text, "JUMP>");
    assert!(h.contains(cheg::table::Instr::JumpGt.doc()), "{h}");
    let (l, c) = find(cheg_text, "LATER\n", 1);
    let loc = request(&mut peer, "textDocument/definition", at(&cheg_path, l, c));
    assert_eq!(loc["range"]["start"]["line"], 4);
    let symbols = request(
        &mut peer,
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&cheg_path)}}),
    );
    assert!(symbols
        .as_array()
        .expect("symbols")
        .iter()
        .any(|s| s["name"] == "LATER"));
    change(
        &mut peer,
        &cheg_path,
        2,
        &cheg_text.replace("TRY LM,,", "TRYX LM,,"),
    );
    let diags = diagnostics_for(&mut peer, &cheg_path);
    assert!(!diags.is_empty());
    assert_eq!(diags[0]["range"]["start"]["line"], 2, "{diags:#?}");
    change(&mut peer, &cheg_path, 3, cheg_text);
    assert_eq!(diagnostics_for(&mut peer, &cheg_path), Vec::<Value>::new());
    shutdown(peer);
}

#[test]
fn broken_input_ends_the_server_without_a_hang() {
    let d = dir("broken");
    let mut peer = start(&d);
    // A request for a document that is not open has no answer to give.
    let r = request(
        &mut peer,
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nowhere/none.che"}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(r, Value::Null);
    peer.write_raw(b"Content-Length: lots\r\n\r\n{}");
    let status = peer.wait();
    assert!(!status.success(), "{status:?}");
}

#[test]
fn a_document_over_the_program_limit_is_not_compiled() {
    let d = dir("large");
    let path = d.join("large.che");
    std::fs::write(&path, "").unwrap();
    let mut peer = start(&d);
    let text = "# filler\n".repeat(500_000);
    open(&mut peer, &path, "che", &text);
    let diags = diagnostics_for(&mut peer, &path);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let message = diags[0]["message"].as_str().expect("message");
    assert!(message.contains("4500000 bytes"), "{message}");
    shutdown(peer);
}

#[test]
fn every_standard_library_routine_hovers_with_its_signature_and_a_line_of_reference() {
    let d = dir("stdlib-hover");
    let path = d.join("calls.che");
    let routines: Vec<(&str, &str)> = chepp::STDLIB_SOURCE
        .lines()
        .filter(|l| l.starts_with("procedure ") || l.starts_with("function "))
        .filter_map(|l| {
            let head = l.split('#').next()?.trim();
            let name = head.split_whitespace().nth(1)?.split('(').next()?;
            Some((name, head))
        })
        .collect();
    assert!(routines.len() > 15, "{routines:?}");
    let mut text = String::from("include stdlib.che\nprocedure main()\nbegin\n");
    for (name, _) in &routines {
        text.push_str(&format!("  {name};\n"));
    }
    text.push_str("end;\n");
    std::fs::write(&path, &text).unwrap();
    let mut peer = start(&d);
    open(&mut peer, &path, "che", &text);
    let _ = diagnostics_for(&mut peer, &path);
    for (name, head) in routines {
        let h = hover_text(&mut peer, &path, &text, &format!(" {name};"));
        assert!(h.contains(head), "{name}: {h}");
        let reference = h
            .split_once("(standard library): ")
            .map_or("", |(_, line)| line.trim());
        assert!(
            !reference.is_empty(),
            "{name} has no line of reference: {h}"
        );
    }
    shutdown(peer);
}
