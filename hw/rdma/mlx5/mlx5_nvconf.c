/*
 * mlx5 HCA core: the non-volatile configuration (PRM "Management Registers":
 * MNVQC, MNVDA, MNVDI, MNVIA), as mstflint's mstconfig reads and writes it.
 *
 * The configuration is a set of TLVs, each with three values: the default,
 * the next (what is stored in the flash, written by MNVDA) and the current
 * (what the device started with; the next becomes current at a firmware
 * reset or the next start). The TLVs there are (docs/mstflint-notes.md):
 *   0x00000002  base MAC and GUID (read only: the device's own)
 *   0x00000003  their capability (read only)
 *   0x00000080  global PCI configuration: SRIOV_EN, NUM_OF_VFS (default: on,
 *               num-vfs; the PF's TotalVFs from the next start or reboot)
 *   0x00000081  its capability (read only): SR-IOV with at most num-vfs VFs
 *   0x01010012  port 1's link type: LINK_TYPE_P1 (1 InfiniBand, 2 Ethernet)
 * MNVQC of any other type answers "neither readable nor writable", which is
 * how mstconfig learns to skip it. The next values live with the flash
 * (the `flash` property's file).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "trace.h"

enum {
    MLX5_SYND_NV_READ_ONLY = 0x40000021,
    MLX5_SYND_NV_LENGTH = 0x40000022,
    MLX5_SYND_NV_VALUE = 0x40000023,
};


static const struct {
    uint32_t type;
    uint8_t size;
    bool wr;
} mlx5_nv_tlvs[MLX5_NV_TLVS] = {
    [MLX5_NV_BASE_MAC_GUID] = { 0x00000002, 16, false },
    [MLX5_NV_BASE_MAC_GUID_CAP] = { 0x00000003, 8, false },
    [MLX5_NV_PCI_CONF] = { 0x00000080, 12, true },
    [MLX5_NV_PCI_CAP] = { 0x00000081, 20, false },
    [MLX5_NV_LINK_TYPE_P1] = { 0x01010012, 4, true },
};

static int mlx5_nv_find(uint32_t type)
{
    unsigned i;

    for (i = 0; i < MLX5_NV_TLVS; i++) {
        if (mlx5_nv_tlvs[i].type == type) {
            return i;
        }
    }
    return -1;
}

/* The default value of TLV @i. */
static void mlx5_nv_default(Mlx5Core *c, unsigned i, uint8_t *v)
{
    const uint8_t *mac = c->cfg.mac;

    memset(v, 0, MLX5_NV_MAX);
    switch (i) {
    case MLX5_NV_BASE_MAC_GUID:
        mlx5_st32(v, mac[0] << 8 | mac[1]);
        mlx5_st32(v + 4, (uint32_t)mac[2] << 24 | mac[3] << 16 |
                  mac[4] << 8 | mac[5]);
        mlx5_st64(v + 8, c->cfg.node_guid);
        break;
    case MLX5_NV_BASE_MAC_GUID_CAP:
        /* MAC and GUID valid; one of each */
        mlx5_st32(v, 3u << 30);
        mlx5_st32(v + 4, 1u << 16 | 1);
        break;
    case MLX5_NV_PCI_CONF:
        mlx5_st32(v, 1u << 31);                     /* sriov_valid */
        if (c->cfg.num_vfs) {
            mlx5_st32(v + 4, 1u << 31 | c->cfg.num_vfs);    /* SRIOV_EN */
        }
        break;
    case MLX5_NV_PCI_CAP:
        mlx5_st32(v, 1u << 31);                     /* max_vfs_per_pf valid */
        /* sriov_support, max_vfs_per_pf: the VFs the PCI function has */
        mlx5_st32(v + 4, (c->cfg.num_vfs ? 1u << 31 : 0) | c->cfg.num_vfs);
        break;
    case MLX5_NV_LINK_TYPE_P1:
        mlx5_st32(v, (c->cfg.eth_default ? 2u : 1u) << 2);
        break;
    }
}

void mlx5_nv_reset(Mlx5Core *c)
{
    unsigned i;

    for (i = 0; i < MLX5_NV_TLVS; i++) {
        mlx5_nv_default(c, i, c->nv.next[i]);
        memcpy(c->nv.cur[i], c->nv.next[i], MLX5_NV_MAX);
    }
}

/*
 * A firmware reset: what was stored is what runs. The port's link type (the
 * port becomes Ethernet or InfiniBand: mlx5_core_set_port_type) only at a
 * reboot (@reboot): at a firmware reset under a loaded driver (fw_activate,
 * recovery) mlx5_core 6.12 keeps what it set up for the old type (its devlink
 * parameters: a WARN at unload), so it waits, as mstconfig says ("Please
 * reboot machine to load new configurations").
 */
void mlx5_nv_boot(Mlx5Core *c, bool reboot)
{
    uint8_t lt[MLX5_NV_MAX];

    memcpy(lt, c->nv.cur[MLX5_NV_LINK_TYPE_P1], MLX5_NV_MAX);
    memcpy(c->nv.cur, c->nv.next, sizeof(c->nv.cur));
    if (!reboot) {
        memcpy(c->nv.cur[MLX5_NV_LINK_TYPE_P1], lt, MLX5_NV_MAX);
        return;
    }
    mlx5_core_set_port_type(c,
                            (mlx5_ld32(c->nv.cur[MLX5_NV_LINK_TYPE_P1]) >> 2 &
                             3) == 2);
}

/*
 * The entry at *@n of a stored configuration: its type and length, its value
 * returned, *@n moved past it; NULL at the end, or at an entry that does not
 * fit (*@n < @len then).
 */
static const uint8_t *mlx5_nv_entry(const uint8_t *b, size_t len, size_t *n,
                                    uint32_t *type, uint32_t *size)
{
    const uint8_t *v;

    if (len - *n < 8 || mlx5_ld32(b + *n + 4) > len - *n - 8) {
        return NULL;
    }
    *type = mlx5_ld32(b + *n);
    *size = mlx5_ld32(b + *n + 4);
    v = b + *n + 8;
    *n += 8 + *size;
    return v;
}

unsigned mlx5_core_sriov_total(Mlx5Core *c)
{
    uint32_t v = mlx5_ld32(c->nv.cur[MLX5_NV_PCI_CONF] + 4);

    return v >> 31 ? MIN(v & 0xffff, c->cfg.num_vfs) : 0;
}

int mlx5_nv_link_type(const void *nv, size_t len)
{
    const uint8_t *v;
    uint32_t type, size;
    size_t n = 0;

    while ((v = mlx5_nv_entry(nv, len, &n, &type, &size))) {
        if (type == mlx5_nv_tlvs[MLX5_NV_LINK_TYPE_P1].type && size == 4) {
            return mlx5_ld32(v) >> 2 & 3;
        }
    }
    return 0;
}

/*
 * Check a value mstconfig writes: NUM_OF_VFS within the capability, a link
 * type of 1 or 2.
 */
static bool mlx5_nv_value_ok(Mlx5Core *c, unsigned i, const uint8_t *v)
{
    switch (i) {
    case MLX5_NV_PCI_CONF:
        return (mlx5_ld32(v + 4) & 0xffff) <= c->cfg.num_vfs;
    case MLX5_NV_LINK_TYPE_P1:
        return (mlx5_ld32(v) >> 2 & 3) == 1 || (mlx5_ld32(v) >> 2 & 3) == 2;
    default:
        return true;
    }
}

/* The next values, as the flash keeps them: (type, length, value)... */
size_t mlx5_nv_save(Mlx5Core *c, uint8_t *buf)
{
    size_t n = 0;
    unsigned i;

    for (i = 0; i < MLX5_NV_TLVS; i++) {
        if (mlx5_nv_tlvs[i].wr) {
            mlx5_st32(buf + n, mlx5_nv_tlvs[i].type);
            mlx5_st32(buf + n + 4, mlx5_nv_tlvs[i].size);
            memcpy(buf + n + 8, c->nv.next[i], mlx5_nv_tlvs[i].size);
            n += 8 + mlx5_nv_tlvs[i].size;
        }
    }
    return n;
}

const char *mlx5_nv_load(Mlx5Core *c, const uint8_t *buf, size_t len)
{
    const uint8_t *v;
    uint32_t type, size;
    size_t n = 0;

    while ((v = mlx5_nv_entry(buf, len, &n, &type, &size))) {
        int i = mlx5_nv_find(type);

        if (i < 0 || !mlx5_nv_tlvs[i].wr || size != mlx5_nv_tlvs[i].size ||
            !mlx5_nv_value_ok(c, i, v)) {
            return "a configuration entry the device does not take";
        }
        memcpy(c->nv.next[i], v, size);
    }
    if (n < len) {
        return "a truncated configuration entry";
    }
    /* the device starts: all of it runs (the shell chose the port's type) */
    memcpy(c->nv.cur, c->nv.next, sizeof(c->nv.cur));
    return NULL;
}

/* MNVQC: is a TLV there, readable, writable? */
void mlx5_reg_mnvqc(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    int i = mlx5_nv_find(mlx5_ld32(reg));

    mlx5_st32(reg + 4, i < 0 ? 0 :
              (mlx5_nv_tlvs[i].wr ? 3u : 1u) | MLX5_NV_VERSION << 4);
}

/*
 * MNVDA: read a TLV (its current, next or default value) or write its next
 * value.
 */
void mlx5_reg_mnvda(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    uint32_t hdr = mlx5_ld32(reg), room;
    uint8_t v[MLX5_NV_MAX];
    unsigned size;
    int i = mlx5_nv_find(mlx5_ld32(reg + 4));

    room = cmd->outlen - MIN(cmd->outlen, ACCESS_REG_DATA_OFF + MNVDA_DATA_OFF);
    if (i < 0) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_NV_TYPE);
        return;
    }
    size = mlx5_nv_tlvs[i].size;
    if (cmd->op_mod == MLX5_ACCESS_REG_WRITE) {
        uint32_t len = MIN(cmd->inlen, cmd->outlen);
        uint32_t have = len - MIN(len, ACCESS_REG_DATA_OFF + MNVDA_DATA_OFF);

        if (!mlx5_nv_tlvs[i].wr) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_NV_READ_ONLY);
            return;
        }
        if ((hdr & MNVDA_LENGTH_MASK) != size || have < size) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_NV_LENGTH);
            return;
        }
        memcpy(v, reg + MNVDA_DATA_OFF, size);
        if (i == MLX5_NV_PCI_CONF) {
            /* the tool sets sriov_valid on a write; keep it set */
            mlx5_st32(v, mlx5_ld32(v) | 1u << 31);
        }
        if (!mlx5_nv_value_ok(c, i, v)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_NV_VALUE);
            return;
        }
        memcpy(c->nv.next[i], v, size);
        trace_mlx5_nv_write(mlx5_nv_tlvs[i].type, mlx5_ld32(v),
                            size > 4 ? mlx5_ld32(v + 4) : 0);
        mlx5_flash_store(c);
        return;
    }
    if (room < size) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_NV_LENGTH);
        return;
    }
    if (hdr & MNVDA_DEFAULT) {
        mlx5_nv_default(c, i, v);
    } else {
        memcpy(v, hdr & MNVDA_READ_CURRENT ? c->nv.cur[i] : c->nv.next[i],
               size);
    }
    /* the header: the TLV's length, readable (and overridable if written) */
    mlx5_st32(reg, (hdr & (MNVDA_DEFAULT | MNVDA_READ_CURRENT)) |
              MNVDA_RD_EN | (mlx5_nv_tlvs[i].wr ? MNVDA_OVER_EN : 0) |
              MLX5_NV_VERSION << 12 | size);
    memcpy(reg + MNVDA_DATA_OFF, v, size);
}

/* MNVGC: default (factory) and current values can be read. */
void mlx5_reg_mnvgc(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    memset(reg, 0, MNVGC_SIZE);
    mlx5_st32(reg, 3);
}

/* MNVDI: a TLV's next value back to its default; MNVIA: all of them. */
void mlx5_reg_mnvdi(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    int i = mlx5_nv_find(mlx5_ld32(reg + 4));

    if (cmd->op_mod != MLX5_ACCESS_REG_WRITE || i < 0 || !mlx5_nv_tlvs[i].wr) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_NV_TYPE);
        return;
    }
    mlx5_nv_default(c, i, c->nv.next[i]);
    mlx5_flash_store(c);
}

void mlx5_reg_mnvia(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    unsigned i;

    if (cmd->op_mod != MLX5_ACCESS_REG_WRITE) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_NV_TYPE);
        return;
    }
    for (i = 0; i < MLX5_NV_TLVS; i++) {
        mlx5_nv_default(c, i, c->nv.next[i]);
    }
    mlx5_flash_store(c);
}
