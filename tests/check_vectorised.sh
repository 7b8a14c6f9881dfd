#!/bin/sh
# The hot lane loops (the eight lanes of a node at once) are marked
# "/* vectorised */" on their `for` line, in src/*.c and src/*.h. GCC turns
# such a loop back into scalar code without a word when it meets something
# it cannot vectorise (a call to fmax, a branch on a loop-invariant flag, a
# sqrt that may set errno), and the query slows by a quarter or more. This
# check compiles every source that holds a marked loop, or includes a header
# that does, with the build's flags and -fopt-info-vec-optimized, and fails
# for each marked loop GCC does not report vectorised.
#
# The loops run as vector code on AVX-512 (eight doubles a register) and
# on AVX2 (two registers of four; they need -fno-trapping-math there, see
# CMakeLists.txt), so the check runs for targets with AVX2 or more, and
# otherwise exits 77, which CTest reports as skipped. CTest runs it twice:
# with the build's own flags, and with -march=haswell appended (an AVX2
# machine), since most machines outside this one have no AVX-512.
#
# usage: check_vectorised.sh SOURCE_DIR COMPILER FLAGS...
set -u
src=$1
cc=$2
shift 2
if ! "$cc" "$@" -dM -E - </dev/null | grep -q '__AVX2__'; then
    echo "skipped: these flags do not target AVX2 or AVX-512"
    exit 77
fi
report=$(mktemp)
trap 'rm -f "$report"' EXIT

headers=$(grep -l '/\* vectorised \*/' "$src"/src/*.h 2>/dev/null)
sources=$(grep -l '/\* vectorised \*/' "$src"/src/*.c)
for h in $headers; do
    sources="$sources $(grep -l "#include \"$(basename "$h")\"" "$src"/src/*.c)"
done
sources=$(printf '%s\n' $sources | sort -u)
for c in $sources; do
    if ! "$cc" "$@" -I"$src/include" -I"$src/src" -fopt-info-vec-optimized -c "$c" -o /dev/null 2>>"$report"; then
        echo "check_vectorised: $c does not compile with: $cc $*" >&2
        exit 1
    fi
done

marked=0
failed=0
for f in $headers $sources; do
    name=$(basename "$f")
    for line in $(grep -n '/\* vectorised \*/' "$f" | cut -d: -f1); do
        marked=$((marked + 1))
        if ! grep -q "/$name:$line:[0-9]*: optimized: loop vectorized" "$report"; then
            echo "not vectorised: src/$name:$line: $(sed -n "${line}p" "$f" | sed 's/^ *//')"
            failed=$((failed + 1))
        fi
    done
done
if [ "$marked" -eq 0 ]; then
    echo "check_vectorised: no marked loops found under $src/src" >&2
    exit 1
fi
if [ "$failed" -ne 0 ]; then
    echo "$failed of $marked marked loops are not vectorised (see why: add -fopt-info-vec-missed)"
    exit 1
fi
echo "all $marked marked loops vectorised"
