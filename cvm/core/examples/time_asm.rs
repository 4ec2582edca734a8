//! Times `main()` of an `.asm` file on the interpreter (a quick manual check;
//! the real measurements are the criterion benchmarks in `benches/`).
use cvm::Vm;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: time_asm FILE.asm");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let module = cvm::asm::assemble(&text).expect("valid assembly");
    let program = cvm::Program::new(module).expect("verified");
    let mut vm = cvm::Interpreter::new(&program);
    let reps: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    for _ in 0..reps {
        let t = Instant::now();
        let r = vm
            .call_by_name("main", &[], &mut cvm::NoHost, &mut cvm::NullOutput)
            .expect("runs");
        println!("{:?} in {:?}", r.value(), t.elapsed());
        vm.reset();
    }
}
