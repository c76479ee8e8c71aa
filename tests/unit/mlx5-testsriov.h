/*
 * Test support for SR-IOV: a PF core (Ethernet) with NVFS VF cores attached, each driven by its
 * own mini driver over its own fake host, and the frames and commands the SR-IOV and E-Switch
 * tests share.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLX5_TESTSRIOV_H
#define MLX5_TESTSRIOV_H

#include "mlx5-testeth.h"

extern const uint8_t pf_mac[6], vf_mac[2][6], far_mac[6], bcast[6];

#define NVFS 2

typedef struct Rig {
    TDrv *pf;
    TDrv *vf[NVFS];
} Rig;

/* The VF's initialization segment's "initializing" bit (31 of 0x1fc). */
bool vf_initializing(TDrv *d);

/* A VF's driver probes again after its PF disabled and enabled it (a function reset). */
void reprobe(TDrv *d);

/* ENABLE_HCA or DISABLE_HCA (@op) of function @fid: the status, the syndrome in @synd. */
int enable_hca(TDrv *d, uint16_t op, unsigned fid, uint32_t *synd);

/* A function's own permanent address (as the PF's E-Switch would set it for a VF). */
void set_mac(TDrv *d, const uint8_t *mac);

/*
 * A PF (Ethernet, num_vfs NVFS, link up; the E-Switch manager if @esw) and its VFs attached, not
 * enabled.
 */
void rig_new_esw(Rig *r, bool esw);

/* ... not the E-Switch manager */
void rig_new(Rig *r);
/* ... an InfiniBand PF (its port ACTIVE) and its VFs */
void rig_new_ib(Rig *r);
/* Detach and free the VFs, then the PF. */
void rig_free(Rig *r);

/* Enable VF @i from the PF, bring its function up with its MAC and one mlx5e channel. */
void vf_up(Rig *r, unsigned i, TEth *t);

/* Send a 60-byte frame to @dst from @src on the channel @t (inline, no checksums). */
void send_frame_from(TEth *t, const uint8_t *dst, const uint8_t *src, uint8_t tag);

/* ... from the function's own MAC */
void send_frame(TEth *t, const uint8_t *dst, uint8_t tag);

/* The next frame received on @t has tag @tag (a receive WQE posted first). */
bool got_frame(TEth *t, uint8_t tag);

/* How many frames the PF has sent to its link so far. */
unsigned link_frames(Rig *r);

/* A vport command @op (its own vport, or with @other vport @vport): the status. */
int vport_cmd(TDrv *d, uint16_t op, bool other, unsigned vport, uint8_t *in,
              uint32_t inlen, uint8_t *out, uint32_t outlen);

/* An FDB entry of table @ft at @index (group @fg) for destination MAC @dmac: to vports @vp. */
int fdb_rule(TDrv *d, uint32_t ft, uint32_t fg, uint32_t index, const uint8_t *dmac,
             unsigned nd, const uint32_t *vp);

/* MODIFY_VPORT_STATE (the E-Switch's, op_mod 1) of vport @vport to @admin: the status. */
int vport_state(TDrv *d, unsigned vport, unsigned admin);

/* A function's own vport state (QUERY_VPORT_STATE): 1 up. */
unsigned vf_oper(TDrv *vf);

#endif
