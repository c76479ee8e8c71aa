/*
 * mlx5 HCA core: the responder side of the data path. Receive WQEs are taken
 * from RQs, SRQs and (for XRC targets) the XRC SRQ a request names; received
 * data is scattered through memory keys; receive completions become CQEs;
 * remote memory accesses (RDMA WRITE/READ, atomics, remote invalidation) are
 * checked against the responder's PD and the keys' rights. The send side is
 * mlx5_exec.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_internal.h"
#include "trace.h"

/*
 * A receive completion of @qp to CQ @cqn carrying user index @uidx (an XRC
 * target's come from the XRC SRQ the message went to).
 */
static void mlx5_recv_cqe(Mlx5Core *c, Mlx5Qp *qp, uint32_t cqn, uint32_t uidx,
                          uint16_t wqe_counter, const IbRecvCompletion *rc)
{
    static const uint8_t opcode[] = {
        [IB_RECV_SEND] = MLX5_CQE_RESP_SEND,
        [IB_RECV_SEND_IMM] = MLX5_CQE_RESP_SEND_IMM,
        [IB_RECV_SEND_INV] = MLX5_CQE_RESP_SEND_INV,
        [IB_RECV_WRITE_IMM] = MLX5_CQE_RESP_WR_IMM,
    };
    uint8_t cqe[MLX5_CQE_SIZE] = { 0 };

    mlx5_st32(cqe + MLX5_CQE_srqn_uidx, uidx & 0xffffff);
    mlx5_st32(cqe + MLX5_CQE_sop_drop_qpn, qp->qpn);
    mlx5_st16(cqe + MLX5_CQE_wqe_counter, wqe_counter);
    if (rc->status != IB_WC_SUCCESS) {
        cqe[MLX5_CQE_syndrome] = mlx5_syndrome(rc->status);
        cqe[MLX5_CQE_op_own] = MLX5_CQE_RESP_ERR << 4;
        mlx5_qp_count(c, qp, rc->status == IB_WC_WR_FLUSH_ERR ?
                      MLX5_QC_RESP_CQE_FLUSH : MLX5_QC_RESP_CQE_ERROR);
        if (rc->status == IB_WC_LOC_LEN_ERR) {
            mlx5_qp_count(c, qp, MLX5_QC_RESP_LOCAL_LENGTH);
        }
        if (rc->status != IB_WC_WR_FLUSH_ERR) {
            trace_mlx5_err_recv_cqe(qp->qpn, wqe_counter,
                                    cqe[MLX5_CQE_syndrome]);
        }
        mlx5_cqe_post(c, cqn, cqe, true);
        return;
    }
    cqe[MLX5_CQE_ml_path] = rc->dlid_path_bits & 0x7f;
    if (rc->net_type != IB_NET_IB) {
        /*
         * RoCE: no SLID; the network header type (1 IPv6, 2 IPv4) where IB has
         * the SL, the VLAN tag (PCP = SL) in vlan_info
         */
        mlx5_st32(cqe + MLX5_CQE_flags_rqpn,
                  (rc->src_qpn & 0xffffff) |
                      ((rc->net_type == IB_NET_ROCE_IPV4 ? 2u : 1u) << 24) |
                      (1u << 28));
        if (rc->vlan) {
            cqe[MLX5_CQE_l4_l3_hdr_type] |= 1;
            mlx5_st16(cqe + MLX5_CQE_vlan_info, rc->vlan_tci);
        }
    } else {
        /*
         * GRH present is a datagram's (whose buffer starts with it): a
         * connected QP's receives report none, as rdma-core's tag-matching
         * test expects of a ConnectX (its RC QPs' paths have a GRH)
         */
        mlx5_st16(cqe + MLX5_CQE_slid, rc->slid);
        mlx5_st32(cqe + MLX5_CQE_flags_rqpn,
                  (rc->src_qpn & 0xffffff) | ((rc->sl & 0xfu) << 24) |
                      (rc->grh && mlx5_qp_is_ud(qp) ? 1u << 28 : 0));
    }
    if (rc->opcode == IB_RECV_SEND && mlx5_qp_is_ud(qp)) {
        mlx5_st32(cqe + MLX5_CQE_imm_inval_pkey, IB_DEFAULT_PKEY);
    } else if (rc->opcode != IB_RECV_SEND) {
        memcpy(cqe + MLX5_CQE_imm_inval_pkey, &rc->imm, 4);    /* wire order */
    }
    mlx5_st32(cqe + MLX5_CQE_byte_cnt, rc->byte_len);
    cqe[MLX5_CQE_op_own] = (opcode[rc->opcode] << 4) | (rc->solicited ? 2 : 0);
    trace_mlx5_recv_done(qp->qpn, wqe_counter, rc->byte_len);
    mlx5_cqe_post(c, cqn, cqe, rc->solicited);
}

/*
 * In error, every posted receive completes with a flush error (no RQ doorbell:
 * polled).
 */
void mlx5_rq_flush(Mlx5Core *c, Mlx5Qp *qp)
{
    IbRecvCompletion rc = { .status = IB_WC_WR_FLUSH_ERR };
    uint8_t dbr[4];
    uint16_t pi;
    unsigned n = 0;

    if (qp->rq_type == MLX5_RQ_TYPE_SRQ) {
        if (!qp->last_wqe_sent) {
            qp->last_wqe_sent = true;
            mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_SRQ_LAST_WQE);
        }
        return;
    }
    if (!qp->rq_cnt || mlx5_dma_read(c, qp->dbr_addr, dbr, 4)) {
        return;
    }
    pi = mlx5_ld32(dbr) & 0xffff;
    while (qp->rq_ci != pi && n++ < qp->rq_cnt) {
        mlx5_recv_cqe(c, qp, qp->cqn_rcv, qp->user_index, qp->rq_ci, &rc);
        qp->rq_ci++;
    }
}

/*
 * Take the next receive WQE (RQ or SRQ) into the transport QP's receive
 * context.
 */
bool mlx5_ib_recv_get(IbQp *ib, IbRecvWr *rwr, const void *msg,
                      uint32_t msg_len)
{
    Mlx5Qp *qp = qp_of(ib);
    Mlx5RecvCtx *rcv = mlx5_rcv_of(ib);
    Mlx5Core *c = core_of(ib);
    uint8_t wqe[16 << 5], dbr[4];
    unsigned stride, off = 0, i;
    uint64_t cap = 0;
    uint16_t counter;

    rcv->cqn = qp->cqn_rcv;
    rcv->uidx = qp->user_index;
    rcv->srqn = UINT32_MAX;
    rcv->tm_op = 0;
    rcv->tm_skip = 0;
    if (qp->rq_type == MLX5_RQ_TYPE_SRQ) {
        /*
         * an XRC target takes from the XRC SRQ the request names (checked by
         * xrc_srq_ok)
         */
        Mlx5Srq *srq = mlx5_table_get(
            &c->srqs, qp->st == MLX5_QP_ST_XRC ? ib->xrc_srqn : qp->srqn);
        /* (a WRITE with immediate takes an SRQ WQE as on any SRQ) */
        if (srq && srq->tm && msg && qp->st != MLX5_QP_ST_XRC &&
            mlx5_xrq_recv_get(c, qp, srq, rcv, msg, msg_len, rwr)) {
            return true;                /* into a matched tag's buffer */
        }
        if (!srq || mlx5_dma_read(c, srq->dbr_addr, dbr, 4)) {
            return false;
        }
        if (srq->xrc) {
            rcv->cqn = srq->cqn;
            rcv->uidx = srq->user_index;
        }
        counter = mlx5_ld32(dbr) & 0xffff;
        if (counter == srq->consumed) {
            return false;
        }
        stride = 16u << srq->log_rq_stride;
        if (mlx5_buf_read(
                c, &srq->buf,
                (uint64_t)(srq->head & ((1u << srq->log_srq_size) - 1)) *
                    stride,
                wqe, stride)) {
            return false;
        }
        mlx5_record_recv_wqe(c, qp, true, wqe, stride);
        rcv->wqe_counter = srq->head & ((1u << srq->log_srq_size) - 1);
        rcv->srqn = srq->srqn;
        rcv->pdn = srq->pdn;
        srq->head = mlx5_ld16(wqe + 2);
        srq->consumed++;
        off = 16;                       /* next segment */
        if (srq->armed && (uint16_t)(counter - srq->consumed) < srq->lwm) {
            uint8_t data[28] = { 0 };
            srq->armed = false;
            mlx5_st32(data + (MLX5_EQE_qp_srq_n - MLX5_EQE_data), srq->srqn);
            mlx5_eq_post_async(c, MLX5_EVENT_TYPE_SRQ_RQ_LIMIT, 0, data,
                               sizeof(data));
        }
    } else if (qp->rq_type == MLX5_RQ_TYPE_REGULAR && qp->rq_cnt) {
        if (mlx5_dma_read(c, qp->dbr_addr, dbr, 4)) {
            return false;
        }
        counter = mlx5_ld32(dbr) & 0xffff;
        if (counter == qp->rq_ci) {
            return false;
        }
        stride = qp->rq_stride;
        if (mlx5_buf_read(c, &qp->buf,
                          (uint64_t)(qp->rq_ci & (qp->rq_cnt - 1)) * stride,
                          wqe, stride)) {
            return false;
        }
        mlx5_record_recv_wqe(c, qp, false, wqe, stride);
        rcv->wqe_counter = qp->rq_ci++;
        rcv->pdn = qp->pdn;
    } else {
        return false;
    }
    rcv->nsge = 0;
    for (i = off; i + 16 <= stride && rcv->nsge < MLX5_MAX_RECV_SGE; i += 16) {
        Mlx5Sge *s = &rcv->sge[rcv->nsge];
        s->len = mlx5_ld32(wqe + i) & 0x7fffffff;
        s->lkey = mlx5_ld32(wqe + i + 4);
        s->addr = mlx5_ld64(wqe + i + 8);
        if (s->lkey == MLX5_INVALID_LKEY) {
            break;                      /* end of the scatter list */
        }
        if (s->len) {
            cap += s->len;
            rcv->nsge++;
        }
    }
    rwr->cookie = rcv->wqe_counter;
    rwr->capacity = cap;
    trace_mlx5_recv_wqe(qp->qpn, rcv->wqe_counter, rcv->nsge, cap);
    return true;
}

IbWcStatus mlx5_ib_recv_scatter(IbQp *ib, const IbRecvWr *rwr, uint64_t off,
                                       const void *buf, uint32_t len)
{
    Mlx5RecvCtx *rcv = mlx5_rcv_of(ib);
    Mlx5Core *c = core_of(ib);
    IbWcStatus st;

    if (mlx5_inject_wqe_hit(c, qp_of(ib)->qpn, true, &st)) {
        /* fault injection: the receive WQE fails as with a bad scatter list */
        return st;
    }
    if (rcv->tm_skip) {
        /* a message matched by its tag: past its headers, no page faults */
        const uint8_t *b = buf;

        if (!mlx5_xrq_recv_skip(rcv, &off, &b, &len)) {
            return IB_WC_SUCCESS;
        }
        st = mlx5_sgl_copy(c, rcv->pdn, rcv->sge, rcv->nsge,
                           MLX5_MAX_RECV_SGE, 0, off, (void *)b, len, true);
        return st == IB_WC_PAGE_FAULT ? IB_WC_LOC_PROT_ERR : st;
    }
    mlx5_sig_ctx(c, qp_of(ib), true);
    st = mlx5_sgl_copy(c, rcv->pdn, rcv->sge, rcv->nsge, MLX5_MAX_RECV_SGE, 0,
                       off, (void *)buf, len, true);
    mlx5_sig_ctx(c, NULL, false);

    if (st == IB_WC_PAGE_FAULT) {
        /*
         * ODP: the receive WQE's memory is not mapped; the driver maps all of
         * it
         */
        Mlx5Srq *srq = rcv->srqn != UINT32_MAX
                           ? mlx5_table_get(&c->srqs, rcv->srqn)
                           : NULL;
        if (rcv->srqn != UINT32_MAX && !srq) {
            return IB_WC_LOC_PROT_ERR;
        }
        st = mlx5_odp_wqe_fault(c, qp_of(ib), srq,
                                srq ? MLX5_PF_TYPE_RMP : MLX5_PF_TYPE_RESP,
                                rcv->wqe_counter, len);
    }
    return st;
}

/*
 * Give back the receive WQE just taken (a datagram dropped on a page fault):
 * nothing else was taken since, so the RQ counter or the SRQ's free list steps
 * back by one.
 */
void mlx5_ib_recv_put_back(IbQp *ib, const IbRecvWr *rwr)
{
    Mlx5RecvCtx *rcv = mlx5_rcv_of(ib);
    Mlx5Qp *qp = qp_of(ib);

    if (rcv->srqn != UINT32_MAX) {
        Mlx5Srq *srq = mlx5_table_get(&core_of(ib)->srqs, rcv->srqn);
        if (srq && srq->consumed) {
            srq->head = rcv->wqe_counter;
            srq->consumed--;
        }
    } else if ((uint16_t)(qp->rq_ci - 1) == rcv->wqe_counter) {
        qp->rq_ci--;
    }
}

void mlx5_ib_recv_done(IbQp *ib, const IbRecvWr *rwr,
                       const IbRecvCompletion *rc)
{
    Mlx5Qp *qp = qp_of(ib);
    Mlx5RecvCtx *rcv = mlx5_rcv_of(ib);
    Mlx5Core *c = core_of(ib);

    if (rcv->tm_op && mlx5_xrq_recv_done(c, qp, rcv, rc)) {
        return;                         /* a tag-matching completion */
    }
    mlx5_recv_cqe(c, qp, rcv->cqn, rcv->uidx, rwr->cookie, rc);
    /*
     * a failed receive puts a connected QP in error (a DCT: only the
     * initiator's context)
     */
    if (rc->status != IB_WC_SUCCESS && !mlx5_qp_is_ud(qp) &&
        qp->st != MLX5_QP_ST_DCT && qp->state != MLX5_QP_STATE_ERR) {
        qp->to_error = true;
        mlx5_exec_queue(c, qp);
    }
}

static unsigned mlx5_remote_need(unsigned access)
{
    return (access & IB_ACCESS_REMOTE_WRITE ? MLX5_MKEY_RW : 0) |
           (access & IB_ACCESS_REMOTE_READ ? MLX5_MKEY_RR : 0) |
           (access & IB_ACCESS_REMOTE_ATOMIC ? MLX5_MKEY_A : 0);
}

/*
 * The PD the responder's memory accesses are checked against: the QP's, or for
 * an XRC target the PD of the XRC SRQ the current request names.
 */
static uint32_t mlx5_resp_pdn(IbQp *ib)
{
    Mlx5Qp *qp = qp_of(ib);

    if (qp->st == MLX5_QP_ST_XRC) {
        Mlx5Srq *srq = mlx5_table_get(&core_of(ib)->srqs, ib->xrc_srqn);
        /* no such SRQ: no key matches */
        return srq ? srq->pdn : UINT32_MAX - 1;
    }
    return qp->pdn;
}

bool mlx5_ib_xrc_srq_ok(IbQp *ib, uint32_t srqn)
{
    Mlx5Qp *qp = qp_of(ib);
    Mlx5Srq *srq = mlx5_table_get(&core_of(ib)->srqs, srqn);

    if (!srq || !srq->xrc || srq->xrcd != qp->xrcd) {
        trace_mlx5_err_xrc_srq(qp->qpn, srqn);
        return false;
    }
    return true;
}

/*
 * A type-2 memory window (mkey bound to a QP) grants remote access through that
 * QP only.
 */
static bool mlx5_rkey_qp_ok(IbQp *ib, uint32_t rkey)
{
    Mlx5Mkey *mk = mlx5_table_get(&core_of(ib)->mkeys, rkey >> 8);

    return !mk || mk->qpn == 0xffffff || mk->qpn == qp_of(ib)->qpn;
}

IbWcStatus mlx5_ib_rkey_check(IbQp *ib, uint32_t rkey, uint64_t va,
                              uint64_t len, unsigned access)
{
    if (!mlx5_rkey_qp_ok(ib, rkey)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    return mlx5_xlate_status(
        mlx5_mkey_check(core_of(ib), rkey, mlx5_resp_pdn(ib),
                        mlx5_remote_need(access), va, len, NULL),
        true);
}

IbWcStatus mlx5_ib_rkey_write(IbQp *ib, uint32_t rkey, uint64_t va,
                              const void *buf, uint32_t len)
{
    IbWcStatus st;

    if (!mlx5_rkey_qp_ok(ib, rkey)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    mlx5_sig_ctx(core_of(ib), qp_of(ib), true);
    st = mlx5_xlate_status(mlx5_mkey_copy(core_of(ib), rkey, mlx5_resp_pdn(ib),
                                          MLX5_MKEY_RW, va, (void *)buf, len,
                                          true),
                           true);
    mlx5_sig_ctx(core_of(ib), NULL, false);
    if (st == IB_WC_PAGE_FAULT) {
        st = mlx5_odp_rdma_fault(core_of(ib), qp_of(ib), rkey, va,
                                 MIN(ib->write_left, UINT32_MAX), len, true);
    }
    return st;
}

IbWcStatus mlx5_ib_rkey_read(IbQp *ib, uint32_t rkey, uint64_t va, void *buf,
                                    uint32_t len)
{
    IbWcStatus st;

    if (!mlx5_rkey_qp_ok(ib, rkey)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    mlx5_sig_ctx(core_of(ib), qp_of(ib), true);
    st = mlx5_xlate_status(mlx5_mkey_copy(core_of(ib), rkey, mlx5_resp_pdn(ib),
                                          MLX5_MKEY_RR, va, buf, len, false),
                           true);
    mlx5_sig_ctx(core_of(ib), NULL, false);
    if (st == IB_WC_PAGE_FAULT) {
        st = mlx5_odp_rdma_fault(core_of(ib), qp_of(ib), rkey, va,
                                 MIN(ib->read_left, UINT32_MAX), len, false);
    }
    return st;
}

/* 8-byte atomics on responder memory in the host's (little-endian) order. */
IbWcStatus mlx5_ib_rkey_atomic(IbQp *ib, uint32_t rkey, uint64_t va,
                               bool cmp_swp, uint64_t compare_add,
                               uint64_t swap, uint64_t *orig)
{
    Mlx5Core *c = core_of(ib);
    uint32_t pdn = mlx5_resp_pdn(ib);
    uint8_t b[8];
    uint64_t v = 0, nv;
    int i, r;

    if (!mlx5_rkey_qp_ok(ib, rkey)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    r = mlx5_mkey_copy(c, rkey, pdn, MLX5_MKEY_A, va, b, 8, false);
    if (r == MLX5_XLATE_FAULT) {
        return mlx5_odp_rdma_fault(c, qp_of(ib), rkey, va, 8, 8, true);
    }
    if (r) {
        return mlx5_xlate_status(r, true);
    }
    for (i = 7; i >= 0; i--) {
        v = (v << 8) | b[i];
    }
    *orig = v;
    nv = cmp_swp ? (v == compare_add ? swap : v) : v + compare_add;
    for (i = 0; i < 8; i++) {
        b[i] = nv >> (8 * i);
    }
    r = mlx5_mkey_copy(c, rkey, pdn, MLX5_MKEY_A, va, b, 8, true);
    if (r == MLX5_XLATE_FAULT) {
        return mlx5_odp_rdma_fault(c, qp_of(ib), rkey, va, 8, 8, true);
    }
    return mlx5_xlate_status(r, true);
}

IbWcStatus mlx5_ib_invalidate(IbQp *ib, uint32_t rkey)
{
    return mlx5_mkey_invalidate(core_of(ib), qp_of(ib), mlx5_resp_pdn(ib),
                                rkey);
}
