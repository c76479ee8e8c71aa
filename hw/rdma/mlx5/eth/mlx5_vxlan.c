/*
 * mlx5 HCA core, Ethernet port: the VXLAN UDP port table
 * (ADD/DELETE_VXLAN_UDP_DPORT) and the stateless offloads it enables.
 *
 * A UDP datagram to a port in the table is a VXLAN tunnel: after its 8-byte
 * VXLAN header comes the inner Ethernet frame. The send side then fills the
 * inner checksums a WQE's L3/L4_INNER_CSUM flags ask for and cuts an LSO WQE at
 * the inner TCP header (mlx5_eth_tx.c): mlx5e's VXLAN offload (checksum and
 * GSO_UDP_TUNNEL[_CSUM] segmentation of `ip link add ... type vxlan` devices),
 * DPDK's tunnel TX offloads. The table holds 4789 (IANA) from power-on and up
 * to MLX5_ETH_MAX_VXLAN_PORTS ports; adding a port that is there is a no-op,
 * as mlx5_core adds 4789 once more at start.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

enum {
    /* the table is full */
    MLX5_SYND_VXLAN_FULL = 0x30000020,
    /* DELETE of a port that is not in the table */
    MLX5_SYND_VXLAN_NO_PORT = 0x30000021,
    /* port 0 */
    MLX5_SYND_VXLAN_PORT = 0x30000022,
};

#define MLX5_VXLAN_HLEN     8

void mlx5_vxlan_reset(Mlx5Eth *e)
{
    memset(e->vxlan_port, 0, sizeof(e->vxlan_port));
    e->vxlan_port[0] = MLX5_VXLAN_IANA_PORT;
}

static int mlx5_vxlan_find(const Mlx5Eth *e, uint16_t port)
{
    int i;

    for (i = 0; i < MLX5_ETH_MAX_VXLAN_PORTS; i++) {
        if (port && e->vxlan_port[i] == port) {
            return i;
        }
    }
    return -1;
}

static uint16_t mlx5_vxlan_cmd_port(Mlx5CmdCtx *cmd)
{
    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return 0;
    }
    return MLX5_GET(cmd->in, VXLAN_IN_udp_port);
}

void mlx5_cmd_add_vxlan_udp_dport(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Eth *e = c->eth;
    uint16_t port = mlx5_vxlan_cmd_port(cmd);
    int i;

    if (cmd->status) {
        return;
    }
    if (!port) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_VXLAN_PORT);
        return;
    }
    if (mlx5_vxlan_find(e, port) >= 0) {
        return;
    }
    for (i = 0; i < MLX5_ETH_MAX_VXLAN_PORTS && e->vxlan_port[i]; i++) {
        continue;
    }
    if (i == MLX5_ETH_MAX_VXLAN_PORTS) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_NO_RES_ERR, MLX5_SYND_VXLAN_FULL);
        return;
    }
    e->vxlan_port[i] = port;
    trace_mlx5_eth_vxlan_port(port, true);
}

void mlx5_cmd_delete_vxlan_udp_dport(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Eth *e = c->eth;
    uint16_t port = mlx5_vxlan_cmd_port(cmd);
    int i;

    if (cmd->status) {
        return;
    }
    i = mlx5_vxlan_find(e, port);
    if (i < 0) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_VXLAN_NO_PORT);
        return;
    }
    e->vxlan_port[i] = 0;
    trace_mlx5_eth_vxlan_port(port, false);
}

size_t mlx5_vxlan_inner(const Mlx5Eth *e, const uint8_t *f, size_t len,
                        const IbEthHdr *h, IbEthHdr *in)
{
    size_t off;

    if (!h->l4 || h->frag || h->proto != 17 ||
        mlx5_vxlan_find(e, h->dport) < 0) {
        return 0;
    }
    off = (size_t)h->l4 + 8 + MLX5_VXLAN_HLEN;
    if (off >= len || !ib_eth_parse(f + off, len - off, in)) {
        return 0;
    }
    return off;
}
