/* lib/replay/fidelity.c on two incidents written here by hand, every distance
 * worked out below (docs/replay.md's formulas), and tolerances parsed.
 *
 *   original                            reproduction
 *   flows A->B 10 G, C->B 20 G          A->B 9 G, C->B 30 G        goodput  max(0.1, 0.5) = 0.5
 *   ce_fraction 0.5                     0.6                        0.2
 *   cnp_per_s 100, retransmissions 10   100, 10                    0, 0
 *   lost 0                              5                          1 (the incident had none)
 *   PFC A 10, C 10                      A 5, E 5                   |10 - 20| / 20 = 0.5
 *   bins A [1 .5 0], C [1 1]            A [1 .5 0 0], E [.5]       L1: A 0, C 2, E .5 over
 *                                                                  1.5+1.5 + 2 + .5 = 5.5: 5/11
 *   pause order A at 0, C at 500        A at 0, E at 50 (< a bin)  {A, C, A<C} vs {A, E}: 1 - 1/4
 *   victims D->B                        D->B, F->B                 1 - 1/2
 * Verdicts at the defaults: goodput NOT (0.5 > 0.2), ce REPRODUCED, loss NOT,
 * pfc PARTLY (0.5 <= 2 x 0.25), timeline NOT (0.4545 > 0.4), victims PARTLY,
 * order NOT (0.75 > 0.68): PARTLY overall. The same document twice: 0 each,
 * REPRODUCED. A reproduction whose flows and pauses come 2 bins later (210
 * ns: round(2.1) bins) is aligned back: timeline distance 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/fidelity.h"

static const char ORIG[] =
	"{\"schema\": \"roceprobe.incident/1\", \"bin_ns\": 100, \"speed_bps\": 100000000000,"
	" \"evidence\": {\"captures\": [{\"node\": \"A\"}, {\"node\": \"C\"}]},"
	" \"totals\": {\"ce_fraction\": 0.5, \"cnp_per_s\": 100, \"lost\": 0, \"retransmissions\": 10},"
	" \"flows\": [{\"src\": \"A\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 10},"
	"             {\"src\": \"C\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 20}],"
	" \"ports\": [{\"node\": \"A\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 10, \"paused_fraction_bins\": [1, 0.5, 0]}]},"
	"             {\"node\": \"C\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 10, \"paused_fraction_bins\": [1, 1]}]}],"
	" \"pause_order\": [{\"host\": \"A\", \"prio\": 3, \"first_pause_ns\": 0},"
	"                   {\"host\": \"C\", \"prio\": 3, \"first_pause_ns\": 500}],"
	" \"victims\": [{\"src\": \"D\", \"dst\": \"B\", \"prio\": 3}]}";
static const char REPRO[] =
	"{\"schema\": \"roceprobe.incident/1\", \"bin_ns\": 100, \"evidence\": {\"captures\": []},"
	" \"totals\": {\"ce_fraction\": 0.6, \"cnp_per_s\": 100, \"lost\": 5, \"retransmissions\": 10},"
	" \"flows\": [{\"src\": \"A\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 9},"
	"             {\"src\": \"C\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 30}],"
	" \"ports\": [{\"node\": \"A\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 5, \"paused_fraction_bins\": [1, 0.5, 0, 0]}]},"
	"             {\"node\": \"C\", \"prio\": []},"
	"             {\"node\": \"E\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 5, \"paused_fraction_bins\": [0.5]}]}],"
	" \"pause_order\": [{\"host\": \"A\", \"prio\": 3, \"first_pause_ns\": 0},"
	"                   {\"host\": \"E\", \"prio\": 3, \"first_pause_ns\": 50}],"
	" \"victims\": [{\"src\": \"D\", \"dst\": \"B\", \"prio\": 3}, {\"src\": \"F\", \"dst\": \"B\", \"prio\": 3}]}";

static const json_t *sym(const json_t *res, const char *name)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(res, "symptoms"), i, s)
		if (!strcmp(json_string_value(json_object_get(s, "name")), name))
			return s;
	fail_msg("no symptom %s", name);
	return NULL;
}

static void expect(const json_t *res, const char *name, double d, const char *verdict)
{
	const json_t *s = sym(res, name);
	assert_true(fabs(json_number_value(json_object_get(s, "distance")) - d) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(s, "verdict")), verdict);
}

static void distances(void **state)
{
	(void)state;
	struct rp_replay_tol tol;
	char err[256];
	rp_replay_tol_default(&tol);
	json_t *o = json_loads(ORIG, 0, NULL), *r = json_loads(REPRO, 0, NULL);
	assert_non_null(o);
	assert_non_null(r);
	assert_int_equal(rp_replay_incident_check(o, err, sizeof(err)), 0);
	json_t *res = rp_replay_fidelity(o, r, &tol);
	expect(res, "goodput", 0.5, "NOT");
	expect(res, "ce_fraction", 0.2, "REPRODUCED");
	expect(res, "cnp_rate", 0, "REPRODUCED");
	expect(res, "loss", 1, "NOT");
	expect(res, "retransmissions", 0, "REPRODUCED");
	expect(res, "pfc_frames", 0.5, "PARTLY");
	expect(res, "paused_timeline", 5.0 / 11.0, "NOT");
	expect(res, "victims", 0.5, "PARTLY");
	expect(res, "pause_order", 0.75, "NOT");
	assert_false(json_is_true(json_object_get(sym(res, "loss"), "in_incident")));
	assert_int_equal(json_array_size(json_object_get(sym(res, "paused_timeline"), "points")), 3);
	assert_string_equal(json_string_value(json_object_get(res, "verdict")), "PARTLY");
	json_decref(res);
	res = rp_replay_fidelity(o, o, &tol);
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(res, "symptoms"), i, s)
		assert_true(json_number_value(json_object_get(s, "distance")) == 0);
	assert_string_equal(json_string_value(json_object_get(res, "verdict")), "REPRODUCED");
	json_decref(res);
	/* every shown symptom NOT: NOT */
	tol = (struct rp_replay_tol){{0}};
	res = rp_replay_fidelity(o, r, &tol);
	assert_string_equal(json_string_value(json_object_get(res, "verdict")), "PARTLY"); /* cnp, retrans: 0 <= 0 */
	json_decref(res);
	json_object_set_new(json_object_get(r, "totals"), "cnp_per_s", json_integer(7));
	json_object_set_new(json_object_get(r, "totals"), "retransmissions", json_integer(1));
	res = rp_replay_fidelity(o, r, &tol);
	assert_string_equal(json_string_value(json_object_get(res, "verdict")), "NOT");
	json_decref(res);
	/* aligned at the first data frame: a reproduction whose flows start 2 bins
	 * later, its pauses 2 bins later, has the original's timeline */
	json_t *late = json_deep_copy(o);
	size_t k;
	json_t *f, *p;
	json_array_foreach(json_object_get(late, "flows"), k, f)
		json_object_set_new(f, "start_ns", json_integer(210));
	json_array_foreach(json_object_get(late, "ports"), k, p) {
		json_t *bins = json_object_get(json_array_get(json_object_get(p, "prio"), 0), "paused_fraction_bins");
		json_array_insert_new(bins, 0, json_real(0));
		json_array_insert_new(bins, 0, json_real(0));
	}
	res = rp_replay_fidelity(o, late, &tol);
	expect(res, "paused_timeline", 0, "REPRODUCED");
	assert_int_equal(json_integer_value(json_object_get(sym(res, "paused_timeline"), "aligned_bins")), -2);
	json_decref(res);
	res = rp_replay_fidelity(late, o, &tol); /* and the other way round */
	expect(res, "paused_timeline", 0, "REPRODUCED");
	json_decref(res);
	json_decref(late);
	json_decref(o);
	json_decref(r);
}

/* Two flows of one source, destination and priority: matched in flows[] order
 * ("A -> B prio 3", "A -> B prio 3 #2"), 10 -> 10 and 20 -> 22: 0.1; a third
 * only in the reproduction: 1. */
static void same_key(void **state)
{
	(void)state;
	struct rp_replay_tol tol;
	rp_replay_tol_default(&tol);
	json_t *o = json_loads(ORIG, 0, NULL), *r = json_loads(ORIG, 0, NULL);
	json_t *fo = json_loads("[{\"src\": \"A\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 10},"
				" {\"src\": \"A\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 20}]", 0, NULL);
	json_t *fr = json_loads("[{\"src\": \"A\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 10},"
				" {\"src\": \"A\", \"dst\": \"B\", \"prio\": 3, \"goodput_gbps\": 22}]", 0, NULL);
	json_object_set_new(o, "flows", fo);
	json_object_set_new(r, "flows", fr);
	json_t *res = rp_replay_fidelity(o, r, &tol);
	expect(res, "goodput", 0.1, "REPRODUCED");
	const json_t *fl = json_object_get(sym(res, "goodput"), "flows");
	assert_int_equal(json_array_size(fl), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(fl, 1), "flow")), "A -> B prio 3 #2");
	json_decref(res);
	json_array_append_new(fr, json_pack("{s:s, s:s, s:i, s:f}", "src", "A", "dst", "B", "prio", 3, "goodput_gbps", 1.0));
	res = rp_replay_fidelity(o, r, &tol);
	expect(res, "goodput", 1, "NOT");
	assert_int_equal(json_array_size(json_object_get(sym(res, "goodput"), "flows")), 3);
	json_decref(res);
	json_decref(o);
	json_decref(r);
}

static void tolerances_and_checks(void **state)
{
	(void)state;
	struct rp_replay_tol t;
	char err[256];
	rp_replay_tol_default(&t);
	assert_true(t.t[RP_SYM_GOODPUT] == 0.10 && t.t[RP_SYM_PAUSED] == 0.20 && t.t[RP_SYM_VICTIMS] == 0.34);
	assert_int_equal(rp_replay_tol_parse(&t, "goodput=15%", err, sizeof(err)), 0);
	assert_true(fabs(t.t[RP_SYM_GOODPUT] - 0.15) < 1e-12);
	assert_int_equal(rp_replay_tol_parse(&t, "pause_order=0.5", err, sizeof(err)), 0);
	assert_true(t.t[RP_SYM_ORDER] == 0.5);
	assert_int_equal(rp_replay_tol_parse(&t, "nosuch=1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nosuch"));
	assert_int_equal(rp_replay_tol_parse(&t, "goodput", err, sizeof(err)), -1);
	assert_int_equal(rp_replay_tol_parse(&t, "goodput=-1", err, sizeof(err)), -1);
	assert_int_equal(rp_replay_tol_parse(&t, "goodput=x", err, sizeof(err)), -1);
	assert_int_equal(rp_replay_tol_parse(&t, "good=1", err, sizeof(err)), -1);
	json_t *bad = json_loads("{\"schema\": \"roceprobe.result/1\"}", 0, NULL);
	assert_int_equal(rp_replay_incident_check(bad, err, sizeof(err)), -1);
	json_object_set_new(bad, "schema", json_string("roceprobe.incident/1"));
	assert_int_equal(rp_replay_incident_check(bad, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ports"));
	json_decref(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(distances),
		cmocka_unit_test(same_key),
		cmocka_unit_test(tolerances_and_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
