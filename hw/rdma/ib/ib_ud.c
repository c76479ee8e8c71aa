/*
 * Vendor-neutral IB transport: unreliable datagram service (UD, and the GSI/SMI
 * QPs).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "trace.h"

unsigned ib_ud_tx(IbQp *qp, unsigned budget)
{
    IbPort *port = qp->port;
    unsigned used = 0;

    while (used < budget && qp->cur != qp->head && !ib_port_tx_stopped(port) &&
           qp->state == IB_QPS_RTS && !qp->req_fault) {
        IbSendEntry *e = &qp->swq[qp->cur % qp->swq_size];
        const IbSendWr *wr = &e->wr;
        IbWcStatus st = IB_WC_SUCCESS;
        IbPacket p;

        if ((wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_IMM)) {
            st = IB_WC_LOC_QP_OP_ERR;
        } else if (wr->length > MIN(qp->mtu, IB_MAX_PAYLOAD)) {
            st = IB_WC_LOC_LEN_ERR;
        } else if (wr->length) {
            st = port->ops->gather(qp, wr, 0, port->payload, wr->length);
        }
        if (st == IB_WC_PAGE_FAULT) {
            /*
             * on-demand paging: the send queue waits for the driver
             * (ib_ud_page_fault_resume)
             */
            qp->req_fault = true;
            qp->req_fault_idx = qp->cur;
            break;
        }
        if (st == IB_WC_SUCCESS) {
            memset(&p, 0, sizeof(p));
            ib_port_fill_av(port, &wr->av, &p);
            p.opcode = IB_TRANSPORT_UD |
                       (wr->opcode == IB_WR_SEND_IMM ? IB_OP_SEND_ONLY_IMM
                                                     : IB_OP_SEND_ONLY);
            p.se = wr->solicited;
            p.pkey = qp->pkey;
            p.dest_qpn = wr->dest_qpn & IB_QPN_MASK;
            p.psn = qp->next_psn;
            /*
             * a Q_Key with the high bit set means "use the QP's own"
             * (IBA 10.2.5); the MAD layer sends every QP1 MAD so, and QP1's own
             * is the well-known 0x80010000
             */
            p.deth_qkey = (wr->qkey & 0x80000000u) ? qp->qkey : wr->qkey;
            p.deth_src_qpn = qp->qpn;
            p.imm = wr->imm;
            if (!p.udp_sport) {
                /* (RoCE: the AV's, when it names one) */
                p.udp_sport = qp->qpn & 0x3fff;
            }
            ib_port_send(port, &p, port->payload, wr->length);
            qp->next_psn = (qp->next_psn + 1) & IB_PSN_MASK;
            qp->stat_tx++;
        }
        qp->cur++;
        qp->tail++;
        used++;
        /*
         * datagrams complete once on the wire; a local error only fails this WR
         */
        port->ops->send_done(qp, wr, st);
        if (st != IB_WC_SUCCESS) {
            break;
        }
    }
    qp->tx_pending = qp->cur != qp->head && qp->state == IB_QPS_RTS &&
                     !qp->req_fault;
    return used;
}

void ib_ud_page_fault_resume(IbQp *qp, bool error)
{
    if (!qp->req_fault) {
        return;
    }
    qp->req_fault = false;
    if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
        return;
    }
    if (error && qp->cur != qp->head) {
        /*
         * the datagram that faulted fails alone, as a local error does
         * (ib_ud_tx)
         */
        IbSendEntry *e = &qp->swq[qp->cur % qp->swq_size];
        qp->cur++;
        qp->tail++;
        qp->port->ops->send_done(qp, &e->wr, IB_WC_LOC_PROT_ERR);
    }
    qp->tx_pending = qp->cur != qp->head;
    qp->port->ops->kick(qp->port);
}

/* The 40-byte GRH image a UD receive buffer starts with (IBA 11.4.1.2). */
static void ib_ud_grh(const IbPacket *p, uint8_t *grh)
{
    uint32_t w = (6u << 28) | ((uint32_t)p->tclass << 20) |
                 (p->flow_label & 0xfffff);
    uint16_t paylen = IB_BTH_LEN + IB_DETH_LEN + (p->opcode & 1 ? 4 : 0) +
                      p->payload_len + p->pad + IB_ICRC_LEN;

    grh[0] = w >> 24; grh[1] = w >> 16; grh[2] = w >> 8; grh[3] = w;
    grh[4] = paylen >> 8; grh[5] = paylen;
    grh[6] = 0x1b;                      /* next header: IBA transport */
    grh[7] = p->hop_limit;
    memcpy(grh + 8, p->sgid, 16);
    memcpy(grh + 24, p->dgid, 16);
}

void ib_ud_rx(IbQp *qp, const IbPacket *p)
{
    IbPort *port = qp->port;
    IbRecvCompletion rc = { 0 };
    IbRecvWr rwr;
    IbWcStatus st = IB_WC_SUCCESS;

    /* QP0 takes no Q_Key; everyone else must match (GSI: the well-known key) */
    if (qp->type != IB_QPT_SMI && p->deth_qkey != qp->qkey) {
        port->stat_rx_drop++;
        port->stat_qkey_violations++;
        trace_ib_ud_qkey_mismatch(qp->qpn, p->deth_qkey, qp->qkey);
        return;
    }
    if (!port->ops->recv_get(qp, &rwr, NULL, 0)) {
        /* no receive posted: datagrams are dropped */
        port->stat_rx_drop++;
        trace_ib_ud_no_recv(qp->qpn);
        return;
    }
    if (IB_GRH_LEN + (uint64_t)p->payload_len > rwr.capacity) {
        st = IB_WC_LOC_LEN_ERR;
    } else {
        if (p->roce && p->nethdr) {
            /*
             * RoCE v2: the IPv6 header, or 20 zero bytes and the IPv4 header,
             * as received
             */
            uint8_t nh[IB_GRH_LEN] = { 0 };
            memcpy(nh + IB_GRH_LEN - MIN(p->nethdr_len, IB_GRH_LEN), p->nethdr,
                   MIN(p->nethdr_len, IB_GRH_LEN));
            st = port->ops->recv_scatter(qp, &rwr, 0, nh, IB_GRH_LEN);
        } else if (p->grh) {
            uint8_t grh[IB_GRH_LEN];
            ib_ud_grh(p, grh);
            st = port->ops->recv_scatter(qp, &rwr, 0, grh, IB_GRH_LEN);
        }
        if (st == IB_WC_SUCCESS && p->payload_len) {
            st = port->ops->recv_scatter(qp, &rwr, IB_GRH_LEN, p->payload,
                                         p->payload_len);
        }
    }
    if (st == IB_WC_PAGE_FAULT) {
        /*
         * on-demand paging: the datagram is lost, the buffer waits for the next
         * one
         */
        if (port->ops->recv_put_back) {
            port->ops->recv_put_back(qp, &rwr);
        }
        port->stat_rx_drop++;
        trace_ib_ud_page_fault(qp->qpn);
        return;
    }
    rc.status = st;
    rc.opcode = (p->opcode & 0x1f) == IB_OP_SEND_ONLY_IMM ? IB_RECV_SEND_IMM
                                                          : IB_RECV_SEND;
    rc.byte_len = IB_GRH_LEN + p->payload_len;
    rc.imm = p->imm;
    rc.src_qpn = p->deth_src_qpn;
    rc.slid = p->slid;
    rc.sl = p->sl;
    rc.dlid_path_bits = ib_port_path_bits(port, p->dlid);
    rc.grh = p->grh || p->roce;
    rc.solicited = p->se;
    rc.pkey_index = 0;
    if (p->roce) {
        rc.net_type = p->ipv4 ? IB_NET_ROCE_IPV4 : IB_NET_ROCE_IPV6;
        rc.vlan = p->vlan;
        rc.vlan_tci = p->vlan_tci;
        rc.sl = p->vlan ? p->vlan_tci >> 13 : 0;
    }
    port->ops->recv_done(qp, &rwr, &rc);
}
