/*
 * Unit tests of SR-IOV (mlx5_sriov.c) and the embedded switch (eth/mlx5_eswitch.c): a PF core
 * with VF cores attached, each driven by its own mini driver over its own fake host (its own
 * memory: what one function's DMA reaches no other can). The PF enables and disables its VFs
 * (ENABLE/DISABLE_HCA function_id), a VF's initialization segment says "initializing" until
 * then; frames between the functions and the PF's link are switched by address.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testsriov.h"
#include "hw/rdma/mlx5/mlx5_qos_prm.h"

static void test_enable(void)
{
    uint8_t out[QUERY_HCA_CAP_OUT_SIZE];
    uint32_t synd;
    Rig r;
    TEth t;

    rig_new(&r);
    /* a VF is "initializing" until its PF enables it */
    g_assert_true(vf_initializing(r.vf[0]));
    g_assert_false(vf_initializing(r.pf));
    /* functions the PF does not have, and the PF's own number from ENABLE's field */
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_ENABLE_HCA, NVFS + 1, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmphex(synd, ==, 0x10000005);
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_ENABLE_HCA, 0xffff, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_true(vf_initializing(r.vf[0]));

    vf_up(&r, 0, &t);
    g_assert_true(vf_initializing(r.vf[1]));
    /* the VF's caps: its vhca_id, no E-Switch or vport group management */
    g_assert_cmpint(tdrv_simple(r.vf[0], MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_vhca_id), ==, 1);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_port_type), ==, 1);
    /* a VF enables no other function */
    g_assert_cmpint(enable_hca(r.vf[0], MLX5_CMD_OP_ENABLE_HCA, 2, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_true(vf_initializing(r.vf[1]));
    g_assert_cmpint(enable_hca(r.vf[0], MLX5_CMD_OP_DISABLE_HCA, 2, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* the PF disables it: back to initializing, its function reset (no PD can be made) */
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_DISABLE_HCA, 1, &synd), ==, 0);
    g_assert_true(vf_initializing(r.vf[0]));
    g_assert_false(r.vf[0]->c->hca_initialized);

    /* the PF's reset takes its VFs with it */
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_ENABLE_HCA, 2, &synd), ==, 0);
    g_assert_false(vf_initializing(r.vf[1]));
    mlx5_core_reset(r.pf->c, MLX5_RESET_SYSTEM);
    g_assert_true(vf_initializing(r.vf[1]));
    rig_free(&r);
}

static void test_switch(void)
{
    TEth p, v0, v1;
    uint8_t f[60] = { 0 }, state[16];
    uint32_t synd;
    unsigned n;
    Rig r;

    rig_new(&r);
    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);
    vf_up(&r, 1, &v1);
    teth_post_recv(&p, 2048, p.mem);
    teth_post_recv(&v0, 2048, v0.mem);
    teth_post_recv(&v1, 2048, v1.mem);
    /* the VFs' ports are up with the PF's link */
    g_assert_cmpint(tdrv_simple(r.vf[0], MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, state, 16), ==,
                    0);
    g_assert_cmpint(MLX5_GET(state, QUERY_VPORT_STATE_OUT_state), ==, 1);

    /* VF to VF: the receiver's alone, never on the link */
    n = link_frames(&r);
    send_frame(&v0, vf_mac[1], 0x11);
    g_assert_true(got_frame(&v1, 0x11));
    g_assert_false(got_frame(&p, 0x11));
    g_assert_cmpuint(link_frames(&r), ==, n);
    /* VF to PF */
    send_frame(&v1, pf_mac, 0x12);
    g_assert_true(got_frame(&p, 0x12));
    g_assert_false(got_frame(&v0, 0x12));
    g_assert_cmpuint(link_frames(&r), ==, n);
    /* PF to VF */
    send_frame(&p, vf_mac[0], 0x13);
    g_assert_true(got_frame(&v0, 0x13));
    g_assert_cmpuint(link_frames(&r), ==, n);
    /* to anyone else: the link */
    send_frame(&v0, far_mac, 0x14);
    g_assert_cmpuint(link_frames(&r), ==, n + 1);
    g_assert_cmpmem(((GByteArray *)g_ptr_array_index(r.pf->h->tx, n))->data, 6, far_mac, 6);
    g_assert_false(got_frame(&p, 0x14) || got_frame(&v1, 0x14));
    /* broadcast: every other function and the link, not back to the source */
    trace_counts_reset();
    send_frame(&v0, bcast, 0x15);
    g_assert_cmpuint(link_frames(&r), ==, n + 2);
    g_assert_cmpuint(trace_count("mlx5_esw_fwd"), ==, 2);

    /* from the link: to a VF's address, that VF only; to the PF's, the PF */
    memcpy(f, vf_mac[1], 6);
    memcpy(f + 6, far_mac, 6);
    mlx5_st16(f + 12, 0x88b5);
    memset(f + 14, 0x16, sizeof(f) - 14);
    g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, sizeof(f)));
    g_assert_false(got_frame(&p, 0x16));
    g_assert_true(got_frame(&v1, 0x16));
    memcpy(f, pf_mac, 6);
    memset(f + 14, 0x17, sizeof(f) - 14);
    g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, sizeof(f)));
    g_assert_true(got_frame(&p, 0x17));
    g_assert_false(got_frame(&v1, 0x17));

    /* the PF's link down: the VFs' ports too, and frames to the link are lost */
    mlx5_core_link_set_up(r.pf->c, 1, false);
    g_assert_cmpint(tdrv_simple(r.vf[0], MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, state, 16), ==,
                    0);
    g_assert_cmpint(MLX5_GET(state, QUERY_VPORT_STATE_OUT_state), ==, 0);
    mlx5_core_link_set_up(r.pf->c, 1, true);
    g_assert_cmpint(tdrv_simple(r.vf[0], MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, state, 16), ==,
                    0);
    g_assert_cmpint(MLX5_GET(state, QUERY_VPORT_STATE_OUT_state), ==, 1);

    /* a disabled VF is no switch port: its address is the link's again, the PF's to decide */
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_DISABLE_HCA, 2, &synd), ==, 0);
    n = link_frames(&r);
    send_frame(&v0, vf_mac[1], 0x18);
    g_assert_cmpuint(link_frames(&r), ==, n + 1);
    rig_free(&r);
}

/* Frames a function cannot take yet wait in its queue, at most 256; the rest are dropped. */
static void test_queue_bound(void)
{
    TEth p, v0;
    uint8_t f[60] = { 0 };
    unsigned i;
    Rig r;

    rig_new(&r);
    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);
    memcpy(f, vf_mac[0], 6);
    memcpy(f + 6, far_mac, 6);
    mlx5_st16(f + 12, 0x88b5);
    trace_counts_reset();
    for (i = 0; i < 300; i++) {
        g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, sizeof(f)));
    }
    g_assert_cmpuint(trace_count("mlx5_esw_fwd"), ==, 256);
    g_assert_cmpuint(trace_count("mlx5_esw_drop"), ==, 44);
    /* the VF takes them at its runs, 64 a run (no receive WQE: dropped there) */
    g_assert_true(mlx5_core_run(r.vf[0]->c, 1000));
    g_assert_cmpuint(g_queue_get_length(&r.vf[0]->c->esw_rxq), ==, 256 - 64);
    while (mlx5_core_run(r.vf[0]->c, 1000)) {
    }
    g_assert_true(g_queue_is_empty(&r.vf[0]->c->esw_rxq));
    /* a detached VF is nobody's port; the PF's reset with it detached is harmless */
    mlx5_core_vf_detach(r.vf[0]->c);
    send_frame(&v0, far_mac, 1);
    mlx5_core_reset(r.pf->c, MLX5_RESET_SYSTEM);
    mlx5_core_vf_attach(r.pf->c, 0, r.vf[0]->c);
    rig_free(&r);
}

/* The PF manages its VFs' NIC vports (vport_group_manager): MAC, GUID, state, counters. */
static void test_vport(void)
{
    static const uint8_t admin[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    uint8_t in[MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_SIZE], out[VPORT_COUNTER_OUT_SIZE];
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE];
    uint8_t *nvc = out + QUERY_NIC_VPORT_OUT_CTX_OFF;
    uint32_t synd;
    TEth p, v0;
    Rig r;

    rig_new(&r);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, cap, sizeof(cap)),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_vport_group_manager), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_vhca_id), ==, 0);
    /* another function's caps: the PF's VF 2 (function 2); no function 3 */
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 1u << 31 | 2, 0, cap,
                                sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_vhca_id), ==, 2);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_vport_group_manager), ==, 0);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 1u << 31 | 3, 0, cap,
                                sizeof(cap)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* before the VF is enabled, as mlx5_core sets an administrative MAC and node GUID */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, MODIFY_NIC_VPORT_IN_field_select,
             MLX5_NVC_FS_PERMANENT_ADDRESS | MLX5_NVC_FS_NODE_GUID);
    memcpy(in + MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_permanent_address_OFF, admin, 6);
    mlx5_st64(in + MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_node_guid_OFF, 0x0211223344550001ull);
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, true, 1, in,
                              sizeof(in), out, 16), ==, 0);
    /* no vport 3 (two VFs), and a VF manages no other vport */
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, true, 3, in,
                              sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_ENABLE_HCA, 1, &synd), ==, 0);
    tdrv_bringup(r.vf[0]);
    g_assert_cmpint(tdrv_simple(r.vf[0], MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, cap, sizeof(cap)),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_vport_group_manager), ==, 0);
    /* a VF sees no other function's caps */
    g_assert_cmpint(tdrv_simple(r.vf[0], MLX5_CMD_OP_QUERY_HCA_CAP, 1, 1u << 31 | 2, 0, cap,
                                sizeof(cap)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    memset(in, 0, sizeof(in));
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, true, 2, in, 0x10,
                              out, sizeof(out)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, true, 0, in, 0x10,
                              out, sizeof(out)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* the VF's own context has them */
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, false, 0, in, 0x10,
                              out, sizeof(out)), ==, 0);
    g_assert_cmpmem(nvc + NVC_permanent_address_OFF, 6, admin, 6);
    g_assert_cmphex(mlx5_ld64(nvc + NVC_node_guid_OFF), ==, 0x0211223344550001ull);

    /* traffic, then the PF reads the VF's counters and state */
    teth_setup(&p, r.pf);
    teth_setup(&v0, r.vf[0]);
    teth_post_recv(&p, 2048, p.mem);
    send_frame(&v0, pf_mac, 0x21);
    g_assert_true(got_frame(&p, 0x21));
    memset(in, 0, sizeof(in));
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_VPORT_COUNTER, true, 1, in, 0x20, out,
                              VPORT_COUNTER_OUT_SIZE), ==, 0);
    g_assert_cmpuint(mlx5_ld64(out + VC_tx_ucast_OFF), ==, 1);
    g_assert_cmpuint(mlx5_ld64(out + VC_tx_ucast_OFF + 8), ==, 60);
    memset(in, 0, sizeof(in));
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_VPORT_STATE, true, 1, in, 0x10, out, 16),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(out, QUERY_VPORT_STATE_OUT_state), ==, 1);
    /* the PF's own vport by number */
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, true, 0, in, 0x10,
                              out, sizeof(out)), ==, 0);
    g_assert_cmpmem(nvc + NVC_permanent_address_OFF, 6, pf_mac, 6);

    /*
     * the HCA vport context (InfiniBand's; mlx5_core writes a VF's at each VF Enable): the PF
     * sets a VF's node GUID and state policy and reads them back; a VF sets none
     */
    {
        uint8_t hin[HCA_VPORT_CTX_OFF + 0x80] = { 0 }, hout[QUERY_HCA_VPORT_CONTEXT_OUT_SIZE];
        uint8_t *hc = hin + HCA_VPORT_CTX_OFF;

        MLX5_SET(hin, QUERY_HCA_VPORT_CONTEXT_IN_port_num, 1);
        g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, true, 1, hin,
                                  sizeof(hin), out, 16), ==, 0);       /* (nothing selected) */
        MLX5_SET(hc, HCA_VPORT_CTX_field_select,
                 MLX5_HCA_VPORT_SEL_NODE_GUID | MLX5_HCA_VPORT_SEL_STATE_POLICY);
        mlx5_st64(hc + HCA_VPORT_CTX_node_guid_OFF, 0x0211223344550002ull);
        MLX5_SET(hc, HCA_VPORT_CTX_vport_state_policy, 3);              /* no such policy */
        g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, true, 1, hin,
                                  sizeof(hin), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
        MLX5_SET(hc, HCA_VPORT_CTX_vport_state_policy, 1);
        g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, true, 1, hin,
                                  sizeof(hin), out, 16), ==, 0);
        g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, true, 2, hin,
                                  sizeof(hin), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
        g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, false, 0, hin,
                                  sizeof(hin), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
        /* nor its own: its PF's policy and GUIDs stand */
        g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, false, 0, hin,
                                  sizeof(hin), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
        memset(hin, 0, sizeof(hin));
        g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, true, 1, hin,
                                  0x10, hout, sizeof(hout)), ==, 0);
        g_assert_cmphex(mlx5_ld64(hout + HCA_VPORT_CTX_OFF + HCA_VPORT_CTX_node_guid_OFF), ==,
                        0x0211223344550002ull);
        g_assert_cmpint(MLX5_GET(hout + HCA_VPORT_CTX_OFF, HCA_VPORT_CTX_vport_state_policy), ==,
                        1);
        /* another vport's GID table: not offered */
        g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_HCA_VPORT_GID, true, 1, hin, 0x10,
                                  hout, 0x20), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    }

    /* the VF's reset (its driver's reload) keeps the administrative MAC; the PF's does not */
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_DISABLE_HCA, 1, &synd), ==, 0);
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_ENABLE_HCA, 1, &synd), ==, 0);
    reprobe(r.vf[0]);
    g_assert_cmpmem(r.vf[0]->c->eth->mac, 6, admin, 6);
    mlx5_core_reset(r.pf->c, MLX5_RESET_SYSTEM);
    g_assert_cmpint(r.vf[0]->c->eth->mac[0] | r.vf[0]->c->eth->mac[5], ==, 0);
    rig_free(&r);
}

/*
 * The E-Switch manager (esw_manager): its caps, the L2 table, the FDB switching frames by its
 * entries (a miss from a function to the link, from the link nowhere), vport admin states and
 * NIC_VPORT_CHANGE events.
 */
static void test_fdb(void)
{
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], in[0x200], out[0x40], f[60] = { 0 }, eqe[64];
    uint8_t nvc_in[MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_SIZE + 8];
    uint32_t ft, fg, synd, vp[4];
    uint64_t eq_pa;
    TEth p, v0, v1;
    unsigned n;
    Rig r;

    rig_new_esw(&r, true);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, cap, sizeof(cap)),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_eswitch_manager), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_log_max_l2_table), ==, 5);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP,
                                MLX5_CAP_ESWITCH_FLOW_TABLE << 1, 0, 0, cap, sizeof(cap)),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_ft_support), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_max_ft_level), ==, 255);
    /* the L2 table: 32 entries */
    memset(in, 0, 0x20);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_L2_TABLE_ENTRY);
    MLX5_SET(in, L2_IN_table_index, 3);
    g_assert_cmpint(tdrv_exec(r.pf, in, 0x20, out, 16), ==, 0);
    MLX5_SET(in, L2_IN_table_index, 32);
    g_assert_cmpint(tdrv_exec(r.pf, in, 0x20, out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);
    vf_up(&r, 1, &v1);
    /* a VF is no manager: no FDB, no vport state, no L2 table */
    g_assert_cmpint(vport_state(r.vf[0], 2, MLX5_VPORT_ADMIN_DOWN), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(in, L2_IN_table_index, 3);
    g_assert_cmpint(tdrv_exec(r.vf[0], in, 0x20, out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, 1);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 4);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    g_assert_cmpint(tdrv_exec(r.vf[0], in, 0x40, out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* the manager's FDB: VF 1's MAC to vport 2, the PF's to vport 0, broadcast everywhere */
    ft = teth_obj_create(r.pf, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FG_IN_start_flow_index, 0);
    MLX5_SET(in, FG_IN_end_flow_index, 13);
    MLX5_SET(in, FG_IN_match_criteria_enable, 1);
    memset(in + FG_IN_criteria_OFF + MS_dmac_47_16_OFF, 0xff, 6);
    {
        g_autofree uint8_t *fgi = g_malloc0(FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE);

        memcpy(fgi, in, sizeof(in) < FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE
                            ? sizeof(in) : FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE);
        MLX5_SET(fgi, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
        memset(fgi + FG_IN_criteria_OFF + MS_dmac_47_16_OFF, 0xff, 6);
        g_assert_cmpint(tdrv_exec(r.pf, fgi, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE,
                                  out, 16), ==, 0);
        fg = MLX5_GET(out, FG_OUT_group_id);
    }
    vp[0] = 2;
    g_assert_cmpint(fdb_rule(r.pf, ft, fg, 0, vf_mac[1], 1, vp), ==, 0);
    vp[0] = 0;
    g_assert_cmpint(fdb_rule(r.pf, ft, fg, 1, pf_mac, 1, vp), ==, 0);
    vp[0] = 0, vp[1] = 1, vp[2] = 2, vp[3] = MLX5_VPORT_UPLINK;
    g_assert_cmpint(fdb_rule(r.pf, ft, fg, 2, bcast, 4, vp), ==, 0);
    vp[0] = 3;                                  /* no vport 3 */
    g_assert_cmpint(fdb_rule(r.pf, ft, fg, 3, far_mac, 1, vp), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    memset(in, 0, 0x40);
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(in, FT_IN_table_id, ft);
    teth_obj_create(r.pf, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, 0x40);

    teth_post_recv(&p, 2048, p.mem);
    teth_post_recv(&v0, 2048, v0.mem);
    teth_post_recv(&v1, 2048, v1.mem);
    n = link_frames(&r);
    send_frame(&v0, vf_mac[1], 0x31);           /* by its entry */
    g_assert_true(got_frame(&v1, 0x31));
    g_assert_cmpuint(link_frames(&r), ==, n);
    send_frame(&v1, pf_mac, 0x32);
    g_assert_true(got_frame(&p, 0x32));
    send_frame(&v1, vf_mac[0], 0x33);           /* VF 0's MAC has no entry: the link */
    g_assert_false(got_frame(&v0, 0x33));
    g_assert_cmpuint(link_frames(&r), ==, n + 1);
    trace_counts_reset();
    send_frame(&v0, bcast, 0x34);               /* to vports 0, 2 and the link, not back */
    g_assert_cmpuint(trace_count("mlx5_esw_fwd"), ==, 2);
    g_assert_cmpuint(link_frames(&r), ==, n + 2);
    memcpy(f + 6, far_mac, 6);
    mlx5_st16(f + 12, 0x88b5);
    memcpy(f, vf_mac[1], 6);
    memset(f + 14, 0x35, sizeof(f) - 14);
    g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, sizeof(f)));
    g_assert_true(got_frame(&v1, 0x35));
    memcpy(f, vf_mac[0], 6);                    /* from the link, no entry: nowhere */
    memset(f + 14, 0x36, sizeof(f) - 14);
    g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, sizeof(f)));
    g_assert_false(got_frame(&v0, 0x36));
    g_assert_false(got_frame(&p, 0x36));
    memcpy(f, pf_mac, 6);
    memset(f + 14, 0x37, sizeof(f) - 14);
    g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, sizeof(f)));
    g_assert_true(got_frame(&p, 0x37));

    /* vport admin state: down, up without the link, follow */
    g_assert_cmpint(vport_state(r.pf, 1, MLX5_VPORT_ADMIN_DOWN), ==, 0);
    g_assert_cmpuint(vf_oper(r.vf[0]), ==, 0);
    g_assert_cmpint(vport_state(r.pf, 1, MLX5_VPORT_ADMIN_UP), ==, 0);
    mlx5_core_link_set_up(r.pf->c, 1, false);
    g_assert_cmpuint(vf_oper(r.vf[0]), ==, 1);
    g_assert_cmpuint(vf_oper(r.vf[1]), ==, 0);
    g_assert_cmpint(vport_state(r.pf, 1, MLX5_VPORT_ADMIN_AUTO), ==, 0);
    g_assert_cmpuint(vf_oper(r.vf[0]), ==, 0);
    mlx5_core_link_set_up(r.pf->c, 1, true);
    g_assert_cmpuint(vf_oper(r.vf[0]), ==, 1);
    g_assert_cmpint(vport_state(r.pf, 0, MLX5_VPORT_ADMIN_DOWN), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(vport_state(r.pf, 3, MLX5_VPORT_ADMIN_DOWN), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* NIC_VPORT_CHANGE: armed for UC changes of vport 2, one shot */
    tdrv_create_eq(r.pf, 1ull << MLX5_EVENT_TYPE_NIC_VPORT_CHANGE, 4, 0, &eq_pa);
    memset(nvc_in, 0, sizeof(nvc_in));
    MLX5_SET(nvc_in, MODIFY_NIC_VPORT_IN_field_select, MLX5_NVC_FS_CHANGE_EVENT);
    MLX5_SET(nvc_in + MODIFY_NIC_VPORT_IN_CTX_OFF, NVC_arm_change_event, 1);
    MLX5_SET(nvc_in + MODIFY_NIC_VPORT_IN_CTX_OFF, NVC_event_on, MLX5_NVC_EV_UC);
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, true, 2, nvc_in,
                              sizeof(nvc_in), out, 16), ==, 0);
    memset(nvc_in, 0, sizeof(nvc_in));          /* VF 1: its MC list (not armed), UC list */
    MLX5_SET(nvc_in, MODIFY_NIC_VPORT_IN_field_select, MLX5_NVC_FS_ADDRESSES_LIST);
    MLX5_SET(nvc_in + MODIFY_NIC_VPORT_IN_CTX_OFF, NVC_allowed_list_type, MLX5_NVC_LIST_MC);
    g_assert_cmpint(vport_cmd(r.vf[1], MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, false, 0, nvc_in,
                              sizeof(nvc_in), out, 16), ==, 0);
    mlx5_core_run(r.pf->c, 100);
    tdrv_eqe(r.pf, eq_pa, 0, eqe);
    g_assert_cmpint(eqe[MLX5_EQE_owner] & 1, ==, 1);        /* (still the device's) */
    MLX5_SET(nvc_in + MODIFY_NIC_VPORT_IN_CTX_OFF, NVC_allowed_list_type, MLX5_NVC_LIST_UC);
    MLX5_SET(nvc_in + MODIFY_NIC_VPORT_IN_CTX_OFF, NVC_allowed_list_size, 1);
    memcpy(nvc_in + MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_LIST_OFF + 2, vf_mac[1], 6);
    g_assert_cmpint(vport_cmd(r.vf[1], MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, false, 0, nvc_in,
                              sizeof(nvc_in), out, 16), ==, 0);
    tdrv_eqe(r.pf, eq_pa, 0, eqe);
    g_assert_cmpint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_NIC_VPORT_CHANGE);
    g_assert_cmpint(mlx5_ld16(eqe + MLX5_EQE_data + 2), ==, 2);
    g_assert_cmpint(vport_cmd(r.vf[1], MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, false, 0, nvc_in,
                              sizeof(nvc_in), out, 16), ==, 0);
    tdrv_eqe(r.pf, eq_pa, 1, eqe);
    g_assert_cmpint(eqe[MLX5_EQE_owner] & 1, ==, 1);        /* one shot: no second */

    /*
     * VF 0's ingress ACL, as mlx5_core's spoof check: its MAC as the source allowed, the rest
     * dropped; the manager's alone, and each vport's its own
     */
    {
        uint32_t acl, fga, fgb;
        g_autofree uint8_t *fgi = g_malloc0(FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE);
        g_autofree uint8_t *fte = g_malloc0(FTE_CTX_OFF + FC_dest_OFF + 8);

        memset(in, 0, 0x40);
        MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL);
        MLX5_SET(in, VPORT_IN_other_vport, 1);
        MLX5_SET(in, VPORT_IN_vport_number, 1);
        MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 2);
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
        g_assert_cmpint(tdrv_exec(r.vf[0], in, 0x40, out, 16), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
        MLX5_SET(in, VPORT_IN_vport_number, NVFS + 1);          /* no such vport */
        g_assert_cmpint(tdrv_exec(r.pf, in, 0x40, out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
        MLX5_SET(in, VPORT_IN_vport_number, 1);
        acl = teth_obj_create(r.pf, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);
        MLX5_SET(fgi, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
        MLX5_SET(fgi, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL);
        MLX5_SET(fgi, VPORT_IN_other_vport, 1);
        MLX5_SET(fgi, VPORT_IN_vport_number, 2);                /* another vport's table */
        MLX5_SET(fgi, FT_IN_table_id, acl);
        MLX5_SET(fgi, FG_IN_match_criteria_enable, 1);
        memset(fgi + FG_IN_criteria_OFF + MS_smac_47_16_OFF, 0xff, 6);
        g_assert_cmpint(tdrv_exec(r.pf, fgi, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE,
                                  out, 16), ==, MLX5_CMD_STAT_BAD_RES_ERR);
        MLX5_SET(fgi, VPORT_IN_vport_number, 1);
        g_assert_cmpint(tdrv_exec(r.pf, fgi, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE,
                                  out, 16), ==, 0);
        fga = MLX5_GET(out, FG_OUT_group_id);
        memset(fgi + FG_IN_criteria_OFF, 0, MLX5_FTE_MATCH_PARAM_SIZE);
        MLX5_SET(fgi, FG_IN_match_criteria_enable, 0);
        MLX5_SET(fgi, FG_IN_start_flow_index, 1);
        MLX5_SET(fgi, FG_IN_end_flow_index, 1);
        g_assert_cmpint(tdrv_exec(r.pf, fgi, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE,
                                  out, 16), ==, 0);
        fgb = MLX5_GET(out, FG_OUT_group_id);
        MLX5_SET(fte, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
        MLX5_SET(fte, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL);
        MLX5_SET(fte, VPORT_IN_other_vport, 1);
        MLX5_SET(fte, VPORT_IN_vport_number, 1);
        MLX5_SET(fte, FT_IN_table_id, acl);
        MLX5_SET(fte + FTE_CTX_OFF, FC_group_id, fga);
        MLX5_SET(fte + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_ALLOW);
        memcpy(fte + FTE_CTX_OFF + FC_match_value_OFF + MS_smac_47_16_OFF, vf_mac[0], 6);
        g_assert_cmpint(tdrv_exec(r.pf, fte, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==, 0);
        memset(fte + FTE_CTX_OFF, 0, FC_dest_OFF + 8);
        MLX5_SET(fte, FTE_IN_flow_index, 1);
        MLX5_SET(fte + FTE_CTX_OFF, FC_group_id, fgb);
        MLX5_SET(fte + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_DROP);
        g_assert_cmpint(tdrv_exec(r.pf, fte, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==, 0);
        /* (an ACL forwards to no vport: that is the FDB's) */
        MLX5_SET(fgi, FG_IN_start_flow_index, 2);
        MLX5_SET(fgi, FG_IN_end_flow_index, 2);
        g_assert_cmpint(tdrv_exec(r.pf, fgi, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE,
                                  out, 16), ==, 0);
        MLX5_SET(fte, FTE_IN_flow_index, 2);
        MLX5_SET(fte + FTE_CTX_OFF, FC_group_id, MLX5_GET(out, FG_OUT_group_id));
        MLX5_SET(fte + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
        MLX5_SET(fte + FTE_CTX_OFF, FC_destination_list_size, 1);
        MLX5_SET(fte + FTE_CTX_OFF + FC_dest_OFF, DEST_type, MLX5_FLOW_DEST_TYPE_VPORT);
        MLX5_SET(fte + FTE_CTX_OFF + FC_dest_OFF, DEST_id, 2);
        g_assert_cmpint(tdrv_exec(r.pf, fte, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
        g_assert_cmphex(tdrv_syndrome(out), ==, 0x30000006);
        memset(in, 0, 0x40);
        MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL);
        MLX5_SET(in, VPORT_IN_other_vport, 1);
        MLX5_SET(in, VPORT_IN_vport_number, 1);
        MLX5_SET(in, FT_IN_table_id, acl);
        teth_obj_create(r.pf, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, 0x40);
        trace_counts_reset();
        send_frame(&v0, pf_mac, 0x38);                          /* its own MAC: allowed */
        g_assert_true(got_frame(&p, 0x38));
        send_frame_from(&v0, pf_mac, far_mac, 0x39);            /* spoofed: dropped */
        g_assert_false(got_frame(&p, 0x39));
        g_assert_cmpuint(trace_count("mlx5_esw_acl_drop"), ==, 1);
        /* the ACL table gone: no spoof check */
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DESTROY_FLOW_TABLE);
        g_assert_cmpint(tdrv_exec(r.pf, in, 0x40, out, 16), ==, 0);
        g_assert_cmpuint(r.vf[0]->c->acl_root[0], ==, 0);
        send_frame_from(&v0, pf_mac, far_mac, 0x3a);
        g_assert_true(got_frame(&p, 0x3a));
    }

    /* the root destroyed (the legacy teardown): the address switch again */
    g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_DISABLE_HCA, 2, &synd), ==, 0);
    memset(in, 0, 0x40);
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DESTROY_FLOW_TABLE);
    g_assert_cmpint(tdrv_exec(r.pf, in, 0x40, out, 16), ==, 0);
    g_assert_cmpuint(r.pf->c->eth->root_ft_fdb, ==, 0);
    rig_free(&r);
}

/* MODIFY_ESW_VPORT_CONTEXT of @vport: field select @fs, C-VLAN insert mode @ins, TCI @tci. */
static int esw_vport_vlan(TDrv *d, unsigned vport, unsigned fs, bool strip, unsigned ins,
                          uint16_t tci, uint32_t *synd)
{
    uint8_t in[ESW_VPORT_IN_CTX_OFF + ESW_VPORT_CTX_SIZE] = { 0 }, out[16];
    uint8_t *ctx = in + ESW_VPORT_IN_CTX_OFF;
    int st;

    MLX5_SET(in, ESW_VPORT_IN_field_select, fs);
    MLX5_SET(ctx, ESWC_vport_cvlan_strip, strip);
    MLX5_SET(ctx, ESWC_vport_cvlan_insert, ins);
    MLX5_SET(ctx, ESWC_cvlan_pcp, tci >> 13);
    MLX5_SET(ctx, ESWC_cvlan_id, tci & 0xfff);
    st = vport_cmd(d, MLX5_CMD_OP_MODIFY_ESW_VPORT_CONTEXT, true, vport, in, sizeof(in), out,
                   sizeof(out));
    *synd = tdrv_syndrome(out);
    return st;
}

/*
 * The next frame received on @t: its first 16 bytes in @f, and in @tci the C-VLAN tag its RQ
 * stripped (its CQE's; -1: none).
 */
static bool got_head(TEth *t, uint8_t *f, int *tci)
{
    uint8_t cqe[64];

    if (!teth_poll_cqe(t, cqe)) {
        return false;
    }
    *tci = cqe[MLX5_CQE_l4_l3_hdr_type] & 1 ? mlx5_ld16(cqe + MLX5_CQE_vlan_info) : -1;
    fake_read(t->d->h, t->mem, f, 16);
    teth_post_recv(t, 2048, t->mem);
    return true;
}

/*
 * VST (`ip link set PF vf 0 vlan 10 qos 3`, the legacy E-Switch's vport context): VF 0's
 * untagged frames leave tagged with its VLAN and priority, tagged ones as they are; what the
 * switch gives it loses its C-VLAN tag; what the caps do not offer is refused.
 */
static void test_vst(void)
{
    const uint8_t *dmacs[3] = { pf_mac, vf_mac[0], vf_mac[1] };
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], in[0x40] = { 0 }, out[0x120], f[64] = { 0 }, h[16];
    uint8_t qin[0x10] = { 0 };
    g_autofree uint8_t *fgi = g_malloc0(FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE);
    const uint16_t tci = 3 << 13 | 10;
    uint32_t ft, fg, synd, vp;
    TEth p, v0, v1;
    unsigned i, n;
    GByteArray *l;
    int t;
    Rig r;

    rig_new_esw(&r, true);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_ESWITCH << 1, 0, 0,
                                cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_CAP_vport_cvlan_strip), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ESW_CAP_vport_cvlan_insert_if_not_exist), ==, 1);
    teth_setup(&p, r.pf);
    vf_up(&r, 0, &v0);
    vf_up(&r, 1, &v1);
    /* an FDB: each function's MAC to its vport */
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 4);
    ft = teth_obj_create(r.pf, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);
    MLX5_SET(fgi, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    MLX5_SET(fgi, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(fgi, FT_IN_table_id, ft);
    MLX5_SET(fgi, FG_IN_end_flow_index, 3);
    MLX5_SET(fgi, FG_IN_match_criteria_enable, 1);
    memset(fgi + FG_IN_criteria_OFF + MS_dmac_47_16_OFF, 0xff, 6);
    g_assert_cmpint(tdrv_exec(r.pf, fgi, FG_IN_criteria_OFF + MLX5_FTE_MATCH_PARAM_SIZE, out,
                              16), ==, 0);
    fg = MLX5_GET(out, FG_OUT_group_id);
    for (i = 0; i < 3; i++) {
        vp = i;
        g_assert_cmpint(fdb_rule(r.pf, ft, fg, i, dmacs[i], 1, &vp), ==, 0);
    }
    MLX5_SET(in, FT_IN_table_id, ft);
    teth_obj_create(r.pf, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, 0x40);

    /* what the caps do not offer, and who may not */
    g_assert_cmpint(esw_vport_vlan(r.pf, 1, MLX5_ESWC_FS_SVLAN_STRIP, true, 0, 0, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(esw_vport_vlan(r.pf, 1, MLX5_ESWC_FS_CVLAN_INSERT, false, 3, tci, &synd),
                    ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(esw_vport_vlan(r.vf[1], 1, MLX5_ESWC_FS_CVLAN_STRIP, true, 0, 0, &synd),
                    ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(esw_vport_vlan(r.pf, 3, MLX5_ESWC_FS_CVLAN_STRIP, true, 0, 0, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_false(r.vf[0]->c->esw_cvlan_strip);
    /* VST on vport 1, read back */
    g_assert_cmpint(esw_vport_vlan(r.pf, 1, MLX5_ESWC_FS_CVLAN_STRIP | MLX5_ESWC_FS_CVLAN_INSERT,
                                   true, MLX5_ESWC_CVLAN_INSERT_WHEN_NO_CVLAN, tci, &synd),
                    ==, 0);
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT, true, 1, qin,
                              sizeof(qin), out, ESW_VPORT_OUT_CTX_OFF + ESW_VPORT_CTX_SIZE),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(out + ESW_VPORT_OUT_CTX_OFF, ESWC_vport_cvlan_strip), ==, 1);
    g_assert_cmpint(MLX5_GET(out + ESW_VPORT_OUT_CTX_OFF, ESWC_vport_cvlan_insert), ==, 1);
    g_assert_cmpint(MLX5_GET(out + ESW_VPORT_OUT_CTX_OFF, ESWC_cvlan_pcp), ==, 3);
    g_assert_cmpint(MLX5_GET(out + ESW_VPORT_OUT_CTX_OFF, ESWC_cvlan_id), ==, 10);

    teth_post_recv(&p, 2048, p.mem);
    teth_post_recv(&v0, 2048, v0.mem);
    teth_post_recv(&v1, 2048, v1.mem);
    /* untagged from VF 0: tagged at the PF, at VF 1 and on the link */
    send_frame(&v0, pf_mac, 0x41);
    g_assert_true(got_head(&p, h, &t));        /* (its RQ strips: the CQE has it) */
    g_assert_cmphex(t, ==, tci);
    send_frame(&v0, vf_mac[1], 0x42);
    g_assert_true(got_head(&v1, h, &t));
    g_assert_cmphex(t, ==, tci);
    n = link_frames(&r);
    send_frame(&v0, far_mac, 0x43);                     /* no entry: the link */
    g_assert_cmpuint(link_frames(&r), ==, n + 1);
    l = g_ptr_array_index(r.pf->h->tx, n);
    g_assert_cmpuint(l->len, ==, 64);
    g_assert_cmphex(mlx5_ld16(l->data + 12), ==, 0x8100);
    g_assert_cmphex(mlx5_ld16(l->data + 14), ==, tci);
    g_assert_cmphex(mlx5_ld16(l->data + 16), ==, 0x88b5);
    /* tagged already: as it is (insert only when there is none) */
    memcpy(f, pf_mac, 6);
    memcpy(f + 6, vf_mac[0], 6);
    mlx5_st16(f + 12, 0x8100);
    mlx5_st16(f + 14, 5);
    mlx5_st16(f + 16, 0x88b5);
    teth_post_send(&v0, MLX5_OPCODE_SEND, 0, 0, f, 60, 0, 0, -1);
    g_assert_true(teth_poll_cqe(&v0, out));
    g_assert_true(got_head(&p, h, &t));
    g_assert_cmphex(t, ==, 5);
    /* to VF 0, tagged from the link or from VF 1: stripped */
    memcpy(f, vf_mac[0], 6);
    memcpy(f + 6, far_mac, 6);
    mlx5_st16(f + 14, tci);
    g_assert_true(mlx5_core_link_rx(r.pf->c, 1, f, 64));
    g_assert_true(got_head(&v0, h, &t));
    g_assert_cmphex(mlx5_ld16(h + 12), ==, 0x88b5);
    g_assert_cmpint(t, ==, -1);
    send_frame(&v1, vf_mac[0], 0x44);                   /* untagged: as it is */
    g_assert_true(got_head(&v0, h, &t));
    g_assert_cmphex(mlx5_ld16(h + 12), ==, 0x88b5);
    g_assert_cmpint(t, ==, -1);
    /* the PF's reset drops the vport's settings */
    mlx5_core_reset(r.pf->c, MLX5_RESET_SYSTEM);
    g_assert_false(r.vf[0]->c->esw_cvlan_strip || r.vf[0]->c->esw_cvlan_insert);
    rig_free(&r);
}

/*
 * A scheduling element command of @d in hierarchy @hier: CREATE (@op) with @type, @parent,
 * @vport, @max Mb/s and @bw share (its id in *@id), or another naming *@id (MODIFY: @max).
 */
static int sched(TDrv *d, uint16_t op, unsigned hier, unsigned type, uint32_t parent,
                 unsigned vport, uint32_t max, uint32_t bw, uint32_t *id)
{
    uint8_t in[SCHED_IN_SIZE] = { 0 }, out[SCHED_OUT_CTX_OFF + SCHED_CTX_SIZE];
    uint8_t *ctx = in + SCHED_IN_CTX_OFF;
    bool ctx_in = op == MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT ||
                  op == MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT;
    int st;

    MLX5_SET(in, CMD_IN_opcode, op);
    MLX5_SET(in, SCHED_IN_hierarchy, hier);
    MLX5_SET(in, SCHED_IN_element_id, *id);
    MLX5_SET(in, SCHED_IN_modify_bitmask,
             MLX5_SCHED_MODIFY_MAX_AVERAGE_BW | MLX5_SCHED_MODIFY_BW_SHARE);
    MLX5_SET(ctx, SCHED_CTX_element_type, type);
    MLX5_SET(ctx, SCHED_CTX_vport_number, vport);
    MLX5_SET(ctx, SCHED_CTX_parent_element_id, parent);
    MLX5_SET(ctx, SCHED_CTX_max_average_bw, max);
    MLX5_SET(ctx, SCHED_CTX_bw_share, bw);
    st = tdrv_exec(d, in, ctx_in ? SCHED_IN_SIZE : SCHED_IN_ID_SIZE, out, sizeof(out));
    if (!st && op == MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT) {
        *id = MLX5_GET(out, SCHED_OUT_element_id);
    } else if (!st && op == MLX5_CMD_OP_QUERY_SCHEDULING_ELEMENT) {
        g_assert_cmpint(MLX5_GET(out + SCHED_OUT_CTX_OFF, SCHED_CTX_element_type), ==, type);
        g_assert_cmpint(MLX5_GET(out + SCHED_OUT_CTX_OFF, SCHED_CTX_vport_number), ==, vport);
        g_assert_cmpint(MLX5_GET(out + SCHED_OUT_CTX_OFF, SCHED_CTX_parent_element_id), ==,
                        parent);
        g_assert_cmpint(MLX5_GET(out + SCHED_OUT_CTX_OFF, SCHED_CTX_max_average_bw), ==, max);
    }
    return st;
}

/*
 * A VF's InfiniBand port (mlx5_vport_ib.c): an HCA vport of its PF's port, its own QPN range, the
 * PF's receive path steering packets to it by QPN and by GRH.
 */
static void test_ib_vport(void)
{
    uint8_t in[HCA_VPORT_CTX_OFF + 0x200], out[QUERY_HCA_VPORT_CONTEXT_OUT_SIZE];
    uint8_t *hc = in + HCA_VPORT_CTX_OFF, *oc = out + HCA_VPORT_CTX_OFF, frame[64] = { 0 };
    uint32_t synd, qpn[2], i;
    Mlx5Core *pf, *vf;
    IbPacket p;
    Rig r;

    rig_new_ib(&r);
    pf = r.pf->c;
    g_assert_cmpint(pf->port.state, ==, IB_PORT_STATE_ACTIVE);
    for (i = 0; i < NVFS; i++) {
        g_assert_cmpint(enable_hca(r.pf, MLX5_CMD_OP_ENABLE_HCA, i + 1, &synd), ==, 0);
        tdrv_bringup(r.vf[i]);
    }
    vf = r.vf[0]->c;

    /* its own context: the PF's port with its own GUID; no SMI, GRH required */
    memset(in, 0, sizeof(in));
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, false, 0, in, 0x10,
                              out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(oc, HCA_VPORT_CTX_vport_state), ==, IB_PORT_STATE_ACTIVE);
    g_assert_cmpint(MLX5_GET(oc, HCA_VPORT_CTX_lid), ==, pf->port.lid);
    g_assert_cmpint(MLX5_GET(oc, HCA_VPORT_CTX_has_smi), ==, 0);
    g_assert_cmpint(MLX5_GET(oc, HCA_VPORT_CTX_grh_required), ==, 1);
    g_assert_cmphex(mlx5_ld64(oc + HCA_VPORT_CTX_port_guid_OFF), ==, vf->cfg.port_guid);
    g_assert_cmphex(vf->cfg.port_guid, !=, pf->cfg.port_guid);
    g_assert_cmphex(MLX5_GET(oc, HCA_VPORT_CTX_cap_mask1_field_select), ==, IB_PORT_CM_SUP);
    /* its driver sets IsCM (ib_cm), nothing else: no other bit, no GUID */
    memset(in, 0, sizeof(in));
    MLX5_SET(hc, HCA_VPORT_CTX_cap_mask1, 0xffffffff);
    MLX5_SET(hc, HCA_VPORT_CTX_cap_mask1_field_select, IB_PORT_CM_SUP);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, false, 0, in,
                              sizeof(in), out, 16), ==, 0);
    g_assert_cmphex(vf->port.cap_mask & (IB_PORT_CM_SUP | IB_PORT_SM), ==, IB_PORT_CM_SUP);
    MLX5_SET(hc, HCA_VPORT_CTX_cap_mask1_field_select, IB_PORT_CM_SUP | IB_PORT_SM);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, false, 0, in,
                              sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(hc, HCA_VPORT_CTX_cap_mask1_field_select, 0);
    MLX5_SET(hc, HCA_VPORT_CTX_field_select, MLX5_HCA_VPORT_SEL_PORT_GUID);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, false, 0, in,
                              sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmphex(vf->port.cap_mask & IB_PORT_SM, ==, 0);
    /* GID and P_Key tables as long as its caps say: 8 and 128 */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, QUERY_HCA_VPORT_GID_IN_gid_index, 7);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_HCA_VPORT_GID, false, 0, in, 0x10,
                              out, 0x20), ==, 0);
    MLX5_SET(in, QUERY_HCA_VPORT_GID_IN_gid_index, 8);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_HCA_VPORT_GID, false, 0, in, 0x10,
                              out, 0x20), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(in, QUERY_HCA_VPORT_PKEY_IN_pkey_index, 127);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY, false, 0, in, 0x10,
                              out, 0x14), ==, 0);
    g_assert_cmphex(mlx5_ld32(out + 0x10), ==, 0);
    MLX5_SET(in, QUERY_HCA_VPORT_PKEY_IN_pkey_index, 128);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY, false, 0, in, 0x10,
                              out, 0x14), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* QPN ranges: function f's from f << log_max_qp */
    for (i = 0; i < 2; i++) {
        TDrv *d = i ? r.vf[0] : r.pf;
        uint32_t eqn = tdrv_create_eq(d, 0, 6, 0, NULL);
        uint32_t cqn = tdrv_create_cq(d, eqn, 4, NULL, NULL);

        g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_UD, tdrv_alloc_pd(d), cqn, 0, &qpn[i]),
                        ==, 0);
        g_assert_cmphex(qpn[i] >> pf->cfg.log_max_qp, ==, i);
    }

    /* the PF's receive path: by QPN, QP1 by the GRH's GID, nobody's dropped */
    memset(&p, 0, sizeof(p));
    p.dlid = pf->port.lid;
    p.dest_qpn = qpn[1];
    g_assert_true(mlx5_ib_rx_steer(&pf->ib, &p, frame, sizeof(frame)));
    g_assert_cmpint(vf->ib.lb_count, ==, 1);
    p.dest_qpn = qpn[0];
    g_assert_false(mlx5_ib_rx_steer(&pf->ib, &p, frame, sizeof(frame)));
    p.dest_qpn = (NVFS + 1) << pf->cfg.log_max_qp;
    g_assert_true(mlx5_ib_rx_steer(&pf->ib, &p, frame, sizeof(frame)));
    p.dest_qpn = 1;
    g_assert_false(mlx5_ib_rx_steer(&pf->ib, &p, frame, sizeof(frame)));
    p.grh = true;
    mlx5_st64(p.dgid, pf->port.gid_prefix);
    mlx5_st64(p.dgid + 8, r.vf[1]->c->cfg.port_guid);
    g_assert_true(mlx5_ib_rx_steer(&pf->ib, &p, frame, sizeof(frame)));
    g_assert_cmpint(r.vf[1]->c->ib.lb_count, ==, 1);
    mlx5_st64(p.dgid + 8, pf->cfg.port_guid);
    g_assert_false(mlx5_ib_rx_steer(&pf->ib, &p, frame, sizeof(frame)));
    g_assert_cmpint(vf->ib.lb_count + r.vf[1]->c->ib.lb_count, ==, 2);

    /* the PF's state policy: down (its packets dropped), then the port's */
    memset(in, 0, sizeof(in));
    MLX5_SET(hc, HCA_VPORT_CTX_field_select, MLX5_HCA_VPORT_SEL_STATE_POLICY);
    MLX5_SET(hc, HCA_VPORT_CTX_vport_state_policy, MLX5_VPORT_ADMIN_DOWN);
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, true, 1, in,
                              sizeof(in), out, 16), ==, 0);
    g_assert_cmpint(vf->port.state, ==, IB_PORT_STATE_DOWN);
    g_assert_cmpint(r.vf[1]->c->port.state, ==, IB_PORT_STATE_ACTIVE);
    p.grh = false;
    p.dest_qpn = qpn[1];
    g_assert_true(mlx5_ib_rx_steer(&pf->ib, &p, frame, sizeof(frame)));
    g_assert_cmpint(vf->ib.lb_count, ==, 1);
    MLX5_SET(hc, HCA_VPORT_CTX_vport_state_policy, MLX5_VPORT_ADMIN_AUTO);
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT, true, 1, in,
                              sizeof(in), out, 16), ==, 0);
    g_assert_cmpint(vf->port.state, ==, IB_PORT_STATE_ACTIVE);
    /* its counters, as its PF reads them (`ip -s link show ib0`): its port's IB traffic */
    vf->ib.stat_rx = 7;
    vf->ib.stat_rx_bytes = 700;
    vf->ib.stat_rx_mcast = 2;
    vf->ib.stat_rx_mcast_bytes = 150;
    vf->ib.stat_tx = 4;
    vf->ib.stat_tx_bytes = 400;
    memset(in, 0, sizeof(in));
    g_assert_cmpint(vport_cmd(r.pf, MLX5_CMD_OP_QUERY_VPORT_COUNTER, true, 1, in, 0x20, out,
                              VPORT_COUNTER_OUT_SIZE), ==, 0);
    g_assert_cmpuint(mlx5_ld64(out + VC_rx_ib_ucast_OFF), ==, 5);
    g_assert_cmpuint(mlx5_ld64(out + VC_rx_ib_ucast_OFF + 8), ==, 550);
    g_assert_cmpuint(mlx5_ld64(out + VC_rx_ib_mcast_OFF), ==, 2);
    g_assert_cmpuint(mlx5_ld64(out + VC_tx_ib_ucast_OFF), ==, 4);
    g_assert_cmpuint(mlx5_ld64(out + VC_tx_ib_ucast_OFF + 8), ==, 400);
    /* not a VF's (nor another VF's through it) */
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_VPORT_COUNTER, true, 2, in, 0x20, out,
                              VPORT_COUNTER_OUT_SIZE), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(vport_cmd(r.vf[0], MLX5_CMD_OP_QUERY_VPORT_COUNTER, false, 0, in, 0x20, out,
                              VPORT_COUNTER_OUT_SIZE), ==, 0);
    g_assert_cmpuint(mlx5_ld64(out + VC_rx_ib_mcast_OFF + 8), ==, 150);
    /* the PF's cable: every function's port goes down with it */
    mlx5_core_link_set_up(pf, 1, false);
    g_assert_cmpint(vf->port.state, ==, IB_PORT_STATE_DOWN);
    g_assert_cmpint(r.vf[1]->c->port.state, ==, IB_PORT_STATE_DOWN);
    mlx5_core_link_set_up(pf, 1, true);
    g_assert_cmpint(vf->port.state, ==, IB_PORT_STATE_ACTIVE);
    rig_free(&r);
}

/*
 * A VF's rate limit (`ip link set PF vf 0 max_tx_rate 8`, mlx5_core's esw/qos.c): the manager's
 * root TSAR and a vport element with max_average_bw; VF 0's SQs then send no faster; what the
 * QoS caps do not offer (bandwidth shares, rate groups, the NIC hierarchy) is refused.
 */
static void test_rate(void)
{
    const unsigned C = MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT, E = MLX5_SCHED_HIERARCHY_E_SWITCH;
    const unsigned TSAR = MLX5_SCHED_ELEM_TSAR, VPORT = MLX5_SCHED_ELEM_VPORT;
    uint8_t cap[QUERY_HCA_CAP_OUT_SIZE], f[1000] = { 0 }, cqe[64];
    uint32_t root = 0, el = 0, x = 0;
    FakeHost *h;
    TEth v0;
    unsigned i;
    Rig r;

    rig_new_esw(&r, true);
    g_assert_cmpint(tdrv_simple(r.pf, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_QOS << 1, 0, 0, cap,
                                sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_esw_scheduling), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_esw_rate_limit), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_esw_bw_share), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_log_esw_max_sched_depth), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_esw_element_type), ==, 3);
    vf_up(&r, 0, &v0);
    g_assert_cmpint(tdrv_simple(r.vf[0], MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_QOS << 1, 0, 0,
                                cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_esw_scheduling), ==, 0);

    /* who may not, what is not offered */
    g_assert_cmpint(sched(r.vf[0], C, E, TSAR, 0, 0, 0, 0, &x), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, C, 3, TSAR, 0, 0, 0, 0, &x), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, C, E, 2, 0, 0, 0, 0, &x), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, C, E, VPORT, 0, 1, 0, 0, &x), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, C, E, TSAR, 0, 0, 0, 0, &root), ==, 0);
    g_assert_cmpint(root, !=, 0);
    g_assert_cmpint(sched(r.pf, C, E, TSAR, root, 0, 0, 0, &x), ==,   /* (no rate groups) */
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, C, E, VPORT, root, 3, 0, 0, &x), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, C, E, VPORT, root, 1, 0, 10, &x), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, C, E, VPORT, root, 1, 0, 0, &el), ==, 0);
    g_assert_cmpint(sched(r.pf, C, E, VPORT, root, 1, 0, 0, &x), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    x = el;
    g_assert_cmpint(sched(r.vf[0], MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT, E, VPORT, root, 1, 8, 0,
                          &x), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT, E, VPORT, root, 1, 8, 5,
                          &el), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpuint(r.vf[0]->c->esw_max_mbps, ==, 0);

    /* 8 Mb/s: 1000 bytes a millisecond, VF 0's frames leave one a millisecond */
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT, E, VPORT, root, 1, 8, 0,
                          &el), ==, 0);
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_QUERY_SCHEDULING_ELEMENT, E, VPORT, root, 1, 8, 0,
                          &el), ==, 0);
    h = r.vf[0]->h;
    memcpy(f, far_mac, 6);
    memcpy(f + 6, vf_mac[0], 6);
    mlx5_st16(f + 12, 0x88b5);
    fake_write(h, v0.mem, f + 14, sizeof(f) - 14);
    for (i = 0; i < 3; i++) {
        teth_post_send(&v0, MLX5_OPCODE_SEND, 0, 0, f, 14, sizeof(f) - 14, v0.mem, -1);
    }
    g_assert_true(teth_poll_cqe(&v0, cqe));
    g_assert_false(teth_poll_cqe(&v0, cqe));
    g_assert_cmpuint(link_frames(&r), ==, 1);
    g_assert_cmpint(h->deadline - h->now, ==, 1000000);
    h->now += 999999;
    mlx5_core_expire(r.vf[0]->c, h->now);
    g_assert_false(teth_poll_cqe(&v0, cqe));
    h->now = h->deadline;
    mlx5_core_expire(r.vf[0]->c, h->now);
    g_assert_true(teth_poll_cqe(&v0, cqe));
    g_assert_cmpuint(link_frames(&r), ==, 2);
    /* no limit: the next WQE leaves once the held one wakes */
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT, E, VPORT, root, 1, 0, 0,
                          &el), ==, 0);
    h->now = h->deadline;
    mlx5_core_expire(r.vf[0]->c, h->now);
    g_assert_true(teth_poll_cqe(&v0, cqe));
    g_assert_cmpuint(link_frames(&r), ==, 3);

    /* the root TSAR goes after its vports */
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT, E, VPORT, root, 1, 8, 0,
                          &el), ==, 0);
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_DESTROY_SCHEDULING_ELEMENT, E, 0, 0, 0, 0, 0, &root),
                    ==, MLX5_CMD_STAT_BAD_RES_STATE_ERR);
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_DESTROY_SCHEDULING_ELEMENT, E, 0, 0, 0, 0, 0, &el),
                    ==, 0);
    g_assert_cmpuint(r.vf[0]->c->esw_max_mbps, ==, 0);
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_DESTROY_SCHEDULING_ELEMENT, E, 0, 0, 0, 0, 0, &el),
                    ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sched(r.pf, MLX5_CMD_OP_DESTROY_SCHEDULING_ELEMENT, E, 0, 0, 0, 0, 0, &root),
                    ==, 0);
    rig_free(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/sriov/enable", test_enable);
    g_test_add_func("/mlx5/sriov/switch", test_switch);
    g_test_add_func("/mlx5/sriov/queue-bound", test_queue_bound);
    g_test_add_func("/mlx5/sriov/vport", test_vport);
    g_test_add_func("/mlx5/sriov/fdb", test_fdb);
    g_test_add_func("/mlx5/sriov/vst", test_vst);
    g_test_add_func("/mlx5/sriov/rate", test_rate);
    g_test_add_func("/mlx5/sriov/ib-vport", test_ib_vport);
    return g_test_run();
}
