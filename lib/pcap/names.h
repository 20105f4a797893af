/* A capture's file names: pure C, no I/O. One policy for every capture
 * roceprobe writes (`capture`, `run --capture`, `switch --capture`, the lab):
 *
 *   not rotating   the file is path itself
 *   rotating       files numbered from 1 in the order written, the number
 *                  before the extension: out.pcap -> out-0001.pcap,
 *                  out-0002.pcap, ... ("out" -> out-0001, ...)
 *
 * The lab's path for host NAME is DIR/capture-NAME.pcap (so DIR/capture-h0.pcap,
 * or DIR/capture-h0-0001.pcap rotating); `switch --capture` tags one file per
 * port (out.pcap -> out-p0.pcap).
 *
 *   rp_pcap_name_tag("dir/out.pcap", "-p0")   -> dir/out-p0.pcap
 *   rp_pcap_name_tag("out", "-0001")          -> out-0001
 *   rp_pcap_name_tag("dir.d/.hidden", "-p1")  -> dir.d/.hidden-p1
 *
 * A dot that starts the file name or sits in a directory name is not an
 * extension. */
#ifndef RP_PCAP_NAMES_H
#define RP_PCAP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* path with tag inserted before its extension, into buf (n bytes, cut to fit). */
void rp_pcap_name_tag(const char *path, const char *tag, char *buf, size_t n);

/* The name of file number k (1-based; not rotating, only k = 1) of a
 * capture at path. */
void rp_pcap_file_name(const char *path, bool rotating, uint64_t k, char *buf, size_t n);

#endif
