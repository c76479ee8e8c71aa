/*
 * Fuzz target: the command interface. Command queue entries, mailbox chains, and every
 * command's input layout, through the queue a driver uses.
 *
 * Record: mode u8, inlen u16, outlen u16, in[inlen] (the command: opcode, op_mod, ...).
 * The harness lays the command out as a driver does (inline part, mailbox chains for the rest
 * of the input and for the output). Mode's low nibble then corrupts the delivery (FZ_CMD_*),
 * with the high nibble as the parameter; 0 and the unnamed values deliver it intact.
 *
 * Oracles (beyond ASan/UBSan): every command the driver owns to the device comes back owned by
 * the driver; the device is fatal only after a DMA error, and answers a command afterwards.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"

#ifndef FZ_CMD_ETH
#define FZ_CMD_ETH 0            /* fuzz-cmd-eth.c: the same on an Ethernet port */
#endif
#ifndef FZ_CMD_VF
#define FZ_CMD_VF 0             /* fuzz-cmd-vf.c: the same through a VF */
#endif
#ifndef FZ_CMD_VF_IB
#define FZ_CMD_VF_IB 0          /* fuzz-cmd-vf-ib.c: ... of an InfiniBand PF */
#endif
#ifndef FZ_CMD_ESW
#define FZ_CMD_ESW 0            /* fuzz-cmd-esw.c: the E-Switch manager's */
#endif

enum {
    FZ_CMD_TYPE = 1,        /* a transport type other than PCI */
    FZ_CMD_IN_PTR,          /* input chain pointer: misaligned, zero, or outside RAM */
    FZ_CMD_LOOP,            /* a mailbox's next pointer back to an earlier block */
    FZ_CMD_BLKNUM,          /* a block number out of sequence */
    FZ_CMD_LEN,             /* inlen (even) or outlen (odd) beyond the chain built */
    FZ_CMD_OUT_PTR,         /* output chain pointer: zero or outside RAM */
    FZ_CMD_NOT_OWNED,       /* ownership bit clear: the device must ignore the slot */
    FZ_CMD_MULTI_DB,        /* the doorbell names more slots than this one */
    FZ_CMD_CHAIN_END,       /* the chain ends early (a next pointer of 0) */
};

#define MBOX_ALIGN 1024
#define MAX_BLKS   ((0x10000 + MLX5_CMD_MBOX_DATA - 1) / MLX5_CMD_MBOX_DATA)

/* A chain of blocks carrying @len bytes of @data (NULL: zeroes); their addresses in @pa. */
static unsigned chain(TDrv *d, const uint8_t *data, uint32_t len, uint64_t *pa)
{
    unsigned nblk = (len + MLX5_CMD_MBOX_DATA - 1) / MLX5_CMD_MBOX_DATA, i;

    for (i = 0; i < nblk; i++) {
        pa[i] = fake_alloc(d->h, MLX5_CMD_MBOX_SIZE, MBOX_ALIGN);
    }
    for (i = 0; i < nblk; i++) {
        uint8_t blk[MLX5_CMD_MBOX_SIZE] = { 0 };
        uint32_t n = MIN(len - i * MLX5_CMD_MBOX_DATA, MLX5_CMD_MBOX_DATA);

        if (data) {
            memcpy(blk, data + i * MLX5_CMD_MBOX_DATA, n);
        }
        mlx5_st64(blk + MLX5_CMD_MBOX_NEXT, i + 1 < nblk ? pa[i + 1] : 0);
        mlx5_st32(blk + MLX5_CMD_MBOX_BLOCK_NUM, i);
        blk[MLX5_CMD_MBOX_TOKEN] = 0x5a;
        fake_write(d->h, pa[i], blk, sizeof(blk));
    }
    return nblk;
}

static void set_next(TDrv *d, uint64_t blk, uint64_t next)
{
    uint8_t b[8];

    mlx5_st64(b, next);
    fake_write(d->h, blk + MLX5_CMD_MBOX_NEXT, b, 8);
}

static void deliver(FzNode *n, uint8_t mode, const uint8_t *in, uint32_t inlen, uint32_t outlen)
{
    TDrv *d = n->d;
    unsigned slot = d->slot, kind = mode & 15, arg = mode >> 4;
    uint64_t slot_pa = d->cmdq_pa + slot * MLX5_CMD_LAYOUT_SIZE;
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE] = { 0 };
    uint64_t in_pa[MAX_BLKS], out_pa[MAX_BLKS];
    unsigned nin = 0, nout = 0;
    uint32_t db = 1u << slot;

    lay[MLX5_CMD_LAY_TYPE] = MLX5_PCI_CMD_XPORT;
    mlx5_st32(lay + MLX5_CMD_LAY_INLEN, inlen);
    mlx5_st32(lay + MLX5_CMD_LAY_OUTLEN, outlen);
    memcpy(lay + MLX5_CMD_LAY_IN, in, MIN(inlen, MLX5_CMD_INLINE_BYTES));
    if (inlen > MLX5_CMD_INLINE_BYTES) {
        nin = chain(d, in + MLX5_CMD_INLINE_BYTES, inlen - MLX5_CMD_INLINE_BYTES, in_pa);
        mlx5_st64(lay + MLX5_CMD_LAY_IN_PTR, in_pa[0]);
    }
    if (outlen > MLX5_CMD_INLINE_BYTES) {
        nout = chain(d, NULL, outlen - MLX5_CMD_INLINE_BYTES, out_pa);
        mlx5_st64(lay + MLX5_CMD_LAY_OUT_PTR, out_pa[0]);
    }
    lay[MLX5_CMD_LAY_TOKEN] = 0x5a;
    lay[MLX5_CMD_LAY_STATUS_OWN] = 1;

    switch (kind) {
    case FZ_CMD_TYPE:
        lay[MLX5_CMD_LAY_TYPE] = arg;
        break;
    case FZ_CMD_IN_PTR:
        mlx5_st64(lay + MLX5_CMD_LAY_IN_PTR, arg & 1 ? 0 : arg & 2 ? FZ_RAM_BYTES + 4096ull * arg
                                                  : (nin ? in_pa[0] : 0) + 8 * arg);
        break;
    case FZ_CMD_LOOP:
        if (nin) {
            set_next(d, in_pa[nin - 1], in_pa[arg % nin]);
        }
        if (nout && (arg & 1)) {
            set_next(d, out_pa[nout - 1], out_pa[arg % nout]);
        }
        break;
    case FZ_CMD_BLKNUM:
        if (nin) {
            uint8_t b[4];
            mlx5_st32(b, arg ^ 0x5);
            fake_write(d->h, in_pa[arg % nin] + MLX5_CMD_MBOX_BLOCK_NUM, b, 4);
        }
        break;
    case FZ_CMD_LEN:
        if (arg & 1) {
            mlx5_st32(lay + MLX5_CMD_LAY_OUTLEN, outlen + (arg << 9));
        } else {
            mlx5_st32(lay + MLX5_CMD_LAY_INLEN, inlen + (arg << 9));
        }
        break;
    case FZ_CMD_OUT_PTR:
        mlx5_st64(lay + MLX5_CMD_LAY_OUT_PTR, arg & 1 ? 0 : FZ_RAM_BYTES - 512 + 1024ull * arg);
        break;
    case FZ_CMD_NOT_OWNED:
        lay[MLX5_CMD_LAY_STATUS_OWN] = 0;
        break;
    case FZ_CMD_MULTI_DB:
        db |= (uint32_t)arg * 0x1111;
        break;
    case FZ_CMD_CHAIN_END:
        if (nin) {
            set_next(d, in_pa[arg % nin], 0);
        }
        break;
    }
    fake_write(d->h, slot_pa, lay, sizeof(lay));
    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, db);
    mlx5_core_run(d->c, 1000);
    if (!d->c->health_fatal && (lay[MLX5_CMD_LAY_STATUS_OWN] & 1)) {
        fake_read(d->h, slot_pa, lay, sizeof(lay));
        g_assert_cmpuint(lay[MLX5_CMD_LAY_STATUS_OWN] & 1, ==, 0);      /* answered */
    }
    /* consume the completion EQE the way the driver does (if the command EQ still exists) */
    d->cmd_eq_ci++;
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_EQ_DB_ARM,
                   (d->cmd_eqn << 24) | (d->cmd_eq_ci & 0xffffff));
    d->slot = (slot + 1) % (MLX5_CMDQ_ENTRIES - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    FzNode *n = FZ_CMD_ESW ? fz_node_new_esw()
                : FZ_CMD_VF_IB ? fz_node_new_vf_ib()
                : FZ_CMD_VF ? fz_node_new_vf()
                : FZ_CMD_ETH ? fz_node_new_eth(false) : fz_node_new(false, false);
    g_autofree uint8_t *in = g_malloc(0x10000);

    n->d->events = false;       /* commands may destroy the EQs: nothing is expected of them */
    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !n->d->c->health_fatal; r++) {
        uint8_t mode = fz_u8(&f);
        uint32_t inlen = fz_u16(&f);
        uint32_t outlen = fz_u16(&f);

        fz_bytes(&f, in, inlen);
        deliver(n, mode, in, inlen, outlen);
        if (FZ_CMD_ESW && !n->d->c->health_fatal) {
            /* a frame each way between the VFs: through whatever the switch is now */
            for (unsigned i = 0; i < 2; i++) {
                Mlx5Core *vf = n->vf[i]->c;
                uint8_t f[64] = { 0 };
                struct iovec iov = { .iov_base = f, .iov_len = sizeof(f) };

                memcpy(f, n->vf[!i]->c->cfg.mac, 6);
                memcpy(f + 6, vf->cfg.mac, 6);
                f[12] = 0x08;
                mlx5_port_tx(vf, 0, &iov, 1, false);
                mlx5_core_run(n->vf[!i]->c, 100);
            }
        }
    }
    fz_check(n);
    for (unsigned i = 0; FZ_CMD_ESW && i < 2; i++) {
        /* nothing the manager does kills its VFs */
        uint8_t out[QUERY_ISSI_OUT_SIZE];

        g_assert_false(n->vf[i]->c->health_fatal);
        if (n->vf[i]->c->hca_enabled) {     /* (unless the manager disabled it) */
            g_assert_cmpint(tdrv_simple(n->vf[i], MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out,
                                        sizeof(out)), ==, 0);
        }
    }
    if (n->pf) {
        /* nothing a VF does reaches its PF: it is alive and answers */
        uint8_t out[QUERY_ISSI_OUT_SIZE];

        g_assert_false(n->pf->c->health_fatal);
        mlx5_core_run(n->pf->c, 1000);
        g_assert_cmpint(tdrv_simple(n->pf, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out)),
                        ==, 0);
    }
    fz_node_free(n);
    return 0;
}
