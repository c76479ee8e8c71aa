/*
 * mlx5 HCA core: SR-IOV virtual functions as functions of their PF.
 *
 * A VF is a core of its own (mlx5_core_new with a configuration from
 * mlx5_core_vf_config): its objects, command queue, EQs, UARs, pages and DMA
 * are its function's and nothing of another function is reachable from it. The
 * PF's driver enables and disables it (ENABLE/DISABLE_HCA with function_id
 * idx + 1, before the PCI VF Enable and after the VF driver's own teardown);
 * until then the VF's initialization segment says "initializing". The VF's
 * port is the PF's: its link follows the PF's cable, and its frames go through
 * the PF's embedded switch (eth/mlx5_eswitch.c). docs/sriov-plan.md has what
 * mlx5_core 6.12 asks of each step.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "trace.h"

void mlx5_core_vf_config(Mlx5Core *pf, unsigned idx, Mlx5CoreConfig *cfg)
{
    *cfg = pf->cfg;
    cfg->pci_device_id = MLX5_PCI_DEVICE_ID_CX5_VF;
    cfg->vf = true;
    cfg->num_vfs = 0;
    cfg->vhca_id = idx + 1;
    /*
     * GUIDs: the PF's EUI-64 with ff:fd-idx where a MAC-derived GUID has
     * ff:fe, so that no PF's (of this or another instance) equals a VF's; the
     * system image is the PF's
     */
    cfg->node_guid = (pf->cfg.node_guid & ~0xff000000ull) |
                     ((uint64_t)(0xfd - idx) << 24);
    cfg->port_guid = cfg->node_guid;
    /* no permanent address: mlx5e makes a random one, the PF may set one */
    memset(cfg->mac, 0, sizeof(cfg->mac));
    cfg->sm = false;
    cfg->memic_size = 0;
    cfg->max_uar = MLX5_VF_BAR0_SIZE / 4096 - MLX5_FIRST_UAR;
    cfg->msix_vectors = MLX5_VF_MSIX;
    memset(&cfg->fault, 0, sizeof(cfg->fault));
    snprintf(cfg->node_desc, sizeof(cfg->node_desc), "qemu-mlx5 VF-%u",
             idx);
}

/*
 * A VF's port: on an Ethernet port up with the PF's cable (through its
 * vport's admin state); on an InfiniBand port the PF's port, as its policy
 * says (mlx5_vport_ib.c)
 */
static void mlx5_vf_link(Mlx5Core *vf)
{
    Mlx5Core *pf = vf->pf;

    if (mlx5_ib_vport_is(vf)) {
        mlx5_ib_vport_sync(vf);
        return;
    }
    vf->link_cable = pf && pf->eth && vf->eth &&
                     mlx5_esw_vport_link(vf, mlx5_link_wanted(pf));
    mlx5_port_set_link(vf, mlx5_link_wanted(vf));
}

/*
 * What the PF (the vport manager) set of VF @vf's vport goes: its admin
 * state, event arming and ACLs, and the administrative MAC and GUIDs
 */
static void mlx5_vf_vport_reset(Mlx5Core *pf, Mlx5Core *vf)
{
    Mlx5CoreConfig def;

    mlx5_core_vf_config(pf, vf->vf_index, &def);
    memcpy(vf->cfg.mac, def.mac, 6);
    vf->cfg.node_guid = def.node_guid;
    vf->cfg.port_guid = def.port_guid;
    vf->vf_enabled = false;
    vf->esw_admin = MLX5_VPORT_ADMIN_AUTO;
    vf->vport_arm = 0;
    vf->acl_root[0] = vf->acl_root[1] = 0;
    vf->esw_cvlan_strip = vf->esw_cvlan_insert = false;
    vf->esw_cvlan_tci = 0;
    vf->esw_regc_pass = 0;
    vf->esw_max_mbps = 0;
    vf->esw_tx_next = 0;
}

void mlx5_core_vf_attach(Mlx5Core *pf, unsigned idx, Mlx5Core *vf)
{
    g_assert(!pf->cfg.vf && vf->cfg.vf && idx < pf->cfg.num_vfs);
    trace_mlx5_sriov_attach(idx);
    pf->vfs[idx] = vf;
    vf->pf = pf;
    vf->vf_index = idx;
    mlx5_vf_vport_reset(pf, vf);
    mlx5_vf_link(vf);
}

static void mlx5_vf_unlink(Mlx5Core *vf)
{
    if (vf->pf) {
        vf->pf->vfs[vf->vf_index] = NULL;
        vf->pf = NULL;
        vf->vf_enabled = false;
    }
}

void mlx5_core_vf_detach(Mlx5Core *vf)
{
    Mlx5Core *pf = vf->pf;

    mlx5_vf_unlink(vf);
    if (pf) {
        mlx5_ib_vport_aliases(pf);      /* (the fabric forgets it) */
    }
}

/* The VF that ENABLE/DISABLE_HCA's function_id @fid names, or NULL. */
static Mlx5Core *mlx5_sriov_vf(Mlx5Core *c, unsigned fid)
{
    if (c->cfg.vf || fid == 0 || fid > c->cfg.num_vfs) {
        return NULL;
    }
    return c->vfs[fid - 1];
}

/*
 * ENABLE_HCA (@on) or DISABLE_HCA of another function @fid (> 0): a VF of
 * this PF. Disabling returns the VF to its reset state, whatever its driver
 * left. False (and @cmd failed) if there is no such function.
 */
bool mlx5_sriov_enable_hca(Mlx5Core *c, Mlx5CmdCtx *cmd, unsigned fid,
                           bool on)
{
    Mlx5Core *vf = mlx5_sriov_vf(c, fid);

    if (!vf) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_FUNCTION);
        return false;
    }
    trace_mlx5_sriov_enable_hca(fid, on);
    if (!on) {
        mlx5_core_reset(vf, MLX5_RESET_SYSTEM);
    }
    vf->vf_enabled = on;
    mlx5_ib_vport_aliases(c);           /* (the fabric knows enabled VFs) */
    return true;
}

/* The initialization segment's "initializing" bit (31 of dword 0x1fc). */
bool mlx5_sriov_initializing(Mlx5Core *c)
{
    return c->cfg.vf && !c->vf_enabled;
}

/*
 * The PF was reset (a system reset: PCI FLR, PERST): so are its VFs, and what
 * it set of their vports (MACs, GUIDs) is gone.
 */
void mlx5_sriov_pf_reset(Mlx5Core *c)
{
    unsigned i;

    for (i = 0; i < c->cfg.num_vfs; i++) {
        if (c->vfs[i]) {
            mlx5_vf_vport_reset(c, c->vfs[i]);
            mlx5_core_reset(c->vfs[i], MLX5_RESET_SYSTEM);
        }
    }
}

/* The PF's cable or port type changed: its VFs' ports follow. */
void mlx5_sriov_pf_link(Mlx5Core *c)
{
    unsigned i;

    for (i = 0; c->vfs && i < c->cfg.num_vfs; i++) {
        if (c->vfs[i]) {
            mlx5_vf_link(c->vfs[i]);
        }
    }
}

void mlx5_sriov_init(Mlx5Core *c)
{
    g_queue_init(&c->esw_rxq);
    if (c->cfg.num_vfs) {
        c->vfs = g_new0(Mlx5Core *, c->cfg.num_vfs);
    }
}

void mlx5_sriov_free(Mlx5Core *c)
{
    unsigned i;

    for (i = 0; i < c->cfg.num_vfs; i++) {
        if (c->vfs[i]) {
            mlx5_vf_unlink(c->vfs[i]);  /* (the PF goes: nothing to tell) */
        }
    }
    mlx5_core_vf_detach(c);
    mlx5_esw_flush(c);
    g_free(c->vfs);
    c->vfs = NULL;
}
