/*
 * mlx5 HCA core, Ethernet port: what a software steering entry (STE v0) does
 * to a frame on a hit (docs/sw-steering-notes.md, section 6.6), in the order
 * the entry holds it:
 *
 * - a flow counter (24-bit id) counts it;
 * - receive entries: L2 tunnel decap (the inner Ethernet frame is left),
 *   VLAN pop, a flow tag for the CQE;
 * - modify-packet entries: a list of 8-byte rewrite actions in header-modify
 *   ICM (SET, ADD, COPY of bits of 64-bit containers: the MACs, ethertype,
 *   VLAN id, IPv4/IPv6 addresses, DSCP, ECN, TTL, L4 ports, TCP flags,
 *   sequence and acknowledgment numbers, and the metadata registers reg_c_0-7,
 *   reg_a and reg_b; IPv4 and TCP/UDP checksums follow), or an L3 tunnel
 *   decap: the list then builds the Ethernet header (MACs, ethertype or VLAN)
 *   put in front of the inner IP packet;
 * - transmit entries: VLAN push (the 4-byte tag after the MACs), L2 or L3
 *   encap with a packet reformat context (L3: it replaces the Ethernet
 *   header).
 *
 * Later lookups see the frame and the registers as they are then (the match
 * set is built again; the registers and the source vport and SQ stay). What
 * would not fit the frame's buffer, a second encap, an action list outside
 * header-modify ICM or an action the device does not know is skipped and
 * traced (mlx5_ste_unsupported).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

/* the match set's metadata registers: reg_c_i, reg_a */
#define MS_REG_C(i)             MLX5_MS_REG_C(i)
#define MS_REG_A                0xf0
/* the match set's source SQ and vport words (kept across rewrites) */
#define MS_SRC_SQN              0x40
#define MS_SRC_PORT             0x44

/* rewrite actions an entry may name */
#define MLX5_STE_MAX_REWRITE    128

enum {
    V0_COPY = 1,
    V0_SET = 2,
    V0_ADD = 3,
};

/* the 64-bit containers of the rewrite actions */
enum {
    V0_L2_0 = 0x00,             /* DMAC */
    V0_L2_1 = 0x01,             /* SMAC */
    V0_L2_2 = 0x02,             /* ethertype 47:32, first VID 15:0 */
    V0_L3_0 = 0x03,
    V0_L3_1 = 0x04,
    V0_L3_2 = 0x05,
    V0_L3_3 = 0x06,
    V0_L3_4 = 0x07,
    V0_L4_0 = 0x08,
    V0_L4_1 = 0x09,
    V0_REG_0 = 0x0c,            /* reg_c_0 63:32, reg_c_1 31:0 */
    V0_REG_3 = 0x0f,
    V0_METADATA = 0x16,         /* reg_b 63:32, reg_a 31:0 */
};

/*
 * Where a container's bits are in the frame: the header fields
 * (MLX5_ACTION_IN_FIELD_OUT_*) of mlx5_modify_hdr.c; the second is the field
 * of the other IP version or L4 protocol at the same place
 */
typedef struct Mlx5V0Field {
    uint8_t hw, start, end;
    uint16_t id[2];
} Mlx5V0Field;

static const Mlx5V0Field mlx5_v0_fields[] = {
    { V0_L2_1, 16, 47, { 0x01 } },          /* SMAC_47_16 */
    { V0_L2_1, 0, 15, { 0x02 } },           /* SMAC_15_0 */
    { V0_L2_2, 32, 47, { 0x03 } },          /* ETHERTYPE */
    { V0_L2_2, 0, 15, { 0x17 } },           /* FIRST_VID */
    { V0_L2_0, 16, 47, { 0x04 } },          /* DMAC_47_16 */
    { V0_L2_0, 0, 15, { 0x05 } },           /* DMAC_15_0 */
    { V0_L3_1, 0, 5, { 0x06 } },            /* IP_DSCP */
    { V0_L3_1, 6, 7, { 0x73 } },            /* IP_ECN */
    { V0_L3_1, 8, 15, { 0x0a, 0x47 } },     /* IP_TTL, IPV6_HOPLIMIT */
    { V0_L4_0, 48, 56, { 0x07 } },          /* TCP_FLAGS */
    { V0_L4_0, 0, 15, { 0x08, 0x0b } },     /* TCP_SPORT, UDP_SPORT */
    { V0_L4_0, 16, 31, { 0x09, 0x0c } },    /* TCP_DPORT, UDP_DPORT */
    { V0_L3_3, 32, 63, { 0x0d } },          /* SIPV6_127_96 */
    { V0_L3_3, 0, 31, { 0x0e } },
    { V0_L3_4, 32, 63, { 0x0f } },
    { V0_L3_4, 0, 31, { 0x10 } },
    { V0_L3_0, 32, 63, { 0x11, 0x16 } },    /* DIPV6_127_96, DIPV4 */
    { V0_L3_0, 0, 31, { 0x12, 0x15 } },     /* DIPV6_95_64, SIPV4 */
    { V0_L3_2, 32, 63, { 0x13 } },
    { V0_L3_2, 0, 31, { 0x14 } },
    { V0_L4_1, 32, 63, { 0x59 } },          /* TCP_SEQ_NUM */
    { V0_L4_1, 0, 31, { 0x5b } },           /* TCP_ACK_NUM */
};

static uint32_t mlx5_v0_mask(unsigned bits)
{
    return bits >= 32 ? UINT32_MAX : (1u << bits) - 1;
}

/* A register container's value; false if @hw is none. */
static bool mlx5_v0_reg_get(const Mlx5SteFrame *fr, unsigned hw, uint64_t *v)
{
    if (hw >= V0_REG_0 && hw <= V0_REG_3) {
        unsigned k = 2 * (hw - V0_REG_0);
        *v = (uint64_t)mlx5_ld32(fr->ms + MS_REG_C(k)) << 32 |
             mlx5_ld32(fr->ms + MS_REG_C(k + 1));
        return true;
    }
    if (hw == V0_METADATA) {
        *v = (uint64_t)fr->reg_b << 32 | mlx5_ld32(fr->ms + MS_REG_A);
        return true;
    }
    return false;
}

static void mlx5_v0_reg_put(Mlx5SteFrame *fr, unsigned hw, uint64_t v)
{
    if (hw == V0_METADATA) {
        fr->reg_b = v >> 32;
        mlx5_st32(fr->ms + MS_REG_A, v);
    } else {
        unsigned k = 2 * (hw - V0_REG_0);
        mlx5_st32(fr->ms + MS_REG_C(k), v >> 32);
        mlx5_st32(fr->ms + MS_REG_C(k + 1), v);
    }
}

static const Mlx5V0Field *mlx5_v0_field(unsigned hw, unsigned shift,
                                        unsigned n)
{
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(mlx5_v0_fields); i++) {
        const Mlx5V0Field *m = &mlx5_v0_fields[i];
        if (m->hw == hw && shift >= m->start && shift + n - 1 <= m->end) {
            return m;
        }
    }
    return NULL;
}

/* Bits [shift, shift + n) of container @hw (n <= 32); false: not there. */
static bool mlx5_v0_get(Mlx5SteFrame *fr, unsigned hw, unsigned shift,
                        unsigned n, uint32_t *out)
{
    const Mlx5V0Field *m;
    uint64_t r;
    uint32_t v;
    unsigned i;

    if (mlx5_v0_reg_get(fr, hw, &r)) {
        *out = (r >> shift) & mlx5_v0_mask(n);
        return true;
    }
    m = mlx5_v0_field(hw, shift, n);
    for (i = 0; m && i < 2 && m->id[i]; i++) {
        if (mlx5_modhdr_field_get(fr->f, fr->len, fr->h, m->id[i], &v)) {
            *out = (v >> (shift - m->start)) & mlx5_v0_mask(n);
            return true;
        }
    }
    if (!m) {
        trace_mlx5_ste_unsupported("rewrite field", hw << 8 | shift);
    }
    return false;
}

static void mlx5_v0_put(Mlx5SteFrame *fr, unsigned hw, unsigned shift,
                        unsigned n, uint32_t val)
{
    uint64_t mask = (uint64_t)mlx5_v0_mask(n) << shift, r;
    const Mlx5V0Field *m;
    uint32_t v, fm;
    unsigned i, o;

    if (mlx5_v0_reg_get(fr, hw, &r)) {
        r = (r & ~mask) | (((uint64_t)val << shift) & mask);
        mlx5_v0_reg_put(fr, hw, r);
        return;
    }
    m = mlx5_v0_field(hw, shift, n);
    for (i = 0; m && i < 2 && m->id[i]; i++) {
        if (mlx5_modhdr_field_get(fr->f, fr->len, fr->h, m->id[i], &v)) {
            o = shift - m->start;
            fm = mlx5_v0_mask(n) << o;
            mlx5_modhdr_field_put(fr->f, fr->len, fr->h, m->id[i],
                                  (v & ~fm) | ((val << o) & fm));
            return;
        }
    }
}

typedef struct Mlx5V0List {
    Mlx5SteFrame *fr;
    const uint8_t *a;           /* n actions of 8 bytes */
    unsigned n;
} Mlx5V0List;

static void mlx5_v0_body(void *opaque, uint8_t *f, size_t len,
                         const IbEthHdr *h)
{
    Mlx5V0List *l = opaque;
    unsigned i;

    for (i = 0; i < l->n; i++) {
        const uint8_t *a = l->a + 8 * i;
        unsigned op = a[0], hw = a[1], shift = a[2] & 0x3f;
        unsigned n = op == V0_COPY ? a[3] & 0x3f : a[3] & 0x1f;
        uint32_t v;

        n = n && n < 32 ? n : 32;
        if (shift + n > 64) {
            trace_mlx5_ste_unsupported("rewrite range", hw << 8 | shift);
            continue;
        }
        switch (op) {
        case V0_SET:
            mlx5_v0_put(l->fr, hw, shift, n, mlx5_ld32(a + 4));
            break;
        case V0_ADD:
            if (mlx5_v0_get(l->fr, hw, shift, n, &v)) {
                mlx5_v0_put(l->fr, hw, shift, n, v + mlx5_ld32(a + 4));
            }
            break;
        case V0_COPY:
            if ((a[6] & 0x3f) + n <= 64 &&
                mlx5_v0_get(l->fr, a[5], a[6] & 0x3f, n, &v)) {
                mlx5_v0_put(l->fr, hw, shift, n, v);
            }
            break;
        default:
            trace_mlx5_ste_unsupported("rewrite opcode", op);
            break;
        }
    }
}

/* The frame changed: its match set again (registers, source vport, SQ stay) */
static void mlx5_ste_reparse(Mlx5Core *c, Mlx5SteFrame *fr)
{
    uint8_t regs[MS_REG_A + 4 - MS_REG_C(7)];
    uint32_t sqn = mlx5_ld32(fr->ms + MS_SRC_SQN);
    uint32_t port = mlx5_ld32(fr->ms + MS_SRC_PORT);

    memcpy(regs, fr->ms + MS_REG_C(7), sizeof(regs));
    if (!ib_eth_parse(fr->f, fr->len, fr->h)) {
        memset(fr->h, 0, sizeof(*fr->h));
        memset(fr->ms, 0, MLX5_FTE_MATCH_PARAM_SIZE);
    } else {
        mlx5_eth_match_set(c->eth, fr->f, fr->len, fr->h, fr->ms);
    }
    memcpy(fr->ms + MS_REG_C(7), regs, sizeof(regs));
    mlx5_st32(fr->ms + MS_SRC_SQN, sqn);
    mlx5_st32(fr->ms + MS_SRC_PORT, port);
}

/* The rewrite list of @n actions at index @ptr of header-modify ICM. */
static bool mlx5_ste_list(Mlx5Core *c, uint16_t uid, uint32_t ptr, unsigned n,
                          uint8_t *a)
{
    uint64_t at = MLX5_ICM_MODHDR_BASE + (uint64_t)ptr * 64;

    if (n > MLX5_STE_MAX_REWRITE || !mlx5_icm_owned(c, uid, at, 8 * n) ||
        mlx5_icm_rw(c, at, a, 8 * n, false)) {
        trace_mlx5_ste_unsupported("rewrite list", ptr);
        return false;
    }
    return true;
}

/*
 * L3 tunnel decap: the list builds the new Ethernet header (SETs of L2_0,
 * L2_1, L2_2: with @vlan a tag, its qualifier in bits 49:48 and TCI in 47:32,
 * the inner ethertype in 15:0), which replaces everything before the inner IP
 * packet.
 */
static void mlx5_ste_decap_l3(Mlx5SteFrame *fr, const uint8_t *a, unsigned n,
                              bool vlan)
{
    uint64_t hdr[3] = { 0 };
    size_t off = fr->h->l3 ? mlx5_tunnel_l3_inner(fr->f, fr->len, fr->h) : 0;
    size_t hl = vlan ? 18 : 14;
    uint8_t l2[18];
    unsigned i;

    if (!off || fr->len - off + hl > fr->room) {
        trace_mlx5_ste_unsupported("L3 decap of no L3 tunnel", fr->len);
        return;
    }
    for (i = 0; i < n; i++) {
        const uint8_t *x = a + 8 * i;
        unsigned shift = x[2] & 0x3f, len = x[3] & 0x1f;
        uint64_t m;

        len = len ? len : 32;
        if (x[0] != V0_SET || x[1] > V0_L2_2 || shift + len > 64) {
            continue;
        }
        m = (uint64_t)mlx5_v0_mask(len) << shift;
        hdr[x[1]] &= ~m;
        hdr[x[1]] |= ((uint64_t)mlx5_ld32(x + 4) << shift) & m;
    }
    for (i = 0; i < 6; i++) {
        l2[i] = hdr[V0_L2_0] >> (40 - 8 * i);
        l2[6 + i] = hdr[V0_L2_1] >> (40 - 8 * i);
    }
    if (vlan) {
        mlx5_st16(l2 + 12, ((hdr[V0_L2_2] >> 48) & 3) == MLX5_STE_SVLAN
                               ? 0x88a8 : 0x8100);
        mlx5_st16(l2 + 14, hdr[V0_L2_2] >> 32);
        mlx5_st16(l2 + 16, hdr[V0_L2_2]);
    } else {
        mlx5_st16(l2 + 12, hdr[V0_L2_2] >> 32);
    }
    memmove(fr->f + hl, fr->f + off, fr->len - off);
    memcpy(fr->f, l2, hl);
    fr->len = fr->len - off + hl;
}

static void mlx5_ste_pop_vlan(Mlx5SteFrame *fr)
{
    if (fr->h->ntags && fr->len >= IB_ETH_HLEN + 4) {
        memmove(fr->f + 12, fr->f + 16, fr->len - 16);
        fr->len -= 4;
    }
}

static void mlx5_ste_push_vlan(Mlx5SteFrame *fr, uint32_t tag)
{
    if (fr->len < 12 || fr->len + 4 > fr->room) {
        trace_mlx5_ste_unsupported("VLAN push beyond the buffer", fr->len);
        return;
    }
    memmove(fr->f + 16, fr->f + 12, fr->len - 12);
    mlx5_st32(fr->f + 12, tag);
    fr->len += 4;
}

static void mlx5_ste_encap(Mlx5Core *c, Mlx5SteFrame *fr, uint32_t id)
{
    Mlx5Reformat *rf = mlx5_table_get(&c->eth->reformats, id);

    if (!rf || rf->type == MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2 ||
        fr->encapped || fr->len + rf->size > fr->room ||
        !mlx5_ste_may(fr->uid, mlx5_table_owner(&c->eth->reformats, id))) {
        trace_mlx5_ste_unsupported("encap", id);
        return;
    }
    fr->encapped = true;
    mlx5_eth_transform(c, MLX5_STEER_OP_ENCAP | id, fr->f, &fr->len, fr->h);
}

void mlx5_ste_apply(Mlx5Core *c, const uint8_t *ste, Mlx5SteFrame *fr,
                    Mlx5SteResult *r)
{
    unsigned type = MLX5_GET(ste, STE_entry_type), tun, n;
    uint8_t a[8 * MLX5_STE_MAX_REWRITE];
    uint32_t cnt, ptr, data = MLX5_GET(ste, STE_TX_encap_pointer_vlan_data);
    size_t len = fr->len;
    bool changed = false;

    /* (the same bits in every entry type) */
    cnt = MLX5_GET(ste, STE_RX_counter_trigger_15_0) |
          MLX5_GET(ste, STE_counter_trigger_23_16) << 16;
    if (cnt) {
        mlx5_fc_count_as(c, cnt, fr->len, fr->uid);
    }
    switch (type) {
    case MLX5_STE_TYPE_RX:
        tun = MLX5_GET(ste, STE_RX_tunneling_action);
        if (tun == 2) {
            mlx5_eth_transform(c, MLX5_STEER_OP_DECAP, fr->f, &fr->len, fr->h);
            changed = fr->len != len;
        } else if (tun == 4) {
            mlx5_ste_pop_vlan(fr);
            changed = fr->len != len;
        } else if (tun) {
            trace_mlx5_ste_unsupported("tunneling action", tun);
        }
        ptr = MLX5_GET(ste, STE_RX_qp_list_pointer);
        if (ptr & MLX5_STE_FLOW_TAG_EN) {
            r->flow_tag = ptr & 0xffffff;
        }
        break;
    case MLX5_STE_TYPE_MODIFY_PKT:
        tun = MLX5_GET(ste, STE_RX_tunneling_action);
        n = MLX5_GET(ste, STE_MOD_number_of_re_write_actions);
        ptr = MLX5_GET(ste, STE_MOD_header_re_write_actions_pointer);
        if (!n || !mlx5_ste_list(c, fr->uid, ptr, n, a)) {
            break;
        }
        if (tun == 3) {
            mlx5_ste_decap_l3(fr, a, n,
                              MLX5_GET(ste, STE_RX_action_description) & 1);
            changed = true;
        } else {
            Mlx5V0List l = { .fr = fr, .a = a, .n = n };

            mlx5_modhdr_rewrite(fr->f, fr->len, fr->h, mlx5_v0_body, &l);
            changed = true;
        }
        break;
    case MLX5_STE_TYPE_TX:
        switch (MLX5_GET(ste, STE_TX_action_type)) {
        case 0:
            break;
        case 1:
            mlx5_ste_push_vlan(fr, data);
            changed = true;
            break;
        case 3:
        case 4:
            /* (the context's type says L2 or L3 encap) */
            mlx5_ste_encap(c, fr, data);
            changed = true;
            break;
        default:
            trace_mlx5_ste_unsupported("tx action",
                                       MLX5_GET(ste, STE_TX_action_type));
            break;
        }
        break;
    }
    if (changed) {
        mlx5_ste_reparse(c, fr);
        r->rewritten = true;
    }
}
