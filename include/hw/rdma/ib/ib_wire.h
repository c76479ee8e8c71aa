/*
 * InfiniBand transport headers and the fabric framing (docs/fabric.md).
 *
 * A fabric frame is RoCEv2-shaped so that Wireshark/tshark decode it as
 * InfiniBand: Ethernet | IPv4 (no GRH) or IPv6 (= the GRH) | UDP dport 4791 |
 * BTH | ext. headers | payload | pad | ICRC The IB local route header has no
 * place in RoCEv2, so the LRH fields travel in the Ethernet addresses:
 * destination MAC 02:49:42:00:DLID, source MAC 02:49:42:SL:SLID.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_IB_WIRE_H
#define HW_RDMA_IB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IB_ETH_HLEN         14
#define IB_IPV4_HLEN        20
#define IB_IPV6_HLEN        40
#define IB_UDP_HLEN         8
#define IB_BTH_LEN          12
#define IB_DETH_LEN         8
#define IB_RETH_LEN         16
#define IB_ATOMIC_ETH_LEN   28
#define IB_AETH_LEN         4
#define IB_ATOMIC_ACK_LEN   8
#define IB_IMMDT_LEN        4
#define IB_IETH_LEN         4
#define IB_XRCETH_LEN       4
#define IB_DCETH_LEN        20  /* DC requests: access key, connection, DCI */
#define IB_ICRC_LEN         4
#define IB_GRH_LEN          40
#define IB_ROCE_UDP_PORT    4791
#define IB_ETHERTYPE_IPV4   0x0800
#define IB_ETHERTYPE_IPV6   0x86dd
#define IB_ETHERTYPE_VLAN   0x8100  /* 802.1Q C-tag */
#define IB_ETHERTYPE_QINQ   0x88a8  /* 802.1ad S-tag */
#define IB_VLAN_HLEN        4
#define IB_MAX_HDR_LEN                                                      \
    (IB_ETH_HLEN + IB_VLAN_HLEN + IB_IPV6_HLEN + IB_UDP_HLEN + IB_BTH_LEN + \
     IB_XRCETH_LEN + IB_DCETH_LEN + IB_DETH_LEN + IB_RETH_LEN +             \
     IB_ATOMIC_ETH_LEN + IB_IMMDT_LEN)
#define IB_MAC_OUI0         0x02
#define IB_MAC_OUI1         0x49    /* 'I' */
#define IB_MAC_OUI2         0x42    /* 'B' */
#define IB_DEFAULT_PKEY     0xffff

/* BTH opcodes: transport (bits 7:5) | operation (bits 4:0) */
enum {
    IB_TRANSPORT_RC = 0x00,
    IB_TRANSPORT_UC = 0x20,
    IB_TRANSPORT_UD = 0x60,
    IB_TRANSPORT_XRC = 0xa0, /* RC's operations; requests carry an XRCETH */
    /*
     * Dynamically connected (mlx5 DC): RC's operations in the
     * manufacturer-specific opcode space; requests carry a DCETH
     * (docs/fabric.md, "Dynamically connected transport").
     */
    IB_TRANSPORT_DC = 0xc0,
};

enum {
    IB_OP_SEND_FIRST = 0x00,
    IB_OP_SEND_MIDDLE = 0x01,
    IB_OP_SEND_LAST = 0x02,
    IB_OP_SEND_LAST_IMM = 0x03,
    IB_OP_SEND_ONLY = 0x04,
    IB_OP_SEND_ONLY_IMM = 0x05,
    IB_OP_WRITE_FIRST = 0x06,
    IB_OP_WRITE_MIDDLE = 0x07,
    IB_OP_WRITE_LAST = 0x08,
    IB_OP_WRITE_LAST_IMM = 0x09,
    IB_OP_WRITE_ONLY = 0x0a,
    IB_OP_WRITE_ONLY_IMM = 0x0b,
    IB_OP_READ_REQUEST = 0x0c,
    IB_OP_READ_RESPONSE_FIRST = 0x0d,
    IB_OP_READ_RESPONSE_MIDDLE = 0x0e,
    IB_OP_READ_RESPONSE_LAST = 0x0f,
    IB_OP_READ_RESPONSE_ONLY = 0x10,
    IB_OP_ACKNOWLEDGE = 0x11,
    IB_OP_ATOMIC_ACKNOWLEDGE = 0x12,
    IB_OP_COMPARE_SWAP = 0x13,
    IB_OP_FETCH_ADD = 0x14,
    IB_OP_SEND_LAST_INV = 0x16,
    IB_OP_SEND_ONLY_INV = 0x17,
};

/*
 * RoCE v2 Congestion Notification Packet (IBTA RoCEv2 annex A17.9.3): its own
 * transport (bits 7:5 = 100b), a BTH with BECN set and 16 reserved bytes
 */
#define IB_OP_CNP               0x81
#define IB_CNP_PAYLOAD_LEN      16
/* the IP header's ECN field (RFC 3168) */
enum {
    IB_ECN_NOT_ECT = 0,
    IB_ECN_ECT1 = 1,
    IB_ECN_ECT0 = 2,
    IB_ECN_CE = 3,
};

/* AETH syndrome */
#define IB_AETH_ACK             0x00
#define IB_AETH_RNR_NAK         0x20
#define IB_AETH_NAK             0x60
#define IB_AETH_CREDITS_INVALID 0x1f
enum {
    IB_NAK_PSN_SEQ_ERR = 0,
    IB_NAK_INVALID_REQUEST = 1,
    IB_NAK_REMOTE_ACCESS_ERR = 2,
    IB_NAK_REMOTE_OP_ERR = 3,
    IB_NAK_INVALID_RD_REQUEST = 4,
};

/* Which extension headers an opcode carries (for encode and decode). */
enum {
    IB_HDR_RETH = 1 << 0,
    IB_HDR_DETH = 1 << 1,
    IB_HDR_IMMDT = 1 << 2,
    IB_HDR_IETH = 1 << 3,
    IB_HDR_AETH = 1 << 4,
    IB_HDR_ATOMIC_ETH = 1 << 5,
    IB_HDR_ATOMIC_ACK = 1 << 6,
    IB_HDR_PAYLOAD = 1 << 7,
    IB_HDR_FIRST = 1 << 8,      /* first (or only) packet of a message */
    IB_HDR_LAST = 1 << 9,       /* last (or only) packet of a message */
    IB_HDR_XRCETH = 1 << 10,    /* XRC request: the target XRC SRQ */
    /* DC request: access key, connection, initiator */
    IB_HDR_DCETH = 1 << 11,
    IB_HDR_VALID = 1 << 15,
};

/* A decoded (or to-be-encoded) packet. */
typedef struct IbPacket {
    /* LRH, carried in the Ethernet addresses */
    uint16_t dlid, slid;
    uint8_t sl;
    /* sending: low SLID bits under the port's LMC (ib_port_send) */
    uint8_t src_path_bits;
    /* GRH (IPv6 header) when grh is set */
    bool grh;
    uint8_t tclass;
    uint32_t flow_label;
    uint8_t hop_limit;
    uint8_t sgid[16], dgid[16];
    /* BTH */
    uint8_t opcode;
    bool se;
    bool migreq;
    uint8_t pad;
    uint16_t pkey;
    uint32_t dest_qpn;
    bool ack_req;
    uint32_t psn;
    bool becn;                  /* BTH: backward explicit congestion notice */
    /* extension headers */
    uint64_t reth_va;
    uint32_t reth_rkey, reth_len;
    uint32_t deth_qkey, deth_src_qpn;
    uint32_t xrc_srqn;          /* XRCETH */
    uint64_t dc_key;            /* DCETH: the DCT's access key */
    uint32_t dc_conn_id;        /* DCETH: the initiator's current connection */
    uint32_t dc_conn_psn;       /* DCETH: first PSN of that connection */
    uint32_t dc_src_qpn;        /* DCETH: the initiating DCI */
    uint32_t imm;               /* ImmDt in wire order, or IETH rkey */
    uint8_t aeth_syndrome;
    uint32_t aeth_msn;
    uint64_t atomic_va;
    uint32_t atomic_rkey;
    uint64_t atomic_swap_add, atomic_compare;
    uint64_t atomic_orig;
    /* payload (points into the frame on decode) */
    const uint8_t *payload;
    uint32_t payload_len;
    uint16_t udp_sport;
    /*
     * RoCE v2 framing (roce set): real Ethernet addresses, an optional 802.1Q
     * tag, and an IPv4 (ipv4: the GIDs are IPv4-mapped, ::ffff:a.b.c.d) or IPv6
     * header between the GIDs; there is no LRH (dlid/slid 0). Decode points
     * nethdr at the IP header as received.
     */
    bool roce;
    bool ipv4;
    bool vlan;
    uint16_t vlan_tci;
    uint8_t dmac[6], smac[6];
    const uint8_t *nethdr;
    uint8_t nethdr_len;
    /* sending: the source GID entry is not set (not sent) */
    bool no_route;
    /* force loopback: to this port's own receive path, never the wire */
    bool fl;
} IbPacket;

/* Header set of a BTH opcode, or 0 if the opcode is not supported. */
unsigned ib_opcode_headers(uint8_t opcode);
const char *ib_opcode_name(uint8_t opcode);

/*
 * Encode all headers of @p into @hdr (IB_MAX_HDR_LEN bytes). Returns the header
 * length.
 */
size_t ib_wire_encode_hdr(const IbPacket *p, uint8_t *hdr, size_t payload_len);
/*
 * Compute the ICRC of a frame made of @hdr (@hdr_len bytes) + payload (+ pad).
 */
uint32_t ib_wire_icrc(const uint8_t *hdr, size_t hdr_len,
                      const uint8_t *payload, size_t payload_len, size_t pad);

/*
 * CRC-32 of the ICRC (hw/rdma/ib/ib_crc.c), with zlib crc32()'s meaning: @crc
 * is a previous result (0 to start). ib_crc32() uses carry-less multiplication
 * where the host CPU has it (ib_crc32_have_clmul()); ib_crc32_generic() is
 * zlib's, for tests that compare the two.
 */
uint32_t ib_crc32(uint32_t crc, const void *buf, size_t len);
uint32_t ib_crc32_generic(uint32_t crc, const void *buf, size_t len);
bool ib_crc32_have_clmul(void);
/*
 * Fill the IP/UDP length fields after the total size is known (done by
 * encode_hdr).
 */

/*
 * The headers of a received Ethernet frame, parsed once (ib_eth_parse) and read
 * by everything that looks at the frame: a NIC's flow steering, RSS and
 * checksum offload (hw/rdma/mlx5/eth) and the RoCE v2 receive
 * (ib_roce_frame_is_ours, ib_wire_decode_roce_hdr). Offsets are from the start
 * of the frame; 0 means "not present".
 */
typedef struct IbEthHdr {
    uint16_t ethertype;         /* after the VLAN tags */
    uint8_t ntags;              /* VLAN tags in front of it (at most 2) */
    bool cvlan, svlan;          /* the outer tag: 802.1Q or 802.1ad */
    uint16_t tci;               /* the outer tag's */
    uint16_t l3;                /* the IPv4/IPv6 header */
    uint8_t ip_version;         /* 4, 6 or 0 */
    uint8_t proto;              /* IP protocol (IPv6: the next header) */
    bool frag;                  /* an IPv4 fragment (no L4 then) */
    uint16_t l4;                /* the TCP or UDP header */
    uint32_t l3_len;            /* bytes of the IP datagram in the frame */
    uint8_t src[16], dst[16];   /* IPv4 addresses in the first 4 bytes */
    uint16_t sport, dport;
} IbEthHdr;

/*
 * Parse Ethernet (up to two VLAN tags), IPv4/IPv6 and TCP/UDP. False if @len is
 * shorter than an Ethernet header; headers that are cut short or malformed are
 * left out (l3 or l4 = 0).
 */
bool ib_eth_parse(const uint8_t *frame, size_t len, IbEthHdr *h);
/*
 * @frame is the frame @h was parsed from with its outer VLAN tag removed:
 * update @h to it (offsets 4 bytes lower, the inner tag if any now outer).
 */
void ib_eth_hdr_untag(IbEthHdr *h, const uint8_t *frame);

/*
 * Decode a frame. Returns 0 and fills @p (payload points into @frame), or a
 * negative value if the frame is not for the IB fabric, malformed, or fails the
 * ICRC.
 */
int ib_wire_decode(const uint8_t *frame, size_t len, IbPacket *p);
/* The same, with the frame's headers as ib_eth_parse() found them. */
int ib_wire_decode_fabric_hdr(const uint8_t *frame, size_t len,
                              const IbEthHdr *h, IbPacket *p);
/*
 * The same for a RoCE v2 frame from an Ethernet link (any MACs; IPv4 or IPv6;
 * up to two VLAN tags).
 */
int ib_wire_decode_roce(const uint8_t *frame, size_t len, IbPacket *p);
/* The same, with the frame's headers as ib_eth_parse() found them. */
int ib_wire_decode_roce_hdr(const uint8_t *frame, size_t len,
                            const IbEthHdr *h, IbPacket *p);

/*
 * The Internet checksum (RFC 1071), for the IPv4 headers of RoCE v2 frames and
 * the Ethernet port's checksum offloads: ib_csum_add() sums @len bytes as
 * big-endian 16-bit words (an odd last byte is the high half of a word) onto
 * @sum; ib_csum_fold() folds the carries into 16 bits (the one's complement of
 * the result is the checksum field).
 */
uint32_t ib_csum_add(uint32_t sum, const uint8_t *b, size_t len);
uint16_t ib_csum_fold(uint32_t sum);

/* LID <-> MAC mapping */
void ib_wire_lid_mac(uint16_t lid, uint8_t sl, uint8_t mac[6]);

/* Big-endian (wire order) stores and loads */
static inline void ib_st16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static inline void ib_st24(uint8_t *p, uint32_t v)
{
    p[0] = v >> 16;
    p[1] = v >> 8;
    p[2] = v;
}
static inline void ib_st32(uint8_t *p, uint32_t v)
{
    ib_st16(p, v >> 16);
    ib_st16(p + 2, v);
}
static inline void ib_st64(uint8_t *p, uint64_t v)
{
    ib_st32(p, v >> 32);
    ib_st32(p + 4, v);
}
static inline uint16_t ib_ld16(const uint8_t *p) { return (p[0] << 8) | p[1]; }
static inline uint32_t ib_ld24(const uint8_t *p)
{
    return (p[0] << 16) | (p[1] << 8) | p[2];
}
static inline uint32_t ib_ld32(const uint8_t *p)
{
    return ((uint32_t)ib_ld16(p) << 16) | ib_ld16(p + 2);
}
static inline uint64_t ib_ld64(const uint8_t *p)
{
    return ((uint64_t)ib_ld32(p) << 32) | ib_ld32(p + 4);
}

static inline uint32_t ib_psn_add(uint32_t psn, uint32_t n)
{
    return (psn + n) & 0xffffff;
}

/* Signed distance a - b in the 24-bit PSN space. */
static inline int32_t ib_psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8) >> 8;
}

#endif
