/*
 * mlx5 HCA core, Ethernet port: modify-header contexts
 * (ALLOC/DEALLOC_MODIFY_HEADER_CONTEXT) and the MOD_HDR action of flow
 * entries (mlx5_ib's flow action from mlx5dv_create_flow_action_modify_header,
 * DPDK's set_mac_*, set_ipv4_*, set_tp_*, dec_ttl ... on its root table).
 *
 * A context is for NIC RX or NIC TX tables (the flow entries of the other
 * kind cannot use it), a list of up to MLX5_MODHDR_MAX_ACTIONS actions, each
 * SET (bits offset..offset+length-1 of a header field from data), ADD (data to
 * the whole field, modulo its width) or COPY (length bits of one field to
 * another), on the fields below: MACs, ethertype, the first VLAN id,
 * IPv4/IPv6 addresses, DSCP, ECN, TTL/hop limit, TCP/UDP ports, TCP flags,
 * sequence and acknowledgment numbers. An action on a header the frame does
 * not have does nothing. Afterwards, if the rewrite changed the IPv4 header,
 * its checksum is computed again, and if it changed what the TCP/UDP checksum
 * covers, that follows the words that changed (RFC 1624; a UDP checksum of 0
 * stays 0): a rewrite of the MACs alone leaves both as they were. Contexts are
 * checked when allocated: an unknown type or field, or a range beyond the
 * field, is refused. A context belongs to the
 * uid that allocated it and cannot be freed while flow entries use it.
 *
 * The E-Switch's tables (an ingress ACL, the FDB) take contexts of their own
 * whose actions only SET, ADD or COPY the metadata registers reg_c_0 and
 * reg_c_1 a frame carries through the switch (mlx5_core's vport metadata: an
 * ingress ACL writes the source vport's into reg_c_0, the FDB matches it); a
 * frame's own fields are not rewritten there, and NIC tables have no registers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

enum {
    /* a table type other than NIC RX/TX, or no actions, or too many */
    MLX5_SYND_MODHDR_PARAM = 0x30000030,
    /* an action of an unknown type or field, or a range beyond the field */
    MLX5_SYND_MODHDR_ACTION = 0x30000031,
    /* flow entries still use it */
    MLX5_SYND_MODHDR_BUSY = 0x30000032,
};

enum {
    MLX5_MODHDR_SET = 1,
    MLX5_MODHDR_ADD = 2,
    MLX5_MODHDR_COPY = 3,
};

/* where a field lives */
enum {
    MF_L2,          /* offset from the frame's start */
    MF_ETYPE,       /* the ethertype after the VLAN tags */
    MF_VLAN,        /* the first tag's TCI */
    MF_IP4,         /* offset into the IPv4 header */
    MF_IP6,         /* offset into the IPv6 header */
    MF_TCP,
    MF_UDP,
    MF_REG,         /* a metadata register (off: its index), not in the frame */
};

typedef struct Mlx5ModField {
    uint16_t id;
    uint8_t where;
    uint8_t off;
    uint8_t bytes;              /* the big-endian container: 1, 2 or 4 */
    uint8_t shift;              /* of the field in the container */
    uint8_t bits;
} Mlx5ModField;

/*
 * The fields, by MLX5_ACTION_IN_FIELD_OUT_* id (DSCP and ECN have an IPv4 and
 * an IPv6 place; the first that the frame has is used).
 */
static const Mlx5ModField mlx5_mod_fields[] = {
    { 0x01, MF_L2, 6, 4, 0, 32 },           /* SMAC_47_16 */
    { 0x02, MF_L2, 10, 2, 0, 16 },          /* SMAC_15_0 */
    { 0x03, MF_ETYPE, 0, 2, 0, 16 },        /* ETHERTYPE */
    { 0x04, MF_L2, 0, 4, 0, 32 },           /* DMAC_47_16 */
    { 0x05, MF_L2, 4, 2, 0, 16 },           /* DMAC_15_0 */
    { 0x06, MF_IP4, 1, 1, 2, 6 },           /* IP_DSCP */
    { 0x06, MF_IP6, 0, 2, 6, 6 },
    { 0x07, MF_TCP, 12, 2, 0, 9 },          /* TCP_FLAGS */
    { 0x08, MF_TCP, 0, 2, 0, 16 },          /* TCP_SPORT */
    { 0x09, MF_TCP, 2, 2, 0, 16 },          /* TCP_DPORT */
    { 0x0a, MF_IP4, 8, 1, 0, 8 },           /* IP_TTL */
    { 0x0b, MF_UDP, 0, 2, 0, 16 },          /* UDP_SPORT */
    { 0x0c, MF_UDP, 2, 2, 0, 16 },          /* UDP_DPORT */
    { 0x0d, MF_IP6, 8, 4, 0, 32 },          /* SIPV6_127_96 */
    { 0x0e, MF_IP6, 12, 4, 0, 32 },
    { 0x0f, MF_IP6, 16, 4, 0, 32 },
    { 0x10, MF_IP6, 20, 4, 0, 32 },
    { 0x11, MF_IP6, 24, 4, 0, 32 },         /* DIPV6_127_96 */
    { 0x12, MF_IP6, 28, 4, 0, 32 },
    { 0x13, MF_IP6, 32, 4, 0, 32 },
    { 0x14, MF_IP6, 36, 4, 0, 32 },
    { 0x15, MF_IP4, 12, 4, 0, 32 },         /* SIPV4 */
    { 0x16, MF_IP4, 16, 4, 0, 32 },         /* DIPV4 */
    { 0x17, MF_VLAN, 0, 2, 0, 12 },         /* FIRST_VID */
    { 0x47, MF_IP6, 7, 1, 0, 8 },           /* IPV6_HOPLIMIT */
    { 0x59, MF_TCP, 4, 4, 0, 32 },          /* TCP_SEQ_NUM */
    { 0x5b, MF_TCP, 8, 4, 0, 32 },          /* TCP_ACK_NUM */
    { 0x73, MF_IP4, 1, 1, 0, 2 },           /* IP_ECN */
    { 0x73, MF_IP6, 0, 2, 4, 2 },
    { 0x51, MF_REG, 0, 4, 0, 32 },          /* METADATA_REG_C_0 */
    { 0x52, MF_REG, 1, 4, 0, 32 },          /* METADATA_REG_C_1 */
};

/* Field @id's width in bits (0: no such field); @reg: is it a register? */
static unsigned mlx5_mod_width(uint16_t id, bool *reg)
{
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(mlx5_mod_fields); i++) {
        if (mlx5_mod_fields[i].id == id) {
            *reg = mlx5_mod_fields[i].where == MF_REG;
            return mlx5_mod_fields[i].bits;
        }
    }
    return 0;
}

/*
 * Field @id of frame @f (@len bytes, parsed in @h): its container's position
 * (or NULL if the frame has no such header).
 */
static uint8_t *mlx5_mod_locate(uint8_t *f, size_t len, const IbEthHdr *h,
                                uint16_t id, const Mlx5ModField **mf)
{
    size_t i, pos;

    for (i = 0; i < G_N_ELEMENTS(mlx5_mod_fields); i++) {
        const Mlx5ModField *m = &mlx5_mod_fields[i];

        if (m->id != id) {
            continue;
        }
        switch (m->where) {
        case MF_L2:
            pos = m->off;
            break;
        case MF_ETYPE:
            pos = 12 + 4u * h->ntags;
            break;
        case MF_VLAN:
            if (!h->ntags) {
                continue;
            }
            pos = 14;
            break;
        case MF_REG:
            continue;           /* (mlx5_modhdr_apply_regs) */
        case MF_IP4:
        case MF_IP6:
            if (!h->l3 || h->ip_version != (m->where == MF_IP4 ? 4 : 6)) {
                continue;
            }
            pos = h->l3 + m->off;
            break;
        default:
            if (!h->l4 || h->proto != (m->where == MF_TCP ? 6 : 17)) {
                continue;
            }
            pos = h->l4 + m->off;
            break;
        }
        if (pos + m->bytes > len) {
            continue;
        }
        *mf = m;
        return f + pos;
    }
    return NULL;
}

static uint32_t mlx5_mod_ld(const uint8_t *p, unsigned bytes)
{
    return bytes == 4 ? mlx5_ld32(p) : bytes == 2 ? mlx5_ld16(p) : p[0];
}

static void mlx5_mod_st(uint8_t *p, unsigned bytes, uint32_t v)
{
    if (bytes == 4) {
        mlx5_st32(p, v);
    } else if (bytes == 2) {
        mlx5_st16(p, v);
    } else {
        p[0] = v;
    }
}

static uint32_t mlx5_mod_mask(unsigned bits)
{
    return bits >= 32 ? UINT32_MAX : (1u << bits) - 1;
}

static bool mlx5_mod_get(uint8_t *f, size_t len, const IbEthHdr *h,
                         uint16_t id, uint32_t *v)
{
    const Mlx5ModField *m;
    uint8_t *p = mlx5_mod_locate(f, len, h, id, &m);

    if (!p) {
        return false;
    }
    *v = (mlx5_mod_ld(p, m->bytes) >> m->shift) & mlx5_mod_mask(m->bits);
    return true;
}

static void mlx5_mod_put(uint8_t *f, size_t len, const IbEthHdr *h,
                         uint16_t id, uint32_t v)
{
    const Mlx5ModField *m;
    uint8_t *p = mlx5_mod_locate(f, len, h, id, &m);
    uint32_t mask, c;

    if (!p) {
        return;
    }
    mask = mlx5_mod_mask(m->bits) << m->shift;
    c = mlx5_mod_ld(p, m->bytes);
    mlx5_mod_st(p, m->bytes, (c & ~mask) | ((v << m->shift) & mask));
}

/*
 * Is action @a (8 bytes) one we carry out, in a context for tables whose
 * frames carry registers (@regs: the E-Switch's) or not?
 */
static bool mlx5_mod_action_ok(const uint8_t *a, bool regs)
{
    unsigned type = a[0] >> 4;
    unsigned field = mlx5_ld16(a) & 0xfff;
    unsigned off = a[2] & 0x1f, len = a[3] & 0x1f;
    bool reg = false, dreg = false;
    unsigned w = mlx5_mod_width(field, &reg);

    len = len ? len : 32;
    if (w && reg != regs) {
        return false;
    }
    switch (type) {
    case MLX5_MODHDR_SET:
        return w && off + len <= w;
    case MLX5_MODHDR_ADD:
        return w;
    case MLX5_MODHDR_COPY: {
        unsigned dw = mlx5_mod_width(mlx5_ld16(a + 4) & 0xfff, &dreg);
        unsigned doff = a[6] & 0x1f;
        return w && dw && dreg == regs && off + len <= w && doff + len <= dw;
    }
    default:
        return false;
    }
}

static void mlx5_mod_apply(uint8_t *f, size_t len, const IbEthHdr *h,
                           const uint8_t *a)
{
    unsigned type = a[0] >> 4;
    uint16_t field = mlx5_ld16(a) & 0xfff;
    unsigned off = a[2] & 0x1f, n = a[3] & 0x1f;
    uint32_t data = mlx5_ld32(a + 4), v, s, mask;

    n = n ? n : 32;
    mask = mlx5_mod_mask(n);
    if (!mlx5_mod_get(f, len, h, field, &v)) {
        return;
    }
    switch (type) {
    case MLX5_MODHDR_SET:
        v = (v & ~(mask << off)) | ((data & mask) << off);
        mlx5_mod_put(f, len, h, field, v);
        break;
    case MLX5_MODHDR_ADD:
        mlx5_mod_put(f, len, h, field, v + data);
        break;
    case MLX5_MODHDR_COPY: {
        uint16_t dst = mlx5_ld16(a + 4) & 0xfff;
        unsigned doff = a[6] & 0x1f;
        uint32_t d;

        s = (v >> off) & mask;
        if (mlx5_mod_get(f, len, h, dst, &d)) {
            d = (d & ~(mask << doff)) | (s << doff);
            mlx5_mod_put(f, len, h, dst, d);
        }
        break;
    }
    }
}

/*
 * The ones' complement sum of what a TCP/UDP checksum covers that actions may
 * change: the IP addresses and the TCP/UDP header but its checksum.
 */
static uint16_t mlx5_mod_l4_sum(const uint8_t *f, const IbEthHdr *h)
{
    unsigned alen = h->ip_version == 4 ? 4 : 16;
    unsigned hl = h->proto == 6 ? 20 : 8, ck = h->proto == 6 ? 16 : 6;
    uint32_t sum;

    sum = ib_csum_add(0, f + h->l3 + (h->ip_version == 4 ? 12 : 8), 2 * alen);
    sum = ib_csum_add(sum, f + h->l4, ck);
    sum = ib_csum_add(sum, f + h->l4 + ck + 2, hl - ck - 2);
    return ib_csum_fold(sum);
}

bool mlx5_modhdr_field_get(uint8_t *f, size_t len, const IbEthHdr *h,
                           uint16_t id, uint32_t *v)
{
    return mlx5_mod_get(f, len, h, id, v);
}

void mlx5_modhdr_field_put(uint8_t *f, size_t len, const IbEthHdr *h,
                           uint16_t id, uint32_t v)
{
    mlx5_mod_put(f, len, h, id, v);
}

void mlx5_modhdr_rewrite(uint8_t *f, size_t len, IbEthHdr *h,
                         Mlx5ModBody *body, void *opaque)
{
    bool l4 = h->l4 && !h->frag && (h->proto == 6 || h->proto == 17) &&
              h->l4 + (h->proto == 6 ? 20u : 8u) <= len;
    unsigned ihl = h->ip_version == 4 ? (f[h->l3] & 0xf) * 4 : 0;
    bool ip4 = ihl >= 20 && h->l3 + ihl <= len;
    uint16_t before = 0, after, ck;
    uint8_t ip[60];
    unsigned cko = h->proto == 6 ? 16 : 6;

    if (l4) {
        before = mlx5_mod_l4_sum(f, h);
    }
    if (ip4) {
        memcpy(ip, f + h->l3, ihl);
    }
    body(opaque, f, len, h);
    /* checksums only where a rewrite changed what they cover */
    if (ip4 && memcmp(ip, f + h->l3, ihl)) {
        mlx5_st16(f + h->l3 + 10, 0);
        mlx5_st16(f + h->l3 + 10,
                  ~ib_csum_fold(ib_csum_add(0, f + h->l3, ihl)));
    }
    ck = l4 ? mlx5_ld16(f + h->l4 + cko) : 0;
    after = l4 ? mlx5_mod_l4_sum(f, h) : 0;
    if (l4 && after != before && !(h->proto == 17 && ck == 0)) {
        /* RFC 1624: HC' = ~(~HC + ~m + m') */
        uint32_t s = (uint16_t)~ck + (uint16_t)~before + after;
        ck = ~ib_csum_fold(s);
        mlx5_st16(f + h->l4 + cko, ck);
    }
    /* the addresses and ports it parsed may have changed */
    ib_eth_parse(f, len, h);
}

static void mlx5_modhdr_body(void *opaque, uint8_t *f, size_t len,
                             const IbEthHdr *h)
{
    const Mlx5ModHdr *mh = opaque;
    unsigned i;

    for (i = 0; i < mh->n; i++) {
        mlx5_mod_apply(f, len, h, mh->actions[i]);
    }
}

/* Apply context @id's actions to frame @f (@len bytes, parsed in @h). */
void mlx5_modhdr_apply(Mlx5Core *c, uint32_t id, uint8_t *f, size_t len,
                       IbEthHdr *h)
{
    Mlx5ModHdr *mh = mlx5_table_get(&c->eth->modhdrs, id);

    if (!mh) {
        return;                 /* (freed with the entry: cannot happen) */
    }
    mlx5_modhdr_rewrite(f, len, h, mlx5_modhdr_body, mh);
    trace_mlx5_eth_modhdr(id, mh->n);
}

/* A register action @a (checked) on @regc. */
static void mlx5_mod_apply_reg(uint32_t *regc, const uint8_t *a)
{
    unsigned type = a[0] >> 4;
    unsigned r = (mlx5_ld16(a) & 0xfff) - 0x51, d;
    unsigned off = a[2] & 0x1f, n = a[3] & 0x1f, doff;
    uint32_t data = mlx5_ld32(a + 4), mask, s;

    n = n ? n : 32;
    mask = mlx5_mod_mask(n);
    switch (type) {
    case MLX5_MODHDR_SET:
        regc[r] = (regc[r] & ~(mask << off)) | ((data & mask) << off);
        break;
    case MLX5_MODHDR_ADD:
        regc[r] += data;
        break;
    case MLX5_MODHDR_COPY:
        d = (mlx5_ld16(a + 4) & 0xfff) - 0x51;
        doff = a[6] & 0x1f;
        s = (regc[r] >> off) & mask;
        regc[d] = (regc[d] & ~(mask << doff)) | (s << doff);
        break;
    }
}

void mlx5_modhdr_apply_regs(Mlx5Core *c, uint32_t id, uint32_t *regc)
{
    Mlx5ModHdr *mh = mlx5_table_get(&c->eth->modhdrs, id);
    unsigned i;

    for (i = 0; mh && i < mh->n; i++) {
        mlx5_mod_apply_reg(regc, mh->actions[i]);
    }
    trace_mlx5_eth_modhdr(id, mh ? mh->n : 0);
}

/* ---- commands ------------------------------------------------------------ */

void mlx5_cmd_alloc_modify_header_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5ModHdr *mh;
    unsigned n, i, tt;
    bool esw;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    n = MLX5_GET(cmd->in, MODHDR_IN_num_of_actions);
    tt = MLX5_GET(cmd->in, MODHDR_IN_table_type);
    /* the E-Switch's: its manager's kernel (register actions only) */
    esw = (tt == MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL ||
           tt == MLX5_FLOW_TABLE_TYPE_FDB) &&
          !cmd->uid && mlx5_esw_manager_cfg(&c->cfg);
    if ((tt != MLX5_FLOW_TABLE_TYPE_NIC_RX &&
         tt != MLX5_FLOW_TABLE_TYPE_NIC_TX && !esw) || !n ||
        n > MLX5_MODHDR_MAX_ACTIONS) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_MODHDR_PARAM);
        return;
    }
    if (!mlx5_cmd_in_ok(cmd, 0x10 + 8 * n)) {
        return;
    }
    for (i = 0; i < n; i++) {
        if (!mlx5_mod_action_ok(cmd->in + 0x10 + 8 * i, esw)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_MODHDR_ACTION);
            return;
        }
    }
    mh = g_new0(Mlx5ModHdr, 1);
    mh->type = tt;
    mh->n = n;
    memcpy(mh->actions, cmd->in + 0x10, 8 * n);
    if (mlx5_table_alloc(&c->eth->modhdrs, mh, &mh->id)) {
        g_free(mh);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->eth->modhdrs, mh->id);
    MLX5_SET(cmd->out, MODHDR_OUT_id, mh->id);
    trace_mlx5_obj_create("modify header", mh->id);
}

void mlx5_cmd_dealloc_modify_header_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5ModHdr *mh;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    mh = mlx5_cmd_obj(cmd, &c->eth->modhdrs, MLX5_GET(cmd->in, MODHDR_IN_id));
    if (!mh) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (mh->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                      MLX5_SYND_MODHDR_BUSY);
        return;
    }
    mlx5_table_remove(&c->eth->modhdrs, mh->id);
    trace_mlx5_obj_destroy("modify header", mh->id);
    g_free(mh);
}

bool mlx5_modhdr_ref(Mlx5Core *c, uint32_t id, uint8_t type)
{
    Mlx5ModHdr *mh = mlx5_table_get(&c->eth->modhdrs, id);

    if (mh && mh->type != type) {
        mh = NULL;
    }
    if (mh) {
        mh->refcount++;
    }
    return mh;
}

void mlx5_modhdr_put(Mlx5Core *c, uint32_t id)
{
    Mlx5ModHdr *mh = mlx5_table_get(&c->eth->modhdrs, id);

    if (mh) {
        mlx5_ref_put(&mh->refcount);
    }
}
