/* The O_DIRECT stream under a capture file (capture.h, the writer's last
 * stage): a stdio stream whose bytes fill 4 MiB aligned chunks that a
 * flusher thread writes with O_DIRECT, so the writer thread never copies
 * into the page cache nor waits for the disk. Only the writer thread uses a
 * stream; one rp_dio serves its files one after another. */
#ifndef RP_DP_CAPTURE_DIO_H
#define RP_DP_CAPTURE_DIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RP_DIO_ALIGN 4096u      /* O_DIRECT: address, length and offset */
#define RP_DIO_CHUNK (4u << 20) /* one pwrite per 4 MiB */
#define RP_DIO_NBUF 4           /* chunks: one filling, the rest in flight */

/* A tail shorter than a chunk goes through a plain descriptor (idle flushes,
 * close); where O_DIRECT is refused, the flusher uses the plain descriptor
 * for good. */
struct rp_dio {
	int fd;        /* plain */
	int fd_direct; /* O_DIRECT, or -1 */
	uint8_t *buf[RP_DIO_NBUF];
	unsigned cur;  /* the chunk being filled */
	size_t fill;
	uint64_t off; /* file offset of buf[cur][0] */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned pending; /* chunks submitted, not yet written: cur-pending .. cur-1 */
	size_t job_len[RP_DIO_NBUF];
	uint64_t job_off[RP_DIO_NBUF];
	bool quit;
	int err; /* the first errno of a failed write */
	pthread_t flusher;
	bool flusher_up;
};

/* Allocates the chunks and starts the flusher (an rte_ctrl_thread: the EAL
 * must be up). 0, or an errno. */
int rp_dio_start(struct rp_dio *d);
/* Stops the flusher and frees the chunks; after the last stream closed. */
void rp_dio_stop(struct rp_dio *d);
/* A stdio stream over a new (truncated) file; NULL with errno set when it
 * cannot be created. fclose writes the tail and closes the file. */
FILE *rp_dio_fopen(struct rp_dio *d, const char *name);
/* Puts everything written so far in the file (idle flushes, for live
 * readers). 0, or -1 after a failed write. */
int rp_dio_sync(struct rp_dio *d);
/* The first errno of a failed write of the current file, else 0. */
int rp_dio_error(const struct rp_dio *d);

#endif
