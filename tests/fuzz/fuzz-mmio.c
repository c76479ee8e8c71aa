/*
 * Fuzz target: the guest's register and doorbell interface. BAR0 accesses of every size at
 * any offset (init segment, command doorbell, UAR pages: CQ arm, EQ and send doorbells,
 * BlueFlame halves, device memory), and doorbell records in memory (RQ, SQ, SRQ counters and
 * CQ consumer indices) set to any value, on a node with live queues.
 *
 * Record: kind u8, size u8, off u32, val u64.
 *   kind % 4: 0 = BAR0 write of (1, 2, 4, 8)[size % 4] bytes at off % BAR0 size; 1 = BAR0
 *   read; 2 = doorbell record: word (off % 4) of the record of queue (off >> 2) % 7 (the QPs'
 *   (RQ, SQ), their CQs', the SRQ's) is set to val; 3 = time passes (val % 1 s).
 *   The device runs after each record.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"

static void dbr_write(FzNode *n, uint32_t off, uint32_t val)
{
    TDrv *d = n->d;
    unsigned q = (off >> 2) % 7, w = off % 4;
    uint64_t pa;

    if (q < FZ_NQP) {
        /* a QP's record (RQ counter, SQ counter), or its CQ's (consumer index, arm) */
        pa = w < 2 ? n->q[q].dbr + 4 * w : n->q[q].cq_dbr + 4 * (w - 2);
    } else if (q == FZ_NQP) {
        Mlx5Srq *srq = mlx5_table_get(&d->c->srqs, n->srqn);
        if (!srq) {
            return;
        }
        pa = srq->dbr_addr + 4 * (w & 1);
    } else {
        Mlx5Qp *qp = mlx5_table_get(&d->c->qps, n->dci);
        if (!qp) {
            return;
        }
        pa = qp->dbr_addr + 4 * (w & 1);
    }
    fake_wr32(d->h, pa, val);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned sizes[4] = { 1, 2, 4, 8 };
    Fz f = { data, size };
    FzNode *n = fz_node_new(false, true);
    TDrv *d = n->d;

    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !d->c->health_fatal; r++) {
        uint8_t kind = fz_u8(&f), sz = sizes[fz_u8(&f) % 4];
        uint32_t off = fz_u32(&f);
        uint64_t val = fz_u64(&f);

        switch (kind % 4) {
        case 0:
            mlx5_core_mmio_write(d->c, (off % MLX5_BAR0_SIZE) & ~(uint64_t)(sz - 1), val, sz);
            break;
        case 1:
            mlx5_core_mmio_read(d->c, (off % MLX5_BAR0_SIZE) & ~(uint64_t)(sz - 1), sz);
            break;
        case 2:
            dbr_write(n, off, val);
            break;
        case 3:
            d->h->now += val % 1000000000;
            mlx5_core_expire(d->c, d->h->now);
            break;
        }
        fz_settle(n, 8);
    }
    /* the driver's command queue, wherever the input moved it */
    if (!d->c->health_fatal) {
        tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
        tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
    }
    fz_check(n);
    fz_node_free(n);
    return 0;
}
