/* ERSPAN decapsulation (erspan.h; draft-foschiano-erspan-03). */
#include "erspan.h"

#include "classify.h"

static bool erspan2(const uint8_t *buf, size_t caplen, size_t off, uint16_t gre_flags, struct rp_erspan *e)
{
	if (!(gre_flags & RP_GRE_F_SEQ)) { /* type I: the frame follows GRE */
		e->type = 1;
		e->inner_off = off;
		return true;
	}
	if (caplen - off < sizeof(struct rp_erspan2_hdr))
		return false;
	const struct rp_erspan2_hdr *h = (const void *)(buf + off);
	if (rp_erspan_ver(h->w0) != 1)
		return false;
	e->type = 2;
	e->session = rp_erspan_session(h->w0);
	e->truncated = rp_erspan_truncated(h->w0);
	e->inner_off = off + sizeof(*h);
	return true;
}

static bool erspan3(const uint8_t *buf, size_t caplen, size_t off, struct rp_erspan *e)
{
	if (caplen - off < sizeof(struct rp_erspan3_hdr))
		return false;
	const struct rp_erspan3_hdr *h = (const void *)(buf + off);
	if (rp_erspan_ver(h->w0) != 2 || rp_erspan3_ft(h) != RP_ERSPAN_FT_ETHERNET)
		return false;
	off += sizeof(*h);
	e->type = 3;
	e->session = rp_erspan_session(h->w0);
	e->truncated = rp_erspan_truncated(h->w0);
	e->has_ts = true;
	e->ts = rp_erspan3_ts(h);
	e->gra = (uint8_t)rp_erspan3_gra(h);
	if (rp_erspan3_o(h)) {
		if (caplen - off < sizeof(struct rp_erspan3_plat))
			return false;
		const struct rp_erspan3_plat *p = (const void *)(buf + off);
		if (e->gra == RP_ERSPAN_GRA_1588 && rp_erspan3_platf_id(p) == RP_ERSPAN_PLATF_1588_SECS) {
			e->has_secs = true;
			e->secs = rp_erspan3_platf_secs(p);
		}
		off += sizeof(*p);
	}
	e->inner_off = off;
	return true;
}

bool rp_erspan_decap(const uint8_t *buf, size_t caplen, struct rp_erspan *e)
{
	size_t l4 = 0;
	*e = (struct rp_erspan){0};
	if (rp_cls_l4(buf, caplen, &l4) != RP_IPPROTO_GRE || l4 > caplen ||
	    caplen - l4 < sizeof(struct rp_gre_hdr))
		return false;
	const struct rp_gre_hdr *g = (const void *)(buf + l4);
	uint16_t flags = rp_gre_flags(g);
	size_t hl = rp_gre_hlen(g);
	if ((flags & RP_GRE_VER_MASK) || caplen - l4 < hl)
		return false;
	size_t off = l4 + hl;
	bool ok = false;
	switch (rp_gre_proto(g)) {
	case RP_GRE_PROTO_ERSPAN2: ok = erspan2(buf, caplen, off, flags, e); break;
	case RP_GRE_PROTO_ERSPAN3: ok = erspan3(buf, caplen, off, e); break;
	default: break;
	}
	return ok && e->inner_off <= caplen;
}
