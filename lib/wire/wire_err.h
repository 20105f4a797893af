/* Error codes shared by every lib/wire parser. */
#ifndef RP_WIRE_ERR_H
#define RP_WIRE_ERR_H

enum rp_wire_err {
	RP_WIRE_OK = 0,
	RP_WIRE_ETRUNC = -1,     /* fewer bytes than the header needs */
	RP_WIRE_EMALFORMED = -2, /* a field holds a value the format forbids */
	RP_WIRE_ENOSPC = -3,     /* a builder's buffer is too small */
};

const char *rp_wire_strerror(int err);

#endif
