# proxima: the commands a newcomer needs. CMake does the building.
#   make demo    build, then run the paper's experiment on the built-in models and a world
#                of 2,000 moving objects
#   make test    build and run all tests: release, then ASan+UBSan, then ThreadSanitizer on
#                the threaded parts, then the queries whose code is compiled per x86-64 level
#                in a build for the baseline, then fuzz smoke runs
#   make bench   build with the peers (FCL, Bullet) and run the main benchmarks (vdb98, broad
#                phase, world); the others are in build/bench/bench/ (see BENCHMARKS.md)
# On a fresh Debian machine missing tools are installed with apt-get (needs root).

BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_TIME ?= 15
CMAKE_FLAGS ?=
PREFIX    ?= /usr/local

SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT  := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get

.PHONY: all demo test test-release test-asan test-tsan test-baseline test-fuzz bench install deps deps-fuzz deps-peers clean

all: $(BUILD)/release/proxima

# Install what the build needs when it is missing.
deps:
	@command -v cmake >/dev/null && command -v cc >/dev/null && command -v make >/dev/null && command -v pkg-config >/dev/null || \
	  { echo "installing build tools with apt-get"; $(APT) update -qq && $(APT) install -y -qq cmake build-essential pkg-config; }

deps-fuzz:
	@command -v clang >/dev/null && ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || \
	  { echo "installing clang and libFuzzer with apt-get"; $(APT) update -qq && $(APT) install -y -qq clang libclang-rt-dev; }

deps-peers:
	@dpkg -s libfcl-dev libbullet-dev >/dev/null 2>&1 || \
	  { echo "installing the peers (FCL, Bullet) with apt-get"; $(APT) update -qq && $(APT) install -y -qq g++ pkg-config libfcl-dev libbullet-dev libccd-dev; }

$(BUILD)/release/proxima: deps FORCE
	cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release -DPROX_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD)/release -j $(JOBS)
FORCE:

demo: $(BUILD)/release/proxima
	$(BUILD)/release/proxima demo
	$(BUILD)/release/proxima scene --demo --quiet

test: test-release test-asan test-tsan test-baseline test-fuzz

test-release: $(BUILD)/release/proxima
	cd $(BUILD)/release && ctest --output-on-failure -j $(JOBS)

# Sanitizers: fewer random placements (PROX_TEST_SCALE) keep the run short: the sanitizers
# look for memory and undefined-behaviour errors, which every code path shows in a fraction of
# the release run's placements. The suites with brute-force oracles over the shared meshes run a
# tenth, the others a fifth (some check that their placements reach each case, which a tenth of
# them does not). CI must stay well under 30 minutes on a 2-core machine; on an AMD Zen 3 this
# stage alone took 11 minutes with a fifth everywhere.
ASAN_HEAVY := ^(bvh|collide|distance|self|contacts)$$
test-asan: deps
	cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROX_SANITIZE=ON -DPROX_WERROR=ON -DPROX_BENCH=OFF >/dev/null
	cmake --build $(BUILD)/asan -j $(JOBS)
	cd $(BUILD)/asan && PROX_TEST_SCALE=0.1 ctest --output-on-failure -j $(JOBS) -R '$(ASAN_HEAVY)'
	cd $(BUILD)/asan && PROX_TEST_SCALE=0.2 ctest --output-on-failure -j $(JOBS) -E '$(ASAN_HEAVY)'

# ThreadSanitizer on what runs on several threads: the pool, the broad phases' passes, the
# world's narrow phase and its scene queries from several threads at once (a race there, the
# scene tree made by every thread of a world never queried, corrupted the heap only now and then
# in release builds). Only the test program is built.
TSAN_SUITES := ^(thread_pool|broadphase_threads|world|world_query)$$
test-tsan: deps
	cmake -S . -B $(BUILD)/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROX_TSAN=ON -DPROX_WERROR=ON -DPROX_BENCH=OFF >/dev/null
	cmake --build $(BUILD)/tsan -j $(JOBS) --target prox_tests
	cd $(BUILD)/tsan && PROX_TEST_SCALE=0.1 ctest --output-on-failure -j $(JOBS) -R '$(TSAN_SUITES)'

# A build for the x86-64 baseline (no -march, as a distribution would build it), where
# the traversals are compiled once per x86-64 level and chosen at load time
# (PROX_TARGET_CLONES, src/core.h): the suites of those queries.
test-baseline: deps
	cmake -S . -B $(BUILD)/baseline -DCMAKE_BUILD_TYPE=Release -DPROX_NATIVE=OFF -DPROX_WERROR=ON -DPROX_BENCH=OFF >/dev/null
	cmake --build $(BUILD)/baseline -j $(JOBS)
	cd $(BUILD)/baseline && PROX_TEST_SCALE=0.2 ctest --output-on-failure -j $(JOBS) -R '^(distance|collide|convex_mesh|contacts)$$'

# libFuzzer smoke runs: every target for FUZZ_TIME seconds from its seed corpus, JOBS at a time
# (tests/fuzz_one.sh; each target is one process on one core).
test-fuzz: deps deps-fuzz
	CC=clang cmake -S . -B $(BUILD)/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROX_FUZZ=ON -DPROX_WERROR=ON -DPROX_BENCH=OFF >/dev/null
	cmake --build $(BUILD)/fuzz -j $(JOBS)
	@for f in $(BUILD)/fuzz/fuzz/fuzz_*; do [ -x "$$f" ] && echo "$$f"; done | \
	  xargs -n 1 -P $(JOBS) sh tests/fuzz_one.sh $(FUZZ_TIME) || { echo "fuzz: a target failed (above)"; exit 1; }

bench: deps deps-peers
	cmake -S . -B $(BUILD)/bench -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD)/bench -j $(JOBS)
	mkdir -p bench/results
	$(BUILD)/bench/bench/vdb98 --csv bench/results/vdb98.csv | tee bench/results/vdb98.md
	$(BUILD)/bench/bench/broadphase --csv bench/results/broadphase.csv | tee bench/results/broadphase.md
	$(BUILD)/bench/bench/world --objects 100,1000,5000 --csv bench/results/world.csv | tee bench/results/world.md
	$(BUILD)/bench/bench/distance --csv bench/results/distance.csv | tee bench/results/distance.md
	$(BUILD)/bench/bench/convex_mesh --csv bench/results/convex_mesh.csv | tee bench/results/convex_mesh.md
	$(BUILD)/bench/bench/ray | tee bench/results/ray.md
	$(BUILD)/bench/bench/scene_query | tee bench/results/scene_query.md

# The headers, libraries (shared and static), the tool, pkg-config files and a CMake package
# under PREFIX. The build is tuned for this machine unless CMAKE_FLAGS=-DPROX_NATIVE=OFF.
install: $(BUILD)/release/proxima
	cmake --install $(BUILD)/release --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
