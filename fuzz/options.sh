# The build options of the fuzz targets, shared by run-all.sh and keep.sh
# (sourced from fuzz/): the rustc wrapper, the target folder and
# build_options TARGET. See run-all.sh for the settings it reads.

# Targets whose input drives a program generator.
GENERATOR_TARGETS=" interp differential optimizer che_programs cheg_differential "

export RUSTC_WRAPPER="$PWD/rustc-wrapper.sh"
if [ "${FUZZ_INSTRUMENT_ALL:-0}" = 1 ]; then
    target_dir=target/all
else
    target_dir=target/split
fi

# The build options of target $1: sanitizer, target folder, comparison
# tracing.
build_options() {
    local options=(-s "${FUZZ_SANITIZER:-none}")
    if [ "${FUZZ_TRACE_COMPARES:-}" != all ] && [[ "$GENERATOR_TARGETS" == *" $1 "* ]]; then
        options+=(--no-trace-compares --target-dir "$target_dir-notc")
    else
        options+=(--target-dir "$target_dir")
    fi
    echo "${options[@]}"
}

