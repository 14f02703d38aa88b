/* SPDX-License-Identifier: MIT */
/*
 * host_qos.h - the kernel's CPU latency QoS through /dev/cpu_dma_latency
 * (kernel/power/qos.c): a request lives exactly as long as the file stays
 * open; a 4-byte write sets it (binary s32, us); a read returns the
 * aggregate the kernel applies (the minimum over every request, or
 * HOST_QOS_NO_CONSTRAINT).
 *
 * The device can be replaced for tests by the environment variable
 * CPUIDLE_QOS_DEVICE.
 */
#ifndef HOST_QOS_H
#define HOST_QOS_H

#include <stdint.h>

#define HOST_QOS_DEVICE_ENV	"CPUIDLE_QOS_DEVICE"
#define HOST_QOS_DEVICE		"/dev/cpu_dma_latency"
#define HOST_QOS_NO_CONSTRAINT	2000000000	/* PM_QOS_CPU_LATENCY_DEFAULT_VALUE, us */

/** host_qos_device() - $CPUIDLE_QOS_DEVICE if set, else /dev/cpu_dma_latency */
const char *host_qos_device(void);

/**
 * host_qos_hold() - add a CPU latency request
 * @usec: the latency bound, 0 to HOST_QOS_NO_CONSTRAINT us
 *
 * Opens the device and writes @usec as a binary s32.  The request holds
 * until host_qos_release() (or the process ends).
 *
 * Return: the open file descriptor; -EINVAL for a @usec out of range; the
 * negative errno of open or write (-EACCES without root, -ENOENT on a
 * kernel without the device).
 */
int host_qos_hold(int32_t usec);

/** host_qos_release() - drop a request made by host_qos_hold() */
void host_qos_release(int fd);

/**
 * host_qos_read() - the aggregate CPU latency limit the kernel applies
 * @usec: out
 *
 * Return: 0; the negative errno of open or read; -EIO on a short read.
 */
int host_qos_read(int32_t *usec);

#endif /* HOST_QOS_H */
