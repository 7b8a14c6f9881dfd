/* SPDX-License-Identifier: MIT */
/* Text scanning for the mesh readers: lines and words over a byte range that
 * is not NUL-terminated, with line numbers for error messages, and number
 * parsing that does not depend on the C locale.
 *
 * Why not strtod directly: it needs a NUL-terminated string (the file is a
 * bare byte range), it reads the locale's decimal point (a German locale
 * turns "0.5" into 0), and it accepts forms no mesh format allows (hex,
 * leading blanks). So the syntax is checked here; the value comes from an
 * exact fast path when the digits allow it, and otherwise from strtod on a
 * rewritten copy that has no decimal point at all ("12.5e3" -> "125e2"),
 * which every locale reads the same way and which strtod rounds correctly. */
#include "io_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void prox_io_text_init(prox_io_text* text, const prox_io_ctx* ctx) {
    text->begin = (const char*)ctx->data;
    text->p = text->begin;
    text->end = text->begin + ctx->size;
    text->line = 1;
}

bool prox_io_text_line(prox_io_text* text, prox_io_span* out, long* out_line) {
    const char* p = text->p;
    const char* end = text->end;
    if (p >= end) return false;
    /* memchr is much faster than a byte loop on multi-megabyte files; a
     * second memchr inside the line finds the rare '\r'. */
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    const char* stop = nl ? nl : end;
    const char* cr = memchr(p, '\r', (size_t)(stop - p));
    const char* next;
    if (cr && cr + 1 == stop && nl) { /* "\r\n" */
        stop = cr;
        next = nl + 1;
    } else if (cr) { /* a lone '\r' ends the line (classic Mac files) */
        stop = cr;
        next = cr + 1;
    } else {
        next = nl ? nl + 1 : end;
    }
    out->p = p;
    out->end = stop;
    *out_line = text->line++;
    text->p = next;
    return true;
}

bool prox_io_text_word(prox_io_text* text, prox_io_span* out, long* out_line) {
    const char* p = text->p;
    const char* end = text->end;
    for (;;) {
        if (p >= end) {
            text->p = p;
            return false;
        }
        char c = *p;
        if (c == '\n') {
            text->line++;
        } else if (c == '\r') {
            if (!(p + 1 < end && p[1] == '\n')) text->line++;
        } else if (!prox_io_is_blank(c)) {
            break;
        }
        ++p;
    }
    const char* start = p;
    while (p < end && !prox_io_is_blank(*p) && *p != '\n') ++p;
    out->p = start;
    out->end = p;
    *out_line = text->line;
    text->p = p;
    return true;
}

bool prox_io_span_token(prox_io_span* line, prox_io_span* out) {
    const char* p = line->p;
    const char* end = line->end;
    while (p < end && prox_io_is_blank(*p)) ++p;
    if (p == end) {
        line->p = p;
        return false;
    }
    const char* start = p;
    while (p < end && !prox_io_is_blank(*p)) ++p;
    out->p = start;
    out->end = p;
    line->p = p;
    return true;
}

static char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

bool prox_io_span_is(prox_io_span s, const char* word, bool fold) {
    size_t n = strlen(word);
    if (prox_io_span_size(s) != n) return false;
    for (size_t i = 0; i < n; ++i) {
        char c = fold ? ascii_lower(s.p[i]) : s.p[i];
        if (c != word[i]) return false;
    }
    return true;
}

static bool span_equals_folded(const char* p, size_t n, const char* lower_word) {
    prox_io_span s = {p, p + n};
    return prox_io_span_is(s, lower_word, true);
}

/* Significant digits kept for the slow path. A double needs at most 768
 * significant decimal digits to decide its rounding; beyond that one sticky
 * nonzero digit stands for everything dropped. */
enum { MAX_DIGITS = 800 };

bool prox_io_parse_double(const char* p, size_t n, double* out) {
    const char* end = p + n;
    bool negative = false;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        ++p;
    }
    if (p == end) return false;
    if (!prox_io_is_digit(*p) && *p != '.') {
        size_t rest = (size_t)(end - p);
        if (span_equals_folded(p, rest, "inf") || span_equals_folded(p, rest, "infinity")) {
            *out = negative ? -INFINITY : INFINITY;
            return true;
        }
        if (span_equals_folded(p, rest, "nan")) {
            *out = NAN;
            return true;
        }
        return false;
    }

    /* value = digits (as an integer) * 10^exponent */
    char digits[MAX_DIGITS + 1];
    size_t count = 0;
    bool dropped_nonzero = false;
    long long exponent = 0;
    bool any_digit = false;
    for (; p < end && prox_io_is_digit(*p); ++p) {
        any_digit = true;
        if (count == 0 && *p == '0') continue; /* leading zero */
        if (count < MAX_DIGITS) {
            digits[count++] = *p;
        } else {
            exponent++;
            dropped_nonzero |= *p != '0';
        }
    }
    if (p < end && *p == '.') {
        for (++p; p < end && prox_io_is_digit(*p); ++p) {
            any_digit = true;
            if (count == 0 && *p == '0') {
                exponent--;
            } else if (count < MAX_DIGITS) {
                digits[count++] = *p;
                exponent--;
            } else {
                dropped_nonzero |= *p != '0';
            }
        }
    }
    if (!any_digit) return false;
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        bool exponent_negative = false;
        if (p < end && (*p == '+' || *p == '-')) {
            exponent_negative = *p == '-';
            ++p;
        }
        if (p == end || !prox_io_is_digit(*p)) return false;
        long long e = 0;
        for (; p < end && prox_io_is_digit(*p); ++p)
            if (e < 1000000) e = e * 10 + (*p - '0'); /* beyond this the value is 0 or inf anyway */
        exponent += exponent_negative ? -e : e;
    }
    if (p != end) return false;

    if (!dropped_nonzero)
        while (count > 0 && digits[count - 1] == '0') {
            count--;
            exponent++;
        }
    double value;
    if (count == 0) {
        value = 0.0;
    } else if (exponent + (long long)count > 310) {
        value = INFINITY; /* >= 10^310 */
    } else if (exponent + (long long)count < -330) {
        value = 0.0; /* < 10^-330, below half the smallest subnormal */
    } else {
        bool done = false;
#if FLT_EVAL_METHOD == 0 || FLT_EVAL_METHOD == 1
        /* Clinger's fast path: an integer below 2^53 and a power of ten up to
         * 10^22 are both exact doubles, so one IEEE multiply or divide gives
         * the correctly rounded result. (Not under x87 extended evaluation,
         * where the result would be rounded twice.) */
        static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        if (count <= 19 && exponent >= -22 && exponent <= 22) {
            uint64_t w = 0;
            for (size_t i = 0; i < count; ++i) w = w * 10 + (uint64_t)(digits[i] - '0');
            if (w <= (UINT64_C(1) << 53)) {
                value = exponent >= 0 ? (double)w * powers[exponent] : (double)w / powers[-exponent];
                done = true;
            }
        }
#endif
        if (!done) {
            char text[MAX_DIGITS + 32];
            memcpy(text, digits, count);
            size_t length = count;
            if (dropped_nonzero) {
                text[length++] = '1';
                exponent--;
            }
            text[length++] = 'e';
            long long e = exponent;
            if (e < 0) {
                text[length++] = '-';
                e = -e;
            }
            char reversed[24];
            size_t r = 0;
            do {
                reversed[r++] = (char)('0' + e % 10);
                e /= 10;
            } while (e > 0);
            while (r > 0) text[length++] = reversed[--r];
            text[length] = '\0';
            value = strtod(text, NULL);
        }
    }
    *out = negative ? -value : value;
    return true;
}

bool prox_io_parse_int(const char* p, size_t n, long long* out) {
    const char* end = p + n;
    bool negative = false;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        ++p;
    }
    if (p == end) return false;
    long long value = 0;
    for (; p < end; ++p) {
        if (!prox_io_is_digit(*p)) return false;
        value = value <= PROX_IO_INT_CLAMP / 10 ? value * 10 + (*p - '0') : PROX_IO_INT_CLAMP;
    }
    if (value > PROX_IO_INT_CLAMP) value = PROX_IO_INT_CLAMP;
    *out = negative ? -value : value;
    return true;
}
