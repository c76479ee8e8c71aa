/*
 * mlx5 HCA core: memory keys (CREATE/DESTROY/QUERY_MKEY) and their translation
 * tables.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

/*
 * Release what the mkey itself holds: its device memory piece and translation
 * tables.
 */
static void mlx5_mkey_discard(Mlx5Core *c, Mlx5Mkey *mk)
{
    if (mk->memic) {
        mlx5_memic_unmap(c, mk->memic_start, mk->memic_len);
    }
    if (mk->sw_icm) {
        mlx5_sw_icm_unmap(c, mk->memic_start, mk->memic_len);
    }
    g_free(mk->mtt);
    g_free(mk->klm);
    if (mk->ksm_set) {
        g_hash_table_destroy(mk->ksm_set);
    }
    g_free(mk->sig);
    g_free(mk);
}

void mlx5_mkey_free(Mlx5Core *c, void *obj)
{
    Mlx5Mkey *mk = obj;
    Mlx5Pd *pd = mlx5_table_get(&c->pds, mk->pdn);

    if (pd) {
        mlx5_ref_put(&pd->refcount);
    }
    mlx5_mkey_discard(c, mk);
}

/*
 * Entries the translation table may hold: translations_octword_size in the
 * mode's units, rounded up to the 64-byte granule UMR writes in (the kernel
 * pads every translation update to 64 bytes, MLX5_UMR_FLEX_ALIGNMENT, also for
 * its 4-entry cache mkeys of 2 octowords).
 */
uint64_t mlx5_mkey_xlt_capacity(const Mlx5Mkey *mk)
{
    uint64_t octwords = ((uint64_t)mk->translations_octword_size + 3) & ~3ull;

    switch (mk->access_mode) {
    case MLX5_MKC_ACCESS_MODE_MTT:
        return octwords * 2;
    case MLX5_MKC_ACCESS_MODE_KLMS:
    case MLX5_MKC_ACCESS_MODE_KSM:
        return octwords;
    default:
        return 0;
    }
}

bool mlx5_mkey_xlt_reserve(Mlx5Mkey *mk, uint64_t n)
{
    if (n > mlx5_mkey_xlt_capacity(mk) ||
        n > (mk->ksm_set ? MLX5_MAX_KSM : MLX5_MAX_PAS)) {
        return false;
    }
    if (mk->ksm_set) {
        return true;                    /* entries are held as written */
    }
    if (mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT && n > mk->nmtt) {
        mk->mtt = g_renew(uint64_t, mk->mtt, n);
        memset(mk->mtt + mk->nmtt, 0, (n - mk->nmtt) * sizeof(uint64_t));
        mk->nmtt = n;
    } else if (mk->access_mode != MLX5_MKC_ACCESS_MODE_MTT && n > mk->nklm) {
        mk->klm = g_renew(Mlx5Klm, mk->klm, n);
        memset(mk->klm + mk->nklm, 0, (n - mk->nklm) * sizeof(Mlx5Klm));
        mk->nklm = n;
    }
    return true;
}

/* A sparse KSM table's entries that name no key other than the null mkey */
static const Mlx5Klm mlx5_ksm_null = { .key = MLX5_NULL_MKEY };

/* Entry @idx of @mk's KLM/KSM table, or NULL beyond what the table holds. */
static const Mlx5Klm *mlx5_mkey_klm(const Mlx5Mkey *mk, uint64_t idx)
{
    if (mk->ksm_set) {
        const Mlx5Klm *e = g_hash_table_lookup(mk->ksm_set,
                                               GUINT_TO_POINTER(idx));
        return e ? e : (idx < MLX5_MAX_KSM ? &mlx5_ksm_null : NULL);
    }
    return idx < mk->nklm ? &mk->klm[idx] : NULL;
}

bool mlx5_mkey_klm_fits(const Mlx5Mkey *mk, uint64_t first,
                        const uint8_t *src, uint32_t n)
{
    uint32_t added = 0, i;

    if (!mk->ksm_set) {
        return true;
    }
    for (i = 0; i < n; i++) {
        if (mlx5_ld32(src + 16 * i + 4) != MLX5_NULL_MKEY &&
            !g_hash_table_contains(mk->ksm_set,
                                   GUINT_TO_POINTER(first + i))) {
            added++;
        }
    }
    return g_hash_table_size(mk->ksm_set) + added <= MLX5_KSM_SPARSE_SET;
}

void mlx5_mkey_klm_store(Mlx5Mkey *mk, uint64_t first, const uint8_t *src,
                         uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        Mlx5Klm e = {
            .bcount = mlx5_ld32(src + 16 * i),
            .key = mlx5_ld32(src + 16 * i + 4),
            .va = mlx5_ld64(src + 16 * i + 8),
        };
        gpointer at = GUINT_TO_POINTER(first + i);

        if (!mk->ksm_set) {
            mk->klm[first + i] = e;
        } else if (e.key == MLX5_NULL_MKEY) {
            g_hash_table_remove(mk->ksm_set, at);
        } else {
            g_hash_table_insert(mk->ksm_set, at, g_memdup2(&e, sizeof(e)));
        }
    }
}

/* Decode and check an MTT mkey's translation list. Returns a syndrome or 0. */
static uint32_t mlx5_mkey_load_mtt(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Mkey *mk)
{
    uint64_t page_size, first, last, need, i;
    uint32_t actual = MLX5_GET(cmd->in,
                               CREATE_MKEY_IN_translations_octword_actual_size);

    if (mk->log_page_size < 12 || mk->log_page_size > 30) {
        return MLX5_SYND_BAD_PAGE_SIZE;
    }
    page_size = 1ull << mk->log_page_size;
    if (mk->length64 || mk->len == 0 ||
        mk->start_addr + mk->len < mk->start_addr) {
        return MLX5_SYND_BAD_MKEY_RANGE;
    }
    first = mk->start_addr >> mk->log_page_size;
    last = (mk->start_addr + mk->len - 1) >> mk->log_page_size;
    need = last - first + 1;
    if (need > MLX5_MAX_PAS || (uint64_t)actual * 2 < need ||
        mk->translations_octword_size > MLX5_MAX_PAS / 2 ||
        mk->translations_octword_size < actual) {
        return MLX5_SYND_BAD_PAS;
    }
    if (cmd->inlen < MLX5_PAS_OFF + 8 * need) {
        return MLX5_SYND_INLEN;
    }
    mk->nmtt = need;
    mk->mtt = g_new(uint64_t, need);
    for (i = 0; i < need; i++) {
        uint64_t e = mlx5_ld64(cmd->in + MLX5_PAS_OFF + 8 * i);
        if (e & (page_size - 1) & ~0xfffull) {
            return MLX5_SYND_BAD_PAS;
        }
        /*
         * The entries' read/write-enable bits (bits 0 and 1) are taken from the
         * list only with pg_access; without it every given page is present for
         * both.
         */
        if (!MLX5_GET(cmd->in, CREATE_MKEY_IN_pg_access)) {
            e |= MLX5_MTT_RD_EN | MLX5_MTT_WR_EN;
        }
        mk->mtt[i] = e;
    }
    return 0;
}

/* KLM/KSM entries given in the command. */
static uint32_t mlx5_mkey_load_klm(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Mkey *mk)
{
    uint32_t actual = MLX5_GET(cmd->in,
                               CREATE_MKEY_IN_translations_octword_actual_size);

    if (actual > mk->translations_octword_size) {
        return MLX5_SYND_BAD_PAS;
    }
    if (mk->access_mode == MLX5_MKC_ACCESS_MODE_KSM &&
        (mk->log_page_size < 12 || mk->log_page_size > 30)) {
        return MLX5_SYND_BAD_PAGE_SIZE;
    }
    if (cmd->inlen < MLX5_PAS_OFF + 16 * (uint64_t)actual) {
        return MLX5_SYND_INLEN;
    }
    if (!mlx5_mkey_xlt_reserve(mk, actual) ||
        !mlx5_mkey_klm_fits(mk, 0, cmd->in + MLX5_PAS_OFF, actual)) {
        return MLX5_SYND_BAD_PAS;
    }
    mlx5_mkey_klm_store(mk, 0, cmd->in + MLX5_PAS_OFF, actual);
    return 0;
}

void mlx5_cmd_create_mkey(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *mkc = cmd->in + CREATE_MKEY_MKC_OFF;
    uint32_t synd = 0, index;
    Mlx5Mkey *mk;
    Mlx5Pd *pd;

    if (!mlx5_cmd_in_ok(cmd, MLX5_PAS_OFF) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    /*
     * No UMEM objects (yet): mkey_umem_valid is accepted only where there is
     * nothing to load (DevX sets it on every MTT mkey it creates; indirect DevX
     * mkeys are created free).
     */
    if ((MLX5_GET(cmd->in, CREATE_MKEY_IN_pg_access) && !c->cfg.odp) ||
        /* signature: an indirect key with a 64-byte BSF */
        (MLX5_GET(mkc, MKC_bsf_en) &&
         (!MLX5_GET(c->cap_general_cur, CAP_sho) ||
          MLX5_GET(mkc, MKC_access_mode_1_0) != MLX5_MKC_ACCESS_MODE_KLMS ||
          MLX5_GET(mkc, MKC_access_mode_4_2) ||
          MLX5_GET(mkc, MKC_bsf_octword_size) != 4 ||
          MLX5_GET(mkc, MKC_crypto_en))) ||
        (!MLX5_GET(mkc, MKC_bsf_en) && MLX5_GET(mkc, MKC_crypto_en)) ||
        (MLX5_GET(cmd->in, CREATE_MKEY_IN_mkey_umem_valid) &&
         (!MLX5_GET(mkc, MKC_free) ||
          MLX5_GET(cmd->in,
                   CREATE_MKEY_IN_translations_octword_actual_size)))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    pd = mlx5_cmd_obj(cmd, &c->pds, MLX5_GET(mkc, MKC_pd));
    if (!pd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PD);
        return;
    }
    mk = g_new0(Mlx5Mkey, 1);
    mk->access_mode = (MLX5_GET(mkc, MKC_access_mode_4_2) << 2) |
                      MLX5_GET(mkc, MKC_access_mode_1_0);
    mk->free = MLX5_GET(mkc, MKC_free);
    mk->umr_en = MLX5_GET(mkc, MKC_umr_en);
    mk->a = MLX5_GET(mkc, MKC_a);
    mk->rw = MLX5_GET(mkc, MKC_rw);
    mk->rr = MLX5_GET(mkc, MKC_rr);
    mk->lw = MLX5_GET(mkc, MKC_lw);
    mk->lr = MLX5_GET(mkc, MKC_lr);
    mk->qpn = MLX5_GET(mkc, MKC_qpn);
    mk->length64 = MLX5_GET(mkc, MKC_length64);
    mk->en_rinval = MLX5_GET(mkc, MKC_en_rinval);
    mk->pdn = pd->pdn;
    mk->start_addr = MLX5_GET64(mkc, MKC_start_addr_OFF);
    mk->len = MLX5_GET64(mkc, MKC_len_OFF);
    mk->log_page_size = MLX5_GET(mkc, MKC_log_page_size);
    mk->translations_octword_size = MLX5_GET(mkc,
                                             MKC_translations_octword_size);
    if (MLX5_GET(mkc, MKC_bsf_en)) {
        /* not valid: no BSF until a UMR loads one */
        mk->sig = g_new0(Mlx5Sig, 1);
    }
    mk->sigerr_exp = MLX5_GET(mkc, MKC_expected_sigerr_count);

    switch (mk->access_mode) {
    case MLX5_MKC_ACCESS_MODE_PA:
        break;
    case MLX5_MKC_ACCESS_MODE_MEMIC:
        /* device memory, zero based: one allocated piece the caller may use */
        if (mk->length64 ||
            !mlx5_memic_map(c, cmd->uid, mk->start_addr, mk->len)) {
            synd = MLX5_SYND_BAD_MKEY_RANGE;
        } else {
            mk->memic = true;
            mk->memic_start = mk->start_addr;
            mk->memic_len = mk->len;
        }
        break;
    case MLX5_MKC_ACCESS_MODE_SW_ICM:
        /*
         * steering ICM, zero based (mlx5_sw_icm.c): one object's range, which
         * rdma-core's steering writes with RDMA WRITE and reads back
         */
        if (mk->length64 ||
            !mlx5_sw_icm_map(c, cmd->uid, mk->start_addr, mk->len)) {
            synd = MLX5_SYND_BAD_MKEY_RANGE;
        } else {
            mk->sw_icm = true;
            mk->memic_start = mk->start_addr;
            mk->memic_len = mk->len;
        }
        break;
    case MLX5_MKC_ACCESS_MODE_MTT:
        /* a free mkey has no translations yet: UMR would load them */
        if (!mk->free) {
            synd = mlx5_mkey_load_mtt(c, cmd, mk);
        } else if (mk->translations_octword_size > MLX5_MAX_PAS / 2) {
            synd = MLX5_SYND_BAD_PAS;
        }
        break;
    case MLX5_MKC_ACCESS_MODE_KLMS:
    case MLX5_MKC_ACCESS_MODE_KSM:
        /*
         * entries given with a free mkey count too: mlx5e's XSK receive queues
         * (frames smaller than a page) create their KLM mkey free, every page a
         * frame entry and a filler entry, and UMR then replaces them WQE by
         * WQE; a KLM's place in the address space depends on every entry
         * before it
         */
        if (mk->translations_octword_size >
            (mk->access_mode == MLX5_MKC_ACCESS_MODE_KSM ? MLX5_MAX_KSM
                                                         : MLX5_MAX_PAS)) {
            synd = MLX5_SYND_BAD_PAS;
            break;
        }
        if (mk->translations_octword_size > MLX5_MAX_PAS) {
            mk->ksm_set = g_hash_table_new_full(NULL, NULL, NULL, g_free);
        }
        if (!mk->free ||
                   MLX5_GET(cmd->in,
                            CREATE_MKEY_IN_translations_octword_actual_size)) {
            synd = mlx5_mkey_load_klm(c, cmd, mk);
        }
        break;
    default:
        synd = MLX5_SYND_BAD_MKEY_MODE;
        break;
    }
    if (!synd && mlx5_table_alloc(&c->mkeys, mk, &index)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        mlx5_mkey_discard(c, mk);
        return;
    }
    if (synd) {
        mlx5_cmd_fail(cmd,
                      synd == MLX5_SYND_INLEN ? MLX5_CMD_STAT_BAD_INP_LEN_ERR
                                              : MLX5_CMD_STAT_BAD_PARAM_ERR,
                      synd);
        mlx5_mkey_discard(c, mk);
        return;
    }
    mlx5_cmd_own(cmd, &c->mkeys, index);
    pd->refcount++;
    mk->index = index;
    mk->key = (index << 8) | MLX5_GET(mkc, MKC_mkey_7_0);
    MLX5_SET(cmd->out, MKEY_IN_mkey_index, index);
    trace_mlx5_mkey_create(mk->key, mk->access_mode, mk->pdn, mk->start_addr,
                           mk->len, mk->free);
}

void mlx5_cmd_destroy_mkey(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t index;
    Mlx5Mkey *mk;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    index = MLX5_GET(cmd->in, MKEY_IN_mkey_index);
    mk = mlx5_cmd_obj(cmd, &c->mkeys, index);
    if (!mk) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    mlx5_table_remove(&c->mkeys, index);
    trace_mlx5_obj_destroy("mkey", mk->key);
    mlx5_mkey_free(c, mk);
}

void mlx5_cmd_query_mkey(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *mkc = cmd->out + CREATE_MKEY_MKC_OFF;
    Mlx5Mkey *mk;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, 0x10 + MLX5_MKC_SIZE)) {
        return;
    }
    mk = mlx5_cmd_obj(cmd, &c->mkeys, MLX5_GET(cmd->in, MKEY_IN_mkey_index));
    if (!mk) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    MLX5_SET(mkc, MKC_free, mk->free);
    MLX5_SET(mkc, MKC_access_mode_4_2, mk->access_mode >> 2);
    MLX5_SET(mkc, MKC_access_mode_1_0, mk->access_mode & 3);
    MLX5_SET(mkc, MKC_umr_en, mk->umr_en);
    MLX5_SET(mkc, MKC_a, mk->a);
    MLX5_SET(mkc, MKC_rw, mk->rw);
    MLX5_SET(mkc, MKC_rr, mk->rr);
    MLX5_SET(mkc, MKC_lw, mk->lw);
    MLX5_SET(mkc, MKC_lr, mk->lr);
    MLX5_SET(mkc, MKC_qpn, mk->qpn);
    MLX5_SET(mkc, MKC_mkey_7_0, mk->key & 0xff);
    MLX5_SET(mkc, MKC_length64, mk->length64);
    MLX5_SET(mkc, MKC_en_rinval, mk->en_rinval);
    MLX5_SET(mkc, MKC_pd, mk->pdn);
    MLX5_SET64(mkc, MKC_start_addr_OFF, mk->start_addr);
    MLX5_SET64(mkc, MKC_len_OFF, mk->len);
    MLX5_SET(mkc, MKC_translations_octword_size, mk->translations_octword_size);
    MLX5_SET(mkc, MKC_log_page_size, mk->log_page_size);
    MLX5_SET(mkc, MKC_bsf_en, mk->sig && mk->sig->valid);
    MLX5_SET(mkc, MKC_bsf_octword_size, mk->sig ? 4 : 0);
    MLX5_SET(mkc, MKC_expected_sigerr_count, mk->sigerr_exp);
}

/*
 * QUERY_SPECIAL_CONTEXTS: the null mkey (cap null_mkey). The device has no
 * reserved lkey, dump-fill, terminate-scatter-list or repeated mkey to offer
 * (their caps are 0), so those fields read 0.
 */
void mlx5_cmd_query_special_contexts(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (!mlx5_cmd_out_ok(cmd, QUERY_SPECIAL_CONTEXTS_OUT_SIZE)) {
        return;
    }
    MLX5_SET(cmd->out, QUERY_SPECIAL_CONTEXTS_OUT_null_mkey, MLX5_NULL_MKEY);
}

/* Does @mk grant every right in @need? */
static bool mlx5_mkey_grants(const Mlx5Mkey *mk, unsigned need)
{
    return !(((need & MLX5_MKEY_LR) && !mk->lr) ||
             ((need & MLX5_MKEY_LW) && !mk->lw) ||
             ((need & MLX5_MKEY_RR) && !mk->rr) ||
             ((need & MLX5_MKEY_RW) && !mk->rw) ||
             ((need & MLX5_MKEY_A) && !mk->a));
}

static bool mlx5_mkey_covers(const Mlx5Mkey *mk, uint64_t va, uint64_t len)
{
    if (mk->sig && mk->sig->valid) {
        /*
         * wire offsets: the memory they reach (data and protection) must be in
         * range
         */
        uint64_t end;
        return va >= mk->start_addr &&
               mlx5_sig_mem_end(mk, va - mk->start_addr, len, &end) &&
               (mk->length64 || end <= mk->len);
    }
    if (mk->access_mode == MLX5_MKC_ACCESS_MODE_MEMIC ||
        mk->access_mode == MLX5_MKC_ACCESS_MODE_SW_ICM) {
        return va + len >= va && va + len <= mk->len;   /* zero based */
    }
    return mk->length64 || (va >= mk->start_addr && va + len >= va &&
                            va + len <= mk->start_addr + mk->len);
}

/*
 * Data path: validate an access of @len bytes at @va through @key: the key
 * exists with that variant and is not free, belongs to @pdn (UINT32_MAX: any
 * PD), grants @need and covers the range. Returns 0 or an MLX5_XLATE_* failure.
 */
int mlx5_mkey_check(Mlx5Core *c, uint32_t key, uint32_t pdn, unsigned need,
                    uint64_t va, uint64_t len, Mlx5Mkey **out)
{
    Mlx5Mkey *mk = mlx5_table_get(&c->mkeys, key >> 8);
    int why = 0;

    if (!mk || (mk->key & 0xff) != (key & 0xff) || mk->free ||
        (pdn != UINT32_MAX && mk->pdn != pdn)) {
        why = MLX5_XLATE_BAD_KEY;
    } else if (!mlx5_mkey_grants(mk, need) ||
               ((need & MLX5_MKEY_A) && mk->sig && mk->sig->valid)) {
        /* (no atomics through a signature key) */
        why = MLX5_XLATE_ACCESS;
    } else if (!mlx5_mkey_covers(mk, va, len)) {
        why = MLX5_XLATE_BOUNDS;
    } else if ((mk->access_mode > MLX5_MKC_ACCESS_MODE_KSM &&
                mk->access_mode != MLX5_MKC_ACCESS_MODE_MEMIC &&
                mk->access_mode != MLX5_MKC_ACCESS_MODE_SW_ICM) ||
               (mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT && !mk->mtt)) {
        why = MLX5_XLATE_BAD_KEY;
    }
    if (why) {
        trace_mlx5_err_mkey(key, va, len, why);
        return why;
    }
    if (out) {
        *out = mk;
    }
    return 0;
}

static int mlx5_mkey_xfer(Mlx5Core *c, const Mlx5Mkey *mk, uint64_t va,
                          uint8_t *b, uint64_t len, bool to_mem,
                          unsigned depth);

/*
 * One piece of an indirect mkey's range, through the mkey its entry names: that
 * mkey must be enabled, in the same PD, grant the local right for the direction
 * and cover the piece.
 */
static int mlx5_mkey_nested(Mlx5Core *c, const Mlx5Mkey *parent, uint32_t key,
                            uint64_t va, uint8_t *b, uint64_t len, bool to_mem,
                            unsigned depth)
{
    Mlx5Mkey *mk = mlx5_table_get(&c->mkeys, key >> 8);
    int why = 0;

    if (key == MLX5_NULL_MKEY) {
        /* nothing mapped here yet: a page fault on the key the access named */
        why = c->cfg.odp ? MLX5_XLATE_FAULT : MLX5_XLATE_BAD_KEY;
        trace_mlx5_mkey_null(parent->key, va, len, why);
        return why;
    }
    if (!mk || (mk->key & 0xff) != (key & 0xff) || mk->free ||
        mk->pdn != parent->pdn) {
        why = MLX5_XLATE_BAD_KEY;
    } else if (!mlx5_mkey_grants(mk, to_mem ? MLX5_MKEY_LW : MLX5_MKEY_LR)) {
        why = MLX5_XLATE_ACCESS;
    } else if (!mlx5_mkey_covers(mk, va, len)) {
        why = MLX5_XLATE_BOUNDS;
    } else if ((mk->access_mode == MLX5_MKC_ACCESS_MODE_KLMS ||
                mk->access_mode == MLX5_MKC_ACCESS_MODE_KSM) &&
               depth + 1 >= MLX5_MAX_INDIRECTION) {
        why = MLX5_XLATE_BAD_KEY;       /* nested deeper than max_indirection */
    }
    if (why) {
        trace_mlx5_err_mkey(key, va, len, why);
        return why;
    }
    return mlx5_mkey_xfer(c, mk, va, b, len, to_mem, depth + 1);
}

/*
 * KLMS with a repeat block: cycles of the entries' byte counts, each entry
 * striding.
 */
static int mlx5_mkey_xfer_repeat(Mlx5Core *c, const Mlx5Mkey *mk, uint64_t off,
                                 uint8_t *b, uint64_t len, bool to_mem,
                                 unsigned depth)
{
    const Mlx5Klm *h = &mk->klm[0];
    uint32_t per_cycle = h->bcount, nent = h->va & 0xffff, i;
    uint64_t repeat = h->va >> 32, sum = 0;

    if (nent == 0 || nent >= mk->nklm || per_cycle == 0) {
        return MLX5_XLATE_BAD_KEY;
    }
    for (i = 1; i <= nent; i++) {
        sum += mk->klm[i].bcount & 0xffff;
    }
    if (sum != per_cycle) {
        return MLX5_XLATE_BAD_KEY;
    }
    if (off + len < off || off + len > per_cycle * repeat) {
        return MLX5_XLATE_BOUNDS;
    }
    while (len) {
        uint64_t cyc = off / per_cycle, r = off % per_cycle, prefix = 0, n;
        const Mlx5Klm *e = NULL;
        int ret;

        for (i = 1; i <= nent; i++) {
            uint32_t bc = mk->klm[i].bcount & 0xffff;
            if (r < prefix + bc) {
                e = &mk->klm[i];
                break;
            }
            prefix += bc;
        }
        if (!e) {
            return MLX5_XLATE_BOUNDS;   /* not reached: sum == per_cycle */
        }
        n = MIN(len, (e->bcount & 0xffff) - (r - prefix));
        ret = mlx5_mkey_nested(c, mk, e->key,
                               e->va + cyc * (e->bcount >> 16) + (r - prefix),
                               b, n, to_mem, depth);
        if (ret) {
            return ret;
        }
        off += n;
        b += n;
        len -= n;
    }
    return 0;
}

/*
 * Move @len bytes at @va (already checked against @mk's range) through @mk's
 * translation.
 */
static int mlx5_mkey_xfer(Mlx5Core *c, const Mlx5Mkey *mk, uint64_t va,
                          uint8_t *b, uint64_t len, bool to_mem, unsigned depth)
{
    uint64_t off = va - mk->start_addr;
    uint32_t i;
    int r;

    switch (mk->access_mode) {
    case MLX5_MKC_ACCESS_MODE_PA:
        r = to_mem ? mlx5_dma_write(c, va, b, len)
                   : mlx5_dma_read(c, va, b, len);
        return r ? MLX5_XLATE_DMA : 0;
    case MLX5_MKC_ACCESS_MODE_MTT:
        while (len) {
            uint64_t ps = 1ull << mk->log_page_size;
            uint64_t idx = (va >> mk->log_page_size) -
                           (mk->start_addr >> mk->log_page_size);
            uint64_t in_page = va & (ps - 1);
            uint64_t n = MIN(len, ps - in_page);
            uint64_t pa;

            if (idx >= mk->nmtt) {
                return MLX5_XLATE_BOUNDS;
            }
            /*
             * with page faults (ODP), an entry is present for the direction its
             * bit says
             */
            if (c->cfg.odp &&
                !(mk->mtt[idx] & (to_mem ? MLX5_MTT_WR_EN : MLX5_MTT_RD_EN))) {
                return MLX5_XLATE_FAULT;
            }
            pa = (mk->mtt[idx] & ~(ps - 1)) + in_page;
            r = to_mem ? mlx5_dma_write(c, pa, b, n)
                       : mlx5_dma_read(c, pa, b, n);
            if (r) {
                return MLX5_XLATE_DMA;
            }
            va += n;
            b += n;
            len -= n;
        }
        return 0;
    case MLX5_MKC_ACCESS_MODE_KLMS: {
        uint64_t prefix = 0;

        if (mk->nklm && mk->klm[0].key == MLX5_STRIDE_BLOCK_OP) {
            return mlx5_mkey_xfer_repeat(c, mk, off, b, len, to_mem, depth);
        }
        for (i = 0; i < mk->nklm && len; i++) {
            const Mlx5Klm *e = &mk->klm[i];
            uint64_t in, n;

            if (off >= prefix + e->bcount) {
                /* before the range, or padding (bcount 0) */
                prefix += e->bcount;
                continue;
            }
            in = off - prefix;
            n = MIN(len, e->bcount - in);
            r = mlx5_mkey_nested(c, mk, e->key, e->va + in, b, n, to_mem,
                                 depth);
            if (r) {
                return r;
            }
            off += n;
            b += n;
            len -= n;
            prefix += e->bcount;
        }
        return len ? MLX5_XLATE_BOUNDS : 0;
    }
    case MLX5_MKC_ACCESS_MODE_KSM:
        while (len) {
            uint64_t es = 1ull << mk->log_page_size;
            uint64_t idx = off >> mk->log_page_size, in = off & (es - 1);
            uint64_t n = MIN(len, es - in);
            const Mlx5Klm *e = mlx5_mkey_klm(mk, idx);

            if (!e) {
                return MLX5_XLATE_BOUNDS;
            }
            r = mlx5_mkey_nested(c, mk, e->key, e->va + in, b, n, to_mem,
                                 depth);
            if (r) {
                return r;
            }
            off += n;
            b += n;
            len -= n;
        }
        return 0;
    case MLX5_MKC_ACCESS_MODE_MEMIC: {
        /*
         * only within the piece mapped at creation, whatever UMR did to
         * start_addr since
         */
        uint64_t at = mk->start_addr + va;

        if (at < mk->memic_start || at - mk->memic_start > mk->memic_len ||
            len > mk->memic_len - (at - mk->memic_start)) {
            return MLX5_XLATE_BOUNDS;
        }
        return mlx5_memic_rw(c, at, b, len, to_mem) ? MLX5_XLATE_DMA : 0;
    }
    case MLX5_MKC_ACCESS_MODE_SW_ICM: {
        uint64_t at = mk->start_addr + va;

        if (at < mk->memic_start || at - mk->memic_start > mk->memic_len ||
            len > mk->memic_len - (at - mk->memic_start)) {
            return MLX5_XLATE_BOUNDS;
        }
        return mlx5_icm_rw(c, at, b, len, to_mem) ? MLX5_XLATE_DMA : 0;
    }
    default:
        return MLX5_XLATE_BAD_KEY;
    }
}

/*
 * Move @len bytes between @buf and the memory behind @key at @va (checked as
 * above).
 */
int mlx5_mkey_copy(Mlx5Core *c, uint32_t key, uint32_t pdn, unsigned need,
                   uint64_t va, void *buf, uint64_t len, bool to_mem)
{
    Mlx5Mkey *mk;
    int r = mlx5_mkey_check(c, key, pdn, need, va, len, &mk);

    if (r || len == 0) {
        return r;
    }
    if (mk->sig && mk->sig->valid) {
        r = mlx5_sig_copy(c, mk, va - mk->start_addr, buf, len, to_mem);
    } else {
        r = mlx5_mkey_xfer(c, mk, va, buf, len, to_mem, 0);
    }
    if (r) {
        trace_mlx5_err_mkey(key, va, len, r);
    }
    return r;
}

/*
 * Move bytes at offset @off of @mk's own translation (signature keys: memory
 * offsets).
 */
int mlx5_mkey_raw(Mlx5Core *c, const Mlx5Mkey *mk, uint64_t off, uint8_t *b,
                  uint64_t len, bool to_mem)
{
    if (off + len < off || (!mk->length64 && off + len > mk->len)) {
        return MLX5_XLATE_BOUNDS;
    }
    return mlx5_mkey_xfer(c, mk, mk->start_addr + off, b, len, to_mem, 0);
}
