/*
 * Vendor-neutral IB transport: the requester of the reliable and unreliable
 * connected services, and the connected QPs' transmit and receive entry points.
 *
 * Requester: segmentation by path MTU, PSNs, go-back-N retransmission on
 * NAK/timeout, RNR waits, READ/ATOMIC responses, in-order completion. The
 * responder is ib_resp.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include <arpa/inet.h>
#include "ib_internal.h"
#include "trace.h"

#define OP(x) IB_OP_##x

static IbSendEntry *ib_entry(IbQp *qp, uint32_t idx)
{
    return &qp->swq[idx % qp->swq_size];
}

static bool ib_wr_rdatomic(const IbSendWr *wr)
{
    return wr->opcode == IB_WR_RDMA_READ ||
           wr->opcode == IB_WR_ATOMIC_CMP_SWP ||
           wr->opcode == IB_WR_ATOMIC_FETCH_ADD;
}

static bool ib_wr_atomic(const IbSendWr *wr)
{
    return wr->opcode == IB_WR_ATOMIC_CMP_SWP ||
           wr->opcode == IB_WR_ATOMIC_FETCH_ADD;
}

/*
 * A READ's first PSN whose response has not arrived yet (its PSN range is per
 * MTU of data).
 */
static uint32_t ib_req_missing_psn(const IbQp *qp, const IbSendEntry *e)
{
    return e->first_psn + (uint32_t)(e->resp_off / qp->mtu);
}

static uint32_t ib_wr_npsn(const IbQp *qp, const IbSendWr *wr)
{
    if (ib_wr_atomic(wr)) {
        return 1;
    }
    return MAX(1u, (uint32_t)((wr->length + qp->mtu - 1) / qp->mtu));
}

uint8_t ib_transport_bits(const IbQp *qp)
{
    if (qp->dci || qp->dc_parent) {
        return IB_TRANSPORT_DC;
    }
    return qp->type == IB_QPT_UC ? IB_TRANSPORT_UC
           : qp->xrc             ? IB_TRANSPORT_XRC
                                 : IB_TRANSPORT_RC;
}

void ib_qp_fill_hdr(const IbQp *qp, IbPacket *p, uint8_t opcode, uint32_t psn)
{
    const IbPort *port = qp->port;

    memset(p, 0, sizeof(*p));
    ib_port_fill_av(port, &qp->av, p);
    p->opcode = opcode;
    p->pkey = qp->pkey;
    p->dest_qpn = qp->dest_qpn;
    p->psn = psn & IB_PSN_MASK;
    if (!p->udp_sport) {
        /* (RoCE: the path's, when it names one) */
        p->udp_sport = qp->qpn & 0x3fff;
    }
    /* IBA 9.2: 0 while armed/rearming */
    p->migreq = qp->mig_state == IB_MIG_MIGRATED;
    if (qp->dci) {
        p->dc_key = qp->dc_key;
        p->dc_conn_id = qp->dc_conn_id;
        p->dc_conn_psn = qp->dc_conn_psn;
        p->dc_src_qpn = qp->qpn;
    }
}

static void ib_arm_ack_timer(IbQp *qp)
{
    IbPort *port = qp->port;

    if (qp->type != IB_QPT_RC || qp->timeout == 0) {
        qp->ack_deadline = 0;
        return;
    }
    /* 4.096 us * 2^timeout */
    qp->ack_deadline = port->ops->now_ns(port) +
                       (4096ll << MIN(qp->timeout, 31));
    if (qp->ack_deadline <= 0) {
        qp->ack_deadline = 1;
    }
    ib_port_update_deadline(port);
}

/* ---- requester: completion ----------------------------------------------- */

static void ib_req_retire(IbQp *qp)
{
    while (qp->tail != qp->cur) {
        IbSendEntry *e = ib_entry(qp, qp->tail);
        if (!e->done) {
            break;
        }
        qp->tail++;
        qp->port->ops->send_done(qp, &e->wr, IB_WC_SUCCESS);
    }
}

/*
 * A WR failed: it and everything after it leave the transport; the QP is in
 * error.
 */
static void ib_req_fail(IbQp *qp, uint32_t idx, IbWcStatus status)
{
    IbSendEntry *e;

    trace_ib_req_error(qp->qpn, status);
    ib_req_retire(qp);
    while (qp->tail != idx && qp->tail != qp->head) {
        e = ib_entry(qp, qp->tail++);
        qp->port->ops->send_done(qp, &e->wr,
                                 e->done ? IB_WC_SUCCESS : IB_WC_WR_FLUSH_ERR);
    }
    qp->state = IB_QPS_ERR;
    if (qp->tail != qp->head) {
        e = ib_entry(qp, qp->tail++);
        qp->port->ops->send_done(qp, &e->wr, status);
    }
    ib_qp_flush(qp);
}

/* Find the started entry whose PSN range holds @psn. */
static bool ib_req_find(IbQp *qp, uint32_t psn, uint32_t *idx)
{
    uint32_t i;

    for (i = qp->tail; i != qp->head; i++) {
        IbSendEntry *e = ib_entry(qp, i);
        if (!e->started) {
            break;
        }
        if (ib_psn_diff(psn, e->first_psn) >= 0 &&
            ib_psn_diff(psn, e->first_psn + e->npsn) < 0) {
            *idx = i;
            return true;
        }
    }
    return false;
}

/*
 * The entry a failure at @psn belongs to (the oldest one if @psn is not in
 * flight).
 */
static uint32_t ib_req_entry_at(IbQp *qp, uint32_t psn)
{
    uint32_t idx;

    return ib_req_find(qp, psn, &idx) ? idx : qp->tail;
}

/* Go back N: transmit again from @psn. False if no WR sent has that PSN. */
static bool ib_req_rewind(IbQp *qp, uint32_t psn)
{
    uint32_t idx, i;
    IbSendEntry *e;

    if (!ib_req_find(qp, psn, &idx)) {
        return false;                   /* nothing sent at that PSN */
    }
    e = ib_entry(qp, idx);
    trace_ib_req_rewind(qp->qpn, psn, ib_psn_diff(qp->next_psn, psn));
    qp->stat_retx++;
    for (i = idx + 1; i != qp->head; i++) {
        ib_entry(qp, i)->started = false;
    }
    qp->cur = idx;
    if (e->wr.opcode == IB_WR_RDMA_READ) {
        /* re-request what has not arrived yet */
        qp->cur_off = e->resp_off;
        psn = ib_req_missing_psn(qp, e);
    } else if (ib_wr_atomic(&e->wr)) {
        qp->cur_off = 0;
        psn = e->first_psn;
    } else {
        qp->cur_off = (uint64_t)(uint32_t)ib_psn_diff(psn, e->first_psn) *
                      qp->mtu;
    }
    qp->next_psn = psn & IB_PSN_MASK;
    qp->tx_pending = true;
    qp->port->ops->kick(qp->port);
    return true;
}

/* PSNs up to and including @acked are acknowledged. */
static void ib_req_acked(IbQp *qp, uint32_t acked)
{
    uint32_t i;

    for (i = qp->tail; i != qp->head; i++) {
        IbSendEntry *e = ib_entry(qp, i);
        if (!e->started || ib_psn_diff(e->first_psn + e->npsn - 1, acked) > 0) {
            break;
        }
        if (ib_wr_rdatomic(&e->wr) && !e->done) {
            /*
             * later PSNs acknowledged but this response never came: ask again.
             * The ACK does not acknowledge the missing responses: the oldest
             * unacknowledged PSN stays the first of them (else a lost
             * re-request would leave nothing to retransmit)
             */
            uint32_t missing = ib_req_missing_psn(qp, e);
            ib_qp_stat(qp, IB_STAT_IMPLIED_NAK);
            ib_req_rewind(qp, missing);
            acked = (missing - 1) & IB_PSN_MASK;
            break;
        }
        e->done = true;
    }
    if (ib_psn_diff(acked + 1, qp->una) > 0 &&
        ib_psn_diff(acked, qp->next_psn) < 0) {
        qp->una = (acked + 1) & IB_PSN_MASK;
        qp->retries_left = qp->retry_cnt;
        qp->rnr_retries_left = qp->rnr_retry;
    }
    ib_req_retire(qp);
}

static void ib_req_rearm(IbQp *qp)
{
    if (qp->tail != qp->cur || qp->cur_off) {
        ib_arm_ack_timer(qp);
    } else {
        qp->ack_deadline = 0;
    }
    qp->tx_pending |= qp->cur != qp->head;
    qp->port->ops->kick(qp->port);
}

static IbWcStatus ib_nak_status(uint8_t code)
{
    switch (code) {
    case IB_NAK_INVALID_REQUEST:
    case IB_NAK_INVALID_RD_REQUEST:
        return IB_WC_REM_INV_REQ_ERR;
    case IB_NAK_REMOTE_ACCESS_ERR:
        return IB_WC_REM_ACCESS_ERR;
    default:
        return IB_WC_REM_OP_ERR;
    }
}

/* ACKNOWLEDGE (ACK, RNR NAK, NAK) */
static void ib_req_aeth(IbQp *qp, const IbPacket *p)
{
    uint8_t syn = p->aeth_syndrome;
    uint32_t psn = p->psn;
    IbPort *port = qp->port;

    if (ib_psn_diff(psn, qp->next_psn) >= 0 || ib_psn_diff(psn, qp->una) < -1) {
        /* not for anything outstanding: stale */
        return;
    }
    switch (syn & 0x60) {
    case IB_AETH_ACK:
        ib_req_acked(qp, psn);
        break;
    case IB_AETH_RNR_NAK:
        ib_req_acked(qp, psn - 1);
        qp->stat_rnr++;
        ib_qp_stat(qp, IB_STAT_RNR_NAK);
        trace_ib_req_rnr(qp->qpn, psn, qp->rnr_retries_left);
        if (qp->rnr_retry != 7) {
            if (qp->rnr_retries_left == 0) {
                ib_req_fail(qp, ib_req_entry_at(qp, psn),
                            IB_WC_RNR_RETRY_EXC_ERR);
                return;
            }
            qp->rnr_retries_left--;
        }
        ib_req_rewind(qp, psn);
        qp->rnr_deadline = port->ops->now_ns(port) +
                           ib_rnr_timeout_ns(syn & 0x1f);
        qp->ack_deadline = 0;
        ib_port_update_deadline(port);
        return;
    case IB_AETH_NAK:
        ib_req_acked(qp, psn - 1);
        if ((syn & 0x1f) == IB_NAK_PSN_SEQ_ERR) {
            /*
             * from @psn, or from an earlier READ response still missing
             * (ib_req_acked)
             */
            ib_qp_stat(qp, IB_STAT_SEQ_NAK);
            ib_req_rewind(qp, ib_psn_diff(qp->una, psn) < 0 ? qp->una : psn);
        } else {
            IbWcStatus st = ib_nak_status(syn & 0x1f);

            ib_qp_stat(qp, st == IB_WC_REM_INV_REQ_ERR ?
                       IB_STAT_REQ_REMOTE_INVALID :
                       st == IB_WC_REM_ACCESS_ERR ? IB_STAT_REQ_REMOTE_ACCESS :
                       IB_STAT_REQ_REMOTE_OPERATION);
            ib_req_fail(qp, ib_req_entry_at(qp, psn), st);
            return;
        }
        break;
    default:
        return;
    }
    ib_req_rearm(qp);
}

/* The oldest started READ/ATOMIC still waiting for its response. */
static IbSendEntry *ib_req_pending_response(IbQp *qp, uint32_t *idx)
{
    uint32_t i;

    for (i = qp->tail; i != qp->head; i++) {
        IbSendEntry *e = ib_entry(qp, i);
        if (!e->started) {
            return NULL;
        }
        if (ib_wr_rdatomic(&e->wr) && !e->done) {
            *idx = i;
            return e;
        }
    }
    return NULL;
}

/*
 * A READ or atomic got its whole response. It may be the WR the requester was
 * about to ask for again (a rewind to its missing responses, cur at it), when
 * responses still in flight completed it first: the re-request is then not
 * sent, and the WRs after it go on from its end. (Left at cur, it never
 * retired: no completion, and the QP hung.)
 */
static void ib_req_rdatomic_done(IbQp *qp, uint32_t idx, IbSendEntry *e)
{
    e->done = true;
    if (qp->cur == idx) {
        qp->cur++;
        qp->cur_off = 0;
        qp->next_psn = (e->first_psn + e->npsn) & IB_PSN_MASK;
    }
    ib_req_retire(qp);
}

/*
 * On-demand paging: the memory of WR @idx is not mapped yet. The send queue
 * stops until the driver resolves the fault (ib_qp_page_fault_resume); a
 * response that could not be placed
 * (@rsp) was dropped and is asked for again then.
 */
static void ib_req_pause(IbQp *qp, uint32_t idx, bool rsp)
{
    trace_ib_req_page_fault(qp->qpn, idx, rsp);
    if (!qp->req_fault) {
        qp->req_fault_rsp = false;
    }
    qp->req_fault = true;
    qp->req_fault_rsp |= rsp;
    qp->req_fault_idx = idx;
}

void ib_req_page_fault_resume(IbQp *qp, bool error)
{
    uint32_t idx;
    IbSendEntry *e;

    if (!qp->req_fault) {
        return;
    }
    qp->req_fault = false;
    if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
        return;
    }
    if (error) {
        ib_req_fail(qp, qp->req_fault_idx, IB_WC_LOC_PROT_ERR);
        return;
    }
    if (qp->req_fault_rsp) {
        e = ib_req_pending_response(qp, &idx);
        if (e) {
            ib_req_rewind(qp, ib_req_missing_psn(qp, e));
        }
    }
    ib_req_rearm(qp);
}

static void ib_req_response(IbQp *qp, const IbPacket *p)
{
    uint8_t op = p->opcode & 0x1f;
    uint32_t idx, expected;
    IbSendEntry *e = ib_req_pending_response(qp, &idx);
    IbWcStatus st;
    bool first, last;

    if (!e) {
        return;                         /* duplicate of a completed response */
    }
    if (ib_psn_diff(p->psn, e->first_psn) < 0 ||
        ib_psn_diff(p->psn, e->first_psn + e->npsn) >= 0) {
        /*
         * a late duplicate of an earlier request's response: it acknowledges
         * nothing of this one's (taking it as an implicit ACK would complete
         * WRITEs in between that the responder never executed)
         */
        qp->stat_dup++;
        return;
    }
    /* a response means everything before its request was executed */
    ib_req_acked(qp, e->first_psn - 1);
    if (ib_wr_atomic(&e->wr)) {
        uint8_t orig[8];
        if (op != OP(ATOMIC_ACKNOWLEDGE) || p->psn != e->first_psn) {
            return;
        }
        for (int i = 0; i < 8; i++) {
            /* the host's (little-endian) order */
            orig[i] = p->atomic_orig >> (8 * i);
        }
        st = qp->port->ops->scatter(qp, &e->wr, 0, orig, 8);
        if (st == IB_WC_PAGE_FAULT) {
            /* dropped: asked for again on resume */
            ib_req_pause(qp, idx, true);
            return;
        }
        if (st != IB_WC_SUCCESS) {
            ib_req_fail(qp, idx, st);
            return;
        }
        qp->una = (p->psn + 1) & IB_PSN_MASK;
        qp->retries_left = qp->retry_cnt;
        ib_req_rdatomic_done(qp, idx, e);
        ib_req_rearm(qp);
        return;
    }
    if (op == OP(ATOMIC_ACKNOWLEDGE) || e->wr.opcode != IB_WR_RDMA_READ) {
        return;
    }
    expected = ib_req_missing_psn(qp, e) & IB_PSN_MASK;
    if (ib_psn_diff(p->psn, expected) < 0) {
        qp->stat_dup++;
        return;
    }
    if (ib_psn_diff(p->psn, expected) > 0) {
        ib_qp_stat(qp, IB_STAT_IMPLIED_NAK);
        ib_req_rewind(qp, expected);    /* a response packet was lost */
        return;
    }
    first = op == OP(READ_RESPONSE_FIRST) || op == OP(READ_RESPONSE_ONLY);
    last = op == OP(READ_RESPONSE_LAST) || op == OP(READ_RESPONSE_ONLY);
    if (first != (e->resp_off == 0) ||
        p->payload_len > e->wr.length - e->resp_off ||
        (!last && p->payload_len != qp->mtu) ||
        (last && e->resp_off + p->payload_len != e->wr.length)) {
        ib_req_fail(qp, idx, IB_WC_BAD_RESP_ERR);
        return;
    }
    if (p->payload_len) {
        st = qp->port->ops->scatter(qp, &e->wr, e->resp_off, p->payload,
                                    p->payload_len);
        if (st == IB_WC_PAGE_FAULT) {
            ib_req_pause(qp, idx, true);
            return;
        }
        if (st != IB_WC_SUCCESS) {
            ib_req_fail(qp, idx, st);
            return;
        }
    }
    e->resp_off += p->payload_len;
    qp->una = (p->psn + 1) & IB_PSN_MASK;
    qp->retries_left = qp->retry_cnt;
    if (last) {
        ib_req_rdatomic_done(qp, idx, e);
    }
    ib_req_rearm(qp);
}

void ib_rc_ack_timeout(IbQp *qp)
{
    uint32_t idx;

    if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
        return;
    }
    if (qp->tail == qp->cur && qp->cur_off == 0) {
        return;                         /* nothing outstanding */
    }
    if (qp->req_fault) {
        /* our own memory is being mapped: not the peer's fault */
        ib_arm_ack_timer(qp);
        return;
    }
    trace_ib_req_timeout(qp->qpn, qp->una, qp->retries_left);
    if (qp->retries_left == 0 && ib_apm_retry_exhausted(qp)) {
        ib_qp_stat(qp, IB_STAT_ACK_TIMEOUT);
        ib_req_rewind(qp, qp->una);     /* again, over the alternate path */
        return;
    }
    if (qp->retries_left == 0) {
        idx = ib_req_entry_at(qp, qp->una);
        ib_req_fail(qp, idx, IB_WC_RETRY_EXC_ERR);
        return;
    }
    ib_qp_stat(qp, IB_STAT_ACK_TIMEOUT);
    qp->retries_left--;
    if (!ib_req_rewind(qp, qp->una) && qp->tail != qp->head) {
        /*
         * no WR holds the oldest unacknowledged PSN: start over from the oldest
         * WR
         */
        IbSendEntry *e = ib_entry(qp, qp->tail);
        trace_ib_req_una_lost(qp->qpn, qp->una, qp->cur - qp->tail, e->started,
                              e->done, e->first_psn, e->npsn, e->resp_off,
                              qp->next_psn);
        if (e->started && !e->done) {
            ib_req_rewind(qp, ib_req_missing_psn(qp, e));
        }
    }
}

void ib_rc_rnr_expired(IbQp *qp)
{
    qp->tx_pending = true;
    qp->port->ops->kick(qp->port);
}

/* ---- requester: transmit ------------------------------------------------- */

static uint8_t ib_send_opcode(const IbSendWr *wr, bool first, bool last)
{
    bool write = wr->opcode == IB_WR_RDMA_WRITE ||
                 wr->opcode == IB_WR_RDMA_WRITE_IMM;
    bool imm = wr->opcode == IB_WR_SEND_IMM ||
               wr->opcode == IB_WR_RDMA_WRITE_IMM;
    bool inv = wr->opcode == IB_WR_SEND_INV;

    if (write) {
        if (first && last) {
            return imm ? OP(WRITE_ONLY_IMM) : OP(WRITE_ONLY);
        }
        return first ? OP(WRITE_FIRST) : !last ? OP(WRITE_MIDDLE) :
               imm ? OP(WRITE_LAST_IMM) : OP(WRITE_LAST);
    }
    if (first && last) {
        return imm   ? OP(SEND_ONLY_IMM)
               : inv ? OP(SEND_ONLY_INV)
                     : OP(SEND_ONLY);
    }
    return first ? OP(SEND_FIRST) : !last ? OP(SEND_MIDDLE) :
           imm ? OP(SEND_LAST_IMM) : inv ? OP(SEND_LAST_INV) : OP(SEND_LAST);
}

/* Send the next packet of entry @e. Returns IB_WC_SUCCESS or a local error. */
static IbWcStatus ib_req_send_packet(IbQp *qp, IbSendEntry *e)
{
    IbPort *port = qp->port;
    const IbSendWr *wr = &e->wr;
    uint32_t psn = qp->next_psn, chunk = 0;
    IbPacket p;

    if (wr->opcode == IB_WR_RDMA_READ) {
        ib_qp_fill_hdr(qp, &p, ib_transport_bits(qp) | OP(READ_REQUEST), psn);
        p.xrc_srqn = wr->xrc_srqn;
        p.reth_va = wr->remote_addr + e->resp_off;
        p.reth_rkey = wr->rkey;
        p.reth_len = wr->length - e->resp_off;
        p.ack_req = true;
        ib_port_send(port, &p, NULL, 0);
        qp->cur_off = wr->length;
        qp->next_psn = (e->first_psn + e->npsn) & IB_PSN_MASK;
        return IB_WC_SUCCESS;
    }
    if (ib_wr_atomic(wr)) {
        ib_qp_fill_hdr(qp, &p,
                       ib_transport_bits(qp) |
                           (wr->opcode == IB_WR_ATOMIC_CMP_SWP
                                ? OP(COMPARE_SWAP)
                                : OP(FETCH_ADD)),
                       psn);
        p.xrc_srqn = wr->xrc_srqn;
        p.atomic_va = wr->remote_addr;
        p.atomic_rkey = wr->rkey;
        p.atomic_swap_add = wr->opcode == IB_WR_ATOMIC_CMP_SWP
                                ? wr->swap
                                : wr->compare_add;
        p.atomic_compare = wr->compare_add;
        p.ack_req = true;
        ib_port_send(port, &p, NULL, 0);
        qp->cur_off = 8;
        qp->next_psn = (psn + 1) & IB_PSN_MASK;
        return IB_WC_SUCCESS;
    }
    chunk = MIN((uint64_t)qp->mtu, wr->length - qp->cur_off);
    if (chunk) {
        IbWcStatus st = port->ops->gather(qp, wr, qp->cur_off, port->payload,
                                          chunk);
        if (st != IB_WC_SUCCESS) {
            return st;
        }
    }
    {
        bool first = qp->cur_off == 0, last = qp->cur_off + chunk >= wr->length;
        ib_qp_fill_hdr(qp, &p,
                       ib_transport_bits(qp) | ib_send_opcode(wr, first, last),
                       psn);
        p.xrc_srqn = wr->xrc_srqn;
        if (first && (wr->opcode == IB_WR_RDMA_WRITE ||
                      wr->opcode == IB_WR_RDMA_WRITE_IMM)) {
            p.reth_va = wr->remote_addr;
            p.reth_rkey = wr->rkey;
            p.reth_len = wr->length;
        }
        if (last) {
            p.imm = wr->opcode == IB_WR_SEND_INV ? htonl(wr->inv_rkey)
                                                 : wr->imm;
            p.se = wr->solicited;
            p.ack_req = true;
        } else if ((ib_psn_diff(psn, e->first_psn) & 63) == 63) {
            p.ack_req = true;           /* keep long messages flowing */
        }
        ib_port_send(port, &p, port->payload, chunk);
    }
    qp->cur_off += chunk;
    if (chunk == 0) {
        qp->cur_off = 1;                /* zero-length message: sent */
    }
    qp->next_psn = (psn + 1) & IB_PSN_MASK;
    return IB_WC_SUCCESS;
}

static unsigned ib_req_outstanding_rdatomic(IbQp *qp)
{
    unsigned n = 0;
    uint32_t i;

    for (i = qp->tail; i != qp->cur; i++) {
        IbSendEntry *e = ib_entry(qp, i);
        n += ib_wr_rdatomic(&e->wr) && !e->done;
    }
    return n;
}

/* Must WR @e wait for earlier ones to complete before it starts? */
static bool ib_req_must_wait(IbQp *qp, const IbSendEntry *e)
{
    if (e->started) {
        return false;
    }
    if ((e->wr.fence && ib_req_outstanding_rdatomic(qp)) ||
        (ib_wr_rdatomic(&e->wr) &&
         ib_req_outstanding_rdatomic(qp) >= MAX(1, qp->max_rd_atomic))) {
        return true;
    }
    /*
     * a DCI talks to one target at a time: it moves on once everything is
     * acknowledged
     */
    return qp->dci && qp->dc_connected && !ib_dc_same_target(qp, &e->wr) &&
           qp->tail != qp->cur;
}

static unsigned ib_req_tx(IbQp *qp, unsigned budget)
{
    unsigned used = 0;

    while (used < budget && qp->cur != qp->head &&
           !ib_port_tx_stopped(qp->port) && qp->rnr_deadline == 0 &&
           !qp->req_fault && (qp->state == IB_QPS_RTS)) {
        IbSendEntry *e = ib_entry(qp, qp->cur);
        bool msg_done;
        IbWcStatus st;

        if (!e->started) {
            if (ib_req_must_wait(qp, e)) {
                break;
            }
            if (qp->dci &&
                (!qp->dc_connected || !ib_dc_same_target(qp, &e->wr))) {
                ib_dc_connect(qp, &e->wr);
            }
            if (qp->type == IB_QPT_RC && ib_wr_atomic(&e->wr) &&
                (e->wr.remote_addr & 7)) {
                ib_req_fail(qp, qp->cur, IB_WC_LOC_QP_OP_ERR);
                break;
            }
            e->first_psn = qp->next_psn;
            e->npsn = ib_wr_npsn(qp, &e->wr);
            e->started = true;
            e->done = false;
            /*
             * (re)started from its first PSN: a READ asks for all of it again
             * (after a rewind to an earlier WR, a partial count would not match
             * the request's PSN)
             */
            e->resp_off = 0;
            qp->cur_off = 0;
        }
        if (qp->type == IB_QPT_RC &&
            ib_psn_diff(qp->next_psn, qp->una) >= IB_TX_WINDOW) {
            break;
        }
        st = ib_req_send_packet(qp, e);
        if (st == IB_WC_PAGE_FAULT) {
            ib_req_pause(qp, qp->cur, false);   /* the packet was not sent */
            break;
        }
        if (st != IB_WC_SUCCESS) {
            ib_req_fail(qp, qp->cur, st);
            break;
        }
        used++;
        qp->stat_tx++;
        msg_done = qp->cur_off >= MAX(1u, e->wr.length) ||
                   ib_wr_rdatomic(&e->wr);
        if (qp->type == IB_QPT_RC && !qp->ack_deadline) {
            ib_arm_ack_timer(qp);
        }
        if (msg_done) {
            qp->cur++;
            qp->cur_off = 0;
            if (qp->type == IB_QPT_UC) {
                e->done = true;         /* unreliable: complete once sent */
                ib_req_retire(qp);
            }
        }
    }
    return used;
}

unsigned ib_qp_tx(IbQp *qp, unsigned budget)
{
    unsigned used = 0;
    bool resp_left = false;

    if (qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI ||
        qp->type == IB_QPT_SMI) {
        return ib_ud_tx(qp, budget);
    }
    if (qp->type == IB_QPT_RC && qp->state >= IB_QPS_RTR &&
        qp->state != IB_QPS_ERR) {
        used += ib_resp_tx(qp, budget);
    }
    used += ib_req_tx(qp, budget - MIN(used, budget));
    for (unsigned i = 0; i < IB_MAX_RD_ATOMIC; i++) {
        resp_left |= qp->res[i].valid && qp->res[i].tx_pending &&
                     !qp->res[i].fault_wait;
    }
    /* a WR that waits for completions is woken by them (ib_req_rearm) */
    qp->tx_pending = resp_left ||
                     (qp->cur != qp->head && qp->state == IB_QPS_RTS &&
                      !qp->rnr_deadline && !qp->req_fault &&
                      !(qp->type == IB_QPT_RC &&
                        ib_psn_diff(qp->next_psn, qp->una) >= IB_TX_WINDOW) &&
                      !ib_req_must_wait(qp, ib_entry(qp, qp->cur)));
    return used;
}

/* ---- entry points -------------------------------------------------------- */

void ib_rc_rx(IbQp *qp, const IbPacket *p)
{
    uint8_t op = p->opcode & 0x1f;

    if (!ib_apm_rx(qp, p)) {
        return;
    }
    if (op >= OP(READ_RESPONSE_FIRST) && op <= OP(ATOMIC_ACKNOWLEDGE)) {
        if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) {
            if (op == OP(ACKNOWLEDGE)) {
                ib_req_aeth(qp, p);
            } else {
                ib_req_response(qp, p);
            }
        }
        return;
    }
    if (qp->xrc) {
        /*
         * an XRC target: every request names an XRC SRQ of the target's XRC
         * domain
         */
        if (!qp->port->ops->xrc_srq_ok ||
            !qp->port->ops->xrc_srq_ok(qp, p->xrc_srqn)) {
            ib_resp_error(qp, IB_NAK_INVALID_REQUEST, IB_EV_QP_REQ_ERR);
            return;
        }
        qp->xrc_srqn = p->xrc_srqn;
    }
    ib_resp_rx(qp, p);
}
