/*
 * Vendor-neutral IB transport: the port (frame building, link TX with
 * backpressure, loopback, receive demultiplexing, timers) and QP lifetime.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "trace.h"

/* IBA 10.9.3: same partition (low 15 bits), and not both limited members */
bool ib_pkey_match(uint16_t a, uint16_t b)
{
    return (a & 0x7fff) == (b & 0x7fff) && (a & 0x7fff) && ((a | b) & 0x8000);
}

uint32_t ib_mtu_bytes(unsigned ib_mtu_enum)
{
    return ib_mtu_enum >= 1 && ib_mtu_enum <= 5 ? 128u << ib_mtu_enum : 256;
}

/* IBA Table 45: RNR NAK timer field encoding, in microseconds * 100 */
static const uint32_t ib_rnr_table_10us[32] = {
    65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384,
    512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576,
    32768, 49152,
};

int64_t ib_rnr_timeout_ns(unsigned min_rnr_timer)
{
    return (int64_t)ib_rnr_table_10us[min_rnr_timer & 31] * 10000;
}

/*
 * Octets of the IB packet a fabric frame of @frame_len bytes stands for: the
 * Ethernet, IP and UDP headers are the frame's, the LRH (8) and VCRC (2) the IB
 * packet's; an IPv6 header is the GRH and counts.
 */
uint32_t ib_packet_octets(size_t frame_len, bool grh)
{
    size_t outer = IB_ETH_HLEN + (grh ? 0 : IB_IPV4_HLEN) + IB_UDP_HLEN;

    return frame_len > outer ? frame_len - outer + 8 + 2 : 0;
}

void ib_port_init(IbPort *port, const IbDevOps *ops, void *dev)
{
    memset(port, 0, sizeof(*port));
    port->ops = ops;
    port->dev = dev;
    port->gid_prefix = 0xfe80000000000000ull;
    port->lb = g_malloc(IB_LOOPBACK_FRAMES * sizeof(*port->lb));
    port->nonce = g_random_int() | 1;
    ib_cong_defaults(&port->cong);
    ib_sm_init(port);
    ib_sa_init(port);
}

void ib_port_cleanup(IbPort *port)
{
    g_free(port->lb);
    port->lb = NULL;
    ib_sa_cleanup(port);
    ib_sm_cleanup(port);
    ib_fault_cleanup(port);
    g_free(port->mcast);
    port->mcast = NULL;
    port->mcast_count = 0;
    g_free(port->gids);
    port->gids = NULL;
    port->gid_end = 0;
}

void ib_qp_init(IbQp *qp, IbPort *port, uint32_t qpn, IbQpType type,
                uint32_t sq_entries)
{
    uint32_t size = 1;

    while (size < sq_entries && size < (1u << 20)) {
        size <<= 1;
    }
    memset(qp, 0, sizeof(*qp));
    qp->port = port;
    qp->qpn = qpn;
    qp->type = type;
    qp->state = IB_QPS_RESET;
    qp->mtu = 256;
    qp->pkey = IB_DEFAULT_PKEY;
    qp->swq_size = size;
    qp->swq = g_new0(IbSendEntry, size);
    /* a DCI's connections differ from its namesakes' */
    qp->dc_conn_id = g_random_int();
}

void ib_qp_unlink(IbQp *qp)
{
    IbPort *port = qp->port;

    if (qp->prev) {
        qp->prev->next = qp->next;
    } else if (port->qps == qp) {
        port->qps = qp->next;
    }
    if (qp->next) {
        qp->next->prev = qp->prev;
    }
    qp->next = qp->prev = NULL;
}

void ib_qp_link(IbQp *qp)
{
    IbPort *port = qp->port;

    if (port->qps == qp || qp->prev) {
        return;
    }
    qp->next = port->qps;
    if (port->qps) {
        port->qps->prev = qp;
    }
    port->qps = qp;
}

void ib_qp_cleanup(IbQp *qp)
{
    if (qp->type == IB_QPT_DCT) {
        ib_dct_cleanup(qp);
    }
    ib_resp_ack_flush(qp);      /* (as ib_qp_set_state does) */
    ib_qp_unlink(qp);
    g_free(qp->swq);
    qp->swq = NULL;
}

static void ib_qp_reset_state(IbQp *qp)
{
    qp->head = qp->tail = qp->cur = 0;
    qp->cur_off = 0;
    qp->ack_deadline = qp->rnr_deadline = 0;
    qp->req_fault = qp->req_fault_rsp = qp->resp_fault = false;
    qp->in_send = qp->in_write = qp->have_rwr = false;
    qp->nak_sent = qp->comm_est = false;
    qp->ack_pending = false;
    qp->dc_connected = false;
    qp->mig_state = IB_MIG_MIGRATED;
    qp->msn = 0;
    qp->tx_pending = false;
    memset(qp->res, 0, sizeof(qp->res));
    qp->res_next = 0;
}

void ib_qp_set_state(IbQp *qp, IbQpState state)
{
    IbQpState old = qp->state;

    trace_ib_qp_state(qp->qpn, old, state);
    if (state == IB_QPS_RESET || state == IB_QPS_ERR) {
        /*
         * the ACK a burst of received frames waits for (ib_resp_ack) is, on
         * a card, on the wire before the guest sees the completion that made
         * it tear the QP down: without it the peer's last message would retry
         * until "transport retry counter exceeded"
         */
        ib_resp_ack_flush(qp);
    }
    qp->state = state;
    switch (state) {
    case IB_QPS_RESET:
        ib_qp_reset_state(qp);
        ib_qp_unlink(qp);
        return;
    case IB_QPS_INIT:
        ib_qp_link(qp);
        break;
    case IB_QPS_RTR:
        qp->epsn = qp->rq_psn & IB_PSN_MASK;
        break;
    case IB_QPS_RTS:
        if (old == IB_QPS_RTR) {
            qp->next_psn = qp->una = qp->sq_psn & IB_PSN_MASK;
        }
        qp->retries_left = qp->retry_cnt;
        qp->rnr_retries_left = qp->rnr_retry;
        qp->tx_pending = true;
        qp->port->ops->kick(qp->port);
        break;
    case IB_QPS_ERR:
        qp->ack_deadline = qp->rnr_deadline = 0;
        qp->in_send = qp->in_write = false;
        break;
    default:
        break;
    }
}

uint32_t ib_qp_outstanding(const IbQp *qp)
{
    return qp->head - qp->tail;
}

bool ib_qp_post_send(IbQp *qp, const IbSendWr *wr)
{
    IbSendEntry *e;

    if (qp->head - qp->tail >= qp->swq_size) {
        return false;
    }
    e = &qp->swq[qp->head % qp->swq_size];
    memset(e, 0, sizeof(*e));
    e->wr = *wr;
    qp->head++;
    qp->tx_pending = true;
    return true;
}

void ib_qp_flush(IbQp *qp)
{
    /* bounded by the ring size: every step retires one entry */
    while (qp->tail != qp->head) {
        IbSendEntry *e = &qp->swq[qp->tail % qp->swq_size];
        qp->tail++;
        qp->port->ops->send_done(qp, &e->wr, IB_WC_WR_FLUSH_ERR);
    }
    qp->cur = qp->tail;
    qp->cur_off = 0;
    qp->ack_deadline = qp->rnr_deadline = 0;
    qp->req_fault = false;
}

void ib_qp_page_fault_resume(IbQp *qp, IbPfSide side, bool error)
{
    trace_ib_qp_page_fault_resume(qp->qpn, side, error);
    if (side == IB_PF_REQUESTER) {
        if (qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI ||
            qp->type == IB_QPT_SMI) {
            ib_ud_page_fault_resume(qp, error);
        } else {
            ib_req_page_fault_resume(qp, error);
        }
    } else if (qp->type == IB_QPT_DCT) {
        /*
         * the DCT's responder contexts (which one faulted is not in the resume)
         */
        for (unsigned i = 0; i < qp->dc_nctx; i++) {
            ib_resp_page_fault_resume(&qp->dc_ctx[i], side, error);
        }
    } else if (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC) {
        ib_resp_page_fault_resume(qp, side, error);
    }
}

/* ---- transmit ------------------------------------------------------------ */

void ib_port_fill_av(const IbPort *port, const IbAv *av, IbPacket *p)
{
    int i;

    if (port->roce) {
        ib_roce_fill_av(port, av, p);
        return;
    }
    p->dlid = av->dlid;
    p->sl = av->sl;
    p->src_path_bits = av->src_path_bits;
    if (av->grh) {
        p->grh = true;
        p->tclass = av->tclass;
        p->flow_label = av->flow_label;
        p->hop_limit = av->hop_limit;
        for (i = 0; i < 8; i++) {
            p->sgid[i] = port->gid_prefix >> (56 - 8 * i);
            p->sgid[8 + i] = port->guid >> (56 - 8 * i);
        }
        memcpy(p->dgid, av->dgid, 16);
    }
}

void ib_port_enqueue(IbPort *port, const struct iovec *iov, int iovcnt)
{
    ib_port_enqueue_lb(port, iov, iovcnt, false);
}

void ib_port_enqueue_lb(IbPort *port, const struct iovec *iov, int iovcnt,
                        bool fl)
{
    unsigned slot;
    size_t len = 0;
    int i;

    if (port->lb_count == IB_LOOPBACK_FRAMES) {
        /*
         * (senders stop at a full ring, ib_port_tx_stopped; what the receive
         * path sends then, an ACK, is lost like on a congested switch: the
         * transport recovers)
         */
        port->stat_rx_drop++;
        return;
    }
    slot = (port->lb_head + port->lb_count) % IB_LOOPBACK_FRAMES;
    for (i = 0; i < iovcnt; i++) {
        if (!iov[i].iov_len) {
            continue;
        }
        memcpy(port->lb[slot] + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    port->lb_len[slot] = len;
    port->lb_fl[slot] = fl;
    port->lb_count++;
    port->ops->kick(port);
}

/*
 * Send the ACKs that wait for the end of a burst (ib_resp_ack). ib_port_run
 * does at the end of the burst, and any frame the port sends first: an ACK
 * never waits behind new requests or data (a WRITE the guest posted on seeing
 * the one it acknowledges, say, which is on the wire for a while at 64 KiB).
 */
void ib_port_flush_acks(IbPort *port)
{
    IbQp *qp;

    if (port->acks_pending) {
        port->acks_pending = false;
        for (qp = port->qps; qp; qp = qp->next) {
            ib_resp_ack_flush(qp);
        }
    }
}

/*
 * Build and send one packet: headers from @p, @payload_len bytes at @payload.
 * If the link asks us to wait, port->tx_blocked is set and the transmit loops
 * stop until tx_ready.
 */
/* Where frames to our own LID go: our receive path, or another function's. */
static IbPort *ib_port_local(IbPort *port)
{
    return port->ops->local_port ? port->ops->local_port(port) : port;
}

void ib_port_send(IbPort *port, IbPacket *p, const void *payload,
                  uint32_t payload_len)
{
    uint8_t icrc[4];
    size_t hlen;
    uint32_t crc, octets;
    struct iovec iov[3];
    static const uint8_t zero_pad[4];
    bool mcast;

    ib_port_flush_acks(port);

    if (!port->link_up && !p->fl) {
        /* a dead link eats frames (not those looped back); timeouts recover */
        return;
    }
    if (p->no_route) {
        port->stat_roce_no_gid++;
        trace_ib_roce_no_gid(p->dest_qpn);
        return;
    }
    if (port->lmc) {
        uint16_t mask = (1u << port->lmc) - 1;
        p->slid = (port->lid & ~mask) | (p->src_path_bits & mask);
    } else {
        p->slid = port->lid;
    }
    p->pad = (4 - (payload_len & 3)) & 3;
    ib_cong_tx(port, p);
    hlen = ib_wire_encode_hdr(p, port->hdr, payload_len);
    crc = ib_wire_icrc(port->hdr, hlen, payload, payload_len, p->pad);
    icrc[0] = crc; icrc[1] = crc >> 8; icrc[2] = crc >> 16; icrc[3] = crc >> 24;
    iov[0].iov_base = port->hdr;
    iov[0].iov_len = hlen;
    /*
     * never a NULL base, even when empty: QEMU's net queue memcpy()s every
     * element
     */
    iov[1].iov_base = payload_len ? (void *)payload : port->payload;
    iov[1].iov_len = payload_len;
    /* pad bytes (zero) go in front of the ICRC */
    iov[2].iov_base = port->hdr + hlen;
    memcpy(port->hdr + hlen, zero_pad, p->pad);
    memcpy(port->hdr + hlen + p->pad, icrc, 4);
    iov[2].iov_len = p->pad + 4;
    port->stat_tx++;
    octets = ib_packet_octets(hlen + payload_len + p->pad + IB_ICRC_LEN,
                              p->grh);
    port->stat_tx_bytes += octets;
    /*
     * a group: on RoCE by its destination GID, on InfiniBand by its multicast
     * DLID
     */
    mcast = port->roce ? ib_gid_is_mcast(port, p->dgid)
                       : IB_LID_IS_MCAST(p->dlid);
    port->stat_tx_mcast += mcast;
    port->stat_tx_mcast_bytes += mcast ? octets : 0;
    trace_ib_tx(ib_opcode_name(p->opcode), p->dest_qpn, p->psn, p->dlid,
                payload_len);
    if (p->fl) {
        ib_port_enqueue_lb(port, iov, 3, true);
        return;
    }
    if (port->roce ? !mcast && ib_roce_find_gid(port, p->dgid) >= 0 :
                     ib_port_owns_lid(port, p->dlid)) {
        /* to ourselves (one of our GIDs or LIDs) */
        ib_port_enqueue(ib_port_local(port), iov, 3);
        return;
    }
    if (mcast && (port->mcast_count || port->shared || port->vport)) {
        /* our own members of the group get it too (or another function's) */
        ib_port_enqueue(ib_port_local(port), iov, 3);
    }
    /*
     * RoCE multicast and InfiniBand's permissive DLID are for every station on
     * the link
     */
    if (!port->ops->link_tx(
            port, iov, 3, port->roce ? mcast : p->dlid == IB_LID_PERMISSIVE)) {
        port->tx_blocked = true;
    }
}

void ib_port_tx_ready(IbPort *port)
{
    port->tx_blocked = false;
    port->ops->kick(port);
}

bool ib_port_run(IbPort *port, unsigned budget)
{
    IbQp *qp;
    bool more = false;

    /* frames we sent to ourselves */
    while (port->lb_count && budget) {
        unsigned slot = port->lb_head;
        port->lb_head = (port->lb_head + 1) % IB_LOOPBACK_FRAMES;
        port->lb_count--;
        port->rx_fl = port->lb_fl[slot];
        ib_port_rx(port, port->lb[slot], port->lb_len[slot]);
        port->rx_fl = false;
        budget--;
    }
    /* the ACKs the burst of frames received (these too) asked for */
    ib_port_flush_acks(port);
    for (qp = port->qps; qp && budget && !ib_port_tx_stopped(port);
         qp = qp->next) {
        if (qp->tx_pending) {
            unsigned used = ib_qp_tx(qp, budget);
            budget -= MIN(used, budget);
        }
    }
    for (qp = port->qps; qp; qp = qp->next) {
        more |= qp->tx_pending;
    }
    return (more && !ib_port_tx_stopped(port)) || port->lb_count;
}

/* ---- timers -------------------------------------------------------------- */

void ib_port_update_deadline(IbPort *port)
{
    int64_t next = port->announce_deadline ? port->announce_deadline
                                           : INT64_MAX;
    IbQp *qp;

    next = MIN(next, ib_fault_deadline(port));
    for (qp = port->qps; qp; qp = qp->next) {
        if (qp->ack_deadline && qp->ack_deadline < next) {
            next = qp->ack_deadline;
        }
        if (qp->rnr_deadline && qp->rnr_deadline < next) {
            next = qp->rnr_deadline;
        }
    }
    port->ops->set_deadline(port, next);
}

void ib_port_expire(IbPort *port, int64_t now)
{
    IbQp *qp, *next;

    if (port->announce_deadline && port->announce_deadline <= now) {
        ib_port_announce(port);
    }
    ib_fault_expire(port, now);
    for (qp = port->qps; qp; qp = next) {
        /* a timeout may move the QP to error, not unlink it */
        next = qp->next;
        if (qp->rnr_deadline && qp->rnr_deadline <= now) {
            qp->rnr_deadline = 0;
            ib_rc_rnr_expired(qp);
        }
        if (qp->ack_deadline && qp->ack_deadline <= now) {
            qp->ack_deadline = 0;
            ib_rc_ack_timeout(qp);
        }
    }
    ib_port_update_deadline(port);
    port->ops->kick(port);
}

/* ---- receive ------------------------------------------------------------- */

void ib_port_rx(IbPort *port, const uint8_t *frame, size_t len)
{
    IbEthHdr h;

    if (!ib_eth_parse(frame, len, &h)) {
        return;
    }
    ib_port_rx_hdr(port, frame, len, &h);
}

void ib_port_rx_hdr(IbPort *port, const uint8_t *frame, size_t len,
                    const IbEthHdr *h)
{
    IbPacket p;
    IbQp *qp;
    int r = port->roce ? ib_wire_decode_roce_hdr(frame, len, h, &p)
                       : ib_wire_decode_fabric_hdr(frame, len, h, &p);
    bool mcast;

    if (r) {
        if (r != -1) {
            port->stat_rx_bad++;
            trace_ib_rx_bad(r, len);
        }
        return;
    }
    if (!port->link_up && !port->rx_fl) {
        return;
    }
    /*
     * a group: on RoCE by its destination GID, on InfiniBand by its multicast
     * DLID
     */
    mcast = port->roce ? ib_gid_is_mcast(port, p.dgid)
                       : IB_LID_IS_MCAST(p.dlid);
    if (port->roce) {
        if (!mcast && !port->rx_fl && !ib_roce_rx_ok(port, &p)) {
            return;                 /* not to one of our GIDs */
        }
    } else if (p.dlid == IB_LID_PERMISSIVE &&
        (ib_port_rx_announce(port, &p) || p.dest_qpn != 0)) {
        /*
         * the permissive LID carries announcements and directed-route SMPs to
         * QP0 (an SM sweeping a back-to-back link reaches its neighbour this
         * way); nothing else
         */
        return;
    } else if (!IB_LID_IS_MCAST(p.dlid) && !ib_port_owns_lid(port, p.dlid) &&
        p.dlid != IB_LID_PERMISSIVE) {
        /* another node's frame on a shared segment */
        return;
    }
    if (port->shared && port->ops->rx_steer &&
        port->ops->rx_steer(port, &p, frame, len)) {
        return;                     /* another function's */
    }
    if ((mcast || p.dest_qpn != 0) && !ib_pkey_match(p.pkey, IB_DEFAULT_PKEY)) {
        /*
         * the port's one partition is the default (full member); unicast QP0 is
         * not checked
         */
        port->stat_pkey_violations++;
        trace_ib_rx_pkey_violation(p.pkey, p.slid, p.dest_qpn);
        return;
    }
    port->stat_rx++;
    port->stat_rx_bytes += ib_packet_octets(len, p.grh);
    if (mcast) {
        port->stat_rx_mcast++;
        port->stat_rx_mcast_bytes += ib_packet_octets(len, p.grh);
        ib_mcast_rx(port, &p);
        return;
    }
    trace_ib_rx(ib_opcode_name(p.opcode), p.dest_qpn, p.psn, p.slid,
                p.payload_len);
    if (ib_cong_rx(port, &p)) {
        return;                     /* a CNP */
    }
    if (!port->roce && p.dest_qpn == 1 &&
        (p.opcode & 0xe0) == IB_TRANSPORT_UD && ib_sa_rx(port, &p)) {
        /* the subnet administrator (we are the master SM) */
        return;
    }
    if (port->roce && p.dest_qpn == 0) {
        port->stat_rx_drop++;       /* RoCE has no QP0 */
        return;
    }
    if (!port->roce && p.dest_qpn == 0 &&
        (p.opcode & 0xe0) == IB_TRANSPORT_UD && ib_sm_rx_smp(port, &p)) {
        /* SMInfo: the master SM answers for itself */
        return;
    }
    qp = port->ops->qp_lookup(port, p.dest_qpn);
    if (!qp || qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR) {
        port->stat_rx_drop++;
        trace_ib_rx_drop(p.dest_qpn, qp ? qp->state : -1);
        return;
    }
    qp->stat_rx++;
    switch (p.opcode & 0xe0) {
    case IB_TRANSPORT_RC:
    case IB_TRANSPORT_XRC:
        if (qp->type == IB_QPT_RC && !qp->dci &&
            qp->xrc == ((p.opcode & 0xe0) == IB_TRANSPORT_XRC)) {
            ib_rc_rx(qp, &p);
        }
        break;
    case IB_TRANSPORT_DC:
        if (qp->type == IB_QPT_DCT) {
            ib_dct_rx(qp, &p);
        } else if (qp->dci && !(ib_opcode_headers(p.opcode) & IB_HDR_DCETH)) {
            ib_rc_rx(qp, &p);           /* responses to a DC initiator */
        }
        break;
    case IB_TRANSPORT_UC:
        if (qp->type == IB_QPT_UC) {
            ib_uc_rx(qp, &p);
        }
        break;
    case IB_TRANSPORT_UD:
        if (qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI ||
            qp->type == IB_QPT_SMI) {
            ib_ud_rx(qp, &p);
        }
        break;
    }
}
