//! The opcode reference and the intrinsics' fuel table in `docs/cvm.md` are
//! generated from the instruction table and the intrinsic table; this test
//! fails when they differ. Regenerate with
//! `UPDATE_DOCS=1 cargo test -p che-cvm --test docs`.

fn check_section(name: &str, generated: String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cvm.md");
    let doc = std::fs::read_to_string(&path).expect("docs/cvm.md exists");
    let begin = format!("<!-- {name}:begin -->\n");
    let end = format!("<!-- {name}:end -->");
    let start = doc.find(&begin).expect("begin marker") + begin.len();
    let stop = doc.find(&end).expect("end marker");
    if doc[start..stop] != generated {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            let updated = format!("{}{}{}", &doc[..start], generated, &doc[stop..]);
            std::fs::write(&path, updated).expect("writable");
        } else {
            panic!("docs/cvm.md's {name} table is stale: run UPDATE_DOCS=1 cargo test -p che-cvm --test docs");
        }
    }
}

#[test]
fn opcode_reference_is_current() {
    check_section("opcodes", cvm::isa::reference_markdown());
}

#[test]
fn fuel_table_is_current() {
    check_section("fuel", cvm::intrinsics::cost_markdown());
}
