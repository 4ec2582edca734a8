// The Che++ playground's page script: plain JavaScript, no library.
"use strict";
const $ = (id) => document.getElementById(id);
const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
let board = []; // 64 entries, index = rank * 8 + file (a1 = 0); FEN letters or "".

function parsePlacement(fen) {
  const rows = fen.trim().split(/\s+/)[0].split("/");
  const b = new Array(64).fill("");
  if (rows.length !== 8) return null;
  for (let r = 0; r < 8; r++) {
    let f = 0;
    for (const c of rows[r]) {
      if (/[1-8]/.test(c)) f += Number(c);
      else if (/[prnbqkPRNBQK]/.test(c) && f < 8) { b[(7 - r) * 8 + f] = c; f++; }
      else return null;
    }
    if (f !== 8) return null;
  }
  return b;
}

function placement() {
  const rows = [];
  for (let r = 7; r >= 0; r--) {
    let row = "", empty = 0;
    for (let f = 0; f < 8; f++) {
      const p = board[r * 8 + f];
      if (p) { if (empty) row += empty; empty = 0; row += p; } else empty++;
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return rows.join("/");
}

function updateFenFromBoard() {
  const rest = $("fen").value.trim().split(/\s+/).slice(1);
  const fields = rest.length === 5 ? rest : ["w", "-", "-", "0", "1"];
  $("fen").value = [placement(), ...fields].join(" ");
}

function pieceElement(p, from) {
  const el = document.createElement("span");
  el.className = "pc " + (p === p.toUpperCase() ? "w" : "b");
  el.textContent = GLYPH[p.toLowerCase()];
  el.draggable = true;
  el.dataset.piece = p;
  el.addEventListener("dragstart", (e) => {
    e.dataTransfer.setData("text/plain", JSON.stringify({ p, from }));
  });
  return el;
}

function drawBoard() {
  const el = $("board");
  el.innerHTML = "";
  for (let r = 7; r >= 0; r--) {
    for (let f = 0; f < 8; f++) {
      const i = r * 8 + f;
      const sq = document.createElement("div");
      sq.className = "sq " + ((r + f) % 2 ? "light" : "dark");
      sq.dataset.square = "abcdefgh"[f] + (r + 1);
      if (board[i]) sq.appendChild(pieceElement(board[i], i));
      sq.addEventListener("dragover", (e) => { e.preventDefault(); sq.classList.add("over"); });
      sq.addEventListener("dragleave", () => sq.classList.remove("over"));
      sq.addEventListener("drop", (e) => {
        e.preventDefault();
        sq.classList.remove("over");
        const d = JSON.parse(e.dataTransfer.getData("text/plain"));
        if (d.from >= 0) board[d.from] = "";
        board[i] = d.p;
        updateFenFromBoard();
        drawBoard();
      });
      el.appendChild(sq);
    }
  }
}

function drawSpare() {
  const el = $("spare");
  el.innerHTML = "";
  for (const p of "KQRBNPkqrbnp") el.appendChild(pieceElement(p, -1));
  el.addEventListener("dragover", (e) => e.preventDefault());
  el.addEventListener("drop", (e) => {
    e.preventDefault();
    const d = JSON.parse(e.dataTransfer.getData("text/plain"));
    if (d.from >= 0) { board[d.from] = ""; updateFenFromBoard(); drawBoard(); }
  });
}

function setFen(fen) {
  const b = parsePlacement(fen);
  if (!b) { status("That FEN's piece placement is not readable; the server will say why."); return; }
  board = b;
  drawBoard();
}

function status(text) { $("status").textContent = text; }

// The debugger's state: breakpoint lines, the resumptions asked for since Debug (null when
// not debugging; the server replays them from the start), the line stopped at.
let breakpoints = new Set();
let debugActions = null;
let debugLine = 0;

function drawGutter(bad) {
  const n = $("source").value.split("\n").length;
  const g = $("gutter");
  g.innerHTML = "";
  for (let i = 1; i <= n; i++) {
    const span = document.createElement("span");
    span.textContent = i + "\n";
    span.dataset.line = i;
    const classes = [];
    if (bad && bad.has(i)) classes.push("bad");
    if (breakpoints.has(i)) classes.push("bp");
    if (i === debugLine) classes.push("here");
    span.className = classes.join(" ");
    span.title = "click to set or clear a breakpoint";
    span.addEventListener("click", () => {
      if (breakpoints.has(i)) breakpoints.delete(i); else breakpoints.add(i);
      drawGutter(bad);
    });
    g.appendChild(span);
  }
  g.scrollTop = $("source").scrollTop;
}

function setDebugButtons(on) {
  for (const id of ["dbg-continue", "dbg-next", "dbg-in", "dbg-out", "dbg-stop"]) $(id).disabled = !on;
}

function endDebug() {
  debugActions = null;
  debugLine = 0;
  setDebugButtons(false);
  drawGutter(null);
}

function showVars(lines, title, vars) {
  lines.push(title);
  if (!vars.length) lines.push("  (none)");
  for (const v of vars) {
    let text = "  " + v.name + " = " + v.value;
    if (v.elements && v.elements.length) text += "  [" + v.elements.join(", ") + "]";
    lines.push(text);
  }
}

// Debug (action null) or resume with action: the server runs the program from its start through
// every resumption so far and answers the stop they lead to.
async function debugStep(action) {
  if (action === null) debugActions = [];
  else if (debugActions === null) return;
  else debugActions.push(action);
  status("Debugging...");
  const dialect = $("dialect").value;
  const data = await post("/api/debug", {
    source: $("source").value, dialect, fen: $("fen").value,
    breakpoints: [...breakpoints], actions: debugActions, stop_on_entry: $("dbg-entry").checked,
  });
  if (data.compiled === undefined) { status("Error: " + (data.error || "no answer")); endDebug(); return; }
  showDiagnostics(data.diagnostics);
  if (!data.compiled) { status("The program does not compile."); $("debugger").textContent = ""; endDebug(); return; }
  breakpoints = new Set(data.breakpoints);
  $("output").textContent = data.output.join("\n");
  const lines = [];
  const main = "playground." + (dialect === "che3" || dialect === "cheg" ? dialect : "che");
  if (data.stopped) {
    const s = data.stopped;
    const top = s.frames[0];
    debugLine = top && top.file === main ? top.line : 0;
    lines.push("stopped (" + s.reason + ")" + (top ? " in " + top.name + " at " + top.file + ":" + top.line : ""));
    if (s.text) lines.push(s.text);
    lines.push("stack:");
    for (const f of s.frames) lines.push("  " + f.name + " (" + f.file + ":" + f.line + ")");
    if (top) showVars(lines, "locals:", top.locals);
    showVars(lines, "globals:", s.globals);
    showVars(lines, "advice:", s.advice);
    setDebugButtons(true);
    status("Stopped at line " + (top ? top.line : "?") + ".");
    $("debugger").textContent = lines.join("\n");
    drawGutter(null);
    if (debugLine) selectLine(debugLine);
  } else {
    lines.push("the program ended with exit status " + data.exit_code);
    if (data.error) lines.push(data.error);
    $("debugger").textContent = lines.join("\n");
    status("Debugging done.");
    endDebug();
  }
}

function selectLine(line) {
  const ta = $("source");
  const lines = ta.value.split("\n");
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
  ta.focus();
  ta.setSelectionRange(start, start + (lines[line - 1] || "").length);
}

async function post(url, body) {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  let data;
  try { data = await res.json(); } catch (e) { data = { error: "HTTP " + res.status }; }
  if (!res.ok && !data.error) data.error = "HTTP " + res.status;
  return data;
}

function showDiagnostics(list) {
  const ul = $("diagnostics");
  ul.innerHTML = "";
  const bad = new Set();
  for (const d of list) {
    const li = document.createElement("li");
    li.className = "diagnostic " + d.severity;
    li.dataset.line = d.line;
    li.textContent = d.rendered || d.message;
    if (d.line > 0) { if (d.severity === "error") bad.add(d.line); li.addEventListener("click", () => selectLine(d.line)); }
    ul.appendChild(li);
  }
  drawGutter(bad);
}

async function run(backend) {
  status("Running...");
  const t0 = performance.now();
  const data = await post("/api/run", { source: $("source").value, dialect: $("dialect").value, fen: $("fen").value, backend });
  if (data.error) { status("Error: " + data.error); showDiagnostics([]); return; }
  showDiagnostics(data.diagnostics);
  $("listing").textContent = data.listing;
  const tbody = $("timings").querySelector("tbody");
  tbody.innerHTML = "";
  if (!data.compiled) {
    status("The program does not compile (" + data.diagnostics.filter((d) => d.severity === "error").length + " error(s)).");
    $("output").textContent = "";
    $("advice").innerHTML = "";
    return;
  }
  const out = [];
  let svg = null;
  const bad = new Set();
  for (const r of data.runs) {
    const tr = document.createElement("tr");
    for (const v of [r.backend, data.compile_ms, r.prepare_ms, r.run_ms]) {
      const td = document.createElement("td");
      td.textContent = typeof v === "number" ? v.toFixed(3) : v;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
    out.push("[" + r.backend + "]");
    out.push(...r.output);
    if (r.error) { out.push(r.error); if (r.error_line) bad.add(r.error_line); }
    if (r.svg && !svg) svg = r.svg;
  }
  if (bad.size) drawGutter(bad);
  $("output").textContent = out.join("\n");
  $("advice").innerHTML = svg || "<p class=\"hint\">No advice: the run failed.</p>";
  status("Done in " + (performance.now() - t0).toFixed(0) + " ms.");
}

async function engineMove() {
  status("The engine is thinking...");
  const data = await post("/api/move", { source: $("source").value, dialect: $("dialect").value, fen: $("fen").value, depth: Number($("depth").value) || 6 });
  if (data.error) { status("Error: " + data.error); return; }
  const lines = [];
  lines.push(data.bestmove ? "best move " + data.san + " (" + data.bestmove + ")" : "no legal move");
  lines.push("score " + data.score + " cp, depth " + data.depth + ", " + data.nodes + " nodes");
  if (data.pv.length) lines.push("pv " + data.pv.join(" "));
  lines.push(...data.notes);
  $("engine").textContent = lines.join("\n");
  status("Engine done.");
}

async function init() {
  const res = await fetch("/example.che");
  $("source").value = await res.text();
  $("source").addEventListener("input", () => drawGutter(null));
  $("source").addEventListener("scroll", () => { $("gutter").scrollTop = $("source").scrollTop; });
  $("compile").addEventListener("click", () => run("both"));
  $("run-interp").addEventListener("click", () => run("interp"));
  $("run-jit").addEventListener("click", () => run("jit"));
  $("run-auto").addEventListener("click", () => run("auto"));
  $("engine-move").addEventListener("click", engineMove);
  $("debug").addEventListener("click", () => debugStep(null));
  $("dbg-continue").addEventListener("click", () => debugStep("continue"));
  $("dbg-next").addEventListener("click", () => debugStep("next"));
  $("dbg-in").addEventListener("click", () => debugStep("stepIn"));
  $("dbg-out").addEventListener("click", () => debugStep("stepOut"));
  $("dbg-stop").addEventListener("click", () => { $("debugger").textContent = ""; status("Debugging stopped."); endDebug(); });
  $("set-fen").addEventListener("click", () => setFen($("fen").value));
  $("fen").addEventListener("change", () => setFen($("fen").value));
  $("start-pos").addEventListener("click", () => {
    $("fen").value = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    setFen($("fen").value);
  });
  setFen($("fen").value);
  drawSpare();
  drawGutter(null);
}
init();
