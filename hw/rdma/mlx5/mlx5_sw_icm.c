/*
 * mlx5 HCA core: steering ICM for software steering (SW ICM), the device
 * memory software-owned flow tables live in (docs/sw-steering-notes.md).
 *
 * The device memory cap page offers two regions: steering entries (STEs, 64
 * bytes each) and header-modify action lists. mlx5_core carves blocks out of
 * them with CREATE_GENERAL_OBJECT of type SW_ICM (the kernel picks the
 * address, for itself or for a DevX user's uid: ibv_alloc_dm of a steering
 * type); mlx5_ib maps a block with an mkey of access mode SW_ICM, zero based,
 * and rdma-core's mlx5dv_dr writes the entries through it with RDMA WRITEs
 * from a force-loopback RC QP (and reads them back to flush). The STE engine
 * (eth/mlx5_ste.c) reads them when a frame reaches a software-owned table.
 *
 * The guest cannot map ICM: only those RDMA accesses and the engine touch it.
 * It is held sparsely, a 4 KiB page on first write (a never-written entry
 * reads zero, which the engine takes for no entry). An object is owned by its
 * uid, an mkey may map only a range inside one object of its uid (uid 0 maps
 * for everyone, as for MEMIC), an object cannot be destroyed while an mkey
 * maps it, and a new object's memory reads zero.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "mlx5_cmd.h"
#include "eth/mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

#define MLX5_ICM_PAGE_SHIFT         12
#define MLX5_ICM_PAGE_SIZE          (1u << MLX5_ICM_PAGE_SHIFT)

enum {
    /* not a region of ours, misaligned, or overlapping another object */
    MLX5_SYND_ICM_RANGE = 0x30000060,
    /* an object type the device does not offer */
    MLX5_SYND_OBJ_TYPE = 0x30000061,
};

bool mlx5_sw_icm_offered(const Mlx5CoreConfig *cfg)
{
    return cfg->sw_steering && cfg->eth;
}

void mlx5_sw_icm_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap)
{
    if (!mlx5_sw_icm_offered(cfg)) {
        return;
    }
    switch (type) {
    case MLX5_CAP_GENERAL:
        mlx5_st64(cap + CAP_general_obj_types_OFF,
                  mlx5_ld64(cap + CAP_general_obj_types_OFF) |
                      (1ull << MLX5_OBJ_TYPE_SW_ICM) |
                      (1ull << MLX5_OBJ_TYPE_FLOW_METER));
        MLX5_SET(cap, CAP_device_memory, 1);
        MLX5_SET(cap, CAP_fl_rc_qp_when_roce_disabled, 1);
        break;
    case MLX5_CAP_DEV_MEM:
        MLX5_SET64(cap, DEV_MEM_CAP_steering_sw_icm_start_address_OFF,
                   MLX5_ICM_STEERING_BASE);
        MLX5_SET(cap, DEV_MEM_CAP_log_steering_sw_icm_size,
                 MLX5_ICM_LOG_STEERING);
        MLX5_SET64(cap, DEV_MEM_CAP_header_modify_sw_icm_start_address_OFF,
                   MLX5_ICM_MODHDR_BASE);
        MLX5_SET(cap, DEV_MEM_CAP_log_header_modify_sw_icm_size,
                 MLX5_ICM_LOG_MODHDR);
        MLX5_SET(cap, DEV_MEM_CAP_log_sw_icm_alloc_granularity,
                 MLX5_ICM_PAGE_SHIFT);
        break;
    default:
        break;
    }
}

void mlx5_sw_icm_init(Mlx5Core *c)
{
    c->icm_pages = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                         g_free);
}

void mlx5_sw_icm_free(Mlx5Core *c)
{
    g_hash_table_destroy(c->icm_pages);
}

void mlx5_sw_icm_reset(Mlx5Core *c)
{
    memset(c->icm_obj, 0, sizeof(c->icm_obj));
    g_hash_table_remove_all(c->icm_pages);
}

/* The region [start, start + size) lies in, or 0 (none). */
static uint64_t mlx5_icm_region(uint64_t start, uint64_t size)
{
    static const struct {
        uint64_t base;
        unsigned log;
    } r[] = {
        { MLX5_ICM_STEERING_BASE, MLX5_ICM_LOG_STEERING },
        { MLX5_ICM_MODHDR_BASE, MLX5_ICM_LOG_MODHDR },
    };
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(r); i++) {
        uint64_t end = r[i].base + (1ull << r[i].log);
        if (start >= r[i].base && start < end && size <= end - start) {
            return r[i].base;
        }
    }
    return 0;
}

/* The live object holding [addr, addr + len), or NULL. */
static Mlx5IcmObj *mlx5_icm_obj_at(Mlx5Core *c, uint64_t addr, uint64_t len)
{
    unsigned i;

    for (i = 0; i < MLX5_ICM_MAX_OBJ; i++) {
        Mlx5IcmObj *o = &c->icm_obj[i];
        if (o->size && addr >= o->start && len <= o->size &&
            addr - o->start <= o->size - len) {
            return o;
        }
    }
    return NULL;
}

/* Forget the pages of [start, start + size): they read zero again. */
static void mlx5_icm_zero(Mlx5Core *c, uint64_t start, uint64_t size)
{
    uint64_t p;

    for (p = start >> MLX5_ICM_PAGE_SHIFT;
         p < (start + size) >> MLX5_ICM_PAGE_SHIFT; p++) {
        g_hash_table_remove(c->icm_pages, GSIZE_TO_POINTER(p));
    }
}

static void mlx5_gobj_create_sw_icm(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *icm = cmd->in + GOBJ_HDR_SIZE;
    unsigned log = MLX5_GET(icm, SW_ICM_log_sw_icm_size), i, slot = UINT_MAX;
    uint64_t start = MLX5_GET64(icm, SW_ICM_start_addr_OFF), size;

    if (!mlx5_cmd_in_ok(cmd, GOBJ_HDR_SIZE + SW_ICM_SIZE)) {
        return;
    }
    size = log < 40 ? 1ull << log : 0;
    /* (the kernel places blocks at its granularity, the page) */
    if (log < MLX5_ICM_PAGE_SHIFT || !size ||
        (start & (MLX5_ICM_PAGE_SIZE - 1)) || !mlx5_icm_region(start, size)) {
        trace_mlx5_sw_icm_refused(cmd->uid, start, log);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_ICM_RANGE);
        return;
    }
    for (i = 0; i < MLX5_ICM_MAX_OBJ; i++) {
        const Mlx5IcmObj *o = &c->icm_obj[i];
        if (!o->size) {
            slot = MIN(slot, i);
        } else if (start < o->start + o->size && o->start < start + size) {
            trace_mlx5_sw_icm_refused(cmd->uid, start, log);
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_ICM_RANGE);
            return;
        }
    }
    if (slot == UINT_MAX) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_icm_zero(c, start, size);
    c->icm_obj[slot] = (Mlx5IcmObj) {
        .start = start, .size = size, .uid = cmd->uid,
    };
    MLX5_SET(cmd->out, GOBJ_OUT_obj_id, slot + 1);
    trace_mlx5_sw_icm_create(slot + 1, cmd->uid, start, size);
}

/* The SW ICM object a general object command names, or fail. */
static Mlx5IcmObj *mlx5_gobj_sw_icm(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t id = MLX5_GET(cmd->in, GOBJ_IN_obj_id);
    Mlx5IcmObj *o = id && id <= MLX5_ICM_MAX_OBJ ? &c->icm_obj[id - 1] : NULL;

    if (!o || !o->size || (mlx5_cmd_user(cmd) && o->uid != cmd->uid)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return NULL;
    }
    return o;
}

static void mlx5_gobj_destroy_sw_icm(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5IcmObj *o = mlx5_gobj_sw_icm(c, cmd);

    if (!o) {
        return;
    }
    if (o->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    trace_mlx5_obj_destroy("SW ICM", MLX5_GET(cmd->in, GOBJ_IN_obj_id));
    mlx5_icm_zero(c, o->start, o->size);
    memset(o, 0, sizeof(*o));
}

static void mlx5_gobj_query_sw_icm(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *icm = cmd->out + GOBJ_HDR_SIZE;
    Mlx5IcmObj *o = mlx5_gobj_sw_icm(c, cmd);

    if (!o || !mlx5_cmd_out_ok(cmd, GOBJ_HDR_SIZE + SW_ICM_SIZE)) {
        return;
    }
    MLX5_SET(icm, SW_ICM_log_sw_icm_size, ctz64(o->size));
    MLX5_SET64(icm, SW_ICM_start_addr_OFF, o->start);
}

/* The general object types offered (software steering), their handlers */
typedef struct Mlx5GobjType {
    uint16_t type;
    Mlx5CmdHandler *create, *query, *destroy;
    Mlx5CmdHandler *modify;     /* NULL: none may be modified */
} Mlx5GobjType;

static const Mlx5GobjType mlx5_gobj_types[] = {
    { MLX5_OBJ_TYPE_SW_ICM, mlx5_gobj_create_sw_icm, mlx5_gobj_query_sw_icm,
      mlx5_gobj_destroy_sw_icm, NULL },
    { MLX5_OBJ_TYPE_FLOW_SAMPLER, mlx5_sampler_create, mlx5_sampler_query,
      mlx5_sampler_destroy, NULL },
    { MLX5_OBJ_TYPE_FLOW_METER, mlx5_meter_create, mlx5_meter_query,
      mlx5_meter_destroy, mlx5_meter_modify },
};

/* The object type a general object command names, if we offer it; else fail. */
static const Mlx5GobjType *mlx5_gobj_type(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned type, i;

    if (!mlx5_cmd_in_ok(cmd, GOBJ_HDR_SIZE) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return NULL;
    }
    type = MLX5_GET(cmd->in, GOBJ_IN_obj_type);
    for (i = 0; i < G_N_ELEMENTS(mlx5_gobj_types); i++) {
        if (mlx5_gobj_types[i].type == type && mlx5_sw_icm_offered(&c->cfg)) {
            return &mlx5_gobj_types[i];
        }
    }
    trace_mlx5_gobj_unsupported(type);
    mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_OBJ_TYPE);
    return NULL;
}

void mlx5_cmd_create_general_object(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const Mlx5GobjType *t = mlx5_gobj_type(c, cmd);

    if (t) {
        t->create(c, cmd);
    }
}

void mlx5_cmd_destroy_general_object(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const Mlx5GobjType *t = mlx5_gobj_type(c, cmd);

    if (t) {
        t->destroy(c, cmd);
    }
}

void mlx5_cmd_modify_general_object(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const Mlx5GobjType *t = mlx5_gobj_type(c, cmd);

    if (t && t->modify) {
        t->modify(c, cmd);
    } else if (t) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_OBJ_TYPE);
    }
}

void mlx5_cmd_query_general_object(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const Mlx5GobjType *t = mlx5_gobj_type(c, cmd);

    if (t) {
        t->query(c, cmd);
    }
}

/*
 * SYNC_STEERING: what software wrote to ICM takes effect. Writes land as a
 * WQE completes and the engine reads ICM for every frame, so there is nothing
 * to wait for.
 */
void mlx5_cmd_sync_steering(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (!mlx5_sw_icm_offered(&c->cfg)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_BAD_OPCODE);
        return;
    }
    trace_mlx5_sw_icm_sync(cmd->uid);
}

bool mlx5_sw_icm_map(Mlx5Core *c, uint32_t uid, uint64_t start, uint64_t len)
{
    Mlx5IcmObj *o = mlx5_icm_obj_at(c, start, len);

    if (!o || (uid && o->uid != uid)) {
        return false;
    }
    o->refcount++;
    return true;
}

void mlx5_sw_icm_unmap(Mlx5Core *c, uint64_t start, uint64_t len)
{
    Mlx5IcmObj *o = mlx5_icm_obj_at(c, start, len);

    if (o) {
        mlx5_ref_put(&o->refcount);
    }
}

bool mlx5_icm_owned(Mlx5Core *c, uint16_t uid, uint64_t addr, uint64_t len)
{
    Mlx5IcmObj *o = mlx5_icm_obj_at(c, addr, len);

    return o && (!uid || !o->uid || o->uid == uid);
}

int mlx5_icm_rw(Mlx5Core *c, uint64_t addr, void *buf, uint64_t len,
                bool to_mem)
{
    uint8_t *b = buf;

    if (!mlx5_icm_obj_at(c, addr, len)) {
        return -1;
    }
    while (len) {
        uint64_t pn = addr >> MLX5_ICM_PAGE_SHIFT;
        uint32_t in = addr & (MLX5_ICM_PAGE_SIZE - 1);
        uint32_t n = MIN(len, MLX5_ICM_PAGE_SIZE - in);
        uint8_t *page = g_hash_table_lookup(c->icm_pages, GSIZE_TO_POINTER(pn));

        if (to_mem) {
            if (!page) {
                page = g_malloc0(MLX5_ICM_PAGE_SIZE);
                g_hash_table_insert(c->icm_pages, GSIZE_TO_POINTER(pn), page);
            }
            memcpy(page + in, b, n);
        } else if (page) {
            memcpy(b, page + in, n);
        } else {
            memset(b, 0, n);
        }
        addr += n;
        b += n;
        len -= n;
    }
    return 0;
}
