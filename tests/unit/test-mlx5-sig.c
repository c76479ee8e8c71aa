/*
 * Unit tests of signature offload (mlx5_sig.c): signature mkeys configured by UMR WQEs with a
 * BSF the way libmlx5 posts them, T10-DIF inserted on the wire and checked and stripped on
 * receive, CRC32 in the memory domain checked on send, SIG_ERR CQEs (syndrome, domain, mkey,
 * offset) and their arming through expected_sigerr_count, bad BSFs, PSV commands and SET_PSV.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5_internal.h"
#include "mlx5-testqp.h"
#include <zlib.h>

/* A free KLM mkey with a BSF (as libmlx5's mlx5dv_create_mkey with BLOCK_SIGNATURE). */
static uint32_t sig_mkey(TDrv *d, uint32_t pd, uint8_t variant)
{
    uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16];
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(mkc, MKC_free, 1);
    MLX5_SET(mkc, MKC_umr_en, 1);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_pd, pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_mkey_7_0, variant);
    MLX5_SET(mkc, MKC_bsf_en, 1);
    MLX5_SET(mkc, MKC_bsf_octword_size, 4);
    MLX5_SET(mkc, MKC_translations_octword_size, 4);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    return (MLX5_GET(out, MKEY_IN_mkey_index) << 8) | variant;
}

/*
 * Configure @key: one KLM (@len bytes of @lkey at @addr), remote access, the BSF @bsf (NULL:
 * none, bsf_en 0) and the 1-bit expected_sigerr_count @arm. Returns the CQE opcode nibble.
 */
static unsigned sig_umr(TQp *q, uint32_t key, uint32_t len, uint32_t lkey, uint64_t addr,
                        const uint8_t *bsf, unsigned arm)
{
    uint8_t segs[15 * 16] = { 0 }, *mkc = segs + 48, cqe[64];

    segs[0] = 0x80;                                         /* inline */
    mlx5_st16(segs + 4, 4);                                 /* 4 octowords of KLMs */
    mlx5_st16(segs + 6, bsf ? 4 : 0);                       /* BSF octowords */
    mlx5_st64(segs + 8, M_FREE | M_KEY | M_LEN | M_LW | M_RR | M_RW | M_BSF | M_SIGERR);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_mkey_7_0, key & 0xff);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_rr, 1);
    MLX5_SET(mkc, MKC_rw, 1);
    MLX5_SET(mkc, MKC_bsf_en, bsf != NULL);
    MLX5_SET(mkc, MKC_expected_sigerr_count, arm);
    MLX5_SET64(mkc, MKC_len_OFF, len);
    mlx5_st32(segs + 112, len);
    mlx5_st32(segs + 116, lkey);
    mlx5_st64(segs + 120, addr);
    if (bsf) {
        memcpy(segs + 176, bsf, 64);
    }
    tqp_post_send(q, MLX5_OPCODE_UMR, key, segs, bsf ? 15 : 11, true, true);
    run_pair(q->d, NULL, 100);
    g_assert_true(tqp_poll(q, cqe));
    return cqe[63] >> 4;
}

/* BSF: T10-DIF (CRC guard, seed 0xffff, app 0xabcd, ref 0x01234567 + block) on the wire. */
static void bsf_t10dif_wire(uint8_t *bsf, uint8_t check)
{
    memset(bsf, 0, 64);
    bsf[0] = 0x80;
    bsf[1] = check;
    bsf[2] = 1;                         /* wire blocks of 512 */
    mlx5_st16(bsf + 32, 0xc000);        /* valid, refresh */
    mlx5_st16(bsf + 34, 0xabcd);
    mlx5_st32(bsf + 36, 0x01234567);
    bsf[40] = 1;                        /* CRC guard */
    bsf[41] = 0x88;                     /* repeat, seed 0xffff */
    bsf[45] = 0x40;                     /* increment the ref tag */
    mlx5_st16(bsf + 46, 0xffff);
}

/* BSF: CRC32 (seed all-ones) in memory after each 512-byte block, nothing on the wire. */
static void bsf_crc32_mem(uint8_t *bsf, uint8_t check)
{
    memset(bsf, 0, 64);
    bsf[0] = 0x80;
    bsf[1] = check;
    bsf[3] = 1;
    mlx5_st32(bsf + 12, 0x22u << 24);
}

static void send_msg(TQp *qa, TQp *qb, uint32_t lkey, uint64_t addr, uint32_t len)
{
    uint8_t segs[16];

    data_seg(segs, len, lkey, addr);
    tqp_post_send(qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(qa->d, qb->d, 5000);
}

static void check_sigerr(const uint8_t *cqe, uint32_t key, uint16_t synd, uint8_t domain,
                         uint64_t offset)
{
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_SIG_ERR);
    g_assert_cmphex(mlx5_ld16(cqe + MLX5_SIGERR_CQE_syndrome), ==, synd);
    g_assert_cmpuint(cqe[MLX5_SIGERR_CQE_domain], ==, domain);
    g_assert_cmpuint(cqe[MLX5_SIGERR_CQE_sig_type], ==, 0);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_SIGERR_CQE_mkey), ==, key);
    g_assert_cmpuint(mlx5_ld64(cqe + MLX5_SIGERR_CQE_sig_err_offset), ==, offset);
}

/* The T10-DIF guard is CRC-16/T10-DIF (poly 0x8bb7): its check value. */
static void test_crc16(void)
{
    g_assert_cmphex(mlx5_crc16_t10dif(0, (const uint8_t *)"123456789", 9), ==, 0xd0db);
}

/*
 * Wire-domain T10-DIF: 1024 bytes sent through a's signature key leave as 1040 (8 bytes of
 * PI after each block); b receives them through its own signature key, which checks and
 * strips the PI. A bad ref tag is reported once, as a SIG_ERR CQE on b's receive CQ before
 * the receive completion, and again only after a UMR re-arms the key.
 */
typedef struct Pair {
    TDrv *a, *b;
    TQp qa, qb;
    uint32_t ma, mb;            /* plain keys: 16 KiB at va 0x10000 = each QP's memory */
    uint32_t sa, sb;            /* signature keys over their first 1 KiB, BSF @bsf */
} Pair;

static void pair_up(Pair *p, const uint8_t *bsf)
{
    p->a = new_node(1);
    p->b = new_node(2);
    tqp_rc_pair(&p->qa, p->a, &p->qb, p->b);
    p->ma = create_mtt_mkey(p->a, p->qa.pd, 0x10000, 0x4000, p->qa.mem, false);
    p->mb = create_mtt_mkey(p->b, p->qb.pd, 0x10000, 0x4000, p->qb.mem, false);
    p->sa = sig_mkey(p->a, p->qa.pd, 0x21);
    p->sb = sig_mkey(p->b, p->qb.pd, 0x22);
    tqp_pattern(p->a, p->qa.mem, 1024, 5);
    g_assert_cmpuint(sig_umr(&p->qa, p->sa, 1024, p->ma, 0x10000, bsf, 1), ==, MLX5_CQE_REQ);
    g_assert_cmpuint(sig_umr(&p->qb, p->sb, 1024, p->mb, 0x10000, bsf, 1), ==, MLX5_CQE_REQ);
}

static void test_t10dif_wire(void)
{
    uint8_t bsf[64], cqe[64], wire[1040];
    uint32_t ma, mb, sa, sb;
    TDrv *a, *b;
    TQp qa, qb;
    Pair p;

    bsf_t10dif_wire(bsf, 0xff);
    /* larger than the memory behind the key (two blocks): refused before anything is sent */
    pair_up(&p, bsf);
    send_msg(&p.qa, &p.qb, p.sa, 0, 1041);
    g_assert_true(tqp_poll(&p.qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    tdrv_free(p.a);
    tdrv_free(p.b);

    pair_up(&p, bsf);
    a = p.a, b = p.b, qa = p.qa, qb = p.qb, ma = p.ma, mb = p.mb, sa = p.sa, sb = p.sb;

    /* what goes on the wire: each block, then guard, app tag, ref tag (big endian) */
    tqp_post_recv(&qb, 2048, qb.mem + 0x2000);
    send_msg(&qa, &qb, sa, 0, 1040);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 1040);
    fake_read(b->h, qb.mem + 0x2000, wire, sizeof(wire));
    for (unsigned k = 0; k < 2; k++) {
        const uint8_t *blk = wire + 520 * k, *pi = blk + 512;
        g_assert_true(tqp_same(a, qa.mem + 512 * k, b, qb.mem + 0x2000 + 520 * k, 512));
        g_assert_cmphex(mlx5_ld16(pi), ==, mlx5_crc16_t10dif(0xffff, blk, 512));
        g_assert_cmphex(mlx5_ld16(pi + 2), ==, 0xabcd);
        g_assert_cmphex(mlx5_ld32(pi + 4), ==, 0x01234567 + k);
    }

    /* received through b's signature key: checked and stripped, no SIG_ERR */
    tqp_post_recv_key(&qb, 1040, sb, 0);
    send_msg(&qa, &qb, sa, 0, 1040);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_false(tqp_poll(&qb, cqe));
    g_assert_true(tqp_same(a, qa.mem, b, qb.mem, 1024));

    /* a wrong ref tag in block 1 (sent from plain memory): REFTAG, wire domain, offset 520 */
    wire[520 + 512 + 7] ^= 1;
    fake_write(a->h, qa.mem + 0x2000, wire, sizeof(wire));
    for (unsigned round = 0; round < 3; round++) {
        tqp_post_recv_key(&qb, 1040, sb, 0);
        send_msg(&qa, &qb, ma, 0x12000, 1040);
        g_assert_true(tqp_poll(&qa, cqe));
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
        g_assert_true(tqp_poll(&qb, cqe));
        if (round != 1) {           /* round 1: reported already, not re-armed yet */
            check_sigerr(cqe, sb, MLX5_SIGERR_SYND_REFTAG, 0, 520);
            g_assert_cmphex(mlx5_ld32(cqe + MLX5_SIGERR_CQE_expected_reftag), ==,
                            0x01234568 ^ 1);
            g_assert_cmphex(mlx5_ld32(cqe + MLX5_SIGERR_CQE_actual_reftag), ==, 0x01234568);
            g_assert_true(tqp_poll(&qb, cqe));
        }
        /* the transfer itself completes */
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
        if (round == 1) {
            /* software saw the error: the next configure writes the other parity */
            g_assert_cmpuint(sig_umr(&qb, sb, 1024, mb, 0x10000, bsf, 0), ==, MLX5_CQE_REQ);
        }
    }
    /* a guard error in block 0 */
    wire[100] ^= 0x40;
    fake_write(a->h, qa.mem + 0x2000, wire, sizeof(wire));
    g_assert_cmpuint(sig_umr(&qb, sb, 1024, mb, 0x10000, bsf, 1), ==, MLX5_CQE_REQ);
    tqp_post_recv_key(&qb, 1040, sb, 0);
    send_msg(&qa, &qb, ma, 0x12000, 1040);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_true(tqp_poll(&qb, cqe));
    check_sigerr(cqe, sb, MLX5_SIGERR_SYND_GUARD, 0, 0);
    tdrv_free(a);
    tdrv_free(b);
}

/*
 * Memory-domain CRC32 (libmlx5's sig_err test): 512 data bytes and their CRC in memory, 512
 * bytes on the wire. A good CRC passes silently; a bad one gives a GUARD error in the memory
 * domain on the sender's CQ, before the send completes (successfully).
 */
static void test_crc32_mem(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    uint8_t bsf[64], cqe[64], data[512], crc[4];
    uint32_t ma, sa;
    TQp qa, qb;

    tqp_rc_pair(&qa, a, &qb, b);
    ma = create_mtt_mkey(a, qa.pd, 0x10000, 0x4000, qa.mem, false);
    sa = sig_mkey(a, qa.pd, 0x31);
    tqp_pattern(a, qa.mem, 512, 9);
    fake_read(a->h, qa.mem, data, sizeof(data));
    mlx5_st32(crc, crc32(0, data, sizeof(data)));
    fake_write(a->h, qa.mem + 512, crc, 4);
    bsf_crc32_mem(bsf, 0xf0);
    g_assert_cmpuint(sig_umr(&qa, sa, 516, ma, 0x10000, bsf, 1), ==, MLX5_CQE_REQ);
    tqp_post_recv(&qb, 1024, qb.mem);
    send_msg(&qa, &qb, sa, 0, 512);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 512);
    g_assert_true(tqp_same(a, qa.mem, b, qb.mem, 512));

    crc[3] ^= 0x10;
    fake_write(a->h, qa.mem + 512, crc, 4);
    tqp_post_recv(&qb, 1024, qb.mem);
    send_msg(&qa, &qb, sa, 0, 512);
    g_assert_true(tqp_poll(&qa, cqe));
    check_sigerr(cqe, sa, MLX5_SIGERR_SYND_GUARD, 1, 0);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_SIGERR_CQE_expected_trans_sig), ==, mlx5_ld32(crc));
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_SIGERR_CQE_actual_trans_sig), ==,
                    (uint32_t)crc32(0, data, sizeof(data)));
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);

    /* check_mask 0: nothing is checked */
    g_assert_cmpuint(sig_umr(&qa, sa, 516, ma, 0x10000, (bsf_crc32_mem(bsf, 0), bsf), 0), ==,
                     MLX5_CQE_REQ);
    tqp_post_recv(&qb, 1024, qb.mem);
    send_msg(&qa, &qb, sa, 0, 512);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    tdrv_free(a);
    tdrv_free(b);
}

/* BSFs the device does not take fail the UMR (local protection) and leave the key as it was. */
static void test_bad_bsf(void)
{
    static const struct {
        unsigned off;
        uint8_t val;
        const char *what;
    } bad[] = {
        { 0, 0, "a key created without bsf_en takes no BSF" },
        { 12, 0x42, "CRC32C: not offered" },
        { 3, 9, "no such block size" },
        { 0, 0xc0, "a signature + crypto BSF" },
        { 20, 1, "a transaction signature" },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
        TDrv *a = new_node(1);
        uint8_t bsf[64], cqe[64];
        uint32_t ma, key;
        TQp qa, qb;

        g_test_message("%s", bad[i].what);
        tqp_rc_pair(&qa, a, &qb, a);
        ma = create_mtt_mkey(a, qa.pd, 0x10000, 0x4000, qa.mem, false);
        key = i == 0 ? create_free_umr_mkey(a, qa.pd, MLX5_MKC_ACCESS_MODE_KLMS, 4, 0x42)
                     : sig_mkey(a, qa.pd, 0x41);
        bsf_crc32_mem(bsf, 0xf0);
        if (i) {
            bsf[bad[i].off] = bad[i].val;
        }
        g_assert_cmpuint(sig_umr(&qa, key, 516, ma, 0x10000, bsf, 1), ==, MLX5_CQE_REQ_ERR);
        g_assert_false(tqp_poll(&qa, cqe));
        g_assert_cmpint(query_free(a, key), ==, 1);     /* still free: nothing changed */
        tdrv_free(a);
    }
}

/* Hostile PSV commands, a BSF key of the wrong kind, SET_PSV of a PSV that is not there. */
static void test_bad_psv(void)
{
    TDrv *a = new_node(1);
    uint8_t out[32], cqe[64], segs[16] = { 0 };
    uint8_t in[MLX5_PAS_OFF] = { 0 }, *mkc = in + CREATE_MKEY_MKC_OFF;
    uint32_t psv;
    TQp qa, qb;

    tqp_rc_pair(&qa, a, &qb, a);
    /* num_psv 0 and 5 (1..4), a PD that does not exist */
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_CREATE_PSV, 0, qa.pd, 0, out, 32), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_CREATE_PSV, 0, 5u << 28 | qa.pd, 0, out, 32), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_CREATE_PSV, 0, 1u << 28 | 0xabcd, 0, out, 32),
                    ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* two at once (the kernel's integrity MR), then destroyed; twice is once too many */
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_CREATE_PSV, 0, 2u << 28 | qa.pd, 0, out, 32), ==,
                    0);
    psv = MLX5_GET(out, CREATE_PSV_OUT_psv0_index);
    g_assert_cmpuint(MLX5_GET(out + 4, CREATE_PSV_OUT_psv0_index), !=, psv);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_DESTROY_PSV, 0, psv, 0, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_DESTROY_PSV, 0, psv, 0, NULL, 0), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    /* bsf_en on an MTT key, or with the wrong BSF size */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(mkc, MKC_free, 1);
    MLX5_SET(mkc, MKC_umr_en, 1);
    MLX5_SET(mkc, MKC_pd, qa.pd);
    MLX5_SET(mkc, MKC_bsf_en, 1);
    MLX5_SET(mkc, MKC_bsf_octword_size, 4);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
    g_assert_cmpint(tdrv_exec(a, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
    MLX5_SET(mkc, MKC_bsf_octword_size, 8);
    g_assert_cmpint(tdrv_exec(a, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* SET_PSV of the destroyed PSV: local protection error, the QP goes to error */
    mlx5_st32(segs, psv);
    tqp_post_send(&qa, MLX5_OPCODE_SET_PSV, 0, segs, 1, true, true);
    run_pair(a, NULL, 100);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
    tdrv_free(a);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/sig/crc16", test_crc16);
    g_test_add_func("/mlx5/sig/t10dif-wire", test_t10dif_wire);
    g_test_add_func("/mlx5/sig/crc32-mem", test_crc32_mem);
    g_test_add_func("/mlx5/sig/bad-bsf", test_bad_bsf);
    g_test_add_func("/mlx5/sig/bad-psv", test_bad_psv);
    return g_test_run();
}
