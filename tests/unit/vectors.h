/* tests/data/vectors.txt (scapy's frames, tests/interop/gen_vectors.py):
 * the loader and key access that test_vectors and test_fastpath share.
 * Include after cmocka.h; the including file defines RP_TEST_DATA. */
#ifndef RP_TESTS_UNIT_VECTORS_H
#define RP_TESTS_UNIT_VECTORS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RP_VEC_FILE RP_TEST_DATA "/vectors.txt"
#define RP_VEC_MAX 256
#define RP_VEC_KV_MAX 64
#define RP_VEC_FRAME_MAX 2048

struct rp_kv {
	char key[24];
	char val[160];
};

struct rp_vec {
	char name[48];
	uint8_t frame[RP_VEC_FRAME_MAX];
	size_t len;
	struct rp_kv kv[RP_VEC_KV_MAX];
	int nkv;
};

static struct rp_vec *vecs;
static int nvecs;

/* ---- loading -------------------------------------------------------------- */

static inline int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline int hex_decode(const char *s, size_t n, uint8_t *out, size_t cap)
{
	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_nibble(s[2 * i]), lo = hex_nibble(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

static inline int parse_kvs(char *s, struct rp_vec *v)
{
	for (char *tok = strtok(s, " \n"); tok; tok = strtok(NULL, " \n")) {
		char *eq = strchr(tok, '=');
		if (!eq || v->nkv == RP_VEC_KV_MAX)
			return -1;
		*eq = '\0';
		struct rp_kv *kv = &v->kv[v->nkv++];
		if (strlen(tok) >= sizeof(kv->key) || strlen(eq + 1) >= sizeof(kv->val))
			return -1;
		strcpy(kv->key, tok);
		strcpy(kv->val, eq + 1);
	}
	return 0;
}

/* "name|hex|k=v ..." */
static inline int parse_line(char *line, struct rp_vec *v)
{
	char *bar1 = strchr(line, '|');
	char *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
	if (!bar2 || (size_t)(bar1 - line) >= sizeof(v->name))
		return -1;
	memcpy(v->name, line, (size_t)(bar1 - line));
	v->name[bar1 - line] = '\0';
	int n = hex_decode(bar1 + 1, (size_t)(bar2 - bar1 - 1), v->frame, sizeof(v->frame));
	if (n <= 0)
		return -1;
	v->len = (size_t)n;
	return parse_kvs(bar2 + 1, v);
}

static inline int load_vectors(void **state)
{
	(void)state;
	FILE *fp = fopen(RP_VEC_FILE, "r");
	if (!fp) {
		print_error("cannot open %s\n", RP_VEC_FILE);
		return -1;
	}
	vecs = calloc(RP_VEC_MAX, sizeof(*vecs));
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;
	while (vecs && getline(&line, &cap, fp) > 0) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (nvecs == RP_VEC_MAX || parse_line(line, &vecs[nvecs]) != 0) {
			print_error("%s:%d: cannot parse this vector\n", RP_VEC_FILE, lineno);
			rc = -1;
			break;
		}
		nvecs++;
	}
	free(line);
	fclose(fp);
	return vecs ? rc : -1;
}

static inline int free_vectors(void **state)
{
	(void)state;
	free(vecs);
	return 0;
}

/* ---- key access ----------------------------------------------------------- */

static inline const char *kv_find(const struct rp_vec *v, const char *key)
{
	for (int i = 0; i < v->nkv; i++)
		if (strcmp(v->kv[i].key, key) == 0)
			return v->kv[i].val;
	return NULL;
}

/* Missing keys read as 0: every vector names every field it has. */
static inline uint64_t kv_u64(const struct rp_vec *v, const char *key)
{
	const char *s = kv_find(v, key);
	return s ? strtoull(s, NULL, 0) : 0;
}

#endif
