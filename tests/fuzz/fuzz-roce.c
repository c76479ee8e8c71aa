/*
 * Fuzz target: frames from an Ethernet link with RoCE v2 (an Ethernet node, fz_node_new_eth).
 * Every frame goes through mlx5_eth_rx: RoCE v2 to our MAC, UDP 4791 and one of our GIDs (over
 * IPv4 with its header checksum or IPv6, with or without an 802.1Q tag) to the RDMA transport's
 * RoCE decoder and QPs of every transport (RC, UC, UD, RC on SRQ, QP1, DCT); everything else to
 * mlx5e's parser and flow steering (no flow tables: dropped). roce_en and the GID entries are
 * toggled under traffic, so that which side a frame goes to changes.
 *
 * Record: flags u8, len u16, frame[len] (at most IB_MAX_FRAME).
 *   flags: 1 = recompute the IP lengths (IPv4 total length and header checksum, IPv6 payload
 *          length), the UDP length and the ICRC (else a mutated frame is dropped by its ICRC
 *          or IP checksum, which is also worth testing); 2 = address the frame to this node
 *          (its MAC; GID 1's IPv4 address or GID 0's IPv6 address by the ethertype; UDP port
 *          4791); 4 = a destination QPN above 1 names one of this node's QPs (RC, UC, UD, RC
 *          on SRQ, QP1, DCI, DCT) by its value modulo 7; 8 = let the timers run afterwards;
 *          16 = before the frame, toggle roce_en; 32 = before the frame, clear GID entry
 *          (64 ? 0 : 1) if it is set, else set it again.
 *   Both the 802.1Q tag (ethertype 0x8100 at 12: an 18-byte L2 header) and its absence are
 *   understood by flags 1, 2 and 4.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"
#include "hw/rdma/ib/ib_wire.h"
#include "mlx5_eth.h"

typedef struct FzRoceHdr {
    size_t l2, ip_len;                  /* the L2 header's and the IP header's lengths */
    bool v6;
} FzRoceHdr;

static FzRoceHdr fz_roce_hdr(const uint8_t *f, size_t len)
{
    FzRoceHdr h = { IB_ETH_HLEN, IB_IPV4_HLEN, false };

    if (len >= IB_ETH_HLEN + IB_VLAN_HLEN && ib_ld16(f + 12) == IB_ETHERTYPE_VLAN) {
        h.l2 += IB_VLAN_HLEN;
    }
    if (len >= h.l2 && ib_ld16(f + h.l2 - 2) == IB_ETHERTYPE_IPV6) {
        h.v6 = true;
        h.ip_len = IB_IPV6_HLEN;
    }
    return h;
}

/* Recompute the IP and UDP lengths, the IPv4 header checksum and the ICRC of a RoCE v2 frame. */
static void fz_fix_roce(uint8_t *f, size_t len)
{
    FzRoceHdr h = fz_roce_hdr(f, len);
    size_t hdr = h.l2 + h.ip_len + IB_UDP_HLEN + IB_BTH_LEN, udp_len;
    uint8_t *ip = f + h.l2;
    uint32_t crc;

    if (len < hdr + IB_ICRC_LEN) {
        return;
    }
    if (h.v6) {
        ib_st16(ip + 4, len - h.l2 - h.ip_len);
    } else {
        ib_st16(ip + 2, len - h.l2);
        ib_st16(ip + 10, 0);
        ib_st16(ip + 10, ~ib_csum_fold(ib_csum_add(0, ip, IB_IPV4_HLEN)));
    }
    udp_len = len - h.l2 - h.ip_len;
    ib_st16(ip + h.ip_len + 4, udp_len);
    crc = ib_wire_icrc(f, hdr, f + hdr, len - hdr - IB_ICRC_LEN, 0);
    for (int k = 0; k < 4; k++) {
        f[len - 4 + k] = crc >> (8 * k);
    }
}

/* Send it to this node: its MAC, the GID of the frame's IP version, UDP port 4791. */
static void fz_address_roce(uint8_t *f, size_t len)
{
    FzRoceHdr h = fz_roce_hdr(f, len);
    uint8_t *ip = f + h.l2;

    if (len >= 6) {
        memcpy(f, fz_mac, 6);
    }
    if (h.v6 && len >= h.l2 + 40) {
        memcpy(ip + 24, fz_gid_v6, 16);
    } else if (!h.v6 && len >= h.l2 + 20) {
        memcpy(ip + 16, fz_gid_v4 + 12, 4);
    }
    if (len >= h.l2 + h.ip_len + 4) {
        ib_st16(ip + h.ip_len + 2, IB_ROCE_UDP_PORT);
    }
}

static void fz_toggle(FzNode *n, uint8_t flags)
{
    Mlx5Core *c = n->d->c;

    if (flags & 16) {
        fz_set_roce_en(n, !c->eth->roce_en);
    }
    if (flags & 32) {
        unsigned g = flags & 64 ? FZ_GID_V6 : FZ_GID_V4;

        fz_set_gid(n, g, !(c->ib.gids && c->ib.gids[g].valid));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    FzNode *n = fz_node_new_eth(true);
    g_autofree uint8_t *frame = g_malloc(IB_MAX_FRAME);

    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !n->d->c->health_fatal; r++) {
        uint8_t flags = fz_u8(&f);
        size_t len = fz_u16(&f);
        FzRoceHdr h;
        size_t bth;

        len = MIN(len, IB_MAX_FRAME);
        fz_bytes(&f, frame, len);
        h = fz_roce_hdr(frame, len);
        bth = h.l2 + h.ip_len + IB_UDP_HLEN;
        fz_toggle(n, flags);
        if (flags & 2) {
            fz_address_roce(frame, len);
        }
        if ((flags & 4) && len >= bth + IB_BTH_LEN) {
            fz_map_qpn(n, frame + bth);
        }
        if (flags & 1) {
            fz_fix_roce(frame, len);
        }
        fz_link_rx(n, frame, len, flags & 8);
    }
    fz_check(n);
    fz_node_free(n);
    return 0;
}
