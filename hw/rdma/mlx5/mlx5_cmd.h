/*
 * mlx5 HCA core: one firmware command in flight, and the command handlers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_CMD_H
#define HW_RDMA_MLX5_CMD_H

#include "mlx5_internal.h"

struct Mlx5CmdCtx {
    const uint8_t *in;          /* device-owned copy of the whole input */
    uint32_t inlen;
    /* device-owned output, written back after the handler */
    uint8_t *out;
    uint32_t outlen;
    uint16_t opcode;
    uint16_t op_mod;
    uint16_t uid;
    uint8_t status;
    uint32_t syndrome;
};

/*
 * Fail the command with an architected status. The syndrome identifies the
 * check that failed (any 32-bit value is allowed; we use a per-site constant so
 * a driver log pins the cause).
 */
void mlx5_cmd_fail(Mlx5CmdCtx *cmd, uint8_t status, uint32_t syndrome);
/*
 * True if the input has at least @len bytes; otherwise fails with BAD_INP_LEN.
 */
bool mlx5_cmd_in_ok(Mlx5CmdCtx *cmd, uint32_t len);
/*
 * True if the output has room for @len bytes; otherwise fails with
 * BAD_OUTP_LEN.
 */
bool mlx5_cmd_out_ok(Mlx5CmdCtx *cmd, uint32_t len);
const char *mlx5_cmd_name(uint16_t opcode);

/*
 * DevX isolation (mlx5_devx.c). Every object records the uid of the command
 * that created it (0: the kernel, privileged; 0xffff: the kernel's shared
 * resources, such as the completion EQs, which every uid may use). The object a
 * command operates on must be the issuer's own (uid 0 sees everything):
 * mlx5_cmd_obj. An object a create or modify refers to may also be a privileged
 * one (the kernel gives user QPs its own dummy CQ, SRQ and XRC domain):
 * mlx5_cmd_ref. PDs are never shared: refer to them with mlx5_cmd_obj. Anything
 * not visible is reported as if it did not exist.
 */
static inline bool mlx5_cmd_user(const Mlx5CmdCtx *cmd)
{
    return cmd->uid && cmd->uid != MLX5_SHARED_RESOURCE_UID;
}
void *mlx5_cmd_obj(Mlx5CmdCtx *cmd, const Mlx5Table *t, uint32_t h);
void *mlx5_cmd_ref(Mlx5CmdCtx *cmd, const Mlx5Table *t, uint32_t h);
void mlx5_cmd_own(Mlx5CmdCtx *cmd, Mlx5Table *t, uint32_t h);
size_t mlx5_cmd_table(const char **names, uint16_t *opcodes, size_t max);

/*
 * Syndromes: a tag per check, so that "syndrome (0x...)" in dmesg pins the
 * failed check.
 */
enum {
    MLX5_SYND_BAD_OPCODE = 0x10000001,
    MLX5_SYND_NOT_ENABLED = 0x10000002,
    MLX5_SYND_NOT_INITIALIZED = 0x10000003,
    MLX5_SYND_ALREADY_ENABLED = 0x10000004,
    MLX5_SYND_BAD_FUNCTION = 0x10000005,
    MLX5_SYND_BAD_OP_MOD = 0x10000006,
    MLX5_SYND_BAD_ISSI = 0x10000007,
    MLX5_SYND_INLEN = 0x10000008,
    MLX5_SYND_OUTLEN = 0x10000009,
    MLX5_SYND_BAD_REGISTER = 0x1000000a,
    /* a non-volatile configuration TLV the device has none of (MNVDA) */
    MLX5_SYND_NV_TYPE = 0x40000020,
    MLX5_SYND_PAGES = 0x1000000b,
    MLX5_SYND_ALREADY_INITIALIZED = 0x1000000c,
    MLX5_SYND_NO_HANDLE = 0x20000001,       /* table full */
    MLX5_SYND_BAD_HANDLE = 0x20000002,      /* unknown object */
    MLX5_SYND_BUSY = 0x20000003,            /* object still referenced */
    MLX5_SYND_BAD_UAR = 0x20000004,
    MLX5_SYND_BAD_EQ = 0x20000005,
    MLX5_SYND_BAD_CQ = 0x20000006,
    MLX5_SYND_BAD_PD = 0x20000007,
    MLX5_SYND_BAD_SIZE = 0x20000008,
    MLX5_SYND_BAD_PAS = 0x20000009,
    MLX5_SYND_BAD_PAGE_SIZE = 0x2000000a,
    MLX5_SYND_BAD_INTR = 0x2000000b,
    MLX5_SYND_BAD_MKEY_MODE = 0x2000000c,
    MLX5_SYND_BAD_MKEY_RANGE = 0x2000000d,
    MLX5_SYND_BAD_SRQ = 0x2000000e,
    MLX5_SYND_BAD_XRCD = 0x2000000f,
    MLX5_SYND_BAD_ST = 0x20000010,
    MLX5_SYND_BAD_STATE = 0x20000011,
    MLX5_SYND_BAD_PORT = 0x20000012,
    MLX5_SYND_BAD_QPN = 0x20000013,
    MLX5_SYND_UNSUPPORTED = 0x20000014,
    MLX5_SYND_BAD_MTU = 0x20000015,
    MLX5_SYND_BAD_PKEY_INDEX = 0x20000016,
    MLX5_SYND_BAD_STRIDE = 0x20000017,
    MLX5_SYND_BAD_USER_INDEX = 0x20000018,
    /* not a multicast GID, or not attached */
    MLX5_SYND_BAD_GID = 0x20000019,
    /* no such DevX context, or not a user command */
    MLX5_SYND_BAD_UID = 0x2000001a,
    /* a path migration state software may not set */
    MLX5_SYND_BAD_PM_STATE = 0x2000001b,
    /* congestion control: no such node or priority, a parameter out of range */
    MLX5_SYND_BAD_CONG = 0x2000001c,
};

/* mlx5_devx.c */
Mlx5CmdHandler mlx5_cmd_create_uctx, mlx5_cmd_destroy_uctx,
    mlx5_cmd_create_umem, mlx5_cmd_destroy_umem;
/*
 * The bytes [off, off + len) of UMEM @id (visible to the command's uid) as a
 * guest buffer.
 */
uint32_t mlx5_umem_buf(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t id, uint64_t off,
                       uint64_t len, Mlx5Buf *b);
/*
 * Bus address of the 8-byte doorbell record at @off of UMEM @id. Returns a
 * syndrome or 0.
 */
uint32_t mlx5_umem_addr(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t id, uint64_t off,
                        uint64_t *pa);

/* mlx5_cmd_hca.c */
Mlx5CmdHandler mlx5_cmd_enable_hca, mlx5_cmd_disable_hca, mlx5_cmd_query_issi,
    mlx5_cmd_set_issi, mlx5_cmd_query_pages, mlx5_cmd_manage_pages,
    mlx5_cmd_query_hca_cap, mlx5_cmd_set_hca_cap, mlx5_cmd_init_hca,
    mlx5_cmd_teardown_hca, mlx5_cmd_query_adapter, mlx5_cmd_set_driver_version,
    mlx5_cmd_access_reg, mlx5_cmd_query_lag;
/* mlx5_eq.c */
Mlx5CmdHandler mlx5_cmd_create_eq, mlx5_cmd_destroy_eq, mlx5_cmd_query_eq;
/* mlx5_cong.c */
Mlx5CmdHandler mlx5_cmd_query_cong_status, mlx5_cmd_modify_cong_status,
    mlx5_cmd_query_cong_params, mlx5_cmd_modify_cong_params,
    mlx5_cmd_query_cong_statistics;
/* mlx5_q_counter.c */
Mlx5CmdHandler mlx5_cmd_alloc_q_counter, mlx5_cmd_dealloc_q_counter,
    mlx5_cmd_query_q_counter;
/* mlx5_res.c */
Mlx5CmdHandler mlx5_cmd_alloc_pd, mlx5_cmd_dealloc_pd, mlx5_cmd_alloc_uar,
    mlx5_cmd_dealloc_uar, mlx5_cmd_alloc_xrcd, mlx5_cmd_dealloc_xrcd,
    mlx5_cmd_alloc_transport_domain, mlx5_cmd_dealloc_transport_domain;
/* mlx5_cq.c */
Mlx5CmdHandler mlx5_cmd_create_cq, mlx5_cmd_destroy_cq, mlx5_cmd_query_cq,
    mlx5_cmd_modify_cq;
/* mlx5_mkey.c */
Mlx5CmdHandler mlx5_cmd_create_mkey, mlx5_cmd_destroy_mkey, mlx5_cmd_query_mkey;
Mlx5CmdHandler mlx5_cmd_query_special_contexts;
Mlx5CmdHandler mlx5_cmd_create_psv, mlx5_cmd_destroy_psv;
Mlx5CmdHandler mlx5_cmd_alloc_memic, mlx5_cmd_dealloc_memic;
Mlx5CmdHandler mlx5_cmd_create_general_object, mlx5_cmd_destroy_general_object,
    mlx5_cmd_query_general_object, mlx5_cmd_modify_general_object,
    mlx5_cmd_sync_steering;
/* mlx5_odp.c */
Mlx5CmdHandler mlx5_cmd_page_fault_resume;
/* mlx5_srq.c */
Mlx5CmdHandler mlx5_cmd_create_srq, mlx5_cmd_destroy_srq, mlx5_cmd_query_srq,
    mlx5_cmd_arm_rq, mlx5_cmd_create_rmp, mlx5_cmd_modify_rmp,
    mlx5_cmd_query_rmp;
Mlx5Srq *mlx5_rmp_create(Mlx5Core *c, Mlx5CmdCtx *cmd, const uint8_t *wq,
                         uint32_t pas_off, uint32_t cqn, uint32_t user_index);
void mlx5_rmp_query_wq(const Mlx5Srq *srq, uint8_t *wq);
/* mlx5_xrq.c */
Mlx5CmdHandler mlx5_cmd_create_xrq, mlx5_cmd_query_xrq;
/* mlx5_dct.c */
Mlx5CmdHandler mlx5_cmd_create_dct, mlx5_cmd_destroy_dct, mlx5_cmd_drain_dct,
    mlx5_cmd_query_dct;
/* mlx5_qp.c */
Mlx5CmdHandler mlx5_cmd_create_qp, mlx5_cmd_destroy_qp, mlx5_cmd_modify_qp,
    mlx5_cmd_query_qp;
/* mlx5_mad.c */
Mlx5CmdHandler mlx5_cmd_attach_to_mcg, mlx5_cmd_detach_from_mcg;
Mlx5CmdHandler mlx5_cmd_mad_ifc, mlx5_cmd_query_hca_vport_context,
    mlx5_cmd_modify_hca_vport_context,
    mlx5_cmd_query_hca_vport_gid, mlx5_cmd_query_hca_vport_pkey;
void mlx5_reg_pcap(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg, bool write);

/* mlx5_fw.c: the firmware components' registers */
void mlx5_fw_caps(uint8_t *cap);
/*
 * ACCESS_REG of a management register (@reg: @len bytes, the input copied
 * in): true if it is one of mlx5_fw.c's or the module's (handled, or failed
 * in @cmd).
 */
bool mlx5_fw_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t reg_id, uint8_t *reg,
                 uint32_t len, bool write);
/* mlx5_flash.c: the firmware update's registers (through mlx5_fw_reg) */
void mlx5_reg_mcc(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
void mlx5_reg_mcda(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
/* mlx5_fw_reset.c: the firmware reset's level register (through mlx5_fw_reg) */
void mlx5_reg_mfrl(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
void mlx5_reg_mroq(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
/* mlx5_nvconf.c: the non-volatile configuration's (through mlx5_fw_reg) */
void mlx5_reg_mnvqc(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
void mlx5_reg_mnvda(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
void mlx5_reg_mnvdi(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
void mlx5_reg_mnvia(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
void mlx5_reg_mnvgc(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
/* mlx5_module.c: the cable module's registers (through mlx5_fw_reg) */
void mlx5_module_pmlp(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
void mlx5_module_mcia(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);

/* Helpers for handlers: input/output field access with the common offsets. */
static inline uint32_t mlx5_cmd_handle_in(const Mlx5CmdCtx *cmd)
{
    return MLX5_GET(cmd->in, DEALLOC_IN_handle);
}

static inline void mlx5_cmd_handle_out(Mlx5CmdCtx *cmd, uint32_t handle)
{
    MLX5_SET(cmd->out, ALLOC_OUT_handle, handle);
}

#endif
