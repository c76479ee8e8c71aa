/*
 * mlx5 HCA core: device memory (MEMIC), the on-chip memory a ConnectX-5 maps
 * into BAR0.
 *
 * The driver carves pieces out of the MEMIC window with ALLOC_MEMIC (it names a
 * page-aligned range and the device places the piece in it, or answers
 * NO_RESOURCES so the driver tries the next range) and maps them to user space
 * (ibv_alloc_dm), where libmlx5 copies data in and out with 4-byte accesses. An
 * mkey of access mode MEMIC (ibv_reg_dm_mr) makes a piece the target of sends,
 * RDMA and atomics: its start_addr is the BAR0 offset and it is zero based.
 *
 * Device memory is a security boundary like everything else: a piece is owned
 * by the uid that allocated it, a DevX user may map only its own pieces with an
 * mkey, a piece is zeroed when it is handed out and cannot be freed while an
 * mkey still maps it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

/* Pieces are at least MLX5_MEMIC_MIN bytes: at most this many exist at once. */
#define MLX5_MEMIC_MIN              64u
/* alignment up to 64 << 6 = 4 KiB */
#define MLX5_LOG_MEMIC_MAX_ALIGN    6u

static uint64_t mlx5_memic_end(const Mlx5Core *c)
{
    return MLX5_MEMIC_BAR_OFF + c->cfg.memic_size;
}

static uint64_t mlx5_memic_align(uint64_t v, uint64_t align)
{
    return (v + align - 1) & ~(align - 1);
}

void mlx5_memic_init(Mlx5Core *c)
{
    if (c->cfg.memic_size) {
        c->memic = g_malloc0(c->cfg.memic_size);
        c->memic_max = c->cfg.memic_size / MLX5_MEMIC_MIN;
        c->memic_alloc = g_new0(Mlx5MemicAlloc, c->memic_max);
    }
}

void mlx5_memic_free(Mlx5Core *c)
{
    g_free(c->memic);
    g_free(c->memic_alloc);
}

void mlx5_memic_reset(Mlx5Core *c)
{
    c->memic_n = 0;
    if (c->memic) {
        memset(c->memic, 0, c->cfg.memic_size);
    }
}

void mlx5_caps_dev_mem(const Mlx5CoreConfig *cfg, uint8_t *cap)
{
    if (!cfg->memic_size) {
        return;
    }
    MLX5_SET(cap, DEV_MEM_CAP_memic, 1);
    MLX5_SET(cap, DEV_MEM_CAP_log_min_memic_alloc_size, 6);
    MLX5_SET(cap, DEV_MEM_CAP_log_max_memic_addr_alignment,
             MLX5_LOG_MEMIC_MAX_ALIGN);
    MLX5_SET64(cap, DEV_MEM_CAP_memic_bar_start_addr_OFF, MLX5_MEMIC_BAR_OFF);
    MLX5_SET(cap, DEV_MEM_CAP_memic_bar_size, cfg->memic_size);
    MLX5_SET(cap, DEV_MEM_CAP_max_memic_size, cfg->memic_size);
}

/* The piece that holds [off, off + len), or NULL. */
static Mlx5MemicAlloc *mlx5_memic_find(Mlx5Core *c, uint64_t off, uint64_t len)
{
    uint32_t i;

    for (i = 0; i < c->memic_n; i++) {
        Mlx5MemicAlloc *a = &c->memic_alloc[i];
        if (off >= a->start && len <= a->size &&
            off - a->start <= a->size - len) {
            return a;
        }
    }
    return NULL;
}

void mlx5_cmd_alloc_memic(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint64_t range = 0, range_size, size, align, at;
    uint32_t log_align, i;
    Mlx5MemicAlloc *a;

    if (!mlx5_cmd_in_ok(cmd, 0x20) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (!c->memic) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    range = MLX5_GET64(cmd->in, ALLOC_MEMIC_IN_range_start_addr_OFF);
    range_size = MLX5_GET(cmd->in, ALLOC_MEMIC_IN_range_size);
    size = MLX5_GET(cmd->in, ALLOC_MEMIC_IN_memic_size);
    log_align = MLX5_GET(cmd->in, ALLOC_MEMIC_IN_log_memic_addr_alignment);
    if (size == 0 || size % MLX5_MEMIC_MIN ||
        log_align > MLX5_LOG_MEMIC_MAX_ALIGN || range < MLX5_MEMIC_BAR_OFF ||
        range >= mlx5_memic_end(c) || range_size > mlx5_memic_end(c) - range ||
        size > range_size) {
        trace_mlx5_memic_fail(cmd->uid, range, range_size, size);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    align = (uint64_t)MLX5_MEMIC_MIN << log_align;
    /* first fit in the range, walking the pieces (kept sorted by address) */
    at = mlx5_memic_align(range, align);
    for (i = 0; i < c->memic_n; i++) {
        a = &c->memic_alloc[i];
        if (a->start + a->size <= at) {
            continue;
        }
        if (a->start >= at + size) {
            break;
        }
        at = mlx5_memic_align(a->start + a->size, align);
    }
    if (at + size > range + range_size || c->memic_n == c->memic_max) {
        /* NO_RESOURCES: the driver (-EAGAIN) tries its next range */
        trace_mlx5_memic_fail(cmd->uid, range, range_size, size);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_NO_RES_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    memmove(&c->memic_alloc[i + 1], &c->memic_alloc[i],
            (c->memic_n - i) * sizeof(c->memic_alloc[0]));
    c->memic_n++;
    a = &c->memic_alloc[i];
    a->start = at;
    a->size = size;
    a->uid = cmd->uid;
    a->refcount = 0;
    memset(c->memic + (at - MLX5_MEMIC_BAR_OFF), 0, size);
    MLX5_SET64(cmd->out, ALLOC_MEMIC_OUT_memic_start_addr_OFF, at);
    trace_mlx5_memic_alloc(cmd->uid, at, size);
}

void mlx5_cmd_dealloc_memic(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint64_t start;
    uint32_t size, i;

    if (!mlx5_cmd_in_ok(cmd, 0x20) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (!c->memic) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    start = MLX5_GET64(cmd->in, DEALLOC_MEMIC_IN_memic_start_addr_OFF);
    size = MLX5_GET(cmd->in, DEALLOC_MEMIC_IN_memic_size);
    for (i = 0; i < c->memic_n; i++) {
        if (c->memic_alloc[i].start == start &&
            c->memic_alloc[i].size == size &&
            c->memic_alloc[i].uid == cmd->uid) {
            break;
        }
    }
    if (i == c->memic_n) {
        trace_mlx5_memic_fail(cmd->uid, start, 0, size);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (c->memic_alloc[i].refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    c->memic_n--;
    memmove(&c->memic_alloc[i], &c->memic_alloc[i + 1],
            (c->memic_n - i) * sizeof(c->memic_alloc[0]));
    trace_mlx5_memic_dealloc(cmd->uid, start, size);
}

/*
 * CREATE_MKEY of access mode MEMIC: [start, start + len) must lie in one piece,
 * which a DevX user must own (the kernel, uid 0, maps pieces for its users).
 * The piece is then held.
 */
bool mlx5_memic_map(Mlx5Core *c, uint32_t uid, uint64_t start, uint64_t len)
{
    Mlx5MemicAlloc *a = c->memic ? mlx5_memic_find(c, start, len) : NULL;

    if (!a || (uid && a->uid != uid)) {
        return false;
    }
    a->refcount++;
    return true;
}

void mlx5_memic_unmap(Mlx5Core *c, uint64_t start, uint64_t len)
{
    Mlx5MemicAlloc *a = c->memic ? mlx5_memic_find(c, start, len) : NULL;

    if (a) {
        mlx5_ref_put(&a->refcount);
    }
}

/*
 * Data path: move @len bytes at BAR0 offset @off. Nonzero if outside the device
 * memory.
 */
int mlx5_memic_rw(Mlx5Core *c, uint64_t off, void *buf, uint64_t len,
                  bool to_mem)
{
    if (!c->memic || off < MLX5_MEMIC_BAR_OFF || off >= mlx5_memic_end(c) ||
        len > mlx5_memic_end(c) - off) {
        return -1;
    }
    off -= MLX5_MEMIC_BAR_OFF;
    if (to_mem) {
        memcpy(c->memic + off, buf, len);
    } else {
        memcpy(buf, c->memic + off, len);
    }
    return 0;
}

/*
 * BAR0 accesses to the MEMIC window (values are numeric, most significant byte
 * first at the lowest address, as the shell declares BAR0 big endian). Past the
 * memory: reads 0.
 */
bool mlx5_memic_mmio_read(Mlx5Core *c, uint64_t off, unsigned size,
                          uint64_t *val)
{
    uint8_t b[8];
    unsigned i;

    if (off < MLX5_MEMIC_BAR_OFF || off >= MLX5_BAR0_SIZE) {
        return false;
    }
    *val = 0;
    if (size <= 8 && mlx5_memic_rw(c, off, b, size, false) == 0) {
        for (i = 0; i < size; i++) {
            *val = (*val << 8) | b[i];
        }
    }
    return true;
}

bool mlx5_memic_mmio_write(Mlx5Core *c, uint64_t off, uint64_t val,
                           unsigned size)
{
    uint8_t b[8];
    unsigned i;

    if (off < MLX5_MEMIC_BAR_OFF || off >= MLX5_BAR0_SIZE) {
        return false;
    }
    if (size <= 8) {
        for (i = 0; i < size; i++) {
            b[i] = val >> (8 * (size - 1 - i));
        }
        mlx5_memic_rw(c, off, b, size, true);
    }
    return true;
}
