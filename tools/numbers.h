/* SPDX-License-Identifier: MIT */
/* Numbers in the CLI's inputs (placements, rays, scene files, options):
 * plain decimals, as the mesh readers take them. */
#ifndef PROX_TOOLS_NUMBERS_H
#define PROX_TOOLS_NUMBERS_H

#include <stdbool.h>

/// Reads the decimal number at p: [+-] digits [. [digits]] or [+-] . digits,
/// then optionally (e|E) [+-] digits. Hexadecimal, inf and nan are not
/// numbers here (strtod takes them, and "0x10" ran as 16). On success *out is
/// the nearest double, finite (out of range is an error; a subnormal or a
/// value that rounds to 0 is a number), *end points after it, and the result
/// is true; otherwise false and *end is p.
bool cli_read_decimal(const char* p, double* out, const char** end);

/// Whether c ends a word in these inputs: a blank, a comma, a comment's '#'
/// or the end of the text.
bool cli_ends_word(char c);

/// True when p holds a decimal (the form above) beyond double's range, or
/// the word inf, infinity or nan (any case, signed or not) ending at a
/// blank, a comma, a '#' or the end: why cli_read_decimal refused it, for a
/// message. ("information", "nanny" and hexadecimal are words, not numbers.)
bool cli_reads_as_non_finite(const char* p);

#endif
