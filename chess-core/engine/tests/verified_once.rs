//! The engine takes the programs the front-end interface gives it as they
//! are: loading an advice or endgame program from source verifies it once
//! when the compiler builds it and once when the optimizer rewrites it,
//! and nothing verifies it again.

use che_engine::advisor::{Advisor, ProgramSource};
use che_engine::endgame::{EndgameProgram, EndgameSource};
use cvm::verify::verifications;

#[test]
fn an_advice_program_is_verified_by_the_builder_and_the_optimizer_only() {
    for source in [
        ProgramSource::Shanny,
        ProgramSource::ShannyEval,
        ProgramSource::Text {
            dialect: "che++",
            text: "procedure main()\nbegin\n  write 1;\nend;\n".into(),
        },
        ProgramSource::Text {
            dialect: "che3",
            text: "pattern always { } { };\nadvice a goodsqrs(wN d5);\nrule r { always } a;\n"
                .into(),
        },
    ] {
        let before = verifications();
        let advisor = Advisor::load(&source).expect("loads");
        assert_eq!(verifications() - before, 2, "{source:?}");
        assert!(advisor.program().module().entry.is_some());
    }
}

#[test]
fn an_endgame_program_is_verified_by_the_builder_and_the_optimizer_only() {
    for (name, _) in che_engine::endgame::BUILTIN {
        let before = verifications();
        let program = EndgameProgram::load(&EndgameSource::Builtin(name))
            .expect("loads")
            .expect("a program");
        assert_eq!(verifications() - before, 2, "<{name}>");
        assert!(!program.program().entries.is_empty());
    }
}
