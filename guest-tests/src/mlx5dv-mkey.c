/*
 * mlx5dv-mkey: the seed man pages' indirect-mkey examples as a runnable, self-checking
 * program (mlx5dv_wr_mkey_configure(3) and mlx5dv_wr_post(3): mlx5dv_wr_mr_list,
 * mlx5dv_wr_mr_interleaved). One process, two RC QPs on the same port connected to each
 * other (the device loops the traffic back): QP "owner" registers layouts on an indirect
 * mkey with UMR WQEs; QP "peer" writes and reads through the mkey with RDMA. Every byte that
 * moves is checked against where the layout says it must land, and the bytes around it
 * against being left alone.
 *
 *   1. mkey_configure + access flags + layout_list {mr1: 64 B, mr2: 4096 B} (004, first
 *      example): a 4160-byte RDMA WRITE lands as 64 B at mr1+0 and 4096 B at mr2+0; an RDMA
 *      READ through the mkey returns the same bytes.
 *   2. LOCAL_INV, then mkey_configure + layout_interleaved {mr1 512 B skip 4, mr2 8 B skip 0}
 *      x 2 (004, second example): a 1040-byte write lands at mr1+0, mr2+0, mr1+516, mr2+8.
 *   3. mlx5dv_wr_mr_list with 4 SGEs and mlx5dv_wr_mr_interleaved with 3 entries x 3
 *      (002), each preceded by LOCAL_INV, each checked the same way.
 *   4. ibv_wr_abort of a configuration posts nothing.
 *   5. The access override of 004: a REMOTE_READ configuration followed by a REMOTE_WRITE
 *      one; a remote READ through the mkey then fails with IBV_WC_REM_ACCESS_ERR.
 * Every UMR is signaled and must complete with MLX5DV_WC_UMR (LOCAL_INV: IBV_WC_LOCAL_INV).
 *
 * Usage: mlx5dv-mkey [-d DEVICE]     exit status 0 when every check passed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <unistd.h>
#define GT_PROG "mlx5dv-mkey"
#include "gt-verbs.h"
#include <infiniband/mlx5dv.h>

#define BUF 16384

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *owner, *peer;
static struct ibv_qp_ex *oqx;
static struct mlx5dv_qp_ex *omqx;
static struct mlx5dv_mkey *mkey;
static struct ibv_mr *mr1, *mr2, *src_mr, *dst_mr;
static uint8_t *m1, *m2, *src, *dst;
static struct ibv_wc wait_wc(void)
{
    return gt_wait_wc(cq, NULL);
}

static void expect_wc(uint64_t wr_id, enum ibv_wc_opcode op, enum ibv_wc_status st,
                      const char *what)
{
    struct ibv_wc wc = wait_wc();

    CHECK(wc.wr_id == wr_id, "%s: completion for wr_id %llu, expected %llu", what,
          (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
    CHECK(wc.status == st, "%s: status %s, expected %s", what, ibv_wc_status_str(wc.status),
          ibv_wc_status_str(st));
    if (st == IBV_WC_SUCCESS) {
        CHECK(wc.opcode == op, "%s: opcode %d, expected %d", what, wc.opcode, op);
    }
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 131 + seed * 17 + (i >> 8) + 1);
    }
}

static void reset_targets(void)
{
    memset(m1, 0xee, BUF);
    memset(m2, 0xdd, BUF);
}

/* The peer's RDMA op of @len bytes at offset @off of the mkey's zero-based range. */
static void peer_rdma(enum ibv_wr_opcode op, uint64_t off, uint32_t len, uint8_t *local,
                      struct ibv_mr *lmr, enum ibv_wc_status expect, const char *what)
{
    struct ibv_sge sge = { .addr = (uintptr_t)local, .length = len, .lkey = lmr->lkey };
    struct ibv_send_wr wr = {
        .wr_id = 77, .sg_list = &sge, .num_sge = 1, .opcode = op,
        .send_flags = IBV_SEND_SIGNALED,
        .wr.rdma = { .remote_addr = off, .rkey = mkey->rkey },
    }, *bad;

    if (ibv_post_send(peer, &wr, &bad)) {
        FAIL("%s: ibv_post_send: %s", what, strerror(errno));
    }
    expect_wc(77, op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ, expect, what);
}

static void local_inv(uint64_t id)
{
    ibv_wr_start(oqx);
    oqx->wr_id = id;
    oqx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_local_inv(oqx, mkey->rkey);
    if (ibv_wr_complete(oqx)) {
        FAIL("local invalidate: ibv_wr_complete: %s", strerror(errno));
    }
    expect_wc(id, IBV_WC_LOCAL_INV, IBV_WC_SUCCESS, "local invalidate");
}

static void finish_umr(uint64_t id, const char *what)
{
    int r = ibv_wr_complete(oqx);

    if (r) {
        FAIL("%s: ibv_wr_complete: %s", what, strerror(r));
    }
    expect_wc(id, (enum ibv_wc_opcode)MLX5DV_WC_UMR, IBV_WC_SUCCESS, what);
}

/* Check that byte i of the logical range [0, len) is at @loc(i) and equals src[i]. */
static void check_layout(const char *what, size_t len, uint8_t *(*loc)(size_t))
{
    for (size_t i = 0; i < len; i++) {
        uint8_t *p = loc(i);
        CHECK(*p == src[i], "%s: logical byte %zu (at %s+%td) is 0x%02x, wrote 0x%02x", what,
              i, p >= m2 ? "mr2" : "mr1", p >= m2 ? p - m2 : p - m1, *p, src[i]);
    }
}

static uint8_t *loc_list(size_t i)          /* {mr1 64, mr2 4096} */
{
    return i < 64 ? m1 + i : m2 + (i - 64);
}

static uint8_t *loc_interleaved(size_t i)   /* {mr1 512 skip 4, mr2 8 skip 0} x 2 */
{
    size_t cyc = i / 520, r = i % 520;
    return r < 512 ? m1 + cyc * 516 + r : m2 + cyc * 8 + (r - 512);
}

static uint8_t *loc_list4(size_t i)         /* {mr1+100 1000, mr2+7 1, mr1+5000 3000, mr2+64 96} */
{
    return i < 1000 ? m1 + 100 + i : i < 1001 ? m2 + 7 : i < 4001 ? m1 + 5000 + (i - 1001)
                                                                 : m2 + 64 + (i - 4001);
}

static uint8_t *loc_inter3(size_t i)        /* {mr1 16 skip 16, mr2 4 skip 60, mr1+8192 1 skip 3} x 3 */
{
    size_t cyc = i / 21, r = i % 21;
    return r < 16 ? m1 + cyc * 32 + r : r < 20 ? m2 + cyc * 64 + (r - 16)
                                               : m1 + 8192 + cyc * 4;
}

static void to_rts(struct ibv_qp *qp, uint32_t dqpn, uint16_t lid, int access)
{
    struct gt_conn c = { .dqpn = dqpn, .dlid = lid, .access = access, .psn = 0x100 };

    gt_rc_connect(qp, &c);
}

static struct ibv_mr *reg(uint8_t **p)
{
    struct ibv_mr *mr;

    *p = aligned_alloc(4096, BUF);
    mr = ibv_reg_mr(pd, *p, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                    IBV_ACCESS_REMOTE_WRITE);
    if (!mr) {
        FAIL("ibv_reg_mr: %s", strerror(errno));
    }
    return mr;
}

int main(int argc, char **argv)
{
    const char *want = "mlx5_0";
    struct ibv_device **list;
    struct mlx5dv_context_attr dv_ctx = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
    struct ibv_qp_init_attr_ex qa = { 0 };
    struct mlx5dv_qp_init_attr dqa = { 0 };
    struct mlx5dv_mkey_init_attr mka = { 0 };
    struct mlx5dv_mkey_conf_attr conf = { 0 };
    struct ibv_port_attr port;
    int opt, i;

    while ((opt = getopt(argc, argv, "d:")) != -1) {
        if (opt == 'd') {
            want = optarg;
        } else {
            fprintf(stderr, "usage: mlx5dv-mkey [-d DEVICE]\n");
            return 2;
        }
    }
    list = ibv_get_device_list(NULL);
    for (i = 0; list && list[i] && strcmp(ibv_get_device_name(list[i]), want); i++) {
    }
    if (!list || !list[i]) {
        FAIL("no device %s", want);
    }
    /* a DEVX context, as mlx5dv_wr_mkey_configure(3) asks */
    ctx = mlx5dv_open_device(list[i], &dv_ctx);
    if (!ctx) {
        FAIL("mlx5dv_open_device(DEVX): %s", strerror(errno));
    }
    if (ibv_query_port(ctx, 1, &port)) {
        FAIL("ibv_query_port");
    }
    pd = ibv_alloc_pd(ctx);
    cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    if (!pd || !cq) {
        FAIL("PD/CQ: %s", strerror(errno));
    }

    /* the owner QP posts UMRs: mlx5dv_create_qp with the mkey send ops, room for 4 SGEs */
    qa.qp_type = IBV_QPT_RC;
    qa.send_cq = qa.recv_cq = cq;
    qa.cap.max_send_wr = qa.cap.max_recv_wr = 16;
    qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
    qa.cap.max_inline_data = 128;
    qa.pd = pd;
    qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    qa.send_ops_flags = IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND;
    dqa.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
    dqa.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE | MLX5DV_QP_EX_WITH_MR_LIST |
                         MLX5DV_QP_EX_WITH_MR_INTERLEAVED;
    owner = mlx5dv_create_qp(ctx, &qa, &dqa);
    if (!owner) {
        FAIL("mlx5dv_create_qp: %s", strerror(errno));
    }
    oqx = ibv_qp_to_qp_ex(owner);
    omqx = mlx5dv_qp_ex_from_ibv_qp_ex(oqx);
    {
        struct ibv_qp_init_attr pa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                       .cap = { .max_send_wr = 16, .max_recv_wr = 16,
                                                .max_send_sge = 1, .max_recv_sge = 1 } };
        peer = ibv_create_qp(pd, &pa);
        if (!peer) {
            FAIL("ibv_create_qp: %s", strerror(errno));
        }
    }
    to_rts(owner, peer->qp_num, port.lid, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
    to_rts(peer, owner->qp_num, port.lid, 0);

    mr1 = reg(&m1);
    mr2 = reg(&m2);
    src_mr = reg(&src);
    dst_mr = reg(&dst);
    fill(src, BUF, 1);

    mka.pd = pd;
    mka.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
    mka.max_entries = 4;
    mkey = mlx5dv_create_mkey(&mka);
    if (!mkey) {
        FAIL("mlx5dv_create_mkey: %s", strerror(errno));
    }
    printf("indirect mkey 0x%x (%u entries), QPs 0x%x/0x%x, LID %u\n", mkey->rkey,
           mka.max_entries, owner->qp_num, peer->qp_num, port.lid);

    /* 1. 004's list layout: 64 B of mr1 then 4096 B of mr2 */
    reset_targets();
    ibv_wr_start(oqx);
    oqx->wr_id = 1;
    oqx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    mlx5dv_wr_mkey_configure(omqx, mkey, 2, &conf);
    mlx5dv_wr_set_mkey_access_flags(omqx, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
    {
        struct ibv_sge sgl[2] = {
            { .addr = (uintptr_t)m1, .length = 64, .lkey = mr1->lkey },
            { .addr = (uintptr_t)m2, .length = 4096, .lkey = mr2->lkey },
        };
        mlx5dv_wr_set_mkey_layout_list(omqx, 2, sgl);
    }
    finish_umr(1, "configure list layout");
    peer_rdma(IBV_WR_RDMA_WRITE, 0, 4160, src, src_mr, IBV_WC_SUCCESS, "write through list");
    check_layout("list layout", 4160, loc_list);
    CHECK(m1[64] == 0xee && m2[4096] == 0xdd, "list layout: bytes past the layout changed");
    memset(dst, 0, 4160);
    peer_rdma(IBV_WR_RDMA_READ, 0, 4160, dst, dst_mr, IBV_WC_SUCCESS, "read through list");
    CHECK(!memcmp(dst, src, 4160), "list layout: RDMA READ returned other bytes");
    /* a piece in the middle, crossing from mr1 into mr2 */
    memset(dst, 0, 100);
    peer_rdma(IBV_WR_RDMA_READ, 30, 100, dst, dst_mr, IBV_WC_SUCCESS, "read at offset 30");
    CHECK(!memcmp(dst, src + 30, 100), "list layout: RDMA READ at offset 30 differs");
    printf("004 list layout: 4160 bytes written and read back through the mkey\n");

    /* 2. 004's interleaved layout after a local invalidation */
    local_inv(2);
    reset_targets();
    ibv_wr_start(oqx);
    oqx->wr_id = 3;
    oqx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    mlx5dv_wr_mkey_configure(omqx, mkey, 2, &conf);
    mlx5dv_wr_set_mkey_access_flags(omqx, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
    {
        struct mlx5dv_mr_interleaved data[2] = {
            { .addr = (uintptr_t)m1, .bytes_count = 512, .bytes_skip = 4, .lkey = mr1->lkey },
            { .addr = (uintptr_t)m2, .bytes_count = 8, .bytes_skip = 0, .lkey = mr2->lkey },
        };
        mlx5dv_wr_set_mkey_layout_interleaved(omqx, 2, 2, data);
    }
    finish_umr(3, "configure interleaved layout");
    peer_rdma(IBV_WR_RDMA_WRITE, 0, 1040, src, src_mr, IBV_WC_SUCCESS,
              "write through interleaved");
    check_layout("interleaved layout", 1040, loc_interleaved);
    CHECK(m1[512] == 0xee && m1[515] == 0xee && m1[1028] == 0xee && m2[16] == 0xdd,
          "interleaved layout: skipped bytes changed");
    memset(dst, 0, 1040);
    peer_rdma(IBV_WR_RDMA_READ, 0, 1040, dst, dst_mr, IBV_WC_SUCCESS,
              "read through interleaved");
    CHECK(!memcmp(dst, src, 1040), "interleaved layout: RDMA READ returned other bytes");
    printf("004 interleaved layout: 1040 bytes at mr1+0, mr2+0, mr1+516, mr2+8\n");

    /* 3. 002's wrappers: mr_list with 4 SGEs, mr_interleaved with 3 entries x 3 */
    local_inv(4);
    reset_targets();
    ibv_wr_start(oqx);
    oqx->wr_id = 5;
    oqx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    {
        struct ibv_sge sgl[4] = {
            { .addr = (uintptr_t)m1 + 100, .length = 1000, .lkey = mr1->lkey },
            { .addr = (uintptr_t)m2 + 7, .length = 1, .lkey = mr2->lkey },
            { .addr = (uintptr_t)m1 + 5000, .length = 3000, .lkey = mr1->lkey },
            { .addr = (uintptr_t)m2 + 64, .length = 96, .lkey = mr2->lkey },
        };
        mlx5dv_wr_mr_list(omqx, mkey, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                          IBV_ACCESS_REMOTE_READ, 4, sgl);
    }
    finish_umr(5, "mr_list");
    peer_rdma(IBV_WR_RDMA_WRITE, 0, 4097, src, src_mr, IBV_WC_SUCCESS, "write through mr_list");
    check_layout("mr_list", 4097, loc_list4);
    CHECK(m1[99] == 0xee && m1[1100] == 0xee && m2[8] == 0xdd && m2[160] == 0xdd,
          "mr_list: bytes outside the SGEs changed");
    /* 4 B past the layout's 4097: the responder refuses, nothing else moves */
    local_inv(6);
    reset_targets();
    ibv_wr_start(oqx);
    oqx->wr_id = 7;
    oqx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    {
        struct mlx5dv_mr_interleaved data[3] = {
            { .addr = (uintptr_t)m1, .bytes_count = 16, .bytes_skip = 16, .lkey = mr1->lkey },
            { .addr = (uintptr_t)m2, .bytes_count = 4, .bytes_skip = 60, .lkey = mr2->lkey },
            { .addr = (uintptr_t)m1 + 8192, .bytes_count = 1, .bytes_skip = 3,
              .lkey = mr1->lkey },
        };
        mlx5dv_wr_mr_interleaved(omqx, mkey, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                 IBV_ACCESS_REMOTE_READ, 3, 3, data);
    }
    finish_umr(7, "mr_interleaved");
    peer_rdma(IBV_WR_RDMA_WRITE, 0, 63, src, src_mr, IBV_WC_SUCCESS,
              "write through mr_interleaved");
    check_layout("mr_interleaved", 63, loc_inter3);
    CHECK(m1[16] == 0xee && m1[8193] == 0xee && m2[4] == 0xdd && m2[64 * 2 + 4] == 0xdd,
          "mr_interleaved: skipped bytes changed");
    printf("002 mr_list (4 SGEs) and mr_interleaved (3 entries x 3): every byte in place\n");

    /* 4. an aborted configuration posts nothing */
    ibv_wr_start(oqx);
    oqx->wr_id = 8;
    oqx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    mlx5dv_wr_mkey_configure(omqx, mkey, 1, &conf);
    mlx5dv_wr_set_mkey_access_flags(omqx, IBV_ACCESS_REMOTE_READ);
    ibv_wr_abort(oqx);
    usleep(100000);
    {
        struct ibv_wc wc;
        CHECK(ibv_poll_cq(cq, 1, &wc) == 0, "ibv_wr_abort: a completion appeared");
    }
    /* the layout from step 3 is still in force */
    memset(dst, 0, 63);
    peer_rdma(IBV_WR_RDMA_READ, 0, 63, dst, dst_mr, IBV_WC_SUCCESS, "read after abort");
    CHECK(!memcmp(dst, src, 63), "after ibv_wr_abort: the layout changed");

    /* 5. 004's access override: READ, then WRITE only; a remote READ must fail */
    ibv_wr_start(oqx);
    oqx->wr_id = 9;
    oqx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    mlx5dv_wr_mkey_configure(omqx, mkey, 1, &conf);
    mlx5dv_wr_set_mkey_access_flags(omqx, IBV_ACCESS_REMOTE_READ);
    finish_umr(9, "configure REMOTE_READ");
    ibv_wr_start(oqx);
    oqx->wr_id = 10;
    oqx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    mlx5dv_wr_mkey_configure(omqx, mkey, 1, &conf);
    mlx5dv_wr_set_mkey_access_flags(omqx, IBV_ACCESS_REMOTE_WRITE);
    finish_umr(10, "configure REMOTE_WRITE");
    peer_rdma(IBV_WR_RDMA_WRITE, 0, 63, src + 100, src_mr, IBV_WC_SUCCESS, "write after override");
    CHECK(!memcmp(loc_inter3(0), src + 100, 16), "override: the write did not land");
    peer_rdma(IBV_WR_RDMA_READ, 0, 8, dst, dst_mr, IBV_WC_REM_ACCESS_ERR,
              "read after the WRITE-only override");
    printf("004 access override: REMOTE_WRITE only; remote READ -> %s\n",
           ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
    printf("mlx5dv-mkey: OK (%d checks)\n", checks);
    return 0;
}
