/* The pcap file format as roceprobe writes it (libpcap's nanosecond pcap,
 * the writer's byte order, link type Ethernet): what the rotation, the
 * budgets and the cut-back after a failed write count in. Every capture
 * file roceprobe writes is this format; it reads pcap and pcapng (reader.h).
 *
 *   file header  24 B: magic 0xa1b23c4d (ns), version 2.4, thiszone 0,
 *                      sigfigs 0, snaplen, link type 1 (Ethernet)
 *   record       16 B: seconds, nanoseconds, caplen, wire length; then
 *                      caplen bytes of the frame */
#ifndef RP_PCAP_FORMAT_H
#define RP_PCAP_FORMAT_H

#define RP_PCAP_FILE_HDR 24u   /* pcap file header */
#define RP_PCAP_REC_HDR 16u    /* pcap record header */
#define RP_PCAP_CAPLEN_OFF 8u  /* in a record header: seconds, fraction, caplen, wire length */
#define RP_PCAP_MAGIC_NS 0xa1b23c4du /* nanosecond timestamps */
#define RP_PCAP_MAGIC_US 0xa1b2c3d4u /* microsecond timestamps */
#define RP_PCAPNG_SHB 0x0a0d0d0au    /* pcapng's first block, a section header */

#define RP_PCAP_SNAPLEN_DEFAULT 128 /* bytes kept of each frame unless told */
#define RP_PCAP_SNAPLEN_MAX 65535

#endif
