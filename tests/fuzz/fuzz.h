/*
 * Coverage-guided fuzz targets of the device core (libFuzzer; see docs/hardening.md).
 *
 * Each target is one LLVMFuzzerTestOneInput over a fresh device: the input is a sequence of
 * records in the target's format (below and in each fuzz-*.c), read through an Fz cursor that
 * yields zeroes past the end, so every byte string is a valid input. The same sources build
 * with libFuzzer (clang, scripts/fuzz.sh) and, with fuzz-replay-main.c, as plain programs that
 * replay the committed corpora and regression inputs under ASan/UBSan in the unit suite.
 *
 * The device core records real guest traffic in these formats (Mlx5CoreOps.record, the
 * device's fuzz-record property), which is where the seed corpora come from.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLX5_FUZZ_H
#define MLX5_FUZZ_H

#include "mlx5-testqp.h"
#include "mlx5_internal.h"
#include "mlx5_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Fz {
    const uint8_t *p;
    size_t n;
} Fz;

static inline bool fz_more(const Fz *f)
{
    return f->n > 0;
}

static inline uint8_t fz_u8(Fz *f)
{
    uint8_t v = 0;

    if (f->n) {
        v = *f->p++;
        f->n--;
    }
    return v;
}

static inline uint16_t fz_u16(Fz *f)
{
    uint16_t v = fz_u8(f) << 8;

    return v | fz_u8(f);
}

static inline uint32_t fz_u32(Fz *f)
{
    uint32_t v = (uint32_t)fz_u16(f) << 16;

    return v | fz_u16(f);
}

static inline uint64_t fz_u64(Fz *f)
{
    uint64_t v = (uint64_t)fz_u32(f) << 32;

    return v | fz_u32(f);
}

/* Copy @len bytes (zeroes past the input's end); returns how many came from the input. */
static inline size_t fz_bytes(Fz *f, void *buf, size_t len)
{
    size_t n = MIN(len, f->n);

    memcpy(buf, f->p, n);
    memset((uint8_t *)buf + n, 0, len - n);
    f->p += n;
    f->n -= n;
    return n;
}

/* Guest RAM of a fuzzed device: DMA beyond it fails, as outside a guest's memory. */
#define FZ_RAM_BYTES    (64u << 20)

/* Records per input, at most (each target's loop is bounded by this and by the input). */
#define FZ_MAX_RECORDS  256

/*
 * A device brought up the way Linux's mlx5_core does, with the objects the data-path targets
 * aim at: a PD, a PA lkey over all memory, remote-access MTT and UMR-able KLM/KSM mkeys, an
 * SRQ, connected QPs of each transport (to themselves: frames loop back), a DCT, and the
 * special QPs (QP0/QP1).
 */
enum { FZ_RC, FZ_UC, FZ_UD, FZ_SRQ_RC, FZ_QP1, FZ_NQP };
#define FZ_NKEYS 6

typedef struct FzNode {
    TDrv *d;
    TQp q[FZ_NQP];
    uint32_t dci, dctn, srqn;
    uint16_t srq_pi;                    /* receive WQEs posted to the SRQ */
    uint32_t pd, lkey, rkey;            /* lkey: PA, whole memory; rkey: MTT over q[0].mem */
    uint32_t keys[FZ_NKEYS];            /* free, UMR-enabled mkeys: MTT, KLM, KSM (x2) */
    unsigned frames_looped;
    bool eth;                           /* an Ethernet port with RoCE v2 (fz_node_new_eth) */
    TDrv *pf;                           /* d is a VF of this PF's (fz_node_new_vf) */
    TDrv *vf[2];                        /* d is the PF of these VFs (fz_node_new_esw) */
} FzNode;

FzNode *fz_node_new(bool sm, bool objects);
/*
 * The same objects (if @objects) on an Ethernet port (mlx5e and RoCE v2), link up, roce_en set and two GIDs
 * with the node's MAC: FZ_GID_V6 = fe80::1 (IPv6) and FZ_GID_V4 = ::ffff:10.0.0.1 (IPv4). The
 * connected QPs send from FZ_GID_V4 to FZ_PEER_IP4 at FZ_PEER_MAC (so responses leave the port
 * and, looped back by fz_settle, go to mlx5e's steering, which drops them).
 */
FzNode *fz_node_new_eth(bool objects);
/*
 * A VF (no objects) of a PF with two (an Ethernet port, link up, the VF enabled by the PF's
 * ENABLE_HCA), brought up as mlx5_core and mlx5_ib do on a VF: roce_en and the two GIDs.
 */
FzNode *fz_node_new_vf(void);
FzNode *fz_node_new_vf_ib(void);
/*
 * The E-Switch manager: an Ethernet PF (no objects; link up, roce_en, two GIDs) with two VFs,
 * enabled and brought up, each with its MAC and a frame of traffic to the other through the
 * address switch.
 */
FzNode *fz_node_new_esw(void);
#define FZ_GID_V6       0
#define FZ_GID_V4       1
extern const uint8_t fz_mac[6], fz_peer_mac[6], fz_gid_v6[16], fz_gid_v4[16];
/* roce_en of the NIC vport (MODIFY_NIC_VPORT_CONTEXT), as mlx5_ib sets it on load */
int fz_set_roce_en(FzNode *n, bool on);
/* GID entry @index (FZ_GID_V6 or FZ_GID_V4) programmed as fz_node_new_eth does, or cleared */
int fz_set_gid(FzNode *n, unsigned index, bool set);
void fz_node_free(FzNode *n);
/* A QP in error back to RTS (through RESET, as a driver recovers it); others untouched. */
void fz_qp_recover(FzNode *n, uint32_t qpn);
/* Run the device, loop its frames back (bounded), fire due timers, drain the CQs. */
void fz_settle(FzNode *n, unsigned rounds);
/* A BTH (at @bth) whose destination QPN is above 1 is sent to one of the node's QPs (RC, UC, UD,
 * RC on SRQ, QP1, DCI, DCT), chosen by that QPN modulo 7 (the frame targets' flag 4). */
void fz_map_qpn(FzNode *n, uint8_t *bth);
/* A frame from the link, then fz_settle; with @timers 100 ms pass and the node settles again. */
void fz_link_rx(FzNode *n, const uint8_t *frame, size_t len, bool timers);
/*
 * The device is not dead without a cause: a health (fatal) state only after a DMA error,
 * and, if so, the device still answers a command.
 */
void fz_check(FzNode *n);
/* Recompute the lengths (IPv4 total, IPv6 payload, UDP) and ICRC of a fabric frame. */
void fz_fix_frame(uint8_t *f, size_t len);

#endif
