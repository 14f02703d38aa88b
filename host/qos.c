// SPDX-License-Identifier: MIT
/* qos.c - CPU latency requests through /dev/cpu_dma_latency (host_qos.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "host_qos.h"

const char *host_qos_device(void)
{
	const char *dev = getenv(HOST_QOS_DEVICE_ENV);

	return dev && *dev ? dev : HOST_QOS_DEVICE;
}

int host_qos_hold(int32_t usec)
{
	ssize_t n;
	int fd, ret;

	if (usec < 0 || usec > HOST_QOS_NO_CONSTRAINT)
		return -EINVAL;
	fd = open(host_qos_device(), O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* exactly 4 bytes: the kernel takes them as a binary s32 */
	n = write(fd, &usec, sizeof(usec));
	if (n != (ssize_t)sizeof(usec)) {
		ret = n < 0 ? -errno : -EIO;
		close(fd);
		return ret;
	}
	return fd;
}

void host_qos_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

int host_qos_read(int32_t *usec)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(host_qos_device(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, usec, sizeof(*usec));
	if (n < 0)
		ret = -errno;
	else if (n != (ssize_t)sizeof(*usec))
		ret = -EIO;
	close(fd);
	return ret;
}
