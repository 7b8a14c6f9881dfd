/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include "cli_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char* cli(void) {
    const char* path = getenv("PROX_CLI");
    return path && *path ? path : NULL;
}

int run(const char* command, char* output, size_t size) {
    char full[4096];
    snprintf(full, sizeof full, "%s%s", command, strstr(command, "2>") ? "" : " 2>&1");
    FILE* p = popen(full, "r");
    if (!p) return -1;
    size_t n = fread(output, 1, size - 1, p);
    output[n] = '\0';
    while (fgetc(p) != EOF) {} // drain what did not fit
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
