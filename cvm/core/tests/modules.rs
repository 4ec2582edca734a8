//! Module-level tests: the assembler round trip, the `.cmp` round trip, and
//! a table of malformed modules and programs that the loader or the
//! verifier must reject, one per rule, each asserting the error kind.

use cvm::asm::{assemble, disassemble};
use cvm::binary::{self, FormatError, FORMAT_VERSION, MAGIC};
use cvm::isa::{Instr, Opcode, Ty};
use cvm::module::{Function, LineEntry, Module, TableError};
use cvm::verify::{CodeError, VerifyError};
use cvm::Vm;
use cvm::{load, LoadError, Program};
use std::path::{Path, PathBuf};

fn asm_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("tests/conformance"),
        root.join("../../benches/programs"),
    ] {
        for e in std::fs::read_dir(&dir).expect("directory").flatten() {
            if e.path().extension().is_some_and(|x| x == "asm") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

#[test]
fn assemble_disassemble_round_trip() {
    let files = asm_files();
    assert!(files.len() >= 35);
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let module = assemble(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let program =
            Program::new(module.clone()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let listing = disassemble(program.module());
        let again = assemble(&listing)
            .unwrap_or_else(|e| panic!("{}: relisting: {e}\n{listing}", path.display()));
        assert_eq!(again, module, "{}", path.display());
        // The .cmp form round-trips too, and loads.
        let bytes = binary::write(&module);
        assert_eq!(binary::read(&bytes).as_ref(), Ok(&module));
        assert!(load(&bytes).is_ok());
    }
}

#[test]
fn round_trip_keeps_lines_names_and_texts() {
    let src = r#"
.file "a b.che"
.file "lib/x.che"
.global counter -5
.list pwns 4 = 1 -2 3
.list empty 0
.text t "quote \" backslash \\ tab \t nl \n bell \u{7}"
.entry main
.func main params 0 lists 0 locals 1 stack 2 proc
.slots tmp
    .loc 1 7 3
    push 1
    stl tmp
L_x:
    .loc 0 9 11
    textout t
    ldl tmp
    jz L_x
    ret
.end
"#;
    let m = assemble(src).expect("assembles");
    assert_eq!(
        m.lines.files,
        vec!["a b.che".to_string(), "lib/x.che".to_string()]
    );
    assert_eq!(
        m.texts[0].text,
        "quote \" backslash \\ tab \t nl \n bell \u{7}"
    );
    let p = Program::new(m.clone()).expect("verifies");
    assert_eq!(assemble(&disassemble(p.module())), Ok(m.clone()));
    let pos = m.source_pos(4).expect("covered");
    assert_eq!(pos.to_string(), "a b.che:9:11");
}

/// A small valid module to break in various ways.
fn base() -> Module {
    assemble(
        r#"
.global g 0
.list l 2
.text t "hi"
.func main params 0 lists 0 locals 1 stack 2 value
    push 1
    stl 0
    ldl 0
    retv
.end
"#,
    )
    .expect("valid")
}

fn table_err(m: Module) -> TableError {
    match Program::new(m) {
        Err(VerifyError::Table(e)) => e,
        other => panic!("expected a table error, got {other:?}"),
    }
}

fn code_err(src: &str) -> CodeError {
    let m = assemble(src).unwrap_or_else(|e| panic!("{e}"));
    match Program::new(m) {
        Err(VerifyError::Code { kind, .. }) => kind,
        other => panic!("expected a code error, got {other:?}"),
    }
}

fn func(body: &str, header: &str) -> String {
    format!(
        ".global g 0\n.list l 2\n.text t \"hi\"\n.func f params 1 lists 1 locals 1 stack 2 value\n    push 0\n    retv\n.end\n.func main {header}\n{body}\n.end\n"
    )
}

#[test]
fn table_rules() {
    let mut m = base();
    m.globals[0].name = "9bad".into();
    assert!(matches!(
        table_err(m),
        TableError::BadName { what: "global", .. }
    ));

    let mut m = base();
    m.lists.push(m.lists[0].clone());
    assert!(matches!(
        table_err(m),
        TableError::DuplicateName { what: "list", .. }
    ));

    let mut m = base();
    m.functions[0].locals = 100_000;
    assert!(matches!(
        table_err(m),
        TableError::Limit {
            what: "frame slots",
            ..
        }
    ));

    let mut m = base();
    m.functions[0].max_stack = 1_000_000;
    assert!(matches!(
        table_err(m),
        TableError::Limit {
            what: "operand stack",
            ..
        }
    ));

    let mut m = base();
    m.lists[0].capacity = u32::MAX;
    assert!(matches!(
        table_err(m),
        TableError::Limit {
            what: "list slots",
            ..
        }
    ));

    let mut m = base();
    m.functions[0].start = 1;
    assert!(matches!(table_err(m), TableError::CodeRange { .. }));

    let mut m = base();
    m.code.push(Opcode::Nop as u32);
    assert!(matches!(table_err(m), TableError::UncoveredCode { .. }));

    let mut m = base();
    m.functions.push(Function {
        name: "empty".into(),
        start: m.code.len() as u32,
        ..Function::default()
    });
    assert!(matches!(table_err(m), TableError::EmptyFunction(_)));

    let mut m = base();
    m.lists[0].init = vec![1, 2, 3];
    assert!(matches!(
        table_err(m),
        TableError::ListInit {
            given: 3,
            capacity: 2,
            ..
        }
    ));

    let mut m = base();
    m.functions[0].slot_names = vec!["a".into(), "b".into()];
    assert!(matches!(table_err(m), TableError::SlotNames { .. }));

    let mut m = base();
    m.entry = Some(7);
    assert!(matches!(table_err(m), TableError::BadEntry(7)));

    let mut m = assemble(&func(
        "    push 0\n    retv",
        "params 0 lists 0 locals 0 stack 1 value",
    ))
    .expect("ok");
    m.entry = m.function_index("f");
    assert!(
        matches!(table_err(m), TableError::BadEntry(_)),
        "entry with parameters"
    );

    let mut m = base();
    m.lines.files.push("x.che".into());
    m.lines.entries = vec![
        LineEntry {
            offset: 2,
            file: 0,
            line: 1,
            col: 1,
        },
        LineEntry {
            offset: 2,
            file: 0,
            line: 2,
            col: 1,
        },
    ];
    assert!(matches!(table_err(m), TableError::BadLineEntry(1)));

    let mut m = base();
    m.lines.entries = vec![LineEntry {
        offset: 0,
        file: 3,
        line: 1,
        col: 1,
    }];
    assert!(matches!(table_err(m), TableError::BadLineEntry(0)));

    let mut m = base();
    m.lines.files.push("x.che".into());
    m.lines.entries = vec![LineEntry {
        offset: 1,
        file: 0,
        line: 1,
        col: 1,
    }];
    assert!(matches!(
        Program::new(m),
        Err(VerifyError::LineEntry { offset: 1, .. })
    ));
}

#[test]
fn code_rules() {
    let h = "params 0 lists 0 locals 1 stack 2 value";
    // Decoding.
    let mut m = base();
    m.code[0] = 0xDEAD;
    match Program::new(m) {
        Err(VerifyError::Code {
            kind: CodeError::Decode(_),
            offset: 0,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    let mut m = base();
    let n = m.code.len();
    m.code.truncate(n - 1);
    m.code.push(Opcode::Push as u32);
    m.functions[0].len = (m.code.len() - m.functions[0].start as usize) as u32;
    assert!(matches!(
        Program::new(m),
        Err(VerifyError::Code {
            kind: CodeError::Decode(_),
            ..
        })
    ));

    // Operand ranges, one per kind.
    let range = |body: &str, kind: &str| match code_err(&func(body, h)) {
        CodeError::OperandRange { kind: k, .. } => assert_eq!(k, kind, "{body}"),
        other => panic!("{body}: {other:?}"),
    };
    range("    ldl 5\n    retv", "local");
    range("    ldg 1\n    retv", "global");
    range("    push 0\n    lde 1\n    retv", "list");
    range("    textout 1\n    push 0\n    retv", "text");
    range("    intr 999\n    retv", "intrinsic");
    let mut m = base();
    m.code[0] = Opcode::Call as u32;
    m.code[1] = 9;
    assert!(matches!(
        Program::new(m),
        Err(VerifyError::Code {
            kind: CodeError::OperandRange { kind: "func", .. },
            ..
        })
    ));

    // Jump targets: into an operand word, outside the function, another function.
    let mut m = assemble(&func("    push 0\nL:\n    jz L\n    push 1\n    retv", h)).expect("ok");
    let main = m.function_index("main").expect("main") as usize;
    let jz_at = m.functions[main].start as usize + 2;
    assert_eq!(m.code[jz_at], Opcode::Jz as u32);
    m.code[jz_at + 1] = m.functions[main].start + 1; // the push's operand word
    assert!(matches!(
        Program::new(m.clone()),
        Err(VerifyError::Code {
            kind: CodeError::BadTarget(_),
            ..
        })
    ));
    m.code[jz_at + 1] = 0; // start of f
    assert!(matches!(
        Program::new(m.clone()),
        Err(VerifyError::Code {
            kind: CodeError::BadTarget(0),
            ..
        })
    ));
    m.code[jz_at + 1] = 1_000_000;
    assert!(matches!(
        Program::new(m),
        Err(VerifyError::Code {
            kind: CodeError::BadTarget(_),
            ..
        })
    ));

    // Stack discipline.
    assert!(matches!(
        code_err(&func("    add\n    retv", h)),
        CodeError::Underflow { .. }
    ));
    assert!(matches!(
        code_err(&func("    push 1\n    push 2\n    push 3\n    retv", h)),
        CodeError::Overflow { depth: 3, max: 2 }
    ));
    assert!(matches!(
        code_err(&func(
            "    push 1\n    jz L\n    push 5\nL:\n    push 0\n    retv",
            h
        )),
        CodeError::JoinMismatch { .. }
    ));
    assert!(matches!(
        code_err(&func(
            "    push 1\n    jz L_a\n    lref l\n    jmp L\nL_a:\n    push 0\nL:\n    pop\n    push 0\n    retv",
            h
        )),
        CodeError::JoinMismatch { .. }
    ));
    // Types: a list reference is not an int, an int is not a list reference.
    assert!(matches!(
        code_err(&func("    lref l\n    push 1\n    add\n    retv", h)),
        CodeError::Type {
            expected: Ty::Int,
            found: Ty::List
        }
    ));
    assert!(matches!(
        code_err(&func("    push 1\n    push 0\n    ldx\n    retv", h)),
        CodeError::Type {
            expected: Ty::List,
            found: Ty::Int
        }
    ));
    assert!(matches!(
        code_err(&func("    push 1\n    push 2\n    call f\n    retv", h)),
        CodeError::Type {
            expected: Ty::List,
            found: Ty::Int
        }
    ));
    assert!(matches!(
        code_err(&func("    lref l\n    call f\n    retv", h)),
        CodeError::Underflow { needed: 2, .. }
    ));
    assert!(matches!(
        code_err(&func("    lref l\n    retv", h)),
        CodeError::Type {
            expected: Ty::Int,
            found: Ty::List
        }
    ));
    // Frame-slot types.
    let hl = "params 1 lists 1 locals 1 stack 2 value";
    assert!(matches!(
        code_err(&func("    push 1\n    stl 1\n    push 0\n    retv", hl)),
        CodeError::SlotType { slot: 1, .. }
    ));
    assert!(matches!(
        code_err(&func("    incl 1\n    push 0\n    retv", hl)),
        CodeError::SlotType { slot: 1, .. }
    ));
    assert!(matches!(
        code_err(&func(
            "L:\n    forx 0 2 E\n    pop\n    jmp L\nE:\n    push 0\n    retv",
            hl
        )),
        CodeError::SlotType {
            slot: 0,
            expected: Ty::List,
            ..
        }
    ));
    assert!(matches!(
        code_err(&func(
            "L:\n    forl l 1 E\n    pop\n    jmp L\nE:\n    push 0\n    retv",
            hl
        )),
        CodeError::SlotType {
            slot: 1,
            expected: Ty::Int,
            ..
        }
    ));
    // Returns.
    assert!(matches!(
        code_err(&func("    push 1\n    pop", h)),
        CodeError::FallsOffEnd
    ));
    assert!(matches!(
        code_err(&func(
            "    push 1\n    jz L\n    push 2\n    retv\nL:\n    nop",
            h
        )),
        CodeError::FallsOffEnd
    ));
    assert!(matches!(
        code_err(&func("    ret", h)),
        CodeError::NoValueFromFunction
    ));
    assert!(matches!(
        code_err(&func(
            "    push 1\n    retv",
            "params 0 lists 0 locals 0 stack 1 proc"
        )),
        CodeError::ValueFromProcedure
    ));
}

#[test]
fn unreachable_code_is_checked_but_not_run() {
    // Dead code after a return is fine if it decodes and its operands are in range.
    let ok = func(
        "    push 1\n    retv\n    add\n    add",
        "params 0 lists 0 locals 0 stack 1 value",
    );
    assert!(Program::new(assemble(&ok).expect("ok")).is_ok());
    let bad = func(
        "    push 1\n    retv\n    ldg 99",
        "params 0 lists 0 locals 0 stack 1 value",
    );
    assert!(matches!(code_err(&bad), CodeError::OperandRange { .. }));
}

fn header(version: u32, flags: u32) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(&flags.to_le_bytes());
    b
}

fn format_err(bytes: &[u8]) -> FormatError {
    match load(bytes) {
        Err(LoadError::Format(e)) => e,
        other => panic!("expected a format error, got {other:?}"),
    }
}

#[test]
fn malformed_cmp_files() {
    let good = binary::write(&base());
    assert!(load(&good).is_ok());

    assert_eq!(format_err(b""), FormatError::BadMagic);
    assert_eq!(format_err(b"MZ\x90\x00rest"), FormatError::BadMagic);
    assert_eq!(
        format_err(&header(FORMAT_VERSION + 1, 0)),
        FormatError::UnsupportedVersion(FORMAT_VERSION + 1)
    );
    assert_eq!(
        format_err(&header(FORMAT_VERSION, 4)),
        FormatError::UnknownFlags(4)
    );
    assert!(matches!(
        format_err(&header(FORMAT_VERSION, 0)),
        FormatError::UnexpectedEof { .. }
    ));
    for cut in [13, 20, good.len() / 2, good.len() - 1] {
        assert!(
            matches!(
                format_err(&good[..cut]),
                FormatError::UnexpectedEof { .. } | FormatError::CountTooLarge { .. }
            ),
            "cut at {cut}"
        );
    }
    let mut wrong_tag = good.clone();
    wrong_tag[12..16].copy_from_slice(b"GLOB");
    assert!(matches!(
        format_err(&wrong_tag),
        FormatError::BadSection { at: 12, .. }
    ));

    let mut trailing = good.clone();
    trailing.push(0);
    assert_eq!(format_err(&trailing), FormatError::TrailingBytes(1));

    // A function count far larger than the file.
    let mut huge = header(FORMAT_VERSION, 0);
    huge.extend_from_slice(b"FUNC");
    huge.extend_from_slice(&8u32.to_le_bytes());
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    huge.extend_from_slice(&[0; 4]);
    assert!(matches!(
        format_err(&huge),
        FormatError::CountTooLarge {
            what: "function",
            ..
        }
    ));

    // A section whose declared length is longer than its contents.
    let mut long = header(FORMAT_VERSION, 0);
    long.extend_from_slice(b"FUNC");
    long.extend_from_slice(&8u32.to_le_bytes());
    long.extend_from_slice(&0u32.to_le_bytes());
    long.extend_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        format_err(&long),
        FormatError::SectionLength {
            declared: 8,
            used: 4,
            ..
        }
    ));

    // Invalid UTF-8 in a name.
    let mut m = base();
    m.globals[0].name = "gg".into();
    let mut bytes = binary::write(&m);
    let at = bytes
        .windows(2)
        .position(|w| w == b"gg")
        .expect("name bytes");
    bytes[at] = 0xFF;
    assert!(matches!(
        format_err(&bytes),
        FormatError::BadUtf8 {
            what: "global name",
            ..
        }
    ));

    // Unknown function flag bits.
    let m = base();
    let bytes = binary::write(&m);
    // FUNC payload: count, name len, "main", then 7 words: flags is the 7th.
    let flags_at = 12 + 8 + 4 + 4 + 4 + 6 * 4;
    assert_eq!(bytes[flags_at..flags_at + 4], 1u32.to_le_bytes());
    let mut bad = bytes.clone();
    bad[flags_at] = 2;
    assert!(matches!(format_err(&bad), FormatError::BadFunctionFlags(0)));

    // Well-formed bytes carrying unverifiable code are rejected by the verifier.
    let mut m = base();
    m.code[0] = Opcode::Add as u32;
    m.code[1] = Opcode::Add as u32;
    assert!(matches!(
        load(&binary::write(&m)),
        Err(LoadError::Verify(_))
    ));
}

#[test]
fn builder_relocates_targets_and_computes_stack() {
    use cvm::builder::ModuleBuilder;
    let mut b = ModuleBuilder::new();
    let helper = b.declare_function("helper", 0, 0, true).expect("new");
    let main = b.declare_function("main", 0, 0, true).expect("new");
    let mut f = b.body(helper);
    f.emit(Opcode::Push, &[1]);
    f.emit(Opcode::RetV, &[]);
    f.finish().expect("labels");
    let mut f = b.body(main);
    let top = f.new_label();
    let out = f.new_label();
    let i = f.local();
    f.bind(top);
    f.emit(Opcode::Ldl, &[i]);
    f.emit_jump(Opcode::JGeI, &[3], out);
    f.emit(Opcode::Incl, &[i]);
    f.emit_jump(Opcode::Jmp, &[], top);
    f.bind(out);
    f.emit(Opcode::Call, &[helper]);
    f.emit(Opcode::Ldl, &[i]);
    f.emit(Opcode::Add, &[]);
    f.emit(Opcode::RetV, &[]);
    f.finish().expect("labels");
    b.set_entry(main);
    let p = b.finish().expect("builds");
    let m = p.module();
    assert_eq!(m.functions[1].max_stack, 2);
    assert_eq!(m.functions[1].start, 3);
    // The jmp's target is relocated to the absolute start of main.
    let jmp = Instr::decode(&m.code, 3 + 2 + 3 + 2).expect("decodes");
    assert_eq!(jmp.opcode, Opcode::Jmp);
    assert_eq!(jmp.operands[0], 3);
    let mut vm = cvm::Interpreter::new(&p);
    let r = vm
        .run_entry(&mut cvm::NoHost, &mut cvm::NullOutput)
        .expect("runs");
    assert_eq!(r.value(), Some(4));
}

#[test]
fn inlined_frames_must_balance() {
    let h = "params 0 lists 0 locals 1 stack 2 value";
    // Balanced on every path: verifies.
    let ok = func(
        "    enter.f\n    ldl 0\n    jz L\n    enter 2\n    push 1\n    stl 0\nL:\n    leave\n    push 0\n    retv",
        h,
    );
    assert!(Program::new(assemble(&ok).expect("assembles")).is_ok());
    assert!(matches!(
        code_err(&func("    leave\n    push 0\n    retv", h)),
        CodeError::LeaveWithoutEnter
    ));
    assert!(matches!(
        code_err(&func("    enter.f\n    push 0\n    retv", h)),
        CodeError::ReturnInFrame(1)
    ));
    // One path closes the frame, the other does not.
    assert!(matches!(
        code_err(&func(
            "    enter.f\n    ldl 0\n    jz L\n    leave\nL:\n    halt",
            h
        )),
        CodeError::FrameMismatch { .. }
    ));
    // A loop that opens a frame per iteration without closing it.
    assert!(matches!(
        code_err(&func("L:\n    enter.f\n    ldl 0\n    jz L\n    halt", h)),
        CodeError::FrameMismatch { .. }
    ));
    // halt may leave frames open: nothing runs after it.
    let halt = func("    enter.f\n    halt", h);
    assert!(Program::new(assemble(&halt).expect("assembles")).is_ok());
}
