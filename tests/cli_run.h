/* SPDX-License-Identifier: MIT */
/* Running the `proxima` command from the tests, as a user would. */
#ifndef PROX_TEST_CLI_RUN_H
#define PROX_TEST_CLI_RUN_H

#include <stddef.h>

/// The built `proxima` binary (PROX_CLI, set by CTest), or NULL: skip.
const char* cli(void);
/// Skips the test (and returns from it) when the CLI is not known: a test
/// run outside ctest. Needs test.h.
#define SKIP_WITHOUT_CLI()                                          \
    do {                                                            \
        if (!cli()) {                                               \
            prox_test_skip("PROX_CLI not set (run through ctest)"); \
            return;                                                 \
        }                                                           \
    } while (0)
/// Runs a shell command; returns its exit status (-1 when it did not exit,
/// e.g. a crash) and its output: stdout and, unless the command redirects it
/// itself, stderr (what does not fit in `size` is read and dropped).
int run(const char* command, char* output, size_t size);

#endif
