/*
 * Unit tests of the IB transport's recovery paths on the fake wire (ib-fakewire.c): automatic
 * path migration, the ports' fault injection, and RC loss recovery in cases once found broken.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ib-fakewire.h"

/*
 * Automatic path migration with LMC 1: node A has LIDs 2-3, node B 4-5. Primary paths use the
 * base LIDs, alternate paths the second LID of each port (source path bits 1).
 */
static Wire *apm_wire(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    a->port.lid = 2;
    b->port.lid = 4;
    a->port.lmc = b->port.lmc = 1;
    a->qp.av.dlid = 4;
    b->qp.av.dlid = 2;
    a->qp.alt_av.dlid = 5;
    a->qp.alt_av.src_path_bits = 1;
    b->qp.alt_av.dlid = 3;
    b->qp.alt_av.src_path_bits = 1;
    a->qp.alt_timeout = b->qp.alt_timeout = 12;
    a->qp.mig_state = b->qp.mig_state = IB_MIG_REARM;
    return w;
}

/* One SEND from @from to @to, checked; returns the receive completion. */
static IbRecvCompletion apm_send(Wire *w, FakeNode *from, FakeNode *to, unsigned id)
{
    unsigned ns = from->nsend, nr = to->nrecv;

    fill(from->mem + 0x1000, 300, id);
    post_recv(to, 0x8000 + id * 0x400, 0x400);
    post_send(from, IB_WR_SEND, 0x1000, 300, 0, id);
    wire_run(w, 10000);
    g_assert_cmpuint(from->nsend, ==, ns + 1);
    g_assert_cmpint(from->send_status[ns], ==, IB_WC_SUCCESS);
    g_assert_cmpuint(to->nrecv, ==, nr + 1);
    g_assert_cmpint(to->recv[nr].status, ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(from->mem + 0x1000, to->mem + 0x8000 + id * 0x400, 300), ==, 0);
    return to->recv[nr];
}

static void test_apm(void)
{
    Wire *w = apm_wire();
    FakeNode *a = w->node[0], *b = w->node[1];
    IbRecvCompletion rc;

    /* arming: each side arms on the other's first packet with MigReq clear */
    rc = apm_send(w, a, b, 1);
    g_assert_cmpuint(rc.slid, ==, 2);
    g_assert_cmpuint(rc.dlid_path_bits, ==, 0);
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_ARMED);
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_ARMED);

    /* software migrates A; B follows on A's first packet over the alternate path */
    ib_apm_migrate(&a->qp);
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_MIGRATED);
    g_assert_cmpuint(a->qp.av.dlid, ==, 5);
    g_assert_cmpuint(a->qp.timeout, ==, 12);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    rc = apm_send(w, a, b, 2);
    g_assert_cmpuint(rc.slid, ==, 3);               /* A's second LID */
    g_assert_cmpuint(rc.dlid_path_bits, ==, 1);     /* to B's second LID */
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_MIGRATED);
    g_assert_cmpuint(b->qp.av.dlid, ==, 3);
    g_assert_cmpuint(b->events[IB_EV_PATH_MIG], ==, 1);
    rc = apm_send(w, b, a, 3);
    g_assert_cmpuint(rc.slid, ==, 5);
    g_assert_cmpuint(rc.dlid_path_bits, ==, 1);
    /* migrated QPs send MigReq set: a migrated QP does not migrate again */
    ib_apm_migrate(&a->qp);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    wire_free(w);

    /* a rearming QP ignores MigReq set (the peer has not rearmed) and stays unarmed */
    w = apm_wire();
    a = w->node[0];
    b = w->node[1];
    b->qp.mig_state = IB_MIG_MIGRATED;
    apm_send(w, b, a, 1);
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_REARM);
    ib_apm_migrate(&a->qp);                         /* not armed: nothing happens */
    g_assert_cmpuint(a->qp.av.dlid, ==, 4);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 0);
    wire_free(w);

    /* MigReq set from a LID that is not the alternate path's: dropped, no migration */
    w = apm_wire();
    a = w->node[0];
    b = w->node[1];
    apm_send(w, a, b, 1);
    a->qp.alt_av.src_path_bits = 0;                 /* A's alternate path leaves from LID 2 */
    ib_apm_migrate(&a->qp);
    a->qp.retry_cnt = a->qp.retries_left = 1;
    post_recv(b, 0x8000, 0x400);
    post_send(a, IB_WR_SEND, 0x1000, 300, 0, 9);
    wire_run(w, 10000);
    g_assert_cmpint(a->send_status[a->nsend - 1], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_ARMED);
    g_assert_cmpuint(b->events[IB_EV_PATH_MIG], ==, 0);
    g_assert_cmpuint(b->port.stat_rx_drop, >=, 2);
    wire_free(w);
}

/* The primary path breaks: retries run out, the QP migrates and the transfer completes */
static void test_apm_failover(void)
{
    Wire *w = apm_wire();
    FakeNode *a = w->node[0], *b = w->node[1];
    IbRecvCompletion rc;

    apm_send(w, a, b, 1);
    a->qp.retry_cnt = a->qp.retries_left = 2;
    w->dead_dlid = 4;                               /* B's base LID is unreachable */
    fill(a->mem, 20000, 5);
    post_send(a, IB_WR_RDMA_WRITE, 0, 20000, 0x40000, 2);
    wire_run(w, 10000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x40000, 20000), ==, 0);
    g_assert_cmpuint(w->dropped, >=, 3);            /* the first try and two retries */
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_MIGRATED);
    g_assert_cmpuint(a->qp.av.dlid, ==, 5);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_MIGRATED);   /* followed A */
    g_assert_cmpuint(b->events[IB_EV_PATH_MIG], ==, 1);
    rc = apm_send(w, b, a, 3);                      /* and B answers over its new path */
    g_assert_cmpuint(rc.dlid_path_bits, ==, 1);
    g_assert_cmpuint(a->events[IB_EV_QP_FATAL], ==, 0);

    /* no alternate path left: when that one breaks too, the WR ends in RETRY_EXC */
    w->dead_dlid = 5;
    post_send(a, IB_WR_RDMA_WRITE, 0, 100, 0x40000, 4);
    wire_run(w, 10000);
    g_assert_cmpint(a->send_status[a->nsend - 1], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    wire_free(w);
}

/* Fault injection on the receiving links: every byte still arrives, once, in order */
static void run_fault_test(const IbFaultConfig *cfg, IbFaultStats *st_out)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbFaultStats st[2];
    unsigned i, n = 40;

    ib_fault_configure(&a->port, cfg);
    ib_fault_configure(&b->port, cfg);
    for (i = 0; i < n; i++) {
        fill(a->mem + i * 8192, 5000 + i, i);
        if (i % 3 == 0) {
            post_recv(b, 0x100000 + i * 8192, 8192);
            post_send(a, IB_WR_SEND, i * 8192, 5000 + i, 0, i);
        } else if (i % 3 == 1) {
            post_send(a, IB_WR_RDMA_WRITE, i * 8192, 5000 + i, 0x100000 + i * 8192, i);
        } else {
            fill(b->mem + 0x100000 + i * 8192, 5000 + i, i + 100);
            post_send(a, IB_WR_RDMA_READ, i * 8192, 5000 + i, 0x100000 + i * 8192, i);
        }
    }
    wire_run(w, 200000);
    g_assert_cmpuint(a->nsend, ==, n);
    for (i = 0; i < n; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        if (memcmp(a->mem + i * 8192, b->mem + 0x100000 + i * 8192, 5000 + i)) {
            unsigned k = 0;
            while (a->mem[i * 8192 + k] == b->mem[0x100000 + i * 8192 + k]) {
                k++;
            }
            g_test_message("message %u (op %u) differs at %u: %02x vs %02x", i, i % 3, k,
                           a->mem[i * 8192 + k], b->mem[0x100000 + i * 8192 + k]);
        }
        g_assert_cmpint(memcmp(a->mem + i * 8192, b->mem + 0x100000 + i * 8192, 5000 + i), ==,
                        0);
    }
    g_assert_cmpuint(b->nrecv, ==, (n + 2) / 3);
    g_assert_true(ib_fault_stats(&a->port, &st[0]));
    g_assert_true(ib_fault_stats(&b->port, &st[1]));
    st_out->drop = st[0].drop + st[1].drop;
    st_out->dup = st[0].dup + st[1].dup;
    st_out->reorder = st[0].reorder + st[1].reorder;
    st_out->corrupt = st[0].corrupt + st[1].corrupt;
    /* a corrupted frame fails its ICRC: dropped as a link error */
    g_assert_cmpuint(a->port.stat_rx_bad + b->port.stat_rx_bad, ==, st_out->corrupt);
    wire_free(w);
}

/* Many READs of many sizes in flight on a lossy link (partial responses, re-requests). */
static void test_fault_reads(void)
{
    static const uint32_t len[] = { 1, 4095, 4097, 65536, 150001, 65543, 30000, 9000 };
    IbFaultConfig cfg = { .drop = 5, .reorder = 5, .dup = 2 };

    for (unsigned seed = 1; seed <= 64; seed++) {
        Wire *w = wire_new(IB_QPT_RC, 5);
        FakeNode *a = w->node[0], *b = w->node[1];
        unsigned i, n = G_N_ELEMENTS(len);
        uint64_t off[G_N_ELEMENTS(len)], o = 0;

        cfg.seed = seed;
        ib_fault_configure(&a->port, &cfg);
        ib_fault_configure(&b->port, &cfg);
        for (i = 0; i < n; i++) {
            off[i] = o;                     /* within [0, 1 MiB) here, + 1 MiB there */
            o = (o + len[i] + 4095) & ~4095ull;
            fill(b->mem + 0x100000 + off[i], len[i], i + 7);
            fill(a->mem + off[i], len[i], i + 7);
            /* WRITEs and READs of the same bytes: duplicates of either are answered */
            post_send(a, i % 3 == 1 ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ, off[i], len[i],
                      0x100000 + off[i], i);
        }
        wire_run(w, 400000);
        g_assert_cmpuint(a->nsend, ==, n);
        for (i = 0; i < n; i++) {
            g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
            g_assert_cmpint(memcmp(a->mem + off[i], b->mem + 0x100000 + off[i], len[i]), ==, 0);
        }
        wire_free(w);
    }
}

static void test_fault_injection(void)
{
    IbFaultConfig cfg = { .drop = 5, .dup = 5, .reorder = 10, .corrupt = 5, .seed = 42 };
    IbFaultConfig none = { 0 };
    IbFaultStats s1, s2;
    Wire *w;

    run_fault_test(&cfg, &s1);
    g_assert_cmpuint(s1.drop, >, 0);
    g_assert_cmpuint(s1.dup, >, 0);
    g_assert_cmpuint(s1.reorder, >, 0);
    g_assert_cmpuint(s1.corrupt, >, 0);
    /* the same seed gives the same run */
    run_fault_test(&cfg, &s2);
    g_assert_cmpuint(s1.drop, ==, s2.drop);
    g_assert_cmpuint(s1.reorder, ==, s2.reorder);
    cfg.delay_us = 300;
    run_fault_test(&cfg, &s2);
    /* reordering alone, seed 42: a late duplicate READ response was once taken as the ACK of
     * a WRITE the responder had not executed (the WRITE completed, its bytes never landed) */
    run_fault_test(&(IbFaultConfig){ .reorder = 10, .seed = 42 }, &s2);
    g_assert_cmpuint(s2.reorder, >, 0);

    /* delay alone: the frames arrive that much later */
    w = wire_new(IB_QPT_RC, 3);
    cfg = (IbFaultConfig){ .delay_us = 500 };
    ib_fault_configure(&w->node[1]->port, &cfg);
    post_recv(w->node[1], 0, 4096);
    post_send(w->node[0], IB_WR_SEND, 0, 100, 0, 1);
    wire_run(w, 1000);
    g_assert_cmpuint(w->node[1]->nrecv, ==, 1);
    g_assert_cmpuint(w->node[0]->nsend, ==, 1);
    g_assert_cmpint(w->now, >=, 500000);
    /* configured off again: nothing held, no statistics */
    ib_fault_configure(&w->node[1]->port, &none);
    g_assert_false(ib_fault_stats(&w->node[1]->port, &s1));
    wire_free(w);
}

/*
 * Deliver the frames in flight one round: each frame's fate is @fate(opcode, psn, n) where n
 * counts the frames with that opcode and PSN so far: 0 drop, 1 deliver, 2 deliver twice.
 * Returns the number of frames seen.
 */
static uint8_t pumped[32][IB_MAX_FRAME];    /* the last frame of each RC opcode */
static size_t pumped_len[32];

static unsigned pump(Wire *w, int (*fate)(uint8_t op, uint32_t psn, unsigned n))
{
    static unsigned seen[256][64];
    unsigned count = 0;

    for (int i = 0; i < 2; i++) {
        ib_port_run(&w->node[i]->port, 64);
    }
    while (w->count) {
        uint8_t *f = w->frame[0];
        size_t len = w->len[0];
        int dst = w->dst[0], k;
        IbPacket p;
        memmove(w->frame, w->frame + 1, (w->count - 1) * sizeof(w->frame[0]));
        memmove(w->len, w->len + 1, (w->count - 1) * sizeof(w->len[0]));
        memmove(w->dst, w->dst + 1, (w->count - 1) * sizeof(w->dst[0]));
        w->count--;
        g_assert_cmpint(ib_wire_decode(f, len, &p), ==, 0);
        memcpy(pumped[p.opcode & 31], f, len);
        pumped_len[p.opcode & 31] = len;
        k = fate(p.opcode, p.psn, seen[p.opcode][p.psn & 63]++);
        for (int j = 0; j < k; j++) {
            ib_port_rx(&w->node[dst]->port, f, len);
        }
        g_free(f);
        count++;
    }
    return count;
}

/* the READ's last two response packets are lost, and so is its first re-request */
static uint8_t saved_write[IB_MAX_FRAME];
static size_t saved_write_len;

static int fate_read_ack(uint8_t op, uint32_t psn, unsigned n)
{
    if ((op == IB_OP_READ_RESPONSE_MIDDLE || op == IB_OP_READ_RESPONSE_LAST) && n == 0) {
        return 0;
    }
    if (op == IB_OP_READ_REQUEST && psn != 0x101 && n == 0) {
        return 0;                       /* the re-request (from a later PSN) */
    }
    return 1;
}

/*
 * An ACK that covers a READ whose responses are missing (the responder's answer to a late
 * duplicate of the WRITE before it): the requester asks for them again, and when that
 * re-request is lost too, its timeout asks once more.
 */
static void test_rc_read_ack_past_missing(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    fill(b->mem + 0x10000, 3000, 3);
    post_send(a, IB_WR_RDMA_WRITE, 0x30000, 100, 0x40000, 1);
    post_send(a, IB_WR_RDMA_READ, 0x20000, 3000, 0x10000, 2);
    /* the WRITE's frame, to deliver it again later */
    ib_port_run(&a->port, 64);
    g_assert_cmpuint(w->count, ==, 2);
    saved_write_len = w->len[0];
    memcpy(saved_write, w->frame[0], saved_write_len);
    for (unsigned r = 0; r < 1000 && a->nsend < 2; r++) {
        if (!pump(w, fate_read_ack)) {
            int64_t next = MIN(a->deadline, b->deadline);
            g_assert_cmpint(next, !=, INT64_MAX);   /* no timer left: the QP hangs */
            w->now = MAX(w->now, next);
            ib_port_expire(&a->port, w->now);
            ib_port_expire(&b->port, w->now);
        }
        if (r == 1) {
            ib_port_rx(&b->port, saved_write, saved_write_len);   /* a late duplicate */
        }
    }
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem + 0x20000, b->mem + 0x10000, 3000), ==, 0);
    wire_free(w);
}

/* the READ's middle response is late: it arrives after the last one */
static int fate_read_late(uint8_t op, uint32_t psn, unsigned n)
{
    return op == IB_OP_READ_RESPONSE_MIDDLE && n == 0 ? 0 : 1;
}

/*
 * A READ whose missing response the requester was about to ask for again, completed by the
 * responses still in flight before the re-request left, once never retired: no completion,
 * and the QP hung (found by the faults guest test).
 */
static void test_rc_read_completed_before_rerequest(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    fill(b->mem + 0x10000, 3000, 5);
    post_send(a, IB_WR_RDMA_READ, 0x20000, 3000, 0x10000, 1);
    pump(w, fate_read_late);            /* the request */
    pump(w, fate_read_late);            /* FIRST, (MIDDLE lost), LAST: a rewind to MIDDLE */
    g_assert_cmpuint(a->nsend, ==, 0);
    /* before the requester sends anything: the late MIDDLE, then LAST again */
    ib_port_rx(&a->port, pumped[IB_OP_READ_RESPONSE_MIDDLE],
               pumped_len[IB_OP_READ_RESPONSE_MIDDLE]);
    ib_port_rx(&a->port, pumped[IB_OP_READ_RESPONSE_LAST], pumped_len[IB_OP_READ_RESPONSE_LAST]);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem + 0x20000, b->mem + 0x10000, 3000), ==, 0);
    /* and the QP goes on: a WRITE after it */
    post_send(a, IB_WR_RDMA_WRITE, 0x30000, 100, 0x40000, 2);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    wire_free(w);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ib/apm", test_apm);
    g_test_add_func("/ib/apm/failover", test_apm_failover);
    g_test_add_func("/ib/fault-injection", test_fault_injection);
    g_test_add_func("/ib/fault-injection/reads", test_fault_reads);
    g_test_add_func("/ib/rc/read-ack-past-missing", test_rc_read_ack_past_missing);
    g_test_add_func("/ib/rc/read-completed-before-rerequest",
                    test_rc_read_completed_before_rerequest);
    return g_test_run();
}
