/*
 * The fake wire of the IB transport's unit tests: two ports linked in-process through a wire
 * that can drop, duplicate and reorder frames (and, through the ports' fault injection, more).
 * The "device" is minimal: flat memory addressed by one rkey, a receive queue of buffers, and
 * recorded completions and events.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IB_FAKEWIRE_H
#define IB_FAKEWIRE_H

#include "mlx5-test.h"
#include "hw/rdma/ib/ib_transport.h"
#include "hw/rdma/ib/ib_wire.h"

#define MEM_SIZE    (2 << 20)
#define MAX_RECV    64
#define MAX_DONE    512
#define MAX_FRAMES  4096

typedef struct FakeNode FakeNode;

typedef struct Wire {
    /* frames in flight: [node index][n] */
    uint8_t *frame[MAX_FRAMES];
    size_t len[MAX_FRAMES];
    int dst[MAX_FRAMES];
    unsigned count;
    unsigned drop_every, dup_every, swap_every;  /* fault injection: every Nth frame */
    unsigned seq;
    uint32_t rng;               /* faults hit pseudo-random frames, about 1 in N */
    unsigned dropped;
    uint16_t dead_dlid;         /* frames to this LID are lost (a path that broke) */
    int64_t now;
    FakeNode *node[2];
} Wire;

typedef struct RecvBuf {
    uint64_t va;
    uint32_t len;
} RecvBuf;

struct FakeNode {
    IbPort port;
    IbQp qp;
    Wire *wire;
    int idx;
    uint8_t *mem;           /* rkey 0x1234 (and lkey) covers [0, MEM_SIZE) */
    RecvBuf rq[MAX_RECV];
    unsigned rq_head, rq_tail;
    IbWcStatus send_status[MAX_DONE];
    uint64_t send_cookie[MAX_DONE];
    unsigned nsend;
    IbRecvCompletion recv[MAX_DONE];
    uint64_t recv_cookie[MAX_DONE];
    unsigned nrecv;
    unsigned events[8];
    int64_t deadline;
    uint32_t xrc_srqn_seen[MAX_DONE];   /* XRC target: the SRQ each receive was taken for */
};

#define XRC_SRQN 0x77       /* the only XRC SRQ of the fake target's domain */

#define RKEY 0x1234

/* Two nodes, LIDs 1 and 2, one QP each (QPN 0x10 / 0x20) connected to each other. */
Wire *wire_new(IbQpType type, unsigned mtu_enum);
void wire_free(Wire *w);
/* Run both nodes and the wire until quiet; advance the clock to fire timers. */
void wire_run(Wire *w, unsigned max_rounds);
void post_recv(FakeNode *n, uint64_t va, uint32_t len);
/* a signaled WR of @op from @local_va (@len bytes) to @remote_va through RKEY; cookie @id */
void post_send(FakeNode *n, IbWrOpcode op, uint64_t local_va, uint32_t len, uint64_t remote_va,
               unsigned id);
void fill(uint8_t *p, size_t len, unsigned seed);
/*
 * Make both nodes RoCE v2 ports: MACs 02:00:00:00:00:0(i+1), GID 0 = fe80::i+1 (IPv6), GID 1 =
 * ::ffff:192.168.77.(i+1) (IPv4), VLAN @vlan_id on both if @vlan; each QP's path goes to the
 * other's GID @sgid_index (0 or 1) and MAC.
 */
void wire_roce(Wire *w, unsigned sgid_index, bool vlan, uint16_t vlan_id);
void roce_gid(uint8_t gid[16], unsigned node, bool ipv4);

#endif
