/*
 * mlx5 HCA core, Ethernet port: packet pacing. The rate table SET_PP_RATE_LIMIT
 * fills (index 0 is "no limit"; mlx5_core's rl.c hands out 1 .. size - 1, to
 * mlx5e's tx_maxrate, to mlx5_ib's raw packet QPs and to DevX users through
 * mlx5_ib's PP object), and the pacer: an SQ whose context names a set entry
 * sends at most that rate. Each SQ keeps the time by which what it sent has
 * left at the rate (pp_next): a frame pushes it by its length at the rate. A
 * WQE starts when that time is no more than burst_upper_bound bytes' worth
 * ahead (strictly less; not ahead at all when the bound is 0), else it waits,
 * the SQ off the run queue, for the core's deadline: an idle SQ sends a burst
 * of that many bytes at once, then keeps to the rate.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_qos_prm.h"
#include "trace.h"

enum {
    /* an index beyond the table, or 0 (no limit: not an entry) */
    MLX5_SYND_PP_INDEX = 0x30000050,
    /* a rate outside [packet_pacing_min_rate, packet_pacing_max_rate] */
    MLX5_SYND_PP_RATE = 0x30000051,
    /* the entry is set for another DevX context */
    MLX5_SYND_PP_UID = 0x30000052,
};

void mlx5_pp_caps(unsigned type, uint8_t *cap)
{
    if (type == MLX5_CAP_GENERAL) {
        MLX5_SET(cap, CAP_qos, 1);
        return;
    }
    /* QoS: packet pacing only (no E-Switch or NIC scheduling elements) */
    MLX5_SET(cap, QOS_CAP_packet_pacing, 1);
    MLX5_SET(cap, QOS_CAP_packet_pacing_burst_bound, 1);
    MLX5_SET(cap, QOS_CAP_packet_pacing_typical_size, 1);
    MLX5_SET(cap, QOS_CAP_packet_pacing_uid, 1);
    MLX5_SET(cap, QOS_CAP_packet_pacing_max_rate, MLX5_PP_MAX_RATE);
    MLX5_SET(cap, QOS_CAP_packet_pacing_min_rate, MLX5_PP_MIN_RATE);
    MLX5_SET(cap, QOS_CAP_packet_pacing_rate_table_size, MLX5_PP_TABLE_SIZE);
}

void mlx5_pp_reset(Mlx5Eth *e)
{
    memset(e->pp, 0, sizeof(e->pp));
}

void mlx5_cmd_set_pp_rate_limit(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5PpEntry *pe;
    const uint8_t *ctx = cmd->in + PP_IN_CTX_OFF;
    uint32_t index, rate;

    if (!mlx5_cmd_in_ok(cmd, PP_IN_CTX_OFF + 0xc)) {
        return;
    }
    index = MLX5_GET(cmd->in, PP_IN_rate_limit_index);
    rate = MLX5_GET(ctx, PP_CTX_rate_limit);
    if (index == 0 || index >= MLX5_PP_TABLE_SIZE) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_PP_INDEX);
        return;
    }
    pe = &c->eth->pp[index];
    if (pe->rate && pe->uid != cmd->uid) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_PP_UID);
        return;
    }
    if (rate && (rate < MLX5_PP_MIN_RATE || rate > MLX5_PP_MAX_RATE)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_PP_RATE);
        return;
    }
    *pe = (Mlx5PpEntry) { 0 };          /* rate 0: the entry is cleared */
    if (rate) {
        pe->rate = rate;
        pe->burst = MLX5_GET(ctx, PP_CTX_burst_upper_bound);
        pe->typical = MLX5_GET(ctx, PP_CTX_typical_packet_size);
        pe->uid = cmd->uid;
    }
    trace_mlx5_eth_pp_set(index, rate, pe->burst, pe->typical, cmd->uid);
}

uint32_t mlx5_pp_check_index(uint32_t index)
{
    return index < MLX5_PP_TABLE_SIZE ? 0 : MLX5_SYND_PP_INDEX;
}

/* Nanoseconds @bytes take at @kbps (1 kbit/s: 1 bit per millisecond). */
static int64_t mlx5_pp_ns(uint64_t bytes, uint64_t kbps)
{
    return (int64_t)MIN(bytes * 8 * 1000000 / kbps, (uint64_t)INT64_MAX / 4);
}

/* The set entry @sq is paced by, or NULL: index 0, or an entry cleared. */
static const Mlx5PpEntry *mlx5_pp_entry(Mlx5Core *c, const Mlx5Qp *sq)
{
    const Mlx5PpEntry *pe;

    if (!sq->pp_index || !c->eth) {
        return NULL;
    }
    pe = &c->eth->pp[sq->pp_index];
    return pe->rate ? pe : NULL;
}

/*
 * Also the rate limit of the function's E-Switch vport (mlx5_esw_qos.c): its
 * SQs together start a WQE only once what the function sent has left at it.
 */
bool mlx5_pp_may_send(Mlx5Core *c, Mlx5Qp *sq)
{
    const Mlx5PpEntry *pe = mlx5_pp_entry(c, sq);
    int64_t now, burst, wake = 0;

    if (!pe && !c->esw_max_mbps) {
        return true;
    }
    now = c->ops->now_ns(c->opaque);
    if (pe) {
        burst = mlx5_pp_ns(pe->burst, pe->rate);
        if (sq->pp_next > now && sq->pp_next - now >= burst) {
            wake = burst ? sq->pp_next - burst + 1 : sq->pp_next;
        }
    }
    if (c->esw_max_mbps && c->esw_tx_next > now) {
        wake = MAX(wake, c->esw_tx_next);
    }
    if (!wake) {
        return true;
    }
    /* wait: mlx5_pp_expire queues it again */
    sq->pp_waiting = true;
    sq->pp_wake = wake;
    if (sq->pp_wake < c->pp_deadline) {
        c->pp_deadline = sq->pp_wake;
        mlx5_exec_set_deadline(c);
    }
    trace_mlx5_eth_pp_wait(sq->qpn, sq->pp_wake - now);
    return false;
}

/* @len bytes the function sent at @now: charged to its vport's rate limit */
static void mlx5_pp_vport_charge(Mlx5Core *c, int64_t now, size_t len)
{
    c->esw_tx_next = MAX(c->esw_tx_next, now) +
                     mlx5_pp_ns(len, (uint64_t)c->esw_max_mbps * 1000);
}

bool mlx5_pp_rdma_sent(Mlx5Core *c, size_t len)
{
    int64_t now;

    if (!c->esw_max_mbps) {
        return true;
    }
    now = c->ops->now_ns(c->opaque);
    mlx5_pp_vport_charge(c, now, len);
    if (c->esw_tx_next <= now) {
        return true;
    }
    /* the transport stops until then: mlx5_pp_expire lets it go on */
    c->esw_rdma_held = true;
    if (c->esw_tx_next < c->pp_deadline) {
        c->pp_deadline = c->esw_tx_next;
        mlx5_exec_set_deadline(c);
    }
    return false;
}

void mlx5_pp_charge(Mlx5Core *c, Mlx5Qp *sq, size_t len)
{
    const Mlx5PpEntry *pe = mlx5_pp_entry(c, sq);
    int64_t now;

    if (!pe && !c->esw_max_mbps) {
        return;
    }
    now = c->ops->now_ns(c->opaque);
    if (pe) {
        sq->pp_next = MAX(sq->pp_next, now) + mlx5_pp_ns(len, pe->rate);
    }
    if (c->esw_max_mbps) {
        mlx5_pp_vport_charge(c, now, len);
    }
}

void mlx5_pp_expire(Mlx5Core *c, int64_t now)
{
    Mlx5Qp *qp;

    c->pp_deadline = INT64_MAX;
    if (c->esw_rdma_held) {
        if (c->esw_tx_next <= now) {
            c->esw_rdma_held = false;
            ib_port_tx_ready(&c->ib);
        } else {
            c->pp_deadline = c->esw_tx_next;
        }
    }
    MLX5_TABLE_FOREACH(&c->qps, qp) {
        if (qp->st != MLX5_QP_ST_ETH_SQ || !qp->pp_waiting) {
            continue;
        }
        if (qp->pp_wake <= now) {
            qp->pp_waiting = false;
            mlx5_exec_queue(c, qp);
        } else {
            c->pp_deadline = MIN(c->pp_deadline, qp->pp_wake);
        }
    }
}
