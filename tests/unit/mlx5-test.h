/*
 * Unit-test support for the mlx5 device core: a fake host (sparse guest memory with poisoned
 * ranges, MSI-X recorder, manual clock) and a mini driver that speaks the command interface
 * the way Linux's mlx5_core does.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLX5_TEST_H
#define MLX5_TEST_H

#include "qemu/osdep.h"
#include "hw/rdma/mlx5/mlx5_core.h"
#include "hw/rdma/mlx5/mlx5_prm.h"

#define FAKE_MAX_VECTORS 64

/*
 * A device in another process instead of the core in this one (tests/qtest: a real QEMU driven
 * through its qtest protocol). Guest memory, BAR0 and MSI-X then go through these; the mini
 * driver below works unchanged on either.
 */
typedef struct FakeRemoteOps {
    void (*write)(void *o, uint64_t pa, const void *buf, size_t len);
    void (*read)(void *o, uint64_t pa, void *buf, size_t len);
    void (*mmio_write)(void *o, uint64_t off, uint64_t val, unsigned size);
    uint64_t (*mmio_read)(void *o, uint64_t off, unsigned size);
    void (*run)(void *o);                           /* let the device work a little */
    unsigned (*irqs)(void *o, unsigned vector);     /* MSI-X messages of @vector since the last call */
} FakeRemoteOps;

typedef struct FakeHost {
    const FakeRemoteOps *remote;    /* NULL: the core in this process (the unit tests) */
    void *remote_opaque;
    uint64_t brk_hi;            /* remote: the allocator's end (the guest RAM it may use) */
    GHashTable *pages;          /* page number -> 4 KiB buffer */
    uint64_t poison_lo, poison_hi;  /* DMA into [lo, hi) fails */
    uint64_t ram_hi;            /* if set, DMA at or beyond it fails (outside guest RAM) */
    uint64_t dma_errors;        /* DMA accesses that failed */
    int64_t now;
    int64_t deadline;
    unsigned irqs[FAKE_MAX_VECTORS];
    unsigned kicks;
    uint64_t brk;               /* bump allocator for guest memory */
    uint64_t dma_reads, dma_writes;
    GPtrArray *tx;              /* GByteArray frames sent on the link */
    uint8_t *flat;              /* flat memory for [flat_lo, flat_hi) (fake_flat_bytes) */
    uint64_t flat_lo, flat_hi;
} FakeHost;

/*
 * When set before fake_host_new(), guest memory from the allocator's start is one flat region
 * of this many bytes (DMA is then a pointer offset and a memcpy, as in QEMU's RAM), not pages
 * in a hash table. For the benchmark; 0 (the default) for the tests.
 */
extern uint64_t fake_flat_bytes;

FakeHost *fake_host_new(void);
void fake_host_free(FakeHost *h);
extern const Mlx5CoreOps fake_host_ops;
uint64_t fake_alloc(FakeHost *h, uint64_t size, uint64_t align);
void fake_write(FakeHost *h, uint64_t pa, const void *buf, size_t len);
void fake_read(FakeHost *h, uint64_t pa, void *buf, size_t len);
uint32_t fake_rd32(FakeHost *h, uint64_t pa);
void fake_wr32(FakeHost *h, uint64_t pa, uint32_t v);

/* Counts of trace events fired since the last reset (by event name); mlx5_test_trace_off
 * stops counting (the benchmark). */
extern bool mlx5_test_trace_off;
unsigned trace_count(const char *name);
void trace_counts_reset(void);

/* ---- mini driver ---------------------------------------------------------------------- */

typedef struct TDrv {
    FakeHost *h;
    Mlx5Core *c;
    uint64_t cmdq_pa;
    unsigned slot;              /* slot used for the next command */
    uint8_t last_delivery;      /* delivery status of the last command */
    uint32_t uar;               /* UAR from ALLOC_UAR during bring-up */
    uint32_t cmd_eqn, async_eqn;
    uint64_t cmd_eq_pa, async_eq_pa;
    uint32_t cmd_eq_ci, async_eq_ci;
    bool events;                /* a command EQ exists */
    uint16_t lid;               /* remote: the device's LID (a local core's is in its config) */
} TDrv;

TDrv *tdrv_new(void);
TDrv *tdrv_new_cfg(const Mlx5CoreConfig *cfg);
/* The same with other host ops (fake_host_ops with one changed; the opaque is the FakeHost). */
TDrv *tdrv_new_ops(const Mlx5CoreConfig *cfg, const Mlx5CoreOps *ops);
/*
 * A driver of a remote device (no core here, d->c is NULL) whose port has LID @lid: guest memory
 * from [@ram_lo, @ram_hi), everything else through @ops. The device's command queue is set up as
 * by tdrv_new.
 */
TDrv *tdrv_new_remote(const FakeRemoteOps *ops, void *opaque, uint16_t lid, uint64_t ram_lo,
                      uint64_t ram_hi);
/* The LID of the driver's device. */
uint16_t tdrv_lid(TDrv *d);
void tdrv_free(TDrv *d);
void tdrv_mmio_wr32(TDrv *d, uint64_t off, uint32_t v);
void tdrv_mmio_wr64(TDrv *d, uint64_t off, uint64_t v);
uint32_t tdrv_mmio_rd32(TDrv *d, uint64_t off);
/* MSI-X messages of @vector so far. */
unsigned tdrv_irqs(TDrv *d, unsigned vector);

/*
 * Execute one command: @in (@inlen bytes) -> @out (@outlen bytes). Returns the command status
 * (out byte 0), or 0x100 | delivery status if delivery failed.
 */
int tdrv_exec(TDrv *d, const void *in, uint32_t inlen, void *out, uint32_t outlen);
/* Same, with @in given as a header-only 16-byte input: opcode, op_mod and dword 2..3. */
int tdrv_simple(TDrv *d, uint16_t opcode, uint16_t op_mod, uint32_t dw2, uint32_t dw3,
                void *out, uint32_t outlen);
uint32_t tdrv_syndrome(const void *out);

/* The Linux 6.12 probe sequence up to three EQs (§4.1 of the control spec). */
void tdrv_bringup(TDrv *d);
/* Full driver unload: DESTROY_EQ x3, DEALLOC_UAR, TEARDOWN_HCA, DISABLE_HCA. */
void tdrv_teardown(TDrv *d);

/* Object helpers (assert success) */
uint32_t tdrv_alloc_pd(TDrv *d);
uint32_t tdrv_create_eq(TDrv *d, uint64_t mask, unsigned log_size, unsigned intr, uint64_t *pa);
uint32_t tdrv_create_cq(TDrv *d, uint32_t eqn, unsigned log_size, uint64_t *buf_pa,
                        uint64_t *dbr_pa);
/* The same CQ compressing receive CQEs with mini CQE format @mini_fmt (-1: none). */
uint32_t tdrv_create_cq_comp(TDrv *d, uint32_t eqn, unsigned log_size, uint64_t *buf_pa,
                             uint64_t *dbr_pa, int mini_fmt);
/* ... of CQEs of size @cqe_sz (MLX5_CQE_SZ_*: 64, 128 or 128 padded bytes a slot) */
uint32_t tdrv_create_cq_ex(TDrv *d, uint32_t eqn, unsigned log_size, uint64_t *buf_pa,
                           uint64_t *dbr_pa, int mini_fmt, unsigned cqe_sz);
/* Returns the command status; *handle receives the created handle on success. */
int tdrv_create_srq(TDrv *d, uint32_t pd, uint32_t cqn, unsigned log_size, unsigned stride,
                    uint32_t *srqn);
int tdrv_create_qp(TDrv *d, uint8_t st, uint32_t pd, uint32_t cqn, uint32_t srqn,
                   uint32_t *qpn);
int tdrv_modify_qp(TDrv *d, uint16_t opcode, uint32_t qpn, const uint8_t *qpc,
                   uint32_t optpar);
int tdrv_mad(TDrv *d, uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint8_t *mad_out);

/* Read EQE @idx of an EQ buffer at @pa. */
void tdrv_eqe(TDrv *d, uint64_t pa, unsigned idx, uint8_t *eqe);

#endif
