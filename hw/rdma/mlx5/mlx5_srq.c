/*
 * mlx5 HCA core: shared receive queues: CREATE/DESTROY/QUERY_SRQ and ARM_RQ
 * (ISSI 0), the receive memory pools mlx5_ib uses for them at ISSI 1
 * (CREATE/MODIFY/QUERY/DESTROY_RMP), and XRC SRQs
 * (CREATE/DESTROY/QUERY/ARM_XRC_SRQ). All are one kind of object in one table.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

/* 16 << 5 = 512 bytes = max_wqe_sz_rq */
#define MLX5_MAX_LOG_RQ_STRIDE  5

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
    mlx5_xrq_free(srq);
    g_free(srq);
}

/*
 * What a create command asks for, from an srqc/xrc_srqc (ISSI 0, XRC) or an
 * rmpc (ISSI 1).
 */
typedef struct Mlx5SrqParams {
    uint32_t log_srq_size, log_rq_stride;   /* stride relative to 16 bytes */
    uint32_t cqn, xrcd, pdn;
    uint32_t log_page_size, page_offset;    /* page size relative to 4 KiB */
    uint32_t lwm;
    uint64_t dbr_addr;
    bool xrc;
    uint32_t user_index;
    uint32_t pas_off;                       /* of the page list, in the input */
    /* DevX: the WQ is in a UMEM (@umem_id at @umem_off), not a page list */
    bool umem;
    uint32_t umem_id;
    uint64_t umem_off;
} Mlx5SrqParams;

static Mlx5Srq *mlx5_srq_create(Mlx5Core *c, Mlx5CmdCtx *cmd,
                                const Mlx5SrqParams *p)
{
    uint32_t srqn, synd;
    Mlx5Cq *cq = NULL;
    Mlx5Xrcd *x = NULL;
    Mlx5Pd *pd;
    Mlx5Srq *srq;

    if (p->log_srq_size > c->cfg.log_max_srq_sz ||
        p->log_rq_stride > MLX5_MAX_LOG_RQ_STRIDE) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return NULL;
    }
    pd = mlx5_cmd_obj(cmd, &c->pds, p->pdn);
    if (!pd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PD);
        return NULL;
    }
    cq = p->cqn ? mlx5_cmd_ref(cmd, &c->cqs, p->cqn) : NULL;
    if (p->cqn && !cq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_CQ);
        return NULL;
    }
    x = p->xrcd || p->xrc ? mlx5_cmd_ref(cmd, &c->xrcds, p->xrcd) : NULL;
    if ((p->xrcd || p->xrc) && !x) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_XRCD);
        return NULL;
    }
    srq = g_new0(Mlx5Srq, 1);
    if (p->umem) {
        synd = mlx5_umem_buf(c, cmd, p->umem_id, p->umem_off,
                             (16ull << p->log_rq_stride) << p->log_srq_size,
                             &srq->buf);
    } else {
        synd = mlx5_buf_init(&srq->buf, cmd->in + p->pas_off,
                             (cmd->inlen - p->pas_off) / 8,
                             p->log_page_size + 12, p->page_offset,
                             (16ull << p->log_rq_stride) << p->log_srq_size);
    }
    if (synd) {
        g_free(srq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return NULL;
    }
    if (mlx5_table_alloc(&c->srqs, srq, &srqn)) {
        mlx5_buf_free(&srq->buf);
        g_free(srq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return NULL;
    }
    mlx5_cmd_own(cmd, &c->srqs, srqn);
    srq->srqn = srqn;
    srq->uid = cmd->uid;
    srq->xrc = p->xrc;
    srq->user_index = p->user_index;
    srq->log_srq_size = p->log_srq_size;
    srq->log_rq_stride = p->log_rq_stride;
    srq->cqn = p->cqn;
    srq->xrcd = p->xrcd;
    srq->pdn = p->pdn;
    srq->lwm = p->lwm;
    srq->dbr_addr = p->dbr_addr;
    pd->refcount++;
    if (cq) {
        cq->refcount++;
    }
    if (x) {
        x->refcount++;
    }
    mlx5_cmd_handle_out(cmd, srqn);
    trace_mlx5_srq_create(srqn, p->log_srq_size, p->log_rq_stride, p->cqn);
    return srq;
}

/*
 * CREATE_SRQ (ISSI 0) and CREATE_XRC_SRQ: an srqc (xrc_srqc adds the user
 * index)
 */
void mlx5_cmd_create_srq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *srqc = cmd->in + CREATE_SRQ_SRQC_OFF;
    Mlx5SrqParams p = { 0 };

    if (!mlx5_cmd_in_ok(cmd, MLX5_PAS_OFF + 8) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    p.log_srq_size = MLX5_GET(srqc, SRQC_log_srq_size);
    p.log_rq_stride = MLX5_GET(srqc, SRQC_log_rq_stride);
    p.cqn = MLX5_GET(srqc, SRQC_cqn);
    p.xrcd = MLX5_GET(srqc, SRQC_xrcd);
    p.pdn = MLX5_GET(srqc, SRQC_pd);
    p.log_page_size = MLX5_GET(srqc, SRQC_log_page_size);
    p.page_offset = MLX5_GET(srqc, SRQC_page_offset);
    p.lwm = MLX5_GET(srqc, SRQC_lwm);
    p.dbr_addr = MLX5_GET64(srqc, SRQC_dbr_addr_OFF);
    if (cmd->opcode == MLX5_CMD_OP_CREATE_XRC_SRQ) {
        p.xrc = true;
        p.user_index = MLX5_GET(srqc, XRC_SRQC_user_index);
    }
    p.pas_off = MLX5_PAS_OFF;
    mlx5_srq_create(c, cmd, &p);
}

/*
 * CREATE_RMP (ISSI 1: how mlx5_ib creates every SRQ that is not an XRC SRQ): an
 * rmpc whose wq is a linked list; a receive memory pool has no CQ or XRC domain
 * of its own.
 */
void mlx5_cmd_create_rmp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (!mlx5_cmd_in_ok(cmd, MLX5_PAS_OFF) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    mlx5_rmp_create(c, cmd, cmd->in + CREATE_RMP_WQ_OFF, MLX5_PAS_OFF, 0, 0);
}

/*
 * An SRQ from a linked-list wq (an rmpc's, or an XRQ's with its CQ and user
 * index); its pages at @pas_off (the input is known to reach it), or in a UMEM
 * (DevX: the kernel marks every UMEM of a DevX command valid). NULL: failed,
 * the command says why.
 */
Mlx5Srq *mlx5_rmp_create(Mlx5Core *c, Mlx5CmdCtx *cmd, const uint8_t *wq,
                         uint32_t pas_off, uint32_t cqn, uint32_t user_index)
{
    Mlx5SrqParams p = { 0 };
    uint32_t log_stride = MLX5_GET(wq, WQ_log_wq_stride), synd = 0;

    if (MLX5_GET(wq, WQ_wq_type) != MLX5_WQ_TYPE_LINKED_LIST ||
        log_stride < 4) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return NULL;
    }
    p.umem = MLX5_GET(wq, WQ_wq_umem_valid);
    if (!p.umem && !mlx5_cmd_in_ok(cmd, pas_off + 8)) {
        return NULL;                    /* (no page) */
    }
    p.umem_id = MLX5_GET(wq, WQ_wq_umem_id);
    p.umem_off = MLX5_GET64(wq, WQ_wq_umem_offset_OFF);
    p.log_srq_size = MLX5_GET(wq, WQ_log_wq_sz);
    p.log_rq_stride = log_stride - 4;
    p.pdn = MLX5_GET(wq, WQ_pd);
    p.log_page_size = MLX5_GET(wq, WQ_log_wq_pg_sz);
    p.page_offset = MLX5_GET(wq, WQ_page_offset);
    p.lwm = MLX5_GET(wq, WQ_lwm);
    p.dbr_addr = MLX5_GET64(wq, WQ_dbr_addr_OFF);
    if (MLX5_GET(wq, WQ_dbr_umem_valid)) {
        synd = mlx5_umem_addr(c, cmd, MLX5_GET(wq, WQ_dbr_umem_id), p.dbr_addr,
                              &p.dbr_addr);
    }
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return NULL;
    }
    p.cqn = cqn;
    p.user_index = user_index;
    p.pas_off = pas_off;
    return mlx5_srq_create(c, cmd, &p);
}

void mlx5_rmp_query_wq(const Mlx5Srq *srq, uint8_t *wq)
{
    MLX5_SET(wq, WQ_wq_type, MLX5_WQ_TYPE_LINKED_LIST);
    MLX5_SET(wq, WQ_lwm, srq->lwm);
    MLX5_SET(wq, WQ_pd, srq->pdn);
    MLX5_SET64(wq, WQ_dbr_addr_OFF, srq->dbr_addr);
    MLX5_SET(wq, WQ_log_wq_stride, srq->log_rq_stride + 4);
    MLX5_SET(wq, WQ_log_wq_pg_sz, srq->buf.log_page_size - 12);
    MLX5_SET(wq, WQ_log_wq_sz, srq->log_srq_size);
}

/* QUERY_RMP: the rmpc back */
void mlx5_cmd_query_rmp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *rmpc = cmd->out + CREATE_RMP_RMPC_OFF,
            *wq = cmd->out + CREATE_RMP_WQ_OFF;
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, CREATE_RMP_WQ_OFF + 64)) {
        return;
    }
    srq = mlx5_cmd_obj(cmd, &c->srqs, mlx5_cmd_handle_in(cmd));
    if (!srq || srq->xrc || srq->tm) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    MLX5_SET(rmpc, RMPC_state, MLX5_RMPC_STATE_RDY);
    mlx5_rmp_query_wq(srq, wq);
}

/*
 * MODIFY_RMP: only the limit (bitmask.lwm) of a ready RMP, which arms the limit
 * event
 */
void mlx5_cmd_modify_rmp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, CREATE_RMP_WQ_OFF + 64)) {
        return;
    }
    srq = mlx5_cmd_obj(cmd, &c->srqs, MLX5_GET(cmd->in, MODIFY_RMP_IN_rmpn));
    if (!srq || srq->xrc) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (MLX5_GET(cmd->in, MODIFY_RMP_IN_rmp_state) != MLX5_RMPC_STATE_RDY) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_STATE);
        return;
    }
    if (MLX5_GET(cmd->in, MODIFY_RMP_IN_bitmask_lwm)) {
        srq->lwm = MLX5_GET(cmd->in + CREATE_RMP_WQ_OFF, WQ_lwm);
        srq->armed = srq->lwm != 0;
        trace_mlx5_srq_arm(srq->srqn, srq->lwm);
    }
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

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, 0x10 + MLX5_SRQC_SIZE)) {
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
    if (srq->xrc) {
        MLX5_SET(srqc, XRC_SRQC_user_index, srq->user_index);
    }
    MLX5_SET64(srqc, SRQC_dbr_addr_OFF, srq->dbr_addr);
}

void mlx5_cmd_arm_rq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    if (cmd->op_mod != 1 && cmd->op_mod != 2) {
        /* SRQs (op_mod 1) and XRQs (2) */
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
    srq = mlx5_cmd_obj(cmd, &c->srqs, MLX5_GET(cmd->in, ARM_RQ_IN_srq_number));
    if (!srq || (cmd->op_mod == 2) != !!srq->tm) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    srq->lwm = MLX5_GET(cmd->in, ARM_RQ_IN_lwm);
    srq->armed = srq->lwm != 0;
    trace_mlx5_srq_arm(srq->srqn, srq->lwm);
}
