/* SPDX-License-Identifier: MIT */
/* libcpuidle.h - the whole public API of libcpuidle. */
#ifndef LIBCPUIDLE_H
#define LIBCPUIDLE_H

#include "cpuidle/cpuidle.h"
#include "cpuidle/haltpoll.h"
#include "cpuidle/pm_qos.h"
#include "cpuidle/attr.h"
#include "cpuidle/platform.h"
#include "cpuidle/uidle.h"
#include "cpuidle/plugin.h"

#endif /* LIBCPUIDLE_H */
