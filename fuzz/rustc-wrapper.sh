#!/usr/bin/env bash
# RUSTC_WRAPPER for the fuzz build (fuzz/run-all.sh sets it): crates from
# the registry (Cranelift, regalloc2, libfuzzer-sys's Rust side, ...) are
# compiled without libFuzzer's coverage instrumentation (nor the source
# coverage of `cargo fuzz coverage`) and without debug assertions; the
# project's own crates keep them.
#
# Why: libFuzzer walks the coverage counters of every executed edge after
# each execution, and Cranelift executes tens of thousands of them per
# compilation; with Cranelift instrumented, `differential` spent a third of
# its time in that walk and another third in comparison tracing
# (docs/fuzzing.md, "Throughput"). Coverage of the JIT's own
# lowering (the `jit` crate) still guides the fuzzer. (Cranelift's IR
# verifier is off in the fuzz build: the `fuzz` crate turns on the `jit`
# feature `fuzz-no-ir-verifier`.)
#
# Set FUZZ_INSTRUMENT_ALL=1 to instrument everything (the cargo-fuzz
# default).
rustc="$1"
shift
if [ "${FUZZ_INSTRUMENT_ALL:-0}" != 1 ]; then
    registry=0
    for a in "$@"; do
        case "$a" in
        */.cargo/registry/* | */.cargo/git/*) registry=1 ;;
        esac
    done
    if [ "$registry" = 1 ]; then
        args=()
        for a in "$@"; do
            case "$a" in
            -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage* | \
                -Cllvm-args=-simplifycfg-branch-fold-threshold=0 | -Cdebug-assertions | \
                -Cinstrument-coverage) ;;
            *) args+=("$a") ;;
            esac
        done
        exec "$rustc" "${args[@]}"
    fi
fi
exec "$rustc" "$@"
