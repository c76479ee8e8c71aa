/*
 * Vendor-neutral IB transport: the responder of the reliable and unreliable
 * connected services (RC, UC, XRC targets, DC target contexts).
 *
 * PSN checks, duplicate handling with responder resources (READ and atomic
 * replays), RNR NAK, access checks through the device's rkey services, ACK on
 * AckReq, READ responses.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include <arpa/inet.h>
#include "ib_internal.h"
#include "trace.h"

#define OP(x) IB_OP_##x

/* ---- responder ----------------------------------------------------------- */

static void ib_resp_aeth(IbQp *qp, uint32_t psn, uint8_t syndrome,
                         uint32_t msn)
{
    IbPacket p;

    ib_qp_fill_hdr(qp, &p, ib_transport_bits(qp) | OP(ACKNOWLEDGE), psn);
    p.aeth_syndrome = syndrome;
    p.aeth_msn = msn & IB_PSN_MASK;
    ib_port_send(qp->port, &p, NULL, 0);
}

/*
 * ACK coalescing: the ACK an AckReq asks for waits for the end of the burst of
 * frames being received (ib_port_run sends it, in the same main-loop turn), so
 * one cumulative ACK of the newest PSN answers every request of the burst, as
 * a ConnectX does; IBA 9.7.5.1.1 lets a responder coalesce. Any other frame
 * the port sends (a NAK, atomic ACK or READ response among them) sends it
 * first (ib_port_send), so the requester sees acknowledgements in PSN order.
 */
static void ib_resp_ack(IbQp *qp, uint32_t psn)
{
    IbPort *port = qp->port;

    if (port->qps != qp && !qp->prev) {
        /* not on the port's list, which ib_port_run walks */
        ib_resp_aeth(qp, psn, IB_AETH_ACK | IB_AETH_CREDITS_INVALID, qp->msn);
        return;
    }
    qp->ack_pending = true;
    qp->ack_psn = psn;
    qp->ack_msn = qp->msn;
    if (!port->acks_pending) {
        port->acks_pending = true;
        port->ops->kick(port);
    }
}

void ib_resp_ack_flush(IbQp *qp)
{
    if (qp->ack_pending) {
        qp->ack_pending = false;
        trace_ib_resp_ack(qp->qpn, qp->ack_psn);
        ib_resp_aeth(qp, qp->ack_psn, IB_AETH_ACK | IB_AETH_CREDITS_INVALID,
                     qp->ack_msn);
    }
}

static void ib_resp_send_aeth(IbQp *qp, uint32_t psn, uint8_t syndrome)
{
    ib_resp_aeth(qp, psn, syndrome, qp->msn);
}

void ib_resp_error(IbQp *qp, uint8_t nak, IbQpEvent ev)
{
    trace_ib_resp_error(qp->qpn, nak, qp->epsn);
    if (nak == IB_NAK_REMOTE_ACCESS_ERR) {
        ib_qp_stat(qp, IB_STAT_RESP_REMOTE_ACCESS);
    } else if (nak == IB_NAK_INVALID_REQUEST) {
        ib_qp_stat(qp, IB_STAT_RESP_REMOTE_INVALID);
    }
    if (qp->type == IB_QPT_RC) {
        ib_resp_send_aeth(qp, qp->epsn, IB_AETH_NAK | nak);
    }
    qp->in_send = qp->in_write = false;
    qp->state = IB_QPS_ERR;
    if (qp->dc_parent) {
        /* one initiator's connection failed; the DCT serves the others */
        return;
    }
    qp->port->ops->qp_event(qp, ev);
}

/*
 * On-demand paging: the memory for the request at @psn is not mapped yet; the
 * device has asked its driver to map it. RC answers RNR NAK, so the requester
 * sends the packet again after the RNR timer; nothing of the request is
 * consumed. UC has no NAK: the message is dropped.
 */
static void ib_resp_page_fault(IbQp *qp, uint32_t psn, bool rc)
{
    qp->stat_rnr++;
    qp->resp_fault = true;
    trace_ib_resp_page_fault(qp->qpn, psn);
    if (rc) {
        ib_resp_send_aeth(qp, psn,
                          IB_AETH_RNR_NAK | (qp->min_rnr_timer & 0x1f));
    } else {
        qp->in_send = qp->in_write = false;
    }
}

static void ib_resp_recv_fail(IbQp *qp, IbWcStatus st, uint8_t nak)
{
    IbRecvCompletion rc = { .status = st };

    if (qp->have_rwr) {
        qp->have_rwr = false;
        qp->port->ops->recv_done(qp, &qp->rwr, &rc);
    }
    ib_resp_error(qp, nak, IB_EV_QP_REQ_ERR);
}

static void ib_recv_complete(IbQp *qp, const IbPacket *p, IbRecvOpcode opcode,
                             uint32_t len)
{
    IbRecvCompletion rc = {
        .status = IB_WC_SUCCESS,
        .opcode = opcode,
        .byte_len = len,
        .imm = p->imm,
        .src_qpn = qp->dest_qpn,
        .slid = p->slid,
        .sl = p->sl,
        .dlid_path_bits = ib_port_path_bits(qp->port, p->dlid),
        .solicited = p->se,
    };

    qp->have_rwr = false;
    qp->port->ops->recv_done(qp, &qp->rwr, &rc);
}

/*
 * Returns false if the packet was not accepted (RNR or error): the PSN does not
 * advance.
 */
static bool ib_resp_send(IbQp *qp, const IbPacket *p, unsigned h, bool rc)
{
    uint8_t op = p->opcode & 0x1f;
    IbWcStatus st;

    if ((h & IB_HDR_FIRST) && !qp->have_rwr) {
        if (!qp->port->ops->recv_get(qp, &qp->rwr, p->payload,
                                     p->payload_len)) {
            qp->stat_rnr++;
            ib_qp_stat(qp, IB_STAT_OUT_OF_BUFFER);
            trace_ib_resp_rnr(qp->qpn, p->psn);
            if (rc) {
                ib_resp_send_aeth(qp, p->psn,
                                  IB_AETH_RNR_NAK | (qp->min_rnr_timer & 0x1f));
            }
            return false;
        }
        qp->have_rwr = true;
    }
    if (h & IB_HDR_FIRST) {
        qp->recv_off = 0;
    }
    if (qp->recv_off + p->payload_len > qp->rwr.capacity) {
        if (rc) {
            ib_resp_recv_fail(qp, IB_WC_LOC_LEN_ERR, IB_NAK_INVALID_REQUEST);
        } else {
            IbRecvCompletion c = { .status = IB_WC_LOC_LEN_ERR };
            qp->have_rwr = false;
            qp->in_send = false;
            qp->port->ops->recv_done(qp, &qp->rwr, &c);
        }
        return false;
    }
    if (p->payload_len) {
        st = qp->port->ops->recv_scatter(qp, &qp->rwr, qp->recv_off, p->payload,
                                         p->payload_len);
        if (st == IB_WC_PAGE_FAULT) {
            ib_resp_page_fault(qp, p->psn, rc);
            return false;
        }
        if (st != IB_WC_SUCCESS) {
            ib_resp_recv_fail(qp, st, IB_NAK_REMOTE_OP_ERR);
            return false;
        }
    }
    qp->recv_off += p->payload_len;
    qp->in_send = !(h & IB_HDR_LAST);
    if (h & IB_HDR_LAST) {
        IbRecvOpcode ro = IB_RECV_SEND;
        if (op == OP(SEND_LAST_IMM) || op == OP(SEND_ONLY_IMM)) {
            ro = IB_RECV_SEND_IMM;
        } else if (op == OP(SEND_LAST_INV) || op == OP(SEND_ONLY_INV)) {
            ro = IB_RECV_SEND_INV;
            st = qp->port->ops->invalidate(qp, ntohl(p->imm));
            if (st != IB_WC_SUCCESS) {
                ib_resp_recv_fail(qp, st, IB_NAK_INVALID_REQUEST);
                return false;
            }
        }
        ib_recv_complete(qp, p, ro, qp->recv_off);
        qp->msn++;
    }
    return true;
}

static bool ib_resp_write(IbQp *qp, const IbPacket *p, unsigned h, bool rc)
{
    uint8_t op = p->opcode & 0x1f;
    bool imm = op == OP(WRITE_LAST_IMM) || op == OP(WRITE_ONLY_IMM);
    IbWcStatus st;

    if (h & IB_HDR_FIRST) {
        if (!qp->rwe) {
            ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
            return false;
        }
        if (p->reth_len && qp->port->ops->rkey_check(
                               qp, p->reth_rkey, p->reth_va, p->reth_len,
                               IB_ACCESS_REMOTE_WRITE) != IB_WC_SUCCESS) {
            ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
            return false;
        }
        qp->write_va = p->reth_va;
        qp->write_rkey = p->reth_rkey;
        qp->write_left = qp->write_total = p->reth_len;
        ib_qp_stat(qp, IB_STAT_RX_WRITE);
    }
    if (p->payload_len > qp->write_left ||
        ((h & IB_HDR_LAST) && p->payload_len != qp->write_left) ||
        (!(h & IB_HDR_LAST) && p->payload_len != qp->mtu)) {
        ib_resp_error(qp, IB_NAK_INVALID_REQUEST, IB_EV_QP_REQ_ERR);
        return false;
    }
    /* the receive WQE for the immediate must exist before any byte lands */
    if (imm && !qp->have_rwr) {
        if (!qp->port->ops->recv_get(qp, &qp->rwr, NULL, 0)) {
            qp->stat_rnr++;
            ib_qp_stat(qp, IB_STAT_OUT_OF_BUFFER);
            if (rc) {
                ib_resp_send_aeth(qp, p->psn,
                                  IB_AETH_RNR_NAK | (qp->min_rnr_timer & 0x1f));
            }
            return false;
        }
        qp->have_rwr = true;
    }
    if (p->payload_len) {
        st = qp->port->ops->rkey_write(qp, qp->write_rkey, qp->write_va,
                                       p->payload, p->payload_len);
        if (st == IB_WC_PAGE_FAULT) {
            ib_resp_page_fault(qp, p->psn, rc);
            return false;
        }
        if (st != IB_WC_SUCCESS) {
            ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
            return false;
        }
    }
    qp->write_va += p->payload_len;
    qp->write_left -= p->payload_len;
    qp->in_write = !(h & IB_HDR_LAST);
    if (h & IB_HDR_LAST) {
        if (imm) {
            ib_recv_complete(qp, p, IB_RECV_WRITE_IMM, qp->write_total);
        }
        qp->msn++;
    }
    return true;
}

static IbRespRes *ib_resp_res_alloc(IbQp *qp)
{
    unsigned n = MAX(1, MIN(qp->max_dest_rd_atomic, IB_MAX_RD_ATOMIC));
    IbRespRes *r = &qp->res[qp->res_next % n];

    qp->res_next = (qp->res_next + 1) % n;
    memset(r, 0, sizeof(*r));
    r->valid = true;
    return r;
}

static void ib_resp_atomic_ack(IbQp *qp, const IbRespRes *r)
{
    IbPacket p;

    ib_qp_fill_hdr(qp, &p, ib_transport_bits(qp) | OP(ATOMIC_ACKNOWLEDGE),
                   r->psn);
    p.aeth_syndrome = IB_AETH_ACK | IB_AETH_CREDITS_INVALID;
    p.aeth_msn = qp->msn & IB_PSN_MASK;
    p.atomic_orig = r->orig;
    ib_port_send(qp->port, &p, NULL, 0);
}

static bool ib_resp_read(IbQp *qp, const IbPacket *p)
{
    IbRespRes *r;

    if (!qp->rre ||
        (p->reth_len &&
         qp->port->ops->rkey_check(qp, p->reth_rkey, p->reth_va, p->reth_len,
                                   IB_ACCESS_REMOTE_READ) != IB_WC_SUCCESS)) {
        ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
        return false;
    }
    r = ib_resp_res_alloc(qp);
    r->psn = p->psn;
    r->npsn = MAX(1u, (p->reth_len + qp->mtu - 1) / qp->mtu);
    r->va = p->reth_va;
    r->rkey = p->reth_rkey;
    r->len = p->reth_len;
    r->tx_pending = true;
    r->tx_psn = p->psn;
    qp->epsn = (p->psn + r->npsn) & IB_PSN_MASK;
    qp->msn++;
    qp->tx_pending = true;
    qp->port->ops->kick(qp->port);
    return true;
}

static bool ib_resp_atomic(IbQp *qp, const IbPacket *p)
{
    bool cmp = (p->opcode & 0x1f) == OP(COMPARE_SWAP);
    IbRespRes *r;
    uint64_t orig;
    IbWcStatus st;

    if (!qp->rae) {
        ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
        return false;
    }
    if (p->atomic_va & 7) {
        ib_resp_error(qp, IB_NAK_INVALID_REQUEST, IB_EV_QP_REQ_ERR);
        return false;
    }
    st = qp->port->ops->rkey_atomic(qp, p->atomic_rkey, p->atomic_va, cmp,
                                    cmp ? p->atomic_compare
                                        : p->atomic_swap_add,
                                    p->atomic_swap_add, &orig);
    if (st == IB_WC_PAGE_FAULT) {
        ib_resp_page_fault(qp, p->psn, true);
        return false;
    }
    if (st != IB_WC_SUCCESS) {
        ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
        return false;
    }
    r = ib_resp_res_alloc(qp);
    r->atomic = true;
    r->psn = p->psn;
    r->npsn = 1;
    r->orig = orig;
    qp->msn++;
    ib_resp_atomic_ack(qp, r);
    return true;
}

/* A request the responder has already executed. */
static void ib_resp_duplicate(IbQp *qp, const IbPacket *p)
{
    uint8_t op = p->opcode & 0x1f;
    unsigned i;

    qp->stat_dup++;
    ib_qp_stat(qp, IB_STAT_DUPLICATE_REQUEST);
    trace_ib_resp_duplicate(qp->qpn, p->psn, qp->epsn);
    for (i = 0; i < IB_MAX_RD_ATOMIC; i++) {
        IbRespRes *r = &qp->res[i];
        if (!r->valid || ib_psn_diff(p->psn, r->psn) < 0 ||
            ib_psn_diff(p->psn, r->psn + r->npsn) >= 0) {
            continue;
        }
        if (op == OP(READ_REQUEST) && !r->atomic) {
            /* answer again from the requested PSN */
            r->tx_pending = true;
            r->tx_psn = p->psn;
            qp->tx_pending = true;
            qp->port->ops->kick(qp->port);
            return;
        }
        if ((op == OP(COMPARE_SWAP) || op == OP(FETCH_ADD)) && r->atomic) {
            ib_resp_atomic_ack(qp, r);      /* never execute an atomic twice */
            return;
        }
    }
    if (op != OP(READ_REQUEST) && op != OP(COMPARE_SWAP) &&
        op != OP(FETCH_ADD)) {
        /* (merged with an ACK still waiting: the same PSN) */
        ib_resp_ack(qp, (qp->epsn - 1) & IB_PSN_MASK);
    }
}

static bool ib_resp_sequence_ok(const IbQp *qp, uint8_t op, unsigned h)
{
    if (qp->in_send) {
        return op == OP(SEND_MIDDLE) || op == OP(SEND_LAST) ||
               op == OP(SEND_LAST_IMM) || op == OP(SEND_LAST_INV);
    }
    if (qp->in_write) {
        return op == OP(WRITE_MIDDLE) || op == OP(WRITE_LAST) ||
               op == OP(WRITE_LAST_IMM);
    }
    return h & IB_HDR_FIRST;
}

bool ib_resp_tx_busy(const IbQp *qp)
{
    for (unsigned i = 0; i < IB_MAX_RD_ATOMIC; i++) {
        if (qp->res[i].valid && qp->res[i].tx_pending) {
            return true;
        }
    }
    return false;
}

void ib_resp_rx(IbQp *qp, const IbPacket *p)
{
    uint8_t op = p->opcode & 0x1f;
    unsigned h = ib_opcode_headers(p->opcode);
    int32_t d = ib_psn_diff(p->psn, qp->epsn);
    bool ok;

    if (!qp->comm_est && qp->state == IB_QPS_RTR) {
        qp->comm_est = true;
        qp->port->ops->qp_event(qp, IB_EV_COMM_EST);
    }
    if (d > 0) {
        ib_qp_stat(qp, IB_STAT_OUT_OF_SEQUENCE);
        if (!qp->nak_sent) {
            qp->nak_sent = true;
            ib_resp_send_aeth(qp, qp->epsn, IB_AETH_NAK | IB_NAK_PSN_SEQ_ERR);
        }
        return;
    }
    if (d < 0) {
        ib_resp_duplicate(qp, p);
        return;
    }
    /*
     * Responses leave in PSN order: READ responses still queued go out before
     * anything this request makes us send. If the link cannot take them now,
     * drop the request; the requester sends it again.
     */
    if (ib_resp_tx_busy(qp)) {
        ib_resp_tx(qp, UINT32_MAX);
        if (ib_resp_tx_busy(qp)) {
            return;
        }
    }
    qp->nak_sent = false;
    if (!ib_resp_sequence_ok(qp, op, h)) {
        ib_resp_error(qp, IB_NAK_INVALID_REQUEST, IB_EV_QP_REQ_ERR);
        return;
    }
    if (op <= OP(SEND_ONLY_IMM) || op == OP(SEND_LAST_INV) ||
        op == OP(SEND_ONLY_INV)) {
        ok = ib_resp_send(qp, p, h, true);
    } else if (op <= OP(WRITE_ONLY_IMM)) {
        ok = ib_resp_write(qp, p, h, true);
    } else if (op == OP(READ_REQUEST)) {
        if (ib_resp_read(qp, p)) {
            ib_qp_stat(qp, IB_STAT_RX_READ);
        }
        /* epsn advanced by the READ's PSN count */
        return;
    } else if (op == OP(COMPARE_SWAP) || op == OP(FETCH_ADD)) {
        ok = ib_resp_atomic(qp, p);
        if (ok) {
            ib_qp_stat(qp, IB_STAT_RX_ATOMIC);
        }
    } else {
        ib_resp_error(qp, IB_NAK_INVALID_REQUEST, IB_EV_QP_REQ_ERR);
        return;
    }
    if (!ok) {
        return;
    }
    qp->epsn = (qp->epsn + 1) & IB_PSN_MASK;
    if (p->ack_req && op != OP(COMPARE_SWAP) && op != OP(FETCH_ADD)) {
        ib_resp_ack(qp, p->psn);
    }
}

/* READ responses waiting to go out, oldest first. */
unsigned ib_resp_tx(IbQp *qp, unsigned budget)
{
    unsigned used = 0;

    while (used < budget && !ib_port_tx_stopped(qp->port)) {
        IbRespRes *r = NULL;
        uint32_t idx, off, chunk;
        IbWcStatus st;
        uint8_t op;
        IbPacket p;

        for (unsigned i = 0; i < IB_MAX_RD_ATOMIC; i++) {
            IbRespRes *c = &qp->res[i];
            if (c->valid && c->tx_pending &&
                (!r || ib_psn_diff(c->tx_psn, r->tx_psn) < 0)) {
                r = c;
            }
        }
        if (!r || r->fault_wait) {
            /* responses leave in order: wait for the oldest */
            break;
        }
        idx = (uint32_t)ib_psn_diff(r->tx_psn, r->psn);
        off = idx * qp->mtu;
        chunk = MIN(qp->mtu, r->len - MIN(off, r->len));
        if (r->npsn == 1) {
            op = OP(READ_RESPONSE_ONLY);
        } else {
            op = idx == 0             ? OP(READ_RESPONSE_FIRST)
                 : idx + 1 == r->npsn ? OP(READ_RESPONSE_LAST)
                                      : OP(READ_RESPONSE_MIDDLE);
        }
        qp->read_left = r->len - MIN(off, r->len);
        st = chunk ? qp->port->ops->rkey_read(qp, r->rkey, r->va + off,
                                              qp->port->payload, chunk)
                   : IB_WC_SUCCESS;
        if (st == IB_WC_PAGE_FAULT) {
            r->fault_wait = true;       /* until the driver has mapped it */
            qp->resp_fault = true;
            trace_ib_resp_page_fault(qp->qpn, r->tx_psn);
            break;
        }
        if (st != IB_WC_SUCCESS) {
            r->tx_pending = false;
            ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
            break;
        }
        ib_qp_fill_hdr(qp, &p, ib_transport_bits(qp) | op, r->tx_psn);
        p.aeth_syndrome = IB_AETH_ACK | IB_AETH_CREDITS_INVALID;
        p.aeth_msn = qp->msn & IB_PSN_MASK;
        ib_port_send(qp->port, &p, qp->port->payload, chunk);
        r->tx_psn = (r->tx_psn + 1) & IB_PSN_MASK;
        if (idx + 1 >= r->npsn) {
            r->tx_pending = false;
        }
        used++;
    }
    return used;
}

/* UC: no acknowledgements; a gap in PSNs drops the message in progress. */
void ib_uc_rx(IbQp *qp, const IbPacket *p)
{
    uint8_t op = p->opcode & 0x1f;
    unsigned h = ib_opcode_headers(p->opcode);

    if (!ib_apm_rx(qp, p)) {
        return;
    }
    if (p->psn != qp->epsn || !ib_resp_sequence_ok(qp, op, h)) {
        /* keep the receive WQE for the next one */
        qp->in_send = qp->in_write = false;
        if (!(h & IB_HDR_FIRST)) {
            qp->epsn = (p->psn + 1) & IB_PSN_MASK;
            return;
        }
    }
    qp->epsn = (p->psn + 1) & IB_PSN_MASK;
    if (op <= OP(SEND_ONLY_IMM) || op == OP(SEND_LAST_INV) ||
        op == OP(SEND_ONLY_INV)) {
        ib_resp_send(qp, p, h, false);
    } else if (op <= OP(WRITE_ONLY_IMM)) {
        ib_resp_write(qp, p, h, false);
    }
}

/* The driver resolved a responder page fault (ib_qp_page_fault_resume). */
void ib_resp_page_fault_resume(IbQp *qp, IbPfSide side, bool error)
{
    bool held = false;

    if (!qp->resp_fault) {
        return;
    }
    qp->resp_fault = false;
    for (unsigned i = 0; i < IB_MAX_RD_ATOMIC; i++) {
        held |= qp->res[i].fault_wait;
        qp->res[i].fault_wait = false;
    }
    if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_RESET) {
        return;
    }
    if (error) {
        /*
         * as the access would have failed: the requester sees the NAK, then the
         * QP is in error
         */
        if (side == IB_PF_RECV) {
            ib_resp_recv_fail(qp, IB_WC_LOC_PROT_ERR, IB_NAK_REMOTE_OP_ERR);
        } else {
            ib_resp_error(qp, IB_NAK_REMOTE_ACCESS_ERR, IB_EV_QP_ACCESS_ERR);
        }
        return;
    }
    if (held) {
        qp->tx_pending = true;
        qp->port->ops->kick(qp->port);
    }
}
