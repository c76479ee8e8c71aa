/*
 * mlx5 HCA core, Ethernet port: NIC receive flow steering. Flow tables hold
 * groups (a range of entry indexes and the header fields they match on);
 * entries match values under their group's criteria and forward to TIRs or
 * further tables, or drop. A frame starts at the root table; the first group
 * (by index) with a matching entry decides; a miss follows the table's miss
 * table, or drops.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

enum {
    /* not a NIC receive table, or another vport's */
    MLX5_SYND_FT_TYPE = 0x30000001,
    /* level beyond max_ft_level, or not above ours */
    MLX5_SYND_FT_LEVEL = 0x30000002,
    /* group range outside the table, or overlapping */
    MLX5_SYND_FG_RANGE = 0x30000003,
    /* no group holds the index, or another group's */
    MLX5_SYND_FTE_INDEX = 0x30000004,
    MLX5_SYND_FTE_EXISTS = 0x30000005,
    /* an action or destination we do not offer */
    MLX5_SYND_FTE_ACTION = 0x30000006,
    MLX5_SYND_FTE_LIMIT = 0x30000007,
    /* groups and entries in a software-owned table, or one not offered */
    MLX5_SYND_FT_SW_OWNER = 0x30000008,
};

Mlx5FlowTable *mlx5_ft_get(Mlx5Core *c, uint32_t id)
{
    return mlx5_table_get(&c->eth->fts, id);
}

static bool mlx5_ft_acl(unsigned type)
{
    return type == MLX5_FLOW_TABLE_TYPE_ESW_EGRESS_ACL ||
           type == MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL;
}

/*
 * NIC RX, NIC TX and RDMA RX tables of the function; FDB tables of the
 * E-Switch manager, and its ACL tables of a vport (its own, or other_vport:
 * the PF's 0, a VF's 1..num-vfs, the uplink's 0xffff)
 */
static bool mlx5_ft_type_ok(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned type = MLX5_GET(cmd->in, FT_IN_table_type);
    unsigned vport = MLX5_GET(cmd->in, VPORT_IN_vport_number);
    bool mgr = mlx5_esw_manager_cfg(&c->cfg), esw = !cmd->uid && mgr;
    bool other = MLX5_GET(cmd->in, VPORT_IN_other_vport), ok;

    if (other) {
        ok = esw && mlx5_ft_acl(type) &&
             (vport <= c->cfg.num_vfs || vport == MLX5_VPORT_UPLINK);
    } else {
        /*
         * (a DevX user on the manager has FDB tables of its own: rdma-core's
         * and DPDK's FDB steering domains; never the root or an ACL)
         */
        ok = type == MLX5_FLOW_TABLE_TYPE_NIC_RX ||
             type == MLX5_FLOW_TABLE_TYPE_NIC_TX ||
             type == MLX5_FLOW_TABLE_TYPE_RDMA_RX ||
             (type == MLX5_FLOW_TABLE_TYPE_FDB && !vport &&
              (esw || (mgr && mlx5_sw_icm_offered(&c->cfg)))) ||
             (mlx5_ft_acl(type) && esw && !vport);
    }
    if (!ok) {
        trace_mlx5_eth_ft_refused(type, other, vport);
    }
    return ok;
}

/*
 * The table a flow command names (table_type, other_vport, table_id), or
 * fail.
 */
static Mlx5FlowTable *mlx5_ft_in(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft;

    if (!mlx5_cmd_in_ok(cmd, 0x18)) {
        return NULL;
    }
    if (!mlx5_ft_type_ok(c, cmd)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FT_TYPE);
        return NULL;
    }
    /* (a DevX user's own tables only) */
    ft = mlx5_cmd_obj(cmd, &c->eth->fts, MLX5_GET(cmd->in, FT_IN_table_id));
    if (ft && (ft->type != MLX5_GET(cmd->in, FT_IN_table_type) ||
               (mlx5_ft_acl(ft->type) &&
                ft->vport != MLX5_GET(cmd->in, VPORT_IN_vport_number)))) {
        ft = NULL;              /* (an ACL is its vport's) */
    }
    if (!ft) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
    }
    return ft;
}

/* Let go of the contexts @fte's actions name (modify header, reformat). */
static void mlx5_fte_put_ctx(Mlx5Core *c, const Mlx5Fte *fte)
{
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_MOD_HDR) {
        mlx5_modhdr_put(c, fte->modhdr);
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT) {
        mlx5_reformat_put(c, fte->reformat);
    }
}

/* Let go of the flow counters @fte counts into. */
static void mlx5_fte_put_counters(Mlx5Core *c, Mlx5Fte *fte)
{
    unsigned i;

    for (i = 0; i < fte->ncnt; i++) {
        mlx5_fc_put(c, fte->cnt[i]);
    }
    fte->ncnt = 0;
}

static void mlx5_fte_free(Mlx5Core *c, Mlx5Fte *fte)
{
    mlx5_fte_put_counters(c, fte);
    mlx5_fte_put_ctx(c, fte);
    mlx5_ref_put(&c->eth->nftes);
    g_free(fte);
}

/* Free a group and its entries; the caller unlinks it from its table. */
static void mlx5_fg_release(Mlx5Core *c, Mlx5FlowGroup *fg)
{
    guint i;

    for (i = 0; i < fg->ftes->len; i++) {
        mlx5_fte_free(c, g_ptr_array_index(fg->ftes, i));
    }
    g_ptr_array_free(fg->ftes, true);
    g_free(fg);
}

void mlx5_fg_free(Mlx5Core *c, void *obj)
{
    Mlx5FlowGroup *fg = obj;
    Mlx5FlowTable *ft = mlx5_ft_get(c, fg->table_id);

    if (ft) {
        g_ptr_array_remove(ft->groups, fg);
    }
    mlx5_fg_release(c, fg);
}

void mlx5_ft_free(Mlx5Core *c, void *obj)
{
    Mlx5FlowTable *ft = obj;
    guint i;

    for (i = 0; i < ft->groups->len; i++) {
        Mlx5FlowGroup *fg = g_ptr_array_index(ft->groups, i);
        mlx5_table_remove(&c->eth->fgs, fg->id);
        mlx5_fg_release(c, fg);
    }
    g_ptr_array_free(ft->groups, true);
    if (c->eth->root_ft == ft->id) {
        c->eth->root_ft = 0;
    }
    if (c->eth->root_ft_tx == ft->id) {
        c->eth->root_ft_tx = 0;
    }
    if (c->eth->root_ft_fdb == ft->id) {
        c->eth->root_ft_fdb = 0;       /* (the legacy E-Switch's teardown) */
    }
    if (c->eth->root_ft_rdma == ft->id) {
        c->eth->root_ft_rdma = 0;
    }
    if (mlx5_ft_acl(ft->type)) {
        mlx5_esw_acl_gone(c, ft);
    }
    g_free(ft);
}

/* ---- tables -------------------------------------------------------------- */

/*
 * Check a table context's miss action against table @level. Returns a syndrome
 * or 0.
 */
static uint32_t mlx5_ft_check_miss(Mlx5Core *c, Mlx5CmdCtx *cmd,
                                   const uint8_t *ftc, uint8_t type,
                                   uint8_t level)
{
    uint8_t act = MLX5_GET(ftc, FTC_table_miss_action);
    Mlx5FlowTable *next;

    if (act == MLX5_FT_MISS_ACTION_DEF ||
        (act == MLX5_FT_MISS_ACTION_SWITCH_DOMAIN &&
         type == MLX5_FLOW_TABLE_TYPE_RDMA_RX)) {
        return 0;
    }
    if (act != MLX5_FT_MISS_ACTION_FWD) {
        return MLX5_SYND_FTE_ACTION;
    }
    next = mlx5_cmd_ref(cmd, &c->eth->fts, MLX5_GET(ftc, FTC_table_miss_id));
    if (!next || next->type != type) {
        return MLX5_SYND_BAD_HANDLE;
    }
    return next->level > level ? 0 : MLX5_SYND_FT_LEVEL;
}

/*
 * Where a steering entry goes to continue in table @ft: its root @i if it is
 * software owned, else the firmware table's anchor
 */
static uint64_t mlx5_ft_icm(const Mlx5FlowTable *ft, unsigned i)
{
    return ft->sw_owner ? ft->icm_root[i]
                        : mlx5_icm_term(MLX5_ICM_T_FT, ft->id);
}

void mlx5_cmd_create_flow_table(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ftc = cmd->in + FT_CTX_OFF;
    Mlx5FlowTable *ft;
    uint32_t synd = 0;

    if (!mlx5_cmd_in_ok(cmd, FT_CTX_OFF + 8) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (!mlx5_ft_type_ok(c, cmd)) {
        synd = MLX5_SYND_FT_TYPE;
    } else if (MLX5_GET(ftc, FTC_level) >
               (MLX5_GET(cmd->in, FT_IN_table_type) ==
                        MLX5_FLOW_TABLE_TYPE_FDB
                    ? MLX5_FDB_MAX_FT_LEVEL
                    : MLX5_ETH_MAX_FT_LEVEL)) {
        synd = MLX5_SYND_FT_LEVEL;
    } else if (MLX5_GET(ftc, FTC_log_size) > MLX5_ETH_LOG_MAX_FT_SIZE) {
        synd = MLX5_SYND_BAD_SIZE;
    } else {
        synd = mlx5_ft_check_miss(c, cmd, ftc,
                                  MLX5_GET(cmd->in, FT_IN_table_type),
                                  MLX5_GET(ftc, FTC_level));
    }
    if (!synd && MLX5_GET(ftc, FTC_sw_owner) &&
        (!mlx5_sw_icm_offered(&c->cfg) ||
         (MLX5_GET(cmd->in, FT_IN_table_type) > MLX5_FLOW_TABLE_TYPE_NIC_TX &&
          MLX5_GET(cmd->in, FT_IN_table_type) != MLX5_FLOW_TABLE_TYPE_FDB))) {
        /* (NIC RX 0, NIC TX 1 and the FDB 4 only: mlx5_fdb.c) */
        synd = MLX5_SYND_FT_SW_OWNER;
    }
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    ft = g_new0(Mlx5FlowTable, 1);
    ft->type = MLX5_GET(cmd->in, FT_IN_table_type);
    ft->level = MLX5_GET(ftc, FTC_level);
    ft->log_size = MLX5_GET(ftc, FTC_log_size);
    ft->miss_action = MLX5_GET(ftc, FTC_table_miss_action);
    ft->miss_id = MLX5_GET(ftc, FTC_table_miss_id);
    ft->vport = mlx5_ft_acl(ft->type) ? MLX5_GET(cmd->in, VPORT_IN_vport_number)
                                      : 0;
    /* software owned: its entries are in ICM from the root (mlx5_ste.c) */
    ft->sw_owner = MLX5_GET(ftc, FTC_sw_owner);
    if (ft->sw_owner) {
        ft->icm_root[0] = MLX5_GET64(ftc, FTC_sw_owner_icm_root_0_OFF);
        ft->icm_root[1] = MLX5_GET64(ftc, FTC_sw_owner_icm_root_1_OFF);
    }
    ft->groups = g_ptr_array_new();
    if (mlx5_table_alloc(&c->eth->fts, ft, &ft->id)) {
        g_ptr_array_free(ft->groups, true);
        g_free(ft);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->eth->fts, ft->id);
    MLX5_SET(cmd->out, FT_OUT_table_id, ft->id);
    if (mlx5_sw_icm_offered(&c->cfg)) {
        mlx5_icm_out(cmd->out, mlx5_ft_icm(ft, 0));
    }
    trace_mlx5_eth_ft(ft->id, ft->level, ft->log_size, ft->miss_action,
                      ft->miss_id);
}

void mlx5_cmd_destroy_flow_table(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft = mlx5_ft_in(c, cmd);

    if (ft) {
        /*
         * entries and tables still forwarding here drop what they would send
         * (see steer)
         */
        mlx5_table_remove(&c->eth->fts, ft->id);
        trace_mlx5_obj_destroy("flow table", ft->id);
        mlx5_ft_free(c, ft);
    }
}

void mlx5_cmd_query_flow_table(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft = mlx5_ft_in(c, cmd);
    uint8_t *ftc = cmd->out + FT_CTX_OFF;
    bool sws = mlx5_sw_icm_offered(&c->cfg);

    if (ft && mlx5_cmd_out_ok(cmd, FT_CTX_OFF +
                                       (sws ? FTC_sw_owner_icm_root_0_OFF + 8
                                            : 8))) {
        MLX5_SET(ftc, FTC_level, ft->level);
        MLX5_SET(ftc, FTC_log_size, ft->log_size);
        MLX5_SET(ftc, FTC_table_miss_action, ft->miss_action);
        MLX5_SET(ftc, FTC_table_miss_id, ft->miss_id);
        MLX5_SET(ftc, FTC_sw_owner, ft->sw_owner);
        if (sws) {
            /*
             * a firmware table's ICM anchor: an entry that goes there goes on
             * in the table (rdma-core's destination arrays, samplers)
             */
            MLX5_SET64(ftc, FTC_sw_owner_icm_root_0_OFF, mlx5_ft_icm(ft, 0));
            MLX5_SET64(ftc, FTC_sw_owner_icm_root_1_OFF, mlx5_ft_icm(ft, 1));
        }
    }
}

void mlx5_cmd_modify_flow_table(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft = mlx5_ft_in(c, cmd);
    const uint8_t *ftc = cmd->in + FT_CTX_OFF;
    uint32_t synd;

    if (!ft || !mlx5_cmd_in_ok(cmd, FT_CTX_OFF + 8)) {
        return;
    }
    if (MLX5_GET(cmd->in, MODIFY_FT_modify_field_select) &
        MLX5_FT_MODIFY_MISS_TABLE_ID) {
        synd = mlx5_ft_check_miss(c, cmd, ftc, ft->type, ft->level);
        if (synd) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
            return;
        }
        ft->miss_action = MLX5_GET(ftc, FTC_table_miss_action);
        ft->miss_id = MLX5_GET(ftc, FTC_table_miss_id);
        trace_mlx5_eth_ft(ft->id, ft->level, ft->log_size, ft->miss_action,
                          ft->miss_id);
    }
}

void mlx5_cmd_set_flow_table_root(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft;
    uint32_t id;

    if (!mlx5_cmd_in_ok(cmd, 0x18)) {
        return;
    }
    id = MLX5_GET(cmd->in, FT_IN_table_id);
    if (!mlx5_ft_type_ok(c, cmd)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FT_TYPE);
        return;
    }
    ft = id ? mlx5_ft_get(c, id) : NULL;
    if (id && (!ft || ft->type != MLX5_GET(cmd->in, FT_IN_table_type) ||
               (mlx5_ft_acl(ft->type) &&
                ft->vport != MLX5_GET(cmd->in, VPORT_IN_vport_number)))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (mlx5_ft_acl(MLX5_GET(cmd->in, FT_IN_table_type))) {
        mlx5_esw_acl_root(c, MLX5_GET(cmd->in, VPORT_IN_vport_number),
                          MLX5_GET(cmd->in, FT_IN_table_type) ==
                              MLX5_FLOW_TABLE_TYPE_ESW_EGRESS_ACL,
                          id);
    } else if (MLX5_GET(cmd->in, FT_IN_table_type) ==
               MLX5_FLOW_TABLE_TYPE_NIC_TX) {
        c->eth->root_ft_tx = id;
    } else if (MLX5_GET(cmd->in, FT_IN_table_type) ==
               MLX5_FLOW_TABLE_TYPE_FDB) {
        c->eth->root_ft_fdb = id;
    } else if (MLX5_GET(cmd->in, FT_IN_table_type) ==
               MLX5_FLOW_TABLE_TYPE_RDMA_RX) {
        c->eth->root_ft_rdma = id;
    } else {
        c->eth->root_ft = id;
    }
    trace_mlx5_eth_ft_root(id);
}

/* ---- groups -------------------------------------------------------------- */

static gint mlx5_fg_cmp(gconstpointer a, gconstpointer b)
{
    const Mlx5FlowGroup *x = *(Mlx5FlowGroup *const *)a,
                        *y = *(Mlx5FlowGroup *const *)b;

    return x->start < y->start ? -1 : x->start > y->start;
}

void mlx5_cmd_create_flow_group(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft = mlx5_ft_in(c, cmd);
    uint32_t start, end;
    Mlx5FlowGroup *fg;
    guint i;

    if (!ft ||
        !mlx5_cmd_in_ok(cmd, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (ft->sw_owner) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FT_SW_OWNER);
        return;
    }
    start = MLX5_GET(cmd->in, FG_IN_start_flow_index);
    end = MLX5_GET(cmd->in, FG_IN_end_flow_index);
    if (start > end || end >= (1u << ft->log_size)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FG_RANGE);
        return;
    }
    for (i = 0; i < ft->groups->len; i++) {
        Mlx5FlowGroup *o = g_ptr_array_index(ft->groups, i);
        if (start <= o->end && o->start <= end) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FG_RANGE);
            return;
        }
    }
    fg = g_new0(Mlx5FlowGroup, 1);
    fg->table_id = ft->id;
    fg->start = start;
    fg->end = end;
    fg->criteria_enable = MLX5_GET(cmd->in, FG_IN_match_criteria_enable);
    memcpy(fg->criteria, cmd->in + FG_IN_criteria_OFF,
           MLX5_FTE_MATCH_PARAM_SIZE);
    fg->ftes = g_ptr_array_new();
    if (mlx5_table_alloc(&c->eth->fgs, fg, &fg->id)) {
        g_ptr_array_free(fg->ftes, true);
        g_free(fg);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    g_ptr_array_add(ft->groups, fg);
    g_ptr_array_sort(ft->groups, mlx5_fg_cmp);
    MLX5_SET(cmd->out, FG_OUT_group_id, fg->id);
    trace_mlx5_eth_fg(ft->id, fg->id, start, end, fg->criteria_enable);
}

void mlx5_cmd_destroy_flow_group(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft = mlx5_ft_in(c, cmd);
    Mlx5FlowGroup *fg;

    if (!ft || !mlx5_cmd_in_ok(cmd, 0x1c)) {
        return;
    }
    fg = mlx5_table_get(&c->eth->fgs, MLX5_GET(cmd->in, FG_IN_group_id));
    if (!fg || fg->table_id != ft->id) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    mlx5_table_remove(&c->eth->fgs, fg->id);
    trace_mlx5_obj_destroy("flow group", fg->id);
    mlx5_fg_free(c, fg);
}

/* ---- entries ------------------------------------------------------------- */

static Mlx5FlowGroup *mlx5_fg_of(Mlx5FlowTable *ft, uint32_t index)
{
    guint i;

    for (i = 0; i < ft->groups->len; i++) {
        Mlx5FlowGroup *fg = g_ptr_array_index(ft->groups, i);
        if (index >= fg->start && index <= fg->end) {
            return fg;
        }
    }
    return NULL;
}

static Mlx5Fte *mlx5_fte_at(Mlx5FlowGroup *fg, uint32_t index, guint *pos)
{
    guint i;

    for (i = 0; i < fg->ftes->len; i++) {
        Mlx5Fte *fte = g_ptr_array_index(fg->ftes, i);
        if (fte->index == index) {
            *pos = i;
            return fte;
        }
    }
    return NULL;
}

/*
 * Do an entry's action and lists agree: destinations with FWD_DEST only,
 * counters with COUNT only?
 */
static bool mlx5_fte_consistent(uint16_t action, uint32_t ndest, uint32_t ncnt)
{
    return !(action & MLX5_FLOW_CONTEXT_ACTION_FWD_DEST) == !ndest &&
           !(action & MLX5_FLOW_CONTEXT_ACTION_COUNT) == !ncnt;
}

/*
 * Decode and check an entry's flow context. Returns a syndrome or 0; on 0 the
 * entry holds a reference to each counter it names and to its modify-header
 * context.
 */
static uint32_t mlx5_fte_load(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5FlowTable *ft,
                              Mlx5Fte *fte)
{
    const uint8_t *fc = cmd->in + FTE_CTX_OFF;
    uint32_t ndest = MLX5_GET(fc, FC_destination_list_size);
    uint32_t ncnt = MLX5_GET(fc, FC_flow_counter_list_size);
    bool fdb = ft->type == MLX5_FLOW_TABLE_TYPE_FDB ||
               ft->type == MLX5_FLOW_TABLE_TYPE_RDMA_RX ||
               mlx5_ft_acl(ft->type);
    /*
     * DECAP on receive and in the FDB; the FDB forwards, drops, counts,
     * decaps, pops and pushes one or two VLAN tags and encaps (the FDB caps'
     * reformat, decap, pop_vlan[_2], push_vlan[_2]: TC's actions; a second
     * tag's action only with the first's), an ACL and an RDMA RX table
     * allow, drop, count and go on in another table; the FDB and an ingress
     * ACL write metadata registers (MOD_HDR)
     */
    uint16_t known = MLX5_FLOW_CONTEXT_ACTION_ALLOW |
                     MLX5_FLOW_CONTEXT_ACTION_DROP |
                     MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
                     MLX5_FLOW_CONTEXT_ACTION_COUNT |
                     (fdb ? 0
                          : MLX5_FLOW_CONTEXT_ACTION_MOD_HDR |
                                MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT) |
                     /* (register writes: the vport's metadata) */
                     (ft->type == MLX5_FLOW_TABLE_TYPE_FDB ||
                              ft->type == MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL
                          ? MLX5_FLOW_CONTEXT_ACTION_MOD_HDR
                          : 0) |
                     (ft->type == MLX5_FLOW_TABLE_TYPE_FDB
                          ? MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT |
                                MLX5_FLOW_CONTEXT_ACTION_VLAN_POP |
                                MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH |
                                MLX5_FLOW_CONTEXT_ACTION_VLAN_POP_2 |
                                MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH_2
                          : 0) |
                     (ft->type == MLX5_FLOW_TABLE_TYPE_NIC_RX ||
                              ft->type == MLX5_FLOW_TABLE_TYPE_FDB
                          ? MLX5_FLOW_CONTEXT_ACTION_DECAP
                          : 0);
    uint32_t i;

    fte->group_id = MLX5_GET(fc, FC_group_id);
    fte->flow_tag = MLX5_GET(fc, FC_flow_tag);
    fte->action = MLX5_GET(fc, FC_action);
    fte->push_vlan = MLX5_GET(fc, FC_push_vlan);
    fte->push_vlan_2 = MLX5_GET(fc, FC_push_vlan_2);
    /* (which side of the FDB: honoured there, ignored elsewhere) */
    fte->flow_source = MLX5_GET(fc, FC_flow_source);
    memcpy(fte->value, fc + FC_match_value_OFF, MLX5_FTE_MATCH_PARAM_SIZE);
    if ((fte->action & ~known) || ndest > MLX5_ETH_MAX_DEST ||
        ((fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_POP_2) &&
         !(fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_POP)) ||
        ((fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH_2) &&
         !(fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH)) ||
        fte->flow_source > MLX5_FLOW_SOURCE_LOCAL_VPORT ||
        ncnt > MLX5_ETH_FTE_COUNTERS ||
        !mlx5_fte_consistent(fte->action, ndest, ncnt)) {
        return MLX5_SYND_FTE_ACTION;
    }
    /* the destinations, then the counters, 8 bytes each */
    if (!mlx5_cmd_in_ok(cmd, FTE_CTX_OFF + FC_dest_OFF + 8 * (ndest + ncnt))) {
        return MLX5_SYND_INLEN;
    }
    for (i = 0; i < ndest; i++) {
        const uint8_t *d = fc + FC_dest_OFF + 8 * i;
        uint8_t type = MLX5_GET(d, DEST_type);
        uint32_t id = MLX5_GET(d, DEST_id);

        if (type == MLX5_FLOW_DEST_TYPE_TIR &&
            ft->type == MLX5_FLOW_TABLE_TYPE_NIC_RX) {
            if (!mlx5_cmd_ref(cmd, &c->eth->tirs, id)) {
                return MLX5_SYND_BAD_HANDLE;
            }
        } else if (type == MLX5_FLOW_DEST_TYPE_VPORT &&
                   ft->type == MLX5_FLOW_TABLE_TYPE_FDB) {
            /* a function of the manager's, or the uplink */
            if (id != MLX5_VPORT_UPLINK && id > c->cfg.num_vfs) {
                return MLX5_SYND_BAD_PORT;
            }
        } else if (type == MLX5_FLOW_DEST_TYPE_FLOW_TABLE) {
            Mlx5FlowTable *next = mlx5_cmd_ref(cmd, &c->eth->fts, id);
            if (!next || next->type != ft->type) {
                return MLX5_SYND_BAD_HANDLE;
            }
            if (next->level <= ft->level) {
                return MLX5_SYND_FT_LEVEL;
            }
        } else {
            return MLX5_SYND_FTE_ACTION;
        }
        fte->dest[i].type = type;
        fte->dest[i].id = id;
    }
    for (i = 0; i < ncnt; i++) {
        fte->cnt[i] = mlx5_ld32(fc + FC_dest_OFF + 8 * (ndest + i));
        if (!mlx5_fc_ref(c, fte->cnt[i])) {
            mlx5_fte_put_counters(c, fte);
            return MLX5_SYND_BAD_HANDLE;
        }
        fte->ncnt = i + 1;
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_MOD_HDR) {
        fte->modhdr = MLX5_GET(fc, FC_modify_header_id);
        if (!mlx5_modhdr_ref(c, fte->modhdr, ft->type)) {
            mlx5_fte_put_counters(c, fte);
            return MLX5_SYND_BAD_HANDLE;
        }
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT) {
        Mlx5Reformat *rf;

        fte->reformat = MLX5_GET(fc, FC_packet_reformat_id);
        rf = mlx5_table_get(&c->eth->reformats, fte->reformat);
        /*
         * (an L3 tunnel's decap only where frames arrive; the FDB's encaps
         * are L2 tunnels: no reformat_l2_to_l3_tunnel there)
         */
        if (!rf || (rf->type == MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2 &&
                    ft->type != MLX5_FLOW_TABLE_TYPE_NIC_RX) ||
            (rf->type == MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL &&
             ft->type == MLX5_FLOW_TABLE_TYPE_FDB) ||
            !mlx5_reformat_ref(c, fte->reformat)) {
            mlx5_fte_put_counters(c, fte);
            if (fte->action & MLX5_FLOW_CONTEXT_ACTION_MOD_HDR) {
                mlx5_modhdr_put(c, fte->modhdr);
            }
            return MLX5_SYND_BAD_HANDLE;
        }
    }
    fte->ndest = ndest;
    return 0;
}

/*
 * SET_FLOW_TABLE_ENTRY op_mod 1: what of an entry modify_enable_mask lets an
 * update replace
 */
enum {
    MLX5_FTE_MODIFY_ACTION = 1 << 0,
    MLX5_FTE_MODIFY_FLOW_TAG = 1 << 1,
    MLX5_FTE_MODIFY_DEST = 1 << 2,
    MLX5_FTE_MODIFY_COUNTERS = 1 << 3,
};

/*
 * An update (flow_modify_en): the entry at the index keeps its group and match
 * value and takes the action, flow tag and destinations the mask names from the
 * new context, which must be valid as a whole.
 */
static uint32_t mlx5_fte_update(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5FlowTable *ft,
                                Mlx5Fte *fte)
{
    uint8_t mask = MLX5_GET(cmd->in, FTE_IN_modify_enable_mask);
    g_autofree Mlx5Fte *n = g_new0(Mlx5Fte, 1);
    uint32_t synd;

    if (mask & ~(MLX5_FTE_MODIFY_ACTION | MLX5_FTE_MODIFY_FLOW_TAG |
                 MLX5_FTE_MODIFY_DEST | MLX5_FTE_MODIFY_COUNTERS)) {
        return MLX5_SYND_FTE_ACTION;
    }
    n->index = fte->index;
    synd = mlx5_fte_load(c, cmd, ft, n);
    if (synd) {
        return synd;
    }
    /* what the entry becomes, committed only if it is whole */
    if (!(mask & MLX5_FTE_MODIFY_ACTION)) {
        /* (the new context's modify header and reformat were only checked) */
        mlx5_fte_put_ctx(c, n);
        n->action = fte->action;
        n->modhdr = fte->modhdr;
        n->reformat = fte->reformat;
    }
    if (!(mask & MLX5_FTE_MODIFY_FLOW_TAG)) {
        n->flow_tag = fte->flow_tag;
    }
    if (!(mask & MLX5_FTE_MODIFY_DEST)) {
        memcpy(n->dest, fte->dest, sizeof(n->dest));
        n->ndest = fte->ndest;
    }
    if (!(mask & MLX5_FTE_MODIFY_COUNTERS)) {
        /* (the new context's counters were only checked) */
        mlx5_fte_put_counters(c, n);
        memcpy(n->cnt, fte->cnt, sizeof(n->cnt));
        n->ncnt = fte->ncnt;
        if (!mlx5_fte_consistent(n->action, n->ndest, n->ncnt)) {
            goto bad;
        }
    } else if (!mlx5_fte_consistent(n->action, n->ndest, n->ncnt)) {
        mlx5_fte_put_counters(c, n);
        goto bad;
    } else {
        mlx5_fte_put_counters(c, fte);
    }
    if (mask & MLX5_FTE_MODIFY_ACTION) {
        mlx5_fte_put_ctx(c, fte);
    }
    fte->modhdr = n->modhdr;
    fte->reformat = n->reformat;
    fte->action = n->action;
    fte->flow_tag = n->flow_tag;
    memcpy(fte->dest, n->dest, sizeof(fte->dest));
    fte->ndest = n->ndest;
    memcpy(fte->cnt, n->cnt, sizeof(fte->cnt));
    fte->ncnt = n->ncnt;
    return 0;

bad:
    if (mask & MLX5_FTE_MODIFY_ACTION) {
        mlx5_fte_put_ctx(c, n);
    }
    return MLX5_SYND_FTE_ACTION;
}

void mlx5_cmd_set_fte(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft = mlx5_ft_in(c, cmd);
    Mlx5FlowGroup *fg;
    Mlx5Fte *fte, *old;
    uint32_t index, synd;
    guint pos;

    if (!ft || !mlx5_cmd_in_ok(cmd, FTE_CTX_OFF + FC_dest_OFF)) {
        return;
    }
    if (cmd->op_mod > 1) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
    index = MLX5_GET(cmd->in, FTE_IN_flow_index);
    fg = mlx5_fg_of(ft, index);
    if (!fg || fg->id != MLX5_GET(cmd->in + FTE_CTX_OFF, FC_group_id)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FTE_INDEX);
        return;
    }
    old = mlx5_fte_at(fg, index, &pos);
    if (cmd->op_mod == 1) {
        /* update in place: the entry must exist */
        synd = old ? mlx5_fte_update(c, cmd, ft, old) : MLX5_SYND_FTE_INDEX;
        if (synd) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
            return;
        }
        trace_mlx5_eth_fte(ft->id, index, old->action, old->flow_source,
                           old->ndest ? old->dest[0].type : 0,
                           old->ndest ? old->dest[0].id : 0, old->ndest);
        return;
    }
    if (old) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FTE_EXISTS);
        return;
    }
    if (c->eth->nftes >= MLX5_ETH_MAX_FTES) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_FTE_LIMIT);
        return;
    }
    fte = g_new0(Mlx5Fte, 1);
    fte->index = index;
    synd = mlx5_fte_load(c, cmd, ft, fte);
    if (synd) {
        g_free(fte);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    g_ptr_array_add(fg->ftes, fte);
    c->eth->nftes++;
    trace_mlx5_eth_fte(ft->id, index, fte->action, fte->flow_source,
                       fte->ndest ? fte->dest[0].type : 0,
                       fte->ndest ? fte->dest[0].id : 0, fte->ndest);
}

void mlx5_cmd_delete_fte(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5FlowTable *ft = mlx5_ft_in(c, cmd);
    Mlx5FlowGroup *fg;
    Mlx5Fte *fte = NULL;
    uint32_t index;
    guint pos;

    if (!ft || !mlx5_cmd_in_ok(cmd, 0x24)) {
        return;
    }
    index = MLX5_GET(cmd->in, FTE_IN_flow_index);
    fg = mlx5_fg_of(ft, index);
    if (fg) {
        fte = mlx5_fte_at(fg, index, &pos);
    }
    if (!fte) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FTE_INDEX);
        return;
    }
    g_ptr_array_remove_index_fast(fg->ftes, pos);
    mlx5_fte_free(c, fte);
    trace_mlx5_obj_destroy("flow entry", index);
}

/* ---- lookup -------------------------------------------------------------- */

/* Does @value match the frame's match parameters @ms under @fg's criteria? */
static bool mlx5_fte_match(const Mlx5FlowGroup *fg, const uint8_t *value,
                           const uint8_t *ms)
{
    unsigned sec, i;

    for (sec = 0; sec < MLX5_FTE_MATCH_PARAM_SIZE / MLX5_FTE_MATCH_SET_SIZE;
         sec++) {
        if (!(fg->criteria_enable & (1u << sec))) {
            continue;
        }
        for (i = sec * MLX5_FTE_MATCH_SET_SIZE;
             i < (sec + 1) * MLX5_FTE_MATCH_SET_SIZE; i++) {
            if ((value[i] ^ ms[i]) & fg->criteria[i]) {
                return false;
            }
        }
    }
    return true;
}

/*
 * Is entry @fte for the side its frame came in on (an FDB entry's flow_source:
 * @side, MLX5_FLOW_SOURCE_UPLINK or _LOCAL_VPORT; elsewhere ANY)?
 */
static bool mlx5_fte_source_ok(const Mlx5Fte *fte, unsigned side)
{
    return side == MLX5_FLOW_SOURCE_ANY ||
           fte->flow_source == MLX5_FLOW_SOURCE_ANY ||
           fte->flow_source == side;
}

const Mlx5Fte *mlx5_ft_lookup(const Mlx5FlowTable *ft, const uint8_t *ms)
{
    unsigned side = ft->type != MLX5_FLOW_TABLE_TYPE_FDB ? MLX5_FLOW_SOURCE_ANY
                    : mlx5_ld16(ms + MS_MISC_source_port_OFF) ==
                            MLX5_VPORT_UPLINK
                        ? MLX5_FLOW_SOURCE_UPLINK
                        : MLX5_FLOW_SOURCE_LOCAL_VPORT;
    guint g, i;

    for (g = 0; g < ft->groups->len; g++) {
        const Mlx5FlowGroup *fg = g_ptr_array_index(ft->groups, g);
        for (i = 0; i < fg->ftes->len; i++) {
            const Mlx5Fte *fte = g_ptr_array_index(fg->ftes, i);
            if (mlx5_fte_source_ok(fte, side) &&
                mlx5_fte_match(fg, fte->value, ms)) {
                return fte;
            }
        }
    }
    return NULL;
}

const Mlx5Fte *mlx5_ft_hit(Mlx5Core *c, Mlx5FlowTable **ft, const uint8_t *ms,
                           size_t len)
{
    const Mlx5Fte *fte = mlx5_ft_lookup(*ft, ms);
    unsigned i;

    if (!fte) {
        trace_mlx5_eth_steer((*ft)->id, UINT32_MAX, (*ft)->miss_action);
        *ft = (*ft)->miss_action == MLX5_FT_MISS_ACTION_FWD
                  ? mlx5_ft_get(c, (*ft)->miss_id)
                  : NULL;
        return NULL;
    }
    trace_mlx5_eth_steer((*ft)->id, fte->index, fte->action);
    for (i = 0; i < fte->ncnt; i++) {
        mlx5_fc_count(c, fte->cnt[i], len);
    }
    return fte;
}

Mlx5FlowTable *mlx5_fte_next_table(Mlx5Core *c, const Mlx5Fte *fte)
{
    unsigned i;

    for (i = 0; i < fte->ndest; i++) {
        if (fte->dest[i].type == MLX5_FLOW_DEST_TYPE_FLOW_TABLE) {
            return mlx5_ft_get(c, fte->dest[i].id);
        }
    }
    return NULL;
}

unsigned mlx5_fte_ops(const Mlx5Fte *fte, bool *encapped, uint32_t *ops)
{
    unsigned n = 0;

    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DECAP) {
        ops[n++] = MLX5_STEER_OP_DECAP;
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_MOD_HDR) {
        ops[n++] = fte->modhdr;
    }
    /* one header in front at most: the buffers have room for one */
    if ((fte->action & MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT) &&
        !*encapped) {
        ops[n++] = MLX5_STEER_OP_ENCAP | fte->reformat;
        *encapped = true;
    }
    return n;
}

/*
 * Steer frame @f from the root table. Fills @hits with the TIRs it reaches (a
 * copy to each; at most MLX5_ETH_MAX_DEST) and returns their number; 0 =
 * dropped. An entry forwarding to TIRs and a table (a "don't trap" rule) gives
 * the frame to those TIRs and goes on in that table; with several tables among
 * the destinations, the first is followed. An entry's DECAP, then its
 * MOD_HDR, then its PACKET_REFORMAT (a header in front, once per frame) apply
 * to its own destinations and to what follows, and later tables match on the
 * frame as it is then.
 */
void mlx5_ms_regc(uint8_t *ms, const uint32_t *regc, uint8_t which)
{
    if (which & 1) {
        mlx5_st32(ms + MS_MISC2_reg_c_0_OFF, regc[0]);
    }
    if (which & 2) {
        mlx5_st32(ms + MS_MISC2_reg_c_1_OFF, regc[1]);
    }
}

void mlx5_sw_meta_ms(const Mlx5Core *c, const Mlx5SwMeta *m, uint8_t *ms)
{
    mlx5_st16(ms + MS_MISC_source_port_OFF, m->src);
    mlx5_ms_regc(ms, m->regc, c->esw_regc_pass);
}

/*
 * A copy of the frame to TIR @tirn: with the ops that got it there, or (@w:
 * software steering rewrote it) as it is now
 */
static void mlx5_flow_hit(Mlx5Core *c, Mlx5SteerHit *hits, unsigned *n,
                          uint32_t tirn, const uint32_t *ops, unsigned nops,
                          const uint8_t *w, size_t len)
{
    Mlx5SteerHit *hit = &hits[*n];

    if (*n >= MLX5_ETH_MAX_DEST) {
        return;
    }
    /* a destroyed TIR takes nothing */
    hit->tir = mlx5_table_get(&c->eth->tirs, tirn);
    if (!hit->tir) {
        return;
    }
    hit->nops = w ? 0 : nops;
    memcpy(hit->ops, ops, sizeof(ops[0]) * hit->nops);
    hit->frame = w ? g_memdup2(w, len) : NULL;
    hit->len = len;
    (*n)++;
}

unsigned mlx5_flow_steer(Mlx5Core *c, const uint8_t *f, size_t len,
                         const IbEthHdr *h, const Mlx5SwMeta *m,
                         Mlx5SteerHit *hits, uint32_t *flow_tag)
{
    Mlx5Eth *e = c->eth;
    Mlx5FlowTable *ft = mlx5_ft_get(c, e->root_ft);
    uint8_t ms[MLX5_FTE_MATCH_PARAM_SIZE];
    g_autofree uint8_t *w = NULL;       /* the frame as transformed so far */
    uint32_t ops[MLX5_ETH_STEER_OPS], eops[MLX5_FTE_OPS];
    unsigned hops, n = 0, nops = 0, i, k, ne;
    bool encapped = false, sw_rewrote = false;
    IbEthHdr wh = *h;

    *flow_tag = 0;
    mlx5_eth_match_set(e, f, len, h, ms);
    mlx5_sw_meta_ms(c, m, ms);
    for (hops = 0; ft && hops < MLX5_ETH_MAX_HOPS; hops++) {
        const Mlx5Fte *fte;
        Mlx5FlowTable *next = NULL;

        if (ft->sw_owner) {
            /* its entries in ICM: a TIR, a firmware table, or a drop */
            Mlx5SteResult r;
            Mlx5SteFrame fr;

            if (!w) {
                w = g_malloc(MLX5_ETH_RX_ROOM);
                memcpy(w, f, len);
            }
            fr = (Mlx5SteFrame) {
                .f = w, .len = len, .room = MLX5_ETH_RX_ROOM, .h = &wh,
                .ms = ms, .encapped = encapped,
                .uid = mlx5_table_owner(&e->fts, ft->id),
            };
            mlx5_ste_walk(c, ft->icm_root[0], &fr, &r);
            len = fr.len;
            encapped = fr.encapped;
            sw_rewrote |= r.rewritten;
            if (r.flow_tag) {
                *flow_tag = r.flow_tag;
            }
            if (r.kind == MLX5_ICM_T_TIR) {
                mlx5_flow_hit(c, hits, &n, r.id, ops, nops,
                              sw_rewrote ? w : NULL, len);
            }
            if (r.kind == MLX5_ICM_T_SAMPLER) {
                /* a sampled frame to the sample table's TIRs; all on */
                Mlx5FlowTable *st;

                next = mlx5_sampler_take(c, r.id, &st);
                fte = st ? mlx5_ft_hit(c, &st, ms, len) : NULL;
                for (i = 0; fte && i < fte->ndest; i++) {
                    if (fte->dest[i].type == MLX5_FLOW_DEST_TYPE_TIR) {
                        mlx5_flow_hit(c, hits, &n, fte->dest[i].id, ops, nops,
                                      sw_rewrote ? w : NULL, len);
                    }
                }
                ft = next && next->type == ft->type ? next : NULL;
                continue;
            }
            next = r.kind == MLX5_ICM_T_FT ? mlx5_ft_get(c, r.id)
                   : r.kind == MLX5_ICM_T_METER
                       ? mlx5_meter_take(c, r.id, len, ms)
                       : NULL;
            ft = next && next->type == ft->type ? next : NULL;
            continue;
        }
        fte = mlx5_ft_hit(c, &ft, ms, len);
        if (!fte) {
            continue;           /* (ft is the miss table, or NULL) */
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
            return n;
        }
        if (fte->flow_tag) {
            *flow_tag = fte->flow_tag;
        }
        ne = mlx5_fte_ops(fte, &encapped, eops);
        for (k = 0; k < ne && nops < MLX5_ETH_STEER_OPS; k++) {
            if (!w) {
                w = g_malloc(MLX5_ETH_RX_ROOM);
                memcpy(w, f, len);
            }
            ops[nops++] = eops[k];
            mlx5_eth_transform(c, eops[k], w, &len, &wh);
        }
        if (k) {
            mlx5_eth_match_set(e, w, len, &wh, ms);
            mlx5_sw_meta_ms(c, m, ms);
        }
        for (i = 0; i < fte->ndest; i++) {
            if (fte->dest[i].type != MLX5_FLOW_DEST_TYPE_TIR) {
                next = next ? next : mlx5_ft_get(c, fte->dest[i].id);
            } else {
                mlx5_flow_hit(c, hits, &n, fte->dest[i].id, ops, nops,
                              sw_rewrote ? w : NULL, len);
            }
        }
        ft = next;
    }
    return n;
}

bool mlx5_flow_rdma_rx(Mlx5Core *c, const uint8_t *f, size_t len,
                       const IbEthHdr *h, const Mlx5SwMeta *m)
{
    Mlx5FlowTable *ft = mlx5_ft_get(c, c->eth->root_ft_rdma);
    uint8_t ms[MLX5_FTE_MATCH_PARAM_SIZE];
    unsigned hops;

    if (!c->eth->root_ft_rdma) {
        return true;
    }
    mlx5_eth_match_set(c->eth, f, len, h, ms);
    mlx5_sw_meta_ms(c, m, ms);
    for (hops = 0; ft && hops < MLX5_ETH_MAX_HOPS; hops++) {
        const Mlx5Fte *fte = mlx5_ft_hit(c, &ft, ms, len);

        if (!fte) {
            continue;           /* (ft is the miss table, or NULL) */
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
            return false;
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_ALLOW) {
            return true;
        }
        ft = mlx5_fte_next_table(c, fte);
    }
    /* a miss (to the switch domain, or none) */
    return false;
}
