/* SPDX-License-Identifier: MIT */
/*
 * batch.h - the one place that runs replays: traces loaded once
 * (lab_trace.h), and a bounded pool of threads that runs numbered jobs and
 * hands their results back in job order, whatever the thread that finished
 * first.  sim, sweep, fidelity, the report's timeline and the tests run
 * their replays through it.  Its API is public: include/cpuidle/lab.h
 * ("what a result comes to", "many runs").
 */
#ifndef LAB_BATCH_H
#define LAB_BATCH_H

#include "cpuidle/lab.h"
#include "lab_trace.h"
#include "replay.h"

#endif /* LAB_BATCH_H */
