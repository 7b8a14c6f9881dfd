#!/bin/sh
# Masked vector loads and stores (AVX-512's k-masks, AVX's maskload and
# maskstore, masked gathers and scatters) do not fault on their masked-off
# lanes, but on an AMD Zen 5 an AVX-512 one costs about 170 ns every time
# those lanes reach into a page not yet touched (bench/convex's page-edge
# rows; BENCHMARKS.md, "Points that end where an untouched page begins").
# The support scan once read up to 168 bytes past a hull's points that way
# and made every query of such a hull 3-11x slower. So every masked memory
# intrinsic in src/ must say, in a comment starting "masked:" on its line or
# the line before, why its masked-off lanes stay inside the object it reads
# (or why reaching past it is harmless). This check fails for each one that
# does not. (Masked accesses the compiler makes on its own are not seen here;
# a helper's audit of the built library in 2026-12 found them all inside
# their objects.)
#
# usage: check_masked_access.sh SOURCE_DIR
set -u
src=$1
# AVX-512's masked loads, stores, expand-loads, compress-stores, gathers and
# scatters, then AVX's maskload and maskstore
evex='_mm[0-9]*_mask[z]*_(loadu?|storeu?|expandloadu|compressstoreu|i32gather|i64gather|i32scatter|i64scatter)_'
pattern="$evex|_mm[0-9]*_mask(load|store)_"
found=0
failed=0
for f in "$src"/src/*.c "$src"/src/*.h; do
    for line in $(grep -nE "$pattern" "$f" | cut -d: -f1); do
        found=$((found + 1))
        here=$(sed -n "${line}p" "$f")
        before=$(sed -n "$((line - 1))p" "$f")
        case "$here$before" in
        *"masked:"*) ;;
        *)
            echo "masked access without a 'masked:' comment: src/$(basename "$f"):$line:"
            echo "    $(echo "$here" | sed 's/^ *//')"
            failed=$((failed + 1))
            ;;
        esac
    done
done
if [ "$failed" -ne 0 ]; then
    echo "$failed of $found masked accesses do not say why their masked-off lanes are harmless"
    exit 1
fi
echo "all $found masked accesses say why their masked-off lanes are harmless"
