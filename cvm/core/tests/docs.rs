//! The opcode reference in `docs/cvm.md` is generated from the instruction
//! table; this test fails when the two differ. Regenerate with
//! `UPDATE_DOCS=1 cargo test -p cvm --test docs`.

#[test]
fn opcode_reference_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cvm.md");
    let doc = std::fs::read_to_string(&path).expect("docs/cvm.md exists");
    let (begin, end) = ("<!-- opcodes:begin -->\n", "<!-- opcodes:end -->");
    let start = doc.find(begin).expect("begin marker") + begin.len();
    let stop = doc.find(end).expect("end marker");
    let generated = cvm::isa::reference_markdown();
    if doc[start..stop] != generated {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            let updated = format!("{}{}{}", &doc[..start], generated, &doc[stop..]);
            std::fs::write(&path, updated).expect("writable");
        } else {
            panic!("docs/cvm.md's opcode table is stale: run UPDATE_DOCS=1 cargo test -p cvm --test docs");
        }
    }
}
