#include "names.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "wire/ipv4.h"
#include "wire/sport.h"

static const char *const verb_names[RP_VERB_COUNT] = {"write", "write_imm", "send", "send_imm", "read_resp"};
static const char *const pattern_names[RP_PATTERN_COUNT] = {"flow", "incast", "all-to-all", "permutation", "fan-out"};

/* Compares with '-' and '_' taken as equal, case-insensitively. */
static int word_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = *a == '-' ? '_' : tolower((unsigned char)*a);
		int y = *b == '-' ? '_' : tolower((unsigned char)*b);
		if (x != y)
			return 0;
		if (!x)
			return 1;
	}
}

int rp_verb_parse(const char *s)
{
	for (int i = 0; i < RP_VERB_COUNT; i++)
		if (word_eq(s, verb_names[i]))
			return i;
	if (word_eq(s, "read_response"))
		return RP_VERB_READ_RESP;
	return -1;
}

const char *rp_verb_name(enum rp_verb v)
{
	return (unsigned)v < RP_VERB_COUNT ? verb_names[v] : "?";
}

int rp_ecn_parse(const char *s)
{
	if (word_eq(s, "not-ect") || word_eq(s, "non-ect"))
		return RP_ECN_NOT_ECT;
	if (word_eq(s, "ect0"))
		return RP_ECN_ECT0;
	if (word_eq(s, "ect1"))
		return RP_ECN_ECT1;
	if (word_eq(s, "ce"))
		return RP_ECN_CE;
	return -1;
}

const char *rp_ecn_name(unsigned ecn)
{
	static const char *const names[] = {"not-ect", "ect1", "ect0", "ce"};
	return names[ecn & 3];
}

int rp_pattern_parse(const char *s)
{
	for (int i = 0; i < RP_PATTERN_COUNT; i++)
		if (word_eq(s, pattern_names[i]))
			return i;
	if (word_eq(s, "alltoall"))
		return RP_PATTERN_ALL_TO_ALL;
	if (word_eq(s, "fanout"))
		return RP_PATTERN_FAN_OUT;
	return -1;
}

const char *rp_pattern_name(enum rp_pattern p)
{
	return (unsigned)p < RP_PATTERN_COUNT ? pattern_names[p] : "?";
}

const char *rp_sport_name(int policy)
{
	switch (policy) {
	case RP_SPORT_LINUX:
		return "linux";
	case RP_SPORT_FIXED:
		return "fixed";
	case RP_SPORT_PER_QP:
		return "per-qp";
	}
	return "?";
}

const char *rp_topology_name(int topology)
{
	static const char *const names[] = {"single", "leaf-spine", "fat-tree", "rail"};
	return topology >= 0 && topology < 4 ? names[topology] : "?";
}
