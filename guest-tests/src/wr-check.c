/*
 * wr-check: the extended send API (ibv_wr_*, seed 000) where rdma-verify, dc-check and
 * mw-check do not reach: UC, UD through ibv_wr_set_ud_addr, the inline and SGE-list setters,
 * SEND with Invalidate / with immediate, RDMA WRITE with immediate, and XRC initiators doing
 * RDMA and atomics through ibv_wr_set_xrc_srqn. One process, one port, QPs connected to each
 * other over the port's own LID. Every QP that posts is made by ibv_create_qp_ex with
 * send_ops_flags naming exactly the operations it posts. After every step the whole of both
 * MRs is compared with a shadow copy (every byte moved where it should, nothing else touched),
 * and every completion's wr_id, status, opcode and where defined byte_len, imm_data,
 * invalidated_rkey and wc_flags (IBV_WC_WITH_IMM, IBV_WC_WITH_INV, IBV_WC_GRH) are checked.
 *
 *   1. RC, one ibv_wr_start/ibv_wr_complete batch of six mixed WRs, two of them unsignaled:
 *      RDMA WRITE with ibv_wr_set_inline_data (its source overwritten right after the setter),
 *      RDMA WRITE with immediate from a 4-entry ibv_wr_set_sge_list over two MRs (one entry
 *      empty; 4.5 KB, several packets), SEND with immediate with ibv_wr_set_inline_data_list,
 *      SEND with an SGE list, a zero-length SEND (inline, length 0), an RDMA WRITE. Only the
 *      signaled WRs complete, in order, the immediate ones with IBV_WC_WITH_IMM.
 *   2. RC SEND with Invalidate (ibv_wr_send_inv) of a type-2 memory window bound with
 *      ibv_wr_bind_mw, batched behind an RDMA WRITE through the window: the receive completes
 *      with IBV_WC_WITH_INV and invalidated_rkey; then the window refuses access.
 *   3. Inline limits: inline data of exactly max_inline_data as reported by ibv_create_qp_ex
 *      and ibv_query_qp, many times round a small send ring (WQEs wrapping its end); one byte
 *      more (ibv_wr_set_inline_data, and an ibv_wr_set_inline_data_list whose pieces fit but
 *      whose sum does not) makes ibv_wr_complete fail with ENOMEM (libmlx5) and nothing of
 *      that batch runs, a valid RDMA WRITE before it included; ibv_wr_abort discards a batch.
 *   4. SEND with Invalidate of a plain MR's rkey (an MR is not remotely invalidatable):
 *      the requester completes with IBV_WC_REM_INV_REQ_ERR, the receive in error, and the MR
 *      still works afterwards.
 *   5. UC: SEND from an SGE list (5 KB, several packets), SEND with immediate (inline), RDMA
 *      WRITE (inline list), RDMA WRITE with immediate, a zero-length RDMA WRITE with immediate,
 *      in one batch; then SEND with Invalidate of a type-2 window bound on the receiving UC QP.
 *   6. UD: ibv_wr_set_ud_addr before and after the data setters (SGE list, inline, inline
 *      list), SEND and SEND with immediate; a datagram with a wrong Q_Key completes at the
 *      sender and is dropped by the receiver; receive completions carry the source QPN and LID
 *      and byte_len with the 40-byte GRH room.
 *   7. XRC initiator: RDMA WRITE (SGE, and inline with the SRQN set after the data), RDMA READ
 *      into an SGE list over two MRs, compare-and-swap (matching and not), fetch-and-add, and
 *      RDMA WRITE with immediate, which consumes a receive of the named XRC SRQ and completes
 *      on that SRQ's CQ; all through ibv_wr_set_xrc_srqn, in one batch.
 *   8. send_ops_flags a QP type does not support (RDMA READ on UC, RDMA WRITE on UD) make
 *      ibv_create_qp_ex fail with EOPNOTSUPP.
 *
 * Usage: wr-check [-d DEVICE]     exit status 0 when every check passed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define GT_PROG "wr-check"
#include "gt-verbs.h"

#define MEM_SIZE    0x40000         /* MR 1 (all rights) */
#define MEM2_SIZE   0x10000         /* MR 2 (local write only): SGE pieces, READ targets */

/* MR 1 layout */
#define SRC         0x00000         /* pattern, only read by the device */
#define RC_DST      0x10000
#define RECV        0x20000         /* receive buffers (and READ targets), 64 KiB */
#define UC_DST      0x30000
#define XRC_DST     0x34000
#define XRC_RSRC    0x38000         /* READ source (pattern) */
#define WIN         0x3a000         /* memory window area */
#define ATOM        0x3f000         /* atomic targets and results */
/* MR 2 layout */
#define SRC2        0x0000
#define DST2        0x8000

#define RC_OPS      (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
                     IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE | \
                     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define UC_OPS      (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
                     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define UD_OPS      (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define XRC_OPS     (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
                     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
                     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define UD_QKEY     0x11110000u
#define WC_FLAGS    (IBV_WC_WITH_IMM | IBV_WC_WITH_INV | IBV_WC_GRH)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_mr *mr, *mr2;
static uint8_t *mem, *mem2, *exp_mem, *exp_mem2;
static uint16_t lid;

/* ---- memory and its shadow ------------------------------------------------------------- */

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 31 + seed * 17 + (i >> 8) + 3);
    }
}

static uint64_t A(uint64_t off) { return (uintptr_t)mem + off; }
static uint64_t A2(uint64_t off) { return (uintptr_t)mem2 + off; }

/* the shadow byte for a registered address */
static uint8_t *exp_of(uint64_t addr, size_t len)
{
    if (addr >= A(0) && addr + len <= A(MEM_SIZE)) {
        return exp_mem + (addr - A(0));
    }
    if (addr >= A2(0) && addr + len <= A2(MEM2_SIZE)) {
        return exp_mem2 + (addr - A2(0));
    }
    FAIL("address 0x%llx+%zu is in no MR", (unsigned long long)addr, len);
}

/* the message an SGE list gathers (from the shadow, which equals memory) */
static size_t msg_of_sgl(const struct ibv_sge *sg, size_t n, uint8_t *out)
{
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        memcpy(out + len, exp_of(sg[i].addr, sg[i].length), sg[i].length);
        len += sg[i].length;
    }
    return len;
}

static size_t msg_of_bufs(const struct ibv_data_buf *b, size_t n, uint8_t *out)
{
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        memcpy(out + len, b[i].addr, b[i].length);
        len += b[i].length;
    }
    return len;
}

/* the device is to put @len bytes of @data at @addr */
static void land(uint64_t addr, const void *data, size_t len)
{
    memcpy(exp_of(addr, len), data, len);
}

/* ... scattered over a receive SGE list */
static void land_sgl(const struct ibv_sge *sg, size_t n, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < n && len; i++) {
        size_t c = len < sg[i].length ? len : sg[i].length;
        land(sg[i].addr, data, c);
        data += c;
        len -= c;
    }
}

/* bytes whose content is undefined (an errored receive, a UD receive's GRH room) */
static void accept_bytes(uint64_t addr, size_t len)
{
    memcpy(exp_of(addr, len), (void *)(uintptr_t)addr, len);
}

/* both MRs, every byte, against the shadow */
static void verify(const char *what)
{
    size_t i = 0, j = 0;

    while (i < MEM_SIZE && mem[i] == exp_mem[i]) {
        i++;
    }
    while (j < MEM2_SIZE && mem2[j] == exp_mem2[j]) {
        j++;
    }
    CHECK(i == MEM_SIZE, "%s: MR 1 byte 0x%zx is 0x%02x, expected 0x%02x", what, i, mem[i],
          exp_mem[i]);
    CHECK(j == MEM2_SIZE, "%s: MR 2 byte 0x%zx is 0x%02x, expected 0x%02x", what, j, mem2[j],
          exp_mem2[j]);
}

/* ---- completions ----------------------------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static struct ibv_wc wait_wc(struct ibv_cq *cq, const char *what)
{
    int64_t end = now_ms() + 20000;
    struct ibv_wc wc;
    int n;

    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
        if (now_ms() > end) {
            FAIL("%s: no completion on the %s CQ within 20 s", what,
                 cq == scq ? "send" : "receive");
        }
    }
    if (n < 0) {
        FAIL("%s: ibv_poll_cq: %d", what, n);
    }
    return wc;
}

/* nothing (more) completes on @cq within @ms */
static void expect_none(struct ibv_cq *cq, int ms, const char *what)
{
    int64_t end = now_ms() + ms;
    struct ibv_wc wc;
    int n;

    do {
        n = ibv_poll_cq(cq, 1, &wc);
        if (n) {
            break;
        }
        usleep(1000);
    } while (now_ms() < end);
    CHECK(n == 0, "%s: unexpected completion on the %s CQ: wr_id %llu status %s opcode %d",
          what, cq == scq ? "send" : "receive", (unsigned long long)wc.wr_id,
          ibv_wc_status_str(wc.status), wc.opcode);
}

static void drain(void)
{
    struct ibv_wc wc;

    while (ibv_poll_cq(scq, 1, &wc) > 0 || ibv_poll_cq(rcq, 1, &wc) > 0) {
    }
}

/* the next send completion: @id with @st; when successful, opcode @op and the immediate flag
 * exactly when @imm */
static struct ibv_wc expect_send(uint64_t id, enum ibv_wc_opcode op, enum ibv_wc_status st,
                                 int imm, const char *what)
{
    struct ibv_wc wc = wait_wc(scq, what);

    CHECK(wc.wr_id == id, "%s: send completion for wr_id %llu (status %s), expected %llu",
          what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
          (unsigned long long)id);
    CHECK(wc.status == st, "%s: status %s (vendor_err 0x%x), expected %s", what,
          ibv_wc_status_str(wc.status), wc.vendor_err, ibv_wc_status_str(st));
    if (st == IBV_WC_SUCCESS) {
        CHECK(wc.opcode == op, "%s: opcode %d, expected %d", what, wc.opcode, op);
        CHECK(!!(wc.wc_flags & IBV_WC_WITH_IMM) == !!imm, "%s: send wc_flags 0x%x", what,
              wc.wc_flags);
        if (op == IBV_WC_COMP_SWAP || op == IBV_WC_FETCH_ADD) {
            CHECK(wc.byte_len == 8, "%s: byte_len %u, expected 8", what, wc.byte_len);
        }
    }
    return wc;
}

/*
 * The next receive completion: @id on QP @qpn, successful, opcode @op, @len bytes, flags
 * (of WITH_IMM, WITH_INV, GRH) exactly @flags, with immediate (host order) or invalidated
 * rkey @val.
 */
static struct ibv_wc expect_recv(uint64_t id, uint32_t qpn, enum ibv_wc_opcode op,
                                 uint32_t len, unsigned flags, uint32_t val, const char *what)
{
    struct ibv_wc wc = wait_wc(rcq, what);

    CHECK(wc.wr_id == id, "%s: receive completion for wr_id %llu (status %s), expected %llu",
          what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
          (unsigned long long)id);
    CHECK(wc.status == IBV_WC_SUCCESS, "%s: receive status %s (vendor_err 0x%x)", what,
          ibv_wc_status_str(wc.status), wc.vendor_err);
    CHECK(wc.qp_num == qpn, "%s: receive on QP 0x%x, expected 0x%x", what, wc.qp_num, qpn);
    CHECK(wc.opcode == op, "%s: receive opcode %d, expected %d", what, wc.opcode, op);
    CHECK(wc.byte_len == len, "%s: byte_len %u, expected %u", what, wc.byte_len, len);
    CHECK((wc.wc_flags & WC_FLAGS) == flags, "%s: wc_flags 0x%x, expected 0x%x", what,
          wc.wc_flags & WC_FLAGS, flags);
    if (flags & IBV_WC_WITH_IMM) {
        CHECK(be32toh(wc.imm_data) == val, "%s: imm_data 0x%x, expected 0x%x", what,
              be32toh(wc.imm_data), val);
    }
    if (flags & IBV_WC_WITH_INV) {
        CHECK(wc.invalidated_rkey == val, "%s: invalidated_rkey 0x%x, expected 0x%x", what,
              wc.invalidated_rkey, val);
    }
    return wc;
}

static void post_recv(struct ibv_qp *qp, uint64_t id, struct ibv_sge *sg, int n)
{
    struct ibv_recv_wr wr = { .wr_id = id, .sg_list = sg, .num_sge = n }, *bad;

    if (ibv_post_recv(qp, &wr, &bad)) {
        FAIL("ibv_post_recv: %s", strerror(errno));
    }
}

static void complete(struct ibv_qp_ex *qx, const char *what)
{
    int r = ibv_wr_complete(qx);

    if (r) {
        FAIL("%s: ibv_wr_complete: %d (%s)", what, r, strerror(r));
    }
}

/* ---- QPs --------------------------------------------------------------------------------- */

static struct ibv_qp *create_qp(enum ibv_qp_type type, uint64_t ops, uint32_t max_send_wr,
                                uint32_t max_inline, uint32_t *got_inline)
{
    struct ibv_qp_init_attr_ex a = {
        .qp_type = type, .send_cq = scq, .recv_cq = rcq, .pd = pd,
        .comp_mask = IBV_QP_INIT_ATTR_PD,
        .cap = { .max_send_wr = max_send_wr, .max_recv_wr = 32, .max_send_sge = 4,
                 .max_recv_sge = 4, .max_inline_data = max_inline },
    };
    struct ibv_qp *qp;

    if (ops) {
        a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        a.send_ops_flags = ops;
    }
    qp = ibv_create_qp_ex(ctx, &a);
    if (!qp) {
        FAIL("ibv_create_qp_ex(type %d, ops 0x%llx): %s", type, (unsigned long long)ops,
             strerror(errno));
    }
    if (got_inline) {
        *got_inline = a.cap.max_inline_data;
    }
    return qp;
}

/* RESET -> RTS of a connected (RC or UC) QP towards @dqpn on our own LID */
static void connect_qp(struct ibv_qp *qp, uint32_t dqpn, int uc)
{
    struct gt_conn c = { .dqpn = dqpn, .dlid = lid, .uc = uc, .psn = 0x100,
                         .access = IBV_ACCESS_REMOTE_WRITE | (uc ? 0 : IBV_ACCESS_REMOTE_READ) };

    gt_rc_connect(qp, &c);
}

static void ud_ready(struct ibv_qp *qp)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = UD_QKEY };

    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)) {
        FAIL("UD INIT: %s", strerror(errno));
    }
    a.qp_state = IBV_QPS_RTR;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
        FAIL("UD RTR: %s", strerror(errno));
    }
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 0x42;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
        FAIL("UD RTS: %s", strerror(errno));
    }
}

/* RC pair: @a posts with the ibv_wr_* API (RC_OPS), @b receives (and binds windows when
 * @b_ops has IBV_QP_EX_WITH_BIND_MW) */
static struct ibv_qp *rc_a, *rc_b;
static uint32_t rc_inline;

static void new_rc_pair(uint32_t max_send_wr, uint64_t b_ops)
{
    if (rc_a) {
        ibv_destroy_qp(rc_a);
        ibv_destroy_qp(rc_b);
        drain();
    }
    rc_a = create_qp(IBV_QPT_RC, RC_OPS, max_send_wr, 256, &rc_inline);
    rc_b = create_qp(IBV_QPT_RC, b_ops, 16, 0, NULL);
    connect_qp(rc_a, rc_b->qp_num, 0);
    connect_qp(rc_b, rc_a->qp_num, 0);
}

/* ---- 1. RC: one batch of mixed WRs ------------------------------------------------------- */

static void rc_batch(void)
{
    struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(rc_a);
    uint8_t inl[200], l1[1], l2[60], l3[130], m102[8192], m103[256], m104[4096];
    struct ibv_data_buf bufs[3] = { { l1, sizeof(l1) }, { l2, sizeof(l2) }, { l3, sizeof(l3) } };
    struct ibv_sge sg102[4] = {
        { A(SRC + 100), 1000, mr->lkey }, { A2(SRC2 + 7), 0, mr2->lkey },
        { A2(SRC2 + 3000), 3000, mr2->lkey }, { A(SRC + 20001), 500, mr->lkey },
    };
    struct ibv_sge sg104[2] = { { A2(SRC2 + 9000), 2000, mr2->lkey },
                                { A(SRC + 7777), 1500, mr->lkey } };
    struct ibv_sge r1 = { A(RECV), 256, mr->lkey }, r2 = { A(RECV + 0x400), 256, mr->lkey };
    struct ibv_sge r3[2] = { { A(RECV + 0x800), 1000, mr->lkey },
                             { A2(DST2), 3000, mr2->lkey } };
    struct ibv_sge r4 = { A(RECV + 0x2000), 64, mr->lkey };
    size_t n102, n103, n104;

    fill(inl, sizeof(inl), 11);
    fill(l1, sizeof(l1), 12);
    fill(l2, sizeof(l2), 13);
    fill(l3, sizeof(l3), 14);
    /* receives, in the order the messages consume them */
    post_recv(rc_b, 201, &r1, 1);       /* the WRITE with immediate */
    post_recv(rc_b, 202, &r2, 1);       /* SEND with immediate */
    post_recv(rc_b, 203, r3, 2);        /* SEND, SGE list */
    post_recv(rc_b, 204, &r4, 1);       /* zero-length SEND */

    ibv_wr_start(qx);
    qx->wr_id = 101;
    qx->wr_flags = 0;                   /* unsignaled */
    ibv_wr_rdma_write(qx, mr->rkey, A(RC_DST));
    ibv_wr_set_inline_data(qx, inl, sizeof(inl));
    land(A(RC_DST), inl, sizeof(inl));
    memset(inl, 0xee, sizeof(inl));     /* copied by the setter: reusable at once */

    qx->wr_id = 102;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write_imm(qx, mr->rkey, A(RC_DST + 0x1000), htobe32(0x1234abcd));
    ibv_wr_set_sge_list(qx, 4, sg102);
    n102 = msg_of_sgl(sg102, 4, m102);

    qx->wr_id = 103;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send_imm(qx, htobe32(0xfeedf00d));
    n103 = msg_of_bufs(bufs, 3, m103);
    ibv_wr_set_inline_data_list(qx, 3, bufs);
    memset(l2, 0xee, sizeof(l2));

    qx->wr_id = 104;
    qx->wr_flags = 0;                   /* unsignaled */
    ibv_wr_send(qx);
    ibv_wr_set_sge_list(qx, 2, sg104);
    n104 = msg_of_sgl(sg104, 2, m104);

    qx->wr_id = 105;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send(qx);
    ibv_wr_set_inline_data(qx, inl, 0);

    qx->wr_id = 106;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(RC_DST + 0x4000));
    ibv_wr_set_sge(qx, mr2->lkey, A2(SRC2 + 0x4000), 8192);
    land(A(RC_DST + 0x4000), exp_of(A2(SRC2 + 0x4000), 8192), 8192);
    complete(qx, "RC batch");

    land(A(RC_DST + 0x1000), m102, n102);
    land(r2.addr, m103, n103);
    land_sgl(r3, 2, m104, n104);

    expect_send(102, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 1, "RC batch: WRITE with immediate");
    expect_send(103, IBV_WC_SEND, IBV_WC_SUCCESS, 1, "RC batch: SEND with immediate");
    expect_send(105, IBV_WC_SEND, IBV_WC_SUCCESS, 0, "RC batch: zero-length SEND");
    expect_send(106, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 0, "RC batch: WRITE");
    expect_recv(201, rc_b->qp_num, IBV_WC_RECV_RDMA_WITH_IMM, n102, IBV_WC_WITH_IMM, 0x1234abcd,
                "RC batch: WRITE with immediate received");
    expect_recv(202, rc_b->qp_num, IBV_WC_RECV, n103, IBV_WC_WITH_IMM, 0xfeedf00d,
                "RC batch: SEND with immediate (inline list) received");
    expect_recv(203, rc_b->qp_num, IBV_WC_RECV, n104, 0, 0,
                "RC batch: SEND (SGE list) received");
    expect_recv(204, rc_b->qp_num, IBV_WC_RECV, 0, 0, 0, "RC batch: zero-length SEND received");
    expect_none(scq, 100, "RC batch: the unsignaled WRs");
    expect_none(rcq, 1, "RC batch");
    verify("RC batch");
    printf("RC batch: inline WRITE, WRITE_IMM from a 4-entry SGE list (%zu B), SEND_IMM from an "
           "inline list (%zu B), SEND from an SGE list (%zu B), empty SEND, WRITE (8 KiB): "
           "4 signaled completions, 4 receives\n", n102, n103, n104);
}

/* A type-2 window over @bi, bound through @x (signaled, wr_id @id); returns its new rkey. */
static uint32_t bind_type2(struct ibv_qp_ex *x, uint64_t id, const struct ibv_mw_bind_info *bi,
                           struct ibv_mw **mwp, const char *what)
{
    struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
    uint32_t rk;

    if (!mw) {
        FAIL("ibv_alloc_mw(type 2): %s", strerror(errno));
    }
    rk = ibv_inc_rkey(mw->rkey);
    ibv_wr_start(x);
    x->wr_id = id;
    x->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_bind_mw(x, mw, rk, bi);
    complete(x, "ibv_wr_bind_mw");
    expect_send(id, IBV_WC_BIND_MW, IBV_WC_SUCCESS, 0, what);
    *mwp = mw;
    return rk;
}

/* ---- 2. RC: SEND with Invalidate of a type-2 window ---------------------------------------- */

static void rc_send_inv(void)
{
    struct ibv_qp_ex *ax = ibv_qp_to_qp_ex(rc_a), *bx = ibv_qp_to_qp_ex(rc_b);
    struct ibv_mw_bind_info bi = { .mr = mr, .addr = A(WIN), .length = 4096,
                                   .mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
                                                      IBV_ACCESS_REMOTE_READ };
    struct ibv_sge r = { A(RECV + 0x3000), 64, mr->lkey };
    uint8_t inl[32];
    struct ibv_mw *mw;
    uint32_t rk;

    rk = bind_type2(bx, 301, &bi, &mw, "type-2 bind (ibv_wr_bind_mw)");

    post_recv(rc_b, 302, &r, 1);
    fill(inl, sizeof(inl), 21);
    ibv_wr_start(ax);
    ax->wr_id = 303;
    ax->wr_flags = 0;
    ibv_wr_rdma_write(ax, rk, A(WIN + 1000));
    ibv_wr_set_sge(ax, mr->lkey, A(SRC + 0x3000), 3000);
    land(A(WIN + 1000), exp_of(A(SRC + 0x3000), 3000), 3000);
    ax->wr_id = 304;
    ax->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send_inv(ax, rk);
    ibv_wr_set_inline_data(ax, inl, sizeof(inl));
    land(r.addr, inl, sizeof(inl));
    complete(ax, "WRITE + SEND_INV batch");
    expect_send(304, IBV_WC_SEND, IBV_WC_SUCCESS, 0, "SEND with Invalidate");
    expect_recv(302, rc_b->qp_num, IBV_WC_RECV, sizeof(inl), IBV_WC_WITH_INV, rk,
                "SEND with Invalidate received");
    verify("WRITE through the window, SEND with Invalidate");

    /* the window is gone */
    ibv_wr_start(ax);
    ax->wr_id = 305;
    ax->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(ax, rk, A(WIN));
    ibv_wr_set_sge(ax, mr->lkey, A(SRC), 8);
    complete(ax, "WRITE after invalidation");
    expect_send(305, 0, IBV_WC_REM_ACCESS_ERR, 0, "WRITE through the invalidated window");
    verify("WRITE through the invalidated window");
    ibv_dealloc_mw(mw);
    printf("RC SEND with Invalidate: window 0x%x written through, invalidated remotely "
           "(IBV_WC_WITH_INV), then refused\n", rk);
}

/* ---- 3. inline limits, abort ------------------------------------------------------------- */

static void rc_inline_limits(void)
{
    struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(rc_a);
    struct ibv_qp_init_attr init;
    struct ibv_qp_attr qa;
    uint8_t *big = malloc(rc_inline + 1), *big2 = malloc(rc_inline + 1);
    struct ibv_data_buf over[2];
    int r, i;

    if (!big || !big2) {
        FAIL("malloc");
    }
    CHECK(!ibv_query_qp(rc_a, &qa, IBV_QP_CAP, &init), "ibv_query_qp: %s", strerror(errno));
    CHECK(init.cap.max_inline_data == rc_inline && rc_inline >= 256,
          "max_inline_data: %u at creation, %u from ibv_query_qp (256 requested)", rc_inline,
          init.cap.max_inline_data);

    /* exactly the limit, round the (small) ring several times: WQEs wrap its end */
    for (i = 0; i < 24; i++) {
        struct ibv_sge rs = { A(RECV + 0x4000 + (i % 4) * 0x400), 0x400, mr->lkey };
        fill(big, rc_inline, 40 + i);
        post_recv(rc_b, 400 + i, &rs, 1);
        ibv_wr_start(qx);
        qx->wr_id = 500 + i;
        qx->wr_flags = IBV_SEND_SIGNALED;
        if (i & 1) {
            ibv_wr_rdma_write_imm(qx, mr->rkey, A(RC_DST + 0x8000 + i * 0x200),
                                  htobe32(0x5000 + i));
            land(A(RC_DST + 0x8000 + i * 0x200), big, rc_inline);
        } else {
            ibv_wr_send(qx);
            land(rs.addr, big, rc_inline);
        }
        ibv_wr_set_inline_data(qx, big, rc_inline);
        complete(qx, "inline of max_inline_data");
        expect_send(500 + i, i & 1 ? IBV_WC_RDMA_WRITE : IBV_WC_SEND, IBV_WC_SUCCESS, i & 1,
                    "inline of max_inline_data");
        expect_recv(400 + i, rc_b->qp_num, i & 1 ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV,
                    rc_inline, i & 1 ? IBV_WC_WITH_IMM : 0, 0x5000 + i,
                    "inline of max_inline_data received");
        verify("inline of max_inline_data");
    }
    printf("inline: %d WRs of max_inline_data = %u B round an 8-WR send ring\n", i, rc_inline);

    /* one byte more: ibv_wr_complete fails and nothing of the batch runs */
    fill(big, rc_inline + 1, 60);
    ibv_wr_start(qx);
    qx->wr_id = 550;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(RC_DST + 0xf000));
    ibv_wr_set_sge(qx, mr->lkey, A(SRC), 64);
    qx->wr_id = 551;
    ibv_wr_send(qx);
    ibv_wr_set_inline_data(qx, big, rc_inline + 1);
    r = ibv_wr_complete(qx);
    CHECK(r == ENOMEM, "inline of max_inline_data + 1: ibv_wr_complete returned %d, expected "
          "ENOMEM", r);

    /* pieces that fit, a sum that does not */
    over[0].addr = big;
    over[0].length = rc_inline / 2;
    over[1].addr = big2;
    over[1].length = rc_inline - rc_inline / 2 + 1;
    ibv_wr_start(qx);
    qx->wr_id = 552;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(RC_DST + 0xf000));
    ibv_wr_set_inline_data_list(qx, 2, over);
    r = ibv_wr_complete(qx);
    CHECK(r == ENOMEM, "inline list of max_inline_data + 1: ibv_wr_complete returned %d, "
          "expected ENOMEM", r);

    /* ibv_wr_abort */
    ibv_wr_start(qx);
    qx->wr_id = 553;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(RC_DST + 0xf000));
    ibv_wr_set_sge(qx, mr->lkey, A(SRC), 64);
    ibv_wr_abort(qx);
    expect_none(scq, 200, "failed and aborted batches");
    expect_none(rcq, 1, "failed and aborted batches");
    verify("failed and aborted batches");

    /* the QP goes on as if they had never been */
    ibv_wr_start(qx);
    qx->wr_id = 554;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(RC_DST + 0xf000));
    ibv_wr_set_sge(qx, mr->lkey, A(SRC + 0x100), 64);
    land(A(RC_DST + 0xf000), exp_of(A(SRC + 0x100), 64), 64);
    complete(qx, "WRITE after the failed batches");
    expect_send(554, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 0, "WRITE after the failed batches");
    verify("WRITE after the failed batches");
    printf("inline: %u B (and an inline list summing to it) makes ibv_wr_complete fail with "
           "ENOMEM, nothing of the batch runs; ibv_wr_abort discards\n", rc_inline + 1);
    free(big);
    free(big2);
}

/* ---- 4. SEND with Invalidate of an MR (not invalidatable) -------------------------------- */

static void rc_send_inv_mr(void)
{
    struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(rc_a);
    struct ibv_sge r = { A(RECV + 0x5000), 64, mr->lkey };
    uint8_t inl[16];
    struct ibv_wc wc;

    fill(inl, sizeof(inl), 70);
    post_recv(rc_b, 601, &r, 1);
    ibv_wr_start(qx);
    qx->wr_id = 602;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send_inv(qx, mr->rkey);
    ibv_wr_set_inline_data(qx, inl, sizeof(inl));
    complete(qx, "SEND with Invalidate of an MR");
    expect_send(602, IBV_WC_SEND, IBV_WC_REM_INV_REQ_ERR, 0,
                "SEND with Invalidate of an MR's rkey (requester)");
    wc = wait_wc(rcq, "SEND with Invalidate of an MR's rkey (responder)");
    CHECK(wc.wr_id == 601 && wc.status != IBV_WC_SUCCESS && wc.status != IBV_WC_WR_FLUSH_ERR,
          "SEND with Invalidate of an MR's rkey: receive wr_id %llu status %s, expected 601 "
          "with an error", (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
    accept_bytes(r.addr, r.length);     /* an errored receive's buffer is undefined */
    verify("SEND with Invalidate of an MR's rkey");
    printf("SEND with Invalidate of MR rkey 0x%x: requester %s, receive %s\n", mr->rkey,
           ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR), ibv_wc_status_str(wc.status));

    /* the MR was not invalidated */
    new_rc_pair(16, 0);
    qx = ibv_qp_to_qp_ex(rc_a);
    ibv_wr_start(qx);
    qx->wr_id = 603;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(RC_DST + 0xf800));
    ibv_wr_set_sge(qx, mr->lkey, A(SRC + 0x900), 512);
    land(A(RC_DST + 0xf800), exp_of(A(SRC + 0x900), 512), 512);
    complete(qx, "WRITE with the MR's rkey");
    expect_send(603, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 0,
                "WRITE with the rkey a SEND tried to invalidate");
    verify("WRITE with the rkey a SEND tried to invalidate");
    printf("the MR still takes RDMA WRITEs\n");
}

/* ---- 5. UC ----------------------------------------------------------------------------- */

static void uc_batch(void)
{
    struct ibv_qp *a = create_qp(IBV_QPT_UC, UC_OPS, 16, 200, NULL);
    struct ibv_qp *b = create_qp(IBV_QPT_UC, 0, 16, 0, NULL);
    struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(a);
    struct ibv_sge sg[3] = { { A(SRC + 0x6000), 1800, mr->lkey },
                             { A2(SRC2 + 0x100), 2200, mr2->lkey },
                             { A(SRC + 0x9003), 1000, mr->lkey } };
    struct ibv_sge r1[2] = { { A(RECV + 0x6000), 3000, mr->lkey },
                             { A2(DST2 + 0x1000), 3000, mr2->lkey } };
    struct ibv_sge r2 = { A(RECV + 0x7800), 256, mr->lkey };
    struct ibv_sge r3 = { A(RECV + 0x7c00), 64, mr->lkey }, r4 = { A(RECV + 0x7d00), 64,
                                                                  mr->lkey };
    uint8_t m1[5000], inl[100], w1[50], w2[150], m3[200];
    struct ibv_data_buf bufs[2] = { { w1, sizeof(w1) }, { w2, sizeof(w2) } };
    size_t n1, n3;

    connect_qp(a, b->qp_num, 1);
    connect_qp(b, a->qp_num, 1);
    fill(inl, sizeof(inl), 80);
    fill(w1, sizeof(w1), 81);
    fill(w2, sizeof(w2), 82);
    post_recv(b, 701, r1, 2);
    post_recv(b, 702, &r2, 1);
    post_recv(b, 703, &r3, 1);
    post_recv(b, 704, &r4, 1);

    ibv_wr_start(qx);
    qx->wr_id = 711;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send(qx);
    ibv_wr_set_sge_list(qx, 3, sg);
    n1 = msg_of_sgl(sg, 3, m1);
    qx->wr_id = 712;
    qx->wr_flags = 0;
    ibv_wr_send_imm(qx, htobe32(0x0c0c0001));
    ibv_wr_set_inline_data(qx, inl, sizeof(inl));
    land(r2.addr, inl, sizeof(inl));
    qx->wr_id = 713;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(UC_DST + 3));
    n3 = msg_of_bufs(bufs, 2, m3);
    ibv_wr_set_inline_data_list(qx, 2, bufs);
    qx->wr_id = 714;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write_imm(qx, mr->rkey, A(UC_DST + 0x1000), htobe32(0x0c0c0002));
    ibv_wr_set_sge(qx, mr2->lkey, A2(SRC2 + 0x2000), 3000);
    land(A(UC_DST + 0x1000), exp_of(A2(SRC2 + 0x2000), 3000), 3000);
    qx->wr_id = 715;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write_imm(qx, mr->rkey, A(UC_DST + 0x2000), htobe32(0x0c0c0003));
    ibv_wr_set_sge(qx, mr->lkey, A(SRC), 0);
    complete(qx, "UC batch");
    land_sgl(r1, 2, m1, n1);
    land(A(UC_DST + 3), m3, n3);

    expect_send(711, IBV_WC_SEND, IBV_WC_SUCCESS, 0, "UC SEND (SGE list)");
    expect_send(713, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 0, "UC WRITE (inline list)");
    expect_send(714, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 1, "UC WRITE with immediate");
    expect_send(715, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 1, "UC empty WRITE with immediate");
    expect_recv(701, b->qp_num, IBV_WC_RECV, n1, 0, 0, "UC SEND (SGE list) received");
    expect_recv(702, b->qp_num, IBV_WC_RECV, sizeof(inl), IBV_WC_WITH_IMM, 0x0c0c0001,
                "UC SEND with immediate (inline) received");
    expect_recv(703, b->qp_num, IBV_WC_RECV_RDMA_WITH_IMM, 3000, IBV_WC_WITH_IMM, 0x0c0c0002,
                "UC WRITE with immediate received");
    expect_recv(704, b->qp_num, IBV_WC_RECV_RDMA_WITH_IMM, 0, IBV_WC_WITH_IMM, 0x0c0c0003,
                "UC empty WRITE with immediate received");
    expect_none(scq, 100, "UC batch: the unsignaled SEND");
    expect_none(rcq, 1, "UC batch");
    verify("UC batch");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    printf("UC batch: SEND from an SGE list (%zu B), SEND_IMM inline, WRITE from an inline "
           "list (%zu B), WRITE_IMM (3000 B), empty WRITE_IMM\n", n1, n3);
}

/* ---- 5b. UC: SEND with Invalidate of a type-2 window bound on the receiving QP ----------- */

static void uc_send_inv(void)
{
    struct ibv_qp *a = create_qp(IBV_QPT_UC, IBV_QP_EX_WITH_SEND_WITH_INV, 16, 64, NULL);
    struct ibv_qp *b = create_qp(IBV_QPT_UC, IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND, 16,
                                 0, NULL);
    struct ibv_qp_ex *ax = ibv_qp_to_qp_ex(a), *bx = ibv_qp_to_qp_ex(b);
    struct ibv_mw_bind_info bi = { .mr = mr, .addr = A(WIN), .length = 4096,
                                   .mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
    struct ibv_sge r = { A(RECV + 0x7e00), 64, mr->lkey };
    uint8_t inl[40];
    struct ibv_mw *mw;
    uint32_t rk;

    connect_qp(a, b->qp_num, 1);
    connect_qp(b, a->qp_num, 1);
    rk = bind_type2(bx, 801, &bi, &mw, "type-2 bind on a UC QP");
    post_recv(b, 802, &r, 1);
    fill(inl, sizeof(inl), 88);
    ibv_wr_start(ax);
    ax->wr_id = 803;
    ax->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send_inv(ax, rk);
    ibv_wr_set_inline_data(ax, inl, sizeof(inl));
    land(r.addr, inl, sizeof(inl));
    complete(ax, "UC SEND_INV");
    expect_send(803, IBV_WC_SEND, IBV_WC_SUCCESS, 0, "UC SEND with Invalidate");
    expect_recv(802, b->qp_num, IBV_WC_RECV, sizeof(inl), IBV_WC_WITH_INV, rk,
                "UC SEND with Invalidate received");
    verify("UC SEND with Invalidate");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_dealloc_mw(mw);
    printf("UC SEND with Invalidate: window 0x%x invalidated remotely (IBV_WC_WITH_INV)\n", rk);
}

/* ---- 6. UD ------------------------------------------------------------------------------ */

static void ud_batch(void)
{
    struct ibv_qp *a = create_qp(IBV_QPT_UD, UD_OPS, 16, 128, NULL);
    struct ibv_qp *b = create_qp(IBV_QPT_UD, 0, 16, 0, NULL);
    struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(a);
    struct ibv_ah_attr aha = { .dlid = lid, .port_num = 1 };
    struct ibv_ah *ah;
    struct ibv_sge sg[2] = { { A(SRC + 0xa000), 300, mr->lkey },
                             { A2(SRC2 + 0x5005), 200, mr2->lkey } };
    struct ibv_sge r[3];
    uint8_t m1[500], inl[100], bad[20], l1[10], l2[30], l3[50], m4[90];
    struct ibv_data_buf bufs[3] = { { l1, sizeof(l1) }, { l2, sizeof(l2) }, { l3, sizeof(l3) } };
    struct ibv_wc wc;
    size_t n1, n4;
    int i;

    ud_ready(a);
    ud_ready(b);
    ah = ibv_create_ah(pd, &aha);
    if (!ah) {
        FAIL("ibv_create_ah: %s", strerror(errno));
    }
    for (i = 0; i < 3; i++) {
        r[i].addr = A(RECV + 0x8000 + i * 0x400);
        r[i].length = 40 + 512;
        r[i].lkey = mr->lkey;
        post_recv(b, 801 + i, &r[i], 1);
    }
    fill(inl, sizeof(inl), 90);
    memset(bad, 0x99, sizeof(bad));
    fill(l1, sizeof(l1), 91);
    fill(l2, sizeof(l2), 92);
    fill(l3, sizeof(l3), 93);

    ibv_wr_start(qx);
    qx->wr_id = 811;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send(qx);
    ibv_wr_set_ud_addr(qx, ah, b->qp_num, UD_QKEY);
    ibv_wr_set_sge_list(qx, 2, sg);
    n1 = msg_of_sgl(sg, 2, m1);
    qx->wr_id = 812;
    ibv_wr_send_imm(qx, htobe32(0x0d0d0001));
    ibv_wr_set_inline_data(qx, inl, sizeof(inl));     /* data first, then the address */
    ibv_wr_set_ud_addr(qx, ah, b->qp_num, UD_QKEY);
    qx->wr_id = 813;
    ibv_wr_send(qx);
    ibv_wr_set_ud_addr(qx, ah, b->qp_num, UD_QKEY ^ 0x5);  /* wrong Q_Key: dropped */
    ibv_wr_set_inline_data(qx, bad, sizeof(bad));
    qx->wr_id = 814;
    ibv_wr_send(qx);
    ibv_wr_set_ud_addr(qx, ah, b->qp_num, UD_QKEY);
    n4 = msg_of_bufs(bufs, 3, m4);
    ibv_wr_set_inline_data_list(qx, 3, bufs);
    complete(qx, "UD batch");
    land(r[0].addr + 40, m1, n1);
    land(r[1].addr + 40, inl, sizeof(inl));
    land(r[2].addr + 40, m4, n4);

    expect_send(811, IBV_WC_SEND, IBV_WC_SUCCESS, 0, "UD SEND (SGE list)");
    expect_send(812, IBV_WC_SEND, IBV_WC_SUCCESS, 1, "UD SEND with immediate (inline)");
    expect_send(813, IBV_WC_SEND, IBV_WC_SUCCESS, 0, "UD SEND with a wrong Q_Key");
    expect_send(814, IBV_WC_SEND, IBV_WC_SUCCESS, 0, "UD SEND (inline list)");
    for (i = 0; i < 3; i++) {
        static const char *what[] = { "UD SEND (SGE list) received",
                                      "UD SEND with immediate received",
                                      "UD SEND (inline list) received, the wrong Q_Key's not" };
        uint32_t len = i == 0 ? n1 : i == 1 ? sizeof(inl) : n4;
        wc = expect_recv(801 + i, b->qp_num, IBV_WC_RECV, 40 + len,
                         i == 1 ? IBV_WC_WITH_IMM : 0, 0x0d0d0001, what[i]);
        CHECK(wc.src_qp == a->qp_num && wc.slid == lid && wc.dlid_path_bits == 0,
              "%s: src_qp 0x%x slid 0x%x path bits %u, expected 0x%x 0x%x 0", what[i],
              wc.src_qp, wc.slid, wc.dlid_path_bits, a->qp_num, lid);
        accept_bytes(r[i].addr, 40);    /* no GRH: the first 40 bytes are undefined */
    }
    expect_none(scq, 1, "UD batch");
    expect_none(rcq, 100, "UD batch: the datagram with the wrong Q_Key");
    verify("UD batch");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_ah(ah);
    printf("UD batch: ibv_wr_set_ud_addr before/after SGE list (%zu B), inline (%zu B), "
           "inline list (%zu B); wrong Q_Key dropped\n", n1, sizeof(inl), n4);
}

/* ---- 7. XRC ----------------------------------------------------------------------------- */

static void xrc_batch(void)
{
    struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
                                                  IBV_XRCD_INIT_ATTR_OFLAGS,
                                     .fd = -1, .oflags = O_CREAT };
    struct ibv_srq_init_attr_ex sa = {
        .attr = { .max_wr = 16, .max_sge = 1 },
        .comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
                     IBV_SRQ_INIT_ATTR_PD,
        .srq_type = IBV_SRQT_XRC, .cq = rcq, .pd = pd,
    };
    struct ibv_qp_init_attr_ex ta = { .qp_type = IBV_QPT_XRC_RECV,
                                      .comp_mask = IBV_QP_INIT_ATTR_XRCD };
    struct ibv_qp_init_attr_ex ia = {
        .qp_type = IBV_QPT_XRC_SEND, .send_cq = scq, .pd = pd,
        .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        .send_ops_flags = XRC_OPS,
        .cap = { .max_send_wr = 16, .max_send_sge = 2, .max_inline_data = 64 },
    };
    struct ibv_sge rsg[2] = { { A2(DST2 + 0x3000), 2000, mr2->lkey },
                              { A(RECV + 0x9000), 2000, mr->lkey } };
    struct ibv_sge sr = { A(RECV + 0xa000), 16, mr->lkey };
    struct ibv_recv_wr rwr = { .wr_id = 901, .sg_list = &sr, .num_sge = 1 }, *badr;
    struct ibv_xrcd *xrcd;
    struct ibv_srq *srq;
    struct ibv_qp *tgt, *ini;
    struct ibv_qp_ex *qx;
    struct ibv_qp_attr m;
    uint64_t v1 = 0x1111222233334444ull, v2 = 0x5555666677778888ull, v3 = 0xfffffffffffffff0ull;
    uint64_t x, res;
    uint8_t inl[40], rd[4000];
    uint32_t srqn;

    xrcd = ibv_open_xrcd(ctx, &xa);
    if (!xrcd) {
        FAIL("ibv_open_xrcd: %s", strerror(errno));
    }
    sa.xrcd = xrcd;
    srq = ibv_create_srq_ex(ctx, &sa);
    if (!srq || ibv_get_srq_num(srq, &srqn)) {
        FAIL("XRC SRQ: %s", strerror(errno));
    }
    ta.xrcd = xrcd;
    tgt = ibv_create_qp_ex(ctx, &ta);
    ini = ibv_create_qp_ex(ctx, &ia);
    if (!tgt || !ini) {
        FAIL("XRC QPs: %s", strerror(errno));
    }
    /* target: INIT (remote rights), RTR, RTS */
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_INIT;
    m.port_num = 1;
    m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                        IBV_ACCESS_REMOTE_ATOMIC;
    if (ibv_modify_qp(tgt, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS)) {
        FAIL("XRC target INIT: %s", strerror(errno));
    }
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_RTR;
    m.path_mtu = IBV_MTU_1024;
    m.dest_qp_num = ini->qp_num;
    m.rq_psn = 0x200;
    m.max_dest_rd_atomic = 4;
    m.min_rnr_timer = 12;
    m.ah_attr.dlid = lid;
    m.ah_attr.port_num = 1;
    if (ibv_modify_qp(tgt, &m, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
        FAIL("XRC target RTR: %s", strerror(errno));
    }
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_RTS;
    m.timeout = 14;
    m.sq_psn = 0x300;
    if (ibv_modify_qp(tgt, &m, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN)) {
        FAIL("XRC target RTS: %s", strerror(errno));
    }
    /* initiator */
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_INIT;
    m.port_num = 1;
    if (ibv_modify_qp(ini, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS)) {
        FAIL("XRC initiator INIT: %s", strerror(errno));
    }
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_RTR;
    m.path_mtu = IBV_MTU_1024;
    m.dest_qp_num = tgt->qp_num;
    m.rq_psn = 0x300;
    m.ah_attr.dlid = lid;
    m.ah_attr.port_num = 1;
    if (ibv_modify_qp(ini, &m, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                      IBV_QP_RQ_PSN)) {
        FAIL("XRC initiator RTR: %s", strerror(errno));
    }
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_RTS;
    m.timeout = 14;
    m.retry_cnt = 7;
    m.rnr_retry = 7;
    m.sq_psn = 0x200;
    m.max_rd_atomic = 4;
    if (ibv_modify_qp(ini, &m, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN |
                      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)) {
        FAIL("XRC initiator RTS: %s", strerror(errno));
    }

    /* atomic targets (host order), READ source */
    memcpy(mem + ATOM, &v1, 8);
    memcpy(mem + ATOM + 8, &v2, 8);
    memcpy(mem + ATOM + 16, &v3, 8);
    memset(mem + ATOM + 0x100, 0, 24);  /* results */
    memcpy(exp_mem + ATOM, mem + ATOM, 0x200);
    fill(mem + XRC_RSRC, 4000, 99);
    memcpy(exp_mem + XRC_RSRC, mem + XRC_RSRC, 4000);
    fill(inl, sizeof(inl), 98);
    if (ibv_post_srq_recv(srq, &rwr, &badr)) {
        FAIL("ibv_post_srq_recv: %s", strerror(errno));
    }

    qx = ibv_qp_to_qp_ex(ini);
    ibv_wr_start(qx);
    qx->wr_id = 911;
    qx->wr_flags = 0;
    ibv_wr_rdma_write(qx, mr->rkey, A(XRC_DST));
    ibv_wr_set_xrc_srqn(qx, srqn);
    ibv_wr_set_sge(qx, mr2->lkey, A2(SRC2 + 0x6000), 6000);
    land(A(XRC_DST), exp_of(A2(SRC2 + 0x6000), 6000), 6000);
    qx->wr_id = 912;
    qx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qx, mr->rkey, A(XRC_DST + 0x2000));
    ibv_wr_set_inline_data(qx, inl, sizeof(inl));     /* data first, then the SRQN */
    ibv_wr_set_xrc_srqn(qx, srqn);
    land(A(XRC_DST + 0x2000), inl, sizeof(inl));
    qx->wr_id = 913;
    ibv_wr_rdma_read(qx, mr->rkey, A(XRC_RSRC));
    ibv_wr_set_xrc_srqn(qx, srqn);
    ibv_wr_set_sge_list(qx, 2, rsg);
    memcpy(rd, exp_mem + XRC_RSRC, sizeof(rd));
    land_sgl(rsg, 2, rd, sizeof(rd));
    qx->wr_id = 914;
    ibv_wr_atomic_cmp_swp(qx, mr->rkey, A(ATOM), v1, 0xabcdef0123456789ull);
    ibv_wr_set_xrc_srqn(qx, srqn);
    ibv_wr_set_sge(qx, mr->lkey, A(ATOM + 0x100), 8);
    qx->wr_id = 915;
    ibv_wr_atomic_cmp_swp(qx, mr->rkey, A(ATOM + 8), v2 + 1, 0);
    ibv_wr_set_sge(qx, mr->lkey, A(ATOM + 0x108), 8);
    ibv_wr_set_xrc_srqn(qx, srqn);
    qx->wr_id = 916;
    ibv_wr_atomic_fetch_add(qx, mr->rkey, A(ATOM + 16), 0x25);
    ibv_wr_set_xrc_srqn(qx, srqn);
    ibv_wr_set_sge(qx, mr->lkey, A(ATOM + 0x110), 8);
    qx->wr_id = 917;
    ibv_wr_rdma_write_imm(qx, mr->rkey, A(XRC_DST + 0x3000), htobe32(0x0e0e0001));
    ibv_wr_set_xrc_srqn(qx, srqn);
    ibv_wr_set_sge(qx, mr->lkey, A(SRC + 0xb000), 1000);
    land(A(XRC_DST + 0x3000), exp_of(A(SRC + 0xb000), 1000), 1000);
    complete(qx, "XRC batch");
    /* atomics: originals returned, memory as the operations leave it */
    x = 0xabcdef0123456789ull;
    land(A(ATOM), &x, 8);
    x = v3 + 0x25;
    land(A(ATOM + 16), &x, 8);
    land(A(ATOM + 0x100), &v1, 8);
    land(A(ATOM + 0x108), &v2, 8);
    land(A(ATOM + 0x110), &v3, 8);

    expect_send(912, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 0, "XRC WRITE (inline)");
    {
        struct ibv_wc wc = expect_send(913, IBV_WC_RDMA_READ, IBV_WC_SUCCESS, 0,
                                       "XRC READ (SGE list)");
        CHECK(wc.byte_len == sizeof(rd), "XRC READ: byte_len %u, expected %zu", wc.byte_len,
              sizeof(rd));
    }
    expect_send(914, IBV_WC_COMP_SWAP, IBV_WC_SUCCESS, 0, "XRC compare-and-swap (equal)");
    expect_send(915, IBV_WC_COMP_SWAP, IBV_WC_SUCCESS, 0, "XRC compare-and-swap (not equal)");
    expect_send(916, IBV_WC_FETCH_ADD, IBV_WC_SUCCESS, 0, "XRC fetch-and-add");
    expect_send(917, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 1, "XRC WRITE with immediate");
    expect_recv(901, tgt->qp_num, IBV_WC_RECV_RDMA_WITH_IMM, 1000, IBV_WC_WITH_IMM, 0x0e0e0001,
                "XRC WRITE with immediate: the XRC SRQ's receive");
    expect_none(scq, 100, "XRC batch: the unsignaled WRITE");
    expect_none(rcq, 1, "XRC batch");
    verify("XRC batch");
    memcpy(&res, mem + ATOM + 0x110, 8);
    printf("XRC batch (SRQ 0x%x): WRITE 6000 B, inline WRITE, READ 4000 B into two MRs, "
           "CAS hit/miss, FADD (0x%llx + 0x25), WRITE_IMM via the SRQ\n", srqn,
           (unsigned long long)res);
    ibv_destroy_qp(ini);
    ibv_destroy_qp(tgt);
    ibv_destroy_srq(srq);
    ibv_close_xrcd(xrcd);
}

/* ---- 8. unsupported send_ops_flags ------------------------------------------------------- */

static void bad_ops(void)
{
    static const struct { enum ibv_qp_type type; uint64_t ops; const char *what; } t[] = {
        { IBV_QPT_UC, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_READ, "UC with RDMA READ" },
        { IBV_QPT_UD, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE, "UD with RDMA WRITE" },
    };

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct ibv_qp_init_attr_ex a = {
            .qp_type = t[i].type, .send_cq = scq, .recv_cq = rcq, .pd = pd,
            .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
            .send_ops_flags = t[i].ops,
            .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
        };
        struct ibv_qp *qp;

        errno = 0;
        qp = ibv_create_qp_ex(ctx, &a);
        CHECK(!qp && errno == EOPNOTSUPP, "%s: ibv_create_qp_ex %s (errno %d), expected "
              "EOPNOTSUPP", t[i].what, qp ? "succeeded" : "failed", errno);
    }
    printf("send_ops_flags: RDMA READ on UC and RDMA WRITE on UD refused (EOPNOTSUPP)\n");
}

int main(int argc, char **argv)
{
    const char *want = "mlx5_0";
    struct ibv_device_attr da;
    struct ibv_port_attr port;
    int opt;

    while ((opt = getopt(argc, argv, "d:")) != -1) {
        if (opt == 'd') {
            want = optarg;
        } else {
            fprintf(stderr, "usage: wr-check [-d DEVICE]\n");
            return 2;
        }
    }
    ctx = gt_open(want);
    if (ibv_query_device(ctx, &da) || ibv_query_port(ctx, 1, &port)) {
        FAIL("query");
    }
    CHECK(port.state == IBV_PORT_ACTIVE && port.lid, "port 1 not active with a LID");
    CHECK(da.atomic_cap != IBV_ATOMIC_NONE, "no atomics");
    CHECK(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B, "no type-2 memory windows");
    lid = port.lid;
    pd = ibv_alloc_pd(ctx);
    scq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
    rcq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
    mem = aligned_alloc(4096, MEM_SIZE);
    mem2 = aligned_alloc(4096, MEM2_SIZE);
    exp_mem = malloc(MEM_SIZE);
    exp_mem2 = malloc(MEM2_SIZE);
    if (!pd || !scq || !rcq || !mem || !mem2 || !exp_mem || !exp_mem2) {
        FAIL("PD/CQ/memory: %s", strerror(errno));
    }
    memset(mem, 0xcc, MEM_SIZE);
    fill(mem + SRC, 0x10000, 1);
    memset(mem2, 0x5a, MEM2_SIZE);
    fill(mem2 + SRC2, 0x8000, 2);
    memcpy(exp_mem, mem, MEM_SIZE);
    memcpy(exp_mem2, mem2, MEM2_SIZE);
    mr = ibv_reg_mr(pd, mem, MEM_SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
    mr2 = ibv_reg_mr(pd, mem2, MEM2_SIZE, IBV_ACCESS_LOCAL_WRITE);
    if (!mr || !mr2) {
        FAIL("ibv_reg_mr: %s", strerror(errno));
    }
    printf("wr-check: %s port 1 LID 0x%x\n", want, lid);

    new_rc_pair(16, IBV_QP_EX_WITH_BIND_MW);
    rc_batch();
    rc_send_inv();
    new_rc_pair(8, 0);
    rc_inline_limits();
    rc_send_inv_mr();
    ibv_destroy_qp(rc_a);
    ibv_destroy_qp(rc_b);
    drain();
    uc_batch();
    uc_send_inv();
    ud_batch();
    xrc_batch();
    bad_ops();

    ibv_dereg_mr(mr);
    ibv_dereg_mr(mr2);
    ibv_destroy_cq(scq);
    ibv_destroy_cq(rcq);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    printf("wr-check: OK (%d checks)\n", checks);
    return 0;
}
