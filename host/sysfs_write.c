// SPDX-License-Identifier: MIT
/*
 * sysfs_write.c - the writes an operator makes to the host's cpuidle
 * (host_sysfs.h): a state's disable bit, the current governor.  Every
 * write is read back: the kernel may take a write and ignore it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "host_sysfs.h"

int host_write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int host_state_set_disable(unsigned int cpu, int index, bool disable)
{
	char path[4096];
	uint64_t v;
	int ret;

	ret = host_sysfs_path(path, sizeof(path), "devices/system/cpu/cpu%u/cpuidle/state%d/disable",
			      cpu, index);
	if (ret)
		return ret;
	if (access(path, F_OK))
		return -ENOENT;
	ret = host_write_text(path, disable ? "1\n" : "0\n");
	if (ret)
		return ret;
	ret = host_read_u64(path, &v);
	if (ret)
		return ret;
	return (v != 0) == disable ? 0 : -EIO;
}

int host_set_governor(const char *name)
{
	char path[4096], now[HOST_STR_LEN];
	int ret;

	ret = host_sysfs_path(path, sizeof(path), "devices/system/cpu/cpuidle/current_governor");
	if (ret)
		return ret;
	if (access(path, F_OK))
		return -EOPNOTSUPP;
	ret = host_write_text(path, name);
	if (ret)
		return ret;
	ret = host_read_line(path, now, sizeof(now));
	if (ret)
		return ret;
	return strcmp(now, name) ? -EIO : 0;
}
