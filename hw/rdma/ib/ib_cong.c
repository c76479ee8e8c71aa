/*
 * Vendor-neutral IB transport: RoCE v2 congestion control, the ECN-based
 * scheme DCQCN runs on (IBTA RoCEv2 annex A17.9, "congestion management").
 *
 * Reaction point (RP, the sender): frames of a priority whose RP is enabled go
 * out ECN-capable (ECT(0)), which lets a switch mark them instead of dropping
 * them. A CNP for one of our QPs is handled (rp_cnp_handled) if the RP of its
 * priority is enabled, else ignored (rp_cnp_ignored). The emulated link has no
 * line rate to share, so a handled CNP slows nothing down (docs/fabric.md).
 *
 * Notification point (NP, the receiver): a unicast frame that arrives marked
 * Congestion Experienced is counted (np_ecn_marked_roce_packets); if the NP of
 * its priority is enabled, the QP it is for answers the QP that sent it with a
 * CNP, at most one every min_time_between_cnps (np_cnp_sent). The frame itself
 * is processed as usual.
 *
 * The CNP: BTH opcode 0x81 with BECN set, P_Key of the marked frame,
 * destination the sending QP, PSN 0, 16 reserved bytes; IP DSCP cnp_dscp (ECN
 * not-ECT); the 802.1Q priority cnp_802p_prio (or the marked frame's, with
 * cnp_prio_mode) when the frame came tagged.
 *
 * InfiniBand ports have their own congestion control (FECN/BECN and the CC
 * MADs), which is not modelled: nothing here runs on them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "trace.h"

void ib_cong_defaults(IbCongConfig *cfg)
{
    /* the values a ConnectX ships with: DCQCN on for every priority */
    *cfg = (IbCongConfig){
        .rp_enable = 0xff,
        .np_enable = 0xff,
        .min_time_between_cnps = 4,
        .cnp_dscp = 48,
        .cnp_802p_prio = 6,
    };
}

/* a frame's priority: its 802.1Q PCP, 0 untagged */
static unsigned ib_cong_prio(const IbPacket *p)
{
    return p->vlan ? (p->vlan_tci >> 13) & 7 : 0;
}

void ib_cong_tx(const IbPort *port, IbPacket *p)
{
    if (!port->roce || p->opcode == IB_OP_CNP ||
        !(port->cong.rp_enable & (1u << ib_cong_prio(p)))) {
        return;
    }
    p->tclass = (p->tclass & ~3u) | IB_ECN_ECT0;
}

/* The QP that sent @p to @qp: where a CNP for @p goes. */
static uint32_t ib_cong_flow_src(const IbQp *qp, const IbPacket *p)
{
    unsigned h = ib_opcode_headers(p->opcode);

    if (h & IB_HDR_DETH) {
        return p->deth_src_qpn;
    }
    if (h & IB_HDR_DCETH) {
        return p->dc_src_qpn;
    }
    /* connected: the QP's peer (a DCI's current target) */
    return qp->dest_qpn;
}

static void ib_cong_send_cnp(IbPort *port, const IbPacket *p, uint32_t dqpn)
{
    static const uint8_t reserved[IB_CNP_PAYLOAD_LEN];
    const IbCongConfig *cfg = &port->cong;
    IbPacket c = {
        .roce = true,
        .ipv4 = p->ipv4,
        .grh = !p->ipv4,
        .vlan = p->vlan,
        .tclass = (cfg->cnp_dscp & 0x3f) << 2,
        .hop_limit = 64,
        .opcode = IB_OP_CNP,
        .becn = true,
        .pkey = p->pkey,
        .dest_qpn = dqpn,
        .udp_sport = p->udp_sport,
    };
    unsigned prio = cfg->cnp_prio_mode ? ib_cong_prio(p)
                                       : cfg->cnp_802p_prio & 7;

    c.vlan_tci = (prio << 13) | (p->vlan_tci & 0x1fff);
    memcpy(c.dmac, p->smac, 6);
    memcpy(c.smac, p->dmac, 6);
    memcpy(c.sgid, p->dgid, 16);
    memcpy(c.dgid, p->sgid, 16);
    port->cong_stats.np_cnp_sent++;
    trace_ib_cong_cnp_tx(dqpn, p->dest_qpn);
    ib_port_send(port, &c, reserved, sizeof(reserved));
}

bool ib_cong_rx(IbPort *port, const IbPacket *p)
{
    unsigned prio = ib_cong_prio(p);
    IbQp *qp;
    int64_t now;

    if (!port->roce) {
        return false;
    }
    if (p->opcode == IB_OP_CNP) {
        qp = port->ops->qp_lookup(port, p->dest_qpn);
        if (!qp) {
            port->stat_rx_drop++;
            trace_ib_rx_drop(p->dest_qpn, -1);
        } else if (port->cong.rp_enable & (1u << prio)) {
            port->cong_stats.rp_cnp_handled++;
            trace_ib_cong_cnp_rx(p->dest_qpn, true);
        } else {
            port->cong_stats.rp_cnp_ignored++;
            trace_ib_cong_cnp_rx(p->dest_qpn, false);
        }
        return true;
    }
    if ((p->tclass & 3) != IB_ECN_CE) {
        return false;
    }
    port->cong_stats.np_ecn_marked_roce_packets++;
    trace_ib_cong_ce(p->dest_qpn, prio);
    if (!(port->cong.np_enable & (1u << prio))) {
        return false;
    }
    qp = port->ops->qp_lookup(port, p->dest_qpn);
    if (!qp || qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR) {
        return false;
    }
    now = port->ops->now_ns(port);
    if (qp->cnp_sent_ns &&
        now - qp->cnp_sent_ns <
            (int64_t)port->cong.min_time_between_cnps * 1000) {
        return false;
    }
    qp->cnp_sent_ns = now ? now : 1;
    ib_cong_send_cnp(port, p, ib_cong_flow_src(qp, p));
    return false;
}

bool ib_cong_ect(const uint8_t *f, size_t len, const IbEthHdr *h)
{
    const uint8_t *ip = f + h->l3;

    if (!h->l3 || h->proto != 17) {
        return false;
    }
    if (h->ip_version == 4 && h->l3 + IB_IPV4_HLEN <= len) {
        return (ip[1] & 3) && (ip[1] & 3) != IB_ECN_CE;
    }
    if (h->ip_version == 6 && h->l3 + IB_IPV6_HLEN <= len) {
        /* the traffic class straddles bytes 0 and 1; ECN is bits 5:4 of 1 */
        return (ip[1] & 0x30) && (ip[1] & 0x30) != 0x30;
    }
    return false;
}

void ib_cong_mark_ce(uint8_t *f, const IbEthHdr *h)
{
    uint8_t *ip = f + h->l3;

    if (h->ip_version == 4) {
        ip[1] |= IB_ECN_CE;
        /* a router fixes the header checksum it changed */
        ip[10] = ip[11] = 0;
        ib_st16(ip + 10,
                (uint16_t)~ib_csum_fold(ib_csum_add(0, ip, IB_IPV4_HLEN)));
    } else {
        ip[1] |= 0x30;
    }
}
