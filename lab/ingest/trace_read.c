// SPDX-License-Identifier: MIT
/*
 * trace_read.c - a trace file as lines, or as bytes for the binary formats:
 * plain, xz (liblzma), gzip (zlib) or zstd (libzstd), told apart by their
 * magic bytes, decompressed as they are read, so memory stays the same
 * whatever the file's size.
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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec_libs.h"
#include "trace_internal.h"

/* Buffer size; fuzz/fuzz_trace_chunked.c builds with a tiny one. */
#ifndef TRACE_IO_SIZE
#define TRACE_IO_SIZE	(64 * 1024)
#endif
#define IN_SIZE		TRACE_IO_SIZE	/* <= OUT_SIZE: the first read goes to out */
#define OUT_SIZE	TRACE_IO_SIZE
/*
 * The first read: a page, enough to tell the format (TRACE_PEEK_MAX), so
 * that a file then mapped (perf.data) leaves the rest of the buffer
 * untouched; a page first touched costs ~2 us on a virtual machine, a
 * 64 KiB first read 15 of them and its copy.
 */
#define FIRST_READ	(IN_SIZE < 4096 ? IN_SIZE : 4096)
#define XZ_MEMLIMIT	(1ULL << 30)	/* xz -9e needs 65 MiB to decode */

static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
static const unsigned char gz_magic[] = { 0x1f, 0x8b };
static const unsigned char zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };

_Static_assert(IN_SIZE >= TRACE_MAGIC_MAX, "the magic fits the first read");

static int say(char *msg, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* @err, with @msg (160 bytes) saying why */
static int say(char *msg, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, 160, fmt, ap);
	va_end(ap);
	return err;
}

#define src_fail(s, err, ...)	say((s)->msg, err, __VA_ARGS__)
#define fill_fail(f, err, ...)	say((f)->msg, err, __VA_ARGS__)

/* read(2) up to @len bytes into @buf: the count, 0 at end of file, or -errno */
static ssize_t src_read(struct trace_src *s, char *msg, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(s->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return say(msg, -errno, "read error: %s", strerror(errno));
	if (n == 0)
		s->in_eof = true;
	s->bytes_in += (uint64_t)n;
	return n;
}

static int fill_plain(struct trace_src *s, struct trace_fill *f)
{
	ssize_t n;

	if (s->in_eof) {
		f->end = true;
		return 0;
	}
	n = src_read(s, f->msg, f->buf, OUT_SIZE);
	if (n < 0)
		return (int)n;
	if (!n)
		f->end = true;
	f->len = (size_t)n;
	return 0;
}

static int fill_xz(struct trace_src *s, struct trace_fill *f)
{
	lzma_stream *z = &s->xz;
	lzma_ret ret;
	ssize_t n;

	z->next_out = (uint8_t *)f->buf;
	z->avail_out = OUT_SIZE;
	while (z->avail_out == OUT_SIZE && !f->end) {
		if (!z->avail_in && !s->in_eof) {
			n = src_read(s, f->msg, s->in, IN_SIZE);
			if (n < 0)
				return (int)n;
			z->next_in = s->in;
			z->avail_in = (size_t)n;
		}
		/* LZMA_FINISH lets it tell the end of the last stream from a cut */
		ret = s->xzl->lzma_code(z, s->in_eof ? LZMA_FINISH : LZMA_RUN);
		switch (ret) {
		case LZMA_OK:
			break;
		case LZMA_STREAM_END:
			f->end = true;
			break;
		case LZMA_BUF_ERROR:
			/* no progress possible: the input ended inside a stream */
			return fill_fail(f, -EBADMSG, "truncated xz stream");
		case LZMA_MEM_ERROR:
			return fill_fail(f, -ENOMEM, "out of memory decoding xz");
		case LZMA_MEMLIMIT_ERROR:
			return fill_fail(f, -ENOMEM, "xz stream needs over %llu MiB to decode",
					 XZ_MEMLIMIT >> 20);
		case LZMA_FORMAT_ERROR:
			return fill_fail(f, -EBADMSG, "corrupt xz stream (bad header)");
		case LZMA_OPTIONS_ERROR:
			return fill_fail(f, -EBADMSG, "corrupt xz stream (unsupported options)");
		case LZMA_DATA_ERROR:
			return fill_fail(f, -EBADMSG, "corrupt xz stream (data error)");
		default:
			return fill_fail(f, -EBADMSG, "corrupt xz stream (liblzma error %d)",
					 (int)ret);
		}
	}
	f->len = OUT_SIZE - z->avail_out;
	return 0;
}

static int fill_gz(struct trace_src *s, struct trace_fill *f)
{
	z_stream *z = &s->gz;
	ssize_t n;
	int ret;

	z->next_out = (Bytef *)f->buf;
	z->avail_out = OUT_SIZE;
	while (z->avail_out == OUT_SIZE && !f->end) {
		if (!z->avail_in) {
			n = s->in_eof ? 0 : src_read(s, f->msg, s->in, IN_SIZE);
			if (n < 0)
				return (int)n;
			if (!n)
				return fill_fail(f, -EBADMSG, "truncated gzip stream");
			z->next_in = s->in;
			z->avail_in = (uInt)n;
		}
		ret = s->gzl->inflate(z, Z_NO_FLUSH);
		if (ret == Z_OK)
			continue;
		if (ret == Z_STREAM_END) {
			/* a member ended; another may follow, as gzip -dc allows */
			if (!z->avail_in && !s->in_eof) {
				n = src_read(s, f->msg, s->in, IN_SIZE);
				if (n < 0)
					return (int)n;
				z->next_in = s->in;
				z->avail_in = (uInt)n;
			}
			if (!z->avail_in)
				f->end = true;
			else if (s->gzl->inflateReset(z) != Z_OK)
				return fill_fail(f, -EBADMSG, "corrupt gzip stream");
			continue;
		}
		if (ret == Z_MEM_ERROR)
			return fill_fail(f, -ENOMEM, "out of memory decoding gzip");
		return fill_fail(f, -EBADMSG, "corrupt gzip stream (%s)",
				 z->msg ? z->msg : "zlib error");
	}
	f->len = OUT_SIZE - z->avail_out;
	return 0;
}

static int fill_zstd(struct trace_src *s, struct trace_fill *f)
{
	ZSTD_outBuffer out = { .dst = f->buf, .size = OUT_SIZE, .pos = 0 };
	ZSTD_inBuffer *in = &s->zs_in;
	const struct zstd_lib *zs = s->zsl;
	size_t ret, before;
	ssize_t n;

	while (out.pos < out.size && !f->end) {
		if (in->pos == in->size && !s->in_eof) {
			n = src_read(s, f->msg, s->in, IN_SIZE);
			if (n < 0)
				return (int)n;
			in->src = s->in;
			in->size = (size_t)n;
			in->pos = 0;
			continue;
		}
		if (in->pos == in->size && !s->zs_frame_open) {
			f->end = true;	/* every frame ended with the file */
			break;
		}
		before = out.pos;
		ret = zs->ZSTD_decompressStream(s->zs, &out, in);
		if (zs->ZSTD_isError(ret))
			return fill_fail(f, zs->ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation ?
					 -ENOMEM : -EBADMSG, "corrupt zstd stream (%s)",
					 zs->ZSTD_getErrorName(ret));
		s->zs_frame_open = ret != 0;
		if (s->zs_frame_open && in->pos == in->size && s->in_eof && out.pos == before)
			return fill_fail(f, -EBADMSG, "truncated zstd stream");
	}
	f->len = out.pos;
	return 0;
}

/* file bytes consumed so far: the decoder's input, or all that was read */
static uint64_t consumed(const struct trace_src *s)
{
	switch (s->kind) {
	case SRC_XZ:
		return s->bytes_in - s->xz.avail_in;
	case SRC_GZ:
		return s->bytes_in - s->gz.avail_in;
	case SRC_ZSTD:
		return s->bytes_in - (s->zs_in.size - s->zs_in.pos);
	default:
		return s->bytes_in;
	}
}

/*
 * Fill f->buf with the next decompressed bytes (none once the source said
 * its end), and find its first NUL: one pass per fill, not one per line.
 */
static int fill_any(struct trace_src *s, struct trace_fill *f)
{
	const char *z;
	int err = 0;

	f->len = 0;
	f->end = s->src_end;
	f->msg[0] = '\0';
	if (!f->end) {
		switch (s->kind) {
		case SRC_XZ:
			err = fill_xz(s, f);
			break;
		case SRC_GZ:
			err = fill_gz(s, f);
			break;
		case SRC_ZSTD:
			err = fill_zstd(s, f);
			break;
		default:
			err = fill_plain(s, f);
			break;
		}
	}
	s->src_end = f->end;
	f->consumed = consumed(s);
	if (err)
		return err;
	z = memchr(f->buf, '\0', f->len);
	f->nul = z ? (size_t)(z - f->buf) : f->len;
	return 0;
}

static int start_decoder(struct trace_src *s, size_t have);

/*
 * A socket cannot be opened by its /proc link (ENXIO): /dev/stdin,
 * /dev/fd/N or /proc/self/fd/N naming one (a command run by socket
 * activation, or fed by a program's socketpair) is read through a
 * duplicate of that descriptor instead.  Return: the new descriptor, or -1
 * with errno ENXIO.
 */
static int open_socket_fd(const char *path)
{
	const char *num = NULL;
	char *end;
	long fd;
	int dup_fd;

	if (!strcmp(path, "/dev/stdin"))
		num = "0";
	else if (!strncmp(path, "/dev/fd/", 8))
		num = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		num = path + 14;
	if (!num || !*num)
		goto fail;
	errno = 0;
	fd = strtol(num, &end, 10);
	if (errno || *end || fd < 0 || fd > INT_MAX)
		goto fail;
	dup_fd = fcntl((int)fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd >= 0)
		return dup_fd;
fail:
	errno = ENXIO;
	return -1;
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
		if (s->fd < 0 && errno == ENXIO)
			s->fd = open_socket_fd(path);	/* /dev/stdin on a socket */
		if (s->fd < 0)
			return src_fail(s, -errno, "%s", strerror(errno));
		s->close_fd = true;
	}
	if (fstat(s->fd, &st) < 0)
		return src_fail(s, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return src_fail(s, -EISDIR, "%s", strerror(EISDIR));

	/*
	 * The first bytes go to s->out, where a plain file's stay: only a
	 * compressed one needs s->in, and its pages, touched.
	 */
	s->out = malloc(OUT_SIZE);
	if (!s->out)
		return src_fail(s, -ENOMEM, "out of memory");

	/* enough bytes to tell a binary file, or the whole (short) file */
	while (have < (IN_SIZE < TRACE_PEEK_MAX ? IN_SIZE : TRACE_PEEK_MAX) && !s->in_eof) {
		n = src_read(s, s->msg, s->out + have, FIRST_READ - have);
		if (n < 0)
			return (int)n;
		have += (size_t)n;
	}
	if (!have)
		return src_fail(s, -EINVAL, "empty file");

	if (have >= sizeof(xz_magic) && !memcmp(s->out, xz_magic, sizeof(xz_magic)))
		s->kind = SRC_XZ;
	else if (have >= sizeof(gz_magic) && !memcmp(s->out, gz_magic, sizeof(gz_magic)))
		s->kind = SRC_GZ;
	else if (have >= sizeof(zstd_magic) && !memcmp(s->out, zstd_magic, sizeof(zstd_magic)))
		s->kind = SRC_ZSTD;
	else
		s->kind = SRC_PLAIN;
	if (s->kind == SRC_PLAIN) {
		const char *z = memchr(s->out, '\0', have);

		s->out_len = have;
		s->out_nul = z ? (size_t)(z - s->out) : have;
	} else {
		s->in = malloc(IN_SIZE);
		if (!s->in)
			return src_fail(s, -ENOMEM, "out of memory");
		memcpy(s->in, s->out, have);	/* have <= IN_SIZE */
	}
	err = start_decoder(s, have);
	if (err)
		return err;
	s->consumed = consumed(s);
	return 0;
}

/* the decoder of a compressed file, its first @have bytes in s->in */
static int start_decoder(struct trace_src *s, size_t have)
{
	if (s->kind == SRC_XZ) {
		if (!s->xzl && !(s->xzl = xz_lib(s->msg, 160)))
			return -ELIBACC;
		if (!s->xz_init) {
			if (s->xzl->lzma_stream_decoder(&s->xz, XZ_MEMLIMIT,
							LZMA_CONCATENATED) != LZMA_OK)
				return src_fail(s, -ENOMEM, "cannot start the xz decoder");
			s->xz_init = true;
		}
		s->xz.next_in = s->in;
		s->xz.avail_in = have;
	} else if (s->kind == SRC_GZ) {
		if (!s->gzl && !(s->gzl = gz_lib(s->msg, 160)))
			return -ELIBACC;
		if (!s->gz_init && gz_inflate_init(s->gzl, &s->gz, 15 + 16) != Z_OK)	/* gzip only */
			return src_fail(s, -ENOMEM, "cannot start the gzip decoder");
		if (s->gz_init && s->gzl->inflateReset(&s->gz) != Z_OK)
			return src_fail(s, -ENOMEM, "cannot restart the gzip decoder");
		s->gz_init = true;
		s->gz.next_in = s->in;
		s->gz.avail_in = (uInt)have;
	} else if (s->kind == SRC_ZSTD) {
		if (!s->zsl && !(s->zsl = zstd_lib(s->msg, 160)))
			return -ELIBACC;
		if (!s->zs)
			s->zs = s->zsl->ZSTD_createDStream();
		if (!s->zs || s->zsl->ZSTD_isError(s->zsl->ZSTD_initDStream(s->zs)))
			return src_fail(s, -ENOMEM, "cannot start the zstd decoder");
		s->zs_in.src = s->in;
		s->zs_in.size = have;
		s->zs_in.pos = 0;
		s->zs_frame_open = false;
	}
	return 0;
}

/* the next block of decompressed bytes into s->out; none at the end */
static int fill_out(struct trace_src *s)
{
	int err;

	if (s->map)
		return trace_map_next(s);
	s->out_base += s->out_len;
	s->out_pos = 0;
	s->out_len = 0;
	s->out_nul = 0;
	if (s->out_end)
		return 0;
	s->fill.buf = s->out;
	err = fill_any(s, &s->fill);
	s->consumed = s->fill.consumed;
	/* a damaged compressed file: where, in its own bytes (trailing garbage too) */
	if (err == -EBADMSG && s->kind != SRC_PLAIN)
		return src_fail(s, err, "%s at byte %llu of the compressed file", s->fill.msg,
				(unsigned long long)consumed(s));
	if (err)
		return src_fail(s, err, "%s", s->fill.msg);
	s->out_len = s->fill.len;
	s->out_nul = s->fill.nul;
	s->out_end = s->fill.end;
	return 0;
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

/**
 * trace_src_line_slow() - trace_src_line(), for a line that straddles fills,
 * is bad, or is the last
 */
int trace_src_line_slow(struct trace_src *s, char **line, size_t *len)
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
		/* the line's bytes are out[out_pos, out_pos + n) */
		if (s->out_nul >= s->out_pos && s->out_nul - s->out_pos < n)
			return src_fail(s, -EINVAL, "NUL byte: not a text trace");
		if (s->line_len + n > TRACE_LINE_MAX)
			return src_fail(s, -EINVAL, "line longer than %d bytes", TRACE_LINE_MAX);
		if (nl && !s->line_len) {
			*nl = '\0';
			s->out_pos += n + 1;
			trace_src_done(s, start, n, line, len);
			return 1;
		}
		if (n) {
			err = line_append(s, start, n);
			if (err)
				return err;
		}
		if (nl) {
			s->out_pos += n + 1;
			trace_src_done(s, s->line, s->line_len, line, len);
			return 1;
		}
		err = fill_out(s);
		if (err)
			return err;
		if (!s->out_len) {
			if (!s->line_len)
				return 0;
			/* the last line has no '\n' */
			s->unterminated = true;
			trace_src_done(s, s->line, s->line_len, line, len);
			return 1;
		}
	}
}

uint64_t trace_src_consumed(const struct trace_src *s)
{
	if (s->kind == SRC_PLAIN)
		return s->consumed - (s->out_len - s->out_pos);
	return s->consumed;
}

/**
 * trace_src_peek() - the file's first @n bytes (at most TRACE_PEEK_MAX), not
 * taken, to tell its format
 * @p: set to them; valid until the source is next used
 *
 * Return: how many there are: @n, or fewer in a shorter file or a first
 * fill shorter than @n (never fewer than TRACE_MAGIC_MAX then), or a
 * negative errno.
 */
ssize_t trace_src_peek(struct trace_src *s, size_t n, const unsigned char **p)
{
	int err;

	if (n > TRACE_PEEK_MAX || trace_src_offset(s))
		return src_fail(s, -EINVAL, "internal error: peek of %zu bytes at %llu", n,
				(unsigned long long)trace_src_offset(s));
	/* a plain file's first read holds them, a compressed one's first fill */
	if (!s->out_len && !s->out_end) {
		err = fill_out(s);
		if (err)
			return err;
	}
	*p = (const unsigned char *)s->out;
	return (ssize_t)(s->out_len < n ? s->out_len : n);
}

/**
 * trace_src_bytes() - the next @n bytes, taken
 * @p: set to them, contiguous: in place if they lie in one fill, else
 *	gathered (memory grows to the largest @n asked for)
 *
 * Return: how many there are (@n, or fewer at the end of the file), or a
 * negative errno with s->msg saying why.
 */
ssize_t trace_src_bytes(struct trace_src *s, size_t n, const unsigned char **p)
{
	size_t avail = s->out_len - s->out_pos, take;
	char *nl;
	int err;

	if (avail >= n) {
		*p = (const unsigned char *)s->out + s->out_pos;
		s->out_pos += n;
		return (ssize_t)n;
	}
	if (n > s->line_cap) {
		nl = realloc(s->line, n);
		if (!nl)
			return src_fail(s, -ENOMEM, "out of memory");
		s->line = nl;
		s->line_cap = n;
	}
	s->line_len = 0;
	while (s->line_len < n) {
		avail = s->out_len - s->out_pos;
		if (!avail) {
			err = fill_out(s);
			if (err)
				return err;
			if (!s->out_len)
				break;
			continue;
		}
		take = avail < n - s->line_len ? avail : n - s->line_len;
		memcpy(s->line + s->line_len, s->out + s->out_pos, take);
		s->line_len += take;
		s->out_pos += take;
	}
	*p = (const unsigned char *)s->line;
	return (ssize_t)s->line_len;
}

/**
 * trace_src_skip() - skip @n bytes: a plain seekable file seeks, others read
 *
 * Return: how many were skipped (@n, or fewer at the end), or a negative errno.
 */
int64_t trace_src_skip(struct trace_src *s, uint64_t n)
{
	uint64_t done = 0, avail, here, size;
	struct stat st;
	off_t off;
	int err;

	if (s->map)
		return trace_map_skip(s, n);
	while (done < n) {
		avail = s->out_len - s->out_pos;
		if (avail) {
			here = avail < n - done ? avail : n - done;
			s->out_pos += here;
			done += here;
			continue;
		}
		if (s->kind == SRC_PLAIN && !s->in_eof && trace_src_seekable(s) &&
		    !fstat(s->fd, &st)) {
			/* jump, but never past the end: a short skip says where it is */
			size = (uint64_t)st.st_size;
			here = n - done;
			if (s->bytes_in + here > size)
				here = size > s->bytes_in ? size - s->bytes_in : 0;
			off = lseek(s->fd, (off_t)here, SEEK_CUR);
			if (off < 0)
				return src_fail(s, -errno, "seek error: %s", strerror(errno));
			s->bytes_in += here;
			s->out_base += here;
			s->consumed = s->bytes_in;
			done += here;
			if (done == n)
				break;
		}
		err = fill_out(s);
		if (err)
			return err;
		if (!s->out_len)
			break;
	}
	return (int64_t)done;
}

/* can the file be read again from its start? (a regular file, not a pipe) */
bool trace_src_seekable(const struct trace_src *s)
{
	struct stat st;

	return s->fd >= 0 && !fstat(s->fd, &st) && S_ISREG(st.st_mode) &&
	       lseek(s->fd, 0, SEEK_CUR) >= 0;
}

/**
 * trace_src_rewind() - read the file again from its first byte
 *
 * Return: 0, -ESPIPE if it cannot be (a pipe), or another negative errno.
 */
int trace_src_rewind(struct trace_src *s)
{
	ssize_t n;

	if (!trace_src_seekable(s))
		return src_fail(s, -ESPIPE, "cannot read a pipe twice");
	if (s->map) {
		s->lineno = 0;
		return trace_map_rewind(s);
	}
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return src_fail(s, -errno, "seek error: %s", strerror(errno));
	s->in_eof = s->src_end = s->out_end = false;
	s->bytes_in = 0;
	s->out_base = 0;
	s->out_pos = s->out_len = s->out_nul = 0;
	s->lineno = 0;
	s->unterminated = false;
	if (s->kind == SRC_PLAIN) {
		s->consumed = 0;
		return 0;
	}
	n = src_read(s, s->msg, s->in, IN_SIZE);
	if (n < 0)
		return (int)n;
	if (s->kind == SRC_XZ && s->xz_init) {
		s->xzl->lzma_end(&s->xz);
		s->xz_init = false;
	}
	return start_decoder(s, (size_t)n);
}

void trace_src_close(struct trace_src *s)
{
	if (s->map)
		trace_map_close(s);
	if (s->xz_init)
		s->xzl->lzma_end(&s->xz);
	if (s->gz_init)
		s->gzl->inflateEnd(&s->gz);
	if (s->zs)
		s->zsl->ZSTD_freeDStream(s->zs);
	if (s->close_fd && s->fd >= 0)
		close(s->fd);
	free(s->in);
	free(s->out);
	free(s->line);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
