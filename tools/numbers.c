/* SPDX-License-Identifier: MIT */
#include "numbers.h"

#include <math.h>
#include <stdlib.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static const char* skip_digits(const char* p) {
    while (is_digit(*p)) ++p;
    return p;
}

bool cli_read_decimal(const char* p, double* out, const char** end) {
    *end = p;
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
    if (!digits) return false;
    if (*q == 'e' || *q == 'E') {
        const char* e = q + 1;
        if (*e == '+' || *e == '-') ++e;
        const char* exponent = skip_digits(e);
        if (exponent > e) q = exponent; /* else the 'e' is not part of the number */
    }
    char* stop;
    const double x = strtod(p, &stop);
    /* strtod reads the same decimal (it would read more only for forms
     * ruled out above, which do not start like this one) */
    if (stop != q || !isfinite(x)) return false;
    *out = x;
    *end = q;
    return true;
}

bool cli_reads_as_non_finite(const char* p) {
    char* stop;
    const double x = strtod(p, &stop);
    return stop != p && !isfinite(x);
}
