/*
 * Helpers shared by the guest test programs (the programs in guest-tests/src; each is built alone and finds
 * this header beside it). A program defines GT_PROG (its name, for messages) before including.
 *
 *   FAIL(fmt, ...)          print "PROG: FAIL: ..." and exit 1
 *   CHECK(cond, fmt, ...)   count a check (checks), FAIL unless cond
 *   gt_open(name)           open an RDMA device by name (NULL: the first)
 *   gt_wait_wc(cq, what)    the next completion, or FAIL after a bounded wait
 *   gt_rc_connect(qp, &c)   RESET -> RTS of an RC or UC QP (struct gt_conn: the path and the
 *                           knobs the programs vary; zero fields take the defaults)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef GT_VERBS_H
#define GT_VERBS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#ifndef GT_PROG
#error "define GT_PROG (the program's name) before including gt-verbs.h"
#endif

static int checks;

#define FAIL(...) do { fprintf(stderr, GT_PROG ": FAIL: " __VA_ARGS__); \
                       fputc('\n', stderr); exit(1); } while (0)
#define CHECK(cond, ...) do { checks++; if (!(cond)) FAIL(__VA_ARGS__); } while (0)

#ifndef GT_WC_SPINS
#define GT_WC_SPINS 50000000L       /* polls before a missing completion is a failure */
#endif

static inline struct ibv_context *gt_open(const char *name)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_context *ctx = NULL;
    int i;

    for (i = 0; list && list[i]; i++) {
        if (!name || !strcmp(ibv_get_device_name(list[i]), name)) {
            ctx = ibv_open_device(list[i]);
            break;
        }
    }
    if (list) {
        ibv_free_device_list(list);
    }
    if (!ctx) {
        FAIL("cannot open %s", name ? name : "an RDMA device");
    }
    return ctx;
}

static inline struct ibv_wc gt_wait_wc(struct ibv_cq *cq, const char *what)
{
    struct ibv_wc wc;
    long spins = 0;
    int n;

    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
        if (++spins > GT_WC_SPINS) {
            FAIL("%s: no completion", what ? what : "poll");
        }
    }
    if (n < 0) {
        FAIL("%s: ibv_poll_cq: %d", what ? what : "poll", n);
    }
    return wc;
}

struct gt_conn {
    uint32_t dqpn;
    uint16_t dlid;
    int uc;                     /* UC: no RDMA READ/atomic attributes, no timeout/retries */
    int access;                 /* qp_access_flags */
    enum ibv_mtu mtu;           /* 0: IBV_MTU_1024 */
    uint32_t psn;               /* rq_psn and sq_psn */
    uint8_t timeout, retry;     /* 0: 14 and 7 */
    uint8_t rd_atomic;          /* initiator depth and responder resources; 0: 1 */
    /* an alternate path loaded at RTR->RTS with path_mig_state REARM (alt_dlid != 0) */
    uint16_t alt_dlid;
    uint8_t alt_path_bits;
};

static inline void gt_rc_connect(struct ibv_qp *qp, const struct gt_conn *c)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
                             .qp_access_flags = c->access };
    uint8_t rd = c->rd_atomic ? c->rd_atomic : 1;
    int mask;

    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS)) {
        FAIL("INIT: %s", strerror(errno));
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = c->mtu ? c->mtu : IBV_MTU_1024;
    a.dest_qp_num = c->dqpn;
    a.rq_psn = c->psn;
    a.max_dest_rd_atomic = rd;
    a.min_rnr_timer = 12;
    a.ah_attr.dlid = c->dlid;
    a.ah_attr.port_num = 1;
    mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (!c->uc) {
        mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
    if (ibv_modify_qp(qp, &a, mask)) {
        FAIL("RTR: %s", strerror(errno));
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = c->psn;
    a.timeout = c->timeout ? c->timeout : 14;
    a.retry_cnt = c->retry ? c->retry : 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = rd;
    mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (!c->uc) {
        mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
    if (c->alt_dlid) {
        a.alt_ah_attr.dlid = c->alt_dlid;
        a.alt_ah_attr.src_path_bits = c->alt_path_bits;
        a.alt_ah_attr.port_num = 1;
        a.alt_port_num = 1;
        a.alt_timeout = a.timeout;
        a.path_mig_state = IBV_MIG_REARM;
        mask |= IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE;
    }
    if (ibv_modify_qp(qp, &a, mask)) {
        FAIL("RTS%s: %s", c->alt_dlid ? " with an alternate path" : "", strerror(errno));
    }
}

#endif
