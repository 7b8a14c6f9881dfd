#!/bin/sh
# What `cmake --install` (and `make install`) gives a user: installs this
# build into a fresh temporary prefix, then builds the two example programs
# against the installed copy alone, as another project would, and runs them:
#  - with CMake: find_package(proxima 0.2) and the targets proxima::proxima
#    (shared) and proxima::proxima_static;
#  - with pkg-config (when it is installed; `make deps` installs it): the
#    flags of proxima.pc, shared, and of `pkg-config --static`;
# and checks the files a package needs (headers, both libraries, the tool,
# proxima_io.pc). The prefix is not the configured one, so this also checks
# that both kinds of package find their files from where they lie.
#
# usage: check_install.sh SOURCE_DIR BUILD_DIR CMAKE CC VERSION
set -u
src=$1
build=$2
cmake=$3
cc=$4
version=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() {
    echo "FAIL: $*"
    exit 1
}

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
    cat "$work/install.log"
    fail "cmake --install"
}
for f in include/proxima/proxima.h include/proxima/world.h include/proxima/io.h bin/proxima; do
    [ -f "$prefix/$f" ] || fail "$f is not installed"
done
libdir=$(dirname "$(find "$prefix" -name 'libproxima.a' | head -n 1)")
[ -d "$libdir" ] || fail "libproxima.a is not installed"
for f in libproxima.so libproxima_io.so libproxima_io.a pkgconfig/proxima.pc pkgconfig/proxima_io.pc \
    cmake/proxima/proximaConfig.cmake cmake/proxima/proximaConfigVersion.cmake; do
    [ -e "$libdir/$f" ] || fail "$libdir/$f is not installed"
done
# nothing installed may point back into the source or build trees
grep -rlF -e "$src/" -e "$build/" "$libdir/cmake" "$libdir/pkgconfig" && fail "the files above name the source or build tree"
"$prefix/bin/proxima" --version | grep -q "$version" || fail "the installed tool does not say version $version"

# The examples print this when they work (CMakeLists.txt checks them the same way).
collide_ok='linked rings touch: no'
world_ok='ring 2 touches ball'

# CMake: a project of its own, which knows only the prefix.
mkdir -p "$work/consumer"
cp "$src/examples/hello_collide.c" "$src/examples/hello_world.c" "$work/consumer/"
cat >"$work/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(proxima 0.2 REQUIRED)
add_executable(collide_shared hello_collide.c)
target_link_libraries(collide_shared PRIVATE proxima::proxima)
add_executable(collide_static hello_collide.c)
target_link_libraries(collide_static PRIVATE proxima::proxima_static)
add_executable(world_static hello_world.c)
target_link_libraries(world_static PRIVATE proxima::proxima_static)
EOF
"$cmake" -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 &&
    "$cmake" --build "$work/consumer/build" >>"$work/consumer.log" 2>&1 || {
    cat "$work/consumer.log"
    fail "a CMake project cannot build against the installed package"
}
"$work/consumer/build/collide_shared" | grep -q "$collide_ok" || fail "collide_shared (find_package) does not run"
"$work/consumer/build/collide_static" | grep -q "$collide_ok" || fail "collide_static (find_package) does not run"
"$work/consumer/build/world_static" | grep -q "$world_ok" || fail "world_static (find_package) does not run"
echo "find_package(proxima): 3 programs built and run"

# pkg-config.
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "pkg-config is not installed: its half is skipped (make deps installs it)"
    exit 0
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion proxima)" = "$version" ] || fail "proxima.pc gives another version"
[ "$(pkg-config --modversion proxima_io)" = "$version" ] || fail "proxima_io.pc gives another version"
# shellcheck disable=SC2046 # the flags are words
"$cc" -o "$work/collide_pc" "$src/examples/hello_collide.c" $(pkg-config --cflags --libs proxima) ||
    fail "cannot build with pkg-config's flags"
LD_LIBRARY_PATH="$libdir" "$work/collide_pc" | grep -q "$collide_ok" || fail "collide_pc does not run"
# --static: the archive in place of -lproxima, with the libraries it needs (Libs.private)
static_flags=$(pkg-config --static --libs proxima | sed "s|-lproxima|$libdir/libproxima.a|")
# shellcheck disable=SC2046
"$cc" -o "$work/world_pc_static" "$src/examples/hello_world.c" $(pkg-config --cflags proxima) $static_flags ||
    fail "cannot build with pkg-config --static's flags"
"$work/world_pc_static" | grep -q "$world_ok" || fail "world_pc_static does not run"
echo "pkg-config proxima: 2 programs built and run"
