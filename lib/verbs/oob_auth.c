/* The key proof on ep's control connection (oob_auth.h). */
#include "verbs/oob_auth.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "verbs/oob.h"

#define HEX_LEN (2 * RP_AUTH_NONCE_LEN) /* nonces and proofs alike: 32 bytes */

static int unhex(const char *s, uint8_t out[32])
{
	for (int i = 0; i < 32; i++) {
		int v = 0;
		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + k];
			int d;
			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else
				return -1; /* lower case only: one spelling per value */
			v = v << 4 | d;
		}
		out[i] = (uint8_t)v;
	}
	return 0;
}

static void tohex(const uint8_t in[32], char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
}

/* line (len bytes) is word, a space, then HEX_LEN hex digits into a, and, when b,
 * a space and HEX_LEN more into b; nothing else. */
static bool fields(const char *line, size_t len, const char *word, uint8_t *a, uint8_t *b)
{
	size_t w = strlen(word);
	size_t want = w + 1 + HEX_LEN + (b ? 1 + HEX_LEN : 0);
	if (len != want || memcmp(line, word, w) != 0 || line[w] != ' ')
		return false;
	const char *p = line + w + 1;
	if (unhex(p, a))
		return false;
	if (!b)
		return true;
	p += HEX_LEN;
	return *p == ' ' && unhex(p + 1, b) == 0;
}

int rp_oob_auth_parse(const char *line, size_t len, struct rp_oob_auth_msg *m)
{
	struct rp_oob_auth_msg d;
	memset(&d, 0, sizeof(d));
	if (len && line[len - 1] == '\n')
		len--;
	if (len == 6 && memcmp(line, "AUTH 1", 6) == 0)
		d.type = RP_OOB_AUTH_OFFER;
	else if (fields(line, len, "CHALLENGE", d.nonce, NULL))
		d.type = RP_OOB_AUTH_CHALLENGE;
	else if (fields(line, len, "PROOF", d.nonce, d.proof))
		d.type = RP_OOB_AUTH_PROOF;
	else if (fields(line, len, "PROVEN", d.proof, NULL))
		d.type = RP_OOB_AUTH_PROVEN;
	else
		return -1;
	*m = d;
	return 0;
}

size_t rp_oob_auth_format(const struct rp_oob_auth_msg *m, char out[RP_OOB_AUTH_LINE_MAX + 1])
{
	char *p = out;
	switch (m->type) {
	case RP_OOB_AUTH_OFFER:
		p += sprintf(p, "AUTH 1");
		break;
	case RP_OOB_AUTH_CHALLENGE:
		p += sprintf(p, "CHALLENGE ");
		tohex(m->nonce, p);
		p += HEX_LEN;
		break;
	case RP_OOB_AUTH_PROOF:
		p += sprintf(p, "PROOF ");
		tohex(m->nonce, p);
		p += HEX_LEN;
		*p++ = ' ';
		tohex(m->proof, p);
		p += HEX_LEN;
		break;
	case RP_OOB_AUTH_PROVEN:
		p += sprintf(p, "PROVEN ");
		tohex(m->proof, p);
		p += HEX_LEN;
		break;
	}
	*p++ = '\n';
	*p = '\0';
	return (size_t)(p - out);
}

static int send_msg(int fd, const struct rp_oob_auth_msg *m)
{
	char line[RP_OOB_AUTH_LINE_MAX + 1];
	rp_oob_auth_format(m, line);
	return rp_oob_send(fd, line);
}

/* The next line; a server's "ERR why" is its refusal. 0 with m, or -1 with err. */
static int recv_msg(int fd, enum rp_oob_auth_type want, struct rp_oob_auth_msg *m, int timeout_ms, char *err,
		    size_t errlen)
{
	char line[512];
	int n = rp_oob_recv_line(fd, line, sizeof(line), timeout_ms, err, errlen);
	if (n < 0)
		return -1;
	if (strncmp(line, "ERR ", 4) == 0) {
		snprintf(err, errlen, "server refused: %.200s", line + 4);
		return -1;
	}
	if (rp_oob_auth_parse(line, (size_t)n, m) || m->type != want) {
		snprintf(err, errlen, "the server did not take part in the key proof (it sent '%.40s'); is it a "
				      "roceprobe ep server of this version?", line);
		return -1;
	}
	return 0;
}

int rp_oob_auth_connect(int fd, const struct rp_auth_key *key, struct rp_oob_auth_nonces *nonces, int timeout_ms,
			char *err, size_t errlen)
{
	if (!key)
		return 0;
	struct rp_oob_auth_msg m = {.type = RP_OOB_AUTH_OFFER};
	uint8_t nonce_l[RP_AUTH_NONCE_LEN], nonce_c[RP_AUTH_NONCE_LEN], want[RP_AUTH_PROOF_LEN];
	if (send_msg(fd, &m) || recv_msg(fd, RP_OOB_AUTH_CHALLENGE, &m, timeout_ms, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "the server closed the control connection");
		return -1;
	}
	memcpy(nonce_l, m.nonce, sizeof(nonce_l));
	rp_auth_nonce(nonce_c);
	m.type = RP_OOB_AUTH_PROOF;
	memcpy(m.nonce, nonce_c, sizeof(nonce_c));
	rp_auth_proof(key, "connector", nonce_l, nonce_c, m.proof);
	if (send_msg(fd, &m) || recv_msg(fd, RP_OOB_AUTH_PROVEN, &m, timeout_ms, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "the server closed the control connection during the key proof");
		return -1;
	}
	rp_auth_proof(key, "listener", nonce_c, nonce_l, want);
	if (!rp_auth_proof_ok(want, m.proof)) {
		snprintf(err, errlen, "the server did not prove the key: it holds another one");
		return -1;
	}
	if (nonces) {
		memcpy(nonces->l, nonce_l, sizeof(nonces->l));
		memcpy(nonces->c, nonce_c, sizeof(nonces->c));
	}
	return 0;
}

/* Tells the client why (one line) and the caller's log the same. */
static int refuse(int fd, const char *to_client, char *why, size_t whylen, const char *fmt, const char *arg)
{
	char line[256];
	snprintf(line, sizeof(line), "ERR %s\n", to_client);
	rp_oob_send(fd, line);
	snprintf(why, whylen, fmt, arg);
	return -1;
}

int rp_oob_auth_accept(int fd, const struct rp_auth_key *key, struct rp_oob_auth_nonces *nonces, int timeout_ms,
		       char *first, size_t firstlen, char *why, size_t whylen)
{
	char line[512], err[160] = "";
	struct rp_oob_auth_msg m;
	first[0] = 0;
	int n = rp_oob_recv_line(fd, line, sizeof(line), timeout_ms, err, sizeof(err));
	if (n < 0) {
		snprintf(why, whylen, "%s before proving anything", err);
		return -1;
	}
	bool offer = rp_oob_auth_parse(line, (size_t)n, &m) == 0 && m.type == RP_OOB_AUTH_OFFER;
	if (!key) {
		if (offer)
			return refuse(fd, "this server has no key and the client has one: give both the same key, or neither",
				      why, whylen, "%sit has a key and this server has none", "");
		snprintf(first, firstlen, "%s", line);
		return 0;
	}
	if (!offer)
		return refuse(fd,
			      "this server requires a key: give the client the server's key (--key-file F or "
			      "ROCEPROBE_KEY)",
			      why, whylen, "no key (it sent '%.40s')", line);
	uint8_t nonce_l[RP_AUTH_NONCE_LEN], nonce_c[RP_AUTH_NONCE_LEN], want[RP_AUTH_PROOF_LEN];
	rp_auth_nonce(nonce_l);
	m.type = RP_OOB_AUTH_CHALLENGE;
	memcpy(m.nonce, nonce_l, sizeof(nonce_l));
	if (send_msg(fd, &m)) {
		snprintf(why, whylen, "closed before its challenge");
		return -1;
	}
	n = rp_oob_recv_line(fd, line, sizeof(line), timeout_ms, err, sizeof(err));
	if (n < 0) {
		snprintf(why, whylen, "%s before proving the key", err);
		return -1;
	}
	if (rp_oob_auth_parse(line, (size_t)n, &m) || m.type != RP_OOB_AUTH_PROOF)
		return refuse(fd, "expected the key's proof", why, whylen, "no proof (it sent '%.40s')", line);
	memcpy(nonce_c, m.nonce, sizeof(nonce_c));
	rp_auth_proof(key, "connector", nonce_l, nonce_c, want);
	if (!rp_auth_proof_ok(want, m.proof))
		return refuse(fd, "wrong key: the client's key is not the server's", why, whylen, "%swrong key", "");
	m.type = RP_OOB_AUTH_PROVEN;
	rp_auth_proof(key, "listener", nonce_c, nonce_l, m.proof);
	if (send_msg(fd, &m)) {
		snprintf(why, whylen, "closed after its proof");
		return -1;
	}
	if (nonces) {
		memcpy(nonces->l, nonce_l, sizeof(nonces->l));
		memcpy(nonces->c, nonce_c, sizeof(nonces->c));
	}
	return 0;
}
