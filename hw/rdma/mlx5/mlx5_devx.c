/*
 * mlx5 HCA core: DevX user contexts (CREATE_UCTX / DESTROY_UCTX).
 *
 * mlx5_ib creates a user context for every libmlx5 context that asks for DevX
 * (libmlx5 asks by default) and stamps its uid on every command issued for it:
 * the verbs objects of that process and the objects it creates itself through
 * mlx5dv_devx_obj_create(). The uid is a security boundary: a command carrying
 * a uid may only use the user-object commands, may only operate on objects
 * created with the same uid, and may refer only to those and to privileged (uid
 * 0) objects other than PDs (mlx5_cmd_obj/mlx5_cmd_ref in mlx5_cmdq.c).
 * Anything else is answered as if the object did not exist.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "trace.h"

typedef struct Mlx5Uctx {
    uint32_t uid;               /* first member: the table handle */
    uint32_t cap;
} Mlx5Uctx;

void mlx5_cmd_create_uctx(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t cap, uid;
    Mlx5Uctx *u;

    if (!mlx5_cmd_in_ok(cmd, 0x14) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    cap = MLX5_GET(cmd->in, CREATE_UCTX_IN_cap);
    if (!c->cfg.log_max_uctx) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    if (cap & ~MLX5_GET(c->cap_general_cur, CAP_uctx_cap)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    u = g_new0(Mlx5Uctx, 1);
    /* the table holds at most 2^16 */
    if (mlx5_table_alloc(&c->uctxs, u, &uid)) {
        g_free(u);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    u->uid = uid;
    u->cap = cap;
    MLX5_SET(cmd->out, CREATE_UCTX_OUT_uid, uid);
    trace_mlx5_obj_create("uctx", uid);
}

void mlx5_cmd_destroy_uctx(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Table *owned[] = {
        &c->qps,   &c->srqs, &c->mkeys, &c->cqs,   &c->pds,
        &c->xrcds, &c->tds,  &c->uars,  &c->umems, &c->psvs
    };
    uint32_t uid;
    size_t i;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    uid = MLX5_GET(cmd->in, DESTROY_UCTX_IN_uid);
    if (!uid || !mlx5_table_get(&c->uctxs, uid)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    /*
     * the kernel destroys a context's objects first; a uid still owning any is
     * busy
     */
    for (i = 0; i < G_N_ELEMENTS(owned); i++) {
        if (mlx5_table_has_owner(owned[i], uid)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
            return;
        }
    }
    if (c->eth && (mlx5_table_has_owner(&c->eth->tises, uid) ||
                   mlx5_table_has_owner(&c->eth->tirs, uid) ||
                   mlx5_table_has_owner(&c->eth->rqts, uid))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    g_free(mlx5_table_get(&c->uctxs, uid));
    mlx5_table_remove(&c->uctxs, uid);
    trace_mlx5_obj_destroy("uctx", uid);
}

/* ---- UMEM: user memory for DevX objects (CREATE_UMEM / DESTROY_UMEM) ----- */

typedef struct Mlx5Umem {
    uint32_t id;                /* first member: the table handle */
    uint8_t log_page_size;      /* absolute */
    uint32_t page_offset;       /* bytes into the first page */
    uint64_t nmtt;
    uint64_t *mtt;              /* page addresses, flag bits cleared */
} Mlx5Umem;

void mlx5_umem_free(Mlx5Core *c, void *obj)
{
    Mlx5Umem *u = obj;

    g_free(u->mtt);
    g_free(u);
}

void mlx5_cmd_create_umem(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint64_t n, i, ps;
    uint32_t lps, off, id;
    Mlx5Umem *u;

    if (!mlx5_cmd_in_ok(cmd, CREATE_UMEM_IN_MTT_OFF) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    lps = MLX5_GET(cmd->in, CREATE_UMEM_IN_log_page_size) + 12;
    off = MLX5_GET(cmd->in, CREATE_UMEM_IN_page_offset);
    n = mlx5_ld64(cmd->in + CREATE_UMEM_IN_num_of_mtt_OFF);
    if (lps > 30) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_BAD_PAGE_SIZE);
        return;
    }
    ps = 1ull << lps;
    if (n == 0 || n > MLX5_MAX_PAS || off >= ps) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PAS);
        return;
    }
    if (cmd->inlen < CREATE_UMEM_IN_MTT_OFF + 8 * n) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR, MLX5_SYND_INLEN);
        return;
    }
    u = g_new0(Mlx5Umem, 1);
    u->mtt = g_new(uint64_t, n);
    for (i = 0; i < n; i++) {
        uint64_t e = mlx5_ld64(cmd->in + CREATE_UMEM_IN_MTT_OFF + 8 * i);
        if (e & (ps - 1) & ~0xfffull) {
            mlx5_umem_free(c, u);
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PAS);
            return;
        }
        u->mtt[i] = e & ~(ps - 1);
    }
    if (mlx5_table_alloc(&c->umems, u, &id)) {
        mlx5_umem_free(c, u);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->umems, id);
    u->id = id;
    u->log_page_size = lps;
    u->page_offset = off;
    u->nmtt = n;
    MLX5_SET(cmd->out, UMEM_OUT_umem_id, id);
    trace_mlx5_obj_create("umem", id);
}

void mlx5_cmd_destroy_umem(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t id;
    Mlx5Umem *u;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    id = MLX5_GET(cmd->in, UMEM_OUT_umem_id);
    u = mlx5_cmd_obj(cmd, &c->umems, id);
    if (!u) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    /* objects built on it keep their own copy of its translations */
    mlx5_table_remove(&c->umems, id);
    mlx5_umem_free(c, u);
    trace_mlx5_obj_destroy("umem", id);
}

uint32_t mlx5_umem_buf(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t id, uint64_t off,
                       uint64_t len, Mlx5Buf *b)
{
    Mlx5Umem *u = mlx5_cmd_obj(cmd, &c->umems, id);
    uint64_t ps, start, first, in, npages, i;

    memset(b, 0, sizeof(*b));
    if (!u) {
        trace_mlx5_err_umem(id, off, len, 0);
        return MLX5_SYND_BAD_HANDLE;
    }
    ps = 1ull << u->log_page_size;
    start = u->page_offset + off;
    if (start < off || len == 0) {
        trace_mlx5_err_umem(id, off, len, 1);
        return MLX5_SYND_BAD_PAS;
    }
    first = start >> u->log_page_size;
    in = start & (ps - 1);
    if (in % (ps / 64)) {
        trace_mlx5_err_umem(id, off, len, 2);
        /* not expressible as a quantized page offset */
        return MLX5_SYND_BAD_PAS;
    }
    npages = (in + len + ps - 1) >> u->log_page_size;
    if (first >= u->nmtt || npages > u->nmtt - first) {
        trace_mlx5_err_umem(id, off, len, 3);
        return MLX5_SYND_BAD_PAS;
    }
    b->pas = g_new(uint64_t, npages);
    for (i = 0; i < npages; i++) {
        b->pas[i] = u->mtt[first + i];
    }
    b->npages = npages;
    b->log_page_size = u->log_page_size;
    b->page_offset = in;
    return 0;
}

uint32_t mlx5_umem_addr(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t id, uint64_t off,
                        uint64_t *pa)
{
    Mlx5Umem *u = mlx5_cmd_obj(cmd, &c->umems, id);
    uint64_t ps, start, idx;

    if (!u) {
        trace_mlx5_err_umem(id, off, 8, 4);
        return MLX5_SYND_BAD_HANDLE;
    }
    ps = 1ull << u->log_page_size;
    start = u->page_offset + off;
    idx = start >> u->log_page_size;
    if (start < off || idx >= u->nmtt || (start & (ps - 1)) + 8 > ps ||
        (start & 7)) {
        trace_mlx5_err_umem(id, off, 8, 5);
        return MLX5_SYND_BAD_PAS;
    }
    *pa = u->mtt[idx] + (start & (ps - 1));
    return 0;
}
