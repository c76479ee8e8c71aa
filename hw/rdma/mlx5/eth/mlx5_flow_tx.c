/*
 * mlx5 HCA core, Ethernet port: NIC TX (egress) flow steering. Every frame an
 * SQ sends passes through the NIC TX root table, when there is one, before it
 * goes out or loops back: the tables (mlx5_flow.c, table_type 1) match on the
 * frame's headers and misc.source_sqn, the SQ's number; an entry may count,
 * drop, rewrite headers (MOD_HDR, a context for NIC TX), put a tunnel header in
 * front (PACKET_REFORMAT, mlx5_reformat.c), and forward to another NIC TX
 * table; ALLOW ends the walk. A miss with no miss table, or no root table,
 * sends the frame as it is. Users: mlx5_ib's egress flows
 * (mlx5dv_create_flow on an egress matcher), DPDK's egress rules on its root
 * table (vxlan_encap).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

/* The match parameters of frame @f as SQ @sqn sends it. */
static void mlx5_tx_match_set(Mlx5Eth *e, uint32_t sqn, const uint8_t *f,
                              size_t len, uint8_t *ms)
{
    IbEthHdr h;

    if (!ib_eth_parse(f, len, &h)) {
        memset(ms, 0, MLX5_FTE_MATCH_PARAM_SIZE);
    } else {
        mlx5_eth_match_set(e, f, len, &h, ms);
    }
    MLX5_SET(ms, MS_source_sqn, sqn);
}

/* The frame in a buffer of ours, with room for a header and the padding. */
static uint8_t *mlx5_tx_own(uint8_t **f, size_t len, uint8_t **owned,
                            size_t *room)
{
    if (!*owned) {
        *room = len + MLX5_ETH_MAX_ENCAP_HDR + MLX5_ETH_MIN_FRAME;
        *owned = g_malloc(*room);
        memcpy(*owned, *f, len);
        *f = *owned;
    }
    return *owned;
}

bool mlx5_flow_steer_tx(Mlx5Core *c, uint32_t sqn, uint8_t **f, size_t *len,
                        uint8_t **owned)
{
    Mlx5Eth *e = c->eth;
    Mlx5FlowTable *ft = mlx5_ft_get(c, e->root_ft_tx);
    uint8_t ms[MLX5_FTE_MATCH_PARAM_SIZE];
    uint32_t ops[MLX5_FTE_OPS];
    unsigned hops, i, n;
    bool encapped = false;
    size_t room = 0;
    IbEthHdr h;

    if (!ft) {
        return true;
    }
    if (!ib_eth_parse(*f, *len, &h)) {
        memset(&h, 0, sizeof(h));
    }
    mlx5_tx_match_set(e, sqn, *f, *len, ms);
    for (hops = 0; ft && hops < MLX5_ETH_MAX_HOPS; hops++) {
        const Mlx5Fte *fte;

        if (ft->sw_owner) {
            /* its entries in ICM (mlx5_ste.c): allow, drop, or a table */
            Mlx5SteResult r;
            Mlx5FlowTable *next;
            Mlx5SteFrame fr = {
                .f = mlx5_tx_own(f, *len, owned, &room), .len = *len,
                .h = &h, .ms = ms, .encapped = encapped,
                .uid = mlx5_table_owner(&e->fts, ft->id),
                .src_gvmi = c->cfg.vhca_id,
            };

            /* (what it may grow to: the padding's room stays) */
            fr.room = room - MLX5_ETH_MIN_FRAME;
            mlx5_ste_walk(c, ft->icm_root[0], &fr, &r);
            *len = fr.len;
            encapped = fr.encapped;
            if (r.kind == MLX5_ICM_T_TX_ALLOW) {
                break;
            }
            next = r.kind == MLX5_ICM_T_FT ? mlx5_ft_get(c, r.id)
                   : r.kind == MLX5_ICM_T_METER
                       ? mlx5_meter_take(c, r.id, *len, ms)
                       : NULL;
            if (!next || next->type != ft->type) {
                trace_mlx5_eth_tx_drop(sqn, *len);
                return false;
            }
            ft = next;
            continue;
        }
        fte = mlx5_ft_hit(c, &ft, ms, *len);
        if (!fte) {
            continue;           /* (ft is the miss table, or NULL) */
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
            trace_mlx5_eth_tx_drop(sqn, *len);
            return false;
        }
        /* (no DECAP in NIC TX entries) */
        n = mlx5_fte_ops(fte, &encapped, ops);
        for (i = 0; i < n; i++) {
            mlx5_eth_transform(c, ops[i], mlx5_tx_own(f, *len, owned, &room),
                               len, &h);
        }
        if (n) {
            mlx5_tx_match_set(e, sqn, *f, *len, ms);
        }
        if (fte->action & MLX5_FLOW_CONTEXT_ACTION_ALLOW) {
            break;
        }
        ft = mlx5_fte_next_table(c, fte);
    }
    return true;
}
