/* SPDX-License-Identifier: MIT */
/* cli.h - shared pieces of the cpuidle command-line tool. */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "libcpuidle.h"
#include "parse.h"

#define CLI_NAME "cpuidle"

enum cli_format { FMT_TABLE, FMT_CSV, FMT_JSON };

int cmd_sim(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_fidelity(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_governors(int argc, char **argv);
int cmd_conformance(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_qos(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_record(int argc, char **argv);

/* "cpuidle platform --from-host [NAME]" (cmd_platform_host.c) */
int cli_platform_from_host(int argc, char **argv);

/* Print "cpuidle CMD: message" to stderr; returns 1 (the usage/error exit). */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Progress on stderr when it is a terminal; @arg is a label (a lab_progress_fn). */
void cli_progress(uint64_t done, uint64_t total, void *arg);
void cli_progress_end(void);

/*
 * Intervals for a replay from @path: an interval file as it is, a trace
 * converted into a temporary one (*@tmp set: unlink it when done).
 * Return: 0 or 1 after printing the error.
 */
int cli_intervals(const char *cmd, const char *path, char *ivf, size_t len, int *tmp);

/* A built-in governor by exact name, or NULL. */
const struct cpuidle_governor *cpuidle_find_governor_builtin(const char *name);

/* Write @s as a JSON string literal. */
void json_string(FILE *f, const char *s);

#endif /* TOOLS_CLI_H */
