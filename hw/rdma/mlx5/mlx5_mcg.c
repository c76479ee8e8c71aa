/*
 * mlx5 HCA core: multicast groups (PRM ATTACH_TO_MCG / DETACH_FROM_MCG). A UD
 * QP is attached to a group by its MGID; the vendor-neutral transport
 * (ib_mcast.c) keeps the attachments and delivers multicast packets. Limits:
 * CAP max_qp_mcg QPs per group and 2^log_max_mcg groups, which the attachment
 * table (IB_MCAST_MAX_ATTACH) covers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

#define MCG_IN_qpn          MLX5_FIELD(2, 23, 0)
#define MCG_IN_LEN          0x20
#define MCG_IN_GID          0x10

static Mlx5Qp *mlx5_mcg_qp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, MCG_IN_LEN)) {
        return NULL;
    }
    qp = mlx5_cmd_obj(cmd, &c->qps, MLX5_GET(cmd->in, MCG_IN_qpn));
    if (!qp) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return NULL;
    }
    if (qp->st != MLX5_QP_ST_UD) {
        /* only datagram QPs join multicast groups */
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_ST);
        return NULL;
    }
    return qp;
}

void mlx5_cmd_attach_to_mcg(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp = mlx5_mcg_qp(c, cmd);
    const uint8_t *gid = cmd->in + MCG_IN_GID;

    if (!qp) {
        return;
    }
    switch (ib_mcast_attach(&c->ib, gid, qp->qpn,
                            MLX5_GET(c->cap_general_cur, CAP_max_qp_mcg))) {
    case IB_MCAST_OK:
    case IB_MCAST_EXISTS:           /* attaching twice changes nothing */
        break;
    case IB_MCAST_BAD_GID:
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_GID);
        break;
    default:
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_NO_RES_ERR, MLX5_SYND_NO_HANDLE);
        break;
    }
}

void mlx5_cmd_detach_from_mcg(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp = mlx5_mcg_qp(c, cmd);

    if (qp &&
        ib_mcast_detach(&c->ib, cmd->in + MCG_IN_GID, qp->qpn) != IB_MCAST_OK) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_GID);
    }
}
