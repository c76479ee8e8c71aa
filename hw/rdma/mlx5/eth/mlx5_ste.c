/*
 * mlx5 HCA core, Ethernet port: the steering entry (STE) engine of software
 * steering, format v0 as a ConnectX-5 has it (docs/sw-steering-notes.md).
 *
 * A software-owned flow table (CREATE_FLOW_TABLE with sw_owner) holds no
 * groups or entries: it names the ICM address of its first entry, and the
 * software (rdma-core's mlx5dv_dr) builds hash tables of 64-byte STEs in
 * steering ICM (mlx5_sw_icm.c) behind it. A frame that reaches such a table
 * walks them:
 *
 * - an entry's control part says its lookup type (which header fields make
 *   its 16-byte key), where a hit goes (the next hash table: its base, its
 *   size in the low bits, the next lookup type and the byte mask that selects
 *   the key bytes to hash) and where a miss goes (another entry, a collision
 *   chain, or a terminal); its tag and bit mask decide: hit if the frame's key
 *   under the mask equals the tag;
 * - in a hash table of N entries the frame takes entry CRC32(key bytes the
 *   byte mask selects) mod N, the CRC rdma-core computes (reflected
 *   0xEDB88320, init 0, no final xor, byte swapped);
 * - a hit applies the entry's actions (mlx5_ste_action.c: counters, flow
 *   tags, rewrites, VLAN and tunnel actions; later lookups see the frame and
 *   the metadata registers as they are then) and goes on; a walk ends at a
 *   terminal address the device gave out: the NIC RX drop, the NIC TX drop
 *   and allow (to the wire), a TIR (CREATE_TIR's output), or a firmware table
 *   (QUERY_FLOW_TABLE's roots: steering goes on in that table).
 *
 * Entries are guest data: a walk takes at most MLX5_STE_MAX_STEPS entries (a
 * loop drops the frame), an address outside the ICM objects, a never-written
 * entry or an unknown entry type drops it, and every failure is traced.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

/* entries a frame's walk may visit */
#define MLX5_STE_MAX_STEPS      256

/* match set (fte_match_param) offsets the keys read */
#define MS_OUTER                0x00
#define MS_INNER                0x80
#define MS_REG_C_7              0xd0
#define MS_REG_A                0xf0

void mlx5_ste_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap)
{
    if (!mlx5_sw_icm_offered(cfg)) {
        return;
    }
    switch (type) {
    case MLX5_CAP_FLOW_TABLE:
        MLX5_SET(cap, FT_CAP_nic_rx_sw_owner, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_sw_owner, 1);
        MLX5_SET64(cap, FT_CAP_sw_steering_nic_rx_action_drop_icm_address_OFF,
                   mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0));
        MLX5_SET64(cap, FT_CAP_sw_steering_nic_tx_action_drop_icm_address_OFF,
                   mlx5_icm_term(MLX5_ICM_T_TX_DROP, 0));
        MLX5_SET64(cap, FT_CAP_sw_steering_nic_tx_action_allow_icm_address_OFF,
                   mlx5_icm_term(MLX5_ICM_T_TX_ALLOW, 0));
        break;
    case MLX5_CAP_ROCE:
        /* the steering QPs are RC QPs looped back inside the device */
        MLX5_SET(cap, ROCE_CAP_fl_rc_qp_when_roce_disabled, 1);
        MLX5_SET(cap, ROCE_CAP_fl_rc_qp_when_roce_enabled, 1);
        break;
    default:
        break;
    }
}

uint64_t mlx5_icm_term(unsigned kind, uint32_t id)
{
    return MLX5_ICM_TERM_BASE | (uint64_t)kind << 32 |
           (uint64_t)(id & 0xffffff) << 6;
}

void mlx5_icm_out(uint8_t *out, uint64_t addr)
{
    MLX5_SET(out, ICM_OUT_63_40, addr >> 40);
    MLX5_SET(out, ICM_OUT_39_32, addr >> 32);
    MLX5_SET(out, ICM_OUT_31_0, addr);
}

/* Is @addr a terminal? Its kind and id then. */
static bool mlx5_icm_is_term(uint64_t addr, unsigned *kind, uint32_t *id)
{
    if (addr < MLX5_ICM_TERM_BASE ||
        addr >= MLX5_ICM_TERM_BASE + (16ull << 32)) {
        return false;
    }
    *kind = (addr >> 32) & 0xf;
    *id = (addr >> 6) & 0xffffff;
    return true;
}

/* ---- the hash ------------------------------------------------------------ */

static uint32_t mlx5_ste_crc_tab[256];

static void mlx5_ste_crc_init(void)
{
    uint32_t i, j, crc;

    for (i = 0; i < 256; i++) {
        crc = i;
        for (j = 0; j < 8; j++) {
            crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
        }
        mlx5_ste_crc_tab[i] = crc;
    }
}

uint32_t mlx5_ste_crc32(const uint8_t *p, size_t len)
{
    uint32_t crc = 0;

    if (!mlx5_ste_crc_tab[1]) {
        mlx5_ste_crc_init();
    }
    while (len--) {
        crc = (crc >> 8) ^ mlx5_ste_crc_tab[(crc ^ *p++) & 0xff];
    }
    return bswap32(crc);
}

uint32_t mlx5_ste_hash(const uint8_t *key, uint16_t byte_mask, uint32_t n)
{
    uint8_t masked[MLX5_STE_TAG_SIZE] = { 0 };
    unsigned i;

    if (n <= 1 || !byte_mask) {
        return 0;
    }
    for (i = 0; i < MLX5_STE_TAG_SIZE; i++) {
        if (byte_mask & (1u << (MLX5_STE_TAG_SIZE - 1 - i))) {
            masked[i] = key[i];
        }
    }
    return mlx5_ste_crc32(masked, sizeof(masked)) % n;
}

/* ---- the keys ------------------------------------------------------------ */

/* Header set @hs's first VLAN qualifier and L3 type, as STE keys say them */
static unsigned mlx5_ste_vlan_q(const uint8_t *hs)
{
    return MLX5_GET(hs, MS_cvlan_tag)   ? MLX5_STE_CVLAN
           : MLX5_GET(hs, MS_svlan_tag) ? MLX5_STE_SVLAN
                                        : 0;
}

static unsigned mlx5_ste_l3_type(const uint8_t *hs)
{
    unsigned ipv = MLX5_GET(hs, MS_ip_version);

    return ipv == 4 ? MLX5_STE_IPV4 : ipv == 6 ? MLX5_STE_IPV6 : 0;
}

/* The fields of one header set (outer or inner) of a match set. */
static void mlx5_ste_l2_common(const uint8_t *hs, uint8_t *key, bool src_dst)
{
    unsigned q = mlx5_ste_vlan_q(hs);
    unsigned l3 = mlx5_ste_l3_type(hs);

    if (src_dst) {
        MLX5_SET(key, STE_L2SD_l3_type, l3);
        MLX5_SET(key, STE_L2SD_first_priority, MLX5_GET(hs, MS_first_prio));
        MLX5_SET(key, STE_L2SD_first_cfi, MLX5_GET(hs, MS_first_cfi));
        MLX5_SET(key, STE_L2SD_first_vlan_qualifier, q);
        MLX5_SET(key, STE_L2SD_first_vlan_id, MLX5_GET(hs, MS_first_vid));
        return;
    }
    MLX5_SET(key, STE_L2_l3_ethertype, MLX5_GET(hs, MS_ethertype));
    MLX5_SET(key, STE_L2_first_priority, MLX5_GET(hs, MS_first_prio));
    MLX5_SET(key, STE_L2_first_cfi, MLX5_GET(hs, MS_first_cfi));
    MLX5_SET(key, STE_L2_first_vlan_qualifier, q);
    MLX5_SET(key, STE_L2_first_vlan_id, MLX5_GET(hs, MS_first_vid));
    MLX5_SET(key, STE_L2_ip_fragmented, MLX5_GET(hs, MS_frag));
    MLX5_SET(key, STE_L2_l3_type, l3);
}

/* ste_eth_l2_tnl's dword 3 for header set @hs (the inner one). */
static void mlx5_ste_l2_tnl(const uint8_t *hs, uint8_t *key)
{
    MLX5_SET(key, STE_L2TNL_ip_fragmented, MLX5_GET(hs, MS_frag));
    MLX5_SET(key, STE_L2TNL_l3_type, mlx5_ste_l3_type(hs));
    MLX5_SET(key, STE_L2TNL_first_priority, MLX5_GET(hs, MS_first_prio));
    MLX5_SET(key, STE_L2TNL_first_cfi, MLX5_GET(hs, MS_first_cfi));
    MLX5_SET(key, STE_L2TNL_first_vlan_qualifier, mlx5_ste_vlan_q(hs));
    MLX5_SET(key, STE_L2TNL_first_vlan_id, MLX5_GET(hs, MS_first_vid));
}

/* The L4 ports of header set @hs: TCP's or UDP's, by its IP protocol. */
static void mlx5_ste_ports(const uint8_t *hs, unsigned *sport, unsigned *dport)
{
    bool udp = MLX5_GET(hs, MS_ip_protocol) == 17;      /* UDP */

    *sport = udp ? MLX5_GET(hs, MS_udp_sport) : MLX5_GET(hs, MS_tcp_sport);
    *dport = udp ? MLX5_GET(hs, MS_udp_dport) : MLX5_GET(hs, MS_tcp_dport);
}

/*
 * The 16-byte key of lookup type @lu for a frame with match set @ms. Returns
 * false for a lookup type the device does not know (then no tag but the
 * empty one matches: its key is zeros).
 */
bool mlx5_ste_key(unsigned lu, const uint8_t *ms, uint8_t *key)
{
    bool inner = false;
    const uint8_t *hs;
    unsigned sp, dp, i;

    memset(key, 0, MLX5_STE_TAG_SIZE);
    switch (lu) {
    case MLX5_STE_LU_ETHL2_SRC_I:
    case MLX5_STE_LU_ETHL2_DST_I:
    case MLX5_STE_LU_ETHL2_TUNNELING_I:
    case MLX5_STE_LU_ETHL2_SRC_DST_I:
    case MLX5_STE_LU_ETHL3_IPV4_5_TUPLE_I:
    case MLX5_STE_LU_ETHL3_IPV6_DST_I:
    case MLX5_STE_LU_ETHL3_IPV6_SRC_I:
    case MLX5_STE_LU_ETHL3_IPV4_MISC_I:
    case MLX5_STE_LU_ETHL4_I:
        inner = true;
        break;
    default:
        break;
    }
    hs = ms + (inner ? MS_INNER : MS_OUTER);
    switch (lu) {
    case MLX5_STE_LU_ETHL2_SRC_O:
    case MLX5_STE_LU_ETHL2_SRC_I:
    case MLX5_STE_LU_ETHL2_SRC_D:
        memcpy(key, hs + MS_smac_47_16_OFF, 6);
        mlx5_ste_l2_common(hs, key, false);
        return true;
    case MLX5_STE_LU_ETHL2_DST_O:
    case MLX5_STE_LU_ETHL2_DST_I:
    case MLX5_STE_LU_ETHL2_DST_D:
        memcpy(key, hs + MS_dmac_47_16_OFF, 6);
        mlx5_ste_l2_common(hs, key, false);
        return true;
    case MLX5_STE_LU_ETHL2_TUNNELING_I:
        /* the inner destination MAC and tag under the VXLAN VNI */
        memcpy(key, hs + MS_dmac_47_16_OFF, 6);
        MLX5_SET(key, STE_L2_l3_ethertype, MLX5_GET(hs, MS_ethertype));
        MLX5_SET(key, STE_L2TNL_network_id, MLX5_GET(ms, MS_vxlan_vni) << 8);
        mlx5_ste_l2_tnl(hs, key);
        return true;
    case MLX5_STE_LU_ETHL2_SRC_DST_O:
    case MLX5_STE_LU_ETHL2_SRC_DST_I:
    case MLX5_STE_LU_ETHL2_SRC_DST_D:
        memcpy(key, hs + MS_dmac_47_16_OFF, 6);
        memcpy(key + 6, hs + MS_smac_47_16_OFF, 6);
        mlx5_ste_l2_common(hs, key, true);
        return true;
    case MLX5_STE_LU_ETHL3_IPV4_5_TUPLE_O:
    case MLX5_STE_LU_ETHL3_IPV4_5_TUPLE_I:
    case MLX5_STE_LU_ETHL3_IPV4_5_TUPLE_D:
        memcpy(key, hs + MS_dst_ip_OFF + 12, 4);
        memcpy(key + 4, hs + MS_src_ip_OFF + 12, 4);
        mlx5_ste_ports(hs, &sp, &dp);
        MLX5_SET(key, STE_L3V4_source_port, sp);
        MLX5_SET(key, STE_L3V4_destination_port, dp);
        MLX5_SET(key, STE_L3V4_fragmented, MLX5_GET(hs, MS_frag));
        MLX5_SET(key, STE_L3V4_ecn, MLX5_GET(hs, MS_ip_ecn));
        MLX5_SET(key, STE_L3V4_tcp_flags, MLX5_GET(hs, MS_tcp_flags));
        MLX5_SET(key, STE_L3V4_dscp, MLX5_GET(hs, MS_ip_dscp));
        MLX5_SET(key, STE_L3V4_protocol, MLX5_GET(hs, MS_ip_protocol));
        return true;
    case MLX5_STE_LU_ETHL3_IPV6_DST_O:
    case MLX5_STE_LU_ETHL3_IPV6_DST_I:
    case MLX5_STE_LU_ETHL3_IPV6_DST_D:
        memcpy(key, hs + MS_dst_ip_OFF, 16);
        return true;
    case MLX5_STE_LU_DONT_CARE:       /* (= ETHL3_IPV6_SRC_O) */
    case MLX5_STE_LU_ETHL3_IPV6_SRC_I:
    case MLX5_STE_LU_ETHL3_IPV6_SRC_D:
        memcpy(key, hs + MS_src_ip_OFF, 16);
        return true;
    case MLX5_STE_LU_ETHL3_IPV4_MISC_O:
    case MLX5_STE_LU_ETHL3_IPV4_MISC_I:
    case MLX5_STE_LU_ETHL3_IPV4_MISC_D:
        MLX5_SET(key, STE_L3MISC_time_to_live, MLX5_GET(hs, MS_ttl_hoplimit));
        return true;
    case MLX5_STE_LU_ETHL4_O:
    case MLX5_STE_LU_ETHL4_I:
    case MLX5_STE_LU_ETHL4_D:
        mlx5_ste_ports(hs, &sp, &dp);
        MLX5_SET(key, STE_L4_fragmented, MLX5_GET(hs, MS_frag));
        MLX5_SET(key, STE_L4_protocol, MLX5_GET(hs, MS_ip_protocol));
        MLX5_SET(key, STE_L4_dst_port, dp);
        MLX5_SET(key, STE_L4_ecn, MLX5_GET(hs, MS_ip_ecn));
        MLX5_SET(key, STE_L4_tcp_flags, MLX5_GET(hs, MS_tcp_flags));
        MLX5_SET(key, STE_L4_src_port, sp);
        MLX5_SET(key, STE_L4_ipv6_hop_limit, MLX5_GET(hs, MS_ttl_hoplimit));
        MLX5_SET(key, STE_L4_dscp, MLX5_GET(hs, MS_ip_dscp));
        return true;
    case MLX5_STE_LU_STEERING_REGISTERS_0:
    case MLX5_STE_LU_STEERING_REGISTERS_1:
        /* reg_c_0..3, reg_c_4..7: the match set has them from reg_c_7 up */
        for (i = 0; i < 4; i++) {
            unsigned r = (lu == MLX5_STE_LU_STEERING_REGISTERS_1 ? 4 : 0) + i;
            memcpy(key + 4 * i, ms + MS_REG_C_7 + 4 * (7 - r), 4);
        }
        return true;
    case MLX5_STE_LU_GENERAL_PURPOSE:
        memcpy(key, ms + MS_REG_A, 4);
        return true;
    case MLX5_STE_LU_SRC_GVMI_AND_QP:
        MLX5_SET(key, STE_SRCQP_source_qp, MLX5_GET(ms, MS_source_sqn));
        return true;
    case MLX5_STE_LU_FLEX_PARSER_TNL_HEADER:
        /* the flex parser's tunnel header: GENEVE's (its only protocol) */
        MLX5_SET(key, STE_GENEVE_opt_len, MLX5_GET(ms, MS_geneve_opt_len));
        MLX5_SET(key, STE_GENEVE_oam, MLX5_GET(ms, MS_geneve_oam));
        MLX5_SET(key, STE_GENEVE_protocol_type,
                 MLX5_GET(ms, MS_geneve_protocol_type));
        MLX5_SET(key, STE_GENEVE_vni, MLX5_GET(ms, MS_geneve_vni));
        return true;
    default:
        return false;
    }
}

/*
 * The walk of @fr ends at terminal @kind @id: if its table's owner may go there
 * (its own objects or the kernel's); else nowhere (dropped)
 */
static void mlx5_ste_end(Mlx5Core *c, const Mlx5SteFrame *fr, uint64_t root,
                         unsigned kind, uint32_t id, unsigned steps,
                         Mlx5SteResult *r)
{
    Mlx5Table *t = kind == MLX5_ICM_T_TIR       ? &c->eth->tirs
                   : kind == MLX5_ICM_T_FT      ? &c->eth->fts
                   : kind == MLX5_ICM_T_SAMPLER ? &c->eth->samplers
                   : kind == MLX5_ICM_T_METER   ? &c->eth->meters
                                                : NULL;

    if (t && !mlx5_ste_may(fr->uid, mlx5_table_owner(t, id))) {
        trace_mlx5_ste_unsupported("another uid's destination", id);
        kind = 0;
    }
    r->kind = kind;
    r->id = kind ? id : 0;
    trace_mlx5_ste_end(root, r->kind, r->id, steps);
}

/* ---- the walk ------------------------------------------------------------ */

/* Lookup type @lu's key of frame @fr (its source function's too). */
static bool mlx5_ste_fr_key(unsigned lu, const Mlx5SteFrame *fr, uint8_t *key)
{
    bool ok = mlx5_ste_key(lu, fr->ms, key);

    if (lu == MLX5_STE_LU_SRC_GVMI_AND_QP) {
        MLX5_SET(key, STE_SRCQP_source_gvmi, fr->src_gvmi);
    }
    return ok;
}

/* The next hash table an entry's hit goes to: its base and size. */
static uint64_t mlx5_ste_hit(const uint8_t *ste, uint32_t *n)
{
    uint64_t v = (uint64_t)MLX5_GET(ste, STE_next_table_base_39_32_size) << 27 |
                 MLX5_GET(ste, STE_next_table_base_31_5_size);

    *n = v ? (uint32_t)MIN(v & -v, 1u << 20) : 0;
    return (v & ~(uint64_t)*n) << 5;
}

static uint64_t mlx5_ste_miss(const uint8_t *ste)
{
    return ((uint64_t)MLX5_GET(ste, STE_miss_address_39_32) << 26 |
            MLX5_GET(ste, STE_miss_address_31_6)) << 6;
}

void mlx5_ste_walk(Mlx5Core *c, uint64_t root, Mlx5SteFrame *fr,
                   Mlx5SteResult *r)
{
    uint8_t ste[MLX5_STE_SIZE], key[MLX5_STE_TAG_SIZE];
    uint64_t addr = root, at;
    unsigned lu = MLX5_STE_LU_DONT_CARE, steps = 0, type, i, kind = 0;
    uint16_t bm = 0;
    uint32_t n = 1, id = 0;
    bool hit;

    memset(r, 0, sizeof(*r));
    for (;;) {
        if (mlx5_icm_is_term(addr, &kind, &id)) {
            mlx5_ste_end(c, fr, root, kind, id, steps, r);
            return;
        }
        mlx5_ste_fr_key(lu, fr, key);
        at = addr + (uint64_t)mlx5_ste_hash(key, bm, n) * MLX5_STE_SIZE;
        /* the entry the hash picks, then its miss chain */
        for (hit = false; !hit;) {
            if (++steps > MLX5_STE_MAX_STEPS ||
                !mlx5_icm_owned(c, fr->uid, at, sizeof(ste)) ||
                mlx5_icm_rw(c, at, ste, sizeof(ste), false)) {
                trace_mlx5_ste_drop(root, at, steps);
                return;
            }
            type = MLX5_GET(ste, STE_entry_type);
            if (type != MLX5_STE_TYPE_RX && type != MLX5_STE_TYPE_TX &&
                type != MLX5_STE_TYPE_MODIFY_PKT) {
                trace_mlx5_ste_drop(root, at, steps);
                return;
            }
            if (!mlx5_ste_fr_key(MLX5_GET(ste, STE_entry_sub_type), fr,
                                 key)) {
                trace_mlx5_ste_unsupported("lookup type",
                                           MLX5_GET(ste, STE_entry_sub_type));
            }
            hit = true;
            for (i = 0; i < MLX5_STE_TAG_SIZE; i++) {
                if ((key[i] & ste[MLX5_STE_MASK_OFF + i]) !=
                    ste[MLX5_STE_TAG_OFF + i]) {
                    hit = false;
                    break;
                }
            }
            trace_mlx5_ste(at, MLX5_GET(ste, STE_entry_sub_type), hit);
            if (!hit) {
                at = mlx5_ste_miss(ste);
                if (!at || mlx5_icm_is_term(at, &kind, &id)) {
                    mlx5_ste_end(c, fr, root, at ? kind : 0, id, steps, r);
                    return;
                }
            }
        }
        mlx5_ste_apply(c, ste, fr, r);
        addr = mlx5_ste_hit(ste, &n);
        lu = MLX5_GET(ste, STE_next_lu_type);
        bm = MLX5_GET(ste, STE_byte_mask);
        if (!n) {
            trace_mlx5_ste_drop(root, at, steps);
            return;
        }
    }
}
