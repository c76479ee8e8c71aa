/*
 * mlx5 HCA core, Ethernet port: the L2 tunnels a flow entry's DECAP takes
 * apart (mlx5_reformat.c): VXLAN (a UDP port of the VXLAN table,
 * mlx5_vxlan.c), GENEVE (UDP port 6081, version 0, protocol type Transparent
 * Ethernet Bridging, after its options) and GRE (no routing, protocol type
 * Transparent Ethernet Bridging, after its checksum, key and sequence words
 * and, version 1's, acknowledgment; the version is not checked otherwise, as
 * pyverbs' GRE tunnels are version 1 and decap on a card). Any other frame,
 * or one whose inner Ethernet header is cut short, is no L2 tunnel and passes
 * unchanged. (Matching on the inner headers and the stateless offloads stay
 * VXLAN's: the caps claim no GRE or GENEVE offloads.)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"

#define MLX5_ETHERTYPE_TEB  0x6558      /* Transparent Ethernet Bridging */
#define MLX5_IPPROTO_GRE    47
#define MLX5_GRE_C          0x8000      /* checksum present */
#define MLX5_GRE_R          0x4000      /* routing present (RFC 1701) */
#define MLX5_GRE_K          0x2000      /* key present */
#define MLX5_GRE_S          0x1000      /* sequence number present */
#define MLX5_GRE_A          0x0080      /* acknowledgment present (version 1) */
#define MLX5_GRE_VER        0x0007

/* Is @proto what a tunnel carries: Ethernet (TEB), or (@l3) IPv4 or IPv6? */
static bool mlx5_tunnel_proto(uint16_t proto, bool l3)
{
    return l3 ? proto == 0x0800 || proto == 0x86dd
              : proto == MLX5_ETHERTYPE_TEB;
}

/*
 * The offset of the inner Ethernet frame of GENEVE or GRE (@l3: the inner IP
 * packet of an L3 tunnel, protocol IPv4 or IPv6), 0: none.
 */
static size_t mlx5_tunnel_off(const uint8_t *f, size_t len, const IbEthHdr *h,
                              bool l3)
{
    size_t g;
    uint16_t fl;

    if (h->l4 && h->proto == 17 && h->dport == MLX5_GENEVE_PORT) {
        g = (size_t)h->l4 + 8;
        if (g + 8 > len || f[g] >> 6 ||
            !mlx5_tunnel_proto(mlx5_ld16(f + g + 2), l3)) {
            return 0;
        }
        return g + 8 + (f[g] & 0x3f) * 4;
    }
    if (!h->l3 || h->frag || h->proto != MLX5_IPPROTO_GRE) {
        return 0;
    }
    g = h->l3 + (h->ip_version == 4 ? (f[h->l3] & 0xf) * 4 : 40);
    if (g + 4 > len) {
        return 0;
    }
    fl = mlx5_ld16(f + g);
    if ((fl & MLX5_GRE_R) || (fl & MLX5_GRE_VER) > 1 ||
        !mlx5_tunnel_proto(mlx5_ld16(f + g + 2), l3)) {
        return 0;
    }
    return g + 4 + (fl & MLX5_GRE_C ? 4 : 0) + (fl & MLX5_GRE_K ? 4 : 0) +
           (fl & MLX5_GRE_S ? 4 : 0) +
           ((fl & MLX5_GRE_VER) == 1 && (fl & MLX5_GRE_A) ? 4 : 0);
}

size_t mlx5_tunnel_l2_inner(const Mlx5Eth *e, const uint8_t *f, size_t len,
                            const IbEthHdr *h, IbEthHdr *in)
{
    size_t off = mlx5_vxlan_inner(e, f, len, h, in);

    if (off) {
        return off;
    }
    off = mlx5_tunnel_off(f, len, h, false);
    if (!off || off >= len || !ib_eth_parse(f + off, len - off, in)) {
        return 0;
    }
    return off;
}

size_t mlx5_tunnel_l3_inner(const uint8_t *f, size_t len, const IbEthHdr *h)
{
    size_t off = mlx5_tunnel_off(f, len, h, true);

    return off && off < len ? off : 0;
}
