/*
 * mlx5 HCA core: UMR (user-mode memory registration) WQEs and memory-key
 * invalidation.
 *
 * A UMR WQE (opcode 0x25) rewrites a memory key from a send queue: it loads
 * translation entries (MTT, KLM, KSM or a repeat block), inline or through a
 * pointer, and overwrites the mkey-context fields its mkey mask selects. The
 * kernel's MR cache, rereg and fast registration (IB_WR_REG_MR,
 * IB_WR_LOCAL_INV) and libmlx5's memory windows, local invalidation and mlx5dv
 * mkey configuration all arrive here. Everything is validated before anything
 * changes, so a failing UMR leaves the mkey as it was.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_internal.h"
#include "trace.h"

/* UMR control segment (WQE byte 16) */
#define UMR_FLAGS           16
#define UMR_XLT_OCTOWORDS   20
#define UMR_XLT_OFFSET      22
#define UMR_MKEY_MASK       24
#define UMR_XLT_OFFSET_HI   32
#define UMR_MKEY_SEG        64
#define UMR_XLT             128

enum {
    UMR_F_CHECK_QPN = 1 << 3,
    UMR_F_XLT_OFFSET = 1 << 4,
    UMR_F_MUST_BE_FREE = 1 << 5,        /* kernel MLX5_UMR_CHECK_NOT_FREE */
    UMR_F_MUST_NOT_BE_FREE = 2 << 5,    /* kernel MLX5_UMR_CHECK_FREE */
    UMR_F_INLINE = 1 << 7,
};

enum {
    UMR_M_LEN = 1ull << 0,
    UMR_M_PAGE_SIZE = 1ull << 1,
    UMR_M_START_ADDR = 1ull << 6,
    UMR_M_PD = 1ull << 7,
    UMR_M_EN_RINVAL = 1ull << 8,
    UMR_M_EN_SIGERR = 1ull << 9,
    UMR_M_BSF_EN = 1ull << 12,
    UMR_M_KEY = 1ull << 13,
    UMR_M_QPN = 1ull << 14,
    UMR_M_LR = 1ull << 17,
    UMR_M_LW = 1ull << 18,
    UMR_M_RR = 1ull << 19,
    UMR_M_RW = 1ull << 20,
    UMR_M_A = 1ull << 21,
    UMR_M_SMALL_FENCE = 1ull << 23,
    UMR_M_RO_WRITE = 1ull << 25,
    UMR_M_FREE = 1ull << 29,
    UMR_M_PAGE_SIZE_5 = 1ull << 42,
    UMR_M_RO_READ = 1ull << 47,
};

/*
 * Mask bits this device applies or accepts (relaxed ordering and fences have no
 * effect).
 */
#define UMR_M_KNOWN                                                    \
    (UMR_M_LEN | UMR_M_PAGE_SIZE | UMR_M_START_ADDR | UMR_M_PD |       \
     UMR_M_EN_RINVAL | UMR_M_EN_SIGERR | UMR_M_BSF_EN | UMR_M_KEY |    \
     UMR_M_QPN | UMR_M_LR | UMR_M_LW | UMR_M_RR | UMR_M_RW | UMR_M_A | \
     UMR_M_SMALL_FENCE | UMR_M_RO_WRITE | UMR_M_FREE | UMR_M_RO_READ)

enum {
    UMR_OK = 0,
    UMR_ERR_WQE,            /* malformed WQE */
    /* no such mkey, UMR not enabled on it, or another PD */
    UMR_ERR_KEY,
    UMR_ERR_STATE,          /* free/not-free/QPN check failed */
    /* translation beyond the mkey's table, or unreadable */
    UMR_ERR_XLT,
    UMR_ERR_FIELD,          /* an mkey field value the device does not accept */
    /* a window bind on a window that is not free (type 2) */
    UMR_ERR_BIND,
};

static IbWcStatus umr_fail(Mlx5Qp *qp, uint32_t key, int why)
{
    trace_mlx5_err_umr(qp->qpn, key, why);
    return why == UMR_ERR_WQE ? IB_WC_LOC_QP_OP_ERR :
           why == UMR_ERR_BIND ? IB_WC_MW_BIND_ERR : IB_WC_LOC_PROT_ERR;
}

/*
 * Store @n16 octowords of translation entries from @src at octoword @off16 of
 * @mk.
 */
static void umr_store_xlt(Mlx5Mkey *mk, uint64_t off16, const uint8_t *src,
                          uint32_t n16)
{
    uint32_t i;

    if (mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT) {
        for (i = 0; i < n16 * 2; i++) {
            mk->mtt[off16 * 2 + i] = mlx5_ld64(src + 8 * i);
        }
        return;
    }
    mlx5_mkey_klm_store(mk, off16, src, n16);
}

IbWcStatus mlx5_umr_execute(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *wqe,
                            unsigned nbb)
{
    unsigned end = (wqe[7] & 0x3f) * MLX5_SEND_WQE_DS;
    uint32_t key = mlx5_ld32(wqe + 12);
    uint8_t flags = wqe[UMR_FLAGS];
    uint32_t n16 = mlx5_ld16(wqe + UMR_XLT_OCTOWORDS);
    uint64_t mask = mlx5_ld64(wqe + UMR_MKEY_MASK);
    uint64_t off16 = 0;
    const uint8_t *mkc = wqe + UMR_MKEY_SEG;
    g_autofree uint8_t *xlt_buf = NULL;
    const uint8_t *xlt = NULL;
    Mlx5Mkey *mk;
    Mlx5Pd *new_pd = NULL;
    Mlx5Sig sig;
    bool load_sig = false;
    uint8_t log_ps;

    trace_mlx5_umr(qp->qpn, key, flags, n16, mask);
    if (qp->st != MLX5_QP_ST_RC && qp->st != MLX5_QP_ST_UC &&
        qp->st != MLX5_QP_ST_XRC && qp->st != MLX5_QP_ST_DCI &&
        qp->st != MLX5_QP_ST_REG_UMR &&
        !(qp->st == MLX5_QP_ST_ETH_SQ && qp->reg_umr)) {
        return umr_fail(qp, key, UMR_ERR_WQE);
    }
    if (end < UMR_MKEY_SEG || end > nbb * MLX5_SEND_WQE_BB ||
        (mask && end < UMR_XLT) || (mask & ~UMR_M_KNOWN)) {
        return umr_fail(qp, key, UMR_ERR_WQE);
    }
    if (flags & UMR_F_XLT_OFFSET) {
        off16 = ((uint64_t)mlx5_ld32(wqe + UMR_XLT_OFFSET_HI) << 16) |
                mlx5_ld16(wqe + UMR_XLT_OFFSET);
    }

    /* the target: exists, UMR-enabled, and (on a user QP) in the QP's PD */
    mk = mlx5_table_get(&c->mkeys, key >> 8);
    if (!mk || !mk->umr_en ||
        (qp->st != MLX5_QP_ST_REG_UMR && mk->pdn != qp->pdn)) {
        return umr_fail(qp, key, UMR_ERR_KEY);
    }
    if (((flags & 0x60) == UMR_F_MUST_BE_FREE && !mk->free) ||
        ((flags & 0x60) == UMR_F_MUST_NOT_BE_FREE && mk->free) ||
        ((flags & UMR_F_CHECK_QPN) && mk->qpn != 0xffffff &&
         mk->qpn != qp->qpn)) {
        /*
         * a type-2 window bind (KLM, "must be free", binding to a QP) reports
         * MW_BIND_ERR
         */
        return umr_fail(qp, key,
                        mk->access_mode == MLX5_MKC_ACCESS_MODE_KLMS &&
                                (flags & 0x60) == UMR_F_MUST_BE_FREE &&
                                (mask & UMR_M_QPN)
                            ? UMR_ERR_BIND
                            : UMR_ERR_STATE);
    }

    /*
     * the translation entries: inline after the mkey segment, or through a data
     * segment
     */
    if (n16) {
        uint64_t unit = mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT ? 2 : 1;
        uint64_t max = mk->ksm_set ? MLX5_MAX_KSM : MLX5_MAX_PAS;

        if (mlx5_mkey_xlt_capacity(mk) == 0 ||
            off16 + n16 > mlx5_mkey_xlt_capacity(mk) / unit ||
            (off16 + n16) * unit > max) {
            return umr_fail(qp, key, UMR_ERR_XLT);
        }
        if (flags & UMR_F_INLINE) {
            if (UMR_XLT + n16 * 16 > end) {
                return umr_fail(qp, key, UMR_ERR_WQE);
            }
            xlt = wqe + UMR_XLT;
        } else {
            if (UMR_XLT + 16 > end) {
                return umr_fail(qp, key, UMR_ERR_WQE);
            }
            xlt_buf = g_malloc((size_t)n16 * 16);
            /*
             * the kernel's UMR QP has no PD (privileged): its pointer may use
             * any PD's key
             */
            if (mlx5_mkey_copy(c, mlx5_ld32(wqe + UMR_XLT + 4),
                               qp->st == MLX5_QP_ST_REG_UMR ? UINT32_MAX
                                                            : qp->pdn,
                               MLX5_MKEY_LR, mlx5_ld64(wqe + UMR_XLT + 8),
                               xlt_buf, (uint64_t)n16 * 16, false)) {
                return umr_fail(qp, key, UMR_ERR_XLT);
            }
            xlt = xlt_buf;
        }
        /* a sparse KSM table: room for the keys this names */
        if (!mlx5_mkey_klm_fits(mk, off16, xlt, n16)) {
            return umr_fail(qp, key, UMR_ERR_XLT);
        }
    }

    /* the new context values the mask selects */
    log_ps = (mask & UMR_M_PAGE_SIZE) ? MLX5_GET(mkc, MKC_log_page_size)
                                      : mk->log_page_size;
    if ((mask & UMR_M_PAGE_SIZE_5) && !(mask & UMR_M_PAGE_SIZE)) {
        return umr_fail(qp, key, UMR_ERR_FIELD);
    }
    if ((mask & UMR_M_PAGE_SIZE) &&
        (mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT ||
         mk->access_mode == MLX5_MKC_ACCESS_MODE_KSM) &&
        (log_ps < 12 || log_ps > 30)) {
        return umr_fail(qp, key, UMR_ERR_FIELD);
    }
    if (mask & UMR_M_PD) {
        new_pd = mlx5_table_get(&c->pds, MLX5_GET(mkc, MKC_pd));
        /* a user QP may move its mkey only to a PD of its own DevX context */
        if (!new_pd || (qp->st != MLX5_QP_ST_REG_UMR &&
                        mlx5_table_owner(&c->pds, new_pd->pdn) != qp->uid)) {
            return umr_fail(qp, key, UMR_ERR_FIELD);
        }
    }
    if ((mask & UMR_M_BSF_EN) && MLX5_GET(mkc, MKC_bsf_en)) {
        /*
         * a signature key's BSF: 4 octowords after the inline translation
         * entries
         */
        unsigned at = UMR_XLT + n16 * 16;
        if (!mk->sig || !(flags & UMR_F_INLINE) || (flags & UMR_F_XLT_OFFSET) ||
            mlx5_ld16(wqe + UMR_XLT_OFFSET) != 4 || at + 64 > end ||
            mlx5_sig_parse_bsf(wqe + at, &sig)) {
            return umr_fail(qp, key, UMR_ERR_FIELD);
        }
        load_sig = true;
    }

    /* commit */
    if (load_sig) {
        *mk->sig = sig;
        trace_mlx5_sig_bsf(mk->key, sig.block, sig.mem.type, sig.wire.type,
                           sig.check_mask, sig.copy_mask);
    } else if ((mask & UMR_M_BSF_EN) && mk->sig) {
        mk->sig->valid = false;         /* bsf_en 0: no signature any more */
    }
    if (mask & UMR_M_EN_SIGERR) {
        mk->sigerr_exp = MLX5_GET(mkc, MKC_expected_sigerr_count);
    }
    if (n16) {
        uint64_t unit = mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT ? 2 : 1;
        mlx5_mkey_xlt_reserve(mk, (off16 + n16) * unit);
        umr_store_xlt(mk, off16, xlt, n16);
    }
    if (mask & UMR_M_LEN) {
        mk->len = MLX5_GET64(mkc, MKC_len_OFF);
        mk->length64 = MLX5_GET(mkc, MKC_length64);
    }
    if (mask & UMR_M_PAGE_SIZE) {
        mk->log_page_size = log_ps;
    }
    if (mask & UMR_M_START_ADDR) {
        mk->start_addr = MLX5_GET64(mkc, MKC_start_addr_OFF);
    }
    if (new_pd && new_pd->pdn != mk->pdn) {
        Mlx5Pd *old = mlx5_table_get(&c->pds, mk->pdn);
        if (old) {
            mlx5_ref_put(&old->refcount);
        }
        new_pd->refcount++;
        mk->pdn = new_pd->pdn;
    }
    if (mask & UMR_M_EN_RINVAL) {
        mk->en_rinval = MLX5_GET(mkc, MKC_en_rinval);
    }
    if (mask & UMR_M_KEY) {
        mk->key = (mk->index << 8) | MLX5_GET(mkc, MKC_mkey_7_0);
    }
    if (mask & UMR_M_QPN) {
        mk->qpn = MLX5_GET(mkc, MKC_qpn);
    }
    if (mask & UMR_M_LR) {
        mk->lr = MLX5_GET(mkc, MKC_lr);
    }
    if (mask & UMR_M_LW) {
        mk->lw = MLX5_GET(mkc, MKC_lw);
    }
    if (mask & UMR_M_RR) {
        mk->rr = MLX5_GET(mkc, MKC_rr);
    }
    if (mask & UMR_M_RW) {
        mk->rw = MLX5_GET(mkc, MKC_rw);
    }
    if (mask & UMR_M_A) {
        mk->a = MLX5_GET(mkc, MKC_a);
    }
    if (mask & UMR_M_FREE) {
        mk->free = MLX5_GET(mkc, MKC_free);
    }
    trace_mlx5_umr_done(mk->key, mk->free, mk->pdn, mk->start_addr, mk->len);
    return IB_WC_SUCCESS;
}

/*
 * Remote invalidation (SEND with Invalidate) of @rkey arriving on @qp: the key
 * must be an enabled mkey of PD @pdn (the QP's, or an XRC target's SRQ's) that
 * allows remote invalidation (FRWR and type-2 windows; not a plain MR) and, if
 * bound to a QP, bound to this one.
 */
IbWcStatus mlx5_mkey_invalidate(Mlx5Core *c, Mlx5Qp *qp, uint32_t pdn,
                                uint32_t rkey)
{
    Mlx5Mkey *mk = mlx5_table_get(&c->mkeys, rkey >> 8);

    if (!mk || (mk->key & 0xff) != (rkey & 0xff) || mk->free ||
        !mk->en_rinval || mk->pdn != pdn ||
        (mk->qpn != 0xffffff && mk->qpn != qp->qpn)) {
        trace_mlx5_err_mkey(rkey, 0, 0, MLX5_XLATE_BAD_KEY);
        return IB_WC_REM_INV_REQ_ERR;
    }
    mk->free = true;
    trace_mlx5_mkey_invalidate(qp->qpn, rkey);
    return IB_WC_SUCCESS;
}
