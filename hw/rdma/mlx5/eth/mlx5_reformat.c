/*
 * mlx5 HCA core, Ethernet port: what flow entries do to the frames they steer
 * (packet reformat).
 *
 * Packet reformat contexts (ALLOC/DEALLOC_PACKET_REFORMAT_CONTEXT) of type
 * L2_TO_VXLAN or L2_TO_L2_TUNNEL hold a header of up to MLX5_ETH_MAX_ENCAP_HDR
 * bytes (Ethernet, IPv4 or IPv6, UDP, VXLAN: mlx5_ib's L2_TO_L2_TUNNEL
 * reformat, DPDK's vxlan_encap); a flow entry's PACKET_REFORMAT puts it in
 * front of the frame (NIC TX: mlx5_flow_tx.c; NIC RX: the receiving queue
 * gets the frame with it), and the device fills the IP length,
 * the IPv4 header checksum and the UDP length, and clears the UDP checksum. A
 * context belongs to the uid that allocated it and cannot be freed while
 * entries use it.
 *
 * L2_TO_L3_TUNNEL's header (Ethernet, IP, GRE or UDP and GENEVE) replaces the
 * frame's Ethernet header (NIC TX, `reformat_l2_to_l3_tunnel`; software
 * steering's L3 encap too). L3_TUNNEL_TO_L2 (NIC RX,
 * `reformat_l3_tunnel_to_l2`) holds an Ethernet header (14 bytes, 18 with a
 * VLAN tag) that replaces an L3 tunnel's outer headers, up to the inner IP
 * packet (GRE or GENEVE carrying IP, mlx5_tunnel.c).
 *
 * DECAP (NIC RX, the `decap` flow-table cap; mlx5_ib's L2_TUNNEL_TO_L2
 * reformat, DPDK's vxlan_decap) takes the outer headers off a frame of an L2
 * tunnel (VXLAN, GENEVE or GRE, mlx5_tunnel.c): what is left is the inner
 * Ethernet frame, which the TIR receives and later tables match on. A frame
 * that is no such tunnel passes unchanged. Header rewrites (MOD_HDR) are
 * mlx5_modify_hdr.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

enum {
    /* a type not offered, or a bad size */
    MLX5_SYND_REFORMAT_PARAM = 0x30000040,
    /* flow entries still use it */
    MLX5_SYND_REFORMAT_BUSY = 0x30000041,
};

void mlx5_cmd_alloc_packet_reformat_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned type, size;
    Mlx5Reformat *r;

    if (!mlx5_cmd_in_ok(cmd, 0x24) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    type = MLX5_GET(cmd->in, REFORMAT_IN_type);
    size = MLX5_GET(cmd->in, REFORMAT_IN_data_size);
    if ((type != MLX5_REFORMAT_TYPE_L2_TO_VXLAN &&
         type != MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL &&
         type != MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL &&
         type != MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2) ||
        size < IB_ETH_HLEN || size > MLX5_ETH_MAX_ENCAP_HDR ||
        (type == MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2 &&
         size != IB_ETH_HLEN && size != IB_ETH_HLEN + 4)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_REFORMAT_PARAM);
        return;
    }
    if (!mlx5_cmd_in_ok(cmd, REFORMAT_IN_data_OFF + size)) {
        return;
    }
    r = g_new0(Mlx5Reformat, 1);
    r->type = type;
    r->size = size;
    memcpy(r->data, cmd->in + REFORMAT_IN_data_OFF, size);
    if (mlx5_table_alloc(&c->eth->reformats, r, &r->id)) {
        g_free(r);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->eth->reformats, r->id);
    MLX5_SET(cmd->out, REFORMAT_OUT_id, r->id);
    trace_mlx5_obj_create("packet reformat", r->id);
}

void mlx5_cmd_dealloc_packet_reformat_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Reformat *r;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    r = mlx5_cmd_obj(cmd, &c->eth->reformats,
                     MLX5_GET(cmd->in, REFORMAT_IN_id));
    if (!r) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (r->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                      MLX5_SYND_REFORMAT_BUSY);
        return;
    }
    mlx5_table_remove(&c->eth->reformats, r->id);
    trace_mlx5_obj_destroy("packet reformat", r->id);
    g_free(r);
}

bool mlx5_reformat_ref(Mlx5Core *c, uint32_t id)
{
    Mlx5Reformat *r = mlx5_table_get(&c->eth->reformats, id);

    if (r) {
        r->refcount++;
    }
    return r;
}

void mlx5_reformat_put(Mlx5Core *c, uint32_t id)
{
    Mlx5Reformat *r = mlx5_table_get(&c->eth->reformats, id);

    if (r) {
        mlx5_ref_put(&r->refcount);
    }
}

void mlx5_reformat_encap(Mlx5Core *c, uint32_t id, uint8_t *f, size_t *len)
{
    Mlx5Reformat *r = mlx5_table_get(&c->eth->reformats, id);
    IbEthHdr h;
    size_t n;

    if (!r) {
        return;                 /* (freed with the entry: cannot happen) */
    }
    if (r->type == MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2) {
        /*
         * everything before the inner IP packet replaced by the context's
         * Ethernet header (14 or 18 bytes, shorter than what it replaces); a
         * frame that is no L3 tunnel passes unchanged
         */
        n = ib_eth_parse(f, *len, &h) && h.l3
                ? mlx5_tunnel_l3_inner(f, *len, &h) : 0;
        if (n <= r->size) {
            trace_mlx5_eth_decap(*len, 0);
            return;
        }
        memmove(f + r->size, f + n, *len - n);
        memcpy(f, r->data, r->size);
        *len = *len - n + r->size;
        trace_mlx5_eth_decap(*len + n - r->size, n);
        return;
    }
    if (r->type == MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL) {
        /* the header replaces the frame's Ethernet header (and VLAN tags) */
        size_t l2 = ib_eth_parse(f, *len, &h) && h.l3 ? h.l3 : IB_ETH_HLEN;

        l2 = MIN(l2, *len);
        memmove(f, f + l2, *len - l2);
        *len -= l2;
    }
    memmove(f + r->size, f, *len);
    memcpy(f, r->data, r->size);
    *len += r->size;
    n = *len;
    if (ib_eth_parse(f, n, &h) && h.l3 && h.l3 < r->size) {
        if (h.ip_version == 4) {
            unsigned ihl = (f[h.l3] & 0xf) * 4;
            mlx5_st16(f + h.l3 + 2, n - h.l3);
            if (h.l3 + ihl <= r->size) {
                mlx5_st16(f + h.l3 + 10, 0);
                mlx5_st16(f + h.l3 + 10,
                          ~ib_csum_fold(ib_csum_add(0, f + h.l3, ihl)));
            }
        } else {
            mlx5_st16(f + h.l3 + 4, n - h.l3 - 40);
        }
        if (h.l4 && h.proto == 17 && h.l4 + 8u <= r->size) {
            mlx5_st16(f + h.l4 + 4, n - h.l4);
            mlx5_st16(f + h.l4 + 6, 0);
        }
    }
    trace_mlx5_eth_encap(id, r->size, n);
}

static void mlx5_eth_decap(Mlx5Eth *e, uint8_t *f, size_t *len, IbEthHdr *h)
{
    IbEthHdr in;
    size_t off = mlx5_tunnel_l2_inner(e, f, *len, h, &in);

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
    } else if (op & MLX5_STEER_OP_ENCAP) {
        mlx5_reformat_encap(c, op & ~MLX5_STEER_OP_ENCAP, f, len);
        ib_eth_parse(f, *len, h);
    } else {
        mlx5_modhdr_apply(c, op, f, *len, h);
    }
}
