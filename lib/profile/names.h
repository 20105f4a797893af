/* The words a profile uses for verbs, ECN codepoints, patterns and kinds. */
#ifndef RP_PROFILE_NAMES_H
#define RP_PROFILE_NAMES_H

/* What a flow's messages are on the wire. */
enum rp_verb {
	RP_VERB_WRITE,     /* RDMA WRITE: FIRST (RETH) / MIDDLE / LAST, or ONLY (RETH) */
	RP_VERB_WRITE_IMM, /* as WRITE, LAST and ONLY carry ImmDt */
	RP_VERB_SEND,      /* SEND FIRST / MIDDLE / LAST / ONLY */
	RP_VERB_SEND_IMM,  /* as SEND, LAST and ONLY carry ImmDt */
	RP_VERB_READ_RESP, /* RDMA READ response stream: FIRST/LAST/ONLY carry AETH */
	RP_VERB_COUNT
};

enum rp_pattern {
	RP_PATTERN_FLOW,        /* one explicit src -> dst flow */
	RP_PATTERN_INCAST,      /* N senders -> one receiver, all at once */
	RP_PATTERN_ALL_TO_ALL,  /* N x N in N-1 staggered phases */
	RP_PATTERN_PERMUTATION, /* every host sends to one other, receivers distinct */
	RP_PATTERN_FAN_OUT,     /* one sender -> N receivers, all at once */
	RP_PATTERN_COUNT
};

enum rp_traffic_kind {
	RP_TRAFFIC_RDMA, /* RoCEv2 data packets */
	RP_TRAFFIC_PFC,  /* PFC or PAUSE frames */
};

/* Each parse returns the enum value, or -1; names are the canonical words. */
int rp_verb_parse(const char *s); /* write, write_imm, send, send_imm, read_resp ('-' = '_') */
const char *rp_verb_name(enum rp_verb v);
int rp_ecn_parse(const char *s);  /* not-ect, ect0, ect1, ce -> enum rp_ecn */
const char *rp_ecn_name(unsigned ecn);
int rp_pattern_parse(const char *s); /* flow, incast, all-to-all, permutation, fan-out */
const char *rp_pattern_name(enum rp_pattern p);
const char *rp_sport_name(int policy); /* "linux", "fixed", "per-qp" */
const char *rp_topology_name(int topology); /* enum rp_topology: "single", "leaf-spine", "fat-tree", "rail" */

#endif
