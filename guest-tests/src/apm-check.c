/*
 * apm-check: automatic path migration (APM) on the device, with LMC 1 so that the port has two
 * LIDs (base and base + 1) and an alternate path really is another path. One process, RC QPs
 * on the one port connected to each other; every message's bytes are checked.
 *
 *   1. The device advertises IBV_DEVICE_AUTO_PATH_MIG; the port has LMC 1.
 *   2. A and B: primary paths to the base LID, alternate paths to base + 1 (source path bits 1),
 *      loaded at RTR->RTS with path_mig_state REARM. Software may not set ARMED, nor MIGRATED
 *      while rearming. Traffic arms both (query: ARMED).
 *   3. Software migrates A (MIGRATED): A's primary path is now base + 1 and A gets
 *      IBV_EVENT_PATH_MIG. A's next SEND arrives from SLID base + 1 at DLID path bits 1, and B
 *      follows by itself (IBV_EVENT_PATH_MIG, query: MIGRATED, DLID base + 1).
 *   4. Failover: C's primary path leads nowhere (a LID no port has), its alternate path to D is
 *      good. Once armed, C's SEND exhausts its retries on the primary path, C migrates by itself
 *      (IBV_EVENT_PATH_MIG, no error) and the SEND, and D's earlier one, complete intact.
 *
 * Usage: apm-check [-d DEVICE]     exit status 0 when every check passed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <poll.h>
#include <unistd.h>
#define GT_PROG "apm-check"
#include "gt-verbs.h"

#define MSG 3000

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *mem;
static uint16_t lid;

/* per QP: its send buffer and receive buffer in the one MR */
static uint8_t *sbuf(int i) { return mem + i * 2 * MSG; }
static uint8_t *rbuf(int i) { return mem + i * 2 * MSG + MSG; }

static struct ibv_wc wait_wc(void)
{
    return gt_wait_wc(cq, NULL);
}

/* the next async event within @ms, or -1 */
static int next_event(uint32_t *qpn, int ms)
{
    struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
    struct ibv_async_event ev;
    int type;

    if (poll(&p, 1, ms) <= 0) {
        return -1;
    }
    if (ibv_get_async_event(ctx, &ev)) {
        FAIL("ibv_get_async_event: %s", strerror(errno));
    }
    type = ev.event_type;
    *qpn = (type == IBV_EVENT_PATH_MIG || type == IBV_EVENT_PATH_MIG_ERR ||
            type == IBV_EVENT_COMM_EST || type == IBV_EVENT_QP_FATAL) ? ev.element.qp->qp_num : 0;
    ibv_ack_async_event(&ev);
    return type;
}

static void expect_path_mig(struct ibv_qp *qp, const char *what)
{
    uint32_t qpn;
    int type;

    do {
        type = next_event(&qpn, 5000);
    } while (type == IBV_EVENT_COMM_EST);
    CHECK(type == IBV_EVENT_PATH_MIG && qpn == qp->qp_num,
          "%s: async event %d for QP 0x%x, expected PATH_MIG for 0x%x", what, type, qpn,
          qp->qp_num);
}

static void no_event(const char *what)
{
    uint32_t qpn;
    int type;

    do {
        type = next_event(&qpn, 200);
    } while (type == IBV_EVENT_COMM_EST);
    CHECK(type == -1, "%s: unexpected async event %d (QP 0x%x)", what, type, qpn);
}

static struct ibv_qp *create_qp(void)
{
    struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                   .cap = { .max_send_wr = 16, .max_recv_wr = 16,
                                            .max_send_sge = 1, .max_recv_sge = 1 } };
    struct ibv_qp *qp = ibv_create_qp(pd, &qa);

    if (!qp) {
        FAIL("ibv_create_qp: %s", strerror(errno));
    }
    return qp;
}

/*
 * RESET -> RTS: primary path to @dlid, alternate path to @alt_dlid from source path bits
 * @alt_bits, REARM at RTR->RTS (the alternate path and the state may be loaded there).
 */
static void connect_qp(struct ibv_qp *qp, uint32_t dqpn, uint16_t dlid, uint16_t alt_dlid,
                       uint8_t alt_bits, uint8_t timeout, uint8_t retry)
{
    struct gt_conn c = { .dqpn = dqpn, .dlid = dlid, .timeout = timeout, .retry = retry,
                         .alt_dlid = alt_dlid, .alt_path_bits = alt_bits };

    gt_rc_connect(qp, &c);
}

static void query(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
    struct ibv_qp_init_attr ia;

    if (ibv_query_qp(qp, a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE,
                     &ia)) {
        FAIL("ibv_query_qp: %s", strerror(errno));
    }
}

static void expect_mig(struct ibv_qp *qp, enum ibv_mig_state st, uint16_t dlid,
                       const char *what)
{
    struct ibv_qp_attr a;

    query(qp, &a);
    CHECK(a.qp_state == IBV_QPS_RTS, "%s: QP state %d", what, a.qp_state);
    CHECK(a.path_mig_state == st, "%s: path_mig_state %d, expected %d", what,
          a.path_mig_state, st);
    CHECK(a.ah_attr.dlid == dlid, "%s: primary DLID 0x%x, expected 0x%x", what,
          a.ah_attr.dlid, dlid);
}

static int set_mig(struct ibv_qp *qp, enum ibv_mig_state st)
{
    struct ibv_qp_attr a = { .path_mig_state = st };

    return ibv_modify_qp(qp, &a, IBV_QP_PATH_MIG_STATE);
}

static void post_recv(struct ibv_qp *qp, int i)
{
    struct ibv_sge sge = { .addr = (uintptr_t)rbuf(i), .length = MSG, .lkey = mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge, .num_sge = 1 }, *bad;

    memset(rbuf(i), 0, MSG);
    if (ibv_post_recv(qp, &wr, &bad)) {
        FAIL("ibv_post_recv: %s", strerror(errno));
    }
}

static void post_send(struct ibv_qp *qp, int i, unsigned seed)
{
    struct ibv_sge sge = { .addr = (uintptr_t)sbuf(i), .length = MSG, .lkey = mr->lkey };
    struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
                              .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

    for (int k = 0; k < MSG; k++) {
        sbuf(i)[k] = (uint8_t)(k * 7 + seed * 31 + (k >> 8));
    }
    if (ibv_post_send(qp, &wr, &bad)) {
        FAIL("ibv_post_send: %s", strerror(errno));
    }
}

/*
 * SEND from QP @i (@from) to QP @j (@to), both completions checked and the bytes compared.
 * Returns the receive completion.
 */
static struct ibv_wc send_msg(struct ibv_qp *from, int i, struct ibv_qp *to, int j,
                              unsigned seed, const char *what)
{
    struct ibv_wc wc, rwc = { 0 };
    int got_s = 0, got_r = 0;

    post_recv(to, j);
    post_send(from, i, seed);
    while (!got_s || !got_r) {
        wc = wait_wc();
        CHECK(wc.status == IBV_WC_SUCCESS, "%s: %s for wr_id %llu", what,
              ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id);
        if (wc.wr_id == (uint64_t)i && wc.opcode == IBV_WC_SEND) {
            got_s = 1;
        } else if (wc.wr_id == (uint64_t)(100 + j) && wc.opcode == IBV_WC_RECV) {
            got_r = 1;
            rwc = wc;
        } else {
            FAIL("%s: unexpected completion wr_id %llu opcode %d", what,
                 (unsigned long long)wc.wr_id, wc.opcode);
        }
    }
    CHECK(rwc.byte_len == MSG, "%s: received %u bytes", what, rwc.byte_len);
    CHECK(!memcmp(sbuf(i), rbuf(j), MSG), "%s: received bytes differ", what);
    return rwc;
}

int main(int argc, char **argv)
{
    const char *devname = "mlx5_0";
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    struct ibv_qp *qa, *qb, *qc, *qd;
    struct ibv_wc wc;
    uint16_t bogus;
    int opt, got_c = 0, got_d = 0, got_r = 0;

    while ((opt = getopt(argc, argv, "d:")) != -1) {
        if (opt == 'd') {
            devname = optarg;
        } else {
            fprintf(stderr, "usage: apm-check [-d DEVICE]\n");
            return 2;
        }
    }
    ctx = gt_open(devname);
    if (ibv_query_device(ctx, &da) || ibv_query_port(ctx, 1, &pa)) {
        FAIL("query device/port: %s", strerror(errno));
    }
    CHECK(da.device_cap_flags & IBV_DEVICE_AUTO_PATH_MIG, "IBV_DEVICE_AUTO_PATH_MIG not set");
    CHECK(pa.lmc == 1, "port LMC %u, this test needs 1 (-global mlx5-hca.lmc=1)", pa.lmc);
    lid = pa.lid;
    CHECK(!(lid & 1), "base LID 0x%x is not a multiple of 2^LMC", lid);
    printf("apm-check: port 1 LIDs 0x%x-0x%x (LMC %u)\n", lid, lid + 1, pa.lmc);

    pd = ibv_alloc_pd(ctx);
    cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    mem = calloc(8, 2 * MSG);
    mr = pd && cq && mem ? ibv_reg_mr(pd, mem, 8 * 2 * MSG, IBV_ACCESS_LOCAL_WRITE) : NULL;
    if (!mr) {
        FAIL("setup: %s", strerror(errno));
    }

    /* 2. alternate paths, arming */
    qa = create_qp();
    qb = create_qp();
    connect_qp(qa, qb->qp_num, lid, lid + 1, 1, 14, 7);
    connect_qp(qb, qa->qp_num, lid, lid + 1, 1, 14, 7);
    expect_mig(qa, IBV_MIG_REARM, lid, "A after loading");
    CHECK(set_mig(qa, IBV_MIG_MIGRATED) != 0, "MIGRATED accepted while rearming");
    CHECK(set_mig(qa, IBV_MIG_ARMED) != 0, "software may not arm");
    expect_mig(qa, IBV_MIG_REARM, lid, "A after refused changes");
    wc = send_msg(qa, 0, qb, 1, 1, "A->B on the primary path");
    CHECK(wc.slid == lid && wc.dlid_path_bits == 0, "primary path: SLID 0x%x path bits %u",
          wc.slid, wc.dlid_path_bits);
    send_msg(qb, 1, qa, 0, 2, "B->A on the primary path");
    expect_mig(qa, IBV_MIG_ARMED, lid, "A after traffic");
    expect_mig(qb, IBV_MIG_ARMED, lid, "B after traffic");
    CHECK(set_mig(qa, IBV_MIG_REARM) != 0, "REARM accepted while armed");
    no_event("armed");

    /* 3. software migrates A, B follows */
    if (set_mig(qa, IBV_MIG_MIGRATED)) {
        FAIL("migrating A: %s", strerror(errno));
    }
    expect_mig(qa, IBV_MIG_MIGRATED, lid + 1, "A migrated");
    expect_path_mig(qa, "A migrated by software");
    wc = send_msg(qa, 0, qb, 1, 3, "A->B on the alternate path");
    CHECK(wc.slid == lid + 1 && wc.dlid_path_bits == 1,
          "alternate path: SLID 0x%x path bits %u, expected 0x%x and 1", wc.slid,
          wc.dlid_path_bits, lid + 1);
    expect_path_mig(qb, "B followed A");
    expect_mig(qb, IBV_MIG_MIGRATED, lid + 1, "B migrated");
    wc = send_msg(qb, 1, qa, 0, 4, "B->A on the alternate path");
    CHECK(wc.slid == lid + 1 && wc.dlid_path_bits == 1, "B's new path: SLID 0x%x bits %u",
          wc.slid, wc.dlid_path_bits);
    no_event("after migration");
    printf("apm-check: software migration: A and B moved to LID 0x%x\n", lid + 1);

    /* 4. failover: C's primary path is dead, its alternate path good */
    bogus = lid ^ 0x2000;       /* no port on this fabric has it */
    qc = create_qp();
    qd = create_qp();
    connect_qp(qc, qd->qp_num, bogus, lid + 1, 1, 10, 2);    /* ~4 ms, 2 retries */
    connect_qp(qd, qc->qp_num, lid, lid + 1, 1, 18, 7);      /* ~1 s, 7 retries */
    post_recv(qc, 2);
    post_send(qd, 3, 5);          /* D -> C arms C; C's ACK is lost on the dead path */
    for (;;) {
        wc = wait_wc();
        CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 102, "C's receive: %s wr_id %llu",
              ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id);
        break;
    }
    CHECK(!memcmp(sbuf(3), rbuf(2), MSG), "D->C bytes differ");
    expect_mig(qc, IBV_MIG_ARMED, bogus, "C armed");
    post_recv(qd, 3);
    post_send(qc, 2, 6);          /* C -> D: retries exhausted, C migrates, delivered */
    while (!got_c || !got_d || !got_r) {
        wc = wait_wc();
        CHECK(wc.status == IBV_WC_SUCCESS, "failover: %s for wr_id %llu",
              ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id);
        got_c |= wc.wr_id == 2;
        got_d |= wc.wr_id == 3;
        got_r |= wc.wr_id == 103;
    }
    CHECK(!memcmp(sbuf(2), rbuf(3), MSG), "C->D bytes differ");
    expect_path_mig(qc, "C migrated by itself");
    expect_mig(qc, IBV_MIG_MIGRATED, lid + 1, "C after failover");
    printf("apm-check: failover: C's retries ran out on LID 0x%x, it moved to LID 0x%x\n",
           bogus, lid + 1);

    ibv_destroy_qp(qa);
    ibv_destroy_qp(qb);
    ibv_destroy_qp(qc);
    ibv_destroy_qp(qd);
    ibv_dereg_mr(mr);
    ibv_destroy_cq(cq);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    printf("apm-check: PASS (%d checks)\n", checks);
    return 0;
}
