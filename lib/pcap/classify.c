/* A captured frame's kind: the names. See classify.h. */
#include "classify.h"

static const char *const kind_names[RP_CAPK_COUNT] = {
	[RP_CAPK_ROCE] = "roce", [RP_CAPK_CNP] = "cnp",     [RP_CAPK_NAK] = "nak",
	[RP_CAPK_PFC] = "pfc",   [RP_CAPK_PAUSE] = "pause", [RP_CAPK_OTHER] = "other",
};

const char *rp_capture_kind_name(enum rp_capture_kind k)
{
	return (unsigned)k < RP_CAPK_COUNT ? kind_names[k] : "?";
}
