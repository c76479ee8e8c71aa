/*
 * Test support for an Ethernet port (link-type=eth): the objects mlx5e makes for one channel
 * (TD, TIS, CQ, RQ, SQ, a direct TIR, a root flow table taking the node's MAC to it) and the
 * WQEs and CQEs of its queues.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLX5_TESTETH_H
#define MLX5_TESTETH_H

#include "mlx5-testqp.h"
#include "mlx5_eth.h"

typedef struct TEth {
    TDrv *d;
    uint32_t pd, key, td, cqn, rqn, sqn, tisn, tirn, ft, fg;
    uint64_t cq_buf, cq_dbr, rq_buf, rq_dbr, sq_buf, sq_dbr, mem;
    uint32_t cq_ci;
    uint16_t rq_pi, sq_pi;
    uint8_t cqe_sz;                     /* the CQ's MLX5_CQE_SZ_* */
} TEth;

#define TETH_RQ_RING_OFF 1024           /* the RQ ring's offset into its page */

/* An Ethernet node (link-type=eth, no SM) with MAC @mac, brought up, its link up. */
TDrv *teth_node(const uint8_t *mac);
/* Create an object: the command's handle out (asserted to succeed). */
uint32_t teth_obj_create(TDrv *d, uint16_t op, uint8_t *in, uint32_t inlen);
/* A cyclic WQ context (in a create input) over one page at @buf. */
void teth_wq_ctx(TEth *t, uint8_t *in, unsigned log_stride, unsigned log_sz, uint64_t buf,
                 uint64_t dbr);
/* MODIFY_SQ/MODIFY_RQ of @n from state @cur to @next; returns the status. */
int teth_modify_wq(TEth *t, uint16_t op, uint32_t n, uint8_t cur, uint8_t next);
/* Everything mlx5e makes for one channel on the Ethernet node @d (link up): see above. */
void teth_setup(TEth *t, TDrv *d);
/* The same with the channel's CQ compressing, mini CQE format @mini_fmt (-1: not). */
void teth_setup_comp(TEth *t, TDrv *d, int mini_fmt);
/* ... and its RQ striding (@wq_type 2 or 3, 2^@log_strides strides of 64 bytes) if @wq_type. */
void teth_setup_ex(TEth *t, TDrv *d, int mini_fmt, unsigned wq_type, int log_strides);
/* ... and its CQ's CQEs of size @cqe_sz (MLX5_CQE_SZ_*). */
void teth_setup_cqe(TEth *t, TDrv *d, int mini_fmt, unsigned wq_type, int log_strides,
                    unsigned cqe_sz);
/* The address of the 64-byte CQE in the CQ's slot @idx (modulo the ring). */
uint64_t teth_cqe(const TEth *t, uint32_t idx);
/* Post a striding RQ's WQE: next_wqe_index @next, a buffer of @bytes at @addr (PA key). */
void teth_post_mpwqe(TEth *t, uint16_t next, uint32_t bytes, uint64_t addr);
/* Post a receive WQE of one @len-byte buffer at @addr (PA key). */
void teth_post_recv(TEth *t, uint32_t len, uint64_t addr);
/* The next CQE of the channel's CQ, if there is one (consumed). */
bool teth_poll_cqe(TEth *t, uint8_t *cqe);
/* The fm_ce_se byte of the WQEs teth_post_send() writes (default: CE 3, a CQE always). */
extern uint8_t teth_fm_ce_se;
/* Post a SEND/LSO WQE: inline headers @hdr (@ihs bytes), then one data segment (@force_ds >= 0:
 * that DS count instead of the right one), and ring the doorbell. */
void teth_post_send(TEth *t, uint8_t opcode, uint8_t cs, uint16_t mss, const uint8_t *hdr,
                    unsigned ihs, uint32_t dlen, uint64_t daddr, int force_ds);
/* SET_FLOW_TABLE_ENTRY of table @ft at @index (group @fg), matching UDP source port @sport:
 * @action, destinations @dt/@di (@nd of them, at most 4); @op_mod 1 updates with @mask.
 * Returns the status. */
int teth_set_fte(TEth *t, uint32_t ft, uint32_t fg, uint32_t index, uint16_t sport,
                 uint16_t action, unsigned nd, const uint8_t *dt, const uint32_t *di,
                 uint16_t op_mod, uint8_t mask);

/* The same with @nc flow counters @cnt after the destinations (at most 8 entries in all). */
int teth_set_fte_cnt(TEth *t, uint32_t ft, uint32_t fg, uint32_t index, uint16_t sport,
                     uint16_t action, unsigned nd, const uint8_t *dt, const uint32_t *di,
                     unsigned nc, const uint32_t *cnt, uint16_t op_mod, uint8_t mask);

/* A flow table of @type at @level (log size 1): software owned from ICM @sw_root, or (0) a
 * firmware one. Its id. */
uint32_t teth_table(TDrv *d, unsigned type, unsigned level, uint64_t sw_root);
/* Table @ft of @type gets a group that takes any frame and one entry forwarding it to
 * destination @dest of @dest_type. */
void teth_forward(TDrv *d, unsigned type, uint32_t ft, unsigned dest_type, uint32_t dest);
/* A root table of @type (level 0) whose one entry forwards every frame to table @to. */
void teth_root_to(TDrv *d, unsigned type, uint32_t to);
/* A CREATE_FLOW_TABLE input (0x40 bytes) of a software-owned FDB table at level 1: root 0 (the
 * link's frames) @rx, root 1 (the functions') @tx. */
void teth_sw_fdb_in(uint8_t *in, uint64_t rx, uint64_t tx);
/* A tunnel header's start at @hdr: Ethernet @dmac <- @smac, IPv4 (TTL 64) carrying @proto. */
void teth_tunnel_hdr(uint8_t *hdr, const uint8_t *dmac, const uint8_t *smac, uint8_t proto);
/* ALLOC_PACKET_REFORMAT_CONTEXT of @type with @n bytes of @data: the status, its id in *@id. */
int teth_reformat(TDrv *d, unsigned type, const uint8_t *data, unsigned n, uint32_t *id);
/* CREATE_GENERAL_OBJECT SW_ICM (@type) at @start of 2^@log bytes; the status, the id in *@id. */
int teth_icm_create(TDrv *d, uint16_t type, uint64_t start, unsigned log, uint32_t *id);
/* CREATE_GENERAL_OBJECT FLOW_METER, active and srTCM: on to table @dest of @type, its colour
 * into reg_c_@reg, cir 10^9 * @cir_m / 2^@cir_e bytes per second, a committed bucket of 0 bytes
 * and an excess bucket of @ebs bytes. The status; the meter's id in *@id. */
int teth_meter(TDrv *d, unsigned type, uint32_t dest, unsigned reg, unsigned cir_m,
               unsigned cir_e, unsigned ebs, uint32_t *id);

#endif
