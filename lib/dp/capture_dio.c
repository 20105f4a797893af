/* The O_DIRECT stream under a capture file. See capture_dio.h. */
#include "capture_dio.h"

#include <errno.h>
#include <fcntl.h>
#include <rte_lcore.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by the flusher, read by the writer between chunks. */
int rp_dio_error(const struct rp_dio *d)
{
	return __atomic_load_n(&d->err, __ATOMIC_RELAXED);
}

/* pwrite all of it; O_DIRECT refused (EINVAL: alignment, file system) drops
 * to the plain descriptor for good. */
static void dio_pwrite(struct rp_dio *d, bool direct, const uint8_t *p, size_t len, uint64_t off)
{
	while (len && !rp_dio_error(d)) {
		bool use_direct = direct && d->fd_direct >= 0;
		ssize_t w = pwrite(use_direct ? d->fd_direct : d->fd, p, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EINVAL && use_direct) {
			close(d->fd_direct);
			d->fd_direct = -1;
			continue;
		}
		if (w <= 0) {
			__atomic_store_n(&d->err, w < 0 ? errno : EIO, __ATOMIC_RELAXED);
			return;
		}
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
}

/* Writes submitted chunks in order; the oldest pending one is cur - pending. */
static void *dio_flusher(void *arg)
{
	struct rp_dio *d = arg;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		while (!d->quit && d->pending == 0)
			pthread_cond_wait(&d->cv, &d->mu);
		if (d->pending == 0)
			break;
		unsigned i = (d->cur + RP_DIO_NBUF - d->pending) % RP_DIO_NBUF;
		pthread_mutex_unlock(&d->mu);
		dio_pwrite(d, true, d->buf[i], d->job_len[i], d->job_off[i]);
		pthread_mutex_lock(&d->mu);
		d->pending--;
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* Hands the full chunk to the flusher and waits for a free one: a slow disk
 * slows the writer, the ring fills, and producers count drops. */
static void dio_submit(struct rp_dio *d)
{
	pthread_mutex_lock(&d->mu);
	d->job_len[d->cur] = d->fill;
	d->job_off[d->cur] = d->off;
	d->pending++;
	d->off += d->fill;
	d->cur = (d->cur + 1) % RP_DIO_NBUF;
	d->fill = 0;
	pthread_cond_broadcast(&d->cv);
	while (d->pending == RP_DIO_NBUF)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
}

static void dio_drain(struct rp_dio *d)
{
	pthread_mutex_lock(&d->mu);
	while (d->pending)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
}

/* Puts everything written so far in the file. The tail stays in its chunk:
 * the chunk's O_DIRECT write later covers the same bytes again. */
int rp_dio_sync(struct rp_dio *d)
{
	dio_drain(d);
	dio_pwrite(d, false, d->buf[d->cur], d->fill, d->off);
	return d->err ? -1 : 0;
}

static ssize_t dio_cookie_write(void *cookie, const char *p, size_t n)
{
	struct rp_dio *d = cookie;
	if (rp_dio_error(d)) {
		errno = rp_dio_error(d);
		return -1;
	}
	for (size_t done = 0; done < n;) {
		size_t k = n - done < RP_DIO_CHUNK - d->fill ? n - done : RP_DIO_CHUNK - d->fill;
		memcpy(d->buf[d->cur] + d->fill, p + done, k);
		d->fill += k;
		done += k;
		if (d->fill == RP_DIO_CHUNK)
			dio_submit(d);
	}
	return (ssize_t)n;
}

static int dio_cookie_close(void *cookie)
{
	struct rp_dio *d = cookie;
	int rc = rp_dio_sync(d);
	if (d->fd_direct >= 0)
		close(d->fd_direct);
	if (close(d->fd) != 0 && !d->err)
		d->err = errno;
	d->fd = d->fd_direct = -1;
	if (rc == 0 && !d->err)
		return 0;
	errno = d->err; /* the first failed write's: what fclose's caller reports */
	return -1;
}

/* A stdio stream over a new file; errno set when it cannot be created. */
FILE *rp_dio_fopen(struct rp_dio *d, const char *name)
{
	d->fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (d->fd < 0)
		return NULL;
	d->fd_direct = open(name, O_WRONLY | O_DIRECT | O_CLOEXEC);
	d->cur = 0;
	d->fill = 0;
	d->off = 0;
	d->err = 0;
	cookie_io_functions_t io = {.write = dio_cookie_write, .close = dio_cookie_close};
	FILE *f = fopencookie(d, "w", io);
	if (!f) {
		int e = errno;
		dio_cookie_close(d);
		errno = e;
	}
	return f;
}

int rp_dio_start(struct rp_dio *d)
{
	d->fd = d->fd_direct = -1;
	for (unsigned i = 0; i < RP_DIO_NBUF; i++)
		if (posix_memalign((void **)&d->buf[i], RP_DIO_ALIGN, RP_DIO_CHUNK) != 0)
			return ENOMEM;
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	int rc = rte_ctrl_thread_create(&d->flusher, "rp-capture-io", NULL, dio_flusher, d);
	d->flusher_up = rc == 0;
	return rc;
}

void rp_dio_stop(struct rp_dio *d)
{
	if (d->flusher_up) {
		pthread_mutex_lock(&d->mu);
		d->quit = true;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->flusher, NULL);
		pthread_mutex_destroy(&d->mu);
		pthread_cond_destroy(&d->cv);
		d->flusher_up = false;
	}
	for (unsigned i = 0; i < RP_DIO_NBUF; i++)
		free(d->buf[i]);
}
