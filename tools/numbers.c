/* SPDX-License-Identifier: MIT */
#include "numbers.h"

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
