/*
 * mlx5 HCA core: the HCA vports of an InfiniBand port its functions share
 * (SR-IOV on InfiniBand; docs/sriov-ib-notes.md).
 *
 * A VF of an InfiniBand PF has no link of its own: its port is the PF's, with
 * the PF's LID, LMC, SM and P_Keys, and its own port GUID (its GID 0). Its port
 * state follows the state policy its PF set (down, up, or the physical
 * port's). What it sends leaves on the PF's link; what it sends to the shared
 * LID, and what arrives on the link, goes through the PF's receive path, which
 * steers each packet to its function: unicast by destination QP (function f
 * numbers its QPs from f << log_max_qp), QP0/QP1 by the GRH's destination GID
 * (a VF's port GUID; otherwise the PF's), multicast to every function with an
 * attachment. A VF's driver reads its port through its HCA vport context and
 * the port registers (ib_virt), never its own SMA; it needs a GRH on all it
 * sends (grh_required), so that whatever answers it can find it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "trace.h"

#define MLX5_PTYS_IB_PROTO      (1u << 0)
#define MLX5_PTYS_WIDTH_4X      (1u << 2)
#define MLX5_IB_SPEED_QDR       4
#define MLX5_VL_HW_0_7          8

bool mlx5_ib_vport_is(const Mlx5Core *c)
{
    return c->cfg.vf && c->pf && !c->pf->eth && !c->eth;
}

/*
 * The port GUIDs of PF @pf's enabled VFs whose port is up: the fabric learns
 * them as the PF's port's aliases (its SA answers paths to and from them)
 */
void mlx5_ib_vport_aliases(Mlx5Core *pf)
{
    uint64_t g[MLX5_MAX_VFS];
    unsigned i, n = 0;

    if (pf->cfg.vf || pf->eth) {
        return;
    }
    for (i = 0; i < pf->cfg.num_vfs && n < IB_MAX_ALIASES; i++) {
        Mlx5Core *vf = pf->vfs ? pf->vfs[i] : NULL;

        if (vf && mlx5_ib_vport_is(vf) && vf->vf_enabled && vf->ib.link_up &&
            vf->cfg.port_guid) {
            g[n++] = vf->cfg.port_guid;
        }
    }
    ib_port_set_aliases(&pf->ib, g, n);
}

/*
 * VF @vf's port from its PF's port and the state policy the PF set, telling
 * the VF's driver what changed.
 */
void mlx5_ib_vport_sync(Mlx5Core *vf)
{
    Mlx5Core *pf = vf->pf;
    Mlx5Port *p = &vf->port;
    const Mlx5Port *pp = &pf->port;
    bool was_active = p->state == IB_PORT_STATE_ACTIVE;
    bool moved = p->lid != pp->lid || p->lmc != pp->lmc;
    bool new_sm = p->sm_lid != pp->sm_lid;
    bool up;

    p->lid = pp->lid;
    p->lmc = pp->lmc;
    p->sm_lid = pp->sm_lid;
    p->sm_sl = pp->sm_sl;
    p->gid_prefix = pp->gid_prefix;
    p->subnet_timeout = pp->subnet_timeout;
    memcpy(p->pkeys, pp->pkeys, sizeof(p->pkeys));
    vf->ib.lid = pf->ib.lid;
    vf->ib.lmc = pf->ib.lmc;
    vf->ib.gid_prefix = pp->gid_prefix;
    vf->ib.sm_lid = pf->ib.sm_lid;
    vf->ib.sm_guid = pf->ib.sm_guid;
    vf->ib.vport = true;
    pf->ib.shared = true;
    switch (vf->esw_admin) {
    case MLX5_VPORT_ADMIN_DOWN:
        up = false;
        break;
    case MLX5_VPORT_ADMIN_UP:
        up = pp->link_up;
        break;
    default:                        /* follow the physical port */
        up = pp->state == IB_PORT_STATE_ACTIVE;
        break;
    }
    trace_mlx5_ib_vport_sync(vf->vf_index, up, p->lid, p->sm_lid);
    mlx5_port_set_link(vf, up);
    if (was_active && p->state == IB_PORT_STATE_ACTIVE) {
        if (moved) {
            mlx5_port_event(vf, MLX5_PORT_CHANGE_SUBTYPE_LID);
        }
        if (new_sm) {
            mlx5_port_event(vf, MLX5_PORT_CHANGE_SUBTYPE_CLIENT_REREG);
        }
    }
    mlx5_ib_vport_aliases(pf);
}

/* The VF of PF @pf whose QPN range holds @qpn, or NULL (the PF's, or none). */
static Mlx5Core *mlx5_ib_vport_by_qpn(Mlx5Core *pf, uint32_t qpn)
{
    uint32_t f = qpn >> pf->cfg.log_max_qp;

    return f >= 1 && f <= pf->cfg.num_vfs ? pf->vfs[f - 1] : NULL;
}

static Mlx5Core *mlx5_ib_vport_by_guid(Mlx5Core *pf, uint64_t guid)
{
    unsigned i;

    for (i = 0; i < pf->cfg.num_vfs; i++) {
        if (pf->vfs[i] && pf->vfs[i]->cfg.port_guid == guid) {
            return pf->vfs[i];
        }
    }
    return NULL;
}

static void mlx5_ib_vport_deliver(Mlx5Core *vf, const uint8_t *frame,
                                  size_t len)
{
    struct iovec iov = { .iov_base = (void *)frame, .iov_len = len };

    if (!vf->hca_initialized || vf->health_fatal || !vf->ib.link_up) {
        trace_mlx5_ib_vport_drop(vf->vf_index, len);
        vf->pf->ib.stat_rx_drop++;
        return;
    }
    trace_mlx5_ib_vport_rx(vf->vf_index, len);
    ib_port_enqueue(&vf->ib, &iov, 1);
}

/*
 * IbDevOps.rx_steer: a packet for the port @port's functions share, found to
 * be addressed to this node. True if it belongs to another function (queued
 * for it, or dropped); false if @port takes it (multicast: after the copies
 * for the VFs with an attachment).
 */
bool mlx5_ib_rx_steer(IbPort *port, const IbPacket *p, const uint8_t *frame,
                      size_t len)
{
    Mlx5Core *c = port->dev, *vf;
    unsigned i;

    if (c->cfg.vf || c->eth || !c->cfg.num_vfs || !port->shared ||
        p->dlid == IB_LID_PERMISSIVE) {
        return false;
    }
    if (IB_LID_IS_MCAST(p->dlid)) {
        for (i = 0; i < c->cfg.num_vfs; i++) {
            vf = c->vfs[i];
            if (vf && vf->ib.mcast_count && mlx5_ib_vport_is(vf)) {
                mlx5_ib_vport_deliver(vf, frame, len);
            }
        }
        return false;
    }
    if (p->dest_qpn <= 1) {
        /* QP0/QP1 are every function's: the GRH says whose */
        vf = p->grh ? mlx5_ib_vport_by_guid(c, mlx5_ld64(p->dgid + 8)) : NULL;
    } else {
        vf = mlx5_ib_vport_by_qpn(c, p->dest_qpn);
        if (!vf && p->dest_qpn >> c->cfg.log_max_qp) {
            port->stat_rx_drop++;       /* a function we do not have */
            return true;
        }
    }
    if (!vf || !mlx5_ib_vport_is(vf)) {
        return false;
    }
    mlx5_ib_vport_deliver(vf, frame, len);
    return true;
}

/*
 * IbDevOps.local_port: what a function sends to the LID it shares goes
 * through its PF's receive path, which finds the function it is for.
 */
IbPort *mlx5_ib_local_port(IbPort *port)
{
    Mlx5Core *c = port->dev;

    return mlx5_ib_vport_is(c) ? &c->pf->ib : port;
}

/* A VF's frame for the fabric: out on its PF's link. */
bool mlx5_ib_vport_tx(Mlx5Core *vf, const struct iovec *iov, int iovcnt,
                      bool best_effort)
{
    Mlx5Core *pf = vf->pf;

    if (!pf->port.link_up || pf->health_fatal) {
        return true;                /* lost, like on a dead link */
    }
    return pf->ops->link_tx(pf->opaque, 1, iov, iovcnt, best_effort);
}

/* The PF's link takes frames again: so do its VFs' ports. */
void mlx5_ib_vport_tx_ready(Mlx5Core *pf)
{
    unsigned i;

    for (i = 0; i < pf->cfg.num_vfs; i++) {
        if (pf->vfs[i] && mlx5_ib_vport_is(pf->vfs[i])) {
            ib_port_tx_ready(&pf->vfs[i]->ib);
        }
    }
}

/*
 * The port registers an InfiniBand port answers (a VF's driver reads its
 * port's width, speed, MTU and VLs from them): PTYS (IB protocols), PMTU,
 * PVLC. False if @reg_id is none of them.
 */
bool mlx5_ib_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint16_t reg_id, uint8_t *reg,
                 size_t len, bool write)
{
    switch (reg_id) {
    case MLX5_REG_PTYS:
    case MLX5_REG_PMTU:
    case MLX5_REG_PVLC:
        break;
    default:
        return false;
    }
    if (reg[1] != 1) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return true;
    }
    if (write) {
        /* (the link's width, speed, MTU and VLs are fixed) */
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_BAD_REGISTER);
        return true;
    }
    switch (reg_id) {
    case MLX5_REG_PTYS:
        if (len < 0x30 || !((reg[3] & 7) & MLX5_PTYS_IB_PROTO)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_REGISTER);
            return true;
        }
        memset(reg + 4, 0, len - 4);
        reg[3] = MLX5_PTYS_IB_PROTO;
        /* capability, admin, operational: 4X QDR, as PortInfo says */
        mlx5_st16(reg + 0x10, MLX5_PTYS_WIDTH_4X);
        mlx5_st16(reg + 0x12, 0x7);          /* SDR, DDR, QDR */
        mlx5_st16(reg + 0x1c, MLX5_PTYS_WIDTH_4X);
        mlx5_st16(reg + 0x1e, MLX5_IB_SPEED_QDR);
        mlx5_st16(reg + 0x28, MLX5_PTYS_WIDTH_4X);
        mlx5_st16(reg + 0x2a, MLX5_IB_SPEED_QDR);
        break;
    case MLX5_REG_PMTU:
        memset(reg + 4, 0, len - 4);
        mlx5_st16(reg + 0x4, 4096);         /* max */
        mlx5_st16(reg + 0x8, 4096);         /* admin */
        mlx5_st16(reg + 0xc, 4096);         /* operational */
        break;
    case MLX5_REG_PVLC:
        memset(reg + 4, 0, len - 4);
        reg[7] = MLX5_VL_HW_0_7;            /* VL0-7, as PortInfo's VLCap */
        reg[0xb] = MLX5_VL_HW_0_7;
        reg[0xf] = MLX5_VL_HW_0_7;
        break;
    }
    return true;
}

/* one traffic counter of QUERY_VPORT_COUNTER's output: packets, octets */
static void mlx5_ib_vc(uint8_t *out, unsigned off, uint64_t pkts,
                       uint64_t octets)
{
    mlx5_st64(out + off, pkts);
    mlx5_st64(out + off + 8, octets);
}

/*
 * QUERY_VPORT_COUNTER on an InfiniBand port: a function's own vport, or (its
 * PF's kernel, `ip -s link show ib0`) a VF's: the IB unicast and multicast
 * packets and octets its port sent and received
 */
void mlx5_ib_query_vport_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned n = MLX5_GET(cmd->in, VPORT_IN_vport_number);
    const IbPort *p;
    Mlx5Core *t;

    if (!MLX5_GET(cmd->in, VPORT_IN_other_vport)) {
        t = c;
    } else {
        t = c->cfg.vf || cmd->uid ? NULL
            : n == 0 ? c : n <= c->cfg.num_vfs ? c->vfs[n - 1] : NULL;
    }
    if (!t) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return;
    }
    if (!mlx5_cmd_out_ok(cmd, VPORT_COUNTER_OUT_SIZE)) {
        return;
    }
    p = &t->ib;
    mlx5_ib_vc(cmd->out, VC_rx_ib_ucast_OFF, p->stat_rx - p->stat_rx_mcast,
               p->stat_rx_bytes - p->stat_rx_mcast_bytes);
    mlx5_ib_vc(cmd->out, VC_tx_ib_ucast_OFF, p->stat_tx - p->stat_tx_mcast,
               p->stat_tx_bytes - p->stat_tx_mcast_bytes);
    mlx5_ib_vc(cmd->out, VC_rx_ib_mcast_OFF, p->stat_rx_mcast,
               p->stat_rx_mcast_bytes);
    mlx5_ib_vc(cmd->out, VC_tx_ib_mcast_OFF, p->stat_tx_mcast,
               p->stat_tx_mcast_bytes);
}
