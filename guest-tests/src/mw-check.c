/*
 * mw-check: memory windows on the device, checked byte for byte. One process, two RC QPs on
 * one port connected to each other: "owner" binds windows over its MR, "peer" reaches the
 * memory through them with RDMA.
 *
 *   1. Type 1 (ibv_bind_mw): a window over 4 KiB in the middle of the MR; a remote WRITE and
 *      READ through it land/return exactly there; re-binding gives a new rkey, the old one
 *      stops working (REM_ACCESS_ERR).
 *   2. Type 2 (IBV_WR_BIND_MW, zero-based): remote WRITE at window offsets; then SEND with
 *      Invalidate of its rkey: the receive completion carries IBV_WC_WITH_INV and the rkey,
 *      and the window is dead (REM_ACCESS_ERR).
 *   3. Type 2 again: bind, IBV_WR_LOCAL_INV, then access fails.
 *   4. A remote WRITE beyond a window's end fails with REM_ACCESS_ERR and changes nothing.
 * Each failing access moves the peer QP to the error state, so every negative case uses a
 * fresh pair of QPs.
 *
 * Usage: mw-check [-d DEVICE]     exit status 0 when every check passed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <unistd.h>
#define GT_PROG "mw-check"
#include "gt-verbs.h"

#define BUF 65536

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *owner, *peer;
static struct ibv_mr *mr, *lmr;
static uint8_t *mem, *local;
static uint16_t lid;
static struct ibv_wc wait_wc(void)
{
    return gt_wait_wc(cq, NULL);
}

static struct ibv_wc expect_wc(uint64_t id, enum ibv_wc_opcode op, enum ibv_wc_status st,
                               const char *what)
{
    struct ibv_wc wc = wait_wc();

    CHECK(wc.wr_id == id, "%s: completion for wr_id %llu, expected %llu", what,
          (unsigned long long)wc.wr_id, (unsigned long long)id);
    CHECK(wc.status == st, "%s: status %s, expected %s", what, ibv_wc_status_str(wc.status),
          ibv_wc_status_str(st));
    if (st == IBV_WC_SUCCESS) {
        CHECK(wc.opcode == op, "%s: opcode %d, expected %d", what, wc.opcode, op);
    }
    return wc;
}

static void modify(struct ibv_qp *qp, uint32_t dqpn)
{
    struct gt_conn c = { .dqpn = dqpn, .dlid = lid,
                         .access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };

    gt_rc_connect(qp, &c);
}

/* a fresh connected pair (a failed access leaves the old one in error) */
static void new_pair(void)
{
    struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                   .cap = { .max_send_wr = 16, .max_recv_wr = 16,
                                            .max_send_sge = 1, .max_recv_sge = 1 } };
    struct ibv_wc wc;

    if (owner) {
        ibv_destroy_qp(owner);
        ibv_destroy_qp(peer);
        while (ibv_poll_cq(cq, 1, &wc) > 0) {
        }
    }
    owner = ibv_create_qp(pd, &qa);
    peer = ibv_create_qp(pd, &qa);
    if (!owner || !peer) {
        FAIL("ibv_create_qp: %s", strerror(errno));
    }
    modify(owner, peer->qp_num);
    modify(peer, owner->qp_num);
}

static void peer_rdma(enum ibv_wr_opcode op, uint64_t raddr, uint32_t rkey, uint32_t len,
                      uint32_t loff, enum ibv_wc_status expect, const char *what)
{
    struct ibv_sge sge = { .addr = (uintptr_t)local + loff, .length = len, .lkey = lmr->lkey };
    struct ibv_send_wr wr = { .wr_id = 50, .sg_list = &sge, .num_sge = 1, .opcode = op,
                              .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = { .remote_addr = raddr, .rkey = rkey } }, *bad;

    if (ibv_post_send(peer, &wr, &bad)) {
        FAIL("%s: ibv_post_send: %s", what, strerror(errno));
    }
    expect_wc(50, op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ, expect, what);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 29 + seed * 7 + (i >> 7) + 1);
    }
}

static uint32_t bind_type2(struct ibv_mw *mw, uint64_t addr, uint64_t len, unsigned access,
                           uint64_t id)
{
    struct ibv_send_wr wr = { .wr_id = id, .opcode = IBV_WR_BIND_MW,
                              .send_flags = IBV_SEND_SIGNALED }, *bad;

    wr.bind_mw.mw = mw;
    wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
    wr.bind_mw.bind_info.mr = mr;
    wr.bind_mw.bind_info.addr = addr;
    wr.bind_mw.bind_info.length = len;
    wr.bind_mw.bind_info.mw_access_flags = access;
    if (ibv_post_send(owner, &wr, &bad)) {
        FAIL("IBV_WR_BIND_MW: %s", strerror(errno));
    }
    expect_wc(id, IBV_WC_BIND_MW, IBV_WC_SUCCESS, "type-2 bind");
    return wr.bind_mw.rkey;
}

int main(int argc, char **argv)
{
    const char *want = "mlx5_0";
    struct ibv_device_attr da;
    struct ibv_port_attr port;
    struct ibv_mw *mw1, *mw2;
    uint32_t old, rk;
    int opt, i;

    while ((opt = getopt(argc, argv, "d:")) != -1) {
        if (opt == 'd') {
            want = optarg;
        } else {
            return 2;
        }
    }
    ctx = gt_open(want);
    if (ibv_query_device(ctx, &da) || ibv_query_port(ctx, 1, &port)) {
        FAIL("query");
    }
    CHECK(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW, "no IBV_DEVICE_MEM_WINDOW");
    CHECK(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B, "no MEM_WINDOW_TYPE_2B");
    CHECK(da.max_mw > 0, "max_mw is 0");
    lid = port.lid;
    pd = ibv_alloc_pd(ctx);
    cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    mem = aligned_alloc(4096, BUF);
    local = aligned_alloc(4096, BUF);
    memset(mem, 0xcc, BUF);
    fill(local, BUF, 3);
    mr = ibv_reg_mr(pd, mem, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
    lmr = ibv_reg_mr(pd, local, BUF, IBV_ACCESS_LOCAL_WRITE);
    if (!pd || !cq || !mr || !lmr) {
        FAIL("PD/CQ/MR: %s", strerror(errno));
    }
    new_pair();

    /* 1. type 1 */
    mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
    if (!mw1) {
        FAIL("ibv_alloc_mw(type 1): %s", strerror(errno));
    }
    {
        struct ibv_mw_bind b = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
                                 .bind_info = { .mr = mr, .addr = (uintptr_t)mem + 8192,
                                                .length = 4096,
                                                .mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
                                                                   IBV_ACCESS_REMOTE_READ } };
        if (ibv_bind_mw(owner, mw1, &b)) {
            FAIL("ibv_bind_mw: %s", strerror(errno));
        }
        expect_wc(1, IBV_WC_BIND_MW, IBV_WC_SUCCESS, "type-1 bind");
    }
    peer_rdma(IBV_WR_RDMA_WRITE, (uintptr_t)mem + 8192 + 100, mw1->rkey, 3000, 0,
              IBV_WC_SUCCESS, "write through type-1 window");
    CHECK(!memcmp(mem + 8192 + 100, local, 3000), "type 1: written bytes differ");
    CHECK(mem[8192 + 99] == 0xcc && mem[8192 + 3100] == 0xcc, "type 1: neighbours changed");
    peer_rdma(IBV_WR_RDMA_READ, (uintptr_t)mem + 8192, mw1->rkey, 4096, 16384,
              IBV_WC_SUCCESS, "read through type-1 window");
    CHECK(!memcmp(local + 16384, mem + 8192, 4096), "type 1: read bytes differ");
    printf("type 1 window 0x%x: 3000 B written and 4 KiB read back at its place\n", mw1->rkey);
    old = mw1->rkey;
    {
        struct ibv_mw_bind b = { .wr_id = 2, .send_flags = IBV_SEND_SIGNALED,
                                 .bind_info = { .mr = mr, .addr = (uintptr_t)mem,
                                                .length = 1024,
                                                .mw_access_flags = IBV_ACCESS_REMOTE_WRITE } };
        if (ibv_bind_mw(owner, mw1, &b)) {
            FAIL("ibv_bind_mw (rebind): %s", strerror(errno));
        }
        expect_wc(2, IBV_WC_BIND_MW, IBV_WC_SUCCESS, "type-1 rebind");
    }
    CHECK(mw1->rkey != old, "rebind kept the rkey");
    peer_rdma(IBV_WR_RDMA_WRITE, (uintptr_t)mem, mw1->rkey, 1024, 0, IBV_WC_SUCCESS,
              "write through the rebound window");
    CHECK(!memcmp(mem, local, 1024), "type 1 rebound: bytes differ");
    peer_rdma(IBV_WR_RDMA_WRITE, (uintptr_t)mem, old, 8, 0, IBV_WC_REM_ACCESS_ERR,
              "write with the old type-1 rkey");
    printf("type 1 rebind: new rkey 0x%x works, old 0x%x refused\n", mw1->rkey, old);

    /* 2. type 2, zero based; SEND with Invalidate */
    new_pair();
    mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
    if (!mw2) {
        FAIL("ibv_alloc_mw(type 2): %s", strerror(errno));
    }
    memset(mem, 0xcc, BUF);
    rk = bind_type2(mw2, (uintptr_t)mem + 20000, 10000, IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED, 3);
    peer_rdma(IBV_WR_RDMA_WRITE, 500, rk, 9000, 100, IBV_WC_SUCCESS,
              "write through a zero-based type-2 window");
    CHECK(!memcmp(mem + 20500, local + 100, 9000), "type 2: written bytes differ");
    CHECK(mem[20499] == 0xcc && mem[29500] == 0xcc, "type 2: neighbours changed");
    {
        struct ibv_sge rs = { .addr = (uintptr_t)mem + 60000, .length = 64, .lkey = mr->lkey };
        struct ibv_recv_wr rwr = { .wr_id = 4, .sg_list = &rs, .num_sge = 1 }, *rbad;
        struct ibv_sge ss = { .addr = (uintptr_t)local, .length = 16, .lkey = lmr->lkey };
        struct ibv_send_wr swr = { .wr_id = 5, .sg_list = &ss, .num_sge = 1,
                                   .opcode = IBV_WR_SEND_WITH_INV,
                                   .send_flags = IBV_SEND_SIGNALED,
                                   .invalidate_rkey = rk }, *sbad;
        struct ibv_wc a, b;

        if (ibv_post_recv(owner, &rwr, &rbad) || ibv_post_send(peer, &swr, &sbad)) {
            FAIL("SEND_WITH_INV: %s", strerror(errno));
        }
        a = wait_wc();
        b = wait_wc();
        if (a.wr_id != 4) {
            struct ibv_wc t = a;
            a = b;
            b = t;
        }
        CHECK(b.wr_id == 5 && b.status == IBV_WC_SUCCESS, "SEND_WITH_INV: send %s",
              ibv_wc_status_str(b.status));
        CHECK(a.status == IBV_WC_SUCCESS && a.opcode == IBV_WC_RECV, "SEND_WITH_INV: recv %s",
              ibv_wc_status_str(a.status));
        CHECK(a.wc_flags & IBV_WC_WITH_INV, "receive completion lacks IBV_WC_WITH_INV");
        CHECK(a.invalidated_rkey == rk, "invalidated rkey 0x%x, sent 0x%x", a.invalidated_rkey,
              rk);
    }
    peer_rdma(IBV_WR_RDMA_WRITE, 0, rk, 8, 0, IBV_WC_REM_ACCESS_ERR,
              "write after remote invalidation");
    printf("type 2 window 0x%x: zero-based write, SEND with Invalidate, then refused\n", rk);

    /* 3. type 2: LOCAL_INV */
    new_pair();
    rk = bind_type2(mw2, (uintptr_t)mem, 4096, IBV_ACCESS_REMOTE_WRITE, 6);
    peer_rdma(IBV_WR_RDMA_WRITE, (uintptr_t)mem + 8, rk, 8, 0, IBV_WC_SUCCESS,
              "write through the re-bound type-2 window");
    {
        struct ibv_send_wr wr = { .wr_id = 7, .opcode = IBV_WR_LOCAL_INV,
                                  .send_flags = IBV_SEND_SIGNALED,
                                  .invalidate_rkey = rk }, *bad;
        if (ibv_post_send(owner, &wr, &bad)) {
            FAIL("IBV_WR_LOCAL_INV: %s", strerror(errno));
        }
        expect_wc(7, IBV_WC_LOCAL_INV, IBV_WC_SUCCESS, "local invalidate");
    }
    peer_rdma(IBV_WR_RDMA_WRITE, (uintptr_t)mem + 8, rk, 8, 0, IBV_WC_REM_ACCESS_ERR,
              "write after local invalidation");
    printf("type 2 LOCAL_INV: the window is refused afterwards\n");

    /* 4. beyond a window's end */
    new_pair();
    memset(mem, 0xcc, BUF);
    rk = bind_type2(mw2, (uintptr_t)mem + 4096, 4096, IBV_ACCESS_REMOTE_WRITE, 8);
    peer_rdma(IBV_WR_RDMA_WRITE, (uintptr_t)mem + 4096 + 4000, rk, 200, 0,
              IBV_WC_REM_ACCESS_ERR, "write across the window's end");
    for (i = 0; i < BUF; i++) {
        CHECK(mem[i] == 0xcc, "refused write changed byte %d", i);
    }
    printf("write across a window's end refused, memory untouched\n");
    printf("mw-check: OK (%d checks)\n", checks);
    return 0;
}
