/*
 * mlx5 HCA core: handle tables, guest buffers (PAS lists), and the simple
 * resources (PD, UAR, XRCD, transport domain).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "trace.h"

/* ---- handle tables ------------------------------------------------------- */

void mlx5_table_init(Mlx5Table *t, const char *name, uint32_t size,
                     uint32_t first)
{
    t->slot = g_new0(void *, size);
    t->owner = g_new0(uint16_t, size);
    t->size = size;
    t->base = 0;
    t->first = first;
    t->next = first;
    t->count = 0;
    t->name = name;
}

/*
 * Handles of @t start at @base (a function's QPN range,
 * docs/sriov-ib-notes.md); only while it is empty.
 */
void mlx5_table_set_base(Mlx5Table *t, uint32_t base)
{
    g_assert(!t->count);
    t->base = base;
}

/* The slot of @handle, or t->size if it is outside the table. */
static uint32_t mlx5_table_slot(const Mlx5Table *t, uint32_t handle)
{
    return handle >= t->base && handle - t->base < t->size ? handle - t->base
                                                           : t->size;
}

void mlx5_table_destroy(Mlx5Table *t, void (*free_obj)(Mlx5Core *, void *),
                        Mlx5Core *c)
{
    uint32_t i;

    for (i = 0; i < t->size && t->count; i++) {
        if (t->slot[i]) {
            void *obj = t->slot[i];
            t->slot[i] = NULL;
            t->owner[i] = 0;
            t->count--;
            free_obj(c, obj);
        }
    }
    t->next = t->first;
}

int mlx5_table_alloc(Mlx5Table *t, void *obj, uint32_t *handle)
{
    uint32_t span = t->size - t->first, i;

    for (i = 0; i < span; i++) {
        uint32_t h = t->first + (t->next - t->first + i) % span;
        if (!t->slot[h]) {
            t->slot[h] = obj;
            t->count++;
            t->next = h + 1 < t->size ? h + 1 : t->first;
            *handle = t->base + h;
            return 0;
        }
    }
    return -1;
}

int mlx5_table_insert(Mlx5Table *t, uint32_t handle, void *obj)
{
    handle = mlx5_table_slot(t, handle);
    if (handle >= t->size || t->slot[handle]) {
        return -1;
    }
    t->slot[handle] = obj;
    t->count++;
    return 0;
}

void *mlx5_table_get(const Mlx5Table *t, uint32_t handle)
{
    handle = mlx5_table_slot(t, handle);
    return handle < t->size ? t->slot[handle] : NULL;
}

void *mlx5_table_next(const Mlx5Table *t, Mlx5TableIter *it)
{
    while (it->pos < t->size && it->seen < t->count) {
        void *obj = t->slot[it->pos++];

        if (obj) {
            it->seen++;
            return obj;
        }
    }
    return NULL;
}

void mlx5_table_remove(Mlx5Table *t, uint32_t handle)
{
    handle = mlx5_table_slot(t, handle);
    if (handle < t->size && t->slot[handle]) {
        t->slot[handle] = NULL;
        t->owner[handle] = 0;
        t->count--;
    }
}

uint16_t mlx5_table_owner(const Mlx5Table *t, uint32_t handle)
{
    handle = mlx5_table_slot(t, handle);
    return handle < t->size ? t->owner[handle] : 0;
}

void mlx5_table_set_owner(Mlx5Table *t, uint32_t handle, uint16_t uid)
{
    handle = mlx5_table_slot(t, handle);
    if (handle < t->size && t->slot[handle]) {
        t->owner[handle] = uid;
    }
}

bool mlx5_table_has_owner(const Mlx5Table *t, uint16_t uid)
{
    uint32_t i, seen = 0;

    for (i = 0; i < t->size && seen < t->count; i++) {
        if (t->slot[i]) {
            seen++;
            if (t->owner[i] == uid) {
                return true;
            }
        }
    }
    return false;
}

void mlx5_plain_free(Mlx5Core *c, void *obj)
{
    g_free(obj);
}

/* Drop every object (DISABLE_HCA, reset). Dependents first. */
void mlx5_res_reset(Mlx5Core *c)
{
    mlx5_eth_reset(c);          /* steering and TIRs refer to RQs */
    mlx5_table_destroy(&c->qps, mlx5_qp_free, c);
    mlx5_table_destroy(&c->srqs, mlx5_srq_free, c);
    mlx5_table_destroy(&c->mkeys, mlx5_mkey_free, c);
    mlx5_table_destroy(&c->psvs, mlx5_psv_free, c);
    mlx5_table_destroy(&c->cqs, mlx5_cq_free, c);
    mlx5_table_destroy(&c->eqs, mlx5_eq_free, c);
    mlx5_table_destroy(&c->pds, mlx5_plain_free, c);
    mlx5_table_destroy(&c->xrcds, mlx5_plain_free, c);
    mlx5_table_destroy(&c->tds, mlx5_plain_free, c);
    mlx5_table_destroy(&c->uars, mlx5_plain_free, c);
    mlx5_table_destroy(&c->umems, mlx5_umem_free, c);
    mlx5_table_destroy(&c->uctxs, mlx5_plain_free, c);
}

void mlx5_res_teardown(Mlx5Core *c)
{
    Mlx5Table *all[] = { &c->qps,  &c->srqs,  &c->mkeys, &c->cqs,
                         &c->eqs,  &c->pds,   &c->xrcds, &c->tds,
                         &c->uars, &c->uctxs, &c->umems, &c->psvs };
    size_t i;

    mlx5_res_reset(c);
    for (i = 0; i < G_N_ELEMENTS(all); i++) {
        g_free(all[i]->slot);
        g_free(all[i]->owner);
        all[i]->slot = NULL;
        all[i]->owner = NULL;
        all[i]->size = 0;
    }
}

/* ---- guest buffers ------------------------------------------------------- */

/*
 * @page_offset is the PRM's quantized first-page offset: in units of page_size
 * / 64 (mlx5_umem_find_best_quantized_pgoff), i.e. 64 bytes for 4 KiB pages, 32
 * KiB for 2 MiB ones.
 */
int mlx5_buf_init(Mlx5Buf *b, const uint8_t *pas_be, uint64_t npas,
                  uint8_t log_page_size, uint32_t page_offset,
                  uint64_t need_bytes)
{
    uint64_t i, page_size;

    memset(b, 0, sizeof(*b));
    if (log_page_size < 12 || log_page_size > 30) {
        return MLX5_SYND_BAD_PAGE_SIZE;
    }
    page_size = 1ull << log_page_size;
    page_offset *= page_size / 64;
    if (npas == 0 || npas > MLX5_MAX_PAS || page_offset >= page_size) {
        return MLX5_SYND_BAD_PAS;
    }
    if (need_bytes + page_offset > (npas << log_page_size)) {
        return MLX5_SYND_BAD_PAS;
    }
    b->pas = g_new(uint64_t, npas);
    for (i = 0; i < npas; i++) {
        b->pas[i] = mlx5_ld64(pas_be + 8 * i);
        if (b->pas[i] & (page_size - 1) & ~0xfffull) {
            /*
             * entries must be aligned to the page size (low 12 bits carry
             * flags)
             */
            g_free(b->pas);
            b->pas = NULL;
            return MLX5_SYND_BAD_PAS;
        }
        b->pas[i] &= ~0xfffull;
    }
    b->npages = npas;
    b->log_page_size = log_page_size;
    b->page_offset = page_offset;
    return 0;
}

void mlx5_buf_free(Mlx5Buf *b)
{
    g_free(b->pas);
    b->pas = NULL;
    b->npages = 0;
}

uint64_t mlx5_buf_addr(const Mlx5Buf *b, uint64_t off)
{
    uint64_t idx;

    off += b->page_offset;
    idx = off >> b->log_page_size;
    if (idx >= b->npages) {
        return UINT64_MAX;
    }
    return b->pas[idx] + (off & ((1ull << b->log_page_size) - 1));
}

static int mlx5_buf_xfer(Mlx5Core *c, const Mlx5Buf *b, uint64_t off,
                         void *data, size_t len, bool write)
{
    uint64_t page_size = 1ull << b->log_page_size;

    while (len) {
        uint64_t pa = mlx5_buf_addr(b, off);
        size_t n = MIN(len,
                       page_size - ((off + b->page_offset) & (page_size - 1)));
        int r;

        if (pa == UINT64_MAX) {
            return -1;
        }
        r = write ? mlx5_dma_write(c, pa, data, n)
                  : mlx5_dma_read(c, pa, data, n);
        if (r) {
            return r;
        }
        off += n;
        data = (uint8_t *)data + n;
        len -= n;
    }
    return 0;
}

int mlx5_buf_write(Mlx5Core *c, const Mlx5Buf *b, uint64_t off,
                   const void *data, size_t len)
{
    return mlx5_buf_xfer(c, b, off, (void *)data, len, true);
}

int mlx5_buf_read(Mlx5Core *c, const Mlx5Buf *b, uint64_t off, void *data,
                  size_t len)
{
    return mlx5_buf_xfer(c, b, off, data, len, false);
}

/* ---- PD / UAR / XRCD / TD ------------------------------------------------ */

/* Allocate a plain object of @size bytes whose first member is its handle. */
static void *mlx5_alloc_simple(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Table *t,
                               size_t size, uint32_t limit)
{
    uint32_t *obj, h = UINT32_MAX;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return NULL;
    }
    obj = g_malloc0(size);
    if (mlx5_table_alloc(t, obj, &h) == 0 && h >= limit) {
        mlx5_table_remove(t, h);
        h = UINT32_MAX;
    }
    if (h == UINT32_MAX) {
        g_free(obj);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return NULL;
    }
    *obj = h;
    mlx5_cmd_own(cmd, t, h);
    mlx5_cmd_handle_out(cmd, h);
    trace_mlx5_obj_create(t->name, h);
    return obj;
}

static void mlx5_dealloc_simple(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Table *t,
                                const uint32_t *refcount_of(void *))
{
    uint32_t h;
    void *obj;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    h = mlx5_cmd_handle_in(cmd);
    obj = mlx5_cmd_obj(cmd, t, h);
    if (!obj) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (refcount_of && *refcount_of(obj)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    mlx5_table_remove(t, h);
    g_free(obj);
    trace_mlx5_obj_destroy(t->name, h);
}

static const uint32_t *mlx5_pd_refcount(void *obj)
{
    return &((Mlx5Pd *)obj)->refcount;
}

static const uint32_t *mlx5_xrcd_refcount(void *obj)
{
    return &((Mlx5Xrcd *)obj)->refcount;
}

void mlx5_cmd_alloc_pd(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Pd *pd = mlx5_alloc_simple(c, cmd, &c->pds, sizeof(Mlx5Pd),
                                   c->pds.size);

    if (pd) {
        pd->uid = cmd->uid;
    }
}

void mlx5_cmd_dealloc_pd(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_dealloc_simple(c, cmd, &c->pds, mlx5_pd_refcount);
}

void mlx5_cmd_alloc_uar(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    /*
     * UAR n is BAR0 system page n: it must fit in BAR0 at the current UAR page
     * size
     */
    unsigned shift = 12 + MLX5_GET(c->cap_general_cur, CAP_log_uar_page_sz);
    uint32_t limit = MIN((uint32_t)(MLX5_MEMIC_BAR_OFF >> shift), c->uars.size);
    Mlx5Uar *u = mlx5_alloc_simple(c, cmd, &c->uars, sizeof(Mlx5Uar), limit);

    if (u) {
        u->uid = cmd->uid;
    }
}

void mlx5_cmd_dealloc_uar(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_dealloc_simple(c, cmd, &c->uars, NULL);
}

void mlx5_cmd_alloc_xrcd(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_alloc_simple(c, cmd, &c->xrcds, sizeof(Mlx5Xrcd), c->xrcds.size);
}

void mlx5_cmd_dealloc_xrcd(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_dealloc_simple(c, cmd, &c->xrcds, mlx5_xrcd_refcount);
}

void mlx5_cmd_alloc_transport_domain(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_alloc_simple(c, cmd, &c->tds, sizeof(uint32_t), c->tds.size);
}

void mlx5_cmd_dealloc_transport_domain(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    mlx5_dealloc_simple(c, cmd, &c->tds, NULL);
}
