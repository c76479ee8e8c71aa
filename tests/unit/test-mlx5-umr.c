/*
 * Unit tests of UMR and indirect memory keys: UMR WQEs posted the way the kernel (MR cache,
 * fast registration, invalidation) and libmlx5 (mkey configure, layout list, interleaved,
 * local invalidate) post them, translation through MTT, KLM, KSM and repeat blocks, nesting
 * limits, remote invalidation, and hostile UMR input.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5_internal.h"

#include "mlx5-testqp.h"

#define SYND_LOCAL_PROT 0x04

static void pattern(TDrv *d, uint64_t pa, size_t len, unsigned seed)
{
    g_autofree uint8_t *b = g_malloc(len);

    for (size_t i = 0; i < len; i++) {
        b[i] = (uint8_t)(i * 7 + seed + (i >> 8));
    }
    fake_write(d->h, pa, b, len);
}

static uint8_t byte_at(TDrv *d, uint64_t pa)
{
    uint8_t v;

    fake_read(d->h, pa, &v, 1);
    return v;
}

static void mkc_access(uint8_t *mkc, bool remote)
{
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_rr, remote);
    MLX5_SET(mkc, MKC_rw, remote);
    MLX5_SET(mkc, MKC_a, remote);
}

/* One RDMA op from qa on a to a key of b; returns the requester CQE opcode nibble. */
static unsigned rdma_op(TQp *qa, TQp *qb, uint8_t op, uint64_t raddr, uint32_t rkey,
                        uint64_t laddr, uint32_t len)
{
    uint8_t segs[32], cqe[64];

    raddr_seg(segs, raddr, rkey);
    data_seg(segs + 16, len, qa->key, laddr);
    tqp_post_send(qa, op, 0, segs, 2, true, true);
    run_pair(qa->d, qb->d, 5000);
    g_assert_true(tqp_poll(qa, cqe));
    return cqe[63] >> 4;
}

/*
 * The kernel's MR cache: a free MTT mkey in the UMR PD is enabled by UMR WQEs on a REG_UMR
 * QP, its MTTs loaded through a pointer in two chunks (the second at an octoword offset),
 * then written remotely, then revoked (FREE + PD back to the UMR PD).
 */
static void test_mr_cache_flow(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb, qu;
    uint32_t upd = tdrv_alloc_pd(b), mk;
    const uint64_t iova = 0x7f1234560000ull;
    uint64_t pages = fake_alloc(b->h, 16 * 4096, 4096), mtt_pa = fake_alloc(b->h, 4096, 64);
    uint8_t mtts[16 * 8];
    Umr u = { 0 };
    int i;

    tqp_rc_pair(&qa, a, &qb, b);
    tqp_create_on(&qu, b, MLX5_QP_ST_REG_UMR, 3, 0, upd);
    tqp_connect(&qu, 0, 0, 0);

    /* the kernel pads the MTTs of its smallest cache mkeys (4 entries) to 64 bytes */
    mk = create_free_umr_mkey(b, upd, MLX5_MKC_ACCESS_MODE_MTT, 2, 0x11);
    memset(&u, 0, sizeof(u));
    u.key = mk;
    u.flags = F_MUST_BE_FREE;
    u.n16 = 4;
    u.ptr_lkey = qu.key;
    u.ptr_addr = mtt_pa;
    g_assert_cmpuint(umr_run(&qu, &u, NULL), ==, MLX5_CQE_REQ);
    memset(&u, 0, sizeof(u));
    mk = create_free_umr_mkey(b, upd, MLX5_MKC_ACCESS_MODE_MTT, 8, 0x11);    /* 16 MTTs */
    /* the MR's 8 pages, scattered in reverse order, with the PRESENT bits the kernel sets */
    for (i = 0; i < 8; i++) {
        mlx5_st64(mtts + 8 * i, (pages + 4096ull * (14 - 2 * i)) | 3);
    }
    fake_write(b->h, mtt_pa, mtts, sizeof(mtts));
    /* chunk 1: 4 MTTs (2 octowords), translation only, "must be free" */
    u.key = (mk & ~0xffu) | 0x22;
    u.flags = F_MUST_BE_FREE;
    u.n16 = 2;
    u.ptr_lkey = qu.key;
    u.ptr_addr = mtt_pa;
    MLX5_SET64(u.mkc, MKC_start_addr_OFF, 0xdead);         /* unmasked: ignored */
    g_assert_cmpuint(umr_run(&qu, &u, NULL), ==, MLX5_CQE_REQ);
    g_assert_cmpint(query_free(b, mk), ==, 1);
    /* chunk 2 at offset 2 octowords: enable with key, access, PD, range, page size */
    u.off16 = 2;
    u.ptr_addr = mtt_pa + 32;
    u.mask = M_KEY | M_FREE | M_ACCESS | M_PD | M_LEN | M_PAGE_SIZE | M_START;
    mkc_access(u.mkc, true);
    MLX5_SET(u.mkc, MKC_mkey_7_0, 0x22);
    MLX5_SET(u.mkc, MKC_pd, qb.pd);
    MLX5_SET(u.mkc, MKC_qpn, 0xffffff);
    MLX5_SET64(u.mkc, MKC_start_addr_OFF, iova + 0x100);
    MLX5_SET64(u.mkc, MKC_len_OFF, 8 * 4096 - 0x100);
    MLX5_SET(u.mkc, MKC_log_page_size, 12);
    g_assert_cmpuint(umr_run(&qu, &u, NULL), ==, MLX5_CQE_REQ);
    g_assert_cmpint(query_free(b, mk), ==, 0);

    /* a remote write lands page by page where the MTTs say; the old variant is dead */
    pattern(a, qa.mem, 3 * 4096, 5);
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_WRITE, iova + 0x2800, u.key,
                             qa.mem, 3 * 4096), ==, MLX5_CQE_REQ);
    for (i = 0; i < 3 * 4096; i += 509) {
        uint64_t va = 0x2800 + i;
        uint64_t pa = pages + 4096ull * (14 - 2 * (va >> 12)) + (va & 4095);
        g_assert_cmpuint(byte_at(b, pa), ==, byte_at(a, qa.mem + i));
    }
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_READ, iova + 0x100, mk, qa.mem, 8), ==,
                     MLX5_CQE_REQ_ERR);
    /* the failed read moved qa to error: a fresh pair for the rest */
    tqp_rc_pair(&qa, a, &qb, b);

    /* rereg access: drop remote write ("must not be free", access + PD) */
    memset(&u, 0, sizeof(u));
    u.key = (mk & ~0xffu) | 0x22;
    u.flags = F_MUST_NOT_BE_FREE | F_INLINE;
    u.mask = M_ACCESS | M_PD;
    mkc_access(u.mkc, false);
    MLX5_SET(u.mkc, MKC_rr, 1);
    MLX5_SET(u.mkc, MKC_pd, qb.pd);
    g_assert_cmpuint(umr_run(&qu, &u, NULL), ==, MLX5_CQE_REQ);
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_READ, iova + 0x1000, u.key,
                             qa.mem, 64), ==, MLX5_CQE_REQ);
    g_assert_cmpuint(byte_at(a, qa.mem + 3), ==, byte_at(b, pages + 4096 * 12 + 3));

    /* revoke: free, PD back to the UMR PD; the user PD can go */
    memset(&u, 0, sizeof(u));
    u.key = (mk & ~0xffu) | 0x22;
    u.flags = F_INLINE;
    u.mask = M_PD | M_FREE;
    MLX5_SET(u.mkc, MKC_free, 1);
    MLX5_SET(u.mkc, MKC_pd, upd);
    g_assert_cmpuint(umr_run(&qu, &u, NULL), ==, MLX5_CQE_REQ);
    g_assert_cmpint(query_free(b, mk), ==, 1);
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_READ, iova + 0x1000, u.key,
                             qa.mem, 64), ==, MLX5_CQE_REQ_ERR);
    tdrv_free(a);
    tdrv_free(b);
}

/*
 * libmlx5's mlx5dv_wr_mr_list and mlx5dv_wr_mr_interleaved on a user RC QP: a KLMS mkey
 * (zero based) over pieces of two MRs, and a repeat block; a send gathers through the first,
 * a remote write scatters through the second.
 */
static void test_klm_and_interleaved(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint32_t ind, rep, m1, m2;
    uint8_t x[8 * 16] = { 0 }, cqe[64], segs[16];
    Umr u = { 0 };
    unsigned i;

    tqp_rc_pair(&qa, a, &qb, b);
    m1 = create_mtt_mkey(a, qa.pd, 0x10000, 0x4000, qa.mem, false);
    m2 = create_mtt_mkey(a, qa.pd, 0x90000, 0x4000, qa.mem + 0x8000, false);
    pattern(a, qa.mem, 0x10000, 1);

    /* layout list: 100 B of m1 at 0x10010, 5000 B of m2 at 0x90fff, 1 B of m1 at 0x13fff */
    ind = create_free_umr_mkey(a, qa.pd, MLX5_MKC_ACCESS_MODE_KLMS, 4, 0x11);
    klm(x, 100, m1, 0x10010);
    klm(x + 16, 5000, m2, 0x90fff);
    klm(x + 32, 1, m1, 0x13fff);
    u.key = ind;
    u.flags = F_INLINE;
    u.mask = M_FREE | M_KEY | M_LEN | M_LW | M_RR | M_RW | M_A;
    MLX5_SET(u.mkc, MKC_qpn, 0xffffff);
    MLX5_SET(u.mkc, MKC_mkey_7_0, 0x11);
    MLX5_SET(u.mkc, MKC_lw, 1);
    MLX5_SET64(u.mkc, MKC_len_OFF, 5101);
    u.xlt = x;
    u.n16 = 4;
    g_assert_cmpuint(umr_run(&qa, &u, NULL), ==, MLX5_CQE_REQ);
    /* the indirect key kept lr from CREATE_MKEY (LR not in the mask): send through it */
    tqp_post_recv(&qb, 8000, qb.mem);
    data_seg(segs, 5101, ind, 0);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 5000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 5101);
    for (i = 0; i < 5101; i++) {
        uint64_t src = i < 100 ? qa.mem + 0x10 : i < 5100 ? qa.mem + 0x8000 + 0xfff - 100
                                                          : qa.mem + 0x3fff - 5100;
        g_assert_cmpuint(byte_at(b, qb.mem + i), ==, byte_at(a, src + i));
    }
    /* beyond the layout's length: local length/protection error, nothing sent */
    data_seg(segs, 10, ind, 5095);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 5000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    tdrv_free(a);
    tdrv_free(b);

    /* interleaved on b's side: 3 cycles of {4 B of m1 stride 16, 2 B of m2 stride 8} */
    a = new_node(1);
    b = new_node(2);
    tqp_rc_pair(&qa, a, &qb, b);
    m1 = create_mtt_mkey(b, qb.pd, 0x10000, 0x4000, qb.mem, false);
    m2 = create_mtt_mkey(b, qb.pd, 0x90000, 0x4000, qb.mem + 0x8000, false);
    rep = create_free_umr_mkey(b, qb.pd, MLX5_MKC_ACCESS_MODE_KLMS, 4, 0x11);
    memset(x, 0, sizeof(x));
    mlx5_st32(x, 6);                    /* bytes per cycle */
    mlx5_st32(x + 4, MLX5_STRIDE_BLOCK_OP);
    mlx5_st32(x + 8, 3);                /* repeat count */
    mlx5_st16(x + 14, 2);               /* entries */
    mlx5_st16(x + 16, 16);
    mlx5_st16(x + 18, 4);
    mlx5_st32(x + 20, m1);
    mlx5_st64(x + 24, 0x10100);
    mlx5_st16(x + 32, 8);
    mlx5_st16(x + 34, 2);
    mlx5_st32(x + 36, m2);
    mlx5_st64(x + 40, 0x90200);
    memset(&u, 0, sizeof(u));
    u.key = rep;
    u.flags = F_INLINE;
    u.mask = M_FREE | M_KEY | M_LEN | M_LW | M_RR | M_RW | M_A;
    MLX5_SET(u.mkc, MKC_qpn, 0xffffff);
    MLX5_SET(u.mkc, MKC_mkey_7_0, 0x11);
    mkc_access(u.mkc, true);
    MLX5_SET64(u.mkc, MKC_len_OFF, 18);
    u.xlt = x;
    u.n16 = 4;
    g_assert_cmpuint(umr_run(&qb, &u, NULL), ==, MLX5_CQE_REQ);
    for (i = 0; i < 18; i++) {
        uint8_t v = 0xa0 + i;
        fake_write(a->h, qa.mem + i, &v, 1);
    }
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_WRITE, 0, rep, qa.mem, 18), ==,
                     MLX5_CQE_REQ);
    for (i = 0; i < 18; i++) {
        unsigned cyc = i / 6, r = i % 6;
        uint64_t pa = r < 4 ? qb.mem + 0x100 + cyc * 16 + r : qb.mem + 0x8200 + cyc * 8 + r - 4;
        g_assert_cmpuint(byte_at(b, pa), ==, 0xa0 + i);
    }
    /* the bytes between the strides were not touched */
    g_assert_cmpuint(byte_at(b, qb.mem + 0x104), ==, 0);
    g_assert_cmpuint(byte_at(b, qb.mem + 0x8202), ==, 0);
    /* past repeat_count * bytes-per-cycle: the responder refuses */
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_WRITE, 12, rep, qa.mem, 7), ==,
                     MLX5_CQE_REQ_ERR);
    tdrv_free(a);
    tdrv_free(b);
}

/* KSM entries of 4 KiB, and a chain of indirect mkeys cut at max_indirection. */
static void test_ksm_and_nesting(void)
{
    TDrv *a = new_node(1);
    TQp q;
    uint32_t ksm, keys[MLX5_MAX_INDIRECTION + 1], m;
    uint8_t x[16 * 4] = { 0 };
    uint8_t buf[8192];
    Umr u = { 0 };
    int i;

    tqp_create(&q, a, MLX5_QP_ST_RC, 1);
    tqp_connect(&q, a->c->cfg.lid, q.qpn, 0);
    m = create_mtt_mkey(a, q.pd, 0x100000, 0x10000, q.mem, false);
    pattern(a, q.mem, 0x10000, 3);
    ksm = create_free_umr_mkey(a, q.pd, MLX5_MKC_ACCESS_MODE_KSM, 4, 0x11);
    klm(x, 0, m, 0x100000 + 0x3000);    /* entity 0 -> page 3 */
    klm(x + 16, 0, m, 0x100000 + 0x1000);   /* entity 1 -> page 1 */
    u.key = ksm;
    u.flags = F_INLINE;
    u.mask = M_FREE | M_LEN | M_PAGE_SIZE | M_LW;
    MLX5_SET(u.mkc, MKC_lw, 1);
    MLX5_SET(u.mkc, MKC_log_page_size, 12);
    MLX5_SET64(u.mkc, MKC_len_OFF, 8192);
    u.xlt = x;
    u.n16 = 4;
    g_assert_cmpuint(umr_run(&q, &u, NULL), ==, MLX5_CQE_REQ);
    /* 8 KiB written through the KSM key land in pages 3 and 1 of m */
    pattern(a, q.mem + 0x20000, 8192, 9);
    fake_read(a->h, q.mem + 0x20000, buf, sizeof(buf));
    g_assert_cmpint(mlx5_mkey_copy(a->c, ksm, q.pd, MLX5_MKEY_LW, 0, buf, 8192, true), ==, 0);
    g_assert_cmpuint(byte_at(a, q.mem + 0x3000 + 17), ==, buf[17]);
    g_assert_cmpuint(byte_at(a, q.mem + 0x1000 + 4000), ==, buf[4096 + 4000]);
    g_assert_cmpint(mlx5_mkey_copy(a->c, ksm, q.pd, MLX5_MKEY_LW, 8000, buf, 200, true), ==,
                    MLX5_XLATE_BOUNDS);

    /* keys[0] -> keys[1] -> ... -> m: MLX5_MAX_INDIRECTION indirect levels translate */
    for (i = 0; i <= MLX5_MAX_INDIRECTION; i++) {
        keys[i] = create_free_umr_mkey(a, q.pd, MLX5_MKC_ACCESS_MODE_KLMS, 4, 0x11);
    }
    for (i = MLX5_MAX_INDIRECTION; i >= 0; i--) {
        memset(&u, 0, sizeof(u));
        memset(x, 0, sizeof(x));
        klm(x, 64, i == MLX5_MAX_INDIRECTION ? m : keys[i + 1],
            i == MLX5_MAX_INDIRECTION ? 0x100000 + 0x40 : 0);
        u.key = keys[i];
        u.flags = F_INLINE;
        u.mask = M_FREE | M_LEN | M_LW;
        MLX5_SET(u.mkc, MKC_lw, 1);
        MLX5_SET64(u.mkc, MKC_len_OFF, 64);
        u.xlt = x;
        u.n16 = 4;
        g_assert_cmpuint(umr_run(&q, &u, NULL), ==, MLX5_CQE_REQ);
    }
    g_assert_cmpint(mlx5_mkey_copy(a->c, keys[1], q.pd, MLX5_MKEY_LR, 0, buf, 64, false), ==,
                    0);
    g_assert_cmpuint(buf[5], ==, byte_at(a, q.mem + 0x45));
    g_assert_cmpint(mlx5_mkey_copy(a->c, keys[0], q.pd, MLX5_MKEY_LR, 0, buf, 64, false), ==,
                    MLX5_XLATE_BAD_KEY);
    /* a KLM naming a key of another PD does not translate */
    {
        uint32_t other = tdrv_alloc_pd(a);
        uint32_t mo = create_mtt_mkey(a, other, 0x100000, 0x10000, q.mem, false);
        memset(x, 0, sizeof(x));
        klm(x, 64, mo, 0x100000);
        memset(&u, 0, sizeof(u));
        u.key = keys[0];
        u.flags = F_INLINE;
        u.xlt = x;
        u.n16 = 4;
        g_assert_cmpuint(umr_run(&q, &u, NULL), ==, MLX5_CQE_REQ);
        g_assert_cmpint(mlx5_mkey_copy(a->c, keys[0], q.pd, MLX5_MKEY_LR, 0, buf, 64, false),
                        ==, MLX5_XLATE_BAD_KEY);
    }
    tdrv_free(a);
}

/*
 * Fast registration as the kernel's ULPs use it: REG_MR (free MTT mkey, remote-invalidate
 * enabled), a remote write through the new rkey, SEND with Invalidate from the peer, then
 * LOCAL_INV of a second registration.
 */
static void test_frwr_and_invalidate(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint32_t fr, key;
    uint64_t dst;
    uint8_t x[64] = { 0 }, segs[16], cqe[64];
    Umr u = { 0 };

    tqp_rc_pair(&qa, a, &qb, b);
    fr = create_free_umr_mkey(b, qb.pd, MLX5_MKC_ACCESS_MODE_MTT, 4, 0x11);
    key = (fr & ~0xffu) | 0x12;
    dst = qb.mem;
    mlx5_st64(x, (dst + 0x5000) | 3);
    mlx5_st64(x + 8, (dst + 0x2000) | 3);
    u.key = key;
    u.flags = F_MUST_BE_FREE | F_INLINE;
    u.mask = M_LEN | M_PAGE_SIZE | M_START | M_RINVAL | M_KEY | M_ACCESS | M_FREE;
    mkc_access(u.mkc, true);
    MLX5_SET(u.mkc, MKC_umr_en, 1);
    MLX5_SET(u.mkc, MKC_en_rinval, 1);
    MLX5_SET(u.mkc, MKC_qpn, 0xffffff);
    MLX5_SET(u.mkc, MKC_mkey_7_0, 0x12);
    MLX5_SET64(u.mkc, MKC_start_addr_OFF, 0xffff0000);
    MLX5_SET64(u.mkc, MKC_len_OFF, 8192);
    MLX5_SET(u.mkc, MKC_log_page_size, 12);
    u.xlt = x;
    u.n16 = 4;
    g_assert_cmpuint(umr_run(&qb, &u, NULL), ==, MLX5_CQE_REQ);
    /* registering it again while enabled fails ("must be free") and changes nothing */
    {
        uint8_t synd;
        g_assert_cmpuint(umr_run(&qb, &u, &synd), ==, MLX5_CQE_REQ_ERR);
        g_assert_cmphex(synd, ==, SYND_LOCAL_PROT);
        g_assert_cmpint(query_free(b, key), ==, 0);
        /* the failed UMR moved qb to error: new QPs in the same PDs */
        tqp_create_on(&qb, b, MLX5_QP_ST_RC, 2, 0, qb.pd);
        tqp_create_on(&qa, a, MLX5_QP_ST_RC, 1, 0, qa.pd);
    }
    tqp_connect(&qa, b->c->cfg.lid, qb.qpn, 0);
    tqp_connect(&qb, a->c->cfg.lid, qa.qpn, 0);
    pattern(a, qa.mem, 8192, 4);
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_WRITE, 0xffff0000 + 4000, key,
                             qa.mem, 200), ==, MLX5_CQE_REQ);
    g_assert_cmpuint(byte_at(b, dst + 0x5000 + 4000), ==, byte_at(a, qa.mem));
    g_assert_cmpuint(byte_at(b, dst + 0x2000 + 100), ==, byte_at(a, qa.mem + 196));
    /* SEND with Invalidate of the rkey: the receive completion carries it; the key is free */
    tqp_post_recv(&qb, 64, qb.mem + 0x9000);
    data_seg(segs, 16, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND_INVAL, key, segs, 1, true, true);
    run_pair(a, b, 5000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND_INV);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_imm_inval_pkey), ==, key);
    g_assert_cmpint(query_free(b, key), ==, 1);
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_WRITE, 0xffff0000, key, qa.mem, 8), ==,
                     MLX5_CQE_REQ_ERR);
    tdrv_free(a);
    tdrv_free(b);

    /* invalidating a plain MR (no en_rinval) is a remote invalid request; LOCAL_INV works */
    a = new_node(1);
    b = new_node(2);
    tqp_rc_pair(&qa, a, &qb, b);
    tqp_post_recv(&qb, 64, qb.mem);
    data_seg(segs, 16, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND_INVAL, qb.key, segs, 1, true, true);
    run_pair(a, b, 5000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpint(query_free(b, qb.key), ==, 0);
    tdrv_free(a);
    tdrv_free(b);

    /* LOCAL_INV as libmlx5 posts it (FREE | KEY | QPN, CHECK_QPN) on a loopback QP */
    a = new_node(1);
    tqp_create(&qa, a, MLX5_QP_ST_RC, 1);
    tqp_connect(&qa, a->c->cfg.lid, qa.qpn, 0);
    fr = create_free_umr_mkey(a, qa.pd, MLX5_MKC_ACCESS_MODE_MTT, 4, 0x11);
    memset(&u, 0, sizeof(u));
    u.key = fr;
    u.flags = F_INLINE;
    u.mask = M_FREE | M_LEN | M_START;
    MLX5_SET64(u.mkc, MKC_start_addr_OFF, 0x1000);
    MLX5_SET64(u.mkc, MKC_len_OFF, 4096);
    memset(x, 0, sizeof(x));
    mlx5_st64(x, qa.mem | 3);           /* read and write enabled, as the kernel writes them */
    u.xlt = x;
    u.n16 = 4;
    g_assert_cmpuint(umr_run(&qa, &u, NULL), ==, MLX5_CQE_REQ);
    g_assert_cmpint(mlx5_mkey_copy(a->c, fr, qa.pd, MLX5_MKEY_LR, 0x1000, x, 8, false), ==, 0);
    memset(&u, 0, sizeof(u));
    u.key = fr;
    u.flags = F_INLINE | F_CHECK_QPN;
    u.mask = M_FREE | M_KEY | M_QPN;
    MLX5_SET(u.mkc, MKC_free, 1);
    MLX5_SET(u.mkc, MKC_qpn, 0xffffff);
    MLX5_SET(u.mkc, MKC_mkey_7_0, 0);
    g_assert_cmpuint(umr_run(&qa, &u, NULL), ==, MLX5_CQE_REQ);
    g_assert_cmpint(query_free(a, fr), ==, 1);
    g_assert_cmpint(mlx5_mkey_copy(a->c, fr, qa.pd, MLX5_MKEY_LR, 0x1000, x, 8, false), ==,
                    MLX5_XLATE_BAD_KEY);
    tdrv_free(a);
}


/*
 * A KLM mkey created free with entries (mlx5e's XSK receive queue for frames smaller than a
 * page: each page a frame entry and a filler entry, replaced by UMR WQE by WQE): the entries
 * given at creation count, so that an entry's place in the address space is the same before
 * and after UMR replaces the ones in front of it.
 */
static void test_klm_free_with_entries(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    uint8_t in[MLX5_PAS_OFF + 4 * 16] = { 0 }, out[16], x[2 * 16] = { 0 };
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;
    uint32_t pa_key, key;
    TQp qa, qb;
    Umr u = { 0 };
    unsigned i;

    tqp_rc_pair(&qa, a, &qb, b);
    pa_key = create_mtt_mkey(b, qb.pd, 0x100000, 0x10000, qb.mem, false);
    /* two "pages": frame 0 at 0x100000, frame 1 at 0x101000, fillers at 0x10f000 */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(mkc, MKC_free, 1);
    MLX5_SET(mkc, MKC_umr_en, 1);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_pd, qb.pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_mkey_7_0, 0x33);
    MLX5_SET64(mkc, MKC_len_OFF, 2 * 4096);
    MLX5_SET(mkc, MKC_translations_octword_size, 4);
    MLX5_SET(in, CREATE_MKEY_IN_translations_octword_actual_size, 4);
    for (i = 0; i < 2; i++) {
        klm(in + MLX5_PAS_OFF + 32 * i, 2048, pa_key, 0x100000 + 0x1000 * i);
        klm(in + MLX5_PAS_OFF + 32 * i + 16, 2048, pa_key, 0x10f000);
    }
    g_assert_cmpint(tdrv_exec(b, in, sizeof(in), out, sizeof(out)), ==, 0);
    key = (MLX5_GET(out, MKEY_IN_mkey_index) << 8) | 0x33;

    /* UMR replaces page 1's entries only (frame 1 now at 0x102000) and enables the key */
    klm(x, 2048, pa_key, 0x102000);
    klm(x + 16, 2048, pa_key, 0x10f000);
    u.key = key;
    u.flags = F_INLINE;
    u.mask = M_FREE | M_ACCESS;
    mkc_access(u.mkc, true);
    u.xlt = x;
    u.n16 = 2;
    u.off16 = 2;
    g_assert_cmpuint(umr_run(&qb, &u, NULL), ==, MLX5_CQE_REQ);
    /* a write at page 1 + 0x100 lands in the new frame 1; one at page 0 in frame 0 */
    pattern(a, qa.mem, 256, 9);
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_WRITE, 4096 + 0x100, key, qa.mem, 200),
                     ==, MLX5_CQE_REQ);
    g_assert_cmpuint(rdma_op(&qa, &qb, MLX5_OPCODE_RDMA_WRITE, 0x40, key, qa.mem, 100), ==,
                     MLX5_CQE_REQ);
    for (i = 0; i < 200; i++) {
        g_assert_cmpuint(byte_at(b, qb.mem + 0x2000 + 0x100 + i), ==, byte_at(a, qa.mem + i));
    }
    for (i = 0; i < 100; i++) {
        g_assert_cmpuint(byte_at(b, qb.mem + 0x40 + i), ==, byte_at(a, qa.mem + i));
    }
    /* (the old frame 1 was not touched) */
    g_assert_cmpuint(byte_at(b, qb.mem + 0x1000 + 0x100), ==, 0);
    tdrv_free(a);
    tdrv_free(b);
}

/* Hostile UMRs: each fails with a local protection/QP-operation error and changes nothing. */
static void test_bad_umr(void)
{
    TDrv *a = new_node(1);
    TQp q;
    uint32_t mk, plain, other_pd;
    uint8_t synd, x[64] = { 0 };
    Umr u;

    tqp_create(&q, a, MLX5_QP_ST_RC, 1);
    tqp_connect(&q, a->c->cfg.lid, q.qpn, 0);
    mk = create_free_umr_mkey(a, q.pd, MLX5_MKC_ACCESS_MODE_MTT, 2, 0x11);
    plain = create_mtt_mkey(a, q.pd, 0x1000, 4096, q.mem, false);
    other_pd = tdrv_alloc_pd(a);

#define BAD_UMR(setup, expect_synd)                                                  \
    do {                                                                              \
        memset(&u, 0, sizeof(u));                                                     \
        u.key = mk;                                                                   \
        u.flags = F_INLINE;                                                           \
        u.mask = M_FREE | M_LEN;                                                      \
        MLX5_SET64(u.mkc, MKC_len_OFF, 4096);                                         \
        setup;                                                                        \
        g_assert_cmpuint(umr_run(&q, &u, &synd), ==, MLX5_CQE_REQ_ERR);               \
        g_assert_cmphex(synd, ==, expect_synd);                                       \
        g_assert_cmpint(query_free(a, mk), ==, 1);                                    \
        tqp_create_on(&q, a, MLX5_QP_ST_RC, 1, 0, q.pd);                              \
        tqp_connect(&q, a->c->cfg.lid, q.qpn, 0);                                     \
    } while (0)

    BAD_UMR(u.key = 0x7f0011, SYND_LOCAL_PROT);                     /* no such mkey */
    BAD_UMR(u.key = plain, SYND_LOCAL_PROT);                        /* umr_en clear */
    BAD_UMR(u.flags |= F_MUST_NOT_BE_FREE, SYND_LOCAL_PROT);        /* it is free */
    /* 2 octowords hold 4 MTTs, padded to the 64-byte granule: 8 octowords are too many */
    BAD_UMR((u.xlt = x, u.n16 = 2, u.off16 = 3), SYND_LOCAL_PROT);
    BAD_UMR((u.mask |= M_PAGE_SIZE, MLX5_SET(u.mkc, MKC_log_page_size, 40)), SYND_LOCAL_PROT);
    BAD_UMR((u.mask |= M_PD, MLX5_SET(u.mkc, MKC_pd, 0xabcde)), SYND_LOCAL_PROT);
    BAD_UMR((u.mask |= M_BSF, MLX5_SET(u.mkc, MKC_bsf_en, 1)), SYND_LOCAL_PROT);
    BAD_UMR(u.mask |= 1ull << 40, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);   /* unknown field */
    /* translations through a pointer the QP's PD cannot read */
    BAD_UMR((u.flags = 0, u.n16 = 2, u.ptr_lkey = 0x12345600, u.ptr_addr = q.mem),
            SYND_LOCAL_PROT);
    /* another PD's mkey, from a user QP */
    {
        uint32_t mo = create_free_umr_mkey(a, other_pd, MLX5_MKC_ACCESS_MODE_MTT, 2, 0x11);
        memset(&u, 0, sizeof(u));
        u.key = mo;
        u.flags = F_INLINE;
        u.mask = M_FREE;
        g_assert_cmpuint(umr_run(&q, &u, &synd), ==, MLX5_CQE_REQ_ERR);
        g_assert_cmpint(query_free(a, mo), ==, 1);
    }
    /* a UMR on a UD QP is not an operation of that QP */
    {
        TQp ud;
        tqp_create_on(&ud, a, MLX5_QP_ST_UD, 2, 0, q.pd);
        tqp_connect(&ud, 0, 0, 0x11111111);
        memset(&u, 0, sizeof(u));
        u.key = mk;
        u.flags = F_INLINE;
        u.mask = M_FREE;
        g_assert_cmpuint(umr_run(&ud, &u, &synd), ==, MLX5_CQE_REQ_ERR);
        g_assert_cmphex(synd, ==, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
        g_assert_cmpint(query_free(a, mk), ==, 1);
    }
    tdrv_free(a);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/umr/mr-cache-flow", test_mr_cache_flow);
    g_test_add_func("/mlx5/umr/klm-and-interleaved", test_klm_and_interleaved);
    g_test_add_func("/mlx5/umr/klm-free-with-entries", test_klm_free_with_entries);
    g_test_add_func("/mlx5/umr/ksm-and-nesting", test_ksm_and_nesting);
    g_test_add_func("/mlx5/umr/frwr-and-invalidate", test_frwr_and_invalidate);
    g_test_add_func("/mlx5/umr/bad-umr", test_bad_umr);
    return g_test_run();
}
