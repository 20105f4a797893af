#include "verbs/oob.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

void rp_oob_rec_encode(const struct rp_oob_rec *r, char out[RP_OOB_REC_LEN + 1])
{
	char gid[33];
	for (int i = 0; i < 16; i++)
		snprintf(gid + 2 * i, 3, "%02x", r->gid[i]);
	snprintf(out, RP_OOB_REC_LEN + 1, "QP %06x %06x %04x %s %08x %016" PRIx64 " %016" PRIx64 "\n",
		 r->qpn & 0xffffff, r->psn & 0xffffff, r->lid, gid, r->rkey, r->addr, r->len);
}

/* Parses exactly n lower- or upper-case hex digits. */
static int hex_field(const char *s, int n, uint64_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < n; i++) {
		char c = s[i];
		int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

int rp_oob_rec_decode(const char *line, size_t len, struct rp_oob_rec *r)
{
	/* field widths and the separator that follows each */
	static const int width[] = {6, 6, 4, 32, 8, 16, 16};
	if (len == RP_OOB_REC_LEN && line[len - 1] == '\n')
		len--;
	if (len != RP_OOB_REC_LEN - 1 || memcmp(line, "QP ", 3) != 0)
		return -1;
	const char *p = line + 3;
	uint64_t v[7];
	for (int f = 0; f < 7; f++) {
		if (f == 3) { /* the GID, 16 bytes */
			for (int i = 0; i < 16; i++) {
				uint64_t b;
				if (hex_field(p + 2 * i, 2, &b))
					return -1;
				r->gid[i] = (uint8_t)b;
			}
			v[f] = 0;
		} else if (hex_field(p, width[f], &v[f])) {
			return -1;
		}
		p += width[f];
		if (f < 6 && *p++ != ' ')
			return -1;
	}
	r->qpn = (uint32_t)v[0];
	r->psn = (uint32_t)v[1];
	r->lid = (uint16_t)v[2];
	r->rkey = (uint32_t)v[4];
	r->addr = v[5];
	r->len = v[6];
	return 0;
}

void rp_oob_ud_encode(const struct rp_oob_rec *r, char out[RP_OOB_UD_LEN + 1])
{
	char gid[33];
	for (int i = 0; i < 16; i++)
		snprintf(gid + 2 * i, 3, "%02x", r->gid[i]);
	snprintf(out, RP_OOB_UD_LEN + 1, "UD %06x %08x %04x %s\n", r->qpn & 0xffffff, r->qkey, r->lid, gid);
}

int rp_oob_ud_decode(const char *line, size_t len, struct rp_oob_rec *r)
{
	static const int width[] = {6, 8, 4, 32};
	if (len == RP_OOB_UD_LEN && line[len - 1] == '\n')
		len--;
	if (len != RP_OOB_UD_LEN - 1 || memcmp(line, "UD ", 3) != 0)
		return -1;
	struct rp_oob_rec d;
	memset(&d, 0, sizeof(d));
	const char *p = line + 3;
	uint64_t v[3] = {0};
	for (int f = 0; f < 4; f++) {
		if (f == 3) {
			for (int i = 0; i < 16; i++) {
				uint64_t b;
				if (hex_field(p + 2 * i, 2, &b))
					return -1;
				d.gid[i] = (uint8_t)b;
			}
		} else if (hex_field(p, width[f], &v[f])) {
			return -1;
		}
		p += width[f];
		if (f < 3 && *p++ != ' ')
			return -1;
	}
	d.qpn = (uint32_t)v[0];
	d.qkey = (uint32_t)v[1];
	d.lid = (uint16_t)v[2];
	*r = d;
	return 0;
}

int rp_oob_listen(const char *bind_addr, uint16_t port, char *err, size_t errlen)
{
	/* An address always: a listener on every address (getaddrinfo's
	 * AI_PASSIVE wildcard) is one nobody asked for (docs/security.md). */
	if (!bind_addr || !*bind_addr) {
		snprintf(err, errlen, "no address to listen on for TCP port %u (ep --bind ADDR)", port);
		return -1;
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res;
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	int rc = getaddrinfo(bind_addr, service, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve %s: %s", bind_addr, gai_strerror(rc));
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0)
			break;
		rc = errno;
		close(fd);
		fd = -1;
		errno = rc;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(err, errlen, "cannot listen on TCP port %u: %s", port, strerror(errno));
	return fd;
}

static void tune(int fd)
{
	/* Control lines are tiny and latency-sensitive (RUN/GO barriers). */
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int rp_oob_accept(int lfd, int timeout_ms, char *peer, size_t peerlen, char *err, size_t errlen)
{
	struct pollfd p = {.fd = lfd, .events = POLLIN};
	int rc;
	do
		rc = poll(&p, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc == 0) {
		snprintf(err, errlen, "no client connected within %d s", timeout_ms / 1000);
		return -1;
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "accept: %s", strerror(errno));
		return -1;
	}
	tune(fd);
	char host[NI_MAXHOST], serv[NI_MAXSERV];
	if (peer && getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
				NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(peer, peerlen, "%s:%s", host, serv);
	return fd;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* One non-blocking connect attempt bounded by wait_ms; 0 or an errno. */
static int try_connect(const struct addrinfo *ai, int wait_ms, int *out)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	int e = 0;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			e = errno;
		} else {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			int rc = poll(&p, 1, wait_ms);
			socklen_t sl = sizeof(e);
			if (rc == 0)
				e = ETIMEDOUT;
			else if (rc < 0)
				e = errno;
			else
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl);
		}
	}
	if (e) {
		close(fd);
		return e;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	tune(fd);
	*out = fd;
	return 0;
}

int rp_oob_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res;
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	int rc = getaddrinfo(host, service, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "peer unreachable: %s:%u (%s)", host, port, gai_strerror(rc));
		return -1;
	}
	uint64_t deadline = now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	int last = ETIMEDOUT;
	for (;;) {
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			int fd = -1;
			uint64_t t = now_ms();
			int left = t < deadline ? (int)(deadline - t) : 1;
			last = try_connect(ai, left < 1000 ? left : 1000, &fd);
			if (last == 0) {
				freeaddrinfo(res);
				return fd;
			}
		}
		/* Refused/timed out: the server may not be listening yet. */
		if (now_ms() >= deadline)
			break;
		usleep(200 * 1000);
	}
	freeaddrinfo(res);
	snprintf(err, errlen, "peer unreachable: %s:%u (%s) after %d s", host, port, strerror(last),
		 (timeout_ms + 999) / 1000);
	return -1;
}

int rp_oob_send(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;
	while (off < len) {
		ssize_t n = send(fd, line + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

int rp_oob_recv_line(int fd, char *buf, size_t len, int timeout_ms, char *err, size_t errlen)
{
	size_t n = 0;
	uint64_t deadline = timeout_ms >= 0 ? now_ms() + (uint64_t)timeout_ms : 0;
	for (;;) {
		int wait = -1;
		if (timeout_ms >= 0) {
			uint64_t t = now_ms();
			if (t >= deadline) {
				snprintf(err, errlen, "peer sent nothing for %d s", timeout_ms / 1000);
				return -2;
			}
			wait = (int)(deadline - t);
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int rc = poll(&p, 1, wait);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)
			continue; /* re-check the deadline */
		/* Byte at a time: control lines are few and short, and this never
		 * consumes bytes that belong to the next line. */
		char c;
		ssize_t r = recv(fd, &c, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "peer closed the control connection%s%s", r < 0 ? ": " : "",
				 r < 0 ? strerror(errno) : "");
			return -1;
		}
		if (c == '\n') {
			buf[n] = '\0';
			return (int)n;
		}
		if (n + 1 >= len) {
			snprintf(err, errlen, "control line too long");
			return -1;
		}
		buf[n++] = c;
	}
}

int rp_oob_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll(&p, 1, 0) > 0;
}
