/*
 * mlx5 HCA core: CQE compression (PRM "CQE Compression", the basic layout).
 *
 * A CQ created with cqe_comp_en gathers the receive CQEs of one burst that
 * differ only in what a mini CQE carries (byte count, and the RSS hash or the
 * checksum and stride index, as mini_cqe_res_format says) and whose WQE
 * counters follow each other. Two or more of them are written as a session:
 *
 *   slot pi        the title: the first CQE, format 3 in op_own, byte_cnt = the
 *                  number of CQEs in the session;
 *   slot pi + 1    mini CQEs 0..7 (8 bytes each), pi + 8 the next eight, then
 *                  pi + 16, ...
 *
 * and the session takes as many slots as it has CQEs; the slots between the
 * arrays are left as they were (the driver rewrites their owner bits: mlx5e's
 * mlx5e_cqes_update_owner, DPDK's MLX5_CQE_INVALIDATE). The title is written
 * last, its owner byte after everything else, so a driver that sees it sees
 * the whole session. A lone CQE is written as it is.
 *
 * A burst is what arrives before the core runs again: a session is written at
 * the end of mlx5_core_run (which the first CQE of a session asks for), and
 * before any other CQE, a query or a resize of its CQ, so the ring keeps the
 * order in which things completed. A session never holds more CQEs than the
 * CQ has free slots, nor more than MLX5_CQE_COMP_MAX (cqe_compression_max_num),
 * and never crosses the end of the ring (DPDK's vectorized receive reads a
 * session's mini CQE arrays and fills its buffers without wrapping).
 * The timestamp of a session is its title's, as on hardware.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

typedef struct Mlx5CqComp {
    uint8_t fmt;                /* mini_cqe_res_format */
    uint16_t n;                 /* CQEs gathered: the title and n - 1 more */
    uint16_t next_wc;           /* the wqe_counter the next one must have */
    bool striding;
    bool listed;                /* its CQN is in c->comp_pending */
    uint8_t title[MLX5_CQE_SIZE];
    uint8_t mini[MLX5_CQE_COMP_MAX][MLX5_MINI_CQE_SIZE];
} Mlx5CqComp;

/* What a mini CQE carries, and the timestamp: a session may differ there */
static const struct {
    uint8_t off, len;
} mlx5_cqe_comp_free_fields[] = {
    { 0x0c, 4 },                /* rss_hash_result */
    { 0x14, 2 },                /* check_sum */
    { MLX5_CQE_byte_cnt, 4 },
    { MLX5_CQE_timestamp, 8 },
    { MLX5_CQE_wqe_counter, 2 },
};

uint32_t mlx5_cqe_comp_create(Mlx5Cq *cq, const uint8_t *cqc)
{
    uint8_t fmt = MLX5_GET(cqc, CQC_mini_cqe_res_format);

    if (!MLX5_GET(cqc, CQC_cqe_comp_en)) {
        return 0;
    }
    /*
     * 64- and 128-byte CQEs (cqe_compression_128: the title and each mini CQE
     * array in a slot's second half, where a 128-byte slot has its CQE), the
     * basic layout only (enhanced_cqe_compression = 0), no flow-tag or
     * L3/L4-header mini CQEs (mini_cqe_resp_flow_tag, mini_cqe_resp_l3_l4_tag
     * = 0), as a ConnectX-5
     */
    if (MLX5_GET(cqc, CQC_cqe_comp_layout) ||
        MLX5_GET(cqc, CQC_mini_cqe_res_format_ext) ||
        fmt == MLX5_MINI_CQE_FTAG_STRIDX) {
        return MLX5_SYND_UNSUPPORTED;
    }
    cq->comp = g_new0(Mlx5CqComp, 1);
    cq->comp->fmt = fmt;
    return 0;
}

void mlx5_cqe_comp_free(Mlx5Core *c, Mlx5Cq *cq)
{
    g_free(cq->comp);
    cq->comp = NULL;
}

void mlx5_cqe_comp_query(const Mlx5Cq *cq, uint8_t *cqc)
{
    if (cq->comp) {
        MLX5_SET(cqc, CQC_cqe_comp_en, 1);
        MLX5_SET(cqc, CQC_mini_cqe_res_format, cq->comp->fmt);
    }
}

/* The mini CQE of @cqe in format @fmt. */
static void mlx5_cqe_comp_mini(uint8_t fmt, const uint8_t *cqe, uint8_t *mini)
{
    if (fmt == MLX5_MINI_CQE_HASH) {
        memcpy(mini, cqe + MLX5_CQE_rss_hash_result, 4);
    } else {
        memcpy(mini, cqe + MLX5_CQE_check_sum, 2);
        if (fmt == MLX5_MINI_CQE_CSUM_STRIDX) {
            memcpy(mini + 2, cqe + MLX5_CQE_wqe_counter, 2);
        } else {
            mini[2] = mini[3] = 0;
        }
    }
    memcpy(mini + 4, cqe + MLX5_CQE_byte_cnt, 4);
}

/* The wqe_counter of the CQE after @cqe in the same receive queue. */
static uint16_t mlx5_cqe_comp_next_wc(const uint8_t *cqe, bool striding)
{
    uint16_t wc = mlx5_ld16(cqe + MLX5_CQE_wqe_counter);

    /* striding: the next stride, after those this one consumed */
    return wc + (striding ? mlx5_ld16(cqe + MLX5_CQE_byte_cnt) & 0x7fff : 1);
}

/* May @cqe join the session of @s? */
static bool mlx5_cqe_comp_fits(const Mlx5CqComp *s, const uint8_t *cqe,
                               bool striding)
{
    unsigned i, from = 0;

    if (s->striding != striding ||
        mlx5_ld16(cqe + MLX5_CQE_wqe_counter) != s->next_wc) {
        return false;
    }
    for (i = 0; i < G_N_ELEMENTS(mlx5_cqe_comp_free_fields); i++) {
        unsigned off = mlx5_cqe_comp_free_fields[i].off;
        if (memcmp(s->title + from, cqe + from, off - from)) {
            return false;
        }
        from = off + mlx5_cqe_comp_free_fields[i].len;
    }
    /* op_own but the owner bit */
    return !memcmp(s->title + from, cqe + from, MLX5_CQE_op_own - from) &&
           !((s->title[MLX5_CQE_op_own] ^ cqe[MLX5_CQE_op_own]) & ~1);
}

/*
 * Write @len bytes at byte @off of the 64-byte CQE of the slot of producer
 * count @pi (a 128-byte slot's second half; a padded one's first half gets
 * zeros with the write at 0).
 */
static int mlx5_cqe_comp_slot(Mlx5Core *c, Mlx5Cq *cq, uint32_t pi,
                              unsigned off, const uint8_t *data, unsigned len)
{
    static const uint8_t zeros[64];
    uint32_t nent = 1u << cq->log_cq_size, size = mlx5_cqe_size(cq);
    uint64_t at = (uint64_t)(pi & (nent - 1)) * size + size - 64;

    if (cq->cqe_sz == MLX5_CQE_SZ_128_PAD && !off &&
        mlx5_buf_write(c, &cq->buf, at - 64, zeros, sizeof(zeros))) {
        return -1;
    }
    return mlx5_buf_write(c, &cq->buf, at + off, data, len);
}

void mlx5_cqe_comp_flush(Mlx5Core *c, Mlx5Cq *cq)
{
    Mlx5CqComp *s = cq->comp;
    uint8_t *t;
    unsigned n, i;

    if (!s || !s->n) {
        return;
    }
    n = s->n;
    s->n = 0;
    t = s->title;
    if (n == 1) {
        mlx5_cq_write(c, cq, t, false);
        return;
    }
    /* the arrays: minis 0..7 at pi + 1, then 8 per slot from pi + 8 */
    for (i = 0; i < n; i += MLX5_MINI_CQE_ARRAY) {
        uint8_t arr[MLX5_CQE_SIZE] = { 0 };
        unsigned k = MIN(n - i, MLX5_MINI_CQE_ARRAY);

        memcpy(arr, s->mini[i], k * MLX5_MINI_CQE_SIZE);
        if (mlx5_cqe_comp_slot(c, cq, cq->pi + (i ? i : 1), 0, arr,
                               sizeof(arr))) {
            return;
        }
    }
    mlx5_st32(t + MLX5_CQE_byte_cnt, n);
    t[MLX5_CQE_op_own] = (t[MLX5_CQE_op_own] & 0xf0) |
                         MLX5_CQE_FORMAT_COMPRESSED << MLX5_CQE_FORMAT_SHIFT |
                         ((cq->pi >> cq->log_cq_size) & 1);
    if (mlx5_cqe_comp_slot(c, cq, cq->pi, 0, t, MLX5_CQE_op_own) ||
        mlx5_cqe_comp_slot(c, cq, cq->pi, MLX5_CQE_op_own,
                           &t[MLX5_CQE_op_own], 1)) {
        return;
    }
    trace_mlx5_cqe_comp_session(cq->cqn, cq->pi, n, s->fmt);
    cq->pi = (cq->pi + n) & 0xffffff;
    mlx5_cq_notify(c, cq, false);
}

void mlx5_cqe_comp_flush_all(Mlx5Core *c)
{
    guint i;

    for (i = 0; i < c->comp_pending->len; i++) {
        uint32_t cqn = g_array_index(c->comp_pending, uint32_t, i);
        Mlx5Cq *cq = mlx5_table_get(&c->cqs, cqn);

        if (cq && cq->comp) {
            cq->comp->listed = false;
            mlx5_cqe_comp_flush(c, cq);
        }
    }
    g_array_set_size(c->comp_pending, 0);
}

void mlx5_cqe_post_rx(Mlx5Core *c, uint32_t cqn, uint8_t *cqe, bool striding)
{
    Mlx5Cq *cq = mlx5_table_get(&c->cqs, cqn);
    Mlx5CqComp *s;
    int64_t used;
    uint32_t nent;

    if (!cq) {
        return;
    }
    nent = 1u << cq->log_cq_size;
    mlx5_st64(cqe + MLX5_CQE_timestamp, c->ops->now_ns(c->opaque));
    s = cq->comp;
    if (!s) {
        mlx5_cq_post(c, cq, cqe, false);
        return;
    }
    if (s->n) {
        /*
         * it agrees with the session, which stays short of the ring's end;
         * then (the doorbell record read last) the ring has room for it
         */
        used = s->n < MLX5_CQE_COMP_MAX &&
               (cq->pi & (nent - 1)) + s->n + 1 <= nent &&
               mlx5_cqe_comp_fits(s, cqe, striding) ? mlx5_cq_used(c, cq) : -1;
        if (used >= 0 && (cq->oi || used + s->n + 1 <= nent)) {
            mlx5_cqe_comp_mini(s->fmt, cqe, s->mini[s->n++]);
            s->next_wc = mlx5_cqe_comp_next_wc(cqe, striding);
            return;
        }
        mlx5_cqe_comp_flush(c, cq);
    }
    /* the first of a session: it waits for the end of the burst */
    memcpy(s->title, cqe, MLX5_CQE_SIZE);
    mlx5_cqe_comp_mini(s->fmt, cqe, s->mini[0]);
    s->n = 1;
    s->striding = striding;
    s->next_wc = mlx5_cqe_comp_next_wc(cqe, striding);
    if (!s->listed) {
        s->listed = true;
        g_array_append_val(c->comp_pending, cqn);
        c->ops->kick(c->opaque);
    }
}
