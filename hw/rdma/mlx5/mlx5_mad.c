/*
 * mlx5 HCA core: the port and its subnet management agent (MAD_IFC: NodeInfo,
 * NodeDescription, PortInfo, GUIDInfo, P_KeyTable, SMInfo), QUERY_HCA_VPORT_*
 * and the PCAP register.
 *
 * There is no external subnet manager: the device plays the SM's part for its
 * own port and brings the port to ACTIVE with the configured LID as soon as the
 * link is up. A local SM (opensm) can still Set(PortInfo) to change LID/SM LID,
 * as on real hardware.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "trace.h"

#define MLX5_DEFAULT_CAP_MASK                                             \
    (IB_PORT_TRAP_SUP | IB_PORT_SL_MAP_SUP | IB_PORT_SYS_IMAGE_GUID_SUP | \
     IB_PORT_PKEY_SW_EXT_PORT_TRAP_SUP | IB_PORT_DEVICE_MGMT_SUP |        \
     IB_PORT_CLIENT_REG_SUP)
#define MLX5_GID_PREFIX_DEFAULT 0xfe80000000000000ull
#define IB_LINK_WIDTH_4X        2
#define IB_LINK_SPEED_SDR_DDR_QDR 7
#define IB_LINK_SPEED_QDR       4
#define IB_MTU_4096             5
#define IB_VL_CAP_VL0_7         4

void mlx5_port_event(Mlx5Core *c, uint8_t sub_type)
{
    uint8_t data[28] = { 0 };

    if (!c->hca_initialized) {
        return;
    }
    data[0x28 - MLX5_EQE_data] = 1 << 4;     /* port 1 in bits [7:4] */
    trace_mlx5_port_event(sub_type);
    mlx5_eq_post_async(c, MLX5_EVENT_TYPE_PORT_CHANGE, sub_type, data,
                       sizeof(data));
}

#define MLX5_CLASH_HOLD_NS  (3 * IB_ANNOUNCE_PERIOD_NS)

static uint8_t mlx5_port_wanted_state(const Mlx5Port *p)
{
    if (!p->link_up) {
        return IB_PORT_STATE_DOWN;
    }
    /* like an SM that refuses to activate a port with a duplicate address */
    return p->clash ? IB_PORT_STATE_INIT : IB_PORT_STATE_ACTIVE;
}

/* Move the port to the state its link and address say, telling the driver. */
static void mlx5_port_update(Mlx5Core *c)
{
    Mlx5Port *p = &c->port;
    uint8_t state = mlx5_port_wanted_state(p);

    if (state == p->state) {
        return;
    }
    p->state = state;
    trace_mlx5_port_state(state);
    mlx5_port_event(c, state == IB_PORT_STATE_ACTIVE
                           ? MLX5_PORT_CHANGE_SUBTYPE_ACTIVE
                           : MLX5_PORT_CHANGE_SUBTYPE_DOWN);
    mlx5_sriov_pf_link(c);          /* VFs that follow the port */
}

void mlx5_port_clash(Mlx5Core *c, uint16_t lid, uint64_t guid)
{
    Mlx5Port *p = &c->port;

    p->clash_until = c->ops->now_ns(c->opaque) + MLX5_CLASH_HOLD_NS;
    c->port_deadline = p->clash_until;
    mlx5_exec_set_deadline(c);
    if (!p->clash) {
        g_autofree char *msg = g_strdup_printf(
            "another port on the fabric uses %s (lid 0x%x, guid 0x%016" PRIx64
            "); this port stays inactive until the clash ends: give every HCA "
            "its own "
            "mac (or lid and node-guid)",
            lid == p->lid ? "our LID" : "our GUID", lid, guid);
        trace_mlx5_err_port_clash(lid, guid);
        p->clash = true;
        if (c->ops->report) {
            c->ops->report(c->opaque, msg);
        }
        mlx5_port_update(c);
    }
}

void mlx5_port_expire(Mlx5Core *c, int64_t now)
{
    Mlx5Port *p = &c->port;

    if (c->port_deadline > now) {
        return;
    }
    c->port_deadline = INT64_MAX;
    if (p->clash && p->clash_until <= now) {
        p->clash = false;
        mlx5_port_update(c);
    }
}

void mlx5_port_reset(Mlx5Core *c)
{
    Mlx5Port *p = &c->port;
    bool link_up = p->link_up, clash = p->clash;
    int64_t clash_until = p->clash_until;

    memset(p, 0, sizeof(*p));
    p->link_up = link_up;
    p->clash = clash;
    p->clash_until = clash_until;
    p->state = mlx5_port_wanted_state(p);
    p->lid = c->cfg.lid;
    p->lmc = c->cfg.lmc;
    p->sm_lid = c->cfg.sm_lid ? c->cfg.sm_lid : c->ib.sm_lid;
    p->cap_mask = MLX5_DEFAULT_CAP_MASK;
    p->pkeys[0] = 0xffff;
    p->gid_prefix = MLX5_GID_PREFIX_DEFAULT;
    p->subnet_timeout = 18;
    mlx5_pma_clear(c);              /* counters start from zero after a reset */
    p->pkey_violations_base = c->ib.stat_pkey_violations;
    p->qkey_violations_base = c->ib.stat_qkey_violations;
    if (c->eth) {
        /*
         * RoCE: the transport is up with the Ethernet port
         * (mlx5_eth_update_oper); no LID
         */
        c->ib.link_up = c->eth->oper_up;
        return;
    }
    if (mlx5_ib_vport_is(c)) {
        /* a VF's: its PF's port */
        mlx5_ib_vport_sync(c);
        return;
    }
    c->ib.link_up = link_up;
    if (c->ib.lid != p->lid || c->ib.lmc != p->lmc) {
        c->ib.lid = p->lid;
        c->ib.lmc = p->lmc;
        ib_port_announce_soon(&c->ib);
    }
}

/*
 * The fabric elected another master SM (ib_sm.c). A port's SM LID follows it
 * unless the sm-lid property fixes it; the driver hears of a new SM as a client
 * reregistration request, as from a real SM taking over, and its ULPs rejoin
 * their multicast groups there.
 */
void mlx5_port_sm_change(Mlx5Core *c)
{
    Mlx5Port *p = &c->port;

    if (c->cfg.sm_lid || p->sm_lid == c->ib.sm_lid) {
        return;
    }
    trace_mlx5_port_sm(p->sm_lid, c->ib.sm_lid);
    p->sm_lid = c->ib.sm_lid;
    if (p->state == IB_PORT_STATE_ACTIVE) {
        mlx5_port_event(c, MLX5_PORT_CHANGE_SUBTYPE_CLIENT_REREG);
    }
    mlx5_sriov_pf_link(c);
}

void mlx5_port_set_link(Mlx5Core *c, bool up)
{
    Mlx5Port *p = &c->port;

    if (c->eth) {
        /* (the IB port stays down and silent) */
        mlx5_eth_set_link(c, up);
        return;
    }
    if (p->link_up == up) {
        return;
    }
    p->link_up = up;
    c->ib.link_up = up;
    trace_mlx5_port_link(up);
    mlx5_port_update(c);
    ib_port_announce_soon(&c->ib);
}

static uint8_t mlx5_port_phys_state(const Mlx5Port *p)
{
    return p->link_up ? IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_POLLING;
}

/* ---- SMA attributes (SMP data: 64 bytes) --------------------------------- */

static void mlx5_sma_node_info(Mlx5Core *c, uint8_t *d)
{
    d[0] = 1;                                   /* BaseVersion */
    d[1] = 1;                                   /* ClassVersion */
    d[2] = 1;                                   /* NodeType: channel adapter */
    d[3] = 1;                                   /* NumPorts */
    mlx5_st64(d + 4, c->cfg.sys_image_guid);
    mlx5_st64(d + 12, c->cfg.node_guid);
    mlx5_st64(d + 20, c->cfg.port_guid);
    mlx5_st16(d + 28, MLX5_MAX_PKEYS);          /* PartitionCap */
    mlx5_st16(d + 30, c->cfg.pci_device_id);    /* DeviceID */
    mlx5_st32(d + 32, c->cfg.pci_revision);     /* Revision */
    d[36] = 1;                                  /* LocalPortNum */
    d[37] = MLX5_IEEE_VENDOR_ID >> 16;
    d[38] = MLX5_IEEE_VENDOR_ID >> 8;
    d[39] = MLX5_IEEE_VENDOR_ID & 0xff;
}

static void mlx5_sma_port_info(Mlx5Core *c, uint8_t *d)
{
    const Mlx5Port *p = &c->port;

    mlx5_st64(d + 0, p->mkey);
    mlx5_st64(d + 8, p->gid_prefix);
    mlx5_st16(d + 16, p->lid);
    mlx5_st16(d + 18, p->sm_lid);
    mlx5_st32(d + 20, p->cap_mask);
    mlx5_st16(d + 28, 0);                       /* M_KeyLeasePeriod */
    d[28] = 0;
    d[29] = IB_LINK_WIDTH_4X;                   /* LinkWidthEnabled */
    /* LinkWidthSupported: 1X | 4X */
    d[30] = 3;
    d[31] = IB_LINK_WIDTH_4X;                   /* LinkWidthActive */
    d[32] = (IB_LINK_SPEED_SDR_DDR_QDR << 4) | p->state;
    /* LinkDownDefaultState: polling */
    d[33] = (mlx5_port_phys_state(p) << 4) | 2;
    d[34] = p->lmc & 7;
    d[35] = (IB_LINK_SPEED_QDR << 4) | IB_LINK_SPEED_SDR_DDR_QDR;
    d[36] = (IB_MTU_4096 << 4) | (p->sm_sl & 0xf);
    d[37] = IB_VL_CAP_VL0_7 << 4;
    d[38] = 0x10;                               /* VLHighLimit */
    d[39] = 0x10;                               /* VLArbitrationHighCap */
    d[40] = 0x10;                               /* VLArbitrationLowCap */
    d[41] = IB_MTU_4096;                        /* InitTypeReply | MTUCap */
    d[42] = 0;                                  /* VLStallCount | HOQLife */
    d[43] = 1 << 4;                             /* OperationalVLs: VL0 */
    mlx5_st16(d + 46, MIN(c->ib.stat_pkey_violations - p->pkey_violations_base,
                          0xffff));
    mlx5_st16(d + 48, MIN(c->ib.stat_qkey_violations - p->qkey_violations_base,
                          0xffff));
    d[50] = MLX5_GUID_CAP;
    d[51] = p->subnet_timeout & 0x1f;
    d[52] = 0;                                  /* RespTimeValue */
}

static void mlx5_sma_guid_info(Mlx5Core *c, uint32_t block, uint8_t *d)
{
    if (block == 0) {
        mlx5_st64(d, c->cfg.port_guid);
    }
}

static void mlx5_sma_pkey_table(Mlx5Core *c, uint32_t block, uint8_t *d)
{
    unsigned i;

    for (i = 0; i < 32; i++) {
        unsigned idx = block * 32 + i;
        if (idx < MLX5_MAX_PKEYS) {
            mlx5_st16(d + 2 * i, c->port.pkeys[idx]);
        }
    }
}

/* Set(PortInfo) from a local SM: LID, SM LID/SL, LMC, subnet timeout, M_Key. */
static void mlx5_sma_set_port_info(Mlx5Core *c, const uint8_t *d)
{
    Mlx5Port *p = &c->port;
    uint16_t lid = mlx5_ld16(d + 16), sm_lid = mlx5_ld16(d + 18);
    bool lid_changed = lid && lid < 0xc000 && lid != p->lid;
    /*
     * a (new) SM takes over: it sets ClientReregister (PortInfo byte 51, bit 7)
     */
    bool rereg = (d[51] & 0x80) || (sm_lid && sm_lid != p->sm_lid);

    if (lid_changed) {
        p->lid = lid;
        c->ib.lid = lid;
        ib_port_announce_soon(&c->ib);
    }
    p->mkey = mlx5_ld64(d + 0);
    p->gid_prefix = mlx5_ld64(d + 8);
    p->sm_lid = sm_lid;
    p->sm_sl = d[36] & 0xf;
    if (p->lmc != (d[34] & 7)) {
        p->lmc = d[34] & 7;
        /* the port answers 2^LMC LIDs from its LID */
        c->ib.lmc = p->lmc;
        ib_port_announce_soon(&c->ib);
    }
    p->subnet_timeout = d[51] & 0x1f;
    trace_mlx5_port_set(p->lid, p->sm_lid);
    if (lid_changed) {
        mlx5_port_event(c, MLX5_PORT_CHANGE_SUBTYPE_LID);
    }
    if (rereg && p->state == IB_PORT_STATE_ACTIVE) {
        mlx5_port_event(c, MLX5_PORT_CHANGE_SUBTYPE_CLIENT_REREG);
    }
    mlx5_sriov_pf_link(c);          /* the VFs share the LID and SM */
}

/* Answer one SMP in place. Returns the MAD status. */
static uint16_t mlx5_sma_process(Mlx5Core *c, uint8_t *mad)
{
    uint8_t method = mad[IB_MAD_method];
    uint16_t attr_id = mlx5_ld16(mad + IB_MAD_attr_id);
    uint32_t attr_mod = mlx5_ld32(mad + IB_MAD_attr_mod);
    uint8_t *d = mad + IB_SMP_data;
    uint8_t set_data[IB_SMP_DATA_SIZE];

    if (method != IB_MGMT_METHOD_GET && method != IB_MGMT_METHOD_SET) {
        return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
    }
    memcpy(set_data, d, sizeof(set_data));
    memset(d, 0, IB_SMP_DATA_SIZE);
    switch (attr_id) {
    case IB_SMP_ATTR_NODE_DESC:
        memcpy(d, c->cfg.node_desc, strnlen(c->cfg.node_desc, 64));
        break;
    case IB_SMP_ATTR_NODE_INFO:
        mlx5_sma_node_info(c, d);
        break;
    case IB_SMP_ATTR_PORT_INFO:
        if (attr_mod > 1) {
            return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
        }
        if (method == IB_MGMT_METHOD_SET) {
            mlx5_sma_set_port_info(c, set_data);
        }
        mlx5_sma_port_info(c, d);
        break;
    case IB_SMP_ATTR_GUID_INFO:
        if (attr_mod * 8 >= MLX5_GUID_CAP) {
            return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
        }
        mlx5_sma_guid_info(c, attr_mod, d);
        break;
    case IB_SMP_ATTR_PKEY_TABLE:
        if ((attr_mod & 0xffff) * 32 >= MLX5_MAX_PKEYS) {
            return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
        }
        mlx5_sma_pkey_table(c, attr_mod & 0xffff, d);
        break;
    case IB_SMP_ATTR_EXT_PORT_INFO:
        /*
         * Mellanox's vendor ExtendedPortInfo (opensm and mlx5_ib ask for it):
         * all zero, no FDR10 supported, enabled or active, StateChangeEnable
         * off; Set changes nothing
         */
        if (attr_mod > 1) {
            return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
        }
        break;
    default:
        trace_mlx5_unimp_smp_attr(attr_id);
        return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
    }
    return 0;
}

void mlx5_cmd_mad_ifc(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *mad;
    uint16_t status;
    uint8_t mgmt_class;

    if (!mlx5_cmd_in_ok(cmd, MAD_IFC_SIZE) ||
        !mlx5_cmd_out_ok(cmd, MAD_IFC_SIZE)) {
        return;
    }
    if (MLX5_GET(cmd->in, MAD_IFC_IN_port) != 1) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return;
    }
    mad = cmd->out + MAD_IFC_MAD_OFF;
    memcpy(mad, cmd->in + MAD_IFC_MAD_OFF, MLX5_MAD_SIZE);
    mgmt_class = mad[IB_MAD_mgmt_class];
    if (mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
        mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
        status = mlx5_sma_process(c, mad);
    } else if (mgmt_class == IB_MGMT_CLASS_PERF_MGMT) {
        status = mlx5_pma_process(c, mad);
    } else {
        trace_mlx5_unimp_mad_class(mgmt_class);
        status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
    }
    trace_mlx5_mad_ifc(mgmt_class, mad[IB_MAD_method],
                       mlx5_ld16(mad + IB_MAD_attr_id),
                       mlx5_ld32(mad + IB_MAD_attr_mod), status);
    mad[IB_MAD_method] = IB_MGMT_METHOD_GET_RESP;
    /* keep the D bit of directed-route SMPs, which lives in the status word */
    mlx5_st16(mad + IB_MAD_status,
              (mlx5_ld16(mad + IB_MAD_status) & IB_SMP_DIRECTION) | status);
}

/* ---- HCA vport queries --------------------------------------------------- */

/*
 * The function whose HCA vport (port 1) a command names: our own (vport 0),
 * or with other_vport a VF's (vport N: VF N-1), which only its PF's kernel
 * names. NULL (and @cmd failed) for anything else.
 */
static Mlx5Core *mlx5_hca_vport(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned n;
    Mlx5Core *t = NULL;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return NULL;
    }
    n = MLX5_GET(cmd->in, QUERY_HCA_VPORT_CONTEXT_IN_vport_number);
    if (!MLX5_GET(cmd->in, QUERY_HCA_VPORT_CONTEXT_IN_other_vport)) {
        t = n ? NULL : c;
    } else if (!c->cfg.vf && !cmd->uid && n >= 1 && n <= c->cfg.num_vfs) {
        t = c->vfs[n - 1];
    }
    if (!t || MLX5_GET(cmd->in, QUERY_HCA_VPORT_CONTEXT_IN_port_num) > 1) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return NULL;
    }
    return t;
}

/* Our own HCA vport only (another's GID and P_Key tables are not offered) */
static bool mlx5_vport_in_ok(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Core *t = mlx5_hca_vport(c, cmd);

    if (t && t != c) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
    }
    return t == c;
}

void mlx5_cmd_query_hca_vport_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const Mlx5Port *p;
    uint8_t *ctx = cmd->out + HCA_VPORT_CTX_OFF;

    c = mlx5_hca_vport(c, cmd);
    if (!c || !mlx5_cmd_out_ok(cmd, QUERY_HCA_VPORT_CONTEXT_OUT_SIZE)) {
        return;
    }
    p = &c->port;
    if (c->cfg.vf) {
        /* (a VF's, as its PF reads it: with the policy the PF set) */
        MLX5_SET(ctx, HCA_VPORT_CTX_vport_state_policy, c->esw_admin);
    }
    if (mlx5_ib_vport_is(c)) {
        /*
         * a VF's vport of its PF's port: no SMI (SMPs are the PF's), and a
         * GRH on everything it sends, by which answers find it
         */
        const Mlx5Port *pp = &c->pf->port;

        MLX5_SET(ctx, HCA_VPORT_CTX_grh_required, 1);
        MLX5_SET(ctx, HCA_VPORT_CTX_port_physical_state,
                 mlx5_port_phys_state(pp));
        MLX5_SET(ctx, HCA_VPORT_CTX_port_state, pp->state);
        MLX5_SET(ctx, HCA_VPORT_CTX_cap_mask1_field_select,
                 MLX5_VPORT_CAP_MASK1_SELECT);
    } else {
        MLX5_SET(ctx, HCA_VPORT_CTX_has_smi, 1);
        MLX5_SET(ctx, HCA_VPORT_CTX_port_physical_state,
                 mlx5_port_phys_state(p));
        MLX5_SET(ctx, HCA_VPORT_CTX_port_state, p->state);
    }
    MLX5_SET(ctx, HCA_VPORT_CTX_vport_state, p->state);
    MLX5_SET64(ctx, HCA_VPORT_CTX_system_image_guid_OFF, c->cfg.sys_image_guid);
    MLX5_SET64(ctx, HCA_VPORT_CTX_port_guid_OFF, c->cfg.port_guid);
    MLX5_SET64(ctx, HCA_VPORT_CTX_node_guid_OFF, c->cfg.node_guid);
    MLX5_SET(ctx, HCA_VPORT_CTX_cap_mask1, p->cap_mask);
    MLX5_SET(ctx, HCA_VPORT_CTX_lid, p->lid);
    MLX5_SET(ctx, HCA_VPORT_CTX_lmc, p->lmc);
    MLX5_SET(ctx, HCA_VPORT_CTX_subnet_timeout, p->subnet_timeout);
    MLX5_SET(ctx, HCA_VPORT_CTX_sm_lid, p->sm_lid);
    MLX5_SET(ctx, HCA_VPORT_CTX_sm_sl, p->sm_sl);
}

/*
 * MODIFY_HCA_VPORT_CONTEXT of a VF's own InfiniBand vport: the bits of its
 * PortInfo CapabilityMask its driver may set (ib_cm's IsCommunicationManager-
 * Supported), within cap_mask1_field_select; nothing else.
 */
static void mlx5_vport_modify_cap_mask(Mlx5Core *c, Mlx5CmdCtx *cmd,
                                       const uint8_t *ctx)
{
    uint32_t sel = MLX5_GET(ctx, HCA_VPORT_CTX_cap_mask1_field_select);
    uint32_t val = MLX5_GET(ctx, HCA_VPORT_CTX_cap_mask1);

    if (MLX5_GET(ctx, HCA_VPORT_CTX_field_select) ||
        (sel & ~MLX5_VPORT_CAP_MASK1_SELECT)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return;
    }
    c->port.cap_mask = (c->port.cap_mask & ~sel) | (val & sel);
    trace_mlx5_ib_vport_cap_mask(c->port.cap_mask, sel);
}

/*
 * MODIFY_HCA_VPORT_CONTEXT: a PF's kernel sets a VF's port and node GUID and
 * its port's state policy (`ip link set ib0 vf N node_guid|port_guid|state`;
 * mlx5_core restores them at each VF Enable). Kept across the VF's resets.
 * Its own vport's nobody modifies: a VF cannot undo the policy or the GUIDs
 * its PF set.
 */
void mlx5_cmd_modify_hca_vport_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + HCA_VPORT_CTX_OFF;
    uint32_t fs;
    Mlx5Core *vf;

    if (!mlx5_cmd_in_ok(cmd, HCA_VPORT_CTX_OFF + 0x48)) {
        return;
    }
    vf = mlx5_hca_vport(c, cmd);
    if (!vf) {
        return;
    }
    fs = MLX5_GET(ctx, HCA_VPORT_CTX_field_select);
    if (vf == c && mlx5_ib_vport_is(c)) {
        mlx5_vport_modify_cap_mask(c, cmd, ctx);
        return;
    }
    if (!vf->cfg.vf || vf == c ||
        (fs & MLX5_HCA_VPORT_SEL_STATE_POLICY &&
         MLX5_GET(ctx, HCA_VPORT_CTX_vport_state_policy) > 2)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return;
    }
    trace_mlx5_port_vf_context(vf->vf_index + 1, fs);
    if (fs & MLX5_HCA_VPORT_SEL_PORT_GUID &&
        vf->cfg.port_guid != mlx5_ld64(ctx + HCA_VPORT_CTX_port_guid_OFF)) {
        vf->cfg.port_guid = mlx5_ld64(ctx + HCA_VPORT_CTX_port_guid_OFF);
        vf->ib.guid = vf->cfg.port_guid;
        if (mlx5_ib_vport_is(vf) && vf->port.state == IB_PORT_STATE_ACTIVE) {
            /* its GID 0 changed */
            mlx5_port_event(vf, MLX5_PORT_CHANGE_SUBTYPE_GUID);
        }
        mlx5_ib_vport_aliases(c);
    }
    if (fs & MLX5_HCA_VPORT_SEL_NODE_GUID) {
        vf->cfg.node_guid = mlx5_ld64(ctx + HCA_VPORT_CTX_node_guid_OFF);
        vf->ib.node.node_guid = vf->cfg.node_guid;
    }
    if (fs & MLX5_HCA_VPORT_SEL_STATE_POLICY) {
        vf->esw_admin = MLX5_GET(ctx, HCA_VPORT_CTX_vport_state_policy);
        mlx5_sriov_pf_link(c);
    }
}

void mlx5_cmd_query_hca_vport_gid(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t idx;

    if (!mlx5_vport_in_ok(c, cmd) || !mlx5_cmd_out_ok(cmd, 0x20)) {
        return;
    }
    idx = MLX5_GET(cmd->in, QUERY_HCA_VPORT_GID_IN_gid_index);
    if (idx != 0xffff && idx >= (mlx5_ib_vport_is(c) ? MLX5_VPORT_GIDS : 1)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    MLX5_SET(cmd->out, QUERY_HCA_VPORT_GID_OUT_gids_num, MLX5_GUID_CAP);
    if (idx == 0 || idx == 0xffff) {
        /* the port's GID 0; a VF's others (of its gid_table_size) are unset */
        mlx5_st64(cmd->out + 0x10, c->port.gid_prefix);
        mlx5_st64(cmd->out + 0x18, c->cfg.port_guid);
    }
}

void mlx5_cmd_query_hca_vport_pkey(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t idx, first, n, i;

    if (!mlx5_vport_in_ok(c, cmd)) {
        return;
    }
    idx = MLX5_GET(cmd->in, QUERY_HCA_VPORT_PKEY_IN_pkey_index);
    first = idx == 0xffff ? 0 : idx;
    n = idx == 0xffff ? MLX5_MAX_PKEYS : 1;
    if (mlx5_ib_vport_is(c) && first >= MLX5_MAX_PKEYS &&
        first < MLX5_VPORT_PKEYS) {
        /* a VF's table is pkey_table_size long: the entries past ours unset */
        if (mlx5_cmd_out_ok(cmd, 0x14)) {
            mlx5_st32(cmd->out + 0x10, 0);
        }
        return;
    }
    if (first >= MLX5_MAX_PKEYS) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_BAD_PKEY_INDEX);
        return;
    }
    if (!mlx5_cmd_out_ok(cmd, 0x10 + 4 * n)) {
        return;
    }
    for (i = 0; i < n; i++) {
        mlx5_st32(cmd->out + 0x10 + 4 * i, c->port.pkeys[first + i]);
    }
}

/* PCAP register: byte 1 local port, be32 at +4 the PortInfo CapabilityMask. */
void mlx5_reg_pcap(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg, bool write)
{
    if (reg[1] != 1) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return;
    }
    if (write) {
        c->port.cap_mask = mlx5_ld32(reg + 4);
        trace_mlx5_port_cap_mask(c->port.cap_mask);
    } else {
        mlx5_st32(reg + 4, c->port.cap_mask);
    }
}
