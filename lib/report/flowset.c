/* Where a run's flows and pairs go: inline, or DIR/flows.jsonl and
 * DIR/pairs.jsonl with their totals in result.json. */
#include "flowset.h"

#include <stdio.h>

#include "report/result.h"

bool rp_report_flowset_apart(const struct rp_report_flowset *fs)
{
	return rp_acct_nflows(fs->acct) > RP_REPORT_FLOWS_INLINE;
}

int rp_report_flowset_files(const struct rp_report_flowset *fs, const char *dir, char *err, size_t errlen)
{
	if (!rp_report_flowset_apart(fs) || fs->files_skipped)
		return 0;
	const struct rp_report_stream fl = {NULL, rp_acct_nflows(fs->acct), fs->item, fs->ctx};
	const struct rp_report_wstream fw = {NULL, rp_acct_nflows(fs->acct), fs->write, fs->ctx};
	const struct rp_report_wstream pr = {NULL, fs->pairs ? rp_pairs_nrows(fs->pairs) : 0, rp_pairs_row_write, fs->pairs};
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, RP_REPORT_FLOWS_FILE);
	if (fs->write ? rp_doc_write_wlines(path, &fw, err, errlen) : rp_doc_write_lines(path, &fl, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, RP_REPORT_PAIRS_FILE);
	return rp_doc_write_wlines(path, &pr, err, errlen);
}

int rp_report_doc_flows(struct rp_doc *d, const struct rp_report_flowset *fs)
{
	size_t n = rp_report_flowset_apart(fs) ? 0 : rp_acct_nflows(fs->acct);
	const struct rp_report_stream fl = {NULL, n, fs->item, fs->ctx};
	const struct rp_report_wstream fw = {NULL, n, fs->write, fs->ctx};
	return fs->write ? rp_doc_wstream(d, "flows", &fw) : rp_doc_stream(d, "flows", &fl);
}

json_t *rp_report_flows_summary(const struct rp_report_flowset *fs)
{
	uint64_t tx = 0, rx = 0, lost = 0, ce = 0, incomplete = 0;
	for (size_t i = 0; i < rp_acct_nflows(fs->acct); i++) {
		struct rp_acct_flow_result x;
		rp_acct_flow(fs->acct, i, &x);
		tx += x.tx_packets;
		rx += x.rx_packets;
		ce += x.ce;
		if (fs->incomplete && fs->incomplete(fs->ctx, i))
			incomplete++;
		else
			lost += x.lost;
	}
	return json_pack("{s:s?, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "file",
			 fs->files_skipped ? NULL : RP_REPORT_FLOWS_FILE, "flows",
			 (json_int_t)rp_acct_nflows(fs->acct), "tx_packets", (json_int_t)tx, "rx_packets", (json_int_t)rx,
			 "lost", (json_int_t)lost, "ce", (json_int_t)ce, "incomplete", (json_int_t)incomplete,
			 "latency_ns", rp_report_latency(rp_acct_latency(fs->acct)));
}

int rp_report_doc_pairs(struct rp_doc *d, const struct rp_report_flowset *fs)
{
	bool apart = rp_report_flowset_apart(fs);
	size_t nrows = fs->pairs ? rp_pairs_nrows(fs->pairs) : 0, nout = fs->pairs ? rp_pairs_noutliers(fs->pairs) : 0;
	if (apart && !fs->files_skipped)
		rp_doc_put(d, "flows_file", json_string(RP_REPORT_FLOWS_FILE));
	if (apart)
		rp_doc_put(d, "flows_summary", rp_report_flows_summary(fs));
	const struct rp_report_wstream rows = {NULL, apart ? 0 : nrows, rp_pairs_row_write, fs->pairs};
	const struct rp_report_stream outliers = {NULL, nout, rp_pairs_outlier_item, fs->pairs};
	rp_doc_begin(d, "pairs");
	rp_doc_wstream(d, "rows", &rows);
	rp_doc_stream(d, "outliers", &outliers);
	if (apart && !fs->files_skipped) {
		rp_doc_put(d, "rows_file", json_string(RP_REPORT_PAIRS_FILE));
		rp_doc_put(d, "pairs", json_integer((json_int_t)nrows));
	}
	return rp_doc_end(d);
}
