/* SPDX-License-Identifier: MIT */
/* A small test harness. Tests register themselves with PROX_TEST(suite, name);
 * the suite of a file is its name without "test_" (tests/test_bvh.c -> bvh),
 * and CMake registers one CTest test per suite. `prox_tests SUITE [NAME]`
 * runs one suite (or one test); no argument runs everything. */
#ifndef PROX_TEST_H
#define PROX_TEST_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef void prox_test_fn(void);
void prox_test_register(const char* suite, const char* name, prox_test_fn* fn);
void prox_test_fail(const char* file, int line, const char* what);
/// Path of a shared test mesh (PROXIMA_DATA or ../shared/data/meshes relative
/// to the source tree), or NULL when the file is absent (the caller skips).
const char* prox_test_data_path(const char* relative, char* buffer, size_t size);
/// Marks the running test as skipped with a reason (printed once).
void prox_test_skip(const char* why);
/// Seed for randomized tests: PROX_TEST_SEED if set, else the given default.
unsigned long long prox_test_seed(unsigned long long fallback);

extern int prox_test_current_failures;

#define PROX_TEST(suite, name)                                                                 \
    static void prox_test_##suite##_##name(void);                                              \
    __attribute__((constructor)) static void prox_test_register_##suite##_##name(void) {       \
        prox_test_register(#suite, #name, prox_test_##suite##_##name);                         \
    }                                                                                          \
    static void prox_test_##suite##_##name(void)

/// Records a failure and continues.
#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) prox_test_fail(__FILE__, __LINE__, #cond);                                \
    } while (0)

/// Records a failure and returns from the test.
#define REQUIRE(cond)                                                                          \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            prox_test_fail(__FILE__, __LINE__, #cond);                                         \
            return;                                                                            \
        }                                                                                      \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                  \
    do {                                                                                       \
        double prox_a_ = (double)(a), prox_b_ = (double)(b);                                   \
        if (!(fabs(prox_a_ - prox_b_) <= (tol))) {                                             \
            char prox_msg_[256];                                                               \
            snprintf(prox_msg_, sizeof prox_msg_, "%s = %.17g, %s = %.17g, tolerance %g", #a,  \
                     prox_a_, #b, prox_b_, (double)(tol));                                     \
            prox_test_fail(__FILE__, __LINE__, prox_msg_);                                     \
        }                                                                                      \
    } while (0)

/// Like CHECK with a printf-style explanation on failure.
#define CHECK_MSG(cond, ...)                                                                   \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            char prox_msg_[512];                                                               \
            snprintf(prox_msg_, sizeof prox_msg_, __VA_ARGS__);                                \
            prox_test_fail(__FILE__, __LINE__, prox_msg_);                                     \
        }                                                                                      \
    } while (0)

#endif
