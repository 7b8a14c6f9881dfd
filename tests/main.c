/* SPDX-License-Identifier: MIT */
#include "test.h"

#include <string.h>
#include <time.h>

#ifndef PROX_SOURCE_DIR
#define PROX_SOURCE_DIR "."
#endif

enum { MAX_TESTS = 1024 };

typedef struct test_entry {
    const char* suite;
    const char* name;
    prox_test_fn* fn;
} test_entry;

static test_entry tests[MAX_TESTS];
static int test_count;
int prox_test_current_failures;
static int current_skipped;

void prox_test_register(const char* suite, const char* name, prox_test_fn* fn) {
    if (test_count == MAX_TESTS) {
        fprintf(stderr, "too many tests; raise MAX_TESTS\n");
        exit(2);
    }
    tests[test_count++] = (test_entry){suite, name, fn};
}

void prox_test_fail(const char* file, int line, const char* what) {
    if (prox_test_current_failures < 20) fprintf(stderr, "  FAIL %s:%d: %s\n", file, line, what);
    prox_test_current_failures++;
}

void prox_test_skip(const char* why) {
    if (!current_skipped) printf("  skip: %s\n", why);
    current_skipped = 1;
}

unsigned long long prox_test_seed(unsigned long long fallback) {
    const char* s = getenv("PROX_TEST_SEED");
    return s && *s ? strtoull(s, NULL, 0) : fallback;
}

const char* prox_test_data_path(const char* relative, char* buffer, size_t size) {
    const char* env = getenv("PROXIMA_DATA");
    if (env && *env)
        snprintf(buffer, size, "%s/%s", env, relative);
    else
        snprintf(buffer, size, "%s/../shared/data/meshes/%s", PROX_SOURCE_DIR, relative);
    FILE* f = fopen(buffer, "rb");
    if (!f) return NULL;
    fclose(f);
    return buffer;
}

static int compare_tests(const void* a, const void* b) {
    const test_entry* x = a;
    const test_entry* y = b;
    int c = strcmp(x->suite, y->suite);
    return c ? c : strcmp(x->name, y->name);
}

int main(int argc, char** argv) {
    const char* suite = argc > 1 ? argv[1] : NULL;
    const char* name = argc > 2 ? argv[2] : NULL;
    qsort(tests, (size_t)test_count, sizeof tests[0], compare_tests);
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < test_count; ++i) {
        if (suite && strcmp(suite, tests[i].suite) != 0) continue;
        if (name && strcmp(name, tests[i].name) != 0) continue;
        prox_test_current_failures = 0;
        current_skipped = 0;
        printf("%s.%s\n", tests[i].suite, tests[i].name);
        fflush(stdout);
        struct timespec start, end;
        timespec_get(&start, TIME_UTC);
        tests[i].fn();
        timespec_get(&end, TIME_UTC);
        const double seconds = (double)(end.tv_sec - start.tv_sec) + 1e-9 * (double)(end.tv_nsec - start.tv_nsec);
        /* the long tests set CI's time: name them (CI must stay well under 30 minutes) */
        if (seconds >= 1.0) printf("  %.1f s\n", seconds);
        if (prox_test_current_failures) {
            printf("  FAILED (%d checks)\n", prox_test_current_failures);
            failed++;
        } else if (current_skipped) {
            skipped++;
        } else {
            passed++;
        }
    }
    if (passed + failed + skipped == 0) {
        fprintf(stderr, "no test matches '%s %s'\n", suite ? suite : "", name ? name : "");
        return 2;
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
