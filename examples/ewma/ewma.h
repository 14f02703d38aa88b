/* SPDX-License-Identifier: MIT */
/* ewma.h - the EWMA governor (ewma.c), for a program that links it in */
#ifndef EWMA_H
#define EWMA_H

#include <libcpuidle.h>

extern const struct cpuidle_governor ewma_governor;

#endif /* EWMA_H */
