/*
 * mlx5 HCA core, Ethernet port: RoCE v2. The ROCE capability page, and the GID
 * table the driver programs with SET_ROCE_ADDRESS (one entry per IP address of
 * the interface and RoCE version, from ib_core's GID management): each entry is
 * kept as written, for QUERY_ROCE_ADDRESS, and given to the transport's port
 * (ib_roce.c), which addresses RoCE packets by it. Frames from the link reach
 * the transport from mlx5_eth_rx when the vport's roce_en is set.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

void mlx5_roce_caps(uint8_t *cap)
{
    MLX5_SET(cap, ROCE_CAP_l3_type, 0x6);           /* IPv4 and IPv6 */
    /* v2 only */
    MLX5_SET(cap, ROCE_CAP_roce_version, 1u << MLX5_ROCE_VERSION_2);
    MLX5_SET(cap, ROCE_CAP_r_roce_dest_udp_port, IB_ROCE_UDP_PORT);
    MLX5_SET(cap, ROCE_CAP_r_roce_min_src_udp_port, 0xc000);
    MLX5_SET(cap, ROCE_CAP_r_roce_max_src_udp_port, 0xffff);
    MLX5_SET(cap, ROCE_CAP_roce_address_table_size, IB_ROCE_MAX_GIDS);
}

static bool mlx5_roce_index(Mlx5CmdCtx *cmd, unsigned *index)
{
    unsigned port;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return false;
    }
    *index = MLX5_GET(cmd->in, ROCE_ADDR_IN_index);
    port = MLX5_GET(cmd->in, ROCE_ADDR_IN_vhca_port_num);
    if (port > 1) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return false;
    }
    if (*index >= IB_ROCE_MAX_GIDS) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return false;
    }
    return true;
}

void mlx5_cmd_set_roce_address(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    static const uint8_t zero[16];
    const uint8_t *a = cmd->in + ROCE_ADDR_OFF;
    IbRoceGid g = { 0 };
    unsigned index, version, l3;
    bool v4mapped;

    if (!mlx5_roce_index(cmd, &index) ||
        !mlx5_cmd_in_ok(cmd, ROCE_ADDR_OFF + ROCE_ADDR_SIZE)) {
        return;
    }
    if (!memcmp(a + ROCE_ADDR_l3_OFF, zero, 16)) {
        /* an all-zero address deletes the entry */
        memset(c->eth->roce_addr[index], 0, ROCE_ADDR_SIZE);
        ib_roce_set_gid(&c->ib, index, NULL);
        return;
    }
    version = MLX5_GET(a, ROCE_ADDR_version);
    l3 = MLX5_GET(a, ROCE_ADDR_l3_type);
    memcpy(g.gid, a + ROCE_ADDR_l3_OFF, 16);
    v4mapped = ib_gid_is_v4mapped(g.gid);
    /*
     * only RoCE v2 is offered (ROCE cap roce_version); an IPv4-mapped address
     * must say IPv4. (mlx5_core's switchdev mode writes index 0 with its
     * fe80:: default GID and l3_type 0, IPv4, as firmware takes it: the
     * address decides, an IPv6 one.)
     */
    if (version != MLX5_ROCE_VERSION_2 ||
        (l3 != MLX5_ROCE_L3_TYPE_IPV4 && l3 != MLX5_ROCE_L3_TYPE_IPV6) ||
        (l3 == MLX5_ROCE_L3_TYPE_IPV6 && v4mapped)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    g.ipv4 = v4mapped;
    g.vlan = MLX5_GET(a, ROCE_ADDR_vlan_valid);
    g.vlan_id = MLX5_GET(a, ROCE_ADDR_vlan_id);
    memcpy(g.mac, a + ROCE_ADDR_mac_OFF, 6);
    memcpy(c->eth->roce_addr[index], a, ROCE_ADDR_SIZE);
    ib_roce_set_gid(&c->ib, index, &g);
}

void mlx5_cmd_query_roce_address(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned index;

    if (!mlx5_roce_index(cmd, &index) ||
        !mlx5_cmd_out_ok(cmd, ROCE_ADDR_OFF + ROCE_ADDR_SIZE)) {
        return;
    }
    memcpy(cmd->out + ROCE_ADDR_OFF, c->eth->roce_addr[index], ROCE_ADDR_SIZE);
}
