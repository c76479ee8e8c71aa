/*
 * mlx5 HCA core, Ethernet port: SQ and RQ objects
 * (CREATE/MODIFY/DESTROY/QUERY_SQ and _RQ). They are cyclic work queues with a
 * doorbell record, kept in the QP table (private types MLX5_QP_ST_ETH_SQ/RQ)
 * because they share the QPs' number space: an SQ's doorbell names it as a QP's
 * names the QP. Their state (RST, RDY, ERR) is wq_state; .state stays RST so
 * the IB machinery leaves them alone.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

void mlx5_wq_free(Mlx5Core *c, Mlx5Qp *qp)
{
    Mlx5Cq *cq = mlx5_table_get(
        &c->cqs, qp->st == MLX5_QP_ST_ETH_SQ ? qp->cqn_snd : qp->cqn_rcv);
    Mlx5Pd *pd = mlx5_table_get(&c->pds, qp->pdn);
    Mlx5Tis *tis = c->eth ? mlx5_table_get(&c->eth->tises, qp->tisn) : NULL;

    if (cq) {
        mlx5_ref_put(&cq->refcount);
    }
    if (pd) {
        mlx5_ref_put(&pd->refcount);
    }
    if (tis && qp->st == MLX5_QP_ST_ETH_SQ) {
        mlx5_ref_put(&tis->refcount);
    }
    if (c->eth) {
        mlx5_lro_free(c, qp);
    }
    mlx5_bf_forget(c, qp->qpn);
    mlx5_buf_free(&qp->buf);
    g_free(qp);
}

/* The SQ or RQ a command names (in+8), if the issuer may use it. */
static Mlx5Qp *mlx5_wq_obj(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t st)
{
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return NULL;
    }
    qp = mlx5_cmd_obj(cmd, &c->qps, MLX5_GET(cmd->in, OBJ_IN_handle));
    if (!qp || qp->st != st) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return NULL;
    }
    return qp;
}

/*
 * Decode the wq context of a create into @qp: the ring (PAS or UMEM) and the
 * doorbell record. Returns a syndrome or 0.
 */
static uint32_t mlx5_wq_load(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Qp *qp, bool sq)
{
    const uint8_t *wq = cmd->in + OBJ_CTX_OFF + WQC_OFF;
    uint8_t log_sz = MLX5_GET(wq, WQ_log_wq_sz);
    uint8_t log_stride = MLX5_GET(wq, WQ_log_wq_stride);
    uint64_t bytes;
    uint32_t synd;

    uint8_t type = MLX5_GET(wq, WQ_wq_type);

    /* an RQ may be striding (mlx5_mpwqe.c) */
    if (type != MLX5_WQ_TYPE_CYCLIC &&
        (sq || (type != MLX5_WQ_TYPE_LL_STRIDING &&
                type != MLX5_WQ_TYPE_CYCLIC_STRIDING))) {
        return MLX5_SYND_UNSUPPORTED;
    }
    qp->wq_type = type;
    if (type != MLX5_WQ_TYPE_CYCLIC) {
        synd = mlx5_mpwqe_load(c, qp, wq);
        if (synd) {
            return synd;
        }
    }
    if (log_sz > MLX5_GET(c->cap_general_cur, CAP_log_max_wq_sz) ||
        (sq ? log_stride != 6 : log_stride < 4 || log_stride > 9)) {
        return sq || log_stride >= 4 ? MLX5_SYND_BAD_SIZE
                                     : MLX5_SYND_BAD_STRIDE;
    }
    bytes = (uint64_t)1 << (log_sz + log_stride);
    qp->dbr_addr = mlx5_ld64(wq + WQ_dbr_addr_OFF);
    if (MLX5_GET(wq, WQ_wq_umem_valid)) {
        synd = mlx5_umem_buf(c, cmd, mlx5_ld32(wq + WQ_wq_umem_id_OFF),
                             mlx5_ld64(wq + WQ_wq_umem_offset_OFF), bytes,
                             &qp->buf);
    } else {
        synd = mlx5_buf_init(&qp->buf, cmd->in + WQ_CREATE_PAS_OFF,
                             (cmd->inlen - WQ_CREATE_PAS_OFF) / 8,
                             MLX5_GET(wq, WQ_log_wq_pg_sz) + 12,
                             /* (quantized) */
                             MLX5_GET(wq, WQ_page_offset), bytes);
    }
    if (!synd && MLX5_GET(wq, WQ_dbr_umem_valid)) {
        synd = mlx5_umem_addr(c, cmd, mlx5_ld32(wq + WQ_dbr_umem_id_OFF),
                              qp->dbr_addr, &qp->dbr_addr);
    }
    if (synd) {
        return synd;
    }
    qp->pdn = MLX5_GET(wq, WQ_pd);
    if (sq) {
        qp->sq_cnt = 1u << log_sz;
        qp->log_sq_size = log_sz;
    } else {
        qp->rq_cnt = 1u << log_sz;
        qp->log_rq_size = log_sz;
        qp->rq_stride = 1u << log_stride;
        qp->log_rq_stride = log_stride;
    }
    return 0;
}

/* Common end of CREATE_SQ/RQ: number it, take references, answer. */
static void mlx5_wq_insert(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Qp *qp,
                           uint32_t cqn)
{
    Mlx5Pd *pd = mlx5_table_get(&c->pds, qp->pdn);

    if (c->qps.count >= (1u << MLX5_GET(c->cap_general_cur, CAP_log_max_qp)) ||
        mlx5_table_alloc(&c->qps, qp, &qp->qpn)) {
        mlx5_buf_free(&qp->buf);
        g_free(qp);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->qps, qp->qpn);
    qp->uid = cmd->uid;
    qp->state = MLX5_QP_STATE_RST;
    qp->wq_state = MLX5_WQ_STATE_RST;
    ((Mlx5Cq *)mlx5_table_get(&c->cqs, cqn))->refcount++;
    if (pd) {
        pd->refcount++;
    }
    MLX5_SET(cmd->out, OBJ_OUT_handle, qp->qpn);
}

void mlx5_cmd_create_sq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    uint32_t synd = 0, cqn;
    Mlx5Tis *tis;
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, WQ_CREATE_PAS_OFF) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    cqn = MLX5_GET(ctx, SQC_cqn);
    tis = mlx5_cmd_ref(cmd, &c->eth->tises, MLX5_GET(ctx, SQC_tis_num_0));
    if (!mlx5_cmd_ref(cmd, &c->cqs, cqn)) {
        synd = MLX5_SYND_BAD_CQ;
    } else if (MLX5_GET(ctx, SQC_tis_lst_sz) > 1 ||
               (MLX5_GET(ctx, SQC_tis_lst_sz) && !tis)) {
        /* (mlx5e's internal SQs, which carry no frames, have no TIS) */
        synd = MLX5_SYND_BAD_HANDLE;
    } else if (!mlx5_cmd_obj(cmd, &c->pds, MLX5_GET(ctx + WQC_OFF, WQ_pd))) {
        synd = MLX5_SYND_BAD_PD;
    } else if (!mlx5_cmd_ref(cmd, &c->uars,
                             MLX5_GET(ctx + WQC_OFF, WQ_uar_page))) {
        synd = MLX5_SYND_BAD_UAR;
    } else if (MLX5_GET(ctx, SQC_state) != MLX5_WQ_STATE_RST) {
        synd = MLX5_SYND_BAD_STATE;
    } else if (MLX5_GET(ctx, SQC_reg_umr) && cmd->uid) {
        /* UMR WQEs on an SQ are the kernel's (mlx5e's ICOSQ) */
        synd = MLX5_SYND_BAD_UID;
    } else {
        synd = mlx5_pp_check_index(
            MLX5_GET(ctx, SQC_packet_pacing_rate_limit_index));
    }
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    qp = g_new0(Mlx5Qp, 1);
    qp->st = MLX5_QP_ST_ETH_SQ;
    qp->uar = MLX5_GET(ctx + WQC_OFF, WQ_uar_page);
    synd = mlx5_wq_load(c, cmd, qp, true);
    if (synd) {
        mlx5_buf_free(&qp->buf);
        g_free(qp);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    qp->cqn_snd = cqn;
    qp->tisn = MLX5_GET(ctx, SQC_tis_lst_sz) ? tis->tisn : 0;
    qp->user_index = MLX5_GET(ctx, SQC_user_index);
    qp->flush_in_error = MLX5_GET(ctx, SQC_flush_in_error_en);
    qp->reg_umr = MLX5_GET(ctx, SQC_reg_umr);
    qp->pp_index = MLX5_GET(ctx, SQC_packet_pacing_rate_limit_index);
    mlx5_wq_insert(c, cmd, qp, cqn);
    if (cmd->status == MLX5_CMD_STAT_OK) {
        if (qp->tisn) {
            tis->refcount++;
        }
        trace_mlx5_eth_sq_create(qp->qpn, cqn, qp->log_sq_size, qp->tisn);
    }
}

void mlx5_cmd_create_rq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    uint32_t synd = 0, cqn;
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, WQ_CREATE_PAS_OFF) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    cqn = MLX5_GET(ctx, RQC_cqn);
    if (!mlx5_cmd_ref(cmd, &c->cqs, cqn)) {
        synd = MLX5_SYND_BAD_CQ;
    } else if (MLX5_GET(ctx, RQC_mem_rq_type) != MLX5_RQC_MEM_RQ_TYPE_INLINE) {
        /* RQs over an RMP are not offered */
        synd = MLX5_SYND_UNSUPPORTED;
    } else if (MLX5_GET(ctx, RQC_state) != MLX5_WQ_STATE_RST) {
        synd = MLX5_SYND_BAD_STATE;
    } else if (MLX5_GET(ctx + WQC_OFF, WQ_pd) &&
               !mlx5_cmd_obj(cmd, &c->pds, MLX5_GET(ctx + WQC_OFF, WQ_pd))) {
        /* (mlx5e's drop RQ, which never gets a WQE, has PD 0) */
        synd = MLX5_SYND_BAD_PD;
    }
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    qp = g_new0(Mlx5Qp, 1);
    qp->st = MLX5_QP_ST_ETH_RQ;
    synd = mlx5_wq_load(c, cmd, qp, false);
    if (synd) {
        mlx5_buf_free(&qp->buf);
        g_free(qp);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    qp->cqn_rcv = cqn;
    qp->user_index = MLX5_GET(ctx, RQC_user_index);
    qp->vsd = MLX5_GET(ctx, RQC_vsd);
    qp->counter_set = MLX5_GET(ctx, RQC_counter_set_id);
    qp->flush_in_error = MLX5_GET(ctx, RQC_flush_in_error_en);
    mlx5_wq_insert(c, cmd, qp, cqn);
    if (cmd->status == MLX5_CMD_STAT_OK) {
        trace_mlx5_eth_rq_create(qp->qpn, cqn, qp->log_rq_size, qp->rq_stride,
                                 qp->vsd);
    }
}

/* Move @qp from the state the command says it is in to the context's. */
static bool mlx5_wq_transition(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Qp *qp,
                               uint8_t next)
{
    uint8_t cur = MLX5_GET(cmd->in, OBJ_IN_state);

    if (cur != qp->wq_state) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                      MLX5_SYND_BAD_STATE);
        return false;
    }
    if ((next != MLX5_WQ_STATE_RST && next != MLX5_WQ_STATE_RDY &&
         next != MLX5_WQ_STATE_ERR) ||
        (cur == MLX5_WQ_STATE_ERR && next == MLX5_WQ_STATE_RDY) ||
        (cur == MLX5_WQ_STATE_RST && next == MLX5_WQ_STATE_ERR)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_STATE);
        return false;
    }
    if (next != MLX5_WQ_STATE_RDY && c->eth) {
        mlx5_lro_drop(c, qp);
    }
    if (next == MLX5_WQ_STATE_RST) {
        qp->sq_ci = qp->rq_ci = 0;
        mlx5_mpwqe_reset(qp);
        mlx5_bf_forget(c, qp->qpn);
    }
    qp->wq_state = next;
    trace_mlx5_eth_wq_state(qp->qpn, cur, next);
    return true;
}

void mlx5_cmd_modify_sq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp = mlx5_wq_obj(c, cmd, MLX5_QP_ST_ETH_SQ);
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    uint32_t pp = 0, synd;
    bool set_pp;

    if (!qp || !mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + 0x10)) {
        return;
    }
    /* a new rate limit index (mlx5e's tx_maxrate, a raw packet QP's) */
    set_pp = mlx5_ld64(cmd->in + OBJ_IN_modify_bitmask_OFF) &
             MLX5_MODIFY_SQ_BITMASK_PP_RATE_LIMIT_INDEX;
    if (set_pp) {
        if (!mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + 0x20)) {
            return;
        }
        pp = MLX5_GET(ctx, SQC_packet_pacing_rate_limit_index);
        synd = mlx5_pp_check_index(pp);
        if (synd) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
            return;
        }
    }
    /*
     * An SQ going to error flushes what is posted. One going to RDY waits for a
     * doorbell: its record may still hold the count of before a reset.
     */
    if (!mlx5_wq_transition(c, cmd, qp, MLX5_GET(ctx, SQC_state))) {
        return;
    }
    if (set_pp && pp != qp->pp_index) {
        trace_mlx5_eth_pp_sq(qp->qpn, qp->pp_index, pp);
        qp->pp_index = pp;
        qp->pp_next = 0;        /* the new rate starts with a full bucket */
        if (qp->pp_waiting) {
            qp->pp_waiting = false;
            mlx5_exec_queue(c, qp);
        }
    }
    if (qp->wq_state == MLX5_WQ_STATE_ERR) {
        mlx5_exec_queue(c, qp);
    }
}

void mlx5_cmd_modify_rq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp = mlx5_wq_obj(c, cmd, MLX5_QP_ST_ETH_RQ);
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    uint64_t mask;

    if (!qp || !mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + 0x10)) {
        return;
    }
    if (!mlx5_wq_transition(c, cmd, qp, MLX5_GET(ctx, RQC_state))) {
        return;
    }
    mask = mlx5_ld64(cmd->in + OBJ_IN_modify_bitmask_OFF);
    if (mask & MLX5_RQ_BITMASK_VSD) {
        qp->vsd = MLX5_GET(ctx, RQC_vsd);
    }
    if (mask & MLX5_RQ_BITMASK_COUNTER_SET_ID) {
        qp->counter_set = MLX5_GET(ctx, RQC_counter_set_id);
    }
}

static void mlx5_wq_destroy(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t st)
{
    Mlx5Qp *qp = mlx5_wq_obj(c, cmd, st);

    if (qp) {
        mlx5_table_remove(&c->qps, qp->qpn);
        trace_mlx5_obj_destroy(st == MLX5_QP_ST_ETH_SQ ? "sq" : "rq", qp->qpn);
        mlx5_wq_free(c, qp);
    }
}

void mlx5_cmd_destroy_sq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_wq_destroy(c, cmd, MLX5_QP_ST_ETH_SQ);
}

void mlx5_cmd_destroy_rq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_wq_destroy(c, cmd, MLX5_QP_ST_ETH_RQ);
}

void mlx5_cmd_query_sq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp = mlx5_wq_obj(c, cmd, MLX5_QP_ST_ETH_SQ);
    uint8_t *ctx = cmd->out + OBJ_QUERY_OUT_CTX_OFF, *wq = ctx + WQC_OFF;

    if (qp && mlx5_cmd_out_ok(cmd, WQ_QUERY_OUT_SIZE)) {
        MLX5_SET(ctx, SQC_state, qp->wq_state);
        MLX5_SET(ctx, SQC_cqn, qp->cqn_snd);
        MLX5_SET(ctx, SQC_user_index, qp->user_index);
        MLX5_SET(ctx, SQC_tis_lst_sz, qp->tisn != 0);
        MLX5_SET(ctx, SQC_tis_num_0, qp->tisn);
        MLX5_SET(ctx, SQC_flush_in_error_en, qp->flush_in_error);
        MLX5_SET(ctx, SQC_packet_pacing_rate_limit_index, qp->pp_index);
        MLX5_SET(wq, WQ_wq_type, MLX5_WQ_TYPE_CYCLIC);
        MLX5_SET(wq, WQ_pd, qp->pdn);
        MLX5_SET(wq, WQ_log_wq_stride, 6);
        MLX5_SET(wq, WQ_log_wq_sz, qp->log_sq_size);
        mlx5_st64(wq + WQ_dbr_addr_OFF, qp->dbr_addr);
        mlx5_st32(wq + WQ_hw_counter_OFF, qp->sq_ci);
    }
}

void mlx5_cmd_query_rq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp = mlx5_wq_obj(c, cmd, MLX5_QP_ST_ETH_RQ);
    uint8_t *ctx = cmd->out + OBJ_QUERY_OUT_CTX_OFF, *wq = ctx + WQC_OFF;

    if (qp && mlx5_cmd_out_ok(cmd, WQ_QUERY_OUT_SIZE)) {
        MLX5_SET(ctx, RQC_state, qp->wq_state);
        MLX5_SET(ctx, RQC_cqn, qp->cqn_rcv);
        MLX5_SET(ctx, RQC_user_index, qp->user_index);
        MLX5_SET(ctx, RQC_vsd, qp->vsd);
        MLX5_SET(ctx, RQC_counter_set_id, qp->counter_set);
        MLX5_SET(ctx, RQC_flush_in_error_en, qp->flush_in_error);
        MLX5_SET(wq, WQ_wq_type, qp->wq_type);
        if (qp->wq_type != MLX5_WQ_TYPE_CYCLIC) {
            mlx5_mpwqe_query(qp, wq);
        }
        MLX5_SET(wq, WQ_pd, qp->pdn);
        MLX5_SET(wq, WQ_log_wq_stride, qp->log_rq_stride);
        MLX5_SET(wq, WQ_log_wq_sz, qp->log_rq_size);
        mlx5_st64(wq + WQ_dbr_addr_OFF, qp->dbr_addr);
        mlx5_st32(wq + WQ_hw_counter_OFF, qp->rq_ci);
    }
}
