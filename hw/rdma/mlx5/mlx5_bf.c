/*
 * mlx5 HCA core: BlueFlame, the send doorbell that carries its WQE.
 *
 * Each UAR page holds four BlueFlame registers from MLX5_UAR_BF_BASE, each of
 * 2^log_bf_reg_size bytes split into two buffers the driver alternates
 * between. An 8-byte write of a WQE's first 8 bytes (its control segment's
 * opcode, index, QPN and DS count) at a buffer's start is the send doorbell. A
 * BlueFlame write goes on: the driver copies the whole WQE, a multiple of 64
 * bytes, into the buffer through a write-combining mapping, and the device
 * executes that copy instead of fetching the WQE from the ring. On a card the
 * copy arrives in one burst; here the vCPU's stores arrive one by one, in
 * order from the buffer's start, and this file collects them.
 *
 * The rules, as a card applies them:
 *  - the doorbell rings on the first 8 bytes, whatever follows; the engine
 *    still goes by the doorbell record, so a WQE without a complete copy runs
 *    from the ring (a torn or partial BlueFlame write costs the driver nothing
 *    but the fetch);
 *  - a copy counts only if it is complete: every byte from the buffer's start
 *    to its WQE's end (DS x 16 rounded up to 64) written in order, the WQE no
 *    longer than the buffer; any other write to the buffer abandons it;
 *  - the engine takes a copy only for the QP and WQE index its control segment
 *    names, written through the QP's own UAR page (a process cannot hand
 *    another's QP a WQE), when it reaches that WQE, and checks it as it checks
 *    a WQE read from the ring (mlx5_exec.c, mlx5_eth_tx.c); a copy for a WQE
 *    the engine has already passed (it ran from the ring first) is dropped.
 *
 * mlx5_core's write-combining test (wc.c) depends on the second rule: it posts
 * unsignaled NOPs in the ring whose BlueFlame copies ask for a completion, and
 * trusts BlueFlame (so lets user space map BF UARs) only if a completion comes
 * for one of the first of them.
 *
 * When the engine runs matters once a doorbell is served in the vCPU that
 * rings it (mlx5_pci.c): run at the first 8 bytes, it would always beat the
 * copy. So a doorbell that a copy may follow waits for it (the copy's last
 * store runs the engine; the shell's fallback runs a doorbell whose copy does
 * not come: at once if its WQE is not the next the engine takes, which means
 * a post of several WQEs and a plain doorbell from libmlx5, else after a
 * while, mlx5_core_copy_coming()), unless its
 * buffer's previous doorbell came without a copy: a driver that rings plain
 * doorbells there (libmlx5 without BlueFlame, mlx5e, DPDK) gets them run at
 * once. A buffer learns this per UAR, fresh with each ALLOC_UAR; a copy
 * written after a doorbell that ran at once finds the engine past its WQE and
 * is dropped, which differs from a card only for a copy unlike its WQE in the
 * ring, and only the write-combining test writes such, on a fresh UAR.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "mlx5_internal.h"
#include "trace.h"

static Mlx5BfBuf *mlx5_bf_buf_find(Mlx5Core *c, uint64_t base)
{
    unsigned i;

    for (i = 0; i < MLX5_BF_BUFS; i++) {
        if (c->bf.buf[i].len && c->bf.buf[i].base == base) {
            return &c->bf.buf[i];
        }
    }
    return NULL;
}

/* the UAR of the buffer at @base, its bit in bf_plain in *@bit (0: none) */
static Mlx5Uar *mlx5_bf_uar(Mlx5Core *c, uint64_t base, uint32_t *bit)
{
    uint64_t n = ((uint32_t)base - MLX5_UAR_BF_BASE) / MLX5_BF_BUF_SIZE;
    Mlx5Uar *u = mlx5_table_get(&c->uars, base >> 32);

    *bit = u && n < 32 ? 1u << n : 0;
    return u;
}

/* Whether the buffer at @base rings plain doorbells, so they run at once. */
static bool mlx5_bf_plain(Mlx5Core *c, uint64_t base)
{
    uint32_t bit;
    Mlx5Uar *u = mlx5_bf_uar(c, base, &bit);

    return bit && (u->bf_plain & bit);
}

/* What the buffer at @base's last doorbell showed: a plain one, or a copy. */
static void mlx5_bf_learn(Mlx5Core *c, uint64_t base, bool plain)
{
    uint32_t bit;
    Mlx5Uar *u = mlx5_bf_uar(c, base, &bit);

    if (bit) {
        u->bf_plain = plain ? u->bf_plain | bit : u->bf_plain & ~bit;
    }
}

/*
 * A buffer to collect a new write at @base in: its own, a free one, else the
 * next in turn (round robin).
 */
static Mlx5BfBuf *mlx5_bf_buf_new(Mlx5Core *c, uint64_t base)
{
    Mlx5BfBuf *b = mlx5_bf_buf_find(c, base);
    unsigned i;

    if (b && b->len == 8 && b->need > 8) {
        /* its last doorbell came without the copy its DS count allows */
        mlx5_bf_learn(c, base, true);
    }
    if (!b) {
        for (i = 0; i < MLX5_BF_BUFS && !b; i++) {
            if (!c->bf.buf[i].len) {
                b = &c->bf.buf[i];
            }
        }
    }
    if (!b) {
        b = &c->bf.buf[c->bf.buf_next++ % MLX5_BF_BUFS];
        trace_mlx5_bf_torn(b->base, b->len, b->need);
    }
    b->base = base;
    b->len = 0;
    b->need = 0;
    return b;
}

static void mlx5_bf_deliver(Mlx5Core *c, Mlx5BfBuf *b)
{
    uint32_t qpn = mlx5_ld32(b->data + 4) >> 8;
    uint16_t idx = mlx5_ld16(b->data + 1);
    Mlx5BfCopy *cp = NULL;
    unsigned i;

    for (i = 0; i < MLX5_BF_COPIES; i++) {
        Mlx5BfCopy *k = &c->bf.copy[i];
        if (k->len && k->qpn == qpn && k->idx == idx) {
            cp = k;                     /* the WQE written again */
            break;
        }
        if (!k->len && !cp) {
            cp = k;
        }
    }
    if (!cp) {
        cp = &c->bf.copy[c->bf.copy_next++ % MLX5_BF_COPIES];
        trace_mlx5_bf_drop(cp->qpn, cp->idx);
    } else if (!cp->len) {
        c->bf.ncopies++;
    }
    cp->qpn = qpn;
    cp->uar = b->base >> 32;
    cp->idx = idx;
    cp->len = b->need;
    memcpy(cp->wqe, b->data, b->need);
    trace_mlx5_bf_copy(qpn, idx, b->need);
    mlx5_bf_learn(c, b->base, false);   /* its driver writes copies */
    /* the doorbell that waited for it runs now (mlx5_pci.c) */
    c->ops->kick(c->opaque);
}

/*
 * A write of @size bytes at @po (page offset, >= MLX5_UAR_BF_BASE) of UAR @uar.
 * Returns true if it completes a doorbell: the control segment's first 8 bytes
 * are then in @ctrl.
 */
static bool mlx5_bf_collect(Mlx5Core *c, uint32_t uar, uint64_t po,
                            uint64_t val, unsigned size, uint64_t *ctrl)
{
    unsigned off = po & (MLX5_BF_BUF_SIZE - 1);
    uint64_t base = ((uint64_t)uar << 32) | (po - off);
    Mlx5BfBuf *b = off ? mlx5_bf_buf_find(c, base) : mlx5_bf_buf_new(c, base);
    unsigned ds;

    if (!b) {
        trace_mlx5_ub_uar_write(uar, po, val);
        return false;
    }
    if (b->len != off || off + size > MLX5_BF_BUF_SIZE ||
        (size != 4 && size != 8)) {
        /* out of order: not a BlueFlame copy (any more) */
        trace_mlx5_bf_torn(b->base, b->len, b->need);
        b->len = 0;
        return false;
    }
    if (size == 8) {
        stq_be_p(b->data + off, val);
    } else {
        stl_be_p(b->data + off, val);
    }
    b->len += size;
    if (b->len < 8) {
        return false;
    }
    if (b->len == 8) {
        *ctrl = ldq_be_p(b->data);
        ds = b->data[7] & 0x3f;
        b->need = (ds * 16 + MLX5_SEND_WQE_BB - 1) & ~(MLX5_SEND_WQE_BB - 1);
        if (!ds || b->need > MLX5_BF_BUF_SIZE) {
            b->len = 0;                 /* a plain doorbell, whatever follows */
        } else {
            c->db_wait_copy = !mlx5_bf_plain(c, base);
        }
        return true;                    /* (a WQE is at least 64 bytes) */
    }
    if (b->len == b->need) {
        mlx5_bf_deliver(c, b);
        b->len = 0;
    }
    return false;
}

void mlx5_bf_write(Mlx5Core *c, uint32_t uar, uint64_t po, uint64_t val,
                   unsigned size)
{
    uint64_t ctrl;

    if (mlx5_bf_collect(c, uar, po, val, size, &ctrl)) {
        /* send doorbell: the first 8 bytes of the last WQE's ctrl segment */
        trace_mlx5_sq_doorbell(uar, po, ctrl);
        mlx5_exec_sq_doorbell(c, ctrl);
    } else if ((po & (MLX5_BF_BUF_SIZE - 1)) == 4 && size == 4) {
        /* the second half of a split doorbell whose first half went astray */
        trace_mlx5_sq_doorbell(uar, po, val);
        mlx5_exec_sq_doorbell(c, val);
    }
}

bool mlx5_core_copy_coming(Mlx5Core *c)
{
    unsigned i;

    for (i = 0; i < MLX5_BF_BUFS; i++) {
        const Mlx5BfBuf *b = &c->bf.buf[i];
        const Mlx5Qp *qp;

        if (b->len != 8 || b->need <= 8) {
            continue;
        }
        qp = mlx5_table_get(&c->qps, mlx5_ld32(b->data + 4) >> 8);
        if (qp && qp->sq_ci == mlx5_ld16(b->data + 1)) {
            return true;
        }
    }
    return false;
}

unsigned mlx5_bf_take(Mlx5Core *c, const Mlx5Qp *qp, uint16_t idx,
                      uint8_t *wqe)
{
    uint32_t qpn = qp->qpn, cnt = qp->sq_cnt;
    unsigned i, n = 0;

    for (i = 0; i < MLX5_BF_COPIES && c->bf.ncopies; i++) {
        Mlx5BfCopy *k = &c->bf.copy[i];
        if (!k->len || k->qpn != qpn) {
            continue;
        }
        if (k->uar != qp->uar) {
            /* through another UAR page (another process's): not the QP's */
            trace_mlx5_ub_bf_uar(qpn, k->uar, qp->uar);
        } else if (k->idx == idx) {
            memcpy(wqe, k->wqe, k->len);
            n = k->len / MLX5_SEND_WQE_BB;
            trace_mlx5_bf_exec(qpn, idx, k->len);
        } else if ((uint16_t)(k->idx - idx) >= cnt) {
            /* the engine is past it: that WQE ran from the ring */
            trace_mlx5_bf_drop(qpn, k->idx);
        } else {
            continue;
        }
        k->len = 0;
        c->bf.ncopies--;
    }
    return n;
}

void mlx5_bf_forget(Mlx5Core *c, uint32_t qpn)
{
    unsigned i;

    for (i = 0; i < MLX5_BF_COPIES; i++) {
        if (c->bf.copy[i].len && c->bf.copy[i].qpn == qpn) {
            c->bf.copy[i].len = 0;
            c->bf.ncopies--;
        }
    }
}

void mlx5_bf_reset(Mlx5Core *c)
{
    memset(&c->bf, 0, sizeof(c->bf));
}
