/*
 * leak-cycles: create and destroy verbs objects in a loop, for the host to measure whether
 * QEMU's memory grows (issue 10: "1,000 create/destroy cycles of QPs/CQs/MRs/PDs with QEMU's
 * memory measured before and after").
 *
 *   leak-cycles [-d DEV] [-n CYCLES]
 *
 * One cycle: a PD, an MR of 64 KiB (UMR through the kernel's MR cache) and one of 4 MiB
 * (CREATE_MKEY), a CQ, an SRQ, an RC QP brought to RTS on a loopback connection to a second
 * RC QP that stays in RTR, a UD QP in RTS, an XRC domain, a memory window; one RDMA WRITE
 * through the loop per cycle so that the data path's per-QP state is exercised too. All of it
 * is destroyed again, in the order an application would. Prints "leak-cycles: N cycles OK".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define GT_PROG "leak-cycles"
#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>
#include "gt-verbs.h"

static void cycle(struct ibv_context *ctx, uint16_t lid, int i)
{
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    static char small[65536], big[4 << 20];
    struct ibv_mr *mr, *mr_big;
    struct ibv_cq *cq;
    struct ibv_srq *srq;
    struct ibv_qp *a, *b, *ud;
    struct ibv_mw *mw;
    struct ibv_xrcd *xrcd;
    struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
                                     IBV_XRCD_INIT_ATTR_OFLAGS, .fd = -1, .oflags = O_CREAT };
    struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
    struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
                                   .cap = { .max_send_wr = 8, .max_recv_wr = 8,
                                            .max_send_sge = 1, .max_recv_sge = 1 } };
    struct ibv_qp_attr at = { 0 };
    struct gt_conn c = { .dlid = lid, .access = IBV_ACCESS_LOCAL_WRITE |
                         IBV_ACCESS_REMOTE_WRITE, .psn = (uint32_t)i & 0xffffff };
    struct ibv_sge sge;
    struct ibv_send_wr wr = { 0 }, *bad;
    struct ibv_wc wc;

    CHECK(pd, "cycle %d: ibv_alloc_pd: %s", i, strerror(errno));
    mr = ibv_reg_mr(pd, small, sizeof(small), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_MW_BIND);
    CHECK(mr, "cycle %d: ibv_reg_mr 64K: %s", i, strerror(errno));
    mr_big = ibv_reg_mr(pd, big, sizeof(big), IBV_ACCESS_LOCAL_WRITE);
    CHECK(mr_big, "cycle %d: ibv_reg_mr 4M: %s", i, strerror(errno));
    cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    CHECK(cq, "cycle %d: ibv_create_cq: %s", i, strerror(errno));
    srq = ibv_create_srq(pd, &sa);
    CHECK(srq, "cycle %d: ibv_create_srq: %s", i, strerror(errno));
    qa.send_cq = qa.recv_cq = cq;
    a = ibv_create_qp(pd, &qa);
    b = ibv_create_qp(pd, &qa);
    CHECK(a && b, "cycle %d: ibv_create_qp RC: %s", i, strerror(errno));
    c.dqpn = b->qp_num;
    gt_rc_connect(a, &c);
    c.dqpn = a->qp_num;
    gt_rc_connect(b, &c);
    qa.qp_type = IBV_QPT_UD;
    ud = ibv_create_qp(pd, &qa);
    CHECK(ud, "cycle %d: ibv_create_qp UD: %s", i, strerror(errno));
    at.qp_state = IBV_QPS_INIT;
    at.port_num = 1;
    at.qkey = 0x11111111;
    CHECK(!ibv_modify_qp(ud, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
          "cycle %d: UD INIT", i);
    at.qp_state = IBV_QPS_RTR;
    CHECK(!ibv_modify_qp(ud, &at, IBV_QP_STATE), "cycle %d: UD RTR", i);
    at.qp_state = IBV_QPS_RTS;
    CHECK(!ibv_modify_qp(ud, &at, IBV_QP_STATE | IBV_QP_SQ_PSN), "cycle %d: UD RTS", i);
    xrcd = ibv_open_xrcd(ctx, &xa);
    CHECK(xrcd, "cycle %d: ibv_open_xrcd: %s", i, strerror(errno));
    mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
    CHECK(mw, "cycle %d: ibv_alloc_mw: %s", i, strerror(errno));

    sge = (struct ibv_sge){ .addr = (uintptr_t)small, .length = 256, .lkey = mr->lkey };
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = (uintptr_t)small + 1024;
    wr.wr.rdma.rkey = mr->rkey;
    CHECK(!ibv_post_send(a, &wr, &bad), "cycle %d: ibv_post_send", i);
    wc = gt_wait_wc(cq, "RDMA WRITE");
    CHECK(wc.status == IBV_WC_SUCCESS, "cycle %d: WRITE completed with %s", i,
          ibv_wc_status_str(wc.status));

    CHECK(!ibv_dealloc_mw(mw), "cycle %d: ibv_dealloc_mw", i);
    CHECK(!ibv_close_xrcd(xrcd), "cycle %d: ibv_close_xrcd", i);
    CHECK(!ibv_destroy_qp(ud), "cycle %d: destroy UD", i);
    CHECK(!ibv_destroy_qp(b), "cycle %d: destroy RC b", i);
    CHECK(!ibv_destroy_qp(a), "cycle %d: destroy RC a", i);
    CHECK(!ibv_destroy_srq(srq), "cycle %d: ibv_destroy_srq", i);
    CHECK(!ibv_destroy_cq(cq), "cycle %d: ibv_destroy_cq", i);
    CHECK(!ibv_dereg_mr(mr_big), "cycle %d: dereg 4M", i);
    CHECK(!ibv_dereg_mr(mr), "cycle %d: dereg 64K", i);
    CHECK(!ibv_dealloc_pd(pd), "cycle %d: ibv_dealloc_pd", i);
}

int main(int argc, char **argv)
{
    const char *dev = NULL;
    struct ibv_port_attr pa;
    struct ibv_context *ctx;
    int n = 1000, i, opt;

    while ((opt = getopt(argc, argv, "d:n:")) != -1) {
        switch (opt) {
        case 'd':
            dev = optarg;
            break;
        case 'n':
            n = atoi(optarg);
            break;
        default:
            fprintf(stderr, "usage: leak-cycles [-d DEV] [-n CYCLES]\n");
            return 2;
        }
    }
    ctx = gt_open(dev);
    CHECK(!ibv_query_port(ctx, 1, &pa), "ibv_query_port");
    for (i = 0; i < n; i++) {
        cycle(ctx, pa.lid, i);
    }
    ibv_close_device(ctx);
    printf(GT_PROG ": %d cycles OK (%d checks)\n", n, checks);
    return 0;
}
