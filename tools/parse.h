/* SPDX-License-Identifier: MIT */
/*
 * parse.h - the numbers of the command line: integers and durations.  Kept
 * apart from the commands so the fuzz target fuzz/fuzz_cli_numbers.c can
 * link them alone.
 */
#ifndef TOOLS_PARSE_H
#define TOOLS_PARSE_H

/*
 * Parse a decimal integer in [min, max]; the whole string must be a number
 * (an optional sign, then digits: no blank, no junk).
 * Return: 0, or -EINVAL / -ERANGE.
 */
int cli_parse_ll(const char *s, long long min, long long max, long long *out);

/*
 * Parse a duration in seconds in [min, max] ("1", "0.25", "2e-2"): a
 * number as strtod() reads it, the whole string, no leading blank.
 * Return: 0, or -EINVAL (not a number; NaN) / -ERANGE (out of [min, max]).
 */
int cli_parse_seconds(const char *s, double min, double max, double *out);

#endif /* TOOLS_PARSE_H */
