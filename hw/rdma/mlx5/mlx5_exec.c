/*
 * mlx5 HCA core: the data path. Send WQEs are copied in and decoded into IB
 * work requests for the vendor-neutral transport (ib_*.c); receive WQEs are
 * taken from RQs/SRQs when messages arrive; completions become CQEs. Memory is
 * reached only through memory keys.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_xrq_prm.h"
#include "trace.h"

/* RQ polling of QPs in error (no RQ doorbell) */
#define MLX5_ERR_POLL_NS    1000000

uint8_t mlx5_syndrome(IbWcStatus st)
{
    static const uint8_t map[] = {
        [IB_WC_LOC_LEN_ERR] = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
        [IB_WC_LOC_QP_OP_ERR] = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
        [IB_WC_LOC_PROT_ERR] = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
        [IB_WC_WR_FLUSH_ERR] = MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
        [IB_WC_BAD_RESP_ERR] = MLX5_CQE_SYNDROME_BAD_RESP_ERR,
        [IB_WC_LOC_ACCESS_ERR] = MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR,
        [IB_WC_REM_INV_REQ_ERR] = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
        [IB_WC_REM_ACCESS_ERR] = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
        [IB_WC_REM_OP_ERR] = MLX5_CQE_SYNDROME_REMOTE_OP_ERR,
        [IB_WC_RETRY_EXC_ERR] = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
        [IB_WC_RNR_RETRY_EXC_ERR] = MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
        [IB_WC_MW_BIND_ERR] = MLX5_CQE_SYNDROME_MW_BIND_ERR,
    };
    return st < G_N_ELEMENTS(map) && map[st] ? map[st]
                                             : MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
}

bool mlx5_qp_is_ud(const Mlx5Qp *qp)
{
    return qp->st == MLX5_QP_ST_UD || qp->st == MLX5_QP_ST_QP0 ||
           qp->st == MLX5_QP_ST_QP1;
}

/* ---- work list ----------------------------------------------------------- */

void mlx5_exec_queue(Mlx5Core *c, Mlx5Qp *qp)
{
    if (!qp->queued && c->nwork < c->qps.size) {
        qp->queued = true;
        c->work[(c->work_head + c->nwork++) % c->qps.size] = qp->qpn;
        c->ops->kick(c->opaque);
    }
}

void mlx5_exec_set_deadline(Mlx5Core *c)
{
    int64_t next = MIN(MIN(c->ib_deadline, c->poll_deadline),
                       MIN(c->port_deadline, c->lro_deadline));

    next = MIN(next, MIN(c->cmd_late_deadline, c->pp_deadline));

    c->ops->set_deadline(c->opaque, next);
}

/* ---- completions --------------------------------------------------------- */

void mlx5_cqe_post(Mlx5Core *c, uint32_t cqn, uint8_t *cqe, bool solicited)
{
    Mlx5Cq *cq = mlx5_table_get(&c->cqs, cqn);

    uint8_t op = cqe[MLX5_CQE_op_own] >> 4;

    if (cq) {
        if (op != MLX5_CQE_REQ_ERR && op != MLX5_CQE_RESP_ERR) {
            /* error CQEs carry the syndromes where the timestamp would be */
            mlx5_st64(cqe + MLX5_CQE_timestamp, c->ops->now_ns(c->opaque));
        }
        mlx5_cq_post(c, cq, cqe, solicited);
    }
}

static void mlx5_send_cqe(Mlx5Core *c, Mlx5Qp *qp, const Mlx5SendCtx *ctx,
                          IbWcStatus st)
{
    uint8_t cqe[MLX5_CQE_SIZE] = { 0 };

    if (st == IB_WC_SUCCESS && !ctx->signaled) {
        return;
    }
    mlx5_st32(cqe + MLX5_CQE_srqn_uidx, qp->user_index & 0xffffff);
    mlx5_st32(cqe + MLX5_CQE_sop_drop_qpn,
              ((uint32_t)ctx->opcode << 24) | qp->qpn);
    mlx5_st16(cqe + MLX5_CQE_wqe_counter, ctx->wqe_index);
    if (st == IB_WC_SUCCESS) {
        mlx5_st32(cqe + MLX5_CQE_byte_cnt, ctx->length);
        cqe[MLX5_CQE_op_own] = MLX5_CQE_REQ << 4;
    } else {
        cqe[MLX5_CQE_syndrome] = mlx5_syndrome(st);
        cqe[MLX5_CQE_op_own] = MLX5_CQE_REQ_ERR << 4;
        mlx5_qp_count(c, qp, st == IB_WC_WR_FLUSH_ERR ? MLX5_QC_REQ_CQE_FLUSH
                                                      : MLX5_QC_REQ_CQE_ERROR);
        if (st != IB_WC_WR_FLUSH_ERR) {
            trace_mlx5_err_send_cqe(qp->qpn, ctx->wqe_index,
                                    cqe[MLX5_CQE_syndrome]);
        }
    }
    trace_mlx5_send_done(qp->qpn, ctx->wqe_index, ctx->opcode, st);
    mlx5_cqe_post(c, qp->cqn_snd, cqe, st != IB_WC_SUCCESS);
}

void mlx5_qp_event(Mlx5Core *c, Mlx5Qp *qp, uint8_t type)
{
    uint8_t data[28] = { 0 };

    data[MLX5_EQE_rsc_type - MLX5_EQE_data] = MLX5_EVENT_QUEUE_TYPE_QP;
    mlx5_st32(data + (MLX5_EQE_qp_srq_n - MLX5_EQE_data), qp->qpn);
    trace_mlx5_qp_event(qp->qpn, type);
    mlx5_eq_post_async(c, type, 0, data, sizeof(data));
}

/* ---- error state --------------------------------------------------------- */

static void mlx5_qp_enter_error(Mlx5Core *c, Mlx5Qp *qp)
{
    qp->to_error = false;
    if (qp->state == MLX5_QP_STATE_RST) {
        return;
    }
    qp->state = MLX5_QP_STATE_ERR;
    MLX5_SET(qp->qpc, QPC_state, MLX5_QP_STATE_ERR);
    if (qp->ib.state != IB_QPS_ERR) {
        ib_qp_set_state(&qp->ib, IB_QPS_ERR);
    }
    /* WRs the transport holds complete first (they were posted first) */
    ib_qp_flush(&qp->ib);
    mlx5_exec_queue(c, qp);
    if (c->poll_deadline == INT64_MAX) {
        c->poll_deadline = c->ops->now_ns(c->opaque) + MLX5_ERR_POLL_NS;
        mlx5_exec_set_deadline(c);
    }
}

/* ---- send queue ---------------------------------------------------------- */

static uint8_t *mlx5_inl_ptr(Mlx5Qp *qp, uint32_t slot)
{
    return qp->sinl + (size_t)(slot & (qp->sq_cnt - 1)) * MLX5_SEND_WQE_BB;
}

/*
 * Copy the WQE starting at counter @idx (all its WQEBBs, in ring order) into
 * @wqe.
 */
static int mlx5_sq_fetch(Mlx5Core *c, Mlx5Qp *qp, uint16_t idx, uint8_t *wqe,
                         unsigned *nbb)
{
    /* a BlueFlame copy of the whole WQE (mlx5_bf.c), else the ring */
    unsigned ds, k = mlx5_bf_take(c, qp, idx, wqe);
    uint64_t off = qp->sq_off + (uint64_t)(idx & (qp->sq_cnt - 1)) * 64;

    if (!k && mlx5_buf_read(c, &qp->buf, off, wqe, MLX5_SEND_WQE_BB)) {
        return -1;
    }
    ds = wqe[7] & 0x3f;
    *nbb = (ds + 3) / 4;
    if (ds == 0 || *nbb > qp->sq_cnt) {
        return -1;
    }
    for (k = MAX(k, 1); k < *nbb; k++) {
        uint16_t slot = (idx + k) & (qp->sq_cnt - 1);
        if (mlx5_buf_read(c, &qp->buf, qp->sq_off + (uint64_t)slot * 64,
                          wqe + k * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB)) {
            return -1;
        }
    }
    return 0;
}

static void mlx5_decode_av(const uint8_t *seg, IbSendWr *wr)
{
    uint32_t grh_gid_fl = mlx5_ld32(seg + 28);

    wr->qkey = mlx5_ld32(seg);
    wr->dest_qpn = mlx5_ld32(seg + 8) & 0xffffff;
    wr->av.sl = seg[12] & 0xf;
    wr->av.src_path_bits = seg[13] & 0x7f;
    wr->av.dlid = mlx5_ld16(seg + 14);
    wr->av.udp_sport = mlx5_ld16(seg + 14);     /* RoCE: the same bytes */
    memcpy(wr->av.dmac, seg + 20, 6);
    wr->av.tclass = seg[26];
    wr->av.hop_limit = seg[27];
    wr->av.grh = grh_gid_fl & (1u << 30);
    wr->av.sgid_index = (grh_gid_fl >> 20) & 0xff;
    wr->av.flow_label = grh_gid_fl & 0xfffff;
    memcpy(wr->av.dgid, seg + 32, 16);
}

/*
 * Decode the WQE in @wqe (@nbb WQEBBs) into @ctx/@wr, copying its
 * scatter/gather list and inline data into the QP's device-owned arrays.
 * Returns IB_WC_SUCCESS or a local error.
 */
static IbWcStatus mlx5_sq_decode(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *wqe,
                                 unsigned nbb, Mlx5SendCtx *ctx, IbSendWr *wr)
{
    unsigned ds = wqe[7] & 0x3f, off = MLX5_SEND_WQE_DS,
             end = ds * MLX5_SEND_WQE_DS;
    uint32_t slot = ctx->wqe_index & (qp->sq_cnt - 1);
    uint8_t fm_ce_se = wqe[11];
    uint64_t total = 0;
    bool ud = mlx5_qp_is_ud(qp);

    memset(wr, 0, sizeof(*wr));
    ctx->opcode = wqe[3];
    ctx->signaled = fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE;
    ctx->nsge = 0;
    ctx->inl = false;
    wr->cookie = ctx->wqe_index;
    wr->signaled = ctx->signaled;
    wr->solicited = fm_ce_se & MLX5_WQE_CTRL_SOLICITED;
    wr->fence = (fm_ce_se >> MLX5_WQE_CTRL_FM_SHIFT) >= 2;
    memcpy(&wr->imm, wqe + 12, 4);

    switch (ctx->opcode) {
    case MLX5_OPCODE_SEND:
        wr->opcode = IB_WR_SEND;
        break;
    case MLX5_OPCODE_SEND_IMM:
        wr->opcode = IB_WR_SEND_IMM;
        break;
    case MLX5_OPCODE_SEND_INVAL:
        wr->opcode = IB_WR_SEND_INV;
        wr->inv_rkey = mlx5_ld32(wqe + 12);
        break;
    case MLX5_OPCODE_RDMA_WRITE:
        wr->opcode = IB_WR_RDMA_WRITE;
        break;
    case MLX5_OPCODE_RDMA_WRITE_IMM:
        wr->opcode = IB_WR_RDMA_WRITE_IMM;
        break;
    case MLX5_OPCODE_RDMA_READ:
        wr->opcode = IB_WR_RDMA_READ;
        break;
    case MLX5_OPCODE_ATOMIC_CS:
        wr->opcode = IB_WR_ATOMIC_CMP_SWP;
        break;
    case MLX5_OPCODE_ATOMIC_FA:
        wr->opcode = IB_WR_ATOMIC_FETCH_ADD;
        break;
    default:
        return IB_WC_LOC_QP_OP_ERR;
    }
    if (qp->st == MLX5_QP_ST_XRC) {
        /*
         * XRC initiator: the remote XRC SRQ (mlx5_wqe_xrc_seg) precedes the RC
         * segments
         */
        if (off + 16 > end) {
            return IB_WC_LOC_QP_OP_ERR;
        }
        wr->xrc_srqn = mlx5_ld32(wqe + off) & 0xffffff;
        off += 16;
    }
    if (qp->st == MLX5_QP_ST_DCI) {
        /*
         * DC initiator: the target (address vector, DCT number, DC access key)
         * precedes the RC segments
         */
        if (off + MLX5_WQE_DATAGRAM_SEG_SIZE > end) {
            return IB_WC_LOC_QP_OP_ERR;
        }
        mlx5_decode_av(wqe + off, wr);
        wr->dc_key = mlx5_ld64(wqe + off);
        wr->qkey = 0;
        off += MLX5_WQE_DATAGRAM_SEG_SIZE;
    }
    if (ud) {
        if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_IMM) {
            return IB_WC_LOC_QP_OP_ERR;
        }
        if (off + MLX5_WQE_DATAGRAM_SEG_SIZE > end) {
            return IB_WC_LOC_QP_OP_ERR;
        }
        mlx5_decode_av(wqe + off, wr);
        off += MLX5_WQE_DATAGRAM_SEG_SIZE;
    } else if (wr->opcode >= IB_WR_RDMA_WRITE) {
        if ((wr->opcode >= IB_WR_RDMA_READ && qp->st == MLX5_QP_ST_UC) ||
            off + 16 > end) {
            return IB_WC_LOC_QP_OP_ERR;
        }
        wr->remote_addr = mlx5_ld64(wqe + off);
        wr->rkey = mlx5_ld32(wqe + off + 8);
        off += 16;
        if (wr->opcode == IB_WR_ATOMIC_CMP_SWP ||
            wr->opcode == IB_WR_ATOMIC_FETCH_ADD) {
            if (off + 16 > end) {
                return IB_WC_LOC_QP_OP_ERR;
            }
            if (wr->opcode == IB_WR_ATOMIC_CMP_SWP) {
                wr->swap = mlx5_ld64(wqe + off);
                wr->compare_add = mlx5_ld64(wqe + off + 8);
            } else {
                wr->compare_add = mlx5_ld64(wqe + off);
            }
            off += 16;
        }
    }
    /* payload: one inline segment, or data segments */
    while (off < end) {
        uint32_t bc = mlx5_ld32(wqe + off);
        if (bc & MLX5_INLINE_SEG) {
            uint32_t len = bc & ~MLX5_INLINE_SEG, i;
            if (off + 4 + len > end || wr->opcode == IB_WR_RDMA_READ) {
                return IB_WC_LOC_QP_OP_ERR;
            }
            /* into the ring slot(s) of this WQE */
            for (i = 0; i < len; i++) {
                mlx5_inl_ptr(qp, slot + i / 64)[i % 64] = wqe[off + 4 + i];
            }
            ctx->inl = true;
            total = len;
            break;
        }
        if (ctx->nsge >= nbb * MLX5_SEGS_PER_WQEBB) {
            return IB_WC_LOC_QP_OP_ERR;
        }
        if (bc) {
            Mlx5Sge *s =
                &qp->ssge[((size_t)slot * MLX5_SEGS_PER_WQEBB + ctx->nsge) %
                          ((size_t)qp->sq_cnt * MLX5_SEGS_PER_WQEBB)];
            s->len = bc;
            s->lkey = mlx5_ld32(wqe + off + 4);
            s->addr = mlx5_ld64(wqe + off + 8);
            ctx->nsge++;
            total += bc;
        }
        off += MLX5_SEND_WQE_DS;
    }
    if (total > (1ull << MLX5_GET(c->cap_general_cur, CAP_log_max_msg))) {
        return IB_WC_LOC_LEN_ERR;
    }
    if ((wr->opcode == IB_WR_ATOMIC_CMP_SWP ||
         wr->opcode == IB_WR_ATOMIC_FETCH_ADD) &&
        total != 8) {
        return IB_WC_LOC_LEN_ERR;
    }
    wr->length = ctx->length = total;
    return IB_WC_SUCCESS;
}

/* Complete a WQE without the transport (flush, local error, NOP). */
static void mlx5_sq_complete_local(Mlx5Core *c, Mlx5Qp *qp, uint16_t idx,
                                   uint8_t opcode, bool signaled, IbWcStatus st)
{
    Mlx5SendCtx ctx = { .wqe_index = idx,
                        .opcode = opcode,
                        .signaled = signaled };

    mlx5_send_cqe(c, qp, &ctx, st);
}

/*
 * Signature pipelining: a check failed on this requester (drain_sigerr). Once
 * nothing is in flight the send queue is drained: SQD, the SQ_DRAINED event, no
 * WQE runs until SQD_RTS_QP (software may first cancel what it posted; QUERY_QP
 * shows where the queue stopped).
 */
static void mlx5_sig_drain(Mlx5Core *c, Mlx5Qp *qp)
{
    if (ib_qp_outstanding(&qp->ib)) {
        qp->sq_wait = true;
        return;
    }
    qp->sig_drain = false;
    qp->state = MLX5_QP_STATE_SQD;
    MLX5_SET(qp->qpc, QPC_state, MLX5_QP_STATE_SQD);
    trace_mlx5_sig_drain(qp->qpn, qp->sq_ci);
    mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_SQ_DRAINED);
}

/* Run the send queue up to the producer counter in the doorbell record. */
static bool mlx5_sq_process(Mlx5Core *c, Mlx5Qp *qp, unsigned budget)
{
    uint8_t wqe[MLX5_SEND_WQE_BB * MLX5_SEND_WQE_MAX_WQEBBS];
    uint8_t dbr[4];
    uint16_t pi;
    unsigned nbb;

    /* (SQD: drained after a signature error; nothing runs until SQD_RTS_QP) */
    if (!qp->sq_cnt ||
        (qp->state != MLX5_QP_STATE_RTS && qp->state != MLX5_QP_STATE_ERR)) {
        return false;
    }
    if (mlx5_dma_read(c, qp->dbr_addr + 4, dbr, 4)) {
        mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_WQ_CATAS_ERROR);
        qp->to_error = qp->state != MLX5_QP_STATE_ERR;
        return false;
    }
    pi = mlx5_ld32(dbr) & 0xffff;
    if ((uint16_t)(pi - qp->sq_ci) > qp->sq_cnt) {
        /* the driver claims more WQEs than the ring holds */
        trace_mlx5_err_sq_counter(qp->qpn, pi, qp->sq_ci);
        if (qp->state != MLX5_QP_STATE_ERR) {
            mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_WQ_CATAS_ERROR);
            mlx5_qp_enter_error(c, qp);
        }
        qp->sq_ci = pi;
        return false;
    }
    if (qp->sig_drain && qp->state == MLX5_QP_STATE_RTS) {
        /* (waits for what is in flight, then SQD) */
        mlx5_sig_drain(c, qp);
        return false;
    }
    while (qp->sq_ci != pi && budget--) {
        uint16_t idx = qp->sq_ci;
        Mlx5SendCtx *ctx = &qp->sctx[idx & (qp->sq_cnt - 1)];
        IbWcStatus st;
        IbSendWr wr;

        if (mlx5_sq_fetch(c, qp, idx, wqe, &nbb) || mlx5_ld16(wqe + 1) != idx) {
            trace_mlx5_err_sq_wqe(qp->qpn, idx);
            mlx5_sq_complete_local(c, qp, idx, wqe[3], true,
                                   qp->state == MLX5_QP_STATE_ERR
                                       ? IB_WC_WR_FLUSH_ERR
                                       : IB_WC_LOC_QP_OP_ERR);
            qp->sq_ci = idx + 1;
            if (qp->state != MLX5_QP_STATE_ERR) {
                mlx5_qp_enter_error(c, qp);
            }
            continue;
        }
        mlx5_record_send_wqe(c, qp, wqe, nbb);
        if (qp->state == MLX5_QP_STATE_ERR) {
            /* one flush CQE per WQE, signaled or not */
            mlx5_sq_complete_local(c, qp, idx, wqe[3], true,
                                   IB_WC_WR_FLUSH_ERR);
            qp->sq_ci = idx + nbb;
            continue;
        }
        if (mlx5_inject_wqe_hit(c, qp->qpn, false, &st)) {
            /* fault injection: as a WQE found malformed */
            mlx5_sq_complete_local(c, qp, idx, wqe[3], true, st);
            qp->sq_ci = idx + nbb;
            mlx5_qp_enter_error(c, qp);
            continue;
        }
        if (wqe[3] == MLX5_OPCODE_NOP || wqe[3] == MLX5_OPCODE_UMR ||
            wqe[3] == MLX5_OPCODE_SET_PSV ||
            wqe[3] == MLX5_OPCODE_TAG_MATCHING) {
            /*
             * Local operations run in order, after what is in flight (a UMR may
             * change a key an earlier WR still reads); send_done requeues the
             * QP when that drains.
             */
            if (ib_qp_outstanding(&qp->ib)) {
                qp->sq_wait = true;
                return false;
            }
            st = wqe[3] == MLX5_OPCODE_UMR ? mlx5_umr_execute(c, qp, wqe, nbb)
                 : wqe[3] == MLX5_OPCODE_SET_PSV
                     ? mlx5_sig_set_psv(c, qp, wqe, nbb)
                 : wqe[3] == MLX5_OPCODE_TAG_MATCHING
                     ? mlx5_xrq_list_op(c, qp, wqe, nbb, idx)
                     : IB_WC_SUCCESS;
            mlx5_sq_complete_local(c, qp, idx, wqe[3],
                                   wqe[11] & MLX5_WQE_CTRL_CQ_UPDATE, st);
            qp->sq_ci = idx + nbb;
            if (st != IB_WC_SUCCESS) {
                mlx5_qp_enter_error(c, qp);
            }
            continue;
        }
        if ((wqe[11] >> MLX5_WQE_CTRL_FM_SHIFT) >= 2 &&
            MLX5_GET(qp->qpc, QPC_drain_sigerr) && ib_qp_outstanding(&qp->ib)) {
            /*
             * signature pipelining: a fenced WQE waits for the checks of those
             * before it
             */
            qp->sq_wait = true;
            return false;
        }
        ctx->wqe_index = idx;
        st = mlx5_sq_decode(c, qp, wqe, nbb, ctx, &wr);
        if (st != IB_WC_SUCCESS) {
            trace_mlx5_err_sq_wqe(qp->qpn, idx);
            if (ib_qp_outstanding(&qp->ib)) {
                /* report it once earlier WRs completed */
                return true;
            }
            mlx5_sq_complete_local(c, qp, idx, ctx->opcode, true, st);
            qp->sq_ci = idx + nbb;
            mlx5_qp_enter_error(c, qp);
            continue;
        }
        if (!ib_qp_post_send(&qp->ib, &wr)) {
            return true;
        }
        trace_mlx5_sq_wqe(qp->qpn, idx, ctx->opcode, ctx->length);
        qp->sq_ci = idx + nbb;
    }
    return qp->sq_ci != pi;
}

void mlx5_exec_sq_doorbell(Mlx5Core *c, uint64_t ctrl)
{
    uint32_t qpn = ((uint32_t)ctrl >> 8) & 0xffffff;
    Mlx5Qp *qp = mlx5_table_get(&c->qps, qpn);

    if (!qp) {
        trace_mlx5_ub_sq_doorbell(qpn);
        return;
    }
    mlx5_exec_queue(c, qp);
}

/* ---- the transport's view of this device (IbDevOps) ---------------------- */

IbWcStatus mlx5_xlate_status(int r, bool remote)
{
    if (!r) {
        return IB_WC_SUCCESS;
    }
    if (r == MLX5_XLATE_FAULT) {
        return IB_WC_PAGE_FAULT;        /* the caller reports it (mlx5_odp.c) */
    }
    if (remote) {
        return IB_WC_REM_ACCESS_ERR;
    }
    return r == MLX5_XLATE_BOUNDS ? IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR;
}

/* Walk a scatter/gather list from byte @off, moving @len bytes. */
IbWcStatus mlx5_sgl_copy(Mlx5Core *c, uint32_t pdn, const Mlx5Sge *sge,
                         unsigned n, size_t stride, unsigned first,
                         uint64_t off, void *buf, uint32_t len, bool to_mem)
{
    uint8_t *b = buf;
    unsigned i;

    for (i = 0; i < n && len; i++) {
        const Mlx5Sge *s = &sge[(first + i) % stride];
        uint32_t chunk;
        int r;

        if (off >= s->len) {
            off -= s->len;
            continue;
        }
        chunk = MIN((uint64_t)len, s->len - off);
        r = mlx5_mkey_copy(c, s->lkey, pdn,
                           to_mem ? MLX5_MKEY_LW : MLX5_MKEY_LR, s->addr + off,
                           b, chunk, to_mem);
        if (r) {
            return mlx5_xlate_status(r, false);
        }
        b += chunk;
        len -= chunk;
        off = 0;
    }
    return len ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
}

/*
 * A requester's access to its own buffers met a page not mapped (ODP): ask the
 * driver.
 */
static IbWcStatus mlx5_req_fault(Mlx5Core *c, Mlx5Qp *qp, const IbSendWr *wr,
                                 uint32_t len, IbWcStatus st, uint8_t type)
{
    if (st != IB_WC_PAGE_FAULT) {
        return st;
    }
    return mlx5_odp_wqe_fault(c, qp, NULL, type, wr->cookie & 0xffff, len);
}

static IbWcStatus mlx5_ib_gather(IbQp *ib, const IbSendWr *wr, uint64_t off,
                                 void *buf, uint32_t len)
{
    Mlx5Qp *qp = qp_of(ib);
    uint32_t slot = wr->cookie & (qp->sq_cnt - 1);
    const Mlx5SendCtx *ctx = &qp->sctx[slot];
    IbWcStatus st;

    if (mlx5_xrq_internal(wr)) {
        return mlx5_xrq_gather(qp, wr, off, buf, len);
    }
    if (ctx->inl) {
        uint8_t *b = buf;
        for (uint32_t i = 0; i < len; i++) {
            b[i] = mlx5_inl_ptr(qp, slot + (off + i) / 64)[(off + i) % 64];
        }
        return IB_WC_SUCCESS;
    }
    mlx5_sig_ctx(core_of(ib), qp, false);
    st = mlx5_sgl_copy(core_of(ib), qp->pdn, qp->ssge, ctx->nsge,
                       (size_t)qp->sq_cnt * MLX5_SEGS_PER_WQEBB,
                       slot * MLX5_SEGS_PER_WQEBB, off, buf, len, false);
    mlx5_sig_ctx(core_of(ib), NULL, false);
    return mlx5_req_fault(core_of(ib), qp, wr, len, st,
                          MLX5_PF_TYPE_REQ_SEND_OR_WRITE);
}

static IbWcStatus mlx5_ib_scatter(IbQp *ib, const IbSendWr *wr, uint64_t off,
                                  const void *buf, uint32_t len)
{
    Mlx5Qp *qp = qp_of(ib);
    uint32_t slot = wr->cookie & (qp->sq_cnt - 1);
    const Mlx5SendCtx *ctx = &qp->sctx[slot];
    IbWcStatus st;

    if (mlx5_xrq_internal(wr)) {
        return mlx5_xrq_scatter(core_of(ib), qp, wr, off, buf, len);
    }
    mlx5_sig_ctx(core_of(ib), qp, false);
    st = mlx5_sgl_copy(core_of(ib), qp->pdn, qp->ssge, ctx->nsge,
                       (size_t)qp->sq_cnt * MLX5_SEGS_PER_WQEBB,
                       slot * MLX5_SEGS_PER_WQEBB, off, (void *)buf, len, true);
    mlx5_sig_ctx(core_of(ib), NULL, false);
    return mlx5_req_fault(core_of(ib), qp, wr, len, st,
                          MLX5_PF_TYPE_REQ_READ_OR_ATOMIC);
}

static void mlx5_ib_send_done(IbQp *ib, const IbSendWr *wr, IbWcStatus st)
{
    Mlx5Qp *qp = qp_of(ib);
    Mlx5Core *c = core_of(ib);

    if (mlx5_xrq_internal(wr)) {
        mlx5_xrq_send_done(c, qp, wr, st);  /* the device's own (no CQE) */
        return;
    }
    mlx5_send_cqe(c, qp, &qp->sctx[wr->cookie & (qp->sq_cnt - 1)], st);
    if (st != IB_WC_SUCCESS && st != IB_WC_WR_FLUSH_ERR &&
        qp->state != MLX5_QP_STATE_ERR) {
        /* finish the transition outside the transport */
        qp->to_error = true;
        mlx5_exec_queue(c, qp);
    }
    if (qp->sq_wait && !ib_qp_outstanding(ib)) {
        qp->sq_wait = false;            /* the waiting NOP/UMR can run now */
        mlx5_exec_queue(c, qp);
    }
}

static void mlx5_ib_qp_event(IbQp *ib, IbQpEvent ev)
{
    Mlx5Qp *qp = qp_of(ib);
    Mlx5Core *c = core_of(ib);

    switch (ev) {
    case IB_EV_COMM_EST:
        mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_COMM_EST);
        return;
    case IB_EV_PATH_MIG:
        /*
         * the secondary address path is the primary one now (QUERY_QP shows it)
         */
        memcpy(qp->qpc + QPC_ADS_OFF, qp->qpc + QPC_ADS2_OFF, MLX5_ADS_SIZE);
        mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_PATH_MIG);
        return;
    case IB_EV_QP_FATAL:
        mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_WQ_CATAS_ERROR);
        break;
    case IB_EV_QP_REQ_ERR:
        mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
        break;
    case IB_EV_QP_ACCESS_ERR:
        mlx5_qp_event(c, qp, MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
        break;
    }
    qp->to_error = true;
    mlx5_exec_queue(c, qp);
}

static bool mlx5_ib_link_tx(IbPort *port, const struct iovec *iov, int iovcnt,
                            bool best_effort)
{
    Mlx5Core *c = port->dev;
    bool ok = mlx5_port_tx(c, 0, iov, iovcnt, best_effort);
    size_t len = 0;
    int i;

    if (!c->eth || !c->esw_max_mbps) {
        return ok;
    }
    for (i = 0; i < iovcnt; i++) {
        len += iov[i].iov_len;
    }
    /* (sent either way: a false only holds what follows) */
    return mlx5_pp_rdma_sent(c, len) && ok;
}

static IbQp *mlx5_ib_qp_lookup(IbPort *port, uint32_t qpn)
{
    Mlx5Core *c = port->dev;
    Mlx5Qp *qp;

    if (qpn == 0) {
        return c->smi_qp ? &c->smi_qp->ib : NULL;
    }
    if (qpn == 1) {
        return c->gsi_qp ? &c->gsi_qp->ib : NULL;
    }
    qp = mlx5_table_get(&c->qps, qpn);
    if (!qp || qp->st == MLX5_QP_ST_QP0 || qp->st == MLX5_QP_ST_QP1 ||
        qp->st == MLX5_QP_ST_REG_UMR || mlx5_is_wq(qp)) {
        return NULL;
    }
    return &qp->ib;
}

static int64_t mlx5_ib_now(IbPort *port)
{
    Mlx5Core *c = port->dev;

    return c->ops->now_ns(c->opaque);
}

static void mlx5_ib_set_deadline(IbPort *port, int64_t when)
{
    Mlx5Core *c = port->dev;

    c->ib_deadline = when;
    mlx5_exec_set_deadline(c);
}

static void mlx5_ib_kick(IbPort *port)
{
    Mlx5Core *c = port->dev;

    c->ops->kick(c->opaque);
}

static void mlx5_ib_addr_clash(IbPort *port, uint16_t lid, uint64_t guid)
{
    mlx5_port_clash(port->dev, lid, guid);
}

static void mlx5_ib_sm_change(IbPort *port)
{
    mlx5_port_sm_change(port->dev);
}

const IbDevOps mlx5_ib_ops = {
    .gather = mlx5_ib_gather,
    .scatter = mlx5_ib_scatter,
    .send_done = mlx5_ib_send_done,
    .recv_get = mlx5_ib_recv_get,
    .recv_scatter = mlx5_ib_recv_scatter,
    .recv_done = mlx5_ib_recv_done,
    .recv_put_back = mlx5_ib_recv_put_back,
    .rkey_check = mlx5_ib_rkey_check,
    .rkey_write = mlx5_ib_rkey_write,
    .rkey_read = mlx5_ib_rkey_read,
    .rkey_atomic = mlx5_ib_rkey_atomic,
    .invalidate = mlx5_ib_invalidate,
    .xrc_srq_ok = mlx5_ib_xrc_srq_ok,
    .qp_event = mlx5_ib_qp_event,
    .qp_stat = mlx5_ib_qp_stat,
    .link_tx = mlx5_ib_link_tx,
    .qp_lookup = mlx5_ib_qp_lookup,
    .now_ns = mlx5_ib_now,
    .set_deadline = mlx5_ib_set_deadline,
    .kick = mlx5_ib_kick,
    .addr_clash = mlx5_ib_addr_clash,
    .sm_change = mlx5_ib_sm_change,
    .rx_steer = mlx5_ib_rx_steer,
    .local_port = mlx5_ib_local_port,
};

/* ---- QP lifetime and state ----------------------------------------------- */

static IbQpType mlx5_ib_type(uint8_t st)
{
    switch (st) {
    case MLX5_QP_ST_UC: return IB_QPT_UC;
    case MLX5_QP_ST_UD: return IB_QPT_UD;
    case MLX5_QP_ST_QP0: return IB_QPT_SMI;
    case MLX5_QP_ST_QP1: return IB_QPT_GSI;
    case MLX5_QP_ST_DCT: return IB_QPT_DCT;
    default: return IB_QPT_RC;          /* RC, XRC, DCI (and the REG_UMR QP) */
    }
}

int mlx5_exec_qp_init(Mlx5Core *c, Mlx5Qp *qp)
{
    uint32_t wire_qpn = qp->qpn;

    if (qp->st == MLX5_QP_ST_QP0 || qp->st == MLX5_QP_ST_QP1) {
        Mlx5Qp **owner = qp->st == MLX5_QP_ST_QP0 ? &c->smi_qp : &c->gsi_qp;
        if (*owner) {
            return -1;
        }
        *owner = qp;
        wire_qpn = qp->st == MLX5_QP_ST_QP0 ? 0 : 1;
    }
    qp->sq_cnt = qp->no_sq ? 0 : 1u << qp->log_sq_size;
    qp->rq_cnt = qp->rq_type == MLX5_RQ_TYPE_REGULAR ? 1u << qp->log_rq_size
                                                     : 0;
    qp->rq_stride = 16u << qp->log_rq_stride;
    qp->sq_off = (uint64_t)qp->rq_cnt * qp->rq_stride;
    if (qp->sq_cnt) {
        qp->sctx = g_new0(Mlx5SendCtx, qp->sq_cnt);
        qp->ssge = g_new0(Mlx5Sge, (size_t)qp->sq_cnt * MLX5_SEGS_PER_WQEBB);
        qp->sinl = g_malloc0((size_t)qp->sq_cnt * MLX5_SEND_WQE_BB);
    }
    ib_qp_init(&qp->ib, &c->ib, wire_qpn, mlx5_ib_type(qp->st),
               MAX(qp->sq_cnt, MAX(qp->tm_swq, 1)));
    qp->ib.xrc = qp->st == MLX5_QP_ST_XRC;
    qp->ib.dci = qp->st == MLX5_QP_ST_DCI;
    if (qp->st == MLX5_QP_ST_DCT) {
        ib_dct_init(&qp->ib, IB_DCT_MAX_CTX);
        qp->dc_rcv = g_new0(Mlx5RecvCtx, qp->ib.dc_nctx);
    }
    return 0;
}

void mlx5_exec_qp_fini(Mlx5Core *c, Mlx5Qp *qp)
{
    mlx5_bf_forget(c, qp->qpn);
    if (c->smi_qp == qp) {
        c->smi_qp = NULL;
    }
    if (c->gsi_qp == qp) {
        c->gsi_qp = NULL;
    }
    ib_mcast_detach_qp(&c->ib, qp->qpn);
    ib_qp_cleanup(&qp->ib);
    g_free(qp->dc_rcv);
    qp->dc_rcv = NULL;
    g_free(qp->sctx);
    g_free(qp->ssge);
    g_free(qp->sinl);
    mlx5_xrq_qp_fini(qp);
    qp->sctx = NULL;
    qp->ssge = NULL;
    qp->sinl = NULL;
}

static void mlx5_ads_to_av(const uint8_t *ads, IbAv *av)
{
    av->dlid = MLX5_GET(ads, ADS_rlid);
    av->sl = MLX5_GET(ads, ADS_sl);
    av->src_path_bits = MLX5_GET(ads, ADS_mlid);
    av->grh = MLX5_GET(ads, ADS_grh);
    av->sgid_index = MLX5_GET(ads, ADS_src_addr_index);
    av->hop_limit = MLX5_GET(ads, ADS_hop_limit);
    av->tclass = MLX5_GET(ads, ADS_tclass);
    av->flow_label = MLX5_GET(ads, ADS_flow_label);
    memcpy(av->dgid, ads + ADS_rgid_OFF, 16);
    av->udp_sport = MLX5_GET(ads, ADS_udp_sport);
    memcpy(av->dmac, ads + ADS_rmac_OFF, 6);
    av->fl = MLX5_GET(ads, ADS_fl);
}

/* Copy the transport-relevant context fields into the transport's QP. */
static void mlx5_exec_sync_attrs(Mlx5Core *c, Mlx5Qp *qp)
{
    const uint8_t *qpc = qp->qpc, *ads = qpc + QPC_ADS_OFF;
    IbQp *ib = &qp->ib;

    ib->mtu = mlx5_qp_is_ud(qp) ? IB_MAX_PAYLOAD
                                : ib_mtu_bytes(MLX5_GET(qpc, QPC_mtu));
    /* a DCI's path is its current target's (per WQE) */
    if (!ib->dci) {
        ib->dest_qpn = MLX5_GET(qpc, QPC_remote_qpn);
        mlx5_ads_to_av(ads, &ib->av);
    }
    mlx5_ads_to_av(qpc + QPC_ADS2_OFF, &ib->alt_av);
    ib->alt_timeout = MLX5_GET(qpc + QPC_ADS2_OFF, ADS_ack_timeout);
    ib->qkey = qp->st == MLX5_QP_ST_QP1 ? IB_GSI_QKEY
                                        : MLX5_GET(qpc, QPC_q_key);
    ib->pkey = c->port.pkeys[0];
    ib->retry_cnt = MLX5_GET(qpc, QPC_retry_count);
    ib->rnr_retry = MLX5_GET(qpc, QPC_rnr_retry);
    ib->min_rnr_timer = MLX5_GET(qpc, QPC_min_rnr_nak);
    ib->timeout = MLX5_GET(ads, ADS_ack_timeout);
    ib->max_rd_atomic = 1u << MLX5_GET(qpc, QPC_log_sra_max);
    ib->max_dest_rd_atomic = 1u << MLX5_GET(qpc, QPC_log_rra_max);
    ib->rre = MLX5_GET(qpc, QPC_rre);
    ib->rwe = MLX5_GET(qpc, QPC_rwe);
    ib->rae = MLX5_GET(qpc, QPC_rae);
    ib->sq_psn = MLX5_GET(qpc, QPC_next_send_psn);
    ib->rq_psn = MLX5_GET(qpc, QPC_next_rcv_psn);
}

void mlx5_exec_modify(Mlx5Core *c, Mlx5Qp *qp, uint8_t old_state)
{
    static const IbQpState map[] = {
        [MLX5_QP_STATE_RST] = IB_QPS_RESET, [MLX5_QP_STATE_INIT] = IB_QPS_INIT,
        [MLX5_QP_STATE_RTR] = IB_QPS_RTR, [MLX5_QP_STATE_RTS] = IB_QPS_RTS,
        [MLX5_QP_STATE_SQER] = IB_QPS_SQE, [MLX5_QP_STATE_SQD] = IB_QPS_SQD,
        [MLX5_QP_STATE_ERR] = IB_QPS_ERR,
    };

    switch (qp->state) {
    case MLX5_QP_STATE_RST:
        ib_qp_set_state(&qp->ib, IB_QPS_RESET);
        qp->sq_ci = qp->rq_ci = 0;
        qp->sq_wait = qp->sig_drain = false;
        qp->to_error = qp->last_wqe_sent = false;
        qp->pf_pending = 0;
        mlx5_bf_forget(c, qp->qpn);
        break;
    case MLX5_QP_STATE_ERR:
        if (old_state != MLX5_QP_STATE_ERR) {
            qp->state = old_state;
            mlx5_qp_enter_error(c, qp);
        }
        break;
    default:
        mlx5_exec_sync_attrs(c, qp);
        ib_qp_set_state(&qp->ib, map[qp->state]);
        if (qp->state == MLX5_QP_STATE_RTS) {
            mlx5_exec_queue(c, qp);     /* WQEs posted before RTS run now */
        }
        break;
    }
}

/* ---- scheduling ---------------------------------------------------------- */

static bool mlx5_qp_service(Mlx5Core *c, Mlx5Qp *qp, unsigned budget)
{
    bool more;

    if (mlx5_is_wq(qp)) {
        return qp->st == MLX5_QP_ST_ETH_SQ &&
               mlx5_eth_sq_process(c, qp, budget);
    }
    if (qp->to_error) {
        mlx5_qp_enter_error(c, qp);
    }
    more = mlx5_sq_process(c, qp, budget);
    if (qp->to_error) {
        mlx5_qp_enter_error(c, qp);
        more = true;
    }
    if (qp->state == MLX5_QP_STATE_ERR) {
        mlx5_rq_flush(c, qp);
    }
    return more;
}

bool mlx5_exec_run(Mlx5Core *c, unsigned budget)
{
    uint32_t n = c->nwork, i;
    bool more = false;

    /* the QPs queued now; those queued while we run wait for the next run */
    for (i = 0; i < n; i++) {
        Mlx5Qp *qp = mlx5_table_get(&c->qps, c->work[c->work_head]);

        c->work_head = (c->work_head + 1) % c->qps.size;
        c->nwork--;
        if (!qp) {
            continue;                   /* destroyed meanwhile */
        }
        qp->queued = false;
        if (mlx5_qp_service(c, qp, budget)) {
            mlx5_exec_queue(c, qp);
            more = true;
        }
    }
    more |= ib_port_run(&c->ib, budget);
    /* transport activity may have produced new work (errors, kicks) */
    return more || c->nwork;
}

void mlx5_exec_expire(Mlx5Core *c, int64_t now)
{
    mlx5_port_expire(c, now);
    if (c->lro_deadline <= now) {
        mlx5_lro_expire(c, now);
    }
    if (c->cmd_late_deadline <= now) {
        mlx5_inject_expire(c, now);
    }
    if (c->pp_deadline <= now) {
        mlx5_pp_expire(c, now);
    }
    if (c->ib_deadline <= now) {
        c->ib_deadline = INT64_MAX;
        ib_port_expire(&c->ib, now);
    }
    if (c->poll_deadline <= now) {
        Mlx5Qp *qp;

        c->poll_deadline = INT64_MAX;
        MLX5_TABLE_FOREACH(&c->qps, qp) {
            if (qp->state == MLX5_QP_STATE_ERR && qp->rq_cnt) {
                mlx5_exec_queue(c, qp);
                c->poll_deadline = now + MLX5_ERR_POLL_NS;
            }
        }
    }
    mlx5_exec_set_deadline(c);
}
