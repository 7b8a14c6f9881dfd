/* SPDX-License-Identifier: MIT */
/* The CLI's text inputs (placements, rays, scene files, options): their
 * lines, and the numbers in them, plain decimals as the mesh readers take
 * them. */
#ifndef PROX_TOOLS_NUMBERS_H
#define PROX_TOOLS_NUMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// The longest line of an input file, in characters (the newline not
/// counted): a file that is not line text (/dev/zero, one endless line) is
/// refused there rather than read until memory runs out.
enum { CLI_LINE_MAX = 65536 };

typedef enum cli_line_status {
    CLI_LINE_OK,         ///< a line in text (its newline dropped), '\0'-terminated
    CLI_LINE_END,        ///< the end of the file
    CLI_LINE_TOO_LONG,   ///< more than CLI_LINE_MAX characters
    CLI_LINE_NUL,        ///< a NUL byte in the line (its rest would be lost to the C strings)
    CLI_LINE_NO_MEMORY,  ///< no memory for the line
    CLI_LINE_READ_ERROR, ///< the read failed (ferror); `error` is its errno
} cli_line_status;

/// Reads a file line by line; zero it but for `file`, and free `text` after.
typedef struct cli_line_reader {
    FILE* file;
    char* text;
    size_t capacity;
    long number; ///< of the line read last, from 1
    int error;
} cli_line_reader;

/// The next line. Past CLI_LINE_OK and CLI_LINE_END the reader stops there:
/// every other status is an error in the line `number` (or, for a read
/// error, in the file).
cli_line_status cli_read_line(cli_line_reader* reader);

/// What went wrong with the line, for a message ("a NUL byte in the line
/// ..."), for the statuses other than OK, END and READ_ERROR.
const char* cli_line_problem(cli_line_status status);

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
