/*
 * mlx5 HCA core, Ethernet port: flow counters
 * (ALLOC/DEALLOC/QUERY_FLOW_COUNTER).
 *
 * A flow counter counts the packets and bytes of the frames that hit the flow
 * entries naming it (the COUNT action, mlx5_flow.c), whatever the entry does
 * with them: a drop rule counts what it drops. They are allocated one at a
 * time or in bulks of 128 x flow_counter_bulk consecutive ids (mlx5_core's
 * aging counters for tc, DPDK's counter pools), freed by the id ALLOC returned
 * (a bulk as a whole), and read one at a time or in ranges of up to
 * 2^log_max_flow_counter_bulk (mlx5_core reads its counters every second in
 * ranges aligned to 4). A counter belongs to the uid that allocated it: a DevX
 * context frees and reads its own only (a range shows others' as zeros); a
 * counter that flow entries still count into cannot be freed.
 *
 * flow_counters_dump: a range query with dump_to_memory writes the counters
 * (16 bytes each: packets, bytes) through an mkey of the querying context
 * instead of the output, local write access, any PD: DPDK's counter pools
 * query 512 at a time this way, asynchronously (DEVX_OBJ_ASYNC_QUERY).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

enum {
    /* flow_counter_bulk beyond the free ids, or the size field set */
    MLX5_SYND_FC_BULK = 0x30000010,
    /* flow entries still count into it */
    MLX5_SYND_FC_BUSY = 0x30000011,
    /* a range beyond the counters or the bulk maximum, or not aligned */
    MLX5_SYND_FC_RANGE = 0x30000012,
    /* dump_to_memory: not a range, or the mkey cannot take the counters */
    MLX5_SYND_FC_DUMP = 0x30000013,
};

/* bulks start at multiples of this (and single counters fill the gaps) */
#define MLX5_FC_BULK_ALIGN      128u

static Mlx5FlowCounter *mlx5_fc_get(Mlx5Core *c, uint32_t id)
{
    Mlx5FlowCounter *fc;

    if (!c->eth || !id || id >= MLX5_ETH_MAX_FLOW_COUNTERS) {
        return NULL;
    }
    fc = &c->eth->fcs[id];
    return fc->base ? fc : NULL;
}

/* Is @fc allocated, and visible to @uid (its owner's, or the kernel's 0)? */
static bool mlx5_fc_mine(const Mlx5FlowCounter *fc, uint16_t uid)
{
    return fc && fc->base && (!uid || fc->uid == uid);
}

bool mlx5_fc_ref(Mlx5Core *c, uint32_t id)
{
    Mlx5FlowCounter *fc = mlx5_fc_get(c, id);

    if (fc) {
        fc->refs++;
    }
    return fc;
}

void mlx5_fc_put(Mlx5Core *c, uint32_t id)
{
    Mlx5FlowCounter *fc = mlx5_fc_get(c, id);

    if (fc) {
        mlx5_ref_put(&fc->refs);
    }
}

void mlx5_fc_count(Mlx5Core *c, uint32_t id, size_t bytes)
{
    Mlx5FlowCounter *fc = mlx5_fc_get(c, id);

    if (fc) {
        fc->packets++;
        fc->bytes += bytes;
        trace_mlx5_eth_fc_count(id, fc->packets, fc->bytes);
    }
}

void mlx5_fc_count_as(Mlx5Core *c, uint32_t id, size_t bytes, uint16_t uid)
{
    if (mlx5_fc_mine(mlx5_fc_get(c, id), uid)) {
        mlx5_fc_count(c, id, bytes);
    } else {
        trace_mlx5_ste_unsupported("another uid's counter", id);
    }
}

/* The first id of @n free consecutive ones (a bulk aligned), or 0. */
static uint32_t mlx5_fc_find(Mlx5Eth *e, uint32_t n)
{
    uint32_t step = n > 1 ? MLX5_FC_BULK_ALIGN : 1, id, k;

    for (id = step; id + n <= MLX5_ETH_MAX_FLOW_COUNTERS; id += step) {
        for (k = 0; k < n && !e->fcs[id + k].base; k++) {
            /* (free so far) */
        }
        if (k == n) {
            return id;
        }
    }
    return 0;
}

void mlx5_cmd_alloc_flow_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Eth *e = c->eth;
    uint32_t bulk, n, id, k;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    bulk = MLX5_GET(cmd->in, ALLOC_FC_IN_flow_counter_bulk);
    /* 128 per unit of the bitmask (its bits: 128, 256, 512, ...) */
    n = bulk ? MLX5_FC_BULK_ALIGN * bulk : 1;
    if (MLX5_GET(cmd->in, ALLOC_FC_IN_flow_counter_bulk_log_size) ||
        (bulk & ~MLX5_ETH_FC_BULK_ALLOC)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FC_BULK);
        return;
    }
    id = mlx5_fc_find(e, n);
    if (!id) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    for (k = 0; k < n; k++) {
        Mlx5FlowCounter *fc = &e->fcs[id + k];
        memset(fc, 0, sizeof(*fc));
        fc->base = id;
        fc->uid = cmd->uid;
    }
    e->fcs[id].n = n;
    MLX5_SET(cmd->out, ALLOC_FC_OUT_flow_counter_id, id);
    trace_mlx5_eth_fc_alloc(id, n, cmd->uid);
}

void mlx5_cmd_dealloc_flow_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Eth *e = c->eth;
    Mlx5FlowCounter *fc;
    uint32_t id, k;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    id = MLX5_GET(cmd->in, DEALLOC_FC_IN_flow_counter_id);
    fc = mlx5_fc_get(c, id);
    /* by the id ALLOC returned: a bulk as a whole */
    if (!mlx5_fc_mine(fc, cmd->uid) || fc->base != id) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    for (k = 0; k < fc->n; k++) {
        if (e->fcs[id + k].refs) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                          MLX5_SYND_FC_BUSY);
            return;
        }
    }
    for (k = fc->n; k--;) {
        memset(&e->fcs[id + k], 0, sizeof(e->fcs[id + k]));
    }
    trace_mlx5_obj_destroy("flow counter", id);
}

void mlx5_cmd_query_flow_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Eth *e = c->eth;
    uint32_t id, num, n, i, key;
    bool clear, dump;
    g_autofree uint8_t *st = NULL;
    uint8_t *stats;

    if (!mlx5_cmd_in_ok(cmd, 0x20)) {
        return;
    }
    id = MLX5_GET(cmd->in, QUERY_FC_IN_flow_counter_id);
    num = MLX5_GET(cmd->in, QUERY_FC_IN_num_of_counters);
    clear = MLX5_GET(cmd->in, QUERY_FC_IN_clear);
    dump = MLX5_GET(cmd->in, QUERY_FC_IN_dump_to_memory);
    key = MLX5_GET(cmd->in, QUERY_FC_IN_mkey);
    n = MAX(num, 1);
    if (num && ((id | num) & 3 || num > MLX5_ETH_FC_MAX_BULK_QUERY ||
                id >= MLX5_ETH_MAX_FLOW_COUNTERS ||
                num > MLX5_ETH_MAX_FLOW_COUNTERS - id)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FC_RANGE);
        return;
    }
    if (dump && (!num || (cmd->uid && mlx5_table_get(&c->mkeys, key >> 8) &&
                          mlx5_table_owner(&c->mkeys, key >> 8) != cmd->uid))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FC_DUMP);
        return;
    }
    if (!num) {
        Mlx5FlowCounter *fc = mlx5_fc_get(c, id);
        if (!mlx5_fc_mine(fc, cmd->uid)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR,
                          MLX5_SYND_BAD_HANDLE);
            return;
        }
    }
    if (dump) {
        stats = st = g_malloc0(16 * n);
    } else if (!mlx5_cmd_out_ok(cmd, QUERY_FC_OUT_STATS_OFF + 16 * n)) {
        return;
    } else {
        stats = cmd->out + QUERY_FC_OUT_STATS_OFF;
    }
    for (i = 0; i < n; i++) {
        Mlx5FlowCounter *fc = &e->fcs[id + i];

        /* a free id, or another context's: zeros */
        if (!mlx5_fc_mine(fc, cmd->uid)) {
            continue;
        }
        mlx5_st64(stats + 16 * i, fc->packets);
        mlx5_st64(stats + 16 * i + 8, fc->bytes);
    }
    if (dump && mlx5_mkey_copy(c, key, UINT32_MAX, MLX5_MKEY_LW,
                               MLX5_GET64(cmd->in, QUERY_FC_IN_address_OFF),
                               st, 16 * n, true)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FC_DUMP);
        return;
    }
    for (i = 0; clear && i < n; i++) {
        Mlx5FlowCounter *fc = &e->fcs[id + i];

        if (mlx5_fc_mine(fc, cmd->uid)) {
            fc->packets = fc->bytes = 0;
        }
    }
    trace_mlx5_eth_fc_query(id, num, clear);
}
