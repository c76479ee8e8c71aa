/*
 * Unit tests of the E-Switch in mlx5_core's switchdev (offloads) mode: the tables its
 * esw_offloads_enable() programs, and what they do to frames. The FDB matches a frame's source
 * vport and the SQ that sent it (send-to-vport rules: a representor's SQ to its VF), a miss
 * goes to the PF, whose NIC RX tables still see the source vport (each representor's rule),
 * and an RDMA RX table lets the PF's RoCE take only its own vport's frames.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testsriov.h"

/* CREATE_FLOW_TABLE of @type at @level, 2^@log_size entries, miss action @miss (to @miss_id). */
static int mk_ft(TDrv *d, unsigned type, unsigned level, unsigned log_size, unsigned miss,
                 uint32_t miss_id, uint32_t *id)
{
    uint8_t in[0x40] = { 0 }, out[16];
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, level);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, log_size);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_action, miss);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_id, miss_id);
    st = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    *id = MLX5_GET(out, FT_OUT_table_id);
    return st;
}

/* CREATE_FLOW_GROUP of entries @start..@end of table @ft, criteria @crit (sections @en). */
static uint32_t mk_fg(TDrv *d, unsigned type, uint32_t ft, uint32_t start, uint32_t end,
                      uint8_t en, const uint8_t *crit)
{
    g_autofree uint8_t *in = g_malloc0(FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE);
    uint8_t out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FG_IN_start_flow_index, start);
    MLX5_SET(in, FG_IN_end_flow_index, end);
    MLX5_SET(in, FG_IN_match_criteria_enable, en);
    memcpy(in + FG_IN_criteria_OFF, crit, MLX5_FTE_MATCH_PARAM_SIZE);
    g_assert_cmpint(tdrv_exec(d, in, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE, out,
                              sizeof(out)), ==, 0);
    return MLX5_GET(out, FG_OUT_group_id);
}

/* SET_FLOW_TABLE_ENTRY @index of @ft (group @fg): match @val, @action, @nd destinations. */
static int mk_fte(TDrv *d, unsigned type, uint32_t ft, uint32_t fg, uint32_t index,
                  const uint8_t *val, uint16_t action, unsigned nd, const uint8_t *dt,
                  const uint32_t *di)
{
    g_autofree uint8_t *in = g_malloc0(FTE_CTX_OFF + FC_dest_OFF + 8 * 4);
    uint8_t *fc = in + FTE_CTX_OFF, out[16];
    unsigned i;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FTE_IN_flow_index, index);
    MLX5_SET(fc, FC_group_id, fg);
    MLX5_SET(fc, FC_action, action);
    MLX5_SET(fc, FC_destination_list_size, nd);
    memcpy(fc + FC_match_value_OFF, val, MLX5_FTE_MATCH_PARAM_SIZE);
    for (i = 0; i < nd && i < 4; i++) {
        MLX5_SET(fc + FC_dest_OFF + 8 * i, DEST_type, dt[i]);
        MLX5_SET(fc + FC_dest_OFF + 8 * i, DEST_id, di[i]);
    }
    return tdrv_exec(d, in, FTE_CTX_OFF + FC_dest_OFF + 8 * 4, out, sizeof(out));
}

static void set_root(TDrv *d, unsigned type, uint32_t ft)
{
    uint8_t in[0x40] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
}

static void del_fte(TDrv *d, unsigned type, uint32_t ft, uint32_t index)
{
    uint8_t in[0x40] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FTE_IN_flow_index, index);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
}

/* Match parameters (or criteria) on the source vport @port and the source SQ @sqn. */
static void ms_src(uint8_t *ms, uint16_t port, uint32_t sqn)
{
    memset(ms, 0, MLX5_FTE_MATCH_PARAM_SIZE);
    mlx5_st16(ms + MS_MISC_source_port_OFF, port);
    MLX5_SET(ms, MS_source_sqn, sqn);
}

/* A frame from the link to @dst, tagged @tag. */
static void from_link(Rig *r, const uint8_t *dst, uint8_t tag)
{
    uint8_t f[60] = { 0 };

    memcpy(f, dst, 6);
    memcpy(f + 6, far_mac, 6);
    mlx5_st16(f + 12, 0x88b5);
    memset(f + 14, tag, sizeof(f) - 14);
    g_assert_true(mlx5_core_link_rx(r->pf->c, 1, f, sizeof(f)));
}

static void test_offloads(void)
{
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], crit[MLX5_FTE_MATCH_PARAM_SIZE];
    uint8_t val[MLX5_FTE_MATCH_PARAM_SIZE], dt[2];
    uint32_t di[2], chain, slow, vpt, fg_stv, fg_miss, offl, fg_src, fg_drop, synd;
    const unsigned FDB = MLX5_FLOW_TABLE_TYPE_FDB, NIC = MLX5_FLOW_TABLE_TYPE_NIC_RX;
    TEth p, v0, v1;
    unsigned n;
    Rig r;

    rig_new_esw(&r, true);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP,
                                MLX5_CAP_ESWITCH_FLOW_TABLE << 1, 0, 0, cap, sizeof(cap)),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_max_ft_level), ==, 255);
    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);
    vf_up(&r, 1, &v1);

    /*
     * The FDB as esw_create_offloads_fdb_tables() leaves it: chain 0 (level 19, empty) misses
     * to the slow path (184), which misses to a per-vport table (188); the slow path's
     * send-to-vport group (source vport and SQ) and its miss group (the multicast bit)
     */
    g_assert_cmpint(mk_ft(r.pf, FDB, 188, 7, 0, 0, &vpt), ==, 0);
    g_assert_cmpint(mk_ft(r.pf, FDB, 184, 16, MLX5_FT_MISS_ACTION_FWD, vpt, &slow), ==, 0);
    g_assert_cmpint(mk_ft(r.pf, FDB, 19, 16, MLX5_FT_MISS_ACTION_FWD, slow, &chain), ==, 0);
    ms_src(crit, 0xffff, 0xffffff);
    fg_stv = mk_fg(r.pf, FDB, slow, 0, 99, 1 << 1, crit);
    memset(crit, 0, sizeof(crit));
    crit[MS_dmac_47_16_OFF] = 1;
    fg_miss = mk_fg(r.pf, FDB, slow, 100, 101, 1 << 0, crit);
    /* the PF's SQ (a representor's) to VF 0; everything else to the PF */
    ms_src(val, 0, p.sqn);
    dt[0] = MLX5_FLOW_DEST_TYPE_VPORT, di[0] = 1;
    g_assert_cmpint(mk_fte(r.pf, FDB, slow, fg_stv, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
                           1, dt, di), ==, 0);
    memset(val, 0, sizeof(val));
    di[0] = 0;
    g_assert_cmpint(mk_fte(r.pf, FDB, slow, fg_miss, 100, val,
                           MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1, dt, di), ==, 0);
    val[MS_dmac_47_16_OFF] = 1;
    g_assert_cmpint(mk_fte(r.pf, FDB, slow, fg_miss, 101, val,
                           MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1, dt, di), ==, 0);
    set_root(r.pf, FDB, chain);

    /*
     * The PF's NIC RX root (esw_create_offloads_table()): by source vport to the
     * representors' tables (here the one channel's TIR), the rest dropped
     */
    g_assert_cmpint(mk_ft(r.pf, NIC, 38, 7, 0, 0, &offl), ==, 0);
    ms_src(crit, 0xffff, 0);
    fg_src = mk_fg(r.pf, NIC, offl, 0, 3, 1 << 1, crit);
    memset(crit, 0, sizeof(crit));
    fg_drop = mk_fg(r.pf, NIC, offl, 4, 4, 0, crit);
    dt[0] = MLX5_FLOW_DEST_TYPE_TIR, di[0] = p.tirn;
    ms_src(val, 1, 0);
    g_assert_cmpint(mk_fte(r.pf, NIC, offl, fg_src, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
                           1, dt, di), ==, 0);
    ms_src(val, MLX5_VPORT_UPLINK, 0);
    g_assert_cmpint(mk_fte(r.pf, NIC, offl, fg_src, 1, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
                           1, dt, di), ==, 0);
    memset(val, 0, sizeof(val));
    g_assert_cmpint(mk_fte(r.pf, NIC, offl, fg_drop, 4, val, MLX5_FLOW_CONTEXT_ACTION_DROP, 0,
                           dt, di), ==, 0);
    set_root(r.pf, NIC, offl);

    teth_post_recv(&p, 2048, p.mem);
    teth_post_recv(&v0, 2048, v0.mem);
    teth_post_recv(&v1, 2048, v1.mem);
    n = link_frames(&r);
    /* VF 0 to anyone: its representor (the PF, source vport 1), never the link or VF 1 */
    send_frame(&v0, far_mac, 0x41);
    g_assert_true(got_frame(&p, 0x41));
    send_frame(&v0, vf_mac[1], 0x42);
    g_assert_true(got_frame(&p, 0x42));
    g_assert_false(got_frame(&v1, 0x42));
    trace_counts_reset();
    send_frame(&v0, bcast, 0x43);
    g_assert_cmpuint(trace_count("mlx5_esw_fwd"), ==, 1);
    g_assert_true(got_frame(&p, 0x43));
    g_assert_cmpuint(link_frames(&r), ==, n);
    /* VF 1's frames reach the PF too, but its NIC RX has no rule for vport 2: dropped */
    send_frame(&v1, far_mac, 0x44);
    g_assert_false(got_frame(&p, 0x44));
    /* the representor's SQ to VF 0, whatever the destination address's vport */
    send_frame(&p, vf_mac[0], 0x45);
    g_assert_true(got_frame(&v0, 0x45));
    g_assert_cmpuint(link_frames(&r), ==, n);
    /* the link to the uplink representor (the PF, source vport 0xffff), even VF 1's MAC */
    from_link(&r, vf_mac[1], 0x46);
    g_assert_true(got_frame(&p, 0x46));
    g_assert_false(got_frame(&v1, 0x46));
    /* a PF SQ without a send-to-vport rule: to the PF, its own source: nowhere */
    del_fte(r.pf, FDB, slow, 0);
    send_frame(&p, vf_mac[0], 0x47);
    g_assert_false(got_frame(&v0, 0x47));
    g_assert_false(got_frame(&p, 0x47));
    g_assert_cmpuint(link_frames(&r), ==, n);

    /* switchdev with no VF enabled: the FDB still takes the PF's frames (uplink rep to link) */
    ms_src(val, 0, p.sqn);
    dt[0] = MLX5_FLOW_DEST_TYPE_VPORT, di[0] = MLX5_VPORT_UPLINK;
    g_assert_cmpint(mk_fte(r.pf, FDB, slow, fg_stv, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
                           1, dt, di), ==, 0);
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_DISABLE_HCA, 1, &synd), ==, 0);
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_DISABLE_HCA, 2, &synd), ==, 0);
    send_frame(&p, far_mac, 0x48);
    g_assert_cmpuint(link_frames(&r), ==, n + 1);
    from_link(&r, pf_mac, 0x49);
    g_assert_true(got_frame(&p, 0x49));
    rig_free(&r);
}

/*
 * RDMA RX tables (table type 7): an entry ALLOWs RoCE frames of a source vport to the
 * transport, a miss hands them back to the Ethernet side (table_miss_action 2, RDMA RX only).
 */
static void test_rdma_rx(void)
{
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], crit[MLX5_FTE_MATCH_PARAM_SIZE];
    uint8_t val[MLX5_FTE_MATCH_PARAM_SIZE], f[60] = { 0 }, in[0x40] = { 0 }, out[16], dt[1];
    uint32_t ft, fg, di[1], bad;
    const unsigned RDMA = MLX5_FLOW_TABLE_TYPE_RDMA_RX;
    Rig r;
    IbEthHdr h;

    rig_new_esw(&r, true);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_FLOW_TABLE << 1, 0,
                                0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_rdma_rx_ft_support), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_rdma_rx_table_miss_action_domain), ==,
                    1);
    memcpy(f, pf_mac, 6);
    memcpy(f + 6, far_mac, 6);
    mlx5_st16(f + 12, 0x88b5);
    g_assert_true(ib_eth_parse(f, sizeof(f), &h));
    /* no RDMA RX root: the transport takes what is its */
    g_assert_true(mlx5_flow_rdma_rx(r.pf->c, f, sizeof(f), &h, MLX5_VPORT_UPLINK));

    /* as mlx5_rdma_enable_roce(): level 24, one entry, misses to the switch domain */
    g_assert_cmpint(mk_ft(r.pf, RDMA, 24, 0, MLX5_FT_MISS_ACTION_SWITCH_DOMAIN, 0, &ft), ==, 0);
    ms_src(crit, 0xffff, 0);
    fg = mk_fg(r.pf, RDMA, ft, 0, 0, 1 << 1, crit);
    ms_src(val, 0, 0);
    /* an RDMA RX entry neither rewrites nor forwards to a TIR */
    dt[0] = MLX5_FLOW_DEST_TYPE_TIR, di[0] = 1;
    g_assert_cmpint(mk_fte(r.pf, RDMA, ft, fg, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                           dt, di), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mk_fte(r.pf, RDMA, ft, fg, 0, val, MLX5_FLOW_CONTEXT_ACTION_MOD_HDR, 0, dt,
                           di), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mk_fte(r.pf, RDMA, ft, fg, 0, val, MLX5_FLOW_CONTEXT_ACTION_ALLOW, 0, dt,
                           di), ==, 0);
    set_root(r.pf, RDMA, ft);
    g_assert_true(mlx5_flow_rdma_rx(r.pf->c, f, sizeof(f), &h, 0));
    g_assert_false(mlx5_flow_rdma_rx(r.pf->c, f, sizeof(f), &h, 1));
    g_assert_false(mlx5_flow_rdma_rx(r.pf->c, f, sizeof(f), &h, MLX5_VPORT_UPLINK));
    /* the switch domain is no miss action of a NIC RX table */
    g_assert_cmpint(mk_ft(r.pf, MLX5_FLOW_TABLE_TYPE_NIC_RX, 1, 0,
                          MLX5_FT_MISS_ACTION_SWITCH_DOMAIN, 0, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* the table gone: no root, the transport takes what is its again */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DESTROY_FLOW_TABLE);
    MLX5_SET(in, FT_IN_table_type, RDMA);
    MLX5_SET(in, FT_IN_table_id, ft);
    g_assert_cmpint(tdrv_exec(r.pf, in, sizeof(in), out, sizeof(out)), ==, 0);
    g_assert_cmpuint(r.pf->c->eth->root_ft_rdma, ==, 0);
    g_assert_true(mlx5_flow_rdma_rx(r.pf->c, f, sizeof(f), &h, 1));
    rig_free(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/switchdev/offloads", test_offloads);
    g_test_add_func("/mlx5/switchdev/rdma-rx", test_rdma_rx);
    return g_test_run();
}
