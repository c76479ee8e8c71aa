/*
 * mlx5 HCA core, Ethernet port: what flow entries do to the frames they steer
 * (packet reformat). DECAP (NIC RX, the `decap` flow-table cap; mlx5_ib's
 * L2_TUNNEL_TO_L2 reformat, DPDK's vxlan_decap) takes the outer Ethernet, IP,
 * UDP and VXLAN headers off a frame of a VXLAN tunnel (a UDP port of the table,
 * mlx5_vxlan.c): what is left is the inner Ethernet frame, which the TIR
 * receives and later tables match on. A frame that is no such tunnel passes
 * unchanged. Header rewrites (MOD_HDR) are mlx5_modify_hdr.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

static void mlx5_eth_decap(Mlx5Eth *e, uint8_t *f, size_t *len, IbEthHdr *h)
{
    IbEthHdr in;
    size_t off = mlx5_vxlan_inner(e, f, *len, h, &in);

    if (!off) {
        trace_mlx5_eth_decap(*len, 0);
        return;
    }
    memmove(f, f + off, *len - off);
    *len -= off;
    *h = in;
    trace_mlx5_eth_decap(*len + off, off);
}

void mlx5_eth_transform(Mlx5Core *c, uint32_t op, uint8_t *f, size_t *len,
                        IbEthHdr *h)
{
    if (op == MLX5_STEER_OP_DECAP) {
        mlx5_eth_decap(c->eth, f, len, h);
    } else {
        mlx5_modhdr_apply(c, op, f, *len, h);
    }
}
