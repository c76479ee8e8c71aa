/*
 * Unit-test support: QPs driven the way libmlx5 drives them (ring buffers, doorbell records,
 * UAR doorbells, CQ polling) on two mini-driver nodes linked in-process. Shared by the data-path
 * tests and the core benchmark.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLX5_TESTQP_H
#define MLX5_TESTQP_H

#include "mlx5-test.h"

#define LOG_SQ  6           /* 64 WQEBBs */
#define LOG_RQ  5           /* 32 WQEs of 64 bytes (4 SGEs) */
#define RQ_STRIDE_LOG 2     /* 16 << 2 = 64 */
#define LOG_CQ  7

typedef struct TQp {
    TDrv *d;
    uint32_t qpn, cqn, pd, key;
    uint64_t buf, dbr, cq_buf, cq_dbr, mem;
    uint64_t sq_off;    /* of the send queue in buf (after the RQ; 0 with an SRQ) */
    uint16_t sq_pi, rq_pi;
    uint32_t cq_ci;
    uint8_t st;
    uint8_t mtu;        /* PRM encoding for tqp_connect (1 = 256 .. 5 = 4096); 0: 3, 1024 */
} TQp;

uint32_t create_pa_mkey(TDrv *d, uint32_t pd);
uint32_t create_mtt_mkey(TDrv *d, uint32_t pd, uint64_t va, uint64_t len, uint64_t pa,
                         bool remote);
/* The same with pg_access and no page present (on-demand paging), remote access granted. */
uint32_t create_odp_mkey(TDrv *d, uint32_t pd, uint64_t va, uint64_t len, uint64_t pa);
/* A free, UMR-enabled mkey (local read) of @access_mode (MTT, KLM, KSM) with room for
 * @octwords 16-byte translation entries, as the kernel's MR cache makes them; the key's low
 * byte is @variant. */
uint32_t create_free_umr_mkey(TDrv *d, uint32_t pd, unsigned access_mode, unsigned octwords,
                              uint8_t variant);
/* The free bit of @key (QUERY_MKEY), -1 if the query fails. */
int64_t query_free(TDrv *d, uint32_t key);
/* A byte pattern at @pa; whether two ranges (of two nodes) hold the same bytes. */
void tqp_pattern(TDrv *d, uint64_t pa, size_t len, unsigned seed);
bool tqp_same(TDrv *da, uint64_t pa, TDrv *db, uint64_t pb, size_t len);
void init_cq_buf(TDrv *d, uint64_t buf, unsigned n);
void tqp_create_on(TQp *q, TDrv *d, uint8_t st, uint32_t user_index, uint32_t srqn,
                   uint32_t pd);
/* The same with TQP_* flags: no send queue, rendezvous offload (tag matching) */
enum { TQP_NO_SQ = 1, TQP_RNDV = 2 };
void tqp_create_ex(TQp *q, TDrv *d, uint8_t st, uint32_t user_index, uint32_t srqn,
                   uint32_t pd, unsigned flags);
void tqp_create(TQp *q, TDrv *d, uint8_t st, uint32_t user_index);
void tqp_connect(TQp *q, uint16_t dlid, uint32_t dqpn, uint32_t qkey);
/* The same with the address path @path (MLX5_ADS_SIZE bytes, e.g. a RoCE path) */
void tqp_connect_path(TQp *q, const uint8_t *path, uint32_t dqpn, uint32_t qkey);
/* Two RC QPs (user indices 1 and 2) on @a and @b (the same node: loopback), connected. */
void tqp_rc_pair(TQp *qa, TDrv *a, TQp *qb, TDrv *b);
uint16_t tqp_post_send(TQp *q, uint8_t opcode, uint32_t imm, const uint8_t *segs,
                       unsigned nsegs, bool signaled, bool ring);
void data_seg(uint8_t *seg, uint32_t len, uint32_t lkey, uint64_t addr);
void raddr_seg(uint8_t *seg, uint64_t raddr, uint32_t rkey);
void tqp_post_recv(TQp *q, uint32_t len, uint64_t addr);
void tqp_post_recv_key(TQp *q, uint32_t len, uint32_t lkey, uint64_t addr);
bool tqp_poll(TQp *q, uint8_t *cqe);
/* The next CQE of @q is a requester error with syndrome @synd. */
void tqp_expect_req_err(TQp *q, uint8_t synd);
void run_pair(TDrv *a, TDrv *b, unsigned rounds);
TDrv *new_node(uint8_t last);

/*
 * UMR WQEs as the kernel and libmlx5 post them (mlx5_umr.c): the control segment's flags and
 * mkey mask bits, and one UMR's fields.
 */
enum {
    F_CHECK_QPN = 0x08, F_OFFSET = 0x10, F_MUST_BE_FREE = 0x20, F_MUST_NOT_BE_FREE = 0x40,
    F_INLINE = 0x80,
};
enum {
    M_LEN = 1 << 0, M_PAGE_SIZE = 1 << 1, M_START = 1 << 6, M_PD = 1 << 7, M_RINVAL = 1 << 8,
    M_SIGERR = 1 << 9, M_BSF = 1 << 12, M_KEY = 1 << 13, M_QPN = 1 << 14, M_LR = 1 << 17, M_LW = 1 << 18,
    M_RR = 1 << 19, M_RW = 1 << 20, M_A = 1 << 21, M_FREE = 1 << 29,
};
#define M_ACCESS (M_LR | M_LW | M_RR | M_RW | M_A)

typedef struct Umr {
    uint32_t key;               /* ctrl.imm: the target */
    uint8_t flags;
    uint64_t mask;
    uint8_t mkc[64];
    const uint8_t *xlt;         /* inline entries (F_INLINE) */
    unsigned n16;
    uint64_t off16;
    uint32_t ptr_lkey;          /* otherwise: entries read through this key */
    uint64_t ptr_addr;
} Umr;

/* Post @u on @q (ring the doorbell); returns the WQE index. */
uint16_t post_umr(TQp *q, const Umr *u, bool signaled);
/* Post @u on @q, run, and return the CQE's opcode nibble (syndrome in *synd on error). */
unsigned umr_run(TQp *q, const Umr *u, uint8_t *synd);
/* One 16-byte KLM/KSM entry. */
void klm(uint8_t *e, uint32_t bcount, uint32_t key, uint64_t va);

#endif
