/*
 * mlx5 HCA core: shared receive queues, ISSI 0 flavour (CREATE/DESTROY/QUERY_SRQ, ARM_RQ).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

#define MLX5_MAX_LOG_RQ_STRIDE  5       /* 16 << 5 = 512 bytes = max_wqe_sz_rq */

void mlx5_srq_free(Mlx5Core *c, void *obj)
{
    Mlx5Srq *srq = obj;
    Mlx5Cq *cq = mlx5_table_get(&c->cqs, srq->cqn);
    Mlx5Pd *pd = mlx5_table_get(&c->pds, srq->pdn);
    Mlx5Xrcd *xrcd = mlx5_table_get(&c->xrcds, srq->xrcd);

    if (cq) {
        mlx5_ref_put(&cq->refcount);
    }
    if (pd) {
        mlx5_ref_put(&pd->refcount);
    }
    if (xrcd) {
        mlx5_ref_put(&xrcd->refcount);
    }
    mlx5_buf_free(&srq->buf);
    g_free(srq);
}

void mlx5_cmd_create_srq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *srqc = cmd->in + CREATE_SRQ_SRQC_OFF;
    uint32_t log_srq_size, log_rq_stride, cqn, xrcd, pdn, srqn, synd;
    Mlx5Cq *cq = NULL;
    Mlx5Xrcd *x = NULL;
    Mlx5Pd *pd;
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, MLX5_PAS_OFF + 8) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    log_srq_size = MLX5_GET(srqc, SRQC_log_srq_size);
    log_rq_stride = MLX5_GET(srqc, SRQC_log_rq_stride);
    cqn = MLX5_GET(srqc, SRQC_cqn);
    xrcd = MLX5_GET(srqc, SRQC_xrcd);
    pdn = MLX5_GET(srqc, SRQC_pd);

    if (log_srq_size > c->cfg.log_max_srq_sz || log_rq_stride > MLX5_MAX_LOG_RQ_STRIDE) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    pd = mlx5_cmd_obj(cmd, &c->pds, pdn);
    if (!pd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PD);
        return;
    }
    if (cqn && !(cq = mlx5_cmd_ref(cmd, &c->cqs, cqn))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_CQ);
        return;
    }
    if (xrcd && !(x = mlx5_cmd_ref(cmd, &c->xrcds, xrcd))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_XRCD);
        return;
    }
    srq = g_new0(Mlx5Srq, 1);
    synd = mlx5_buf_init(&srq->buf, cmd->in + MLX5_PAS_OFF, (cmd->inlen - MLX5_PAS_OFF) / 8,
                         MLX5_GET(srqc, SRQC_log_page_size) + 12,
                         MLX5_GET(srqc, SRQC_page_offset),
                         (16ull << log_rq_stride) << log_srq_size);
    if (synd) {
        g_free(srq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    if (mlx5_table_alloc(&c->srqs, srq, &srqn)) {
        mlx5_buf_free(&srq->buf);
        g_free(srq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->srqs, srqn);
    srq->srqn = srqn;
    srq->uid = cmd->uid;
    srq->log_srq_size = log_srq_size;
    srq->log_rq_stride = log_rq_stride;
    srq->cqn = cqn;
    srq->xrcd = xrcd;
    srq->pdn = pdn;
    srq->lwm = MLX5_GET(srqc, SRQC_lwm);
    srq->dbr_addr = MLX5_GET64(srqc, SRQC_dbr_addr_OFF);
    pd->refcount++;
    if (cq) {
        cq->refcount++;
    }
    if (x) {
        x->refcount++;
    }
    mlx5_cmd_handle_out(cmd, srqn);
    trace_mlx5_srq_create(srqn, log_srq_size, log_rq_stride, cqn);
}

void mlx5_cmd_destroy_srq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t srqn;
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    srqn = mlx5_cmd_handle_in(cmd);
    srq = mlx5_cmd_obj(cmd, &c->srqs, srqn);
    if (!srq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (srq->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    mlx5_table_remove(&c->srqs, srqn);
    mlx5_srq_free(c, srq);
    trace_mlx5_obj_destroy("srq", srqn);
}

void mlx5_cmd_query_srq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *srqc = cmd->out + CREATE_SRQ_SRQC_OFF;
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10 + MLX5_SRQC_SIZE)) {
        return;
    }
    srq = mlx5_cmd_obj(cmd, &c->srqs, mlx5_cmd_handle_in(cmd));
    if (!srq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    MLX5_SET(srqc, SRQC_state, srq->state);
    MLX5_SET(srqc, SRQC_log_srq_size, srq->log_srq_size);
    MLX5_SET(srqc, SRQC_log_rq_stride, srq->log_rq_stride);
    MLX5_SET(srqc, SRQC_xrcd, srq->xrcd);
    MLX5_SET(srqc, SRQC_cqn, srq->cqn);
    MLX5_SET(srqc, SRQC_log_page_size, srq->buf.log_page_size - 12);
    MLX5_SET(srqc, SRQC_pd, srq->pdn);
    MLX5_SET(srqc, SRQC_lwm, srq->lwm);
    MLX5_SET64(srqc, SRQC_dbr_addr_OFF, srq->dbr_addr);
}

void mlx5_cmd_arm_rq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    if (cmd->op_mod != 1) {
        /* only SRQs (op_mod 1) exist on this device */
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
    srq = mlx5_cmd_obj(cmd, &c->srqs, MLX5_GET(cmd->in, ARM_RQ_IN_srq_number));
    if (!srq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    srq->lwm = MLX5_GET(cmd->in, ARM_RQ_IN_lwm);
    srq->armed = srq->lwm != 0;
    trace_mlx5_srq_arm(srq->srqn, srq->lwm);
}
