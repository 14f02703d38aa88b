/* SPDX-License-Identifier: MIT */
/* cli.h - shared pieces of the cpuidle command-line tool. */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

#include <stdint.h>
#include <stdio.h>

#define CLI_NAME "cpuidle"

enum cli_format { FMT_TABLE, FMT_CSV, FMT_JSON };

int cmd_sim(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_governors(int argc, char **argv);

/* Print "cpuidle CMD: message" to stderr; returns 1 (the usage/error exit). */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Parse a decimal integer in [min, max]; the whole string must be a number.
 * Return: 0, or -EINVAL / -ERANGE.
 */
int cli_parse_ll(const char *s, long long min, long long max, long long *out);

/* Write @s as a JSON string literal. */
void json_string(FILE *f, const char *s);

#endif /* TOOLS_CLI_H */
