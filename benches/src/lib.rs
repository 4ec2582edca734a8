//! Shared pieces of the benchmarks: the CVM benchmark programs, their native
//! Rust equivalents (the floor), and a runner for the same workloads in Lua
//! 5.4 and LuaJIT.
//!
//! Every workload exists four times, written to compute the same thing with
//! the same algorithm: CVM assembly in `programs/`, Lua in `lua/`, and Rust
//! in [`native`]. [`WORKLOADS`] lists them with the expected result, which
//! the benchmarks check before timing anything.

pub mod clock;

use cvm::Program;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A benchmark workload: its name (the file stem in `programs/` and `lua/`),
/// the result `main()` returns, and the native implementation.
pub struct Workload {
    /// File stem.
    pub name: &'static str,
    /// The value every implementation must return.
    pub expected: i32,
    /// The native Rust implementation.
    pub native: fn() -> i32,
}

/// The CVM core benchmark set.
pub const WORKLOADS: &[Workload] = &[
    Workload {
        name: "fib",
        expected: 832_040,
        native: native::fib_main,
    },
    Workload {
        name: "loop",
        expected: 9018,
        native: native::nested_loop,
    },
    Workload {
        name: "sieve",
        expected: 1028,
        native: native::sieve_main,
    },
    Workload {
        name: "listcopy",
        expected: 8191,
        native: native::list_copy,
    },
    Workload {
        name: "calls",
        expected: 925_184,
        native: native::calls,
    },
];

/// The directory of this crate.
pub fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Assembles and verifies `programs/NAME.asm`.
pub fn load_program(name: &str) -> Program {
    let path = crate_dir().join("programs").join(format!("{name}.asm"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let module = cvm::asm::assemble(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Program::new(module).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Compiles Che++ `path` (read through `loader`) through the one front-end
/// interface; panics with the compiler's diagnostics when it does not
/// compile.
fn compile_che(loader: &dyn che_pipeline::Loader, path: &Path, optimize: bool) -> Program {
    let options = che_pipeline::Options {
        optimize,
        ..che_pipeline::Options::default()
    };
    let input = che_pipeline::Input::File(path);
    che_pipeline::compile(&chepp::CHEPP, input, loader, &options)
        .into_result()
        .unwrap_or_else(|e| panic!("{}", e.rendered))
}

/// Compiles and verifies a Che++ file (unoptimized); panics with the
/// compiler's diagnostics when it does not compile.
pub fn compile_che_file(path: &Path) -> Program {
    compile_che(&che_pipeline::FsLoader, path, false)
}

/// Compiles and verifies the bundled example advice program
/// (`chepp::examples`), unoptimized.
pub fn example_program() -> Program {
    use chepp::examples;
    compile_che(&examples::loader(), Path::new(examples::MAIN), false)
}

/// Compiles the Che++ twin `che/NAME.che` of a workload, through the
/// loophole optimizer when `optimize` (as `che run` does by default).
/// `None` when the file is missing.
pub fn compile_che_workload(name: &str, optimize: bool) -> Option<Program> {
    let path = crate_dir().join("che").join(format!("{name}.che"));
    if !path.exists() {
        return None;
    }
    Some(compile_che(&che_pipeline::FsLoader, &path, optimize))
}

/// chess-core's oracle file: one JSON line per position.
const ORACLE: &str = include_str!("../../chess-core/engine/tests/data/oracle/oracle.jsonl");

/// The positions of chess-core's oracle file (240 from games and test
/// suites), in file order: the `"fen"` field of each line.
pub fn oracle_positions() -> Vec<chess_core::Position> {
    ORACLE
        .lines()
        .filter_map(|line| {
            let rest = line.split("\"fen\":\"").nth(1)?;
            let fen = rest.split('"').next()?;
            chess_core::Position::from_fen(fen).ok()
        })
        .collect()
}

/// The native Rust versions of the workloads.
pub mod native {
    use std::hint::black_box;

    /// Recursive Fibonacci.
    pub fn fib(n: i32) -> i32 {
        if n < 2 {
            n
        } else {
            fib(n - 1).wrapping_add(fib(n - 2))
        }
    }

    /// `fib(30)`.
    pub fn fib_main() -> i32 {
        fib(black_box(30))
    }

    /// The nested `*`/`%` loop.
    pub fn nested_loop() -> i32 {
        let (n, m) = black_box((3000, 1000));
        let mut acc: i32 = 0;
        for i in 0..n {
            for j in 0..m {
                acc = (acc.wrapping_add(i * j)) % black_box(1_000_003);
            }
        }
        acc
    }

    /// One sieve pass over 8192 flags; returns the prime count.
    pub fn sieve(flags: &mut [i32; 8192]) -> i32 {
        flags.fill(1);
        let mut i = 2;
        while i * i < 8192 {
            if flags[i] != 0 {
                let mut j = i * i;
                while j < 8192 {
                    flags[j] = 0;
                    j += i;
                }
            }
            i += 1;
        }
        flags[2..].iter().filter(|&&f| f != 0).count() as i32
    }

    /// 50 sieve passes.
    pub fn sieve_main() -> i32 {
        let mut flags = [0i32; 8192];
        let mut r = 0;
        for _ in 0..50 {
            r = sieve(black_box(&mut flags));
        }
        r
    }

    /// Copies `from` into `to` up to the first -1 (the for-in idiom).
    pub fn copy(to: &mut [i32], from: &[i32]) {
        let mut j = 0;
        for &v in from.iter().take_while(|&&v| v != -1) {
            to[j] = v;
            j += 1;
        }
        to[j] = -1;
    }

    /// 200 copies of an 8192-entry list.
    pub fn list_copy() -> i32 {
        let mut src = vec![-1i32; 8193];
        let mut dst = vec![-1i32; 8193];
        for (i, s) in src.iter_mut().take(8192).enumerate() {
            *s = i as i32;
        }
        for _ in 0..200 {
            copy(black_box(&mut dst), black_box(&src));
        }
        dst[0] + dst[8191]
    }

    #[inline(never)]
    fn mix(a: i32, b: i32) -> i32 {
        (a ^ b).wrapping_add(1)
    }

    #[inline(never)]
    fn step(acc: i32, i: i32) -> i32 {
        mix(acc, i) & 0xFFFFF
    }

    /// Two small calls per iteration, a million iterations (calls kept out
    /// of line so that the floor still pays for calls).
    pub fn calls() -> i32 {
        let mut acc = 0;
        for i in 0..black_box(1_000_000) {
            acc = step(acc, i);
        }
        acc
    }
}

/// Running the Lua versions through the `lua5.4` and `luajit` binaries.
pub mod lua {
    use super::*;

    /// A Lua implementation to compare with.
    #[derive(Copy, Clone, Debug)]
    pub struct Lua {
        /// Label in reports.
        pub label: &'static str,
        /// The binary.
        pub binary: &'static str,
        /// Extra arguments (e.g. `-joff`).
        pub args: &'static [&'static str],
    }

    /// The Lua implementations the benchmarks compare with.
    pub const LUAS: &[Lua] = &[
        Lua {
            label: "lua5.4",
            binary: "lua5.4",
            args: &[],
        },
        Lua {
            label: "luajit-joff",
            binary: "luajit",
            args: &["-joff"],
        },
        Lua {
            label: "luajit",
            binary: "luajit",
            args: &[],
        },
    ];

    impl Lua {
        /// Runs workload `name` `iters` times in one process; returns the
        /// CPU time the loop took (measured inside Lua, so start-up is
        /// excluded) and the printed result, or `None` when the binary is
        /// missing or fails.
        pub fn run(&self, name: &str, iters: u64) -> Option<(Duration, String)> {
            let dir = crate_dir().join("lua");
            let out = Command::new(self.binary)
                .args(self.args)
                .arg(dir.join("run.lua"))
                .arg(dir.join(format!("{name}.lua")))
                .arg(iters.to_string())
                .output()
                .ok()?;
            if !out.status.success() {
                return None;
            }
            let text = String::from_utf8(out.stdout).ok()?;
            let mut parts = text.split_whitespace();
            let secs: f64 = parts.next()?.parse().ok()?;
            let result = parts.next()?.to_string();
            Some((Duration::from_secs_f64(secs), result))
        }
    }
}

pub mod lab;
