// SPDX-License-Identifier: MIT
/*
 * trace_read.c - a trace file as lines: plain, xz (liblzma) or gzip (zlib),
 * told apart by their magic bytes, decompressed as they are read, so memory
 * stays the same whatever the file's size.
 *
 * Decompressed bytes land in one buffer; a line that lies wholly inside it
 * is handed out in place (its '\n' replaced by a NUL), one that straddles
 * two fills is gathered in a second buffer that grows up to TRACE_LINE_MAX.
 * A longer line is an error, never silently cut, and so is a NUL byte:
 * text traces have none, and /dev/zero or a binary file fails at once
 * instead of being read to the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_internal.h"

#define IN_SIZE		(128 * 1024)
#define OUT_SIZE	(256 * 1024)
#define XZ_MEMLIMIT	(1ULL << 30)	/* xz -9e needs 65 MiB to decode */

static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
static const unsigned char gz_magic[] = { 0x1f, 0x8b };

static int src_fail(struct trace_src *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int src_fail(struct trace_src *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* read(2) up to @len bytes into @buf: the count, 0 at end of file, or -errno */
static ssize_t src_read(struct trace_src *s, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(s->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return src_fail(s, -errno, "read error: %s", strerror(errno));
	if (n == 0)
		s->in_eof = true;
	s->bytes_in += (uint64_t)n;
	return n;
}

int trace_src_open(struct trace_src *s, const char *path)
{
	struct stat st;
	size_t have = 0;
	ssize_t n;
	int err;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (!strcmp(path, "-")) {
		s->fd = STDIN_FILENO;
	} else {
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0)
			return src_fail(s, -errno, "%s", strerror(errno));
		s->close_fd = true;
	}
	if (fstat(s->fd, &st) < 0)
		return src_fail(s, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return src_fail(s, -EISDIR, "%s", strerror(EISDIR));

	s->in = malloc(IN_SIZE);
	s->out = malloc(OUT_SIZE);
	if (!s->in || !s->out)
		return src_fail(s, -ENOMEM, "out of memory");

	/* enough bytes for the longest magic, or the whole (short) file */
	while (have < sizeof(xz_magic) && !s->in_eof) {
		n = src_read(s, s->in + have, IN_SIZE - have);
		if (n < 0)
			return (int)n;
		have += (size_t)n;
	}
	if (!have)
		return src_fail(s, -EINVAL, "empty file");

	if (have >= sizeof(xz_magic) && !memcmp(s->in, xz_magic, sizeof(xz_magic))) {
		s->kind = SRC_XZ;
		if (lzma_stream_decoder(&s->xz, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
			return src_fail(s, -ENOMEM, "cannot start the xz decoder");
		s->xz_init = true;
		s->xz.next_in = s->in;
		s->xz.avail_in = have;
	} else if (have >= sizeof(gz_magic) && !memcmp(s->in, gz_magic, sizeof(gz_magic))) {
		s->kind = SRC_GZ;
		err = inflateInit2(&s->gz, 15 + 16);	/* gzip wrapper only */
		if (err != Z_OK)
			return src_fail(s, -ENOMEM, "cannot start the gzip decoder");
		s->gz_init = true;
		s->gz.next_in = s->in;
		s->gz.avail_in = (uInt)have;
	} else {
		s->kind = SRC_PLAIN;
		memcpy(s->out, s->in, have);	/* IN_SIZE <= OUT_SIZE */
		s->out_len = have;
	}
	return 0;
}

static int fill_plain(struct trace_src *s)
{
	ssize_t n;

	if (s->in_eof) {
		s->out_end = true;
		return 0;
	}
	n = src_read(s, s->out, OUT_SIZE);
	if (n < 0)
		return (int)n;
	if (!n)
		s->out_end = true;
	s->out_len = (size_t)n;
	return 0;
}

static int fill_xz(struct trace_src *s)
{
	lzma_stream *z = &s->xz;
	lzma_ret ret;
	ssize_t n;

	z->next_out = (uint8_t *)s->out;
	z->avail_out = OUT_SIZE;
	while (z->avail_out == OUT_SIZE && !s->out_end) {
		if (!z->avail_in && !s->in_eof) {
			n = src_read(s, s->in, IN_SIZE);
			if (n < 0)
				return (int)n;
			z->next_in = s->in;
			z->avail_in = (size_t)n;
		}
		/* LZMA_FINISH lets it tell the end of the last stream from a cut */
		ret = lzma_code(z, s->in_eof ? LZMA_FINISH : LZMA_RUN);
		switch (ret) {
		case LZMA_OK:
			break;
		case LZMA_STREAM_END:
			s->out_end = true;
			break;
		case LZMA_BUF_ERROR:
			/* no progress possible: the input ended inside a stream */
			return src_fail(s, -EBADMSG, "truncated xz stream");
		case LZMA_MEM_ERROR:
			return src_fail(s, -ENOMEM, "out of memory decoding xz");
		case LZMA_MEMLIMIT_ERROR:
			return src_fail(s, -ENOMEM, "xz stream needs over %llu MiB to decode",
					XZ_MEMLIMIT >> 20);
		case LZMA_FORMAT_ERROR:
			return src_fail(s, -EBADMSG, "corrupt xz stream (bad header)");
		case LZMA_OPTIONS_ERROR:
			return src_fail(s, -EBADMSG, "corrupt xz stream (unsupported options)");
		case LZMA_DATA_ERROR:
			return src_fail(s, -EBADMSG, "corrupt xz stream (data error)");
		default:
			return src_fail(s, -EBADMSG, "corrupt xz stream (liblzma error %d)",
					(int)ret);
		}
	}
	s->out_len = OUT_SIZE - z->avail_out;
	return 0;
}

static int fill_gz(struct trace_src *s)
{
	z_stream *z = &s->gz;
	ssize_t n;
	int ret;

	z->next_out = (Bytef *)s->out;
	z->avail_out = OUT_SIZE;
	while (z->avail_out == OUT_SIZE && !s->out_end) {
		if (!z->avail_in) {
			n = s->in_eof ? 0 : src_read(s, s->in, IN_SIZE);
			if (n < 0)
				return (int)n;
			if (!n)
				return src_fail(s, -EBADMSG, "truncated gzip stream");
			z->next_in = s->in;
			z->avail_in = (uInt)n;
		}
		ret = inflate(z, Z_NO_FLUSH);
		if (ret == Z_OK)
			continue;
		if (ret == Z_STREAM_END) {
			/* a member ended; another may follow, as gzip -dc allows */
			if (!z->avail_in && !s->in_eof) {
				n = src_read(s, s->in, IN_SIZE);
				if (n < 0)
					return (int)n;
				z->next_in = s->in;
				z->avail_in = (uInt)n;
			}
			if (!z->avail_in)
				s->out_end = true;
			else if (inflateReset(z) != Z_OK)
				return src_fail(s, -EBADMSG, "corrupt gzip stream");
			continue;
		}
		if (ret == Z_MEM_ERROR)
			return src_fail(s, -ENOMEM, "out of memory decoding gzip");
		return src_fail(s, -EBADMSG, "corrupt gzip stream (%s)",
				z->msg ? z->msg : "zlib error");
	}
	s->out_len = OUT_SIZE - z->avail_out;
	return 0;
}

/* the next block of decompressed bytes into s->out; none at the end */
static int fill_out(struct trace_src *s)
{
	s->out_pos = 0;
	s->out_len = 0;
	if (s->out_end)
		return 0;
	switch (s->kind) {
	case SRC_XZ:
		return fill_xz(s);
	case SRC_GZ:
		return fill_gz(s);
	default:
		return fill_plain(s);
	}
}

static int line_append(struct trace_src *s, const char *p, size_t n)
{
	size_t cap;
	char *nl;

	if (s->line_len + n + 1 > s->line_cap) {
		cap = s->line_cap ? s->line_cap : 256;
		while (cap < s->line_len + n + 1)
			cap *= 2;
		if (cap > TRACE_LINE_MAX + 1)
			cap = TRACE_LINE_MAX + 1;
		nl = realloc(s->line, cap);
		if (!nl)
			return src_fail(s, -ENOMEM, "out of memory");
		s->line = nl;
		s->line_cap = cap;
	}
	memcpy(s->line + s->line_len, p, n);
	s->line_len += n;
	s->line[s->line_len] = '\0';
	return 0;
}

static void line_done(struct trace_src *s, char *line, size_t len, char **out, size_t *outlen)
{
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	s->lineno++;
	*out = line;
	*outlen = len;
}

/**
 * trace_src_line() - the next line, NUL-terminated, without its '\n'
 * @s: the source
 * @line: set to the line; valid until the next call
 * @len: set to its length
 *
 * Return: 1 with a line, 0 at the end of the file, or a negative errno
 * with s->msg saying why (the line it concerns is s->lineno + 1).
 */
int trace_src_line(struct trace_src *s, char **line, size_t *len)
{
	char *start, *nl;
	size_t avail, n;
	int err;

	s->line_len = 0;
	for (;;) {
		start = s->out + s->out_pos;
		avail = s->out_len - s->out_pos;
		nl = avail ? memchr(start, '\n', avail) : NULL;
		n = nl ? (size_t)(nl - start) : avail;
		if (n && memchr(start, '\0', n))
			return src_fail(s, -EINVAL, "NUL byte: not a text trace");
		if (s->line_len + n > TRACE_LINE_MAX)
			return src_fail(s, -EINVAL, "line longer than %d bytes", TRACE_LINE_MAX);
		if (nl && !s->line_len) {
			/* the common case: the whole line is in the buffer */
			*nl = '\0';
			s->out_pos += n + 1;
			line_done(s, start, n, line, len);
			return 1;
		}
		if (n) {
			err = line_append(s, start, n);
			if (err)
				return err;
		}
		if (nl) {
			s->out_pos += n + 1;
			line_done(s, s->line, s->line_len, line, len);
			return 1;
		}
		err = fill_out(s);
		if (err)
			return err;
		if (!s->out_len) {
			if (!s->line_len)
				return 0;
			/* the last line has no '\n' */
			line_done(s, s->line, s->line_len, line, len);
			return 1;
		}
	}
}

uint64_t trace_src_consumed(const struct trace_src *s)
{
	switch (s->kind) {
	case SRC_XZ:
		return s->bytes_in - s->xz.avail_in;
	case SRC_GZ:
		return s->bytes_in - s->gz.avail_in;
	default:
		return s->bytes_in - (s->out_len - s->out_pos);
	}
}

void trace_src_close(struct trace_src *s)
{
	if (s->xz_init)
		lzma_end(&s->xz);
	if (s->gz_init)
		inflateEnd(&s->gz);
	if (s->close_fd && s->fd >= 0)
		close(s->fd);
	free(s->in);
	free(s->out);
	free(s->line);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
