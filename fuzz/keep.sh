#!/usr/bin/env bash
# Writes the kept corpus of each named target: the inputs of its working
# corpus (fuzz/corpus/<target>) and of its kept corpus so far
# (fuzz/kept/<target>), minimized by libFuzzer's merge to a set with the
# same coverage, into fuzz/kept/<target>, which is committed. run-all.sh
# reads the kept corpus beside the working one, so that a campaign on a
# fresh checkout goes on from where the last kept one ended.
#
#   fuzz/keep.sh TARGET...
#
# Builds the targets as run-all.sh does (the same options, FUZZ_* settings
# included) and runs each once over its inputs; no fuzzing.
set -euo pipefail

cd "$(dirname "$0")"
if [ $# -eq 0 ]; then
    echo "usage: fuzz/keep.sh TARGET..." >&2
    exit 2
fi

# shellcheck source=options.sh
source ./options.sh

for t in "$@"; do
    if [ ! -d "corpus/$t" ] && [ ! -d "kept/$t" ]; then
        echo "keep.sh: no corpus for $t (run fuzz/run-all.sh first)" >&2
        exit 1
    fi
    read -r -a options <<<"$(build_options "$t")"
    merged=$(mktemp -d)
    mkdir -p "$merged/in"
    for d in "corpus/$t" "kept/$t"; do
        if [ -d "$d" ]; then
            # libFuzzer names an input by its contents' hash, so the same
            # input in both folders is one file here.
            find "$d" -maxdepth 1 -type f -exec cp -t "$merged/in" {} +
        fi
    done
    before=$(find "$merged/in" -type f | wc -l)
    # cmin merges the folder into a minimal set with the same coverage,
    # in place.
    cargo +nightly fuzz cmin "${options[@]}" "$t" "$merged/in" >"$merged/log" 2>&1 || {
        tail -20 "$merged/log" >&2
        rm -rf "$merged"
        exit 1
    }
    rm -rf "kept/$t"
    mkdir -p "kept/$t"
    find "$merged/in" -maxdepth 1 -type f -exec cp -t "kept/$t" {} +
    after=$(find "kept/$t" -type f | wc -l)
    bytes=$(du -sb "kept/$t" | cut -f1)
    printf '%-18s %6s inputs -> kept %6s (%s bytes)\n' "$t" "$before" "$after" "$bytes"
    rm -rf "$merged"
done
