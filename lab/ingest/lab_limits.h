/* SPDX-License-Identifier: MIT */
/*
 * lab_limits.h - the lab's sizes that the trace readers (trace.h) and the
 * intervals built from them (intervals.h) share, in a header of their own
 * so that neither includes the other for them
 */
#ifndef LAB_LAB_LIMITS_H
#define LAB_LAB_LIMITS_H

/* an interrupt's name as a trace gives it, with its NUL */
#define LAB_IRQ_NAME_LEN	32
/* CPUs a trace may have: CPU numbers 0 .. LAB_MAX_CPUS - 1 */
#define LAB_MAX_CPUS		4096
/* kernel idle states a trace may name: state indexes 0 .. LAB_MAX_STATES - 1 */
#define LAB_MAX_STATES		10
/* a recording's description (cpuidle record; recording.h), in bytes */
#define LAB_RECORDING_MAX	8192

#endif /* LAB_LAB_LIMITS_H */
