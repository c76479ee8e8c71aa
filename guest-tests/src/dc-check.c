/*
 * dc-check: mlx5's dynamically connected transport, as mlx5dv_wr_set_dc_addr(3) (seed 002)
 * uses it, as a runnable, self-checking program. One process on one port (the device loops the
 * traffic back): DCTs created with mlx5dv_create_qp(MLX5DV_DCTYPE_DCT) receive from an SRQ;
 * DCIs (MLX5DV_DCTYPE_DCI, IBV_QPT_DRIVER) post with ibv_wr_* and name each WR's target with
 * mlx5dv_wr_set_dc_addr. Every byte that moves is checked.
 *
 *   1. The seed example: RDMA WRITE from a DCI to DCT A's memory.
 *   2. One DCI, one batch of WRs alternating between DCT A and DCT B (the DCI reconnects
 *      between them): SEND with immediate, RDMA WRITE, RDMA READ, CMP_SWP and FETCH_ADD. The
 *      receive completions carry the DCI's QP number (src_qp), the DCT's (qp_num), the
 *      immediate and the length.
 *   3. 80 DCIs each send to DCT A at once (more initiators than a DCT has contexts): every
 *      message arrives exactly once.
 *   4. A wrong DC access key: the DCI's WR completes with IBV_WC_RETRY_EXC_ERR, nothing is
 *      received; reset to RTS, the same DCI works again.
 *   5. A bad rkey: IBV_WC_REM_ACCESS_ERR at the DCI; DCT A still serves another DCI.
 *   6. DCTs destroyed (the kernel drains them and waits for the DCT_DRAINED event).
 *
 * Usage: dc-check [-d DEVICE]     exit status 0 when every check passed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <unistd.h>
#define GT_PROG "dc-check"
#define GT_WC_SPINS 200000000L      /* 80 initiators at once take a while under emulation */
#include "gt-verbs.h"
#include <infiniband/mlx5dv.h>

#define BUF         (1 << 20)
#define NDCI_MANY   80
#define KEY_A       0x1122334455667788ull
#define KEY_B       0x0badc0de0badc0deull

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_srq *srq;
static struct ibv_mr *mr;
static struct ibv_ah *ah;
static uint8_t *mem;
static uint16_t lid;

static struct ibv_wc wait_wc(struct ibv_cq *cq)
{
    return gt_wait_wc(cq, cq == scq ? "send CQ" : "receive CQ");
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        p[i] = (uint8_t)(i * 13 + seed * 101 + (i >> 9));
    }
}

static void post_srq_recv(uint64_t off, uint32_t len, uint64_t id)
{
    struct ibv_sge sge = { .addr = (uintptr_t)mem + off, .length = len, .lkey = mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

    if (ibv_post_srq_recv(srq, &wr, &bad)) {
        FAIL("ibv_post_srq_recv");
    }
}

static struct ibv_qp *create_dc(int type, uint64_t key)
{
    struct ibv_qp_init_attr_ex attr = {
        .qp_type = IBV_QPT_DRIVER,
        .send_cq = scq,
        .recv_cq = rcq,
        .srq = srq,
        .pd = pd,
        .comp_mask = IBV_QP_INIT_ATTR_PD,
        .cap = { .max_send_wr = 64, .max_send_sge = 2 },
        .sq_sig_all = 0,
    };
    struct mlx5dv_qp_init_attr dv = { .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC };
    struct ibv_qp *qp;

    if (type == MLX5DV_DCTYPE_DCI) {
        attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND_WITH_IMM |
                              IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
                              IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND;
    } else {
        attr.cap.max_send_wr = 0;
        attr.cap.max_send_sge = 0;
    }
    dv.dc_init_attr.dc_type = type;
    dv.dc_init_attr.dct_access_key = key;
    qp = mlx5dv_create_qp(ctx, &attr, &dv);
    if (!qp) {
        FAIL("mlx5dv_create_qp(%s): %s", type == MLX5DV_DCTYPE_DCI ? "DCI" : "DCT",
             strerror(errno));
    }
    return qp;
}

static void dct_ready(struct ibv_qp *qp)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
        .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                           IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE,
    };

    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS)) {
        FAIL("DCT to INIT");
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.min_rnr_timer = 1;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER |
                      IBV_QP_AV)) {
        FAIL("DCT to RTR: %s", strerror(errno));
    }
}

static void dci_ready(struct ibv_qp *qp, int timeout, int retry)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1 };

    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT)) {
        FAIL("DCI to INIT");
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU)) {
        FAIL("DCI to RTR: %s", strerror(errno));
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = timeout;
    a.retry_cnt = retry;
    a.rnr_retry = 7;
    a.sq_psn = 0x123;
    a.max_rd_atomic = 4;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
        FAIL("DCI to RTS: %s", strerror(errno));
    }
}

/* Post one WR on a DCI to (dctn, key); @op selects the verb. */
enum { W_WRITE, W_SEND_IMM, W_READ, W_CAS, W_FAA, W_SEND };
static void dci_post(struct ibv_qp *qp, int op, uint64_t id, uint64_t loff, uint32_t len,
                     uint64_t roff, uint32_t rkey, uint32_t dctn, uint64_t key)
{
    struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
    struct mlx5dv_qp_ex *mqx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
    uint64_t raddr = (uintptr_t)mem + roff;

    ibv_wr_start(qx);
    qx->wr_id = id;
    qx->wr_flags = IBV_SEND_SIGNALED;
    switch (op) {
    case W_WRITE: ibv_wr_rdma_write(qx, rkey, raddr); break;
    case W_SEND_IMM: ibv_wr_send_imm(qx, htobe32(0xc0ffee00u + (uint32_t)id)); break;
    case W_READ: ibv_wr_rdma_read(qx, rkey, raddr); break;
    case W_CAS: ibv_wr_atomic_cmp_swp(qx, rkey, raddr, 0x1111, 0x2222); break;
    case W_FAA: ibv_wr_atomic_fetch_add(qx, rkey, raddr, 5); break;
    default: ibv_wr_send(qx); break;
    }
    /* the seed's setter: the target of the WR just started */
    mlx5dv_wr_set_dc_addr(mqx, ah, dctn, key);
    ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)mem + loff, len);
    if (ibv_wr_complete(qx)) {
        FAIL("ibv_wr_complete");
    }
}

static void expect_send(uint64_t id, enum ibv_wc_status st, enum ibv_wc_opcode opcode)
{
    struct ibv_wc wc = wait_wc(scq);

    CHECK(wc.wr_id == id && wc.status == st, "send wr %llu: got wr %llu status %s (want %s)",
          (unsigned long long)id, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
          ibv_wc_status_str(st));
    if (st == IBV_WC_SUCCESS) {
        CHECK(wc.opcode == opcode, "send wr %llu: opcode %d, want %d",
              (unsigned long long)id, wc.opcode, opcode);
    }
}

static void expect_recv(uint64_t id, uint32_t len, uint32_t src_qp, uint32_t dctn, int imm)
{
    struct ibv_wc wc = wait_wc(rcq);

    CHECK(wc.status == IBV_WC_SUCCESS, "recv: %s", ibv_wc_status_str(wc.status));
    CHECK(wc.wr_id == id, "recv wr %llu, want %llu", (unsigned long long)wc.wr_id,
          (unsigned long long)id);
    CHECK(wc.byte_len == len, "recv length %u, want %u", wc.byte_len, len);
    CHECK(wc.src_qp == src_qp, "recv src_qp 0x%x, want the DCI 0x%x", wc.src_qp, src_qp);
    CHECK(wc.qp_num == dctn, "recv qp_num 0x%x, want the DCT 0x%x", wc.qp_num, dctn);
    if (imm >= 0) {
        CHECK(wc.opcode == IBV_WC_RECV && (wc.wc_flags & IBV_WC_WITH_IMM) &&
              be32toh(wc.imm_data) == 0xc0ffee00u + (uint32_t)imm,
              "recv: no immediate 0x%x (flags 0x%x imm 0x%x)", 0xc0ffee00u + imm,
              wc.wc_flags, be32toh(wc.imm_data));
    }
}

static void dci_reset_to_rts(struct ibv_qp *qp)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

    if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
        FAIL("DCI to RESET");
    }
    dci_ready(qp, 14, 7);
}

int main(int argc, char **argv)
{
    const char *dev = "mlx5_0";
    struct ibv_port_attr port;
    struct ibv_ah_attr aha = { .port_num = 1 };
    struct ibv_qp *dct_a, *dct_b, *dci, *dci2, *many[NDCI_MANY];
    uint32_t rkey;
    int i, opt;

    while ((opt = getopt(argc, argv, "d:")) != -1) {
        if (opt == 'd') {
            dev = optarg;
        }
    }
    ctx = gt_open(dev);
    if (ibv_query_port(ctx, 1, &port)) {
        FAIL("ibv_query_port");
    }
    lid = port.lid;
    pd = ibv_alloc_pd(ctx);
    scq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
    rcq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
    {
        struct ibv_srq_init_attr sa = { .attr = { .max_wr = 128, .max_sge = 1 } };
        srq = ibv_create_srq(pd, &sa);
    }
    mem = aligned_alloc(4096, BUF);
    if (!pd || !scq || !rcq || !srq || !mem) {
        FAIL("resources");
    }
    memset(mem, 0, BUF);
    mr = ibv_reg_mr(pd, mem, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
    aha.dlid = lid;
    ah = ibv_create_ah(pd, &aha);
    if (!mr || !ah) {
        FAIL("ibv_reg_mr/ibv_create_ah");
    }
    rkey = mr->rkey;

    dct_a = create_dc(MLX5DV_DCTYPE_DCT, KEY_A);
    dct_b = create_dc(MLX5DV_DCTYPE_DCT, KEY_B);
    dct_ready(dct_a);
    dct_ready(dct_b);
    CHECK(dct_a->qp_num != dct_b->qp_num && dct_a->qp_num, "DCT numbers 0x%x 0x%x",
          dct_a->qp_num, dct_b->qp_num);
    dci = create_dc(MLX5DV_DCTYPE_DCI, 0);
    dci2 = create_dc(MLX5DV_DCTYPE_DCI, 0);
    dci_ready(dci, 14, 7);
    dci_ready(dci2, 14, 7);

    /* 1. the seed example: RDMA WRITE through a DCI */
    fill(mem, 5000, 1);
    dci_post(dci, W_WRITE, 1, 0, 5000, 0x10000, rkey, dct_a->qp_num, KEY_A);
    expect_send(1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
    CHECK(!memcmp(mem, mem + 0x10000, 5000), "RDMA WRITE through the DCI: data differs");
    CHECK(mem[0x10000 + 5000] == 0, "RDMA WRITE wrote past its end");

    /* 2. every operation, alternating between two DCTs in one batch */
    fill(mem + 0x20000, 3000, 2);
    fill(mem + 0x40000, 7000, 3);
    post_srq_recv(0x30000, 4096, 100);
    post_srq_recv(0x31000, 4096, 101);
    memset(mem + 0x60000, 0, 16);
    mem[0x60000] = 0x11; mem[0x60001] = 0x11;      /* 0x1111 */
    mem[0x60008] = 37;
    dci_post(dci, W_SEND_IMM, 10, 0x20000, 3000, 0, 0, dct_a->qp_num, KEY_A);
    dci_post(dci, W_WRITE, 11, 0x20000, 3000, 0x50000, rkey, dct_b->qp_num, KEY_B);
    dci_post(dci, W_READ, 12, 0x58000, 7000, 0x40000, rkey, dct_a->qp_num, KEY_A);
    dci_post(dci, W_CAS, 13, 0x61000, 8, 0x60000, rkey, dct_b->qp_num, KEY_B);
    dci_post(dci, W_FAA, 14, 0x61008, 8, 0x60008, rkey, dct_a->qp_num, KEY_A);
    dci_post(dci, W_SEND_IMM, 15, 0x20000, 2000, 0, 0, dct_b->qp_num, KEY_B);
    expect_send(10, IBV_WC_SUCCESS, IBV_WC_SEND);
    expect_send(11, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
    expect_send(12, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
    expect_send(13, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
    expect_send(14, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
    expect_send(15, IBV_WC_SUCCESS, IBV_WC_SEND);
    expect_recv(100, 3000, dci->qp_num, dct_a->qp_num, 10);
    expect_recv(101, 2000, dci->qp_num, dct_b->qp_num, 15);
    CHECK(!memcmp(mem + 0x30000, mem + 0x20000, 3000), "SEND to DCT A: data differs");
    CHECK(!memcmp(mem + 0x31000, mem + 0x20000, 2000), "SEND to DCT B: data differs");
    CHECK(!memcmp(mem + 0x50000, mem + 0x20000, 3000), "WRITE to DCT B: data differs");
    CHECK(!memcmp(mem + 0x58000, mem + 0x40000, 7000), "READ from DCT A: data differs");
    CHECK(mem[0x61000] == 0x11 && mem[0x61001] == 0x11 && mem[0x60000] == 0x22 &&
          mem[0x60001] == 0x22, "CMP_SWP: original %02x%02x, now %02x%02x",
          mem[0x61001], mem[0x61000], mem[0x60001], mem[0x60000]);
    CHECK(mem[0x61008] == 37 && mem[0x60008] == 42, "FETCH_ADD: original %u, now %u",
          mem[0x61008], mem[0x60008]);

    /* 3. more initiators than a DCT has contexts, all at once */
    for (i = 0; i < NDCI_MANY; i++) {
        many[i] = create_dc(MLX5DV_DCTYPE_DCI, 0);
        dci_ready(many[i], 14, 7);
        post_srq_recv(0x80000 + i * 512, 512, 1000 + i);
        fill(mem + 0xc0000 + i * 512, 100 + i, 10 + i);
    }
    for (i = 0; i < NDCI_MANY; i++) {
        dci_post(many[i], W_SEND, 2000 + i, 0xc0000 + i * 512, 100 + i, 0, 0, dct_a->qp_num,
                 KEY_A);
    }
    {
        int seen[NDCI_MANY] = { 0 };
        for (i = 0; i < NDCI_MANY; i++) {
            struct ibv_wc wc = wait_wc(scq);
            CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id >= 2000 &&
                  wc.wr_id < 2000 + NDCI_MANY, "many: send wr %llu status %s",
                  (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
        }
        for (i = 0; i < NDCI_MANY; i++) {
            struct ibv_wc wc = wait_wc(rcq);
            int k;
            CHECK(wc.status == IBV_WC_SUCCESS, "many: recv %s", ibv_wc_status_str(wc.status));
            for (k = 0; k < NDCI_MANY && many[k]->qp_num != wc.src_qp; k++) {
            }
            CHECK(k < NDCI_MANY && !seen[k]++, "many: message from 0x%x unexpected or twice",
                  wc.src_qp);
            CHECK(wc.byte_len == 100u + k && !memcmp(mem + 0x80000 + (wc.wr_id - 1000) * 512,
                                                     mem + 0xc0000 + k * 512, 100 + k),
                  "many: message of DCI %d differs", k);
        }
    }

    /* 4. a wrong access key: dropped by the DCT, the DCI runs out of retries */
    post_srq_recv(0x70000, 4096, 300);
    {
        struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
        ibv_modify_qp(dci2, &a, IBV_QP_STATE);
        dci_ready(dci2, 8, 1);          /* ~1 ms per try, one retry */
    }
    dci_post(dci2, W_SEND, 30, 0x20000, 64, 0, 0, dct_a->qp_num, KEY_A ^ 1);
    expect_send(30, IBV_WC_RETRY_EXC_ERR, IBV_WC_SEND);
    {
        struct ibv_wc wc;
        CHECK(ibv_poll_cq(rcq, 1, &wc) == 0, "a request with a wrong key was received");
    }
    dci_reset_to_rts(dci2);
    dci_post(dci2, W_SEND, 31, 0x20000, 64, 0, 0, dct_a->qp_num, KEY_A);
    expect_send(31, IBV_WC_SUCCESS, IBV_WC_SEND);
    expect_recv(300, 64, dci2->qp_num, dct_a->qp_num, -1);

    /* 5. a bad rkey fails the DCI, not the DCT */
    dci_post(dci2, W_WRITE, 40, 0x20000, 64, 0x10000, rkey ^ 0x100, dct_a->qp_num, KEY_A);
    expect_send(40, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE);
    post_srq_recv(0x71000, 4096, 301);
    dci_post(dci, W_SEND, 41, 0x20000, 80, 0, 0, dct_a->qp_num, KEY_A);
    expect_send(41, IBV_WC_SUCCESS, IBV_WC_SEND);
    expect_recv(301, 80, dci->qp_num, dct_a->qp_num, -1);

    /* 6. tear down: DCTs are drained first */
    for (i = 0; i < NDCI_MANY; i++) {
        if (ibv_destroy_qp(many[i])) {
            FAIL("destroy DCI");
        }
    }
    if (ibv_destroy_qp(dci) || ibv_destroy_qp(dci2) || ibv_destroy_qp(dct_a) ||
        ibv_destroy_qp(dct_b)) {
        FAIL("destroy QPs: %s", strerror(errno));
    }
    ibv_destroy_ah(ah);
    ibv_dereg_mr(mr);
    ibv_destroy_srq(srq);
    ibv_destroy_cq(scq);
    ibv_destroy_cq(rcq);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    printf("dc-check: OK (%d checks)\n", checks);
    return 0;
}
