/*
 * mlx5 HCA core, Ethernet port: the E-Switch's forwarding database (FDB), the
 * flow tables of table type 4 its manager programs (mlx5_eswitch.c switches
 * the frames through them).
 *
 * Firmware tables hold groups and entries: an entry forwards to vports (the
 * uplink 0xffff among them), to another table, or drops; its modify header
 * writes the metadata registers. As on a ConnectX-5 the FDB may also be
 * software owned (docs/sw-steering-notes.md, phase 4): with software steering
 * offered (`sw-steering`), a table created with sw_owner names the ICM roots
 * of its steering entries, one for frames from the uplink (root 0, the FDB's
 * "RX") and one for frames from the functions (root 1, "TX"), and a frame
 * that reaches it walks them (mlx5_ste.c) to a terminal: a vport (each
 * vport's ICM address is in its E-Switch vport context, the uplink's in the
 * E-Switch flow-table caps), a firmware table (its anchor: steering goes on
 * there), or the FDB's drop. mlx5_core's SMFS (its default in switchdev mode
 * when the FDB is software owned) and rdma-core's FDB domains write them.
 * The source-vport lookup (SRC_GVMI_AND_QP) sees the vhca_id of the frame's
 * source function (0 for the uplink), as the library puts it in the tag.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

void mlx5_fdb_caps(const Mlx5CoreConfig *cfg, uint8_t *cap)
{
    if (!mlx5_sw_icm_offered(cfg)) {
        return;
    }
    /* (the FDB's properties sit where a NIC page has NIC RX's) */
    MLX5_SET(cap, FT_CAP_nic_rx_sw_owner, 1);
    MLX5_SET64(cap, ESW_FT_CAP_sw_steering_fdb_action_drop_icm_address_rx_OFF,
               mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0));
    MLX5_SET64(cap, ESW_FT_CAP_sw_steering_fdb_action_drop_icm_address_tx_OFF,
               mlx5_icm_term(MLX5_ICM_T_TX_DROP, 0));
    MLX5_SET64(cap, ESW_FT_CAP_sw_steering_uplink_icm_address_rx_OFF,
               mlx5_icm_term(MLX5_ICM_T_VPORT, MLX5_VPORT_UPLINK));
    MLX5_SET64(cap, ESW_FT_CAP_sw_steering_uplink_icm_address_tx_OFF,
               mlx5_icm_term(MLX5_ICM_T_VPORT, MLX5_VPORT_UPLINK));
}

void mlx5_fdb_vport_icm(const Mlx5Core *c, uint16_t vport, uint8_t *ctx)
{
    if (mlx5_sw_icm_offered(&c->cfg)) {
        MLX5_SET64(ctx, ESWC_sw_steering_vport_icm_address_rx_OFF,
                   mlx5_icm_term(MLX5_ICM_T_VPORT, vport));
        MLX5_SET64(ctx, ESWC_sw_steering_vport_icm_address_tx_OFF,
                   mlx5_icm_term(MLX5_ICM_T_VPORT, vport));
    }
}

/* The vhca_id of vport @src's function (the uplink's: 0). */
static uint16_t mlx5_fdb_gvmi(Mlx5Core *pf, uint16_t src)
{
    Mlx5Core *f = src == MLX5_VPORT_UPLINK ? NULL
                                           : mlx5_esw_function(pf, src);

    return f ? f->cfg.vhca_id : 0;
}

/*
 * Software-owned table @ft: walk its entries for the frame (from the uplink:
 * root 0, else root 1). A vport it ends at is marked in @to; the firmware
 * table it goes on in, or NULL.
 */
static Mlx5FlowTable *mlx5_fdb_walk(Mlx5Core *pf, Mlx5FlowTable *ft,
                                    Mlx5SwMeta *m, uint8_t *f, size_t *len,
                                    size_t room, IbEthHdr *h, uint8_t *ms,
                                    uint8_t *to)
{
    unsigned uplink = pf->cfg.num_vfs + 1;
    Mlx5SteFrame fr = {
        .f = f, .len = *len, .room = room, .h = h, .ms = ms,
        .uid = mlx5_table_owner(&pf->eth->fts, ft->id),
        .src_gvmi = mlx5_fdb_gvmi(pf, m->src),
    };
    Mlx5FlowTable *next;
    Mlx5SteResult r;

    mlx5_ste_walk(pf, ft->icm_root[m->src == MLX5_VPORT_UPLINK ? 0 : 1], &fr,
                  &r);
    trace_mlx5_fdb_ste(m->src, r.kind, r.id, fr.len);
    *len = fr.len;
    /* (registers the entries wrote: what follows and the receiver see) */
    m->regc[0] = mlx5_ld32(ms + MLX5_MS_REG_C(0));
    m->regc[1] = mlx5_ld32(ms + MLX5_MS_REG_C(1));
    if (r.kind == MLX5_ICM_T_VPORT) {
        unsigned v = r.id == MLX5_VPORT_UPLINK ? uplink : r.id;

        if (v <= uplink) {
            to[v] = MLX5_FDB_TO_STE;
        }
        return NULL;
    }
    next = r.kind == MLX5_ICM_T_FT ? mlx5_ft_get(pf, r.id) : NULL;
    return next && next->type == ft->type ? next : NULL;
}

/* Pop frame @f's outer VLAN tag, if it has one. */
static bool mlx5_fdb_pop(uint8_t *f, size_t *len, IbEthHdr *h)
{
    if (!h->ntags || *len < IB_ETH_HLEN + 4) {
        return false;
    }
    memmove(f + 12, f + 16, *len - 16);
    *len -= 4;
    ib_eth_parse(f, *len, h);
    return true;
}

/* Push VLAN tag @tag (ethertype, prio, cfi, vid) outside @f's others. */
static bool mlx5_fdb_push(uint8_t *f, size_t *len, size_t room, IbEthHdr *h,
                          uint32_t tag)
{
    if (*len < 12 || *len + 4 > room) {
        return false;
    }
    memmove(f + 16, f + 12, *len - 12);
    mlx5_st32(f + 12, tag);
    *len += 4;
    ib_eth_parse(f, *len, h);
    return true;
}

/*
 * A firmware entry's header actions on frame @f (buffer of @room bytes), in a
 * card's order: decap, VLAN pops (the outer tag, then with VLAN_POP_2 the
 * next), VLAN pushes (push_vlan, then with VLAN_PUSH_2 push_vlan_2 outside
 * it: TC's first and second vlan push), encap (what TC's rules use:
 * tunnel_key unset, vlan pop/push, tunnel_key set). True if it changed.
 */
static bool mlx5_fdb_fte_actions(Mlx5Core *pf, const Mlx5Fte *fte, uint8_t *f,
                                 size_t *len, size_t room, IbEthHdr *h)
{
    size_t was = *len;
    bool changed = false;

    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DECAP) {
        mlx5_eth_transform(pf, MLX5_STEER_OP_DECAP, f, len, h);
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_POP) {
        changed |= mlx5_fdb_pop(f, len, h);
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_POP_2) {
        changed |= mlx5_fdb_pop(f, len, h);
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH) {
        changed |= mlx5_fdb_push(f, len, room, h, fte->push_vlan);
    }
    if (fte->action & MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH_2) {
        changed |= mlx5_fdb_push(f, len, room, h, fte->push_vlan_2);
    }
    if ((fte->action & MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT) &&
        *len + MLX5_ETH_MAX_ENCAP_HDR <= room) {
        mlx5_eth_transform(pf, MLX5_STEER_OP_ENCAP | fte->reformat, f, len, h);
    }
    /* (a pop and a push leave the length: a tag rewritten) */
    changed |= *len != was;
    trace_mlx5_fdb_fte_actions(fte->action, was, *len, changed);
    return changed;
}

bool mlx5_fdb_steer(Mlx5Core *pf, Mlx5SwMeta *m, uint32_t sqn, uint8_t *f,
                    size_t *len, size_t room, uint8_t *to)
{
    Mlx5FlowTable *ft = mlx5_ft_get(pf, pf->eth->root_ft_fdb);
    uint8_t ms[MLX5_FTE_MATCH_PARAM_SIZE];
    unsigned hops, i, uplink = pf->cfg.num_vfs + 1;
    bool hit = false;
    IbEthHdr h;

    if (!ib_eth_parse(f, *len, &h)) {
        return false;
    }
    mlx5_eth_match_set(pf->eth, f, *len, &h, ms);
    mlx5_st16(ms + MS_MISC_source_port_OFF, m->src);
    MLX5_SET(ms, MS_source_sqn, sqn);
    for (hops = 0; ft && hops < MLX5_ETH_MAX_HOPS; hops++) {
        const Mlx5Fte *fte;
        Mlx5FlowTable *next = NULL;

        mlx5_ms_regc(ms, m->regc, 3);
        if (ft->sw_owner) {
            hit = true;
            ft = mlx5_fdb_walk(pf, ft, m, f, len, room, &h, ms, to);
            continue;
        }
        fte = mlx5_ft_hit(pf, &ft, ms, *len);
        if (!fte) {
            continue;           /* (ft is the miss table, or NULL) */
        }
        hit = true;
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
            break;
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_MOD_HDR) {
            /* (registers: what follows matches on them, receivers see them) */
            mlx5_modhdr_apply_regs(pf, fte->modhdr, m->regc);
        }
        if (mlx5_fdb_fte_actions(pf, fte, f, len, room, &h)) {
            /* (what follows matches on the frame as it is now) */
            mlx5_eth_match_set(pf->eth, f, *len, &h, ms);
            mlx5_st16(ms + MS_MISC_source_port_OFF, m->src);
            MLX5_SET(ms, MS_source_sqn, sqn);
        }
        for (i = 0; i < fte->ndest; i++) {
            uint32_t id = fte->dest[i].id;

            if (fte->dest[i].type == MLX5_FLOW_DEST_TYPE_FLOW_TABLE) {
                next = next ? next : mlx5_ft_get(pf, id);
            } else if (fte->dest[i].type == MLX5_FLOW_DEST_TYPE_VPORT) {
                id = id == MLX5_VPORT_UPLINK ? uplink : id;
                if (id <= uplink && !to[id]) {
                    to[id] = MLX5_FDB_TO_FW;
                }
            }
        }
        ft = next;
    }
    return hit;
}
