/*
 * mlx5 HCA core: DevX user contexts (CREATE_UCTX / DESTROY_UCTX).
 *
 * mlx5_ib creates a user context for every libmlx5 context that asks for DevX (libmlx5 asks by
 * default) and stamps its uid on every command issued for it: the verbs objects of that
 * process and the objects it creates itself through mlx5dv_devx_obj_create(). The uid is a
 * security boundary: a command carrying a uid may only use the user-object commands, may
 * only operate on objects created with the same uid, and may refer only to those and to
 * privileged (uid 0) objects other than PDs (mlx5_cmd_obj/mlx5_cmd_ref in mlx5_cmdq.c).
 * Anything else is answered as if the object did not exist.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
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
    if (mlx5_table_alloc(&c->uctxs, u, &uid)) {       /* the table holds at most 2^16 */
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
    Mlx5Table *owned[] = { &c->qps, &c->srqs, &c->mkeys, &c->cqs, &c->pds, &c->xrcds,
                           &c->tds, &c->uars };
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
    /* the kernel destroys a context's objects first; a uid still owning any is busy */
    for (i = 0; i < G_N_ELEMENTS(owned); i++) {
        if (mlx5_table_has_owner(owned[i], uid)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
            return;
        }
    }
    g_free(mlx5_table_get(&c->uctxs, uid));
    mlx5_table_remove(&c->uctxs, uid);
    trace_mlx5_obj_destroy("uctx", uid);
}
