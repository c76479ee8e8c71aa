/*
 * InfiniBand wire format: BTH and extension headers in RoCEv2-shaped fabric
 * frames, with ICRC. Pure functions, no device state: see
 * include/hw/rdma/ib/ib_wire.h and docs/fabric.md.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/rdma/ib/ib_wire.h"


#define F IB_HDR_FIRST
#define L IB_HDR_LAST
#define P IB_HDR_PAYLOAD
#define V IB_HDR_VALID

/* Header layout by operation (low 5 bits), shared by RC and UC. */
static const uint16_t ib_op_hdrs[32] = {
    [IB_OP_SEND_FIRST] = V | F | P,
    [IB_OP_SEND_MIDDLE] = V | P,
    [IB_OP_SEND_LAST] = V | L | P,
    [IB_OP_SEND_LAST_IMM] = V | L | P | IB_HDR_IMMDT,
    [IB_OP_SEND_ONLY] = V | F | L | P,
    [IB_OP_SEND_ONLY_IMM] = V | F | L | P | IB_HDR_IMMDT,
    [IB_OP_WRITE_FIRST] = V | F | P | IB_HDR_RETH,
    [IB_OP_WRITE_MIDDLE] = V | P,
    [IB_OP_WRITE_LAST] = V | L | P,
    [IB_OP_WRITE_LAST_IMM] = V | L | P | IB_HDR_IMMDT,
    [IB_OP_WRITE_ONLY] = V | F | L | P | IB_HDR_RETH,
    [IB_OP_WRITE_ONLY_IMM] = V | F | L | P | IB_HDR_RETH | IB_HDR_IMMDT,
    [IB_OP_READ_REQUEST] = V | F | L | IB_HDR_RETH,
    [IB_OP_READ_RESPONSE_FIRST] = V | F | P | IB_HDR_AETH,
    [IB_OP_READ_RESPONSE_MIDDLE] = V | P,
    [IB_OP_READ_RESPONSE_LAST] = V | L | P | IB_HDR_AETH,
    [IB_OP_READ_RESPONSE_ONLY] = V | F | L | P | IB_HDR_AETH,
    [IB_OP_ACKNOWLEDGE] = V | F | L | IB_HDR_AETH,
    [IB_OP_ATOMIC_ACKNOWLEDGE] = V | F | L | IB_HDR_AETH | IB_HDR_ATOMIC_ACK,
    [IB_OP_COMPARE_SWAP] = V | F | L | IB_HDR_ATOMIC_ETH,
    [IB_OP_FETCH_ADD] = V | F | L | IB_HDR_ATOMIC_ETH,
    [IB_OP_SEND_LAST_INV] = V | L | P | IB_HDR_IETH,
    [IB_OP_SEND_ONLY_INV] = V | F | L | P | IB_HDR_IETH,
};

static const char *const ib_op_names[32] = {
    [IB_OP_SEND_FIRST] = "SEND_FIRST",
    [IB_OP_SEND_MIDDLE] = "SEND_MIDDLE",
    [IB_OP_SEND_LAST] = "SEND_LAST",
    [IB_OP_SEND_LAST_IMM] = "SEND_LAST_IMM",
    [IB_OP_SEND_ONLY] = "SEND_ONLY",
    [IB_OP_SEND_ONLY_IMM] = "SEND_ONLY_IMM",
    [IB_OP_WRITE_FIRST] = "WRITE_FIRST",
    [IB_OP_WRITE_MIDDLE] = "WRITE_MIDDLE",
    [IB_OP_WRITE_LAST] = "WRITE_LAST",
    [IB_OP_WRITE_LAST_IMM] = "WRITE_LAST_IMM",
    [IB_OP_WRITE_ONLY] = "WRITE_ONLY",
    [IB_OP_WRITE_ONLY_IMM] = "WRITE_ONLY_IMM",
    [IB_OP_READ_REQUEST] = "READ_REQUEST",
    [IB_OP_READ_RESPONSE_FIRST] = "READ_RESPONSE_FIRST",
    [IB_OP_READ_RESPONSE_MIDDLE] = "READ_RESPONSE_MIDDLE",
    [IB_OP_READ_RESPONSE_LAST] = "READ_RESPONSE_LAST",
    [IB_OP_READ_RESPONSE_ONLY] = "READ_RESPONSE_ONLY",
    [IB_OP_ACKNOWLEDGE] = "ACKNOWLEDGE",
    [IB_OP_ATOMIC_ACKNOWLEDGE] = "ATOMIC_ACKNOWLEDGE",
    [IB_OP_COMPARE_SWAP] = "COMPARE_SWAP",
    [IB_OP_FETCH_ADD] = "FETCH_ADD",
    [IB_OP_SEND_LAST_INV] = "SEND_LAST_INV",
    [IB_OP_SEND_ONLY_INV] = "SEND_ONLY_INV",
};

unsigned ib_opcode_headers(uint8_t opcode)
{
    unsigned op = opcode & 0x1f;

    switch (opcode & 0xe0) {
    case IB_TRANSPORT_RC:
        return ib_op_hdrs[op];
    case IB_TRANSPORT_UC:
        /*
         * UC: SEND and RDMA WRITE, and SEND with Invalidate under RC's opcodes
         * (which the IBA leaves reserved for UC, but the verbs offer on UC:
         * docs/fabric.md)
         */
        return op <= IB_OP_WRITE_ONLY_IMM || op == IB_OP_SEND_LAST_INV ||
               op == IB_OP_SEND_ONLY_INV ? ib_op_hdrs[op] : 0;
    case IB_TRANSPORT_UD:
        if (op == IB_OP_SEND_ONLY || op == IB_OP_SEND_ONLY_IMM) {
            return ib_op_hdrs[op] | IB_HDR_DETH;
        }
        return 0;
    case IB_TRANSPORT_XRC:
        /* RC's operations; every request names its XRC SRQ, responses do not */
        if (!ib_op_hdrs[op]) {
            return 0;
        }
        if ((op >= IB_OP_READ_RESPONSE_FIRST &&
             op <= IB_OP_ATOMIC_ACKNOWLEDGE)) {
            return ib_op_hdrs[op];
        }
        return ib_op_hdrs[op] | IB_HDR_XRCETH;
    case IB_TRANSPORT_DC:
        /* RC's operations; every request says who connects with which key */
        if (!ib_op_hdrs[op]) {
            return 0;
        }
        if ((op >= IB_OP_READ_RESPONSE_FIRST &&
             op <= IB_OP_ATOMIC_ACKNOWLEDGE)) {
            return ib_op_hdrs[op];
        }
        return ib_op_hdrs[op] | IB_HDR_DCETH;
    case 0x80:
        /* RoCE v2 CNP: BTH and 16 reserved bytes (ib_cong.c) */
        return opcode == IB_OP_CNP ? IB_HDR_VALID | IB_HDR_PAYLOAD : 0;
    default:
        return 0;
    }
}

const char *ib_opcode_name(uint8_t opcode)
{
    if (opcode == IB_OP_CNP) {
        return "CNP";
    }
    return ib_opcode_headers(opcode) ? ib_op_names[opcode & 0x1f] : "INVALID";
}

void ib_wire_lid_mac(uint16_t lid, uint8_t sl, uint8_t mac[6])
{
    mac[0] = IB_MAC_OUI0;
    mac[1] = IB_MAC_OUI1;
    mac[2] = IB_MAC_OUI2;
    mac[3] = sl & 0xf;
    mac[4] = lid >> 8;
    mac[5] = lid & 0xff;
}

static size_t ib_ext_len(unsigned h)
{
    return (h & IB_HDR_XRCETH ? IB_XRCETH_LEN : 0) +
           (h & IB_HDR_DCETH ? IB_DCETH_LEN : 0) +
           (h & IB_HDR_DETH ? IB_DETH_LEN : 0) +
           (h & IB_HDR_RETH ? IB_RETH_LEN : 0) +
           (h & IB_HDR_ATOMIC_ETH ? IB_ATOMIC_ETH_LEN : 0) +
           (h & IB_HDR_AETH ? IB_AETH_LEN : 0) +
           (h & IB_HDR_ATOMIC_ACK ? IB_ATOMIC_ACK_LEN : 0) +
           (h & IB_HDR_IMMDT ? IB_IMMDT_LEN : 0) +
           (h & IB_HDR_IETH ? IB_IETH_LEN : 0);
}

uint32_t ib_csum_add(uint32_t sum, const uint8_t *b, size_t len)
{
    uint64_t s = sum;
    size_t i;

    for (i = 0; i + 1 < len; i += 2) {
        s += (b[i] << 8) | b[i + 1];
    }
    if (len & 1) {
        s += b[len - 1] << 8;
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return (uint32_t)s;
}

uint16_t ib_csum_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)sum;
}

/* an IPv4 header's checksum field (0 when the header is checked and right) */
static uint16_t ip_checksum(const uint8_t *p, size_t len)
{
    return (uint16_t)~ib_csum_fold(ib_csum_add(0, p, len));
}

size_t ib_wire_encode_hdr(const IbPacket *p, uint8_t *hdr, size_t payload_len)
{
    unsigned h = ib_opcode_headers(p->opcode);
    bool v6 = p->roce ? !p->ipv4 : p->grh;
    size_t ip_len = v6 ? IB_IPV6_HLEN : IB_IPV4_HLEN;
    size_t l2 = IB_ETH_HLEN + (p->roce && p->vlan ? IB_VLAN_HLEN : 0);
    size_t udp_len = IB_UDP_HLEN + IB_BTH_LEN + ib_ext_len(h) + payload_len +
                     p->pad + IB_ICRC_LEN;
    uint8_t *ip = hdr + l2, *udp = ip + ip_len, *bth = udp + IB_UDP_HLEN;
    uint8_t *x = bth + IB_BTH_LEN;
    /*
     * RoCE: the address vector's hop limit (a zero one would not cross the
     * first router)
     */
    uint8_t hops = p->roce ? (p->hop_limit ? p->hop_limit : 64) : p->hop_limit;

    if (p->roce) {
        memcpy(hdr, p->dmac, 6);
        memcpy(hdr + 6, p->smac, 6);
        if (p->vlan) {
            ib_st16(hdr + 12, IB_ETHERTYPE_VLAN);
            ib_st16(hdr + 14, p->vlan_tci);
        }
    } else {
        ib_wire_lid_mac(p->dlid, 0, hdr);
        ib_wire_lid_mac(p->slid, p->sl, hdr + 6);
    }
    if (v6) {
        ib_st16(ip - 2, IB_ETHERTYPE_IPV6);
        ib_st32(ip, (6u << 28) | ((uint32_t)p->tclass << 20) |
                        (p->flow_label & 0xfffff));
        ib_st16(ip + 4, udp_len);
        ip[6] = 17;
        ip[7] = hops;
        memcpy(ip + 8, p->sgid, 16);
        memcpy(ip + 24, p->dgid, 16);
    } else {
        ib_st16(ip - 2, IB_ETHERTYPE_IPV4);
        memset(ip, 0, IB_IPV4_HLEN);
        ip[0] = 0x45;
        ib_st16(ip + 2, IB_IPV4_HLEN + udp_len);
        ib_st16(ip + 6, 0x4000);                   /* DF */
        ip[9] = 17;
        if (p->roce) {
            ip[1] = p->tclass;                      /* DSCP and ECN */
            ip[8] = hops;
            memcpy(ip + 12, p->sgid + 12, 4);
            memcpy(ip + 16, p->dgid + 12, 4);
        } else {
            ip[8] = 64;
            ip[12] = 10; ip[13] = 73; ib_st16(ip + 14, p->slid);
            ip[16] = 10; ip[17] = 73; ib_st16(ip + 18, p->dlid);
        }
        ib_st16(ip + 10, ip_checksum(ip, IB_IPV4_HLEN));
    }
    ib_st16(udp, p->udp_sport | 0xc000);
    ib_st16(udp + 2, IB_ROCE_UDP_PORT);
    ib_st16(udp + 4, udp_len);
    ib_st16(udp + 6, 0);

    bth[0] = p->opcode;
    bth[1] = (p->se ? 0x80 : 0) | (p->migreq ? 0x40 : 0) | ((p->pad & 3) << 4);
    ib_st16(bth + 2, p->pkey);
    bth[4] = p->becn ? 0x40 : 0;
    ib_st24(bth + 5, p->dest_qpn);
    bth[8] = p->ack_req ? 0x80 : 0;
    ib_st24(bth + 9, p->psn);

    if (h & IB_HDR_XRCETH) {
        ib_st32(x, p->xrc_srqn & 0xffffff);
        x += IB_XRCETH_LEN;
    }
    if (h & IB_HDR_DCETH) {
        ib_st64(x, p->dc_key);
        ib_st32(x + 8, p->dc_conn_id);
        ib_st32(x + 12, p->dc_conn_psn & 0xffffff);
        ib_st32(x + 16, p->dc_src_qpn & 0xffffff);
        x += IB_DCETH_LEN;
    }
    if (h & IB_HDR_DETH) {
        ib_st32(x, p->deth_qkey);
        ib_st32(x + 4, p->deth_src_qpn & 0xffffff);
        x += IB_DETH_LEN;
    }
    if (h & IB_HDR_RETH) {
        ib_st64(x, p->reth_va);
        ib_st32(x + 8, p->reth_rkey);
        ib_st32(x + 12, p->reth_len);
        x += IB_RETH_LEN;
    }
    if (h & IB_HDR_ATOMIC_ETH) {
        ib_st64(x, p->atomic_va);
        ib_st32(x + 8, p->atomic_rkey);
        ib_st64(x + 12, p->atomic_swap_add);
        ib_st64(x + 20, p->atomic_compare);
        x += IB_ATOMIC_ETH_LEN;
    }
    if (h & IB_HDR_AETH) {
        x[0] = p->aeth_syndrome;
        ib_st24(x + 1, p->aeth_msn);
        x += IB_AETH_LEN;
    }
    if (h & IB_HDR_ATOMIC_ACK) {
        ib_st64(x, p->atomic_orig);
        x += IB_ATOMIC_ACK_LEN;
    }
    if (h & (IB_HDR_IMMDT | IB_HDR_IETH)) {
        memcpy(x, &p->imm, 4);                  /* ImmDt: wire order already */
        x += 4;
    }
    return x - hdr;
}

uint32_t ib_wire_icrc(const uint8_t *hdr, size_t hdr_len,
                      const uint8_t *payload, size_t payload_len, size_t pad)
{
    static const uint8_t zeros[4];
    /*
     * the ICRC's view of the headers, in one piece: one CRC call, folded when
     * long enough
     */
    uint8_t m[8 + IB_MAX_HDR_LEN - IB_ETH_HLEN];
    size_t l2 = ib_ld16(hdr + 12) == IB_ETHERTYPE_VLAN
                    ? IB_ETH_HLEN + IB_VLAN_HLEN
                    : IB_ETH_HLEN;
    bool v6 = ib_ld16(hdr + l2 - 2) == IB_ETHERTYPE_IPV6;
    size_t ip_len = v6 ? IB_IPV6_HLEN : IB_IPV4_HLEN;
    size_t n = MIN(hdr_len, IB_MAX_HDR_LEN) - l2;
    uint8_t *ip = m + 8;
    uint32_t crc;

    /*
     * RoCEv2 ICRC: 64 bits of ones for the absent LRH, variant fields masked to
     * ones (the Ethernet header and any VLAN tag are not covered)
     */
    memset(m, 0xff, 8);
    memcpy(ip, hdr + l2, n);
    if (v6) {
        ip[0] |= 0x0f;
        /* traffic class, flow label */
        ip[1] = ip[2] = ip[3] = 0xff;
        ip[7] = 0xff;                                 /* hop limit */
    } else {
        ip[1] = 0xff;                                 /* TOS */
        ip[8] = 0xff;                                 /* TTL */
        ip[10] = ip[11] = 0xff;                       /* header checksum */
    }
    ip[ip_len + 6] = ip[ip_len + 7] = 0xff;           /* UDP checksum */
    ip[ip_len + IB_UDP_HLEN + 4] = 0xff;              /* BTH FECN/BECN/resv */
    crc = ib_crc32(0, m, 8 + n);
    if (payload_len) {
        crc = ib_crc32(crc, payload, payload_len);
    }
    return pad ? ib_crc32(crc, zeros, pad) : crc;
}

/* ---- receive: parse once, then decode ------------------------------------ */

bool ib_eth_parse(const uint8_t *f, size_t len, IbEthHdr *h)
{
    size_t off = 12;

    memset(h, 0, sizeof(*h));
    if (len < IB_ETH_HLEN) {
        return false;
    }
    h->ethertype = ib_ld16(f + off);
    while ((h->ethertype == IB_ETHERTYPE_VLAN ||
            h->ethertype == IB_ETHERTYPE_QINQ) &&
           h->ntags < 2 && off + 6 <= len) {
        if (!h->ntags) {
            h->cvlan = h->ethertype == IB_ETHERTYPE_VLAN;
            h->svlan = h->ethertype == IB_ETHERTYPE_QINQ;
            h->tci = ib_ld16(f + off + 2);
        }
        off += IB_VLAN_HLEN;
        h->ntags++;
        h->ethertype = ib_ld16(f + off);
    }
    off += 2;
    if (h->ethertype == IB_ETHERTYPE_IPV4 && off + IB_IPV4_HLEN <= len &&
        (f[off] >> 4) == 4) {
        unsigned ihl = (f[off] & 0xf) * 4;
        size_t tot = ib_ld16(f + off + 2);

        if (tot == 0) {
            /* (an LSO header of more than 64 KiB: BIG TCP) */
            tot = len - off;
        }
        if (ihl < IB_IPV4_HLEN || off + ihl > len || tot < ihl) {
            return true;
        }
        h->l3 = off;
        h->ip_version = 4;
        h->proto = f[off + 9];
        h->frag = ib_ld16(f + off + 6) & 0x3fff;
        h->l3_len = MIN(tot, len - off);
        memcpy(h->src, f + off + 12, 4);
        memcpy(h->dst, f + off + 16, 4);
        off += ihl;
    } else if (h->ethertype == IB_ETHERTYPE_IPV6 &&
               off + IB_IPV6_HLEN <= len && (f[off] >> 4) == 6) {
        h->l3 = off;
        h->ip_version = 6;
        h->proto = f[off + 6];
        h->l3_len = MIN((size_t)ib_ld16(f + off + 4) + IB_IPV6_HLEN,
                        len - off);
        memcpy(h->src, f + off + 8, 16);
        memcpy(h->dst, f + off + 24, 16);
        off += IB_IPV6_HLEN;
    } else {
        return true;
    }
    if (!h->frag && ((h->proto == 6 && off + 20 <= len) ||
                     (h->proto == 17 && off + IB_UDP_HLEN <= len))) {
        h->l4 = off;
        h->sport = ib_ld16(f + off);
        h->dport = ib_ld16(f + off + 2);
    }
    return true;
}

void ib_eth_hdr_untag(IbEthHdr *h, const uint8_t *f)
{
    if (!h->ntags) {
        return;
    }
    h->ntags--;
    h->l3 = h->l3 ? h->l3 - IB_VLAN_HLEN : 0;
    h->l4 = h->l4 ? h->l4 - IB_VLAN_HLEN : 0;
    h->cvlan = h->svlan = false;
    h->tci = 0;
    if (h->ntags) {
        /* the inner tag is outer now (the frame is at least this long) */
        h->cvlan = ib_ld16(f + 12) == IB_ETHERTYPE_VLAN;
        h->svlan = !h->cvlan;
        h->tci = ib_ld16(f + 14);
    }
}

/*
 * Decode a fabric frame (@roce false: RoCE-shaped, LRH fields in the MACs, no
 * tags) or a RoCE v2 frame from an Ethernet link, from the headers @h that
 * ib_eth_parse() found.
 */
static int ib_wire_decode_frame(const uint8_t *f, size_t len, const IbEthHdr *h,
                                IbPacket *p, bool roce)
{
    size_t ip_len, udp_len, off, ext, hdr_len;
    const uint8_t *ip, *udp, *bth, *x;
    unsigned hdrs;
    uint32_t icrc;

    memset(p, 0, sizeof(*p));
    if (len <
        IB_ETH_HLEN + IB_IPV4_HLEN + IB_UDP_HLEN + IB_BTH_LEN + IB_ICRC_LEN) {
        return -1;
    }
    if (h->ethertype != IB_ETHERTYPE_IPV4 &&
        h->ethertype != IB_ETHERTYPE_IPV6) {
        return -1;
    }
    if (roce) {
        p->roce = true;
        memcpy(p->dmac, f, 6);
        memcpy(p->smac, f + 6, 6);
        p->vlan = h->ntags;
        p->vlan_tci = h->tci;
    } else {
        if (f[0] != IB_MAC_OUI0 || f[1] != IB_MAC_OUI1 || f[2] != IB_MAC_OUI2 ||
            f[6] != IB_MAC_OUI0 || f[7] != IB_MAC_OUI1 || f[8] != IB_MAC_OUI2 ||
            h->ntags) {
            return -1;
        }
        p->dlid = ib_ld16(f + 4);
        p->sl = f[9] & 0xf;
        p->slid = ib_ld16(f + 10);
    }
    if (!h->l3 || h->proto != 17) {
        return -2;                          /* cut short, or not UDP */
    }
    ip = f + h->l3;
    if (h->ip_version == 6) {
        ip_len = IB_IPV6_HLEN;
        if (h->l3 + ip_len + IB_UDP_HLEN > len) {
            return -2;
        }
        p->grh = true;
        p->tclass = (ib_ld32(ip) >> 20) & 0xff;
        p->flow_label = ib_ld32(ip) & 0xfffff;
        p->hop_limit = ip[7];
        memcpy(p->sgid, ip + 8, 16);
        memcpy(p->dgid, ip + 24, 16);
    } else {
        ip_len = IB_IPV4_HLEN;
        if (h->l3 + ip_len + IB_UDP_HLEN > len || ip[0] != 0x45 ||
            ib_ld16(ip + 2) > len - h->l3 || ib_ld16(ip + 2) < IB_IPV4_HLEN ||
            h->frag) {
            /* (fragments: RoCE v2 never fragments) */
            return -2;
        }
        if (roce) {
            /* the header checksum is not under the ICRC: check it here */
            if (ip_checksum(ip, IB_IPV4_HLEN)) {
                return -2;
            }
            p->ipv4 = true;
            p->tclass = ip[1];
            p->hop_limit = ip[8];
            p->sgid[10] = p->sgid[11] = p->dgid[10] = p->dgid[11] = 0xff;
            memcpy(p->sgid + 12, ip + 12, 4);
            memcpy(p->dgid + 12, ip + 16, 4);
        }
    }
    if (roce) {
        p->nethdr = ip;
        p->nethdr_len = ip_len;
    }
    udp = ip + ip_len;
    if (ib_ld16(udp + 2) != IB_ROCE_UDP_PORT) {
        return -1;
    }
    p->udp_sport = ib_ld16(udp);
    udp_len = ib_ld16(udp + 4);
    if (udp_len < IB_UDP_HLEN + IB_BTH_LEN + IB_ICRC_LEN ||
        udp_len > len - h->l3 - ip_len) {
        return -3;
    }
    bth = udp + IB_UDP_HLEN;
    p->opcode = bth[0];
    hdrs = ib_opcode_headers(p->opcode);
    if (!hdrs) {
        return -4;
    }
    p->se = bth[1] & 0x80;
    p->migreq = bth[1] & 0x40;
    p->pad = (bth[1] >> 4) & 3;
    p->pkey = ib_ld16(bth + 2);
    p->becn = bth[4] & 0x40;
    p->dest_qpn = ib_ld24(bth + 5);
    p->ack_req = bth[8] & 0x80;
    p->psn = ib_ld24(bth + 9);

    ext = ib_ext_len(hdrs);
    off = IB_UDP_HLEN + IB_BTH_LEN + ext;
    if (udp_len < off + p->pad + IB_ICRC_LEN) {
        return -5;
    }
    x = bth + IB_BTH_LEN;
    if (hdrs & IB_HDR_XRCETH) {
        p->xrc_srqn = ib_ld24(x + 1);
        x += IB_XRCETH_LEN;
    }
    if (hdrs & IB_HDR_DCETH) {
        p->dc_key = ib_ld64(x);
        p->dc_conn_id = ib_ld32(x + 8);
        p->dc_conn_psn = ib_ld24(x + 13);
        p->dc_src_qpn = ib_ld24(x + 17);
        x += IB_DCETH_LEN;
    }
    if (hdrs & IB_HDR_DETH) {
        p->deth_qkey = ib_ld32(x);
        p->deth_src_qpn = ib_ld24(x + 5);
        x += IB_DETH_LEN;
    }
    if (hdrs & IB_HDR_RETH) {
        p->reth_va = ib_ld64(x);
        p->reth_rkey = ib_ld32(x + 8);
        p->reth_len = ib_ld32(x + 12);
        x += IB_RETH_LEN;
    }
    if (hdrs & IB_HDR_ATOMIC_ETH) {
        p->atomic_va = ib_ld64(x);
        p->atomic_rkey = ib_ld32(x + 8);
        p->atomic_swap_add = ib_ld64(x + 12);
        p->atomic_compare = ib_ld64(x + 20);
        x += IB_ATOMIC_ETH_LEN;
    }
    if (hdrs & IB_HDR_AETH) {
        p->aeth_syndrome = x[0];
        p->aeth_msn = ib_ld24(x + 1);
        x += IB_AETH_LEN;
    }
    if (hdrs & IB_HDR_ATOMIC_ACK) {
        p->atomic_orig = ib_ld64(x);
        x += IB_ATOMIC_ACK_LEN;
    }
    if (hdrs & (IB_HDR_IMMDT | IB_HDR_IETH)) {
        memcpy(&p->imm, x, 4);
        x += 4;
    }
    p->payload = x;
    p->payload_len = udp_len - off - p->pad - IB_ICRC_LEN;
    if (!(hdrs & IB_HDR_PAYLOAD) && p->payload_len) {
        return -6;
    }
    hdr_len = x - f;
    icrc = ib_wire_icrc(f, hdr_len, p->payload, p->payload_len, 0);
    if (p->pad) {
        /* the pad bytes are part of the frame; fold them in as sent */
        icrc = ib_crc32(icrc, p->payload + p->payload_len, p->pad);
    }
    {
        const uint8_t *c = p->payload + p->payload_len + p->pad;
        uint32_t got = c[0] | (c[1] << 8) | (c[2] << 16) |
                       ((uint32_t)c[3] << 24);
        if (got != icrc) {
            return -7;
        }
    }
    return 0;
}

/* parse @f, then decode it (a frame shorter than an Ethernet header: -1) */
static int ib_wire_parse_decode(const uint8_t *f, size_t len, IbPacket *p,
                                bool roce)
{
    IbEthHdr h;

    if (!ib_eth_parse(f, len, &h)) {
        memset(p, 0, sizeof(*p));
        return -1;
    }
    return ib_wire_decode_frame(f, len, &h, p, roce);
}

int ib_wire_decode(const uint8_t *f, size_t len, IbPacket *p)
{
    return ib_wire_parse_decode(f, len, p, false);
}

int ib_wire_decode_fabric_hdr(const uint8_t *f, size_t len, const IbEthHdr *h,
                              IbPacket *p)
{
    return ib_wire_decode_frame(f, len, h, p, false);
}

int ib_wire_decode_roce_hdr(const uint8_t *f, size_t len, const IbEthHdr *h,
                            IbPacket *p)
{
    return ib_wire_decode_frame(f, len, h, p, true);
}

int ib_wire_decode_roce(const uint8_t *f, size_t len, IbPacket *p)
{
    return ib_wire_parse_decode(f, len, p, true);
}
