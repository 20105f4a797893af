/* Honest speed (doctor.h): a NIC's link is the truth, a virtual port's
 * speed is the profile's. */
#include <stdio.h>

#include "doctor.h"
#include "profile/units.h"

#define TEXT(buf, ...) ((buf) ? (void)snprintf((buf), RP_DOCTOR_TEXT, __VA_ARGS__) : (void)0)

enum rp_doctor_status rp_doctor_speed_check(const char *host, uint64_t profile_bps, bool is_virtual,
					    uint64_t link_bps, uint64_t *speed_bps, char *what, char *fix)
{
	char prof[32], link[32];
	rp_format_bps(profile_bps, prof, sizeof(prof));
	rp_format_bps(link_bps, link, sizeof(link));
	TEXT(fix, "%s", "");
	*speed_bps = profile_bps;
	if (is_virtual) {
		if (link_bps)
			TEXT(what, "virtual port: its %s is made up; the profile's %s stays the truth", link, prof);
		else
			TEXT(what, "virtual port: no link speed of its own; the profile's %s is the truth", prof);
		return RP_DOCTOR_INFO;
	}
	if (link_bps == 0) {
		TEXT(what, "the NIC reports no link speed (link down?); the profile's %s is taken", prof);
		TEXT(fix, "bring the link up (ip link set dev IFACE up; check the cable and the switch port)");
		return RP_DOCTOR_WARN;
	}
	*speed_bps = link_bps;
	if (profile_bps > link_bps) {
		TEXT(what, "the profile's speed %s is above the link's %s: refused", prof, link);
		TEXT(fix, "set speed: %s on host '%s' in the profile", link, host);
		return RP_DOCTOR_FAIL;
	}
	if (profile_bps < link_bps) {
		TEXT(what, "the profile's speed %s is below the link's %s: the link's is taken", prof, link);
		TEXT(fix, "set speed: %s on host '%s' in the profile", link, host);
		return RP_DOCTOR_WARN;
	}
	TEXT(what, "%s, as the profile says", link);
	return RP_DOCTOR_PASS;
}
