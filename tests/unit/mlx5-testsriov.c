/*
 * Test support for SR-IOV (see mlx5-testsriov.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testsriov.h"

const uint8_t pf_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
const uint8_t vf_mac[2][6] = {
    { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 }, { 0x02, 0x00, 0x00, 0x00, 0x01, 0x02 },
};
const uint8_t far_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };


/* The VF's initialization segment's "initializing" bit (31 of 0x1fc). */
bool vf_initializing(TDrv *d)
{
    return tdrv_mmio_rd32(d, MLX5_ISEG_INITIALIZING) >> 31;
}

/* A VF's driver probes again after its PF disabled and enabled it (a function reset). */
void reprobe(TDrv *d)
{
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
    d->slot = 0;
    d->events = false;
    tdrv_bringup(d);
}

int enable_hca(TDrv *d, uint16_t op, unsigned fid, uint32_t *synd)
{
    uint8_t out[16];
    int st = tdrv_simple(d, op, 0, fid, 0, out, sizeof(out));

    *synd = tdrv_syndrome(out);
    return st;
}

/* A function's own permanent address (as the PF's E-Switch would set it for a VF). */
void set_mac(TDrv *d, const uint8_t *mac)
{
    g_autofree uint8_t *in = g_malloc0(MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_SIZE);
    uint8_t out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
    MLX5_SET(in, MODIFY_NIC_VPORT_IN_field_select, MLX5_NVC_FS_PERMANENT_ADDRESS);
    memcpy(in + MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_permanent_address_OFF, mac, 6);
    g_assert_cmpint(tdrv_exec(d, in, MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_SIZE, out, 16), ==, 0);
}

/*
 * A PF (Ethernet, num_vfs NVFS, link up; the E-Switch manager if @esw) and its VFs attached, not
 * enabled.
 */
static void rig_new_port(Rig *r, bool eth, bool esw)
{
    Mlx5CoreConfig cfg;
    unsigned i;

    mlx5_core_config_default(&cfg, pf_mac);
    cfg.sm = false;
    cfg.eth = eth;
    cfg.num_vfs = NVFS;
    cfg.esw_manager = esw;
    r->pf = tdrv_new_cfg(&cfg);
    tdrv_bringup(r->pf);
    mlx5_core_link_set_up(r->pf->c, 1, true);
    for (i = 0; i < NVFS; i++) {
        Mlx5CoreConfig v;

        mlx5_core_vf_config(r->pf->c, i, &v);
        g_assert_null(mlx5_core_config_check(&v));
        g_assert_true(v.vf);
        g_assert_cmpint(v.pci_device_id, ==, 0x1018);
        g_assert_cmpint(v.vhca_id, ==, i + 1);
        g_assert_cmphex(v.node_guid, !=, cfg.node_guid);
        g_assert_cmphex(v.sys_image_guid, ==, cfg.sys_image_guid);
        r->vf[i] = tdrv_new_cfg(&v);
        mlx5_core_vf_attach(r->pf->c, i, r->vf[i]->c);
    }
}

void rig_new_esw(Rig *r, bool esw)
{
    rig_new_port(r, true, esw);
}

void rig_new(Rig *r)
{
    rig_new_esw(r, false);
}

void rig_new_ib(Rig *r)
{
    rig_new_port(r, false, false);
}

void rig_free(Rig *r)
{
    unsigned i;

    for (i = 0; i < NVFS; i++) {
        mlx5_core_vf_detach(r->vf[i]->c);
        tdrv_free(r->vf[i]);
    }
    tdrv_free(r->pf);
}

/* Enable VF @i from the PF, bring its function up with its MAC and one mlx5e channel. */
void vf_up(Rig *r, unsigned i, TEth *t)
{
    uint32_t synd;

    g_assert_cmpint(enable_hca(r->pf, MLX5_CMD_OP_ENABLE_HCA, i + 1, &synd), ==, 0);
    g_assert_false(vf_initializing(r->vf[i]));
    tdrv_bringup(r->vf[i]);
    set_mac(r->vf[i], vf_mac[i]);
    teth_setup(t, r->vf[i]);
}

/* Send a 60-byte frame to @dst from @src on the channel @t (inline, no checksums). */
void send_frame_from(TEth *t, const uint8_t *dst, const uint8_t *src, uint8_t tag)
{
    uint8_t f[60] = { 0 }, cqe[64];

    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    mlx5_st16(f + 12, 0x88b5);
    memset(f + 14, tag, sizeof(f) - 14);
    teth_post_send(t, MLX5_OPCODE_SEND, 0, 0, f, sizeof(f), 0, 0, -1);
    g_assert_true(teth_poll_cqe(t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
}

/* ... from the function's own MAC */
void send_frame(TEth *t, const uint8_t *dst, uint8_t tag)
{
    send_frame_from(t, dst, t->d->c->eth->mac, tag);
}

/* The next frame received on @t has tag @tag (a receive WQE posted first). */
bool got_frame(TEth *t, uint8_t tag)
{
    uint8_t cqe[64], f[60];

    if (!teth_poll_cqe(t, cqe)) {
        return false;
    }
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    fake_read(t->d->h, t->mem, f, sizeof(f));
    g_assert_cmpint(f[20], ==, tag);
    teth_post_recv(t, 2048, t->mem);
    return true;
}

unsigned link_frames(Rig *r)
{
    return r->pf->h->tx->len;
}


int vport_cmd(TDrv *d, uint16_t op, bool other, unsigned vport, uint8_t *in,
              uint32_t inlen, uint8_t *out, uint32_t outlen)
{
    MLX5_SET(in, CMD_IN_opcode, op);
    MLX5_SET(in, VPORT_IN_other_vport, other);
    MLX5_SET(in, VPORT_IN_vport_number, vport);
    return tdrv_exec(d, in, inlen, out, outlen);
}


/* An FDB entry of table @ft at @index (group @fg) for destination MAC @dmac: to vports @vp. */
int fdb_rule(TDrv *d, uint32_t ft, uint32_t fg, uint32_t index, const uint8_t *dmac,
             unsigned nd, const uint32_t *vp)
{
    g_autofree uint8_t *in = g_malloc0(FTE_CTX_OFF + FC_dest_OFF + 8 * 8);
    uint8_t *fc = in + FTE_CTX_OFF, out[16];
    unsigned i;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FTE_IN_flow_index, index);
    MLX5_SET(fc, FC_group_id, fg);
    MLX5_SET(fc, FC_action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
    MLX5_SET(fc, FC_destination_list_size, nd);
    memcpy(fc + FC_match_value_OFF + MS_dmac_47_16_OFF, dmac, 6);
    for (i = 0; i < nd; i++) {
        MLX5_SET(fc + FC_dest_OFF + 8 * i, DEST_type, MLX5_FLOW_DEST_TYPE_VPORT);
        MLX5_SET(fc + FC_dest_OFF + 8 * i, DEST_id, vp[i]);
    }
    return tdrv_exec(d, in, FTE_CTX_OFF + FC_dest_OFF + 8 * 8, out, sizeof(out));
}

int vport_state(TDrv *d, unsigned vport, unsigned admin)
{
    uint8_t in[0x10] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_VPORT_STATE);
    MLX5_SET(in, CMD_IN_op_mod, MLX5_VPORT_STATE_OP_MOD_ESW);
    MLX5_SET(in, VPORT_IN_other_vport, 1);
    MLX5_SET(in, VPORT_IN_vport_number, vport);
    MLX5_SET(in, MODIFY_VPORT_STATE_IN_admin_state, admin);
    return tdrv_exec(d, in, sizeof(in), out, sizeof(out));
}

unsigned vf_oper(TDrv *vf)
{
    uint8_t out[16];

    g_assert_cmpint(tdrv_simple(vf, MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, out, 16), ==, 0);
    return MLX5_GET(out, QUERY_VPORT_STATE_OUT_state);
}

