#!/bin/sh
# One fuzz target's smoke run, for `make test-fuzz`, which runs as many of
# them at once as there are jobs (each target is one process on one core;
# run one after another, eighteen targets of 15 s left the second core idle
# for four and a half minutes of every CI run).
#
#     tests/fuzz_one.sh SECONDS TARGET
#
# Starts from the target's corpus (fuzz/corpus/<name without fuzz_>) in a
# scratch directory, runs for SECONDS, and prints the target's name, its
# executed units and any error in one write, so that the lines of two
# targets running at once do not interleave. Exits non-zero when the target
# found a crash, a leak or a timeout, after printing the end of its log.
set -u
seconds=$1
target=$2
name=$(basename "$target")
corpus=fuzz/corpus/${name#fuzz_}
work=$(mktemp -d)
[ -d "$corpus" ] && cp -r "$corpus/." "$work/"
status=0
"$target" -max_total_time="$seconds" -print_final_stats=1 "$work" >"$work.log" 2>&1 || status=$?
{
    echo "fuzz: $name for $seconds s"
    grep -E "stat::number_of_executed_units|ERROR|SUMMARY" "$work.log" || true
    if [ "$status" != 0 ]; then
        tail -40 "$work.log"
        echo "fuzz: $name failed"
    fi
} >"$work.out"
cat "$work.out"
rm -rf "$work" "$work.log" "$work.out"
exit "$status"
