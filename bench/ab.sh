#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/B: one benchmark program built from two versions of proxima, run in turns.
#
#     bench/ab.sh [--rounds N] [--warmup N] [--dir DIR] [--grep REGEX] A B -- PROGRAM [ARGS...]
#
# A and B are git revisions (a commit, a tag, HEAD~2), or `.` for the working
# tree as it is, uncommitted changes included. Each revision is checked out
# into DIR/src-<commit> (a detached git worktree; `.` builds the tree in
# place) and built in DIR/build-<commit> (Release, -march=native, the peers
# when installed); then PROGRAM runs from each build N times (default 3),
# alternating A B, B A, A B, ... so that a machine slowing down over the run
# weighs on both alike, after --warmup runs of each whose output is dropped
# (default 1: the first run after a build was up to 1.4x slower than the
# next ones on the Zen 5 VM). Each run's output is kept in
# DIR/out/<PROGRAM>-<A or B>-<round>.txt; with --grep, the lines of every run
# that match REGEX are printed, run after run, round by round. To clean up,
# delete DIR and run `git worktree prune`.
#
# Why: a virtual machine's speed drifts by 10-30% over minutes (BENCHMARKS.md),
# more than the effect of most changes. Two builds timed one after the other
# show the drift; several alternations show which differences outlast it.
# (Most of the programs interleave their own variants for the same reason.)
#
# Example: what a change did to the convex queries' proxima rows:
#     bench/ab.sh --rounds 3 --grep '\| proxima \|' 3cbd78b eb65a77 -- convex
set -euo pipefail

rounds=3
warmup=1
dir=build/ab
pattern=
while [[ $# -gt 0 ]]; do
    case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --grep) pattern=$2; shift 2 ;;
    -h | --help) sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
    esac
done
if [[ $# -lt 4 || $3 != -- ]]; then
    echo "usage: bench/ab.sh [--rounds N] [--warmup N] [--dir DIR] [--grep REGEX] A B -- PROGRAM [ARGS...]" >&2
    exit 2
fi
if ! [[ $rounds =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]]; then
    echo "ab.sh: --rounds takes a positive whole number and --warmup a whole number" >&2
    exit 2
fi
revisions=("$1" "$2")
program=$4
shift 4
if ! [[ $program =~ ^[A-Za-z0-9_]+$ ]]; then
    echo "ab.sh: '$program' is not a benchmark program's name (one of bench/*.c with a main)" >&2
    exit 2
fi

root=$(git rev-parse --show-toplevel)
mkdir -p "$dir/out"
dir=$(cd "$dir" && pwd)

# Builds one revision; prints the path of its program.
build() {
    local rev=$1 name src build
    if [[ $rev == . ]]; then
        name=work
        src=$root
    else
        local commit
        if ! commit=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}"); then
            echo "ab.sh: '$rev' is not a revision of this repository" >&2
            return 1
        fi
        name=${commit:0:12}
        src=$dir/src-$name
        if [[ ! -d $src ]]; then
            git -C "$root" worktree add --detach --quiet "$src" "$commit" >&2
        fi
    fi
    build=$dir/build-$name
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPROX_BENCH=ON -DPROX_NATIVE=ON >/dev/null
    cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "$program" >&2
    local path
    path=$(find "$build" -type f -name "$program" -perm -u+x | head -n 1)
    if [[ -z $path ]]; then
        echo "ab.sh: revision $rev has no benchmark program '$program'" >&2
        return 1
    fi
    echo "$path"
}

programs=()
for rev in "${revisions[@]}"; do
    echo "ab.sh: building $program at $rev" >&2
    programs+=("$(build "$rev")")
done

labels=(A B)
for ((round = 1; round <= warmup; round++)); do
    for i in 0 1; do
        echo "ab.sh: warm-up run $round of ${labels[$i]} (${revisions[$i]}), output dropped" >&2
        "${programs[$i]}" "$@" >/dev/null 2>&1
    done
done
for ((round = 1; round <= rounds; round++)); do
    order=(0 1)
    ((round % 2 == 0)) && order=(1 0)
    for i in "${order[@]}"; do
        out=$dir/out/$program-${labels[$i]}-$round.txt
        echo "ab.sh: round $round, ${labels[$i]} (${revisions[$i]}) -> $out" >&2
        "${programs[$i]}" "$@" >"$out" 2>&1
    done
done

if [[ -n $pattern ]]; then
    for ((round = 1; round <= rounds; round++)); do
        for i in 0 1; do
            echo "## round $round, ${labels[$i]} = ${revisions[$i]}"
            grep -E -- "$pattern" "$dir/out/$program-${labels[$i]}-$round.txt" || true
        done
    done
fi
