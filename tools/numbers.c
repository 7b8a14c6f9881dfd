/* SPDX-License-Identifier: MIT */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* getc_unlocked */
#endif
#include "numbers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static const char* skip_digits(const char* p) {
    while (is_digit(*p)) ++p;
    return p;
}

/* The end of the decimal form at p ([+-] digits [. [digits]] or [+-] .
 * digits, then optionally (e|E) [+-] digits), or NULL when none starts there. */
static const char* decimal_end(const char* p) {
    const char* q = p;
    if (*q == '+' || *q == '-') ++q;
    const char* integer = q;
    q = skip_digits(q);
    bool digits = q > integer;
    if (*q == '.') {
        const char* fraction = ++q;
        q = skip_digits(q);
        digits = digits || q > fraction;
    }
    if (!digits) return NULL;
    if (*q == 'e' || *q == 'E') {
        const char* e = q + 1;
        if (*e == '+' || *e == '-') ++e;
        const char* exponent = skip_digits(e);
        if (exponent > e) q = exponent; /* else the 'e' is not part of the number */
    }
    return q;
}

bool cli_read_decimal(const char* p, double* out, const char** end) {
    *end = p;
    const char* q = decimal_end(p);
    if (!q) return false;
    char* stop;
    const double x = strtod(p, &stop);
    /* strtod reads the same decimal (it would read more only for forms
     * ruled out above, which do not start like this one) */
    if (stop != q || !isfinite(x)) return false;
    *out = x;
    *end = q;
    return true;
}

bool cli_ends_word(char c) {
    return c == '\0' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '#';
}

bool cli_reads_as_non_finite(const char* p) {
    const char* q = decimal_end(p);
    if (q) { /* a decimal beyond double's range ("1e999") */
        char* stop;
        const double x = strtod(p, &stop);
        return stop == q && !isfinite(x);
    }
    /* the words alone: "information" and "nanny" are words, not infinities */
    const char* w = *p == '+' || *p == '-' ? p + 1 : p;
    static const char* const words[] = {"infinity", "inf", "nan"};
    for (size_t i = 0; i < sizeof words / sizeof *words; ++i) {
        const size_t n = strlen(words[i]);
        if (strncasecmp(w, words[i], n) == 0 && cli_ends_word(w[n])) return true;
    }
    return false;
}

cli_line_status cli_read_line(cli_line_reader* reader) {
    FILE* f = reader->file;
    /* getc_unlocked: a character at a time (getline reads a line of any
     * length before it can be refused, and gives no NUL bytes away), without
     * a lock per character */
    int c = getc_unlocked(f);
    if (c == EOF) {
        reader->error = errno;
        return ferror(f) ? CLI_LINE_READ_ERROR : CLI_LINE_END;
    }
    reader->number++;
    size_t length = 0;
    for (;; c = getc_unlocked(f)) {
        if (length + 1 > reader->capacity) { /* room for the '\0' */
            size_t capacity = reader->capacity ? 2 * reader->capacity : 256;
            if (capacity > CLI_LINE_MAX + 1) capacity = CLI_LINE_MAX + 1;
            char* text = realloc(reader->text, capacity);
            if (!text) return CLI_LINE_NO_MEMORY;
            reader->text = text;
            reader->capacity = capacity;
        }
        if (c == EOF || c == '\n') break;
        if (c == '\0') return CLI_LINE_NUL;
        if (length == CLI_LINE_MAX) return CLI_LINE_TOO_LONG;
        reader->text[length++] = (char)c;
    }
    if (c == EOF && ferror(f)) { /* a line cut short by the failure is not given */
        reader->error = errno;
        return CLI_LINE_READ_ERROR;
    }
    reader->text[length] = '\0';
    return CLI_LINE_OK;
}

const char* cli_line_problem(cli_line_status status) {
    _Static_assert(CLI_LINE_MAX == 65536, "the message gives the number");
    switch (status) {
    case CLI_LINE_TOO_LONG: return "the line is longer than 65536 characters (not a text file?)";
    case CLI_LINE_NUL: return "a NUL byte in the line (not a text file?)";
    case CLI_LINE_NO_MEMORY: return "out of memory reading the line";
    default: return "cannot read the line";
    }
}
