// SPDX-License-Identifier: MIT
/* progress.c - a one-line progress indicator on stderr, when it is a terminal. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

void cli_progress(uint64_t done, uint64_t total, void *arg)
{
	const char *what = arg;

	if (!isatty(STDERR_FILENO) || cli_is_quiet())
		return;
	if (total)
		fprintf(stderr, "\r%s: %5.1f%%", what, 100.0 * (double)done / (double)total);
	else
		fprintf(stderr, "\r%s: %llu MB", what, (unsigned long long)(done >> 20));
	if (total && done >= total)
		fprintf(stderr, "\r%*s\r", 40, "");
	fflush(stderr);
}

void cli_progress_end(void)
{
	if (isatty(STDERR_FILENO) && !cli_is_quiet())
		fprintf(stderr, "\r%*s\r", 40, "");
}
