/*
 * mlx5 HCA core: the embedded switch between a PF, its VFs and the PF's link.
 *
 * While a VF of an Ethernet port is enabled, every frame a function sends
 * (its NIC SQs and its RoCE transport) and every frame from the link goes
 * through here. This is the switch firmware runs when no E-Switch manager has
 * programmed an FDB: a frame to a function's address (its permanent address
 * or an entry of its vport's unicast list) goes to that function only, a
 * multicast or broadcast frame to every function but its source and to the
 * link, anything else from a function to the link and from the link to the
 * PF (whose NIC tables decide, as with no VFs). A frame never returns to its
 * source. A frame between two functions is copied into the receiver's queue
 * (at most MLX5_ESW_RXQ_MAX; more are dropped, as by a switch port's buffer)
 * and taken at the receiver's next run, so no function runs inside another.
 *
 * With esw_manager (the PF is the E-Switch manager, as a ConnectX-5's), its
 * driver programs the switch instead, as mlx5_core's legacy mode does: FDB
 * flow tables (table type 4; their entries forward to vports, the uplink
 * 0xffff among them, matching the frame's headers and its source vport), the
 * vports' admin state (MODIFY_VPORT_STATE op_mod 1: a VF's link), the L2
 * table (accepted; with one host it steers nothing), and NIC_VPORT_CHANGE
 * events when an armed vport changes its address lists, promiscuity or MTU.
 * Once the driver set an FDB root, every frame takes it: to the vports its
 * entries name (never back to its source), or on a miss, from a function to
 * the link, from the link nowhere.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

#define MLX5_ESW_RXQ_MAX    256
/* the FDB's limits (its cap page) */
#define MLX5_ESW_LOG_MAX_FT_SIZE 20
#define MLX5_ESW_MAX_FT_LEVEL    63
#define MLX5_ESW_LOG_MAX_ACL     8
/* an L2 table index beyond the table */
#define MLX5_SYND_ESW_L2_INDEX   0x30000060
/* an E-Switch vport context field the caps do not offer */
#define MLX5_SYND_ESW_VPORT_FIELD 0x30000061
/* the registers the FDB can pass on to a vport: reg_c_0 */
#define MLX5_ESW_REG_C_PASS 0x1
/* frames taken from the queue per run */
#define MLX5_ESW_RX_BUDGET  64
/* a switched frame's room beyond its length: a tag, or an encap header */
#define MLX5_ESW_ROOM       256
/* what a queued frame carries in front: its Mlx5SwMeta */
#define MLX5_ESW_META       sizeof(Mlx5SwMeta)

/* ---- the E-Switch manager ------------------------------------------------ */

bool mlx5_esw_manager_cfg(const Mlx5CoreConfig *cfg)
{
    return cfg->esw_manager && cfg->eth && !cfg->vf && cfg->num_vfs;
}

/* The E-Switch's cap pages (a manager's; all zero otherwise). */
void mlx5_esw_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap)
{
    if (!mlx5_esw_manager_cfg(cfg)) {
        return;
    }
    if (type == MLX5_CAP_ESWITCH_FLOW_TABLE) {
        /*
         * the FDB's properties (at the NIC RX properties' place of the flow
         * table page): tables to level 255 (switchdev's reach 188), 2^16
         * entries, entry updates and root changes
         */
        MLX5_SET(cap, FT_CAP_nic_rx_ft_support, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_flow_modify_en, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_modify_root, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_ft_size, MLX5_ESW_LOG_MAX_FT_SIZE);
        MLX5_SET(cap, FT_CAP_nic_rx_max_ft_level, MLX5_FDB_MAX_FT_LEVEL);
        /*
         * TC's header actions, as a ConnectX-5 (ASAP2: VXLAN/GRE encap and
         * decap, VLAN push and pop) offers them in the FDB: L2 tunnel
         * reformat and decap (mlx5_core's encap mode "basic"), one or two
         * VLAN tags popped or pushed (6.12's TC asks for the second tag's
         * actions even for one), VXLAN's VNI matched; in firmware entries
         * (mlx5_fdb.c) and in software ones (the STE actions and lookups)
         */
        MLX5_SET(cap, FT_CAP_nic_rx_reformat, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_decap, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_pop_vlan, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_push_vlan, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_pop_vlan_2, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_push_vlan_2, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_outer_vxlan_vni, 1);
        /*
         * an entry may say which side's frames it is for (flow_source: from
         * the uplink, or from the functions): a firmware entry then matches
         * only those, software steering builds it on that side's root only
         */
        MLX5_SET(cap, ESW_FT_CAP_flow_source, 1);
        /* each VF vport's ingress and egress ACL (spoof check) */
        MLX5_SET(cap, ESW_FT_CAP_acl_in_ft_support, 1);
        MLX5_SET(cap, ESW_FT_CAP_acl_in_log_max_ft_size, MLX5_ESW_LOG_MAX_ACL);
        MLX5_SET(cap, ESW_FT_CAP_acl_in_max_ft_level, MLX5_ESW_MAX_FT_LEVEL);
        MLX5_SET(cap, ESW_FT_CAP_acl_out_ft_support, 1);
        MLX5_SET(cap, ESW_FT_CAP_acl_out_log_max_ft_size, MLX5_ESW_LOG_MAX_ACL);
        MLX5_SET(cap, ESW_FT_CAP_acl_out_max_ft_level, MLX5_ESW_MAX_FT_LEVEL);
        /*
         * register writes (modify-header contexts of their own) in the FDB
         * and the ingress ACLs
         */
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_modify_header_context,
                 MLX5_ETH_LOG_MAX_MODHDR);
        MLX5_SET(cap, FT_CAP_nic_rx_max_modify_header_actions,
                 MLX5_MODHDR_MAX_ACTIONS);
        MLX5_SET(cap, ESW_FT_CAP_acl_in_log_max_modify_header_context,
                 MLX5_ETH_LOG_MAX_MODHDR);
        MLX5_SET(cap, ESW_FT_CAP_acl_in_max_modify_header_actions,
                 MLX5_MODHDR_MAX_ACTIONS);
        /* reg_c_0 reaches the vport a frame goes to (its receive tables) */
        MLX5_SET(cap, ESW_FT_CAP_fdb_to_vport_reg_c_id, MLX5_ESW_REG_C_PASS);
        /* software owned as the NIC tables (mlx5_fdb.c) */
        mlx5_fdb_caps(cfg, cap);
    }
    if (type == MLX5_CAP_ESWITCH) {
        /*
         * a vport's C-VLAN strip and insert-if-untagged (VST, as a
         * ConnectX-5: mlx5_core's legacy mode sets them in the vport's
         * E-Switch context and drops tagged frames in its ingress ACL);
         * no insert-always or overwrite, no S-VLAN, no merged E-Switch
         */
        MLX5_SET(cap, ESW_CAP_vport_cvlan_strip, 1);
        MLX5_SET(cap, ESW_CAP_vport_cvlan_insert_if_not_exist, 1);
        /*
         * the uplink's vport has an ingress ACL: with the FDB passing reg_c_0
         * on to a vport, mlx5_core's offloads mode tags every frame with its
         * source vport's metadata there (vport metadata matching)
         */
        MLX5_SET(cap, ESW_CAP_esw_uplink_ingress_acl, 1);
        /*
         * VXLAN encap and decap in the FDB (TC's tunnel_key), with the
         * packet reformat contexts' limits of the NIC tables (mlx5_core
         * checks an FDB encap header against this max_encap_header_size)
         */
        MLX5_SET(cap, ESW_CAP_vxlan_encap_decap, 1);
        MLX5_SET(cap, ESW_CAP_log_max_packet_reformat_context,
                 MLX5_ETH_LOG_MAX_REFORMAT);
        MLX5_SET(cap, ESW_CAP_max_encap_header_size, MLX5_ETH_MAX_ENCAP_HDR);
    }
}

uint16_t mlx5_esw_vport_of(const Mlx5Core *c)
{
    return c->cfg.vf ? c->vf_index + 1 : 0;
}

Mlx5Core *mlx5_esw_function(Mlx5Core *pf, unsigned n)
{
    /* (no VFs array: the PF's teardown) */
    return n == 0                           ? pf
           : n <= pf->cfg.num_vfs && pf->vfs ? pf->vfs[n - 1]
                                             : NULL;
}

void mlx5_esw_vport_changed(Mlx5Core *c, uint8_t what)
{
    Mlx5Core *pf = c->cfg.vf ? c->pf : c;
    uint8_t data[28] = { 0 };
    uint16_t n = mlx5_esw_vport_of(c);

    if (!(c->vport_arm & what) || !pf ||
        !mlx5_esw_manager_cfg(&pf->cfg)) {
        return;
    }
    c->vport_arm = 0;           /* one shot: the manager arms it again */
    mlx5_st16(data + 2, n);
    trace_mlx5_esw_vport_event(n, what);
    mlx5_eq_post_async(pf, MLX5_EVENT_TYPE_NIC_VPORT_CHANGE, 0, data,
                       sizeof(data));
}

/* A VF's link: the PF's, as its vport's admin state says. */
bool mlx5_esw_vport_link(Mlx5Core *vf, bool uplink)
{
    return vf->esw_admin == MLX5_VPORT_ADMIN_UP ||
           (vf->esw_admin == MLX5_VPORT_ADMIN_AUTO && uplink);
}

/*
 * The manager's command naming a VF's vport of the E-Switch (or with @own, its
 * own too: other_vport 0, or vport 0); NULL: failed.
 */
static Mlx5Core *mlx5_esw_cmd_vport(Mlx5Core *c, Mlx5CmdCtx *cmd, bool own)
{
    bool other;
    Mlx5Core *t;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return NULL;
    }
    other = MLX5_GET(cmd->in, VPORT_IN_other_vport);
    t = !mlx5_esw_manager_cfg(&c->cfg) || cmd->uid ? NULL
        : other ? mlx5_esw_function(c, MLX5_GET(cmd->in, VPORT_IN_vport_number))
        : own   ? c
                : NULL;
    if (!t || (!t->cfg.vf && !own)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return NULL;
    }
    return t;
}

/*
 * MODIFY_VPORT_STATE: op_mod 1, the E-Switch manager sets a VF vport's admin
 * state (`ip link set ... vf N state`); op_mod 0, a function's own vNIC state,
 * is not offered (its link is PAOS's).
 */
void mlx5_cmd_modify_vport_state(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Core *vf;
    unsigned st;

    if (cmd->op_mod != MLX5_VPORT_STATE_OP_MOD_ESW) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
    vf = mlx5_esw_cmd_vport(c, cmd, false);
    if (!vf) {
        return;
    }
    st = MLX5_GET(cmd->in, MODIFY_VPORT_STATE_IN_admin_state);
    if (st > MLX5_VPORT_ADMIN_AUTO) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return;
    }
    trace_mlx5_esw_vport_state(vf->vf_index + 1, st);
    vf->esw_admin = st;
    mlx5_sriov_pf_link(c);
}

void mlx5_cmd_query_esw_vport_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    /*
     * a DevX user may read its function's own (rdma-core's steering domains
     * do on the E-Switch manager)
     */
    Mlx5Core *vf = mlx5_cmd_user(cmd) && mlx5_cmd_in_ok(cmd, 0x10) &&
                           !MLX5_GET(cmd->in, VPORT_IN_other_vport) &&
                           mlx5_esw_manager_cfg(&c->cfg)
                       ? c
                       : mlx5_esw_cmd_vport(c, cmd, true);
    uint8_t *ctx = cmd->out + ESW_VPORT_OUT_CTX_OFF;

    if (!vf ||
        !mlx5_cmd_out_ok(cmd, ESW_VPORT_OUT_CTX_OFF + ESW_VPORT_CTX_SIZE)) {
        return;
    }
    MLX5_SET(ctx, ESWC_vport_cvlan_strip, vf->esw_cvlan_strip);
    MLX5_SET(ctx, ESWC_vport_cvlan_insert,
             vf->esw_cvlan_insert ? MLX5_ESWC_CVLAN_INSERT_WHEN_NO_CVLAN : 0);
    MLX5_SET(ctx, ESWC_cvlan_pcp, vf->esw_cvlan_tci >> 13);
    MLX5_SET(ctx, ESWC_cvlan_id, vf->esw_cvlan_tci & 0xfff);
    MLX5_SET(ctx, ESWC_fdb_to_vport_reg_c_id, vf->esw_regc_pass);
    mlx5_fdb_vport_icm(c, mlx5_esw_vport_of(vf), ctx);
}

/*
 * MODIFY_ESW_VPORT_CONTEXT: a VF vport's C-VLAN strip and insert (`ip link set
 * ... vf N vlan V qos Q`); any vport's FDB-to-vport registers (the manager's
 * own: mlx5_core's vport metadata). What the caps do not offer (S-VLAN,
 * insert always or overwrite, registers other than reg_c_0, VLAN on the
 * manager's own vport) is refused, and nothing changes.
 */
void mlx5_cmd_modify_esw_vport_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + ESW_VPORT_IN_CTX_OFF;
    Mlx5Core *vf;
    unsigned fs, ins;

    if (!mlx5_cmd_in_ok(cmd, ESW_VPORT_IN_CTX_OFF + ESW_VPORT_CTX_SIZE)) {
        return;
    }
    vf = mlx5_esw_cmd_vport(c, cmd, true);
    if (!vf) {
        return;
    }
    fs = MLX5_GET(cmd->in, ESW_VPORT_IN_field_select);
    ins = MLX5_GET(ctx, ESWC_vport_cvlan_insert);
    if ((fs & (MLX5_ESWC_FS_SVLAN_STRIP | MLX5_ESWC_FS_SVLAN_INSERT)) ||
        ((fs & MLX5_ESWC_FS_CVLAN_INSERT) &&
         ins > MLX5_ESWC_CVLAN_INSERT_WHEN_NO_CVLAN) ||
        (!vf->cfg.vf &&
         (fs & (MLX5_ESWC_FS_CVLAN_STRIP | MLX5_ESWC_FS_CVLAN_INSERT))) ||
        ((fs & MLX5_ESWC_FS_REG_C_ID) &&
         (MLX5_GET(ctx, ESWC_fdb_to_vport_reg_c_id) & ~MLX5_ESW_REG_C_PASS))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_ESW_VPORT_FIELD);
        return;
    }
    if (fs & MLX5_ESWC_FS_CVLAN_STRIP) {
        vf->esw_cvlan_strip = MLX5_GET(ctx, ESWC_vport_cvlan_strip);
    }
    if (fs & MLX5_ESWC_FS_REG_C_ID) {
        vf->esw_regc_pass = MLX5_GET(ctx, ESWC_fdb_to_vport_reg_c_id);
        trace_mlx5_esw_vport_regc(mlx5_esw_vport_of(vf), vf->esw_regc_pass);
    }
    if (fs & MLX5_ESWC_FS_CVLAN_INSERT) {
        vf->esw_cvlan_insert = ins;
        vf->esw_cvlan_tci = MLX5_GET(ctx, ESWC_cvlan_pcp) << 13 |
                            MLX5_GET(ctx, ESWC_cvlan_id);
    }
    trace_mlx5_esw_vport_vlan(vf->vf_index + 1, vf->esw_cvlan_strip,
                              vf->esw_cvlan_insert, vf->esw_cvlan_tci);
}

/* The manager's L2 table entry: the index checked, kept (nothing to steer). */
static void mlx5_esw_l2(Mlx5Core *c, Mlx5CmdCtx *cmd, bool set)
{
    unsigned i;

    if (!mlx5_cmd_in_ok(cmd, 0x20)) {
        return;
    }
    i = MLX5_GET(cmd->in, L2_IN_table_index);
    if (!mlx5_esw_manager_cfg(&c->cfg) || cmd->uid ||
        i >= MLX5_ESW_L2_ENTRIES) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_ESW_L2_INDEX);
        return;
    }
    trace_mlx5_esw_l2(i, set);
    if (set) {
        c->eth->l2_used[i / 32] |= 1u << (i % 32);
    } else {
        c->eth->l2_used[i / 32] &= ~(1u << (i % 32));
    }
}

void mlx5_cmd_set_l2_table_entry(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_esw_l2(c, cmd, true);
}

void mlx5_cmd_delete_l2_table_entry(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_esw_l2(c, cmd, false);
}

/* The ingress and egress ACL roots of vport @vport (function or uplink). */
static uint32_t *mlx5_esw_acl_roots(Mlx5Core *pf, unsigned vport)
{
    Mlx5Core *f;

    if (vport == MLX5_VPORT_UPLINK) {
        return pf->eth->acl_uplink;
    }
    f = mlx5_esw_function(pf, vport);
    return f ? f->acl_root : NULL;
}

void mlx5_esw_acl_root(Mlx5Core *c, unsigned vport, bool egress, uint32_t id)
{
    uint32_t *roots = mlx5_esw_acl_roots(c, vport);

    if (roots) {
        trace_mlx5_esw_acl_root(vport, egress, id);
        roots[egress] = id;
    }
}

void mlx5_esw_acl_gone(Mlx5Core *c, Mlx5FlowTable *ft)
{
    uint32_t *roots = mlx5_esw_acl_roots(c, ft->vport);
    unsigned i;

    for (i = 0; roots && i < 2; i++) {
        if (roots[i] == ft->id) {
            roots[i] = 0;
        }
    }
}

/*
 * Does vport @vport's ingress (frames it sends) or @egress ACL drop frame @f?
 * Its entries match the frame's headers, its source vport and the metadata
 * registers @regc; the first that matches decides (DROP, or ALLOW and the
 * table it forwards to, if any), and its MOD_HDR sets registers in @regc (the
 * vport's metadata, on ingress); no entry: allowed.
 */
static bool mlx5_esw_acl_drops(Mlx5Core *pf, unsigned vport, bool egress,
                               const uint8_t *f, size_t len, uint32_t *regc)
{
    uint32_t *roots = mlx5_esw_acl_roots(pf, vport);
    uint8_t ms[MLX5_FTE_MATCH_PARAM_SIZE];
    Mlx5FlowTable *ft;
    unsigned hops;
    IbEthHdr h;

    if (!roots || !roots[egress]) {
        return false;
    }
    ft = mlx5_ft_get(pf, roots[egress]);
    if (!ft || !ib_eth_parse(f, len, &h)) {
        return false;
    }
    mlx5_eth_match_set(pf->eth, f, len, &h, ms);
    mlx5_st16(ms + MS_MISC_source_port_OFF, vport);
    for (hops = 0; ft && hops < MLX5_ETH_MAX_HOPS; hops++) {
        const Mlx5Fte *fte;

        mlx5_ms_regc(ms, regc, 3);
        fte = mlx5_ft_hit(pf, &ft, ms, len);
        if (!fte) {
            continue;
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
            trace_mlx5_esw_acl_drop(vport, egress, len);
            return true;
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_MOD_HDR) {
            mlx5_modhdr_apply_regs(pf, fte->modhdr, regc);
        }
        ft = mlx5_fte_next_table(pf, fte);
    }
    return false;
}

/* ---- the switch ---------------------------------------------------------- */

/* Copy up to @len bytes of the frame in @iov to @buf; returns how many. */
static size_t mlx5_esw_copy(const struct iovec *iov, int iovcnt, void *buf,
                            size_t len)
{
    size_t done = 0, n;
    int i;

    for (i = 0; i < iovcnt && done < len; i++) {
        n = MIN(iov[i].iov_len, len - done);
        memcpy((uint8_t *)buf + done, iov[i].iov_base, n);
        done += n;
    }
    return done;
}

/* Is @dst one of function @c's unicast addresses? */
static bool mlx5_esw_addr_is(Mlx5Core *c, const uint8_t *dst)
{
    static const uint8_t zero[6];
    Mlx5Eth *e = c->eth;
    unsigned i;

    if (!e) {
        return false;
    }
    if (memcmp(e->mac, zero, 6) && !memcmp(dst, e->mac, 6)) {
        return true;
    }
    for (i = 0; i < e->n_uc && i < MLX5_NVC_MAX_LIST; i++) {
        if (!memcmp(dst, e->uc_list[i], 6)) {
            return true;
        }
    }
    return false;
}

/* A VF of @pf that is a switch port now (its PF enabled it). */
static Mlx5Core *mlx5_esw_vf(Mlx5Core *pf, unsigned i)
{
    Mlx5Core *vf = pf->vfs[i];

    return vf && vf->vf_enabled && vf->eth ? vf : NULL;
}

/*
 * Does @pf switch frames: an Ethernet port with a VF enabled, or whose
 * manager set an FDB (switchdev mode has one with no VF too).
 */
static bool mlx5_esw_on(Mlx5Core *pf)
{
    unsigned i;

    if (!pf->eth || pf->cfg.vf) {
        return false;
    }
    if (pf->eth->root_ft_fdb) {
        return true;
    }
    for (i = 0; i < pf->cfg.num_vfs; i++) {
        if (mlx5_esw_vf(pf, i)) {
            return true;
        }
    }
    return false;
}

/*
 * Hand a copy of the frame from vport @m->src (MLX5_VPORT_UPLINK: the link) to
 * function @d's next run. The copy starts with @m (host order): the receiver's
 * tables match on it.
 */
static void mlx5_esw_deliver(const Mlx5SwMeta *m, Mlx5Core *d,
                             const struct iovec *iov, int iovcnt, size_t len)
{
    uint16_t src = m->src;
    GByteArray *b;
    uint8_t *f;

    if (!d->eth || !d->hca_initialized || !d->eth->oper_up ||
        d->health_fatal) {
        return;
    }
    if (g_queue_get_length(&d->esw_rxq) >= MLX5_ESW_RXQ_MAX) {
        trace_mlx5_esw_drop(src, mlx5_esw_vport_of(d), len);
        return;
    }
    trace_mlx5_esw_fwd(src, mlx5_esw_vport_of(d), len);
    b = g_byte_array_sized_new(len + MLX5_ESW_META);
    g_byte_array_set_size(b, len + MLX5_ESW_META);
    memcpy(b->data, m, MLX5_ESW_META);
    f = b->data + MLX5_ESW_META;
    mlx5_esw_copy(iov, iovcnt, f, len);
    if (d->esw_cvlan_strip && len >= IB_ETH_HLEN + 4 &&
        mlx5_ld16(f + 12) == IB_ETHERTYPE_VLAN) {
        /* VST: its vport's C-VLAN tag stripped (after its egress ACL) */
        trace_mlx5_esw_vlan(mlx5_esw_vport_of(d), false, mlx5_ld16(f + 14));
        memmove(f + 12, f + 16, len - 16);
        g_byte_array_set_size(b, b->len - 4);
    }
    g_queue_push_tail(&d->esw_rxq, b);
    d->ops->kick(d->opaque);
}

/*
 * Deliver a frame from vport @src to the vports marked in @to (@src only if a
 * steering entry named it); true unless the link refused the frame.
 */
static bool mlx5_esw_fdb_out(Mlx5Core *pf, const Mlx5SwMeta *m,
                             const struct iovec *iov, int iovcnt,
                             const uint8_t *f, size_t len, uint8_t *to,
                             bool best_effort)
{
    unsigned i;

    for (i = 0; i <= pf->cfg.num_vfs; i++) {
        Mlx5Core *d = i ? mlx5_esw_vf(pf, i - 1) : pf;
        uint32_t regc[2] = { m->regc[0], m->regc[1] };

        if (to[i] && d && (i != m->src || to[i] == MLX5_FDB_TO_STE) &&
            !mlx5_esw_acl_drops(pf, i, true, f, len, regc)) {
            mlx5_esw_deliver(m, d, iov, iovcnt, len);
        }
    }
    if (to[pf->cfg.num_vfs + 1] && pf->eth->oper_up) {
        return pf->ops->link_tx(pf->opaque, 1, iov, iovcnt, best_effort);
    }
    return true;
}

bool mlx5_port_tx(Mlx5Core *c, uint32_t sqn, const struct iovec *iov,
                  int iovcnt, bool best_effort)
{
    Mlx5SwMeta me = { .src = mlx5_esw_vport_of(c) };
    Mlx5Core *pf = c->cfg.vf ? c->pf : c;
    g_autofree uint8_t *f = NULL;
    struct iovec one;
    size_t len = 0, room;
    unsigned i;
    int k;

    if (mlx5_ib_vport_is(c)) {
        return mlx5_ib_vport_tx(c, iov, iovcnt, best_effort);
    }
    if (!pf || !mlx5_esw_on(pf)) {
        /* a VF with no switch (detached, disabled): lost */
        return c->cfg.vf ? true
                         : c->ops->link_tx(c->opaque, 1, iov, iovcnt,
                                           best_effort);
    }
    for (k = 0; k < iovcnt; k++) {
        len += iov[k].iov_len;
    }
    if (len < IB_ETH_HLEN) {
        return true;
    }
    /* one flat copy (room for a tag, or what the FDB's entries add) */
    room = len + MLX5_ESW_ROOM;
    f = g_malloc(room);
    mlx5_esw_copy(iov, iovcnt, f, len);
    if (mlx5_esw_acl_drops(pf, me.src, false, f, len, me.regc)) {
        return true;            /* its ingress ACL (a spoofed source) */
    }
    if (c != pf && c->esw_cvlan_insert &&
        mlx5_ld16(f + 12) != IB_ETHERTYPE_VLAN) {
        /* VST: its vport's C-VLAN tag into what it sends untagged */
        trace_mlx5_esw_vlan(mlx5_esw_vport_of(c), true, c->esw_cvlan_tci);
        memmove(f + 16, f + 12, len - 12);
        mlx5_st16(f + 12, IB_ETHERTYPE_VLAN);
        mlx5_st16(f + 14, c->esw_cvlan_tci);
        len += 4;
    }
    one.iov_base = f;
    one.iov_len = len;
    iov = &one;
    iovcnt = 1;
    if (pf->eth->root_ft_fdb) {
        /* the manager's FDB; a miss goes to the link */
        uint8_t to[MLX5_MAX_VFS + 2] = { 0 };

        if (!mlx5_fdb_steer(pf, &me, sqn, f, &len, room, to)) {
            to[pf->cfg.num_vfs + 1] = MLX5_FDB_TO_FW;
        }
        one.iov_len = len;
        return mlx5_esw_fdb_out(pf, &me, iov, iovcnt, f, len, to,
                                best_effort);
    }
    if (f[0] & 1) {
        if (c != pf) {
            mlx5_esw_deliver(&me, pf, iov, iovcnt, len);
        }
        for (i = 0; i < pf->cfg.num_vfs; i++) {
            Mlx5Core *vf = mlx5_esw_vf(pf, i);

            if (vf && vf != c) {
                mlx5_esw_deliver(&me, vf, iov, iovcnt, len);
            }
        }
    } else {
        if (c != pf && mlx5_esw_addr_is(pf, f)) {
            mlx5_esw_deliver(&me, pf, iov, iovcnt, len);
            return true;
        }
        for (i = 0; i < pf->cfg.num_vfs; i++) {
            Mlx5Core *vf = mlx5_esw_vf(pf, i);

            if (vf && vf != c && mlx5_esw_addr_is(vf, f)) {
                mlx5_esw_deliver(&me, vf, iov, iovcnt, len);
                return true;
            }
        }
    }
    if (!pf->eth->oper_up) {
        return true;            /* the link is down: lost */
    }
    return pf->ops->link_tx(pf->opaque, 1, iov, iovcnt, best_effort);
}

bool mlx5_esw_uplink_rx(Mlx5Core *pf, const uint8_t *f, size_t len)
{
    static const Mlx5SwMeta link = { .src = MLX5_VPORT_UPLINK };
    struct iovec iov = { .iov_base = (void *)f, .iov_len = len };
    unsigned i;

    if (len < 6 || !mlx5_esw_on(pf)) {
        return false;
    }
    if (pf->eth->root_ft_fdb) {
        /* the manager's FDB; a miss is dropped */
        uint8_t to[MLX5_MAX_VFS + 2] = { 0 };
        Mlx5SwMeta m = { .src = MLX5_VPORT_UPLINK };
        g_autofree uint8_t *w = NULL;
        uint32_t regc[2];
        bool to_pf;

        if (mlx5_esw_acl_drops(pf, MLX5_VPORT_UPLINK, false, f, len, m.regc)) {
            return true;        /* the uplink's ingress ACL */
        }
        /* (a copy the FDB's entries may rewrite) */
        w = g_malloc(len + MLX5_ESW_ROOM);
        memcpy(w, f, len);
        f = w;
        mlx5_fdb_steer(pf, &m, 0, w, &len, len + MLX5_ESW_ROOM, to);
        iov.iov_base = w;
        iov.iov_len = len;
        to[pf->cfg.num_vfs + 1] = 0;
        /* the PF's copy at once (its NIC tables decide), the VFs' queued */
        memcpy(regc, m.regc, sizeof(regc));
        to_pf = to[0] && !mlx5_esw_acl_drops(pf, 0, true, f, len, regc);
        to[0] = 0;
        mlx5_esw_fdb_out(pf, &m, &iov, 1, f, len, to, false);
        if (to_pf) {
            mlx5_eth_rx(pf, f, len, &m);
        }
        return true;
    }
    for (i = 0; i < pf->cfg.num_vfs; i++) {
        Mlx5Core *vf = mlx5_esw_vf(pf, i);

        if (!vf) {
            continue;
        }
        if (f[0] & 1) {
            mlx5_esw_deliver(&link, vf, &iov, 1, len);
        } else if (mlx5_esw_addr_is(vf, f)) {
            mlx5_esw_deliver(&link, vf, &iov, 1, len);
            return true;
        }
    }
    return false;
}

bool mlx5_esw_rx_run(Mlx5Core *c)
{
    unsigned n;

    for (n = 0; n < MLX5_ESW_RX_BUDGET && !g_queue_is_empty(&c->esw_rxq);
         n++) {
        GByteArray *b = g_queue_pop_head(&c->esw_rxq);
        Mlx5SwMeta m;

        memcpy(&m, b->data, MLX5_ESW_META);
        if (c->eth && !c->health_fatal) {
            mlx5_eth_rx(c, b->data + MLX5_ESW_META, b->len - MLX5_ESW_META,
                        &m);
        }
        g_byte_array_unref(b);
    }
    return !g_queue_is_empty(&c->esw_rxq);
}

void mlx5_esw_flush(Mlx5Core *c)
{
    GByteArray *b;

    while ((b = g_queue_pop_head(&c->esw_rxq))) {
        g_byte_array_unref(b);
    }
}

void mlx5_esw_tx_ready(Mlx5Core *pf)
{
    unsigned i;

    for (i = 0; i < pf->cfg.num_vfs; i++) {
        Mlx5Core *vf = mlx5_esw_vf(pf, i);

        if (vf) {
            mlx5_eth_tx_ready(vf);
            ib_port_tx_ready(&vf->ib);
        }
    }
}
