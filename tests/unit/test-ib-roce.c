/*
 * Unit tests of RoCE v2 in the vendor-neutral transport (ib_roce.c, ib_wire.c): the frames as
 * they go on an Ethernet wire (MACs, 802.1Q, IPv4 with a valid header checksum or IPv6, UDP
 * 4791, the ICRC), RC and UD between two RoCE ports on the fake wire, the network header a UD
 * receive gets, and what a port must not take or send.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ib-fakewire.h"

static uint16_t csum16(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;

    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += (p[i] << 8) | p[i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum & 0xffff;
}

/* Encode a RoCE packet with @payload, its pad and ICRC into @frame; returns the length. */
static size_t encode(IbPacket *p, uint8_t *frame, const uint8_t *payload, size_t len)
{
    size_t hlen;
    uint32_t crc;

    p->pad = (4 - (len & 3)) & 3;
    hlen = ib_wire_encode_hdr(p, frame, len);
    memcpy(frame + hlen, payload, len);
    memset(frame + hlen + len, 0, p->pad);
    crc = ib_wire_icrc(frame, hlen, payload, len, p->pad);
    for (int i = 0; i < 4; i++) {
        frame[hlen + len + p->pad + i] = crc >> (8 * i);
    }
    return hlen + len + p->pad + 4;
}

static void roce_packet(IbPacket *p, bool ipv4, bool vlan)
{
    memset(p, 0, sizeof(*p));
    p->roce = true;
    p->ipv4 = ipv4;
    p->grh = !ipv4;
    p->vlan = vlan;
    p->vlan_tci = (5 << 13) | 100;
    memcpy(p->dmac, (uint8_t[]){ 0x02, 0, 0, 0, 0, 2 }, 6);
    memcpy(p->smac, (uint8_t[]){ 0x02, 0, 0, 0, 0, 1 }, 6);
    roce_gid(p->sgid, 0, ipv4);
    roce_gid(p->dgid, 1, ipv4);
    p->tclass = 0x12;
    p->hop_limit = 7;
    p->flow_label = 0x12345;
    p->udp_sport = 0xd00d;
    p->opcode = IB_TRANSPORT_UD | IB_OP_SEND_ONLY_IMM;
    p->pkey = 0xffff;
    p->dest_qpn = 0x20;
    p->psn = 0x123456;
    p->deth_qkey = 0x11111111;
    p->deth_src_qpn = 0x10;
    p->imm = 0xdeadbeef;
}

/* The frames as they go on the wire, and back */
static void test_roce_wire(void)
{
    uint8_t frame[IB_MAX_HDR_LEN + 64], payload[13];
    IbPacket p, q;
    size_t len;

    fill(payload, sizeof(payload), 9);
    for (int v4 = 0; v4 < 2; v4++) {
        for (int vlan = 0; vlan < 2; vlan++) {
            size_t l2 = vlan ? 18 : 14;
            const uint8_t *ip = frame + l2, *udp;

            roce_packet(&p, v4, vlan);
            len = encode(&p, frame, payload, sizeof(payload));
            g_assert_cmpmem(frame, 6, p.dmac, 6);
            g_assert_cmpmem(frame + 6, 6, p.smac, 6);
            if (vlan) {
                g_assert_cmphex(ib_ld16(frame + 12), ==, 0x8100);
                g_assert_cmphex(ib_ld16(frame + 14), ==, (5 << 13) | 100);
            }
            g_assert_cmphex(ib_ld16(frame + l2 - 2), ==, v4 ? 0x0800 : 0x86dd);
            if (v4) {
                g_assert_cmphex(ip[0], ==, 0x45);
                g_assert_cmphex(ip[1], ==, 0x12);           /* TOS = traffic class */
                g_assert_cmpuint(ip[8], ==, 7);             /* TTL = hop limit */
                g_assert_cmpuint(ib_ld16(ip + 2), ==, len - l2);
                g_assert_cmphex(csum16(ip, 20), ==, 0);     /* a valid header checksum */
                g_assert_cmpmem(ip + 12, 4, ((uint8_t[]){ 192, 168, 77, 1 }), 4);
                g_assert_cmpmem(ip + 16, 4, ((uint8_t[]){ 192, 168, 77, 2 }), 4);
                udp = ip + 20;
            } else {
                g_assert_cmphex(ib_ld32(ip), ==, (6u << 28) | (0x12 << 20) | 0x12345);
                g_assert_cmpuint(ip[6], ==, 17);
                g_assert_cmpuint(ip[7], ==, 7);
                g_assert_cmpmem(ip + 8, 16, p.sgid, 16);
                g_assert_cmpmem(ip + 24, 16, p.dgid, 16);
                udp = ip + 40;
            }
            g_assert_cmphex(ib_ld16(udp), ==, 0xd00d);
            g_assert_cmpuint(ib_ld16(udp + 2), ==, 4791);
            g_assert_cmpuint(ib_ld16(udp + 4), ==, frame + len - udp);

            g_assert_cmpint(ib_wire_decode_roce(frame, len, &q), ==, 0);
            g_assert_true(q.roce && q.ipv4 == v4 && q.vlan == vlan);
            g_assert_cmpmem(q.sgid, 16, p.sgid, 16);
            g_assert_cmpmem(q.dgid, 16, p.dgid, 16);
            g_assert_cmpmem(q.smac, 6, p.smac, 6);
            g_assert_cmpuint(q.nethdr_len, ==, v4 ? 20 : 40);
            g_assert_true(q.nethdr == ip);
            g_assert_cmphex(q.deth_qkey, ==, 0x11111111);
            g_assert_cmphex(q.imm, ==, 0xdeadbeef);
            g_assert_cmpuint(q.payload_len, ==, sizeof(payload));
            g_assert_cmpmem(q.payload, q.payload_len, payload, sizeof(payload));
            /* an IB-mode decoder does not take it (no 02:49:42 LID addresses) */
            g_assert_cmpint(ib_wire_decode(frame, len, &q), ==, -1);
            /* the variant fields are outside the ICRC: a router may change them */
            frame[l2 + (v4 ? 8 : 7)] -= 1;                  /* TTL / hop limit */
            if (v4) {
                frame[l2 + 10] = 0;                         /* ...and fix the checksum */
                frame[l2 + 11] = 0;
                uint16_t c = csum16(ip, 20);
                frame[l2 + 10] = c >> 8;
                frame[l2 + 11] = c;
            }
            g_assert_cmpint(ib_wire_decode_roce(frame, len, &q), ==, 0);
            /* a damaged payload fails the ICRC */
            frame[len - 6] ^= 0x40;
            g_assert_cmpint(ib_wire_decode_roce(frame, len, &q), ==, -7);
            frame[len - 6] ^= 0x40;
            if (v4) {
                /* a bad IPv4 header checksum (not under the ICRC), a fragment: dropped */
                frame[l2 + 10] ^= 1;
                g_assert_cmpint(ib_wire_decode_roce(frame, len, &q), ==, -2);
                frame[l2 + 10] ^= 1;
                frame[l2 + 6] |= 0x20;                      /* MF */
                g_assert_cmpint(ib_wire_decode_roce(frame, len, &q), ==, -2);
                frame[l2 + 6] &= ~0x20;
            }
            for (size_t cut = 0; cut < len; cut++) {
                g_assert_cmpint(ib_wire_decode_roce(frame, cut, &q), <, 0);
            }
        }
    }
}

/* RC over RoCE v2 (IPv4 and IPv6 GIDs, one with a VLAN), with loss: SEND, WRITE, READ */
static void test_roce_rc(void)
{
    for (unsigned sgid = 0; sgid < 2; sgid++) {
        Wire *w = wire_new(IB_QPT_RC, 3);
        FakeNode *a = w->node[0], *b = w->node[1];
        IbPacket q;

        wire_roce(w, sgid, sgid == 0, 42);
        a->qp.av.udp_sport = 0xc123;
        fill(a->mem, 100000, 4);
        fill(b->mem + 500000, 50000, 5);
        post_recv(b, 0x100000, 200000);
        post_send(a, IB_WR_SEND, 0, 100000, 0, 1);
        /* the first frame: our MACs, the VLAN, the path's UDP source port */
        ib_port_run(&a->port, 1);
        g_assert_cmpuint(w->count, ==, 1);
        g_assert_cmpint(ib_wire_decode_roce(w->frame[0], w->len[0], &q), ==, 0);
        g_assert_cmpmem(q.dmac, 6, ((uint8_t[]){ 2, 0, 0, 0, 0, 2 }), 6);
        g_assert_cmpmem(q.smac, 6, ((uint8_t[]){ 2, 0, 0, 0, 0, 1 }), 6);
        g_assert_true(q.vlan == (sgid == 0) && q.ipv4 == (sgid == 1));
        g_assert_cmphex(q.vlan_tci & 0xfff, ==, sgid == 0 ? 42 : 0);
        g_assert_cmphex(q.udp_sport, ==, 0xc123);
        w->drop_every = 7;
        post_send(a, IB_WR_RDMA_WRITE, 0, 100000, 0x80000, 2);
        post_send(a, IB_WR_RDMA_READ, 0x40000, 50000, 500000, 3);
        wire_run(w, 100000);
        g_assert_cmpuint(a->nsend, ==, 3);
        for (unsigned i = 0; i < 3; i++) {
            g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        }
        g_assert_cmpuint(b->nrecv, ==, 1);
        g_assert_cmpuint(b->recv[0].byte_len, ==, 100000);
        g_assert_cmpmem(b->mem + 0x100000, 100000, a->mem, 100000);
        g_assert_cmpmem(b->mem + 0x80000, 100000, a->mem, 100000);
        g_assert_cmpmem(a->mem + 0x40000, 50000, b->mem + 500000, 50000);
        g_assert_cmpuint(a->port.stat_rx_bad + b->port.stat_rx_bad, ==, 0);
        wire_free(w);
    }
}

/* UD over RoCE v2: the receive buffer starts with the network header as received */
static void test_roce_ud(void)
{
    for (unsigned sgid = 0; sgid < 2; sgid++) {
        Wire *w = wire_new(IB_QPT_UD, 5);
        FakeNode *a = w->node[0], *b = w->node[1];
        IbSendWr wr = { .cookie = 7, .opcode = IB_WR_SEND, .length = 1000, .dest_qpn = 0x20,
                        .qkey = 0x11111111 };
        const uint8_t *nh = b->mem + 0x1000;

        wire_roce(w, sgid, sgid == 1, 7);
        wr.av = a->qp.av;
        wr.av.sl = 3;
        fill(a->mem, 1000, 6);
        post_recv(b, 0x1000, 4096);
        memset(b->mem + 0x1000, 0xee, 40);
        g_assert_true(ib_qp_post_send(&a->qp, &wr));
        wire_run(w, 1000);
        g_assert_cmpuint(a->nsend, ==, 1);
        g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
        g_assert_cmpuint(b->nrecv, ==, 1);
        g_assert_cmpuint(b->recv[0].byte_len, ==, 1040);
        g_assert_true(b->recv[0].grh);
        g_assert_cmpint(b->recv[0].net_type, ==, sgid ? IB_NET_ROCE_IPV4 : IB_NET_ROCE_IPV6);
        g_assert_cmpuint(b->recv[0].slid, ==, 0);
        g_assert_cmpuint(b->recv[0].src_qpn, ==, 0x10);
        g_assert_true(b->recv[0].vlan == (sgid == 1));
        if (sgid) {
            /* 20 zero bytes, then the IPv4 header (kernel: union rdma_network_hdr) */
            for (int i = 0; i < 20; i++) {
                g_assert_cmpuint(nh[i], ==, 0);
            }
            g_assert_cmphex(nh[20], ==, 0x45);
            g_assert_cmphex(csum16(nh + 20, 20), ==, 0);
            g_assert_cmpmem(nh + 32, 4, ((uint8_t[]){ 192, 168, 77, 1 }), 4);
            g_assert_cmphex(b->recv[0].vlan_tci & 0xfff, ==, 7);
        } else {
            uint8_t sgid0[16];
            roce_gid(sgid0, 0, false);
            g_assert_cmphex(nh[0] >> 4, ==, 6);
            g_assert_cmpuint(nh[6], ==, 17);                /* next header UDP */
            g_assert_cmpmem(nh + 8, 16, sgid0, 16);
        }
        g_assert_cmpmem(b->mem + 0x1000 + 40, 1000, a->mem, 1000);
        wire_free(w);
    }
}

/* The frames @n sent that are still on the wire: how many are ECN-capable, how many CNPs */
static void count_frames(Wire *w, int dst, unsigned *ect, unsigned *cnp)
{
    IbPacket q;

    *ect = *cnp = 0;
    for (unsigned i = 0; i < w->count; i++) {
        if (w->dst[i] == dst && !ib_wire_decode_roce(w->frame[i], w->len[i], &q)) {
            *ect += (q.tclass & 3) == IB_ECN_ECT0;
            if (q.opcode == IB_OP_CNP) {
                (*cnp)++;
                g_assert_true(q.becn);
                g_assert_cmpuint(q.payload_len, ==, IB_CNP_PAYLOAD_LEN);
                g_assert_cmphex(q.tclass, ==, 48 << 2);     /* cnp_dscp, not ECT */
                g_assert_cmphex(q.dest_qpn, ==, 0x10);      /* the sending QP */
            }
        }
    }
}

/*
 * RoCE congestion control (ib_cong.c): the sender's frames go out ECN-capable, the fabric
 * marks them CE (fault injection), the receiver counts them and answers with CNPs to the
 * sending QP, the sender handles them; disabled nodes and a CNP priority the sender's RP is
 * not enabled for; IPv4 and IPv6; the data arrives whole all the same.
 */
static void test_roce_cong(void)
{
    for (unsigned round = 0; round < 5; round++) {
        Wire *w = wire_new(IB_QPT_RC, 3);
        FakeNode *a = w->node[0], *b = w->node[1];
        IbFaultConfig ecn = { .ecn = 100 };
        IbCongStats *sa = &a->port.cong_stats, *sb = &b->port.cong_stats;
        unsigned ect, cnp;

        /* round 4: IPv6 GIDs (the ECN field straddles the version and traffic class) */
        wire_roce(w, round == 4 ? 0 : 1, round == 3, 9);
        ib_fault_configure(&b->port, &ecn);
        if (round == 1) {
            a->port.cong.rp_enable = 0;             /* the sender: not ECN-capable */
        } else if (round == 2) {
            b->port.cong.np_enable = 0;             /* the receiver sends no CNP */
        } else if (round == 3) {
            /* tagged: data at priority 0, CNPs at cnp_802p_prio 6, which a ignores */
            a->port.cong.rp_enable = 1;
        }
        fill(a->mem, 20000, 11);
        post_recv(b, 0x100000, 20000);
        post_send(a, IB_WR_SEND, 0, 20000, 0, 1);
        ib_port_run(&a->port, 1);
        count_frames(w, 1, &ect, &cnp);
        g_assert_cmpuint(ect, ==, round != 1);
        wire_run(w, 100000);
        g_assert_cmpuint(a->nsend, ==, 1);
        g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
        g_assert_cmpmem(b->mem + 0x100000, 20000, a->mem, 20000);
        /* 20000 bytes in 1024-byte packets: 20 data frames, each marked (100%) */
        g_assert_cmpuint(sb->np_ecn_marked_roce_packets, ==, round == 1 ? 0 : 20);
        if (round == 0 || round == 3 || round == 4) {
            /* a CNP per marked frame at most, and at least one */
            g_assert_cmpuint(sb->np_cnp_sent, >=, 1);
            g_assert_cmpuint(sb->np_cnp_sent, <=, 20);
        } else {
            g_assert_cmpuint(sb->np_cnp_sent, ==, 0);
        }
        g_assert_cmpuint(sa->rp_cnp_handled, ==, round == 0 || round == 4 ? sb->np_cnp_sent : 0);
        g_assert_cmpuint(sa->rp_cnp_ignored, ==, round == 3 ? sb->np_cnp_sent : 0);
        /* nothing came back marked: the ACKs crossed a link without the fault */
        g_assert_cmpuint(sa->np_ecn_marked_roce_packets + sa->np_cnp_sent, ==, 0);
        g_assert_cmpuint(a->port.stat_rx_bad + b->port.stat_rx_bad, ==, 0);
        wire_free(w);
    }
}

/* ib_roce_frame_is_ours on a frame as the Ethernet receive gives it: parsed once */
static bool frame_is_ours(const IbPort *port, const uint8_t *f, size_t len)
{
    IbEthHdr h;

    return ib_eth_parse(f, len, &h) && ib_roce_frame_is_ours(port, f, &h);
}

/* What a RoCE port does not send or take */
static void test_roce_refuse(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    uint8_t frame[IB_MAX_HDR_LEN + 64], payload[8] = { 0 };
    IbPacket p;
    size_t len;

    wire_roce(w, 1, false, 0);
    /* a source GID index that is not set: nothing leaves */
    a->qp.av.sgid_index = 5;
    post_send(a, IB_WR_SEND, 0, 100, 0, 1);
    ib_port_run(&a->port, 8);
    g_assert_cmpuint(w->count, ==, 0);
    g_assert_cmpuint(a->port.stat_roce_no_gid, ==, 1);
    g_assert_false(ib_roce_set_gid(&a->port, IB_ROCE_MAX_GIDS, NULL));

    /* frames the NIC keeps: to another MAC, another GID, another UDP port, not IP */
    roce_packet(&p, true, false);
    p.opcode = IB_TRANSPORT_RC | IB_OP_SEND_ONLY;
    len = encode(&p, frame, payload, sizeof(payload));
    g_assert_true(frame_is_ours(&b->port, frame, len));
    g_assert_false(frame_is_ours(&a->port, frame, len));     /* not a's MAC */
    frame[5] = 9;
    g_assert_false(frame_is_ours(&b->port, frame, len));
    /* ... unless it is the MAC of the GID the frame is for (its netdev's: changed, random) */
    {
        uint8_t keep[IB_ROCE_MAX_GIDS];

        for (unsigned i = 0; i < b->port.gid_end; i++) {
            keep[i] = b->port.gids[i].mac[5];
            b->port.gids[i].mac[5] = 9;
        }
        g_assert_true(frame_is_ours(&b->port, frame, len));
        for (unsigned i = 0; i < b->port.gid_end; i++) {
            b->port.gids[i].mac[5] = keep[i];
        }
    }
    frame[5] = 2;
    frame[14 + 19] = 99;                                             /* another IPv4 address */
    g_assert_false(frame_is_ours(&b->port, frame, len));
    frame[14 + 19] = 2;
    frame[14 + 20 + 3] = 0x99;                                       /* UDP port 4761 */
    g_assert_false(frame_is_ours(&b->port, frame, len));
    frame[14 + 20 + 3] = 4791 & 0xff;
    for (size_t cut = 0; cut < 14 + 20 + 8; cut++) {
        g_assert_false(frame_is_ours(&b->port, frame, cut));
    }
    /* lookups scan up to the highest set index: an entry far up is found, and clearing the
     * top entries brings the bound back down to the highest one still set */
    {
        IbRoceGid g = b->port.gids[1];
        g_assert_cmpuint(b->port.gid_end, ==, 2);
        g_assert_true(ib_roce_set_gid(&b->port, 1, NULL));
        g_assert_true(ib_roce_set_gid(&b->port, 100, &g));
        g_assert_cmpuint(b->port.gid_end, ==, 101);
        g_assert_cmpint(ib_roce_find_gid(&b->port, g.gid), ==, 100);
        g_assert_true(frame_is_ours(&b->port, frame, len));
        g_assert_true(ib_roce_set_gid(&b->port, 100, NULL));
        g_assert_cmpuint(b->port.gid_end, ==, b->port.gids[0].valid ? 1 : 0);
        g_assert_cmpint(ib_roce_find_gid(&b->port, g.gid), ==, -1);
    }
    /* after its GID is cleared the port takes nothing for that address */
    g_assert_false(frame_is_ours(&b->port, frame, len));
    ib_port_rx(&b->port, frame, len);
    g_assert_cmpuint(b->port.stat_rx, ==, 0);
    wire_free(w);
}

/* UD multicast over RoCE: an IPv4-mapped group, to the attached QP only */
static void test_roce_mcast(void)
{
    Wire *w = wire_new(IB_QPT_UD, 5);
    FakeNode *a = w->node[0], *b = w->node[1];
    static const uint8_t mgid[16] = { [10] = 0xff, [11] = 0xff, [12] = 230, [13] = 1,
                                      [14] = 2, [15] = 3 };
    IbSendWr wr = { .cookie = 1, .opcode = IB_WR_SEND, .length = 100, .dest_qpn = IB_QPN_MASK,
                    .qkey = 0x11111111 };

    wire_roce(w, 1, false, 0);
    wr.av = a->qp.av;
    memcpy(wr.av.dgid, mgid, 16);
    memcpy(wr.av.dmac, ((uint8_t[]){ 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 }), 6);
    /* an IPv4-mapped unicast address is no group; a multicast one is (RoCE only) */
    g_assert_cmpint(ib_mcast_attach(&b->port, a->qp.av.dgid, b->qp.qpn, 8), ==, IB_MCAST_BAD_GID);
    fill(a->mem, 100, 3);
    post_recv(b, 0x1000, 4096);
    /* not attached: dropped */
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 100);
    g_assert_cmpuint(b->nrecv, ==, 0);
    g_assert_cmpint(ib_mcast_attach(&b->port, mgid, b->qp.qpn, 8), ==, IB_MCAST_OK);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 100);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpint(b->recv[0].net_type, ==, IB_NET_ROCE_IPV4);
    g_assert_cmpmem(b->mem + 0x1000 + 40, 100, a->mem, 100);
    g_assert_cmpuint(b->port.stat_rx_mcast, ==, 2);      /* (both arrived) */
    wire_free(w);
}

/*
 * The one parse of a received frame (ib_eth_parse): VLAN tags (802.1Q and
 * 802.1ad, up to two), IPv4/IPv6, UDP; and after the outer tag is stripped
 * (ib_eth_hdr_untag), the headers are what parsing the shorter frame gives.
 */
static void test_eth_parse(void)
{
    static const uint16_t tpids[][2] = {
        { 0, 0 }, { 0x8100, 0 }, { 0x88a8, 0x8100 }, { 0x8100, 0x8100 },
    };

    for (unsigned t = 0; t < G_N_ELEMENTS(tpids); t++) {
        for (int v6 = 0; v6 < 2; v6++) {
            uint8_t f[128] = { 0 }, g[128];
            unsigned ntags = !!tpids[t][0] + !!tpids[t][1];
            size_t off = 12, l3, len;
            IbEthHdr h, h2;

            for (unsigned i = 0; i < ntags; i++) {
                ib_st16(f + off, tpids[t][i]);
                ib_st16(f + off + 2, 0x2000 | (10 + i));
                off += 4;
            }
            ib_st16(f + off, v6 ? IB_ETHERTYPE_IPV6 : IB_ETHERTYPE_IPV4);
            l3 = off + 2;
            if (v6) {
                f[l3] = 0x60;
                ib_st16(f + l3 + 4, 8 + 16);
                f[l3 + 6] = 17;
                f[l3 + 24 + 15] = 7;
                len = l3 + 40 + 8 + 16;
            } else {
                f[l3] = 0x45;
                ib_st16(f + l3 + 2, 20 + 8 + 16);
                f[l3 + 9] = 17;
                f[l3 + 19] = 7;
                len = l3 + 20 + 8 + 16;
            }
            ib_st16(f + l3 + (v6 ? 40 : 20) + 2, IB_ROCE_UDP_PORT);

            g_assert_true(ib_eth_parse(f, len, &h));
            g_assert_cmpuint(h.ntags, ==, ntags);
            g_assert_cmpuint(h.l3, ==, l3);
            g_assert_cmpuint(h.l4, ==, l3 + (v6 ? 40 : 20));
            g_assert_cmpuint(h.ip_version, ==, v6 ? 6 : 4);
            g_assert_cmpuint(h.dport, ==, IB_ROCE_UDP_PORT);
            g_assert_cmpuint(h.dst[v6 ? 15 : 3], ==, 7);
            g_assert_true(h.cvlan == (tpids[t][0] == 0x8100));
            g_assert_true(h.svlan == (tpids[t][0] == 0x88a8));
            g_assert_cmphex(h.tci, ==, ntags ? 0x200a : 0);
            if (ntags) {
                memcpy(g, f, 12);
                memcpy(g + 12, f + 16, len - 16);
                ib_eth_hdr_untag(&h, g);
                g_assert_true(ib_eth_parse(g, len - 4, &h2));
                g_assert_cmpmem(&h, sizeof(h), &h2, sizeof(h2));
            }
            /* cut short: never a header past the end */
            for (size_t cut = 0; cut < len; cut++) {
                bool eth = ib_eth_parse(f, cut, &h);
                g_assert_true(eth == (cut >= 14));
                g_assert_true(!h.l4 || h.l4 + 8 <= cut);
                g_assert_true(!h.l3 || h.l3 + (v6 ? 40 : 20) <= cut);
            }
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ib/roce/eth-parse", test_eth_parse);
    g_test_add_func("/ib/roce/wire", test_roce_wire);
    g_test_add_func("/ib/roce/rc", test_roce_rc);
    g_test_add_func("/ib/roce/ud", test_roce_ud);
    g_test_add_func("/ib/roce/refuse", test_roce_refuse);
    g_test_add_func("/ib/roce/mcast", test_roce_mcast);
    g_test_add_func("/ib/roce/cong", test_roce_cong);
    return g_test_run();
}
