/*
 * Unit tests of the vendor-neutral IB transport: RC, UC, UD, XRC and DC between two ports on
 * the fake wire (ib-fakewire.c). Path migration, fault injection and loss recovery: test-ib-
 * recovery.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <arpa/inet.h>
#include <zlib.h>
#include "ib-fakewire.h"

/* SEND of many sizes across MTUs, with faults on the wire: delivered intact, in order, once */
static void run_send_test(unsigned mtu_enum, unsigned drop, unsigned dup, unsigned swap)
{
    static const uint32_t sizes[] = { 0, 1, 255, 256, 257, 1024, 4095, 4096, 4097, 65536,
                                      100000 };
    Wire *w = wire_new(IB_QPT_RC, mtu_enum);
    FakeNode *a = w->node[0], *b = w->node[1];
    unsigned i, n = G_N_ELEMENTS(sizes);

    w->drop_every = drop;
    w->dup_every = dup;
    w->swap_every = swap;
    for (i = 0; i < n; i++) {
        fill(a->mem + i * 131072, sizes[i], i);
        post_recv(b, i * 131072, 131072);
        post_send(a, IB_WR_SEND, i * 131072, sizes[i], 0, i);
    }
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, n);
    g_assert_cmpuint(b->nrecv, ==, n);
    for (i = 0; i < n; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        g_assert_cmpuint(a->send_cookie[i] & 0xffffffff, ==, i);
        g_assert_cmpint(b->recv[i].status, ==, IB_WC_SUCCESS);
        g_assert_cmpuint(b->recv[i].byte_len, ==, sizes[i]);
        g_assert_cmpuint(b->recv_cookie[i], ==, i);
        g_assert_cmpint(memcmp(a->mem + i * 131072, b->mem + i * 131072, sizes[i]), ==, 0);
        g_assert_cmpuint(b->recv[i].src_qpn, ==, a->qp.qpn);
    }
    wire_free(w);
}

static void test_rc_send_clean(void)
{
    for (unsigned mtu = 1; mtu <= 5; mtu++) {
        run_send_test(mtu, 0, 0, 0);
    }
}

static void test_rc_send_lossy(void)
{
    run_send_test(3, 7, 0, 0);
    run_send_test(1, 0, 5, 0);
    run_send_test(2, 0, 0, 3);
    run_send_test(5, 11, 13, 4);
}

static void test_rc_write_read_atomic(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    uint64_t v;

    w->drop_every = 9;
    w->dup_every = 7;
    fill(a->mem, 200000, 1);
    fill(b->mem + 400000, 300000, 2);
    post_send(a, IB_WR_RDMA_WRITE, 0, 200000, 0x10000, 1);
    post_send(a, IB_WR_RDMA_READ, 700000, 300000, 400000, 2);
    v = 40;
    memcpy(b->mem + 0x80, &v, 8);
    {
        IbSendWr wr = { .cookie = (1100000ull << 32) | 3, .opcode = IB_WR_ATOMIC_FETCH_ADD,
                        .length = 8, .remote_addr = 0x80, .rkey = RKEY, .compare_add = 2 };
        g_assert_true(ib_qp_post_send(&a->qp, &wr));
        wr.cookie = (1100008ull << 32) | 4;
        wr.opcode = IB_WR_ATOMIC_CMP_SWP;
        wr.compare_add = 42;
        wr.swap = 1000;
        g_assert_true(ib_qp_post_send(&a->qp, &wr));
    }
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, 4);
    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        g_assert_cmpuint(a->send_cookie[i] & 0xffffffff, ==, i + 1);
    }
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x10000, 200000), ==, 0);
    for (unsigned i = 0; i < 300000; i++) {
        if (a->mem[700000 + i] != b->mem[400000 + i]) {
            g_test_message("READ data differs first at offset %u", i);
            break;
        }
    }
    g_assert_cmpint(memcmp(a->mem + 700000, b->mem + 400000, 300000), ==, 0);
    /* atomics ran exactly once each, despite duplicates on the wire */
    memcpy(&v, b->mem + 0x80, 8);
    g_assert_cmpuint(v, ==, 1000);
    memcpy(&v, a->mem + 1100000, 8);
    g_assert_cmpuint(v, ==, 40);
    memcpy(&v, a->mem + 1100008, 8);
    g_assert_cmpuint(v, ==, 42);
    g_assert_cmpuint(b->nrecv, ==, 0);      /* plain WRITE/READ consume no receive */
    wire_free(w);
}

static void test_rc_write_imm(void)
{
    Wire *w = wire_new(IB_QPT_RC, 5);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_recv(b, 0, 16);
    post_send(a, IB_WR_RDMA_WRITE_IMM, 0, 10000, 0x20000, 1);
    wire_run(w, 10000);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpint(b->recv[0].opcode, ==, IB_RECV_WRITE_IMM);
    g_assert_cmpuint(b->recv[0].byte_len, ==, 10000);
    g_assert_cmphex(b->recv[0].imm, ==, 0x78563412);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    wire_free(w);
}

/* RNR: the send waits until a receive is posted, then goes through */
static void test_rc_rnr(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_send(a, IB_WR_SEND, 0, 3000, 0, 1);
    wire_run(w, 20);                        /* a few RNR rounds */
    g_assert_cmpuint(a->nsend, ==, 0);
    g_assert_cmpuint(a->qp.stat_rnr, >=, 1);
    post_recv(b, 0, 4096);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpuint(b->nrecv, ==, 1);
    wire_free(w);
}

/* RNR retries exhausted: RNR_RETRY_EXC_ERR, then the rest flushed */
static void test_rc_rnr_exhausted(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0];

    a->qp.rnr_retry = a->qp.rnr_retries_left = 2;
    post_send(a, IB_WR_SEND, 0, 100, 0, 1);
    post_send(a, IB_WR_SEND, 0, 100, 0, 2);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_RNR_RETRY_EXC_ERR);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_WR_FLUSH_ERR);
    g_assert_cmpint(a->qp.state, ==, IB_QPS_ERR);
    wire_free(w);
}

/* Nobody answers: RETRY_EXC_ERR after retry_cnt timeouts */
static void test_rc_retry_exhausted(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0];

    a->qp.retry_cnt = a->qp.retries_left = 3;
    w->drop_every = 1;                      /* a cut cable */
    post_send(a, IB_WR_RDMA_WRITE, 0, 100, 0, 1);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(w->dropped, ==, 4);    /* first try + 3 retries */
    wire_free(w);
}

static void test_rc_remote_access_error(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbSendWr wr = { .cookie = 1, .opcode = IB_WR_RDMA_WRITE, .length = 64,
                    .remote_addr = 0, .rkey = 0x999 };

    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(b->events[IB_EV_QP_ACCESS_ERR], ==, 1);
    g_assert_cmpuint(b->events[IB_EV_COMM_EST], ==, 0);     /* b was already RTS */
    wire_free(w);
}

static void test_rc_recv_too_small(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_recv(b, 0, 100);
    post_send(a, IB_WR_SEND, 0, 101, 0, 1);
    wire_run(w, 1000);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpint(b->recv[0].status, ==, IB_WC_LOC_LEN_ERR);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_REM_INV_REQ_ERR);
    wire_free(w);
}

static void test_ud(void)
{
    Wire *w = wire_new(IB_QPT_UD, 5);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbSendWr wr = { .cookie = 7, .opcode = IB_WR_SEND_IMM, .length = 2000, .dest_qpn = 0x20,
                    .qkey = 0x11111111, .imm = 0xaabbccdd, .av = { .dlid = 2 } };

    fill(a->mem, 2000, 5);
    post_recv(b, 0x1000, 4096);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    /* wrong Q_Key: dropped */
    wr.cookie = 8;
    wr.qkey = 0x22222222;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    /* too big for the MTU: local length error */
    wr.cookie = 9;
    wr.length = 5000;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 3);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[2], ==, IB_WC_LOC_LEN_ERR);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpuint(b->recv[0].byte_len, ==, 2040);            /* + 40 bytes of GRH area */
    g_assert_cmpuint(b->recv[0].src_qpn, ==, 0x10);
    g_assert_cmpuint(b->recv[0].slid, ==, 1);
    g_assert_cmphex(b->recv[0].imm, ==, 0xaabbccdd);
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x1000 + 40, 2000), ==, 0);
    wire_free(w);
}

static void test_uc_loss(void)
{
    Wire *w = wire_new(IB_QPT_UC, 1);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_recv(b, 0, 8192);
    post_recv(b, 8192, 8192);
    w->drop_every = 3;                          /* the first message loses a packet */
    post_send(a, IB_WR_SEND, 0, 1024, 0, 1);   /* 4 packets of 256 */
    wire_run(w, 100);
    w->drop_every = 0;
    post_send(a, IB_WR_SEND, 0, 200, 0, 2);
    wire_run(w, 100);
    g_assert_cmpuint(a->nsend, ==, 2);          /* UC completes on transmission */
    g_assert_cmpuint(b->nrecv, ==, 1);          /* the damaged message is gone */
    g_assert_cmpuint(b->recv[0].byte_len, ==, 200);
    wire_free(w);
}

/* UC SEND with Invalidate (the verbs offer it on UC): the receiver sees the rkey invalidated */
static void test_uc_send_inv(void)
{
    Wire *w = wire_new(IB_QPT_UC, 1);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbSendWr wr = { .cookie = 1, .opcode = IB_WR_SEND_INV, .length = 700, .inv_rkey = 0xabcd12,
                    .signaled = true };

    fill(a->mem, 700, 4);
    post_recv(b, 0x1000, 4096);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 100);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpint(b->recv[0].status, ==, IB_WC_SUCCESS);
    g_assert_cmpint(b->recv[0].opcode, ==, IB_RECV_SEND_INV);
    g_assert_cmpuint(b->recv[0].byte_len, ==, 700);
    g_assert_cmphex(ntohl(b->recv[0].imm), ==, 0xabcd12);
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x1000, 700), ==, 0);
    g_assert_cmpuint(b->port.stat_rx_bad, ==, 0);
    wire_free(w);
}

/*
 * The ICRC's CRC-32: the carry-less multiplication path gives zlib's crc32() at every length
 * (below 16 bytes, one lane up to 63, four lanes from 64, with tails), alignment and starting
 * value.
 */
static void test_wire_crc32(void)
{
    enum { N = 9000 };
    g_autofree uint8_t *buf = g_malloc(N + 16);
    GRand *r = g_rand_new_with_seed(0x1c8c);

    g_assert_cmphex(ib_crc32(0, "123456789", 9), ==, 0xcbf43926);
    for (size_t i = 0; i < N + 16; i++) {
        buf[i] = g_rand_int(r);
    }
    for (int it = 0; it < 3000; it++) {
        size_t off = g_rand_int_range(r, 0, 16);
        size_t len = it < 300 ? (size_t)it : (size_t)g_rand_int_range(r, 0, N);
        uint32_t seed = it & 1 ? g_rand_int(r) : 0;
        uint32_t want = crc32(seed, buf + off, len);

        g_assert_cmphex(ib_crc32_generic(seed, buf + off, len), ==, want);
        g_assert_cmphex(ib_crc32(seed, buf + off, len), ==, want);
        /* in two pieces, as the ICRC is computed (header, then payload) */
        if (len) {
            size_t cut = g_rand_int_range(r, 0, len);
            uint32_t c = ib_crc32(seed, buf + off, cut);

            g_assert_cmphex(ib_crc32(c, buf + off + cut, len - cut), ==, want);
        }
    }
    if (!ib_crc32_have_clmul()) {
        g_test_message("this CPU has no PCLMULQDQ: only the generic path was compared");
    }
    g_rand_free(r);
}

static void test_wire_roundtrip(void)
{
    IbPacket p = { 0 }, q;
    uint8_t frame[IB_MAX_HDR_LEN + 64 + 8];
    uint8_t payload[13];
    size_t hlen;
    uint32_t crc;

    fill(payload, sizeof(payload), 3);
    p.dlid = 0x3402;
    p.slid = 0x3401;
    p.sl = 3;
    p.opcode = IB_TRANSPORT_RC | IB_OP_WRITE_ONLY_IMM;
    p.se = true;
    p.pkey = 0xffff;
    p.dest_qpn = 0xabcdef;
    p.ack_req = true;
    p.psn = 0xfffffe;
    p.reth_va = 0x1122334455667788ull;
    p.reth_rkey = 0x99aabbcc;
    p.reth_len = 13;
    p.imm = 0x01020304;
    p.pad = 3;
    hlen = ib_wire_encode_hdr(&p, frame, sizeof(payload));
    memcpy(frame + hlen, payload, sizeof(payload));
    memset(frame + hlen + sizeof(payload), 0, 3);
    crc = ib_wire_icrc(frame, hlen, payload, sizeof(payload), 3);
    for (int i = 0; i < 4; i++) {
        frame[hlen + sizeof(payload) + 3 + i] = crc >> (8 * i);
    }
    g_assert_cmpint(ib_wire_decode(frame, hlen + sizeof(payload) + 7, &q), ==, 0);
    g_assert_cmphex(q.dlid, ==, 0x3402);
    g_assert_cmphex(q.slid, ==, 0x3401);
    g_assert_cmpuint(q.sl, ==, 3);
    g_assert_cmphex(q.dest_qpn, ==, 0xabcdef);
    g_assert_cmphex(q.psn, ==, 0xfffffe);
    g_assert_true(q.se && q.ack_req);
    g_assert_cmphex(q.reth_va, ==, 0x1122334455667788ull);
    g_assert_cmphex(q.reth_rkey, ==, 0x99aabbcc);
    g_assert_cmphex(q.imm, ==, 0x01020304);
    g_assert_cmpuint(q.payload_len, ==, 13);
    g_assert_cmpint(memcmp(q.payload, payload, 13), ==, 0);
    /* a flipped payload bit fails the ICRC; a truncated frame is rejected */
    frame[hlen + 2] ^= 1;
    g_assert_cmpint(ib_wire_decode(frame, hlen + sizeof(payload) + 7, &q), <, 0);
    frame[hlen + 2] ^= 1;
    for (size_t cut = 0; cut < hlen + sizeof(payload) + 7; cut++) {
        g_assert_cmpint(ib_wire_decode(frame, cut, &q), <, 0);
    }
    /* PSN arithmetic wraps at 24 bits */
    g_assert_cmpint(ib_psn_diff(0x000001, 0xffffff), ==, 2);
    g_assert_cmpint(ib_psn_diff(0xffffff, 0x000001), ==, -2);
}

/*
 * XRC: the initiator's requests carry the XRC transport opcodes and an XRCETH naming the
 * target's XRC SRQ; the target takes each receive for that SRQ, answers with XRC ACKs, and
 * refuses a request naming an SRQ outside its domain with NAK invalid request.
 */
static void test_xrc(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbSendWr wr = { .opcode = IB_WR_SEND, .length = 3000, .signaled = true,
                    .xrc_srqn = XRC_SRQN };
    IbPacket p = { 0 }, q;
    uint8_t frame[IB_MAX_HDR_LEN + 8];
    size_t hlen;
    uint32_t crc;

    /* XRCETH on the wire: after the BTH, before the RETH */
    p.opcode = IB_TRANSPORT_XRC | IB_OP_WRITE_ONLY;
    p.dest_qpn = 0x123;
    p.xrc_srqn = 0xabcdef;
    p.reth_rkey = 0x55;
    p.pkey = 0xffff;
    hlen = ib_wire_encode_hdr(&p, frame, 0);
    g_assert_cmphex(ib_ld32(frame + hlen - IB_RETH_LEN - IB_XRCETH_LEN), ==, 0xabcdef);
    crc = ib_wire_icrc(frame, hlen, NULL, 0, 0);
    for (int i = 0; i < 4; i++) {
        frame[hlen + i] = crc >> (8 * i);
    }
    g_assert_cmpint(ib_wire_decode(frame, hlen + 4, &q), ==, 0);
    g_assert_cmphex(q.xrc_srqn, ==, 0xabcdef);
    g_assert_cmphex(q.reth_rkey, ==, 0x55);
    /* responses carry no XRCETH */
    g_assert_false(ib_opcode_headers(IB_TRANSPORT_XRC | IB_OP_ACKNOWLEDGE) & IB_HDR_XRCETH);
    g_assert_true(ib_opcode_headers(IB_TRANSPORT_XRC | IB_OP_READ_REQUEST) & IB_HDR_XRCETH);

    a->qp.xrc = b->qp.xrc = true;
    fill(a->mem, 3000, 9);
    post_recv(b, 0x10000, 4096);
    post_recv(b, 0x20000, 4096);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wr.opcode = IB_WR_RDMA_WRITE;
    wr.remote_addr = 0x30000;
    wr.rkey = RKEY;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 10000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmphex(b->xrc_srqn_seen[0], ==, XRC_SRQN);
    g_assert_cmpint(memcmp(b->mem + 0x10000, a->mem, 3000), ==, 0);
    g_assert_cmpint(memcmp(b->mem + 0x30000, a->mem, 3000), ==, 0);
    /* an SRQ outside the target's domain: NAK invalid request, the initiator fails */
    wr.opcode = IB_WR_SEND;
    wr.xrc_srqn = XRC_SRQN + 1;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 10000);
    g_assert_cmpuint(a->nsend, ==, 3);
    g_assert_cmpint(a->send_status[2], ==, IB_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(b->nrecv, ==, 1);
    wire_free(w);
}

#define DC_KEY 0x0123456789abcdefull

/* Node b's QP becomes a DCT with @nctx contexts, node a's a DCI. */
static void dc_setup(Wire *w, unsigned nctx)
{
    FakeNode *a = w->node[0], *b = w->node[1];

    ib_qp_cleanup(&b->qp);
    ib_qp_init(&b->qp, &b->port, 0x20, IB_QPT_DCT, 1);
    b->qp.mtu = a->qp.mtu;
    b->qp.rre = b->qp.rwe = b->qp.rae = true;
    b->qp.min_rnr_timer = 1;
    b->qp.max_dest_rd_atomic = 4;
    b->qp.dc_key = DC_KEY;
    ib_dct_init(&b->qp, nctx);
    ib_qp_set_state(&b->qp, IB_QPS_INIT);
    ib_qp_set_state(&b->qp, IB_QPS_RTR);
    a->qp.dci = true;
}

static IbSendWr dc_wr(IbWrOpcode op, uint64_t va, uint32_t len, uint64_t remote, unsigned sl)
{
    IbSendWr wr = {
        .cookie = (va << 32) | op,
        .opcode = op,
        .length = len,
        .remote_addr = remote,
        .rkey = RKEY,
        .compare_add = 5,
        .signaled = true,
        .dest_qpn = 0x20,
        .dc_key = DC_KEY,
    };
    wr.av.dlid = 2;
    wr.av.sl = sl;
    return wr;
}

/* DC: DCETH on the wire, every operation through a DCT, new connections, loss, a wrong key */
static void test_dc(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbPacket p = { 0 }, q;
    uint8_t frame[IB_MAX_HDR_LEN + 8];
    IbSendWr wr;
    size_t hlen;
    uint32_t crc, conn0;
    unsigned i;

    p.opcode = IB_TRANSPORT_DC | IB_OP_COMPARE_SWAP;
    p.dest_qpn = 0x123;
    p.dc_key = DC_KEY;
    p.dc_conn_id = 0xfeedf00d;
    p.dc_conn_psn = 0xabcdef;
    p.dc_src_qpn = 0x456;
    p.atomic_rkey = 0x55;
    p.pkey = 0xffff;
    hlen = ib_wire_encode_hdr(&p, frame, 0);
    crc = ib_wire_icrc(frame, hlen, NULL, 0, 0);
    for (i = 0; i < 4; i++) {
        frame[hlen + i] = crc >> (8 * i);
    }
    g_assert_cmpint(ib_wire_decode(frame, hlen + 4, &q), ==, 0);
    g_assert_cmphex(q.dc_key, ==, DC_KEY);
    g_assert_cmphex(q.dc_conn_id, ==, 0xfeedf00d);
    g_assert_cmphex(q.dc_conn_psn, ==, 0xabcdef);
    g_assert_cmphex(q.dc_src_qpn, ==, 0x456);
    g_assert_cmphex(q.atomic_rkey, ==, 0x55);
    g_assert_false(ib_opcode_headers(IB_TRANSPORT_DC | IB_OP_ACKNOWLEDGE) & IB_HDR_DCETH);

    dc_setup(w, 2);
    conn0 = a->qp.dc_conn_id;
    w->drop_every = 9;
    /* SENDs alternating between two paths (a new connection each time), WRITE, READ, atomic */
    for (i = 0; i < 12; i++) {
        fill(a->mem + i * 0x4000, 3000 + i, i);
        post_recv(b, i * 0x4000, 0x4000);
        wr = dc_wr(IB_WR_SEND, i * 0x4000, 3000 + i, 0, (i / 3) & 1);
        g_assert_true(ib_qp_post_send(&a->qp, &wr));
    }
    fill(a->mem + 0x100000, 9000, 77);
    wr = dc_wr(IB_WR_RDMA_WRITE, 0x100000, 9000, 0x110000, 0);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    fill(b->mem + 0x120000, 5000, 78);
    wr = dc_wr(IB_WR_RDMA_READ, 0x130000, 5000, 0x120000, 1);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    memset(b->mem + 0x140000, 0, 8);
    b->mem[0x140000] = 37;
    wr = dc_wr(IB_WR_ATOMIC_FETCH_ADD, 0x150000, 8, 0x140000, 0);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, 15);
    for (i = 0; i < 15; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
    }
    g_assert_cmpuint(b->nrecv, ==, 12);
    for (i = 0; i < 12; i++) {
        g_assert_cmpint(b->recv[i].status, ==, IB_WC_SUCCESS);
        g_assert_cmpuint(b->recv[i].byte_len, ==, 3000 + i);
        g_assert_cmpuint(b->recv[i].src_qpn, ==, a->qp.qpn);
        g_assert_cmpint(memcmp(a->mem + i * 0x4000, b->mem + i * 0x4000, 3000 + i), ==, 0);
    }
    g_assert_cmpint(memcmp(a->mem + 0x100000, b->mem + 0x110000, 9000), ==, 0);
    g_assert_cmpint(memcmp(a->mem + 0x130000, b->mem + 0x120000, 5000), ==, 0);
    g_assert_cmpuint(a->mem[0x150000], ==, 37);
    g_assert_cmpuint(b->mem[0x140000], ==, 42);
    /* seven connections (each change of path), all served by one context */
    g_assert_cmpuint(a->qp.dc_conn_id - conn0, ==, 7);
    g_assert_true(b->qp.dc_ctx[0].dc_bound);
    g_assert_cmphex(b->qp.dc_ctx[0].dc_conn_id, ==, a->qp.dc_conn_id);
    g_assert_false(b->qp.dc_ctx[1].dc_bound);
    g_assert_cmpuint(b->events[IB_EV_COMM_EST], ==, 0);

    /* a wrong access key: the DCT drops the request, the DCI runs out of retries */
    w->drop_every = 0;
    a->qp.retry_cnt = 2;
    a->qp.retries_left = 2;
    post_recv(b, 0x160000, 0x1000);
    wr = dc_wr(IB_WR_SEND, 0, 16, 0, 0);
    wr.dc_key = DC_KEY + 1;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, 16);
    g_assert_cmpint(a->send_status[15], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(b->nrecv, ==, 12);
    g_assert_cmpuint(b->qp.stat_dc_key_violations, ==, 3);

    /* draining forgets the initiators and takes nothing more */
    ib_dct_drain(&b->qp);
    for (i = 0; i < b->qp.dc_nctx; i++) {
        g_assert_false(b->qp.dc_ctx[i].dc_bound);
    }
    wire_free(w);
}

/* Long transfer across the PSN wrap point */
static void test_rc_psn_wrap(void)
{
    Wire *w = wire_new(IB_QPT_RC, 1);
    FakeNode *a = w->node[0], *b = w->node[1];

    ib_qp_set_state(&a->qp, IB_QPS_RESET);
    ib_qp_set_state(&b->qp, IB_QPS_RESET);
    a->qp.sq_psn = b->qp.rq_psn = 0xffff00;
    for (int i = 0; i < 2; i++) {
        ib_qp_set_state(&w->node[i]->qp, IB_QPS_INIT);
        ib_qp_set_state(&w->node[i]->qp, IB_QPS_RTR);
        ib_qp_set_state(&w->node[i]->qp, IB_QPS_RTS);
    }
    fill(a->mem, 300000, 9);
    post_send(a, IB_WR_RDMA_WRITE, 0, 300000, 0x80000, 1);   /* 1172 packets */
    w->drop_every = 101;
    wire_run(w, 100000);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x80000, 300000), ==, 0);
    g_assert_cmpuint(a->qp.next_psn, <, 0x1000);
    wire_free(w);
}

/*
 * ACK coalescing: a burst of requests gets one cumulative ACK, and a READ
 * response in the middle of the burst goes out after the ACK of the requests
 * before it (PSN order), so the requester sees three packets for eleven
 * requests: ACK, READ response, ACK.
 */
static void test_rc_ack_coalescing(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    unsigned i;

    fill(a->mem, 4096, 7);
    fill(b->mem + 0x8000, 64, 9);
    for (i = 0; i < 8; i++) {
        post_send(a, IB_WR_RDMA_WRITE, i * 64, 64, 0x4000 + i * 64, i);
    }
    post_send(a, IB_WR_RDMA_READ, 0x10000, 64, 0x8000, 8);
    post_send(a, IB_WR_RDMA_WRITE, 0x1000, 64, 0x5000, 9);
    post_send(a, IB_WR_RDMA_WRITE, 0x1040, 64, 0x5040, 10);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 11);
    for (i = 0; i < 11; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        g_assert_cmpuint(a->send_cookie[i] & 0xffff, ==, i);
    }
    g_assert_cmpmem(b->mem + 0x4000, 512, a->mem, 512);
    g_assert_cmpmem(b->mem + 0x5000, 128, a->mem + 0x1000, 128);
    g_assert_cmpmem(a->mem + 0x10000, 64, b->mem + 0x8000, 64);
    g_assert_cmpuint(b->port.stat_rx, ==, 11);
    g_assert_cmpuint(a->port.stat_rx, ==, 3);
    g_assert_false(b->qp.ack_pending);
    wire_free(w);
}

/*
 * The ACK a received burst waits for (ack coalescing) goes out when the QP
 * goes to RESET or ERR or away before the burst ends: on a card it is on the
 * wire before the guest sees the completion that made it destroy the QP
 * (ibv_rc_pingpong's client does so at once), and without it the requester's
 * last SEND would end in "transport retry counter exceeded".
 */
static void test_rc_ack_before_teardown(void)
{
    for (int how = 0; how < 3; how++) {
        Wire *w = wire_new(IB_QPT_RC, 3);
        FakeNode *a = w->node[0], *b = w->node[1];
        uint8_t *f;

        fill(a->mem, 64, 3);
        post_recv(b, 0x1000, 64);
        post_send(a, IB_WR_SEND, 0, 64, 0, 1);
        ib_port_run(&a->port, 64);
        g_assert_cmpuint(w->count, ==, 1);
        /* the SEND reaches b, whose port does not get to end its burst */
        f = w->frame[0];
        w->count = 0;
        ib_port_link_rx(&b->port, f, w->len[0], NULL);
        g_free(f);
        g_assert_cmpuint(b->nrecv, ==, 1);
        g_assert_true(b->qp.ack_pending);
        g_assert_cmpuint(w->count, ==, 0);
        if (how == 0) {
            ib_qp_set_state(&b->qp, IB_QPS_RESET);
        } else if (how == 1) {
            ib_qp_set_state(&b->qp, IB_QPS_ERR);
        } else {
            ib_qp_cleanup(&b->qp);
        }
        g_assert_false(b->qp.ack_pending);
        g_assert_cmpuint(w->count, ==, 1);
        wire_run(w, 1000);
        g_assert_cmpuint(a->nsend, ==, 1);
        g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
        g_assert_cmpmem(b->mem + 0x1000, 64, a->mem, 64);
        wire_free(w);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ib/wire/roundtrip", test_wire_roundtrip);
    g_test_add_func("/ib/wire/crc32", test_wire_crc32);
    g_test_add_func("/ib/xrc", test_xrc);
    g_test_add_func("/ib/dc", test_dc);
    g_test_add_func("/ib/rc/send-clean", test_rc_send_clean);
    g_test_add_func("/ib/rc/send-lossy", test_rc_send_lossy);
    g_test_add_func("/ib/rc/write-read-atomic", test_rc_write_read_atomic);
    g_test_add_func("/ib/rc/write-imm", test_rc_write_imm);
    g_test_add_func("/ib/rc/rnr", test_rc_rnr);
    g_test_add_func("/ib/rc/rnr-exhausted", test_rc_rnr_exhausted);
    g_test_add_func("/ib/rc/retry-exhausted", test_rc_retry_exhausted);
    g_test_add_func("/ib/rc/remote-access-error", test_rc_remote_access_error);
    g_test_add_func("/ib/rc/recv-too-small", test_rc_recv_too_small);
    g_test_add_func("/ib/rc/psn-wrap", test_rc_psn_wrap);
    g_test_add_func("/ib/rc/ack-coalescing", test_rc_ack_coalescing);
    g_test_add_func("/ib/rc/ack-before-teardown", test_rc_ack_before_teardown);
    g_test_add_func("/ib/ud/send", test_ud);
    g_test_add_func("/ib/uc/loss", test_uc_loss);
    g_test_add_func("/ib/uc/send-inv", test_uc_send_inv);
    return g_test_run();
}
