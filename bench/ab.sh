#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/B: one benchmark program built from two versions of proxima, run in turns.
#
#     bench/ab.sh [--rounds N] [--warmup N] [--dir DIR] [--grep REGEX] A B -- PROGRAM [ARGS...]
#
# A and B are git revisions (a commit, a tag, HEAD~2), or `.` for the working
# tree as it is, uncommitted changes included. A revision is checked out into
# DIR/src-<first 12 hex digits of its commit> (a detached git worktree; `.`
# is built where it is) and built in DIR/build-<the same> or DIR/build-work
# (Release, -march=native, the peers when installed). Each revision builds
# its own tree, bench/ included: when the program's source changed between A
# and B, the comparison is of library and program together.
#
# Then PROGRAM runs from each build --warmup times (default 1), output
# dropped (the first run after a build took 1.25-1.4x the time of the next
# ones on a Zen 5 VM), and --rounds times (default 3), alternating A B, B A,
# A B, ... so that a machine slowing down over the run weighs on both alike.
# Each run's output goes to DIR/out/<PROGRAM>-<A or B>-<round>.txt (a later
# run of the same program replaces them), and DIR/out/<PROGRAM>-info.txt
# says which commits, arguments and date made them. With --grep, the lines
# of every run that match REGEX are printed, A then B for each round.
#
# PROGRAM runs in the current directory with the same ARGS for A and B: an
# argument that names an output file (--csv) is written by both in turn.
# DIR defaults to build/ab at the top of the repository; to clean up, delete
# it and run `git worktree prune`.
#
# Why: a virtual machine's speed drifts by 10-30% over minutes (BENCHMARKS.md),
# more than the effect of most changes. Two builds timed one after the other
# show the drift; several alternations show which differences outlast it.
# (Most of the programs interleave their own variants for the same reason.)
#
# Example: the convex queries' proxima rows of two commits:
#     bench/ab.sh --grep '\| proxima \|' 3cbd78b eb65a77 -- convex
set -euo pipefail
shopt -s inherit_errexit

usage() {
    echo "usage: bench/ab.sh [--rounds N] [--warmup N] [--dir DIR] [--grep REGEX] A B -- PROGRAM [ARGS...]" >&2
    exit 2
}
fail() {
    echo "ab.sh: $*" >&2
    exit 1
}

root=$(git -C "$(dirname -- "$0")" rev-parse --show-toplevel)
rounds=3
warmup=1
dir=$root/build/ab
pattern=
while [[ $# -gt 0 ]]; do
    case $1 in
    --rounds | --warmup | --dir | --grep)
        [[ $# -ge 2 && -n $2 ]] || usage
        case $1 in
        --rounds) rounds=$2 ;;
        --warmup) warmup=$2 ;;
        --dir) dir=$2 ;;
        --grep) pattern=$2 ;;
        esac
        shift 2
        ;;
    -h | --help)
        sed -n '3,/^set -euo/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) break ;;
    esac
done
[[ $# -ge 4 && $3 == -- ]] || usage
# (decimal: a leading zero would make bash read the number as octal)
[[ $rounds =~ ^[1-9][0-9]{0,5}$ ]] || { echo "ab.sh: --rounds takes a whole number from 1" >&2; usage; }
[[ $warmup =~ ^(0|[1-9][0-9]{0,5})$ ]] || { echo "ab.sh: --warmup takes a whole number from 0" >&2; usage; }
revisions=("$1" "$2")
program=$4
shift 4
[[ $program =~ ^[A-Za-z0-9_]+$ ]] ||
    { echo "ab.sh: '$program' is not a benchmark program's name (one of bench/*.c with a main)" >&2; usage; }
if [[ -n $pattern ]]; then
    status=0
    grep -E -q -- "$pattern" </dev/null 2>/dev/null || status=$?
    [[ $status -le 1 ]] || fail "--grep '$pattern' is not an extended regular expression"
fi

# Both revisions are resolved before anything is built.
commits=()
for rev in "${revisions[@]}"; do
    if [[ $rev == . ]]; then
        commits+=(.)
    else
        commit=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") ||
            fail "'$rev' is not a revision of this repository"
        commits+=("$commit")
    fi
done

mkdir -p -- "$dir/out"
dir=$(cd -- "$dir" >/dev/null && pwd)

# Builds one revision (a commit, or . for the working tree) and writes the
# path of its program to the file $2.
build() {
    local commit=$1 result=$2 name src
    if [[ $commit == . ]]; then
        name=work
        src=$root
    else
        name=${commit:0:12}
        src=$dir/src-$name
        # A directory left by an interrupted run, or moved to another commit,
        # is made again.
        if [[ -d $src ]] && ! { [[ $(git -C "$src" rev-parse HEAD 2>/dev/null) == "$commit" ]] &&
            [[ -z $(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null) ]]; }; then
            git -C "$root" worktree remove --force "$src" 2>/dev/null || rm -rf -- "$src"
            git -C "$root" worktree prune
        fi
        if [[ ! -d $src ]]; then
            git -C "$root" worktree add --detach --quiet "$src" "$commit" >&2 || return 1
        fi
    fi
    local build=$dir/build-$name
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPROX_BENCH=ON -DPROX_NATIVE=ON >/dev/null || return 1
    cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "$program" >&2 || return 1
    local path=$build/bench/$program
    [[ -x $path ]] || { echo "ab.sh: $name has no benchmark program '$program'" >&2; return 1; }
    echo "$path" >"$result"
}

programs=()
labels=(A B)
for i in 0 1; do
    echo "ab.sh: building $program at ${revisions[$i]}" >&2
    build "${commits[$i]}" "$dir/out/.path-$i" || fail "building $program at ${revisions[$i]} failed"
    programs+=("$(cat "$dir/out/.path-$i")")
    rm -f -- "$dir/out/.path-$i"
done

{
    echo "bench/ab.sh, $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n)"
    for i in 0 1; do
        if [[ ${commits[$i]} == . ]]; then
            changed=
            [[ -z $(git -C "$root" status --porcelain --untracked-files=no) ]] || changed=", with changes"
            echo "${labels[$i]} = the working tree at $(git -C "$root" rev-parse HEAD)$changed"
        else
            echo "${labels[$i]} = ${revisions[$i]} (${commits[$i]})"
        fi
    done
    echo "program: $program $*"
    echo "rounds: $rounds (A B, B A, ...), warm-up runs: $warmup each"
} >"$dir/out/$program-info.txt"
rm -f -- "$dir/out/$program"-[AB]-*.txt

for ((round = 1; round <= warmup; round++)); do
    for i in 0 1; do
        echo "ab.sh: warm-up run $round of ${labels[$i]} (${revisions[$i]}), output dropped" >&2
        "${programs[$i]}" "$@" >/dev/null || fail "${labels[$i]}'s warm-up run failed"
    done
done
for ((round = 1; round <= rounds; round++)); do
    order=(0 1)
    if ((round % 2 == 0)); then order=(1 0); fi
    for i in "${order[@]}"; do
        out=$dir/out/$program-${labels[$i]}-$round.txt
        echo "ab.sh: round $round, ${labels[$i]} (${revisions[$i]}) -> $out" >&2
        "${programs[$i]}" "$@" >"$out" 2>&1 || fail "${labels[$i]}'s run failed (its output: $out)"
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
