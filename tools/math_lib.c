// SPDX-License-Identifier: MIT
/*
 * math_lib.c - libm, loaded on first use (math_lib.h, lazy_lib.h)
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "lazy_lib.h"
#include "math_lib.h"

static struct math_lib lm;
static const struct lazy_sym lm_syms[] = {
	LAZY_SYM(lm, pow),
	LAZY_SYM(lm, log10),
	LAZY_SYM(lm, cbrt),
	LAZY_SYM(lm, ldexp),
};
static struct lazy_lib lm_loader = LAZY_LIB("libm.so.6", "libc6", lm_syms, &lm);

const struct math_lib *math_lib(void)
{
	char why[300];

	if (lazy_lib_load(&lm_loader, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", CLI_NAME, why);
		exit(1);
	}
	return &lm;
}
