#include "wire_err.h"

const char *rp_wire_strerror(int err)
{
	switch (err) {
	case RP_WIRE_OK:
		return "ok";
	case RP_WIRE_ETRUNC:
		return "truncated";
	case RP_WIRE_EMALFORMED:
		return "malformed";
	case RP_WIRE_ENOSPC:
		return "no space";
	default:
		return "unknown error";
	}
}
