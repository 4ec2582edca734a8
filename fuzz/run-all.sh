#!/usr/bin/env bash
# Builds the fuzz targets, writes the seed corpora and runs every target
# for a bounded time, one after another (one fuzzer process at a time),
# then prints one summary line per target.
#
#   fuzz/run-all.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 60. Needs nightly Rust and cargo-fuzz
# (`cargo install cargo-fuzz`). Corpora grow in fuzz/corpus/<target>
# (starting from the seeds and, where there is one, from the kept corpus
# fuzz/kept/<target>, which keep.sh writes), crashes land in
# fuzz/artifacts/<target>, logs in fuzz/logs/<target>.log.
# Extra libFuzzer flags can be passed in FUZZ_FLAGS, e.g.
# FUZZ_FLAGS="-rss_limit_mb=4096". The sanitizer is FUZZ_SANITIZER,
# `none` unless set: the code under test is safe Rust plus JIT-compiled
# code that AddressSanitizer does not instrument, and without it the
# generator-driven targets run about twice as fast (`address` for the
# cargo-fuzz default). Debug assertions and overflow checks stay on in the
# project's crates. Crates from the registry (Cranelift above all) are
# built without coverage instrumentation and debug assertions
# (rustc-wrapper.sh; FUZZ_INSTRUMENT_ALL=1 instruments everything), into
# their own target folder, target/split (target/all with
# FUZZ_INSTRUMENT_ALL=1), so that switching never reuses the other build.
# The generator-driven targets (GENERATOR_TARGETS below) are built without
# comparison tracing (`--no-trace-compares`), into target/split-notc
# (target/all-notc): their input is the generators' choice bytes, which
# comparisons in the code under test do not contain, and the tracing was a
# third of `interp`'s time (docs/fuzzing.md, "Throughput"). The front-end
# and loader targets keep it (it finds keywords and magic numbers).
# FUZZ_TRACE_COMPARES=all builds every target with comparison tracing.
set -euo pipefail

cd "$(dirname "$0")"
secs="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(che_frontend che3_frontend cmp_loader interp differential optimizer che_programs cheg_frontend cheg_differential)
fi

# libFuzzer flags per target, before FUZZ_FLAGS (a flag given again there
# wins). `differential` keeps its inputs to 256 bytes: a grown corpus of
# longer inputs made programs large enough that Cranelift's compilation
# cut the rate threefold for 0.5 % more edges (docs/fuzzing.md, "The rate
# on the grown corpus").
target_flags() {
    case "$1" in
    differential) echo "-max_len=256" ;;
    *) echo "" ;;
    esac
}

# The build options per target (sanitizer, target folder, tracing).
# shellcheck source=options.sh
source ./options.sh

# Build each folder the chosen targets need, once (every target of the
# folder: cargo-fuzz builds them together).
built=" "
for t in "${targets[@]}"; do
    read -r -a options <<<"$(build_options "$t")"
    if [[ "$built" != *" ${options[*]} "* ]]; then
        cargo +nightly fuzz build "${options[@]}"
        built+="${options[*]} "
    fi
done
cargo run --quiet --release -p che-fuzz-seeds

mkdir -p logs
summary=()
failed=0
for t in "${targets[@]}"; do
    echo "=== $t: ${secs}s"
    log="logs/$t.log"
    mkdir -p "artifacts/$t"
    before=$(find "artifacts/$t" -type f | wc -l)
    status=0
    read -r -a options <<<"$(build_options "$t")"
    # New inputs go into corpus/$t (made here for a target without seeds:
    # libFuzzer refuses a corpus folder that does not exist); the kept
    # corpus (kept/$t, committed, written by keep.sh) is read as well when
    # there is one.
    mkdir -p "corpus/$t"
    dirs=("corpus/$t")
    if [ -d "kept/$t" ]; then
        dirs+=("kept/$t")
    fi
    # -timeout: a single input running longer than 10 s counts as a hang.
    # shellcheck disable=SC2086,SC2046
    cargo +nightly fuzz run "${options[@]}" "$t" "${dirs[@]}" -- \
        -max_total_time="$secs" -timeout=10 -print_final_stats=1 $(target_flags "$t") ${FUZZ_FLAGS:-} \
        >"$log" 2>&1 || status=$?
    after=$(find "artifacts/$t" -type f | wc -l)
    # A run that ended before printing its statistics leaves them empty
    # (`?` below), which must not end the script (pipefail).
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    corpus=$(find "corpus/$t" -type f | wc -l)
    line=$(printf '%-13s %4ss  execs %10s  execs/s %6s  corpus %6s  new artifacts %s  exit %s' \
        "$t" "$secs" "${execs:-?}" "${rate:-?}" "$corpus" "$((after - before))" "$status")
    echo "$line"
    summary+=("$line")
    if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
        failed=1
        grep -m1 -A3 'ERROR: libFuzzer\|panicked at' "$log" || true
    fi
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
