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
#include "hw/rdma/mlx5/mlx5_ste_prm.h"

/* Flow commands name vport @vp's tables (an ACL's, other_vport); -1: the function's own. */
static int vp = -1;

static void set_vport(uint8_t *in)
{
    MLX5_SET(in, VPORT_IN_other_vport, vp >= 0);
    MLX5_SET(in, VPORT_IN_vport_number, vp >= 0 ? vp : 0);
}

/* CREATE_FLOW_TABLE of @type at @level, 2^@log_size entries, miss action @miss (to @miss_id). */
static int mk_ft(TDrv *d, unsigned type, unsigned level, unsigned log_size, unsigned miss,
                 uint32_t miss_id, uint32_t *id)
{
    uint8_t in[0x40] = { 0 }, out[16];
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    set_vport(in);
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
    set_vport(in);
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

/* the modify-header context of the entries mk_fte() makes (with MOD_HDR) */
static uint32_t fte_modhdr;
/* ... their packet reformat context (PACKET_REFORMAT), VLAN tags (VLAN_PUSH, _2), flow source */
static uint32_t fte_reformat, fte_push_vlan, fte_push_vlan_2, fte_flow_source;

/* SET_FLOW_TABLE_ENTRY @index of @ft (group @fg): match @val, @action, @nd destinations. */
static int mk_fte(TDrv *d, unsigned type, uint32_t ft, uint32_t fg, uint32_t index,
                  const uint8_t *val, uint16_t action, unsigned nd, const uint8_t *dt,
                  const uint32_t *di)
{
    g_autofree uint8_t *in = g_malloc0(FTE_CTX_OFF + FC_dest_OFF + 8 * 4);
    uint8_t *fc = in + FTE_CTX_OFF, out[16];
    unsigned i;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    set_vport(in);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FTE_IN_flow_index, index);
    MLX5_SET(fc, FC_group_id, fg);
    MLX5_SET(fc, FC_action, action);
    MLX5_SET(fc, FC_destination_list_size, nd);
    MLX5_SET(fc, FC_modify_header_id, fte_modhdr);
    MLX5_SET(fc, FC_packet_reformat_id, fte_reformat);
    MLX5_SET(fc, FC_push_vlan, fte_push_vlan);
    MLX5_SET(fc, FC_push_vlan_2, fte_push_vlan_2);
    MLX5_SET(fc, FC_flow_source, fte_flow_source);
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
    set_vport(in);
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

/* May the PF's RoCE transport take @f from vport @src? */
static bool rdma_rx(Rig *r, const uint8_t *f, size_t len, const IbEthHdr *h, uint16_t src)
{
    Mlx5SwMeta m = { .src = src };

    return mlx5_flow_rdma_rx(r->pf->c, f, len, h, &m);
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
    g_assert_true(rdma_rx(&r, f, sizeof(f), &h, MLX5_VPORT_UPLINK));

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
    g_assert_true(rdma_rx(&r, f, sizeof(f), &h, 0));
    g_assert_false(rdma_rx(&r, f, sizeof(f), &h, 1));
    g_assert_false(rdma_rx(&r, f, sizeof(f), &h, MLX5_VPORT_UPLINK));
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
    g_assert_true(rdma_rx(&r, f, sizeof(f), &h, 1));
    rig_free(&r);
}

/* ALLOC_MODIFY_HEADER_CONTEXT for @tt: one SET of @field bits @off..+@len to @data. */
static int modhdr_set(TDrv *d, unsigned tt, unsigned field, unsigned off, unsigned len,
                      uint32_t data, uint32_t *id)
{
    uint8_t in[0x18] = { 0 }, out[16] = { 0 };
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT);
    MLX5_SET(in, MODHDR_IN_table_type, tt);
    MLX5_SET(in, MODHDR_IN_num_of_actions, 1);
    mlx5_st16(in + 0x10, 1 << 12 | field);         /* SET */
    in[0x12] = off;
    in[0x13] = len;
    mlx5_st32(in + 0x14, data);
    st = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    *id = MLX5_GET(out, MODHDR_OUT_id);
    return st;
}

/* MODIFY_ESW_VPORT_CONTEXT of the manager's own vport: the FDB-to-vport registers @regs. */
static int pass_regs(TDrv *d, unsigned fs, unsigned regs)
{
    uint8_t in[ESW_VPORT_IN_CTX_OFF + ESW_VPORT_CTX_SIZE] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_ESW_VPORT_CONTEXT);
    MLX5_SET(in, ESW_VPORT_IN_field_select, fs);
    MLX5_SET(in + ESW_VPORT_IN_CTX_OFF, ESWC_fdb_to_vport_reg_c_id, regs);
    return tdrv_exec(d, in, sizeof(in), out, sizeof(out));
}

/*
 * Vport metadata, as mlx5_core's offloads mode uses it with esw_uplink_ingress_acl and
 * fdb_to_vport_reg_c_id: each vport's ingress ACL writes its metadata into reg_c_0
 * (bits 31:16), the FDB and the PF's NIC RX (the manager's vport passes reg_c_0 on) match it
 * instead of the source vport.
 */
static void test_metadata(void)
{
    const unsigned FDB = MLX5_FLOW_TABLE_TYPE_FDB, NIC = MLX5_FLOW_TABLE_TYPE_NIC_RX;
    const unsigned ACL = MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL;
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], crit[MLX5_FTE_MATCH_PARAM_SIZE];
    uint8_t val[MLX5_FTE_MATCH_PARAM_SIZE], dt[1], in[0x20] = { 0 }, out[0x120];
    uint32_t di[1], acl[3], mh[3], fg, fdb, fgm, offl, fgo, bad;
    const uint16_t vports[3] = { 1, 2, MLX5_VPORT_UPLINK };
    TEth p, v0, v1;
    unsigned i;
    Rig r;

    rig_new_esw(&r, true);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_ESWITCH << 1, 0, 0,
                                cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_CAP_esw_uplink_ingress_acl), ==, 1);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP,
                                MLX5_CAP_ESWITCH_FLOW_TABLE << 1, 0, 0, cap, sizeof(cap)),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_FT_CAP_fdb_to_vport_reg_c_id), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_FT_CAP_acl_in_max_modify_header_actions),
                    >, 0);
    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);
    vf_up(&r, 1, &v1);

    /* E-Switch contexts write registers only; NIC contexts no registers */
    g_assert_cmpint(modhdr_set(r.pf, FDB, 0x04, 0, 16, 0x1234, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);           /* DMAC_47_16 */
    g_assert_cmpint(modhdr_set(r.pf, NIC, 0x51, 16, 16, 1, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(modhdr_set(r.vf[0], ACL, 0x51, 16, 16, 1, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);           /* a VF is no manager */
    /* the manager's own vport passes reg_c_0 on; reg_c_1 is not offered */
    g_assert_cmpint(pass_regs(r.pf, MLX5_ESWC_FS_REG_C_ID, 2), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(pass_regs(r.pf, MLX5_ESWC_FS_CVLAN_STRIP, 0), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);           /* no VST on its own vport */
    g_assert_cmpint(pass_regs(r.pf, MLX5_ESWC_FS_REG_C_ID, 1), ==, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT);
    g_assert_cmpint(tdrv_exec(r.pf, in, sizeof(in), out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + ESW_VPORT_OUT_CTX_OFF, ESWC_fdb_to_vport_reg_c_id), ==, 1);

    /* VF 0's, VF 1's and the uplink's ingress ACLs: metadata 0x11, 0x12, 0x1 */
    memset(crit, 0, sizeof(crit));
    memset(val, 0, sizeof(val));
    for (i = 0; i < 3; i++) {
        vp = vports[i];
        g_assert_cmpint(modhdr_set(r.pf, ACL, 0x51, 16, 16, i < 2 ? 0x11 + i : 1, &mh[i]), ==,
                        0);
        g_assert_cmpint(mk_ft(r.pf, ACL, 0, 0, 0, 0, &acl[i]), ==, 0);
        fg = mk_fg(r.pf, ACL, acl[i], 0, 0, 0, crit);
        fte_modhdr = mh[i];
        g_assert_cmpint(mk_fte(r.pf, ACL, acl[i], fg, 0, val,
                               MLX5_FLOW_CONTEXT_ACTION_MOD_HDR |
                                   MLX5_FLOW_CONTEXT_ACTION_ALLOW, 0, dt, di), ==, 0);
        set_root(r.pf, ACL, acl[i]);
    }
    vp = -1;
    fte_modhdr = 0;

    /* the FDB by metadata: VF 0's and the uplink's to the PF, nothing else */
    g_assert_cmpint(mk_ft(r.pf, FDB, 184, 4, 0, 0, &fdb), ==, 0);
    mlx5_st32(crit + MS_MISC2_reg_c_0_OFF, 0xffff0000);
    fgm = mk_fg(r.pf, FDB, fdb, 0, 3, 1 << 3, crit);
    dt[0] = MLX5_FLOW_DEST_TYPE_VPORT, di[0] = 0;
    mlx5_st32(val + MS_MISC2_reg_c_0_OFF, 0x11 << 16);
    g_assert_cmpint(mk_fte(r.pf, FDB, fdb, fgm, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                           dt, di), ==, 0);
    mlx5_st32(val + MS_MISC2_reg_c_0_OFF, 1 << 16);
    g_assert_cmpint(mk_fte(r.pf, FDB, fdb, fgm, 1, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                           dt, di), ==, 0);
    set_root(r.pf, FDB, fdb);
    /* the PF's NIC RX by metadata too: VF 0's to its channel, the rest dropped */
    g_assert_cmpint(mk_ft(r.pf, NIC, 38, 2, 0, 0, &offl), ==, 0);
    fgo = mk_fg(r.pf, NIC, offl, 0, 1, 1 << 3, crit);
    dt[0] = MLX5_FLOW_DEST_TYPE_TIR, di[0] = p.tirn;
    mlx5_st32(val + MS_MISC2_reg_c_0_OFF, 0x11 << 16);
    g_assert_cmpint(mk_fte(r.pf, NIC, offl, fgo, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                           dt, di), ==, 0);
    set_root(r.pf, NIC, offl);

    teth_post_recv(&p, 2048, p.mem);
    send_frame(&v0, far_mac, 0x51);                 /* VF 0: metadata 0x11 */
    g_assert_true(got_frame(&p, 0x51));
    send_frame(&v1, far_mac, 0x52);                 /* VF 1: 0x12, no FDB entry: the link */
    g_assert_false(got_frame(&p, 0x52));
    from_link(&r, pf_mac, 0x53);                    /* the uplink: 0x1, to the PF, whose */
    g_assert_false(got_frame(&p, 0x53));            /* NIC RX has no entry for it */
    mlx5_st32(val + MS_MISC2_reg_c_0_OFF, 1 << 16);
    g_assert_cmpint(mk_fte(r.pf, NIC, offl, fgo, 1, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                           dt, di), ==, 0);
    from_link(&r, pf_mac, 0x54);
    g_assert_true(got_frame(&p, 0x54));
    /* without passing reg_c_0 on, the PF's tables see 0 */
    g_assert_cmpint(pass_regs(r.pf, MLX5_ESWC_FS_REG_C_ID, 0), ==, 0);
    send_frame(&v0, far_mac, 0x55);
    g_assert_false(got_frame(&p, 0x55));
    /* VF 0's ACL gone: no metadata, no FDB entry: the link */
    vp = 1;
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DESTROY_FLOW_TABLE);
    set_vport(in);
    MLX5_SET(in, FT_IN_table_type, ACL);
    MLX5_SET(in, FT_IN_table_id, acl[0]);
    vp = -1;
    g_assert_cmpint(tdrv_exec(r.pf, in, sizeof(in), out, 16), ==, 0);
    g_assert_cmpuint(r.vf[0]->c->acl_root[0], ==, 0);
    g_assert_cmpint(pass_regs(r.pf, MLX5_ESWC_FS_REG_C_ID, 1), ==, 0);
    send_frame(&v0, far_mac, 0x56);
    g_assert_false(got_frame(&p, 0x56));
    /* an FDB entry writes reg_c_0 (VF 1's frames as VF 0's) before the table that matches it */
    {
        uint32_t pre, fgp, mhf;

        g_assert_cmpint(modhdr_set(r.pf, FDB, 0x51, 16, 16, 0x11, &mhf), ==, 0);
        g_assert_cmpint(mk_ft(r.pf, FDB, 100, 0, 0, 0, &pre), ==, 0);
        memset(crit, 0, sizeof(crit));
        fgp = mk_fg(r.pf, FDB, pre, 0, 0, 0, crit);
        memset(val, 0, sizeof(val));
        dt[0] = MLX5_FLOW_DEST_TYPE_FLOW_TABLE, di[0] = fdb;
        fte_modhdr = mhf;
        g_assert_cmpint(mk_fte(r.pf, FDB, pre, fgp, 0, val,
                               MLX5_FLOW_CONTEXT_ACTION_MOD_HDR |
                                   MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1, dt, di), ==, 0);
        fte_modhdr = 0;
        set_root(r.pf, FDB, pre);
        send_frame(&v1, far_mac, 0x57);
        g_assert_true(got_frame(&p, 0x57));
    }
    rig_free(&r);
}

/* A steering entry at @at of @type, lookup @lu (SRC_GVMI_AND_QP: source vhca_id @gvmi), hit to
 * @hit (with @next_lu), miss to @miss. */
static void fdb_ste(TDrv *d, uint64_t at, unsigned type, unsigned lu, unsigned next_lu,
                    uint16_t gvmi, uint64_t hit, uint64_t miss)
{
    uint8_t s[MLX5_STE_SIZE] = { 0 };
    uint64_t v = (hit >> 5) | 1;

    MLX5_SET(s, STE_entry_type, type);
    MLX5_SET(s, STE_entry_sub_type, lu);
    MLX5_SET(s, STE_next_table_base_39_32_size, v >> 27);
    MLX5_SET(s, STE_next_table_base_31_5_size, v);
    MLX5_SET(s, STE_next_lu_type, next_lu);
    MLX5_SET(s, STE_miss_address_39_32, miss >> 32);
    MLX5_SET(s, STE_miss_address_31_6, miss >> 6);
    if (lu == MLX5_STE_LU_SRC_GVMI_AND_QP) {
        MLX5_SET(s + MLX5_STE_TAG_OFF, STE_SRCQP_source_gvmi, gvmi);
        MLX5_SET(s + MLX5_STE_MASK_OFF, STE_SRCQP_source_gvmi, 0xffff);
    }
    g_assert_cmpint(mlx5_icm_rw(d->c, at, s, sizeof(s), true), ==, 0);
}

/* A rig whose PF is the E-Switch manager; the E-Switch flow-table caps in @cap. */
static void esw_rig(Rig *r, uint8_t *cap)
{
    rig_new_esw(r, true);
    g_assert_cmpint(tdrv_simple(r->pf, MLX5_CMD_OP_QUERY_HCA_CAP,
                                MLX5_CAP_ESWITCH_FLOW_TABLE << 1 | 1, 0, 0, cap,
                                QUERY_HCA_CAP_OUT_SIZE), ==, 0);
}

/*
 * The FDB software owned (sw-steering, on by default), as mlx5_core's SMFS and rdma-core's FDB
 * domains use it: the E-Switch flow-table caps give the FDB's sw_owner and the uplink's ICM
 * address, each vport's E-Switch context its own; a table's root 1 takes the functions' frames,
 * root 0 the link's; the source-vport lookup sees the source function's vhca_id (a VF's: its
 * index + 1); an entry may send a frame back to its own vport (a firmware entry never does); a VF
 * has no FDB table.
 */
static void test_sws_fdb(void)
{
    const uint64_t tx_root = MLX5_ICM_STEERING_BASE, htbl = tx_root + 0x1000;
    const uint64_t rx_root = tx_root + 0x2000;
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], in[0x40] = { 0 }, out[0x200] = { 0 }, f[60] = { 0 };
    const uint8_t *ctx = out + ESW_VPORT_OUT_CTX_OFF;
    uint32_t icm, ft;
    unsigned n;
    TEth p, v0, v1;
    Rig r;

    esw_rig(&r, cap);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_sw_owner), ==, 1);
    g_assert_cmphex(mlx5_ld64(cap + HCA_CAP_OFF +
                              ESW_FT_CAP_sw_steering_uplink_icm_address_tx_OFF),
                    ==, mlx5_icm_term(MLX5_ICM_T_VPORT, MLX5_VPORT_UPLINK));
    g_assert_cmphex(mlx5_ld64(cap + HCA_CAP_OFF +
                              ESW_FT_CAP_sw_steering_fdb_action_drop_icm_address_rx_OFF),
                    ==, mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0));
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT, true, 2, in, 0x10, out,
                              ESW_VPORT_OUT_CTX_OFF + ESW_VPORT_CTX_SIZE), ==, 0);
    g_assert_cmphex(mlx5_ld64(ctx + ESWC_sw_steering_vport_icm_address_rx_OFF), ==,
                    mlx5_icm_term(MLX5_ICM_T_VPORT, 2));
    g_assert_cmphex(mlx5_ld64(ctx + ESWC_sw_steering_vport_icm_address_tx_OFF), ==,
                    mlx5_icm_term(MLX5_ICM_T_VPORT, 2));

    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);
    vf_up(&r, 1, &v1);
    g_assert_cmpint(teth_icm_create(r.pf, MLX5_OBJ_TYPE_SW_ICM, tx_root, 16, &icm), ==, 0);
    teth_sw_fdb_in(in, rx_root, tx_root);
    g_assert_cmpint(tdrv_exec(r.vf[0], in, sizeof(in), out, 16), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    ft = teth_obj_create(r.pf, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, sizeof(in));
    set_root(r.pf, MLX5_FLOW_TABLE_TYPE_FDB, ft);
    /*
     * from a function: VF 1 (vhca_id 2) to itself, the others to the PF; from the link: VF 0
     * (frames to their receiver's MAC, which its NIC RX takes)
     */
    fdb_ste(r.pf, tx_root, MLX5_STE_TYPE_TX, MLX5_STE_LU_DONT_CARE, MLX5_STE_LU_SRC_GVMI_AND_QP,
            0, htbl, 0);
    fdb_ste(r.pf, htbl, MLX5_STE_TYPE_TX, MLX5_STE_LU_SRC_GVMI_AND_QP, MLX5_STE_LU_DONT_CARE, 2,
            mlx5_icm_term(MLX5_ICM_T_VPORT, 2), mlx5_icm_term(MLX5_ICM_T_VPORT, 0));
    fdb_ste(r.pf, rx_root, MLX5_STE_TYPE_RX, MLX5_STE_LU_DONT_CARE, MLX5_STE_LU_DONT_CARE, 0,
            mlx5_icm_term(MLX5_ICM_T_VPORT, 1), 0);

    teth_post_recv(&p, 2048, p.mem);
    teth_post_recv(&v0, 2048, v0.mem);
    teth_post_recv(&v1, 2048, v1.mem);
    n = link_frames(&r);
    /* (VF 1's own NIC RX keeps what is not to its address: it takes a copy only) */
    trace_counts_reset();
    send_frame(&v1, far_mac, 0x61);
    g_assert_cmpuint(trace_count("mlx5_esw_fwd"), ==, 1);
    g_assert_false(got_frame(&p, 0x61));
    g_assert_false(got_frame(&v0, 0x61));
    send_frame(&v0, pf_mac, 0x62);
    g_assert_true(got_frame(&p, 0x62));
    g_assert_false(got_frame(&v0, 0x62));
    trace_counts_reset();
    send_frame(&p, far_mac, 0x63);                      /* (back to the PF, as VF 1's) */
    g_assert_cmpuint(trace_count("mlx5_esw_fwd"), ==, 1);
    g_assert_false(got_frame(&v0, 0x63));
    g_assert_false(got_frame(&v1, 0x63));
    g_assert_cmpuint(link_frames(&r), ==, n);
    memcpy(f, vf_mac[0], 6);
    memcpy(f + 6, far_mac, 6);
    mlx5_st16(f + 12, 0x88b5);
    memset(f + 14, 0x64, sizeof(f) - 14);
    g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, sizeof(f)));
    g_assert_true(got_frame(&v0, 0x64));
    g_assert_false(got_frame(&p, 0x64));
    /* a miss to a vport that is none: dropped */
    fdb_ste(r.pf, htbl, MLX5_STE_TYPE_TX, MLX5_STE_LU_SRC_GVMI_AND_QP, MLX5_STE_LU_DONT_CARE, 2,
            mlx5_icm_term(MLX5_ICM_T_VPORT, 2), mlx5_icm_term(MLX5_ICM_T_VPORT, 7));
    send_frame(&v0, pf_mac, 0x65);
    g_assert_false(got_frame(&p, 0x65));
    g_assert_cmpuint(link_frames(&r), ==, n);
    rig_free(&r);
}

/*
 * A frame from the link to VF 0 (@v0) with VLAN tags @tags (outermost first), filled with @fill:
 * VF 0 receives it with none of them.
 */
static void untagged_to_vf0(Rig *r, TEth *v0, const uint32_t *tags, unsigned ntags,
                            uint8_t fill)
{
    uint8_t f[60 + 4 * 2], got[20];
    size_t len = 60 + 4 * ntags;
    unsigned i;

    g_assert_cmpuint(ntags, <=, 2);
    teth_post_recv(v0, 2048, v0->mem);
    memcpy(f, vf_mac[0], 6);
    memcpy(f + 6, far_mac, 6);
    for (i = 0; i < ntags; i++) {
        mlx5_st32(f + 12 + 4 * i, tags[i]);
    }
    mlx5_st16(f + 12 + 4 * ntags, 0x88b5);
    memset(f + 14 + 4 * ntags, fill, len - 14 - 4 * ntags);
    g_assert_true(mlx5_core_link_rx(r->pf->c, 1, f, len));
    g_assert_true(got_frame(v0, fill));
    fake_read(v0->d->h, v0->mem, got, sizeof(got));
    g_assert_cmpmem(got, 6, vf_mac[0], 6);
    g_assert_cmphex(mlx5_ld16(got + 12), ==, 0x88b5);
    g_assert_cmpint(got[14], ==, fill);
}

/*
 * TC's header actions in firmware FDB entries, as the FDB caps offer them (reformat, decap,
 * push_vlan, pop_vlan: mlx5_core's encap mode "basic"): VF 0's frames get a VLAN tag pushed and
 * an L2 tunnel header put in front (IPv4 and UDP lengths filled in) on their way to the link;
 * the link's tagged frames lose the tag on their way to VF 0; an FDB entry takes no L3 tunnel
 * reformat (no reformat_l2_to_l3_tunnel in the FDB).
 */
static void test_fdb_actions(void)
{
    const unsigned FDB = MLX5_FLOW_TABLE_TYPE_FDB;
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], crit[MLX5_FTE_MATCH_PARAM_SIZE];
    uint8_t val[MLX5_FTE_MATCH_PARAM_SIZE], dt[1], hdr[50] = { 0 };
    uint32_t di[1], ft, fg, rid, rid3;
    const GByteArray *w;
    TEth p, v0;
    unsigned n;
    Rig r;

    esw_rig(&r, cap);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_reformat), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_decap), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_pop_vlan), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_push_vlan), ==, 1);
    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);

    /* a VXLAN header: Ethernet, IPv4 (UDP), UDP to 4789, VXLAN VNI 7 */
    teth_tunnel_hdr(hdr, far_mac, pf_mac, 17);
    mlx5_st16(hdr + 36, 4789);
    hdr[42] = 0x08;
    hdr[48] = 7;
    g_assert_cmpint(teth_reformat(r.pf, MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL, hdr, sizeof(hdr),
                                  &rid), ==, 0);
    g_assert_cmpint(teth_reformat(r.pf, MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL, hdr, 38, &rid3), ==,
                    0);

    g_assert_cmpint(mk_ft(r.pf, FDB, 0, 4, 0, 0, &ft), ==, 0);
    ms_src(crit, 0xffff, 0);
    fg = mk_fg(r.pf, FDB, ft, 0, 3, 1 << 1, crit);
    dt[0] = MLX5_FLOW_DEST_TYPE_VPORT;
    ms_src(val, 1, 0);
    di[0] = MLX5_VPORT_UPLINK;
    fte_reformat = rid3;
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
                           MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT, 1, dt, di), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    fte_reformat = rid;
    fte_push_vlan = 0x81000005;
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 0, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
                           MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH |
                           MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT, 1, dt, di), ==, 0);
    fte_reformat = fte_push_vlan = 0;
    ms_src(val, MLX5_VPORT_UPLINK, 0);
    di[0] = 1;
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 1, val, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
                           MLX5_FLOW_CONTEXT_ACTION_VLAN_POP, 1, dt, di), ==, 0);
    set_root(r.pf, FDB, ft);

    /* VF 0 -> the link: tagged, then encapsulated */
    n = link_frames(&r);
    send_frame(&v0, far_mac, 0x71);
    g_assert_cmpuint(link_frames(&r), ==, n + 1);
    w = g_ptr_array_index(r.pf->h->tx, n);
    g_assert_cmpuint(w->len, ==, sizeof(hdr) + 60 + 4);
    g_assert_cmpmem(w->data, 14, hdr, 14);
    g_assert_cmpuint(mlx5_ld16(w->data + 16), ==, w->len - 14);        /* IPv4 length */
    g_assert_cmpuint(mlx5_ld16(w->data + 38), ==, w->len - 34);        /* UDP length */
    g_assert_cmpmem(w->data + 42, 8, hdr + 42, 8);
    g_assert_cmpmem(w->data + 50, 6, far_mac, 6);
    g_assert_cmpmem(w->data + 56, 6, vf_mac[0], 6);
    g_assert_cmphex(mlx5_ld32(w->data + 62), ==, 0x81000005);
    g_assert_cmphex(mlx5_ld16(w->data + 66), ==, 0x88b5);
    g_assert_cmpint(w->data[68], ==, 0x71);

    /* the link -> VF 0: the tag popped */
    untagged_to_vf0(&r, &v0, (const uint32_t[]){ 0x81000005 }, 1, 0x72);
    rig_free(&r);
}

/*
 * Two VLAN tags (TC's QinQ: VLAN_PUSH_2 and VLAN_POP_2, offered as pop_vlan_2/push_vlan_2) and
 * an entry's flow_source: one group that matches anything, an entry for frames from the uplink
 * (pop both tags, to VF 0) and one for frames from the functions (push 5 then 9 outside it, to
 * the link); without flow_source VF 0's frame would take the first and go nowhere. The second
 * tag's action needs the first's; flow_source 3 is no side.
 */
static void test_fdb_qinq_source(void)
{
    const unsigned FDB = MLX5_FLOW_TABLE_TYPE_FDB;
    const uint16_t POPS = MLX5_FLOW_CONTEXT_ACTION_VLAN_POP | MLX5_FLOW_CONTEXT_ACTION_VLAN_POP_2;
    const uint16_t PUSHES = MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH |
                            MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH_2;
    const uint16_t FWD = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST;
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], crit[MLX5_FTE_MATCH_PARAM_SIZE] = { 0 };
    uint8_t val[MLX5_FTE_MATCH_PARAM_SIZE] = { 0 }, dt[1];
    uint32_t di[1], ft, fg;
    const GByteArray *w;
    TEth p, v0;
    unsigned n;
    Rig r;

    esw_rig(&r, cap);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_pop_vlan_2), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_push_vlan_2), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_outer_vxlan_vni), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_FT_CAP_flow_source), ==, 1);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_ESWITCH << 1 | 1, 0, 0,
                                cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_CAP_vxlan_encap_decap), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_CAP_max_encap_header_size), ==,
                    MLX5_ETH_MAX_ENCAP_HDR);
    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);

    g_assert_cmpint(mk_ft(r.pf, FDB, 0, 4, 0, 0, &ft), ==, 0);
    fg = mk_fg(r.pf, FDB, ft, 0, 3, 0, crit);
    dt[0] = MLX5_FLOW_DEST_TYPE_VPORT;
    di[0] = MLX5_VPORT_UPLINK;
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 0, val, FWD | MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH_2,
                           1, dt, di), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 0, val, FWD | MLX5_FLOW_CONTEXT_ACTION_VLAN_POP_2,
                           1, dt, di), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    fte_flow_source = 3;
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 0, val, FWD, 1, dt, di), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    fte_flow_source = MLX5_FLOW_SOURCE_UPLINK;
    di[0] = 1;
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 0, val, FWD | POPS, 1, dt, di), ==, 0);
    fte_flow_source = MLX5_FLOW_SOURCE_LOCAL_VPORT;
    fte_push_vlan = 0x81000005;
    fte_push_vlan_2 = 0x88a80009;
    di[0] = MLX5_VPORT_UPLINK;
    g_assert_cmpint(mk_fte(r.pf, FDB, ft, fg, 1, val, FWD | PUSHES, 1, dt, di), ==, 0);
    fte_flow_source = fte_push_vlan = fte_push_vlan_2 = 0;
    set_root(r.pf, FDB, ft);

    /* VF 0 -> the link: S-tag 9 outside C-tag 5 */
    n = link_frames(&r);
    send_frame(&v0, far_mac, 0x73);
    g_assert_cmpuint(link_frames(&r), ==, n + 1);
    w = g_ptr_array_index(r.pf->h->tx, n);
    g_assert_cmpuint(w->len, ==, 60 + 8);
    g_assert_cmpmem(w->data, 6, far_mac, 6);
    g_assert_cmphex(mlx5_ld32(w->data + 12), ==, 0x88a80009);
    g_assert_cmphex(mlx5_ld32(w->data + 16), ==, 0x81000005);
    g_assert_cmphex(mlx5_ld16(w->data + 20), ==, 0x88b5);
    g_assert_cmpint(w->data[22], ==, 0x73);

    /* the link -> VF 0: both tags popped */
    untagged_to_vf0(&r, &v0, (const uint32_t[]){ 0x88a80009, 0x81000005 }, 2, 0x74);
    rig_free(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/switchdev/offloads", test_offloads);
    g_test_add_func("/mlx5/switchdev/rdma-rx", test_rdma_rx);
    g_test_add_func("/mlx5/switchdev/metadata", test_metadata);
    g_test_add_func("/mlx5/switchdev/sws-fdb", test_sws_fdb);
    g_test_add_func("/mlx5/switchdev/fdb-actions", test_fdb_actions);
    g_test_add_func("/mlx5/switchdev/fdb-qinq-source", test_fdb_qinq_source);
    return g_test_run();
}
