/*
 * mlx5 PRM (Programmer's Reference Manual) layouts used by the device model.
 *
 * All guest-visible structures are big endian. They are never read in place as
 * C structs: fields are described as (dword index, high bit, low bit) triples,
 * named <STRUCT>_<prm_field> after the field names of Linux's
 * include/linux/mlx5/mlx5_ifc.h, and accessed with MLX5_GET()/MLX5_SET() on a
 * local byte copy. Offsets are relative to the start of the named structure
 * (the command input/output, or the embedded context).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_PRM_H
#define HW_RDMA_MLX5_PRM_H

#include <stdint.h>
#include <string.h>

#define PCI_VENDOR_ID_MELLANOX          0x15b3
#define MLX5_PCI_DEVICE_ID_CX5          0x1017
#define MLX5_PCI_DEVICE_ID_CX5_VF       0x1018
/* "Infiniband controller", as real CX-5 report */
#define MLX5_PCI_CLASS_IB               0x0207
#define MLX5_IEEE_VENDOR_ID             0x0002c9

/* ---- big-endian accessors ------------------------------------------------ */

static inline uint32_t mlx5_ld32(const void *p)
{
    const uint8_t *b = p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) |
           ((uint32_t)b[2] << 8) | b[3];
}

static inline void mlx5_st32(void *p, uint32_t v)
{
    uint8_t *b = p;
    b[0] = v >> 24; b[1] = v >> 16; b[2] = v >> 8; b[3] = v;
}

static inline uint16_t mlx5_ld16(const void *p)
{
    const uint8_t *b = p;
    return (uint16_t)((b[0] << 8) | b[1]);
}

static inline void mlx5_st16(void *p, uint16_t v)
{
    uint8_t *b = p;
    b[0] = v >> 8; b[1] = v;
}

static inline uint64_t mlx5_ld64(const void *p)
{
    const uint8_t *b = p;
    return ((uint64_t)mlx5_ld32(b) << 32) | mlx5_ld32(b + 4);
}

static inline void mlx5_st64(void *p, uint64_t v)
{
    uint8_t *b = p;
    mlx5_st32(b, v >> 32);
    mlx5_st32(b + 4, (uint32_t)v);
}

/*
 * A field of a PRM layout: its dword, and its highest and lowest bit in that
 * dword, packed into one constant (MLX5_GET(buf, CQC_log_cq_size)).
 */
typedef uint32_t Mlx5Field;
#define MLX5_FIELD(dw, hi, lo)  (((dw) << 16) | ((hi) << 8) | (lo))

static inline uint32_t mlx5_field_get(const void *base, Mlx5Field f)
{
    unsigned hi = (f >> 8) & 0xff, lo = f & 0xff, w = hi - lo + 1;
    uint32_t v = mlx5_ld32((const uint8_t *)base + 4 * (f >> 16));

    return w == 32 ? v : (v >> lo) & ((1u << w) - 1);
}

static inline void mlx5_field_set(void *base, Mlx5Field f, uint32_t val)
{
    uint8_t *p = (uint8_t *)base + 4 * (f >> 16);
    unsigned hi = (f >> 8) & 0xff, lo = f & 0xff, w = hi - lo + 1;
    uint32_t mask = w == 32 ? 0xffffffffu : ((1u << w) - 1) << lo;

    mlx5_st32(p, (mlx5_ld32(p) & ~mask) | ((val << lo) & mask));
}

#define MLX5_GET(p, field)          mlx5_field_get((p), (field))
#define MLX5_SET(p, field, v)       mlx5_field_set((p), (field), (v))
/* 64-bit fields are given by byte offset. */
#define MLX5_GET64(p, byte_off)     mlx5_ld64((const uint8_t *)(p) + (byte_off))
#define MLX5_SET64(p, byte_off, v)  mlx5_st64((uint8_t *)(p) + (byte_off), (v))

/* ---- BAR0 initialization segment (struct mlx5_init_seg) ------------------ */

#define MLX5_ISEG_FW_REV                0x0000
#define MLX5_ISEG_CMDIF_REV_FW_SUB      0x0004
#define MLX5_ISEG_CMDQ_ADDR_H           0x0010
#define MLX5_ISEG_CMDQ_ADDR_L_SZ        0x0014
#define MLX5_ISEG_CMD_DBELL             0x0018
#define MLX5_ISEG_INITIALIZING          0x01fc
/* "initializing" bit 30: the driver may ask for a firmware reset */
#define MLX5_ISEG_FW_RESET_SUPPORTED    30
/* the init timeout offered beside a command timeout (the driver's default) */
#define MLX5_FW_INIT_TIMEOUT_MS         2000
#define MLX5_ISEG_HEALTH                0x0200
#define MLX5_ISEG_HEALTH_FW_VER         0x0230
#define MLX5_ISEG_HEALTH_HW_ID          0x0234
#define MLX5_ISEG_HEALTH_RFR_SEVERITY   0x0238
#define MLX5_ISEG_HEALTH_SYND           0x023d
#define MLX5_ISEG_CMD_EXEC_TO           0x0ff8
#define MLX5_ISEG_CMD_Q_INIT_TO         0x0ffc
#define MLX5_ISEG_INTERNAL_TIMER_H      0x1000
#define MLX5_ISEG_INTERNAL_TIMER_L      0x1004
#define MLX5_ISEG_HEALTH_COUNTER        0x1010
#define MLX5_ISEG_SIZE                  0x3000  /* pages 0..2 */

#define MLX5_CMD_IF_REV                 5
#define MLX5_LOG_CMDQ_SIZE              5       /* 32 entries */
#define MLX5_LOG_CMDQ_STRIDE            6       /* 64-byte descriptors */
#define MLX5_CMDQ_ENTRIES               (1u << MLX5_LOG_CMDQ_SIZE)

enum {
    MLX5_NIC_IFC_FULL = 0,
    MLX5_NIC_IFC_DISABLED = 1,
    MLX5_NIC_IFC_NO_DRAM_NIC = 2,
    MLX5_NIC_IFC_SW_RESET = 7,
};

/* UAR page layout */
#define MLX5_UAR_CQ_DB                  0x020
#define MLX5_UAR_EQ_DB_ARM              0x040
#define MLX5_UAR_EQ_DB_NOARM            0x048
#define MLX5_UAR_BF_BASE                0x800

/* ---- command queue descriptor (struct mlx5_cmd_layout) and mailboxes ----- */

#define MLX5_CMD_LAYOUT_SIZE            64
#define MLX5_CMD_LAY_TYPE               0x00
#define MLX5_CMD_LAY_INLEN              0x04
#define MLX5_CMD_LAY_IN_PTR             0x08
#define MLX5_CMD_LAY_IN                 0x10
#define MLX5_CMD_LAY_OUT                0x20
#define MLX5_CMD_LAY_OUT_PTR            0x30
#define MLX5_CMD_LAY_OUTLEN             0x38
#define MLX5_CMD_LAY_TOKEN              0x3c
#define MLX5_CMD_LAY_SIG                0x3d
#define MLX5_CMD_LAY_STATUS_OWN         0x3f
#define MLX5_PCI_CMD_XPORT              7
#define MLX5_CMD_INLINE_BYTES           16

#define MLX5_CMD_MBOX_SIZE              576
#define MLX5_CMD_MBOX_DATA              512
#define MLX5_CMD_MBOX_NEXT              0x230
#define MLX5_CMD_MBOX_BLOCK_NUM         0x238
#define MLX5_CMD_MBOX_TOKEN             0x23d

/* delivery status (status_own >> 1) */
enum {
    MLX5_CMD_DELIVERY_OK = 0x0,
    MLX5_CMD_DELIVERY_SIG_ERR = 0x1,
    MLX5_CMD_DELIVERY_TOK_ERR = 0x2,
    MLX5_CMD_DELIVERY_BAD_BLK_NUM_ERR = 0x3,
    MLX5_CMD_DELIVERY_OUT_PTR_ALIGN_ERR = 0x4,
    MLX5_CMD_DELIVERY_IN_PTR_ALIGN_ERR = 0x5,
    MLX5_CMD_DELIVERY_FW_INT_ERR = 0x6,
    MLX5_CMD_DELIVERY_IN_LENGTH_ERR = 0x7,
    MLX5_CMD_DELIVERY_OUT_LENGTH_ERR = 0x8,
    MLX5_CMD_DELIVERY_RES_FLD_NOT_CLR_ERR = 0x9,
    MLX5_CMD_DELIVERY_INVALID_COMMAND = 0x10,
};

/* command status (output byte 0) */
enum {
    MLX5_CMD_STAT_OK = 0x0,
    MLX5_CMD_STAT_INT_ERR = 0x1,
    MLX5_CMD_STAT_BAD_OP_ERR = 0x2,
    MLX5_CMD_STAT_BAD_PARAM_ERR = 0x3,
    MLX5_CMD_STAT_BAD_SYS_STATE_ERR = 0x4,
    MLX5_CMD_STAT_BAD_RES_ERR = 0x5,
    MLX5_CMD_STAT_RES_BUSY = 0x6,
    MLX5_CMD_STAT_LIM_ERR = 0x8,
    MLX5_CMD_STAT_BAD_RES_STATE_ERR = 0x9,
    MLX5_CMD_STAT_IX_ERR = 0xa,
    MLX5_CMD_STAT_NO_RES_ERR = 0xf,
    MLX5_CMD_STAT_BAD_QP_STATE_ERR = 0x10,
    MLX5_CMD_STAT_BAD_PKT_ERR = 0x30,
    MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR = 0x40,
    MLX5_CMD_STAT_BAD_INP_LEN_ERR = 0x50,
    MLX5_CMD_STAT_BAD_OUTP_LEN_ERR = 0x51,
};

/* common command header */
#define CMD_IN_opcode       MLX5_FIELD(0, 31, 16)
#define CMD_IN_uid          MLX5_FIELD(0, 15, 0)
#define CMD_IN_op_mod       MLX5_FIELD(1, 15, 0)
#define CMD_OUT_status      MLX5_FIELD(0, 31, 24)
#define CMD_OUT_syndrome    MLX5_FIELD(1, 31, 0)

/* ---- opcodes (MLX5_CMD_OP_*) --------------------------------------------- */

enum {
    MLX5_CMD_OP_QUERY_HCA_CAP = 0x100,
    MLX5_CMD_OP_QUERY_ADAPTER = 0x101,
    MLX5_CMD_OP_INIT_HCA = 0x102,
    MLX5_CMD_OP_TEARDOWN_HCA = 0x103,
    MLX5_CMD_OP_ENABLE_HCA = 0x104,
    MLX5_CMD_OP_DISABLE_HCA = 0x105,
    MLX5_CMD_OP_QUERY_PAGES = 0x107,
    MLX5_CMD_OP_MANAGE_PAGES = 0x108,
    MLX5_CMD_OP_SET_HCA_CAP = 0x109,
    MLX5_CMD_OP_QUERY_ISSI = 0x10a,
    MLX5_CMD_OP_SET_ISSI = 0x10b,
    MLX5_CMD_OP_SET_DRIVER_VERSION = 0x10d,
    MLX5_CMD_OP_CREATE_MKEY = 0x200,
    MLX5_CMD_OP_QUERY_MKEY = 0x201,
    MLX5_CMD_OP_DESTROY_MKEY = 0x202,
    MLX5_CMD_OP_QUERY_SPECIAL_CONTEXTS = 0x203,
    MLX5_CMD_OP_PAGE_FAULT_RESUME = 0x204,
    MLX5_CMD_OP_ALLOC_MEMIC = 0x205,
    MLX5_CMD_OP_DEALLOC_MEMIC = 0x206,
    MLX5_CMD_OP_CREATE_EQ = 0x301,
    MLX5_CMD_OP_DESTROY_EQ = 0x302,
    MLX5_CMD_OP_QUERY_EQ = 0x303,
    MLX5_CMD_OP_GEN_EQE = 0x304,
    MLX5_CMD_OP_CREATE_CQ = 0x400,
    MLX5_CMD_OP_DESTROY_CQ = 0x401,
    MLX5_CMD_OP_QUERY_CQ = 0x402,
    MLX5_CMD_OP_MODIFY_CQ = 0x403,
    MLX5_CMD_OP_CREATE_QP = 0x500,
    MLX5_CMD_OP_DESTROY_QP = 0x501,
    MLX5_CMD_OP_RST2INIT_QP = 0x502,
    MLX5_CMD_OP_INIT2RTR_QP = 0x503,
    MLX5_CMD_OP_RTR2RTS_QP = 0x504,
    MLX5_CMD_OP_RTS2RTS_QP = 0x505,
    MLX5_CMD_OP_SQERR2RTS_QP = 0x506,
    MLX5_CMD_OP_2ERR_QP = 0x507,
    MLX5_CMD_OP_2RST_QP = 0x50a,
    MLX5_CMD_OP_QUERY_QP = 0x50b,
    MLX5_CMD_OP_SQD_RTS_QP = 0x50c,
    MLX5_CMD_OP_MAD_IFC = 0x50d,
    MLX5_CMD_OP_INIT2INIT_QP = 0x50e,
    MLX5_CMD_OP_CREATE_PSV = 0x600,
    MLX5_CMD_OP_DESTROY_PSV = 0x601,
    MLX5_CMD_OP_CREATE_SRQ = 0x700,
    MLX5_CMD_OP_DESTROY_SRQ = 0x701,
    MLX5_CMD_OP_QUERY_SRQ = 0x702,
    MLX5_CMD_OP_ARM_RQ = 0x703,
    MLX5_CMD_OP_QUERY_VPORT_STATE = 0x750,
    MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT = 0x762,
    MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT = 0x763,
    MLX5_CMD_OP_QUERY_HCA_VPORT_GID = 0x764,
    MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY = 0x765,
    MLX5_CMD_OP_ALLOC_PD = 0x800,
    MLX5_CMD_OP_DEALLOC_PD = 0x801,
    MLX5_CMD_OP_ALLOC_UAR = 0x802,
    MLX5_CMD_OP_DEALLOC_UAR = 0x803,
    MLX5_CMD_OP_ACCESS_REG = 0x805,
    MLX5_CMD_OP_ATTACH_TO_MCG = 0x806,
    MLX5_CMD_OP_DETACH_FROM_MCG = 0x807,
    MLX5_CMD_OP_ALLOC_XRCD = 0x80e,
    MLX5_CMD_OP_DEALLOC_XRCD = 0x80f,
    MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN = 0x816,
    MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN = 0x817,
    /* congestion control (mlx5_cong.c, mlx5_cong_prm.h) */
    MLX5_CMD_OP_QUERY_CONG_STATUS = 0x822,
    MLX5_CMD_OP_MODIFY_CONG_STATUS = 0x823,
    MLX5_CMD_OP_QUERY_CONG_PARAMS = 0x824,
    MLX5_CMD_OP_MODIFY_CONG_PARAMS = 0x825,
    MLX5_CMD_OP_QUERY_CONG_STATISTICS = 0x826,
    MLX5_CMD_OP_QUERY_LAG = 0x842,
    MLX5_CMD_OP_CREATE_XRC_SRQ = 0x705,
    MLX5_CMD_OP_DESTROY_XRC_SRQ = 0x706,
    MLX5_CMD_OP_QUERY_XRC_SRQ = 0x707,
    MLX5_CMD_OP_ARM_XRC_SRQ = 0x708,
    MLX5_CMD_OP_CREATE_DCT = 0x710,
    MLX5_CMD_OP_DESTROY_DCT = 0x711,
    MLX5_CMD_OP_DRAIN_DCT = 0x712,
    MLX5_CMD_OP_QUERY_DCT = 0x713,
    MLX5_CMD_OP_CREATE_RMP = 0x90c,
    MLX5_CMD_OP_MODIFY_RMP = 0x90d,
    MLX5_CMD_OP_DESTROY_RMP = 0x90e,
    MLX5_CMD_OP_QUERY_RMP = 0x90f,
    MLX5_CMD_OP_CREATE_UCTX = 0xa04,
    MLX5_CMD_OP_DESTROY_UCTX = 0xa06,
    MLX5_CMD_OP_CREATE_UMEM = 0xa08,
    MLX5_CMD_OP_DESTROY_UMEM = 0xa0a,
};

/*
 * DC targets (CREATE/DESTROY/DRAIN/QUERY_DCT): the DCT context (dctc) at 0x10
 */
#define DCT_DCTC_OFF                        0x10
#define MLX5_DCTC_SIZE                      0x40
/* DESTROY/DRAIN/QUERY */
#define DCT_IN_dctn                         MLX5_FIELD(2, 23, 0)
#define CREATE_DCT_OUT_dctn                 MLX5_FIELD(2, 23, 0)
#define DCTC_state                          MLX5_FIELD(0, 27, 24)
#define DCTC_user_index                     MLX5_FIELD(1, 23, 0)
#define DCTC_cqn                            MLX5_FIELD(2, 23, 0)
#define DCTC_counter_set_id                 MLX5_FIELD(3, 31, 24)
#define DCTC_atomic_mode                    MLX5_FIELD(3, 23, 20)
#define DCTC_rre                            MLX5_FIELD(3, 19, 19)
#define DCTC_rwe                            MLX5_FIELD(3, 18, 18)
#define DCTC_rae                            MLX5_FIELD(3, 17, 17)
#define DCTC_cs_res                         MLX5_FIELD(4, 23, 16)
#define DCTC_min_rnr_nak                    MLX5_FIELD(4, 12, 8)
#define DCTC_srqn_xrqn                      MLX5_FIELD(5, 23, 0)
#define DCTC_pd                             MLX5_FIELD(6, 23, 0)
#define DCTC_tclass                         MLX5_FIELD(7, 31, 24)
#define DCTC_flow_label                     MLX5_FIELD(7, 19, 0)
#define DCTC_dc_access_key_OFF              0x20
#define DCTC_mtu                            MLX5_FIELD(10, 26, 24)
#define DCTC_port                           MLX5_FIELD(10, 23, 16)
#define DCTC_pkey_index                     MLX5_FIELD(10, 15, 0)
#define DCTC_my_addr_index                  MLX5_FIELD(11, 23, 16)
#define DCTC_hop_limit                      MLX5_FIELD(11, 7, 0)
#define DCTC_dc_access_key_violation_count  MLX5_FIELD(12, 31, 0)
enum {
    MLX5_DCTC_STATE_ACTIVE = 0,
    MLX5_DCTC_STATE_DRAINING = 1,
    MLX5_DCTC_STATE_DRAINED = 2,
};

/* DevX UMEM (CREATE_UMEM): a user buffer as an MTT list, named by umem_id */
/* relative to 4 KiB */
#define CREATE_UMEM_IN_log_page_size        MLX5_FIELD(8, 4, 0)
/* bytes into the first page */
#define CREATE_UMEM_IN_page_offset          MLX5_FIELD(9, 31, 0)
#define CREATE_UMEM_IN_num_of_mtt_OFF       0x28
#define CREATE_UMEM_IN_MTT_OFF              0x30
#define UMEM_OUT_umem_id                    MLX5_FIELD(2, 23, 0)
/*
 * umem-backed CQ/QP buffers and doorbell records (DevX sets the *_umem_valid
 * bits)
 */
#define CREATE_CQ_cq_umem_offset_OFF        0x50
#define CREATE_CQ_cq_umem_id                MLX5_FIELD(22, 31, 0)
#define CQC_dbr_umem_valid                  MLX5_FIELD(0, 25, 25)
#define CQC_dbr_umem_id                     MLX5_FIELD(1, 31, 0)
#define CREATE_QP_wq_umem_offset_OFF        0x100
#define CREATE_QP_wq_umem_id                MLX5_FIELD(66, 31, 0)
#define QPC_dbr_umem_valid                  MLX5_FIELD(52, 28, 28)
#define QPC_dbr_umem_id                     MLX5_FIELD(57, 31, 0)

/* DevX user contexts (CREATE_UCTX / DESTROY_UCTX) */
/* kernel objects every uid may use */
#define MLX5_SHARED_RESOURCE_UID            0xffff
#define CREATE_UCTX_IN_cap                  MLX5_FIELD(4, 31, 0) /* uctx.cap */
#define CREATE_UCTX_OUT_uid                 MLX5_FIELD(2, 15, 0)
#define DESTROY_UCTX_IN_uid                 MLX5_FIELD(2, 15, 0)

/* ---- HCA bring-up commands ----------------------------------------------- */

#define ENABLE_HCA_IN_function_id           MLX5_FIELD(2, 15, 0)
#define QUERY_ISSI_OUT_current_issi         MLX5_FIELD(2, 15, 0)
#define QUERY_ISSI_OUT_supported_issi_dw0   MLX5_FIELD(27, 31, 0)
#define QUERY_ISSI_OUT_SIZE                 0x70
#define SET_ISSI_IN_current_issi            MLX5_FIELD(2, 15, 0)
#define QUERY_PAGES_OUT_function_id         MLX5_FIELD(2, 15, 0)
#define QUERY_PAGES_OUT_num_pages           MLX5_FIELD(3, 31, 0)
#define MANAGE_PAGES_IN_input_num_entries   MLX5_FIELD(3, 31, 0)
#define MANAGE_PAGES_OUT_output_num_entries MLX5_FIELD(2, 31, 0)
#define MANAGE_PAGES_PAS_OFF                0x10
#define QUERY_HCA_CAP_OUT_SIZE              0x1010
/* capability union in/out */
#define HCA_CAP_OFF                         0x10
#define HCA_CAP_SIZE                        0x1000
#define TEARDOWN_HCA_IN_profile             MLX5_FIELD(2, 15, 0)
#define TEARDOWN_HCA_OUT_state              MLX5_FIELD(3, 0, 0)
#define QUERY_ADAPTER_OUT_SIZE              0x110
/* 0x10 + 0x19 */
#define QUERY_ADAPTER_OUT_ieee_vendor_id    MLX5_FIELD(10, 23, 0)
/* byte offset, 16 bytes */
#define QUERY_ADAPTER_OUT_vsd_contd_psid    0x100

enum {
    MLX5_PAGES_CANT_GIVE = 0,
    MLX5_PAGES_GIVE = 1,
    MLX5_PAGES_TAKE = 2,
};

/* cap types (QUERY_HCA_CAP op_mod >> 1) */
enum {
    MLX5_CAP_GENERAL = 0x0,
    MLX5_CAP_ODP = 0x2,
    MLX5_CAP_ATOMIC = 0x3,
    MLX5_CAP_DEV_MEM = 0xf,
};

/* cmd_hca_cap (relative to the capability start) */
#define CAP_vhca_id                         MLX5_FIELD(1, 15, 0)
#define QUERY_HCA_CAP_IN_other_function     MLX5_FIELD(2, 31, 31)
#define QUERY_HCA_CAP_IN_function_id        MLX5_FIELD(2, 15, 0)
#define CAP_log_max_srq_sz                  MLX5_FIELD(4, 31, 24)
#define CAP_log_max_qp_sz                   MLX5_FIELD(4, 23, 16)
#define CAP_log_max_qp                      MLX5_FIELD(4, 4, 0)
#define CAP_log_max_srq                     MLX5_FIELD(5, 20, 16)
#define CAP_log_max_cq_sz                   MLX5_FIELD(6, 23, 16)
#define CAP_log_max_cq                      MLX5_FIELD(6, 4, 0)
#define CAP_log_max_eq_sz                   MLX5_FIELD(7, 31, 24)
#define CAP_log_max_mkey                    MLX5_FIELD(7, 21, 16)
#define CAP_log_max_eq                      MLX5_FIELD(7, 3, 0)
#define CAP_max_indirection                 MLX5_FIELD(8, 31, 24)
#define CAP_log_max_mrw_sz                  MLX5_FIELD(8, 22, 16)
#define CAP_fixed_buffer_size               MLX5_FIELD(8, 23, 23)
#define CAP_umr_extended_translation_offset MLX5_FIELD(8, 7, 7)
#define CAP_null_mkey                       MLX5_FIELD(8, 6, 6)
#define CAP_log_max_klm_list_size           MLX5_FIELD(8, 5, 0)
#define CAP_log_max_ra_req_dc               MLX5_FIELD(9, 21, 16)
#define CAP_log_max_ra_res_dc               MLX5_FIELD(9, 5, 0)
#define CAP_log_max_ra_req_qp               MLX5_FIELD(10, 21, 16)
#define CAP_log_max_ra_res_qp               MLX5_FIELD(10, 5, 0)
#define CAP_cc_query_allowed                MLX5_FIELD(11, 30, 30)
#define CAP_cc_modify_allowed               MLX5_FIELD(11, 29, 29)
#define CAP_cache_line_128byte              MLX5_FIELD(11, 27, 27)
#define CAP_gid_table_size                  MLX5_FIELD(11, 15, 0)
#define CAP_max_qp_cnt                      MLX5_FIELD(12, 25, 16)
/* the queue counters offered beyond the basic ones (mlx5_q_counter.c) */
#define CAP_out_of_seq_cnt                  MLX5_FIELD(12, 31, 31)
#define CAP_retransmission_q_counters       MLX5_FIELD(12, 29, 29)
#define CAP_enhanced_error_q_counters       MLX5_FIELD(13, 14, 14)
/* QUERY_Q_COUNTER output: where each counter is (32 bits each) */
#define Q_COUNTER_OUT_rx_write_requests_OFF         0x10
#define Q_COUNTER_OUT_rx_read_requests_OFF          0x18
#define Q_COUNTER_OUT_rx_atomic_requests_OFF        0x20
#define Q_COUNTER_OUT_out_of_buffer_OFF             0x30
#define Q_COUNTER_OUT_out_of_sequence_OFF           0x38
#define Q_COUNTER_OUT_duplicate_request_OFF         0x40
#define Q_COUNTER_OUT_rnr_nak_retry_err_OFF         0x48
#define Q_COUNTER_OUT_packet_seq_err_OFF            0x50
#define Q_COUNTER_OUT_implied_nak_seq_err_OFF       0x58
#define Q_COUNTER_OUT_local_ack_timeout_err_OFF     0x60
#define Q_COUNTER_OUT_resp_local_length_error_OFF   0x78
#define Q_COUNTER_OUT_resp_cqe_error_OFF            0x90
#define Q_COUNTER_OUT_req_cqe_error_OFF             0x94
#define Q_COUNTER_OUT_req_remote_invalid_request_OFF 0xa0
#define Q_COUNTER_OUT_resp_remote_invalid_request_OFF 0xa4
#define Q_COUNTER_OUT_req_remote_access_errors_OFF  0xa8
#define Q_COUNTER_OUT_resp_remote_access_errors_OFF 0xac
#define Q_COUNTER_OUT_req_remote_operation_errors_OFF 0xb0
#define Q_COUNTER_OUT_resp_cqe_flush_error_OFF      0xbc
#define Q_COUNTER_OUT_req_cqe_flush_error_OFF       0xc0
#define CAP_pkey_table_size                 MLX5_FIELD(12, 15, 0)
#define CAP_vport_group_manager             MLX5_FIELD(13, 31, 31)
#define CAP_eswitch_manager                 MLX5_FIELD(13, 24, 24)
#define CAP_log_max_l2_table                MLX5_FIELD(36, 28, 24)
#define CAP_ib_virt                         MLX5_FIELD(13, 29, 29)
/* device_mem_cap page (MEMIC) */
#define CAP_device_memory                   MLX5_FIELD(13, 23, 23)
#define CAP_local_ca_ack_delay              MLX5_FIELD(13, 20, 16)
#define CAP_port_module_event               MLX5_FIELD(13, 15, 15)
#define CAP_port_type                       MLX5_FIELD(13, 9, 8)
#define CAP_num_ports                       MLX5_FIELD(13, 7, 0)
#define CAP_log_max_msg                     MLX5_FIELD(14, 28, 24)
#define CAP_stat_rate_support               MLX5_FIELD(15, 31, 16)
#define CAP_cqe_version                     MLX5_FIELD(15, 3, 0)
#define CAP_umr_modify_entity_size_disabled MLX5_FIELD(16, 24, 24)
#define CAP_umr_modify_atomic_disabled      MLX5_FIELD(16, 23, 23)
#define CAP_umr_indirect_mkey_disabled      MLX5_FIELD(16, 22, 22)
#define CAP_cmdif_checksum                  MLX5_FIELD(16, 15, 14)
#define CAP_dct                             MLX5_FIELD(16, 5, 5)
#define CAP_drain_sigerr                    MLX5_FIELD(16, 16, 16)
#define CAP_sigerr_cqe                      MLX5_FIELD(16, 13, 13)
#define CAP_sho                             MLX5_FIELD(16, 8, 8)
#define CAP_atomic                          MLX5_FIELD(16, 1, 1)
#define CAP_cq_oi                           MLX5_FIELD(17, 31, 31)
#define CAP_cq_resize                       MLX5_FIELD(17, 30, 30)
#define CAP_cq_moderation                   MLX5_FIELD(17, 29, 29)
#define CAP_cq_period_mode_modify           MLX5_FIELD(17, 28, 28)
#define CAP_cq_period_start_from_cqe        MLX5_FIELD(17, 20, 20)
/* page faults (ODP, mlx5_odp.c) */
#define CAP_pg                              MLX5_FIELD(17, 24, 24)
/* QPs may block self multicast loopback */
#define CAP_block_lb_mc                     MLX5_FIELD(17, 23, 23)
/* automatic path migration */
#define CAP_apm                             MLX5_FIELD(17, 17, 17)
/* memory windows */
#define CAP_imaicl                          MLX5_FIELD(17, 14, 14)
#define CAP_xrc                             MLX5_FIELD(17, 3, 3)
#define CAP_ud                              MLX5_FIELD(17, 2, 2)
#define CAP_uc                              MLX5_FIELD(17, 1, 1)
#define CAP_rc                              MLX5_FIELD(17, 0, 0)
#define CAP_uar_4k                          MLX5_FIELD(18, 31, 31)
#define CAP_log_pg_sz                       MLX5_FIELD(18, 7, 0)
#define CAP_bf                              MLX5_FIELD(19, 31, 31)
#define CAP_driver_version                  MLX5_FIELD(19, 30, 30)
#define CAP_log_bf_reg_size                 MLX5_FIELD(19, 20, 16)
#define CAP_max_wqe_sz_sq                   MLX5_FIELD(20, 15, 0)
#define CAP_max_wqe_sz_rq                   MLX5_FIELD(21, 15, 0)
#define CAP_max_wqe_sz_sq_dc                MLX5_FIELD(22, 15, 0)
#define CAP_max_qp_mcg                      MLX5_FIELD(23, 24, 0)
#define CAP_log_max_mcg                     MLX5_FIELD(24, 7, 0)
#define CAP_log_max_transport_domain        MLX5_FIELD(25, 28, 24)
#define CAP_log_max_pd                      MLX5_FIELD(25, 20, 16)
#define CAP_log_max_xrcd                    MLX5_FIELD(25, 4, 0)
#define CAP_log_max_uctx                    MLX5_FIELD(35, 28, 24)
#define CAP_uctx_cap                        MLX5_FIELD(53, 31, 0)
#define CAP_log_uar_page_sz                 MLX5_FIELD(36, 15, 0)
#define CAP_sigerr_domain_and_sig_type      MLX5_FIELD(36, 31, 31)
#define CAP_device_frequency_mhz            MLX5_FIELD(38, 31, 0)
#define CAP_device_frequency_khz            MLX5_FIELD(39, 31, 0)
/* CQE compression (mlx5_cqe_comp.c) */
/* the flex parser's protocols (MLX5_FLEX_PROTO_*) */
#define CAP_flex_parser_protocols           MLX5_FIELD(42, 31, 0)
#define MLX5_FLEX_PROTO_GENEVE              (1u << 3)
#define CAP_mini_cqe_resp_stride_index      MLX5_FIELD(45, 3, 3)
#define CAP_cqe_128_always                  MLX5_FIELD(45, 2, 2)
#define CAP_cqe_compression_128             MLX5_FIELD(45, 1, 1)
#define CAP_cqe_compression                 MLX5_FIELD(45, 0, 0)
#define CAP_cqe_compression_timeout         MLX5_FIELD(46, 31, 16)
#define CAP_cqe_compression_max_num         MLX5_FIELD(46, 15, 0)
#define CAP_native_port_num                 MLX5_FIELD(48, 23, 16)
#define CAP_num_vhca_ports                  MLX5_FIELD(48, 15, 8)
#define CAP_sw_owner_id                     MLX5_FIELD(48, 1, 1)

/* atomic_caps */
/* device_mem_cap: on-chip memory (MEMIC) in BAR0 */
#define DEV_MEM_CAP_memic                   MLX5_FIELD(0, 31, 31)
#define DEV_MEM_CAP_log_min_memic_alloc_size MLX5_FIELD(1, 20, 16)
#define DEV_MEM_CAP_log_max_memic_addr_alignment MLX5_FIELD(1, 7, 0)
#define DEV_MEM_CAP_memic_bar_start_addr_OFF 0x08
#define DEV_MEM_CAP_memic_bar_size          MLX5_FIELD(4, 31, 0)
#define DEV_MEM_CAP_max_memic_size          MLX5_FIELD(5, 31, 0)

/*
 * odp_cap: the transport page-fault scheme's per-service dwords (bit 31 send,
 * 30 receive, 29 write, 28 read, 27 atomic, 26 srq_receive); the memory scheme
 * stays 0.
 */
#define ODP_CAP_rc_OFF                      0x10
#define ODP_CAP_uc_OFF                      0x14
#define ODP_CAP_ud_OFF                      0x18
#define ODP_CAP_xrc_OFF                     0x1c
#define ODP_CAP_dc_OFF                      0x20
#define ODP_CAP_mem_page_fault              MLX5_FIELD(48, 31, 31)
enum {
    MLX5_ODP_SEND = 1u << 31,
    MLX5_ODP_RECEIVE = 1u << 30,
    MLX5_ODP_WRITE = 1u << 29,
    MLX5_ODP_READ = 1u << 28,
    MLX5_ODP_ATOMIC = 1u << 27,
    MLX5_ODP_SRQ_RECEIVE = 1u << 26,
};

/* PAGE_FAULT_RESUME (transport scheme: trans_page_fault_info) */
#define PAGE_FAULT_RESUME_IN_error          MLX5_FIELD(2, 31, 31)
#define PAGE_FAULT_RESUME_IN_page_fault_type MLX5_FIELD(2, 26, 24)
#define PAGE_FAULT_RESUME_IN_wq_number      MLX5_FIELD(2, 23, 0)
#define PAGE_FAULT_RESUME_IN_fault_token    MLX5_FIELD(3, 23, 0)

/* PAGE_FAULT EQE (event 0xc), offsets in the EQE's data */
enum {
    MLX5_PFAULT_SUBTYPE_WQE = 0,
    MLX5_PFAULT_SUBTYPE_RDMA = 1,
};
/* page fault types: REQUESTOR 1, WRITE 2, RDMA 4 (the WQE types are 0..3) */
enum {
    MLX5_PF_TYPE_RMP = 0,               /* receive WQE of an SRQ (wq = srqn) */
    MLX5_PF_TYPE_REQ_SEND_OR_WRITE = 1, /* requester reads its gather list */
    MLX5_PF_TYPE_RESP = 2,              /* receive WQE of a QP's RQ */
    MLX5_PF_TYPE_REQ_READ_OR_ATOMIC = 3, /* writes READ/atomic response data */
    MLX5_PF_TYPE_RDMA = 4,              /* responder: access through an rkey */
    MLX5_PF_TYPE_RDMA_WRITE = 6,
};
#define PF_EQE_bytes_committed              0x00
#define PF_EQE_WQE_wqe_index                0x06    /* be16 */
#define PF_EQE_WQE_packet_length            0x0a    /* be16 */
#define PF_EQE_WQE_token                    0x0c
#define PF_EQE_WQE_pftype_wq                0x18    /* type << 24 | wq number */
#define PF_EQE_RDMA_r_key                   0x04
#define PF_EQE_RDMA_packet_length           0x0a    /* be16 */
#define PF_EQE_RDMA_rdma_op_len             0x0c
#define PF_EQE_RDMA_rdma_va                 0x10    /* be64 */
#define PF_EQE_RDMA_pftype_token            0x18    /* type << 24 | token */

/* ALLOC_MEMIC / DEALLOC_MEMIC (addresses are offsets in BAR0) */
#define ALLOC_MEMIC_IN_log_memic_addr_alignment MLX5_FIELD(3, 7, 0)
#define ALLOC_MEMIC_IN_range_start_addr_OFF 0x10
#define ALLOC_MEMIC_IN_range_size           MLX5_FIELD(6, 31, 0)
#define ALLOC_MEMIC_IN_memic_size           MLX5_FIELD(7, 31, 0)
#define ALLOC_MEMIC_OUT_memic_start_addr_OFF 0x08
#define DEALLOC_MEMIC_IN_memic_start_addr_OFF 0x10
#define DEALLOC_MEMIC_IN_memic_size         MLX5_FIELD(6, 31, 0)

#define ATOMIC_CAP_atomic_req_8B_endianness_mode MLX5_FIELD(2, 31, 30)
#define ATOMIC_CAP_supported_atomic_req_8B_endianness_mode_1 \
    MLX5_FIELD(2, 25, 25)
#define ATOMIC_CAP_atomic_operations                        MLX5_FIELD(4, 15, 0)
#define ATOMIC_CAP_atomic_size_qp                           MLX5_FIELD(5, 15, 0)
#define ATOMIC_CAP_atomic_size_dc                           MLX5_FIELD(6, 15, 0)

/* ---- ACCESS_REG ---------------------------------------------------------- */

#define ACCESS_REG_IN_register_id           MLX5_FIELD(2, 15, 0)
#define ACCESS_REG_IN_argument              MLX5_FIELD(3, 31, 0)
#define ACCESS_REG_DATA_OFF                 0x10
enum {
    MLX5_REG_PCAP = 0x5001,
    MLX5_REG_PMTU = 0x5003,
    MLX5_REG_PTYS = 0x5004,
    MLX5_REG_PAOS = 0x5006,
    MLX5_REG_PVLC = 0x500f,
    MLX5_REG_NODE_DESC = 0x6001,
    MLX5_REG_HOST_ENDIANNESS = 0x7004,
};
#define MLX5_ACCESS_REG_WRITE               0
#define MLX5_ACCESS_REG_READ                1

/* ---- objects: handles ---------------------------------------------------- */

/* pd, uar, xrcd, td, cqn, qpn, ... */
#define ALLOC_OUT_handle                    MLX5_FIELD(2, 23, 0)
#define DEALLOC_IN_handle                   MLX5_FIELD(2, 23, 0)
#define CREATE_EQ_OUT_eq_number             MLX5_FIELD(2, 7, 0)
#define DESTROY_EQ_IN_eq_number             MLX5_FIELD(2, 7, 0)
/* pas[] of every CREATE_* */
#define MLX5_PAS_OFF                        0x110

/* ---- EQ ------------------------------------------------------------------ */

#define CREATE_EQ_EQC_OFF                   0x10
#define CREATE_EQ_event_bitmask_OFF         0x58
#define EQC_status                          MLX5_FIELD(0, 31, 28)
#define EQC_ec                              MLX5_FIELD(0, 18, 18)
#define EQC_oi                              MLX5_FIELD(0, 17, 17)
#define EQC_st                              MLX5_FIELD(0, 11, 8)
#define EQC_page_offset                     MLX5_FIELD(2, 11, 6)
#define EQC_log_eq_size                     MLX5_FIELD(3, 28, 24)
#define EQC_uar_page                        MLX5_FIELD(3, 23, 0)
#define EQC_intr                            MLX5_FIELD(5, 11, 0)
#define EQC_log_page_size                   MLX5_FIELD(6, 28, 24)
#define EQC_consumer_counter                MLX5_FIELD(10, 23, 0)
#define EQC_producer_counter                MLX5_FIELD(11, 23, 0)
#define QUERY_EQ_OUT_EQC_OFF                0x10
#define QUERY_EQ_OUT_SIZE                   0x110

#define MLX5_EQE_SIZE                       64
#define MLX5_EQE_type                       0x01
#define MLX5_EQE_sub_type                   0x03
#define MLX5_EQE_data                       0x20
#define MLX5_EQE_owner                      0x3f

enum {
    MLX5_EVENT_TYPE_COMP = 0x00,
    MLX5_EVENT_TYPE_PATH_MIG = 0x01,
    MLX5_EVENT_TYPE_COMM_EST = 0x02,
    MLX5_EVENT_TYPE_SQ_DRAINED = 0x03,
    MLX5_EVENT_TYPE_SRQ_LAST_WQE = 0x13,
    MLX5_EVENT_TYPE_SRQ_RQ_LIMIT = 0x14,
    MLX5_EVENT_TYPE_CQ_ERROR = 0x04,
    MLX5_EVENT_TYPE_WQ_CATAS_ERROR = 0x05,
    MLX5_EVENT_TYPE_PATH_MIG_FAILED = 0x07,
    MLX5_EVENT_TYPE_PORT_CHANGE = 0x09,
    MLX5_EVENT_TYPE_NIC_VPORT_CHANGE = 0x0d,
    MLX5_EVENT_TYPE_CMD = 0x0a,
    MLX5_EVENT_TYPE_PAGE_REQUEST = 0x0b,
    MLX5_EVENT_TYPE_PAGE_FAULT = 0x0c,
    MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR = 0x10,
    MLX5_EVENT_TYPE_WQ_ACCESS_ERROR = 0x11,
    MLX5_EVENT_TYPE_SRQ_CATAS_ERROR = 0x12,
    MLX5_EVENT_TYPE_DCT_DRAINED = 0x1c,
    MLX5_EVENT_TYPE_PORT_MODULE_EVENT = 0x16,
};

enum {
    MLX5_PORT_CHANGE_SUBTYPE_DOWN = 1,
    MLX5_PORT_CHANGE_SUBTYPE_ACTIVE = 4,
    MLX5_PORT_CHANGE_SUBTYPE_LID = 6,
    MLX5_PORT_CHANGE_SUBTYPE_GUID = 8,
    MLX5_PORT_CHANGE_SUBTYPE_CLIENT_REREG = 9,
};

/* ---- CQ ------------------------------------------------------------------ */

#define CREATE_CQ_CQC_OFF                   0x10
#define CQC_status                          MLX5_FIELD(0, 31, 28)
#define CQC_cqe_sz                          MLX5_FIELD(0, 23, 21)
#define MLX5_CQE_SZ_64                      0
#define MLX5_CQE_SZ_128                     1
#define MLX5_CQE_SZ_128_PAD                 2
#define CQC_cc                              MLX5_FIELD(0, 20, 20)
#define CQC_oi                              MLX5_FIELD(0, 17, 17)
/* 0: the moderation period starts at the event, 1: at the first CQE */
#define CQC_cq_period_mode                  MLX5_FIELD(0, 16, 15)
#define CQC_cqe_comp_en                     MLX5_FIELD(0, 14, 14)
#define CQC_mini_cqe_res_format             MLX5_FIELD(0, 13, 12)
#define CQC_st                              MLX5_FIELD(0, 11, 8)
#define CQC_cqe_comp_layout                 MLX5_FIELD(0, 1, 0)
#define CQC_mini_cqe_res_format_ext         MLX5_FIELD(2, 3, 2)
#define CQC_page_offset                     MLX5_FIELD(2, 11, 6)
#define CQC_log_cq_size                     MLX5_FIELD(3, 28, 24)
#define CQC_uar_page                        MLX5_FIELD(3, 23, 0)
#define CQC_cq_period                       MLX5_FIELD(4, 27, 16)
#define CQC_cq_max_count                    MLX5_FIELD(4, 15, 0)
#define CQC_c_eqn                           MLX5_FIELD(5, 31, 0)
#define CQC_log_page_size                   MLX5_FIELD(6, 28, 24)
#define CQC_last_notified_index             MLX5_FIELD(8, 23, 0)
#define CQC_last_solicit_index              MLX5_FIELD(9, 23, 0)
#define CQC_consumer_counter                MLX5_FIELD(10, 23, 0)
#define CQC_producer_counter                MLX5_FIELD(11, 23, 0)
#define CQC_dbr_addr_OFF                    0x38
#define QUERY_CQ_OUT_SIZE                   0x110
#define CREATE_CQ_cq_umem_valid             MLX5_FIELD(23, 31, 31)

/* ---- MKEY ---------------------------------------------------------------- */

#define CREATE_MKEY_IN_pg_access            MLX5_FIELD(3, 31, 31)
#define CREATE_MKEY_IN_mkey_umem_valid      MLX5_FIELD(3, 30, 30)
#define CREATE_MKEY_MKC_OFF                 0x10
#define CREATE_MKEY_IN_translations_octword_actual_size MLX5_FIELD(24, 31, 0)
#define MKC_free                            MLX5_FIELD(0, 30, 30)
#define MKC_access_mode_4_2                 MLX5_FIELD(0, 28, 26)
#define MKC_umr_en                          MLX5_FIELD(0, 15, 15)
#define MKC_a                               MLX5_FIELD(0, 14, 14)
#define MKC_rw                              MLX5_FIELD(0, 13, 13)
#define MKC_rr                              MLX5_FIELD(0, 12, 12)
#define MKC_lw                              MLX5_FIELD(0, 11, 11)
#define MKC_lr                              MLX5_FIELD(0, 10, 10)
#define MKC_access_mode_1_0                 MLX5_FIELD(0, 9, 8)
#define MKC_qpn                             MLX5_FIELD(1, 31, 8)
#define MKC_mkey_7_0                        MLX5_FIELD(1, 7, 0)
#define MKC_length64                        MLX5_FIELD(3, 31, 31)
#define MKC_bsf_en                          MLX5_FIELD(3, 30, 30)
#define MKC_expected_sigerr_count           MLX5_FIELD(3, 26, 26)
#define MKC_en_rinval                       MLX5_FIELD(3, 24, 24)
#define MKC_pd                              MLX5_FIELD(3, 23, 0)
#define MKC_start_addr_OFF                  0x10
#define MKC_len_OFF                         0x18
#define MKC_bsf_octword_size                MLX5_FIELD(8, 31, 0)
#define MKC_translations_octword_size       MLX5_FIELD(13, 31, 0)
#define MKC_crypto_en                       MLX5_FIELD(15, 28, 27)
#define MKC_log_page_size                   MLX5_FIELD(14, 5, 0)
#define MLX5_MKC_SIZE                       64
#define QUERY_MKEY_OUT_SIZE                 0x110
/* QUERY_SPECIAL_CONTEXTS: the device's reserved keys */
#define QUERY_SPECIAL_CONTEXTS_OUT_SIZE     0x20
#define QUERY_SPECIAL_CONTEXTS_OUT_null_mkey MLX5_FIELD(4, 31, 0)
#define MKEY_IN_mkey_index                  MLX5_FIELD(2, 23, 0)

enum {
    MLX5_MKC_ACCESS_MODE_PA = 0,
    MLX5_MKC_ACCESS_MODE_MTT = 1,
    MLX5_MKC_ACCESS_MODE_KLMS = 2,
    MLX5_MKC_ACCESS_MODE_KSM = 3,
    /* start_addr: device memory (BAR0 offset), zero based */
    MLX5_MKC_ACCESS_MODE_MEMIC = 5,
};

/* ---- QP ------------------------------------------------------------------ */

#define CREATE_QP_IN_input_qpn              MLX5_FIELD(2, 23, 0)
/* modify/destroy/query */
#define QP_IN_qpn                           MLX5_FIELD(2, 23, 0)
#define QP_IN_opt_param_mask_OFF            0x10
#define QP_QPC_OFF                          0x18
#define MLX5_QPC_SIZE                       0xe8
#define CREATE_QP_wq_umem_valid             MLX5_FIELD(67, 31, 31)
#define QUERY_QP_OUT_SIZE                   0x110
#define QPC_state                           MLX5_FIELD(0, 31, 28)
#define QPC_st                              MLX5_FIELD(0, 23, 16)
#define QPC_pm_state                        MLX5_FIELD(0, 12, 11)
#define QPC_block_lb_mc                     MLX5_FIELD(1, 30, 30)
#define QPC_pd                              MLX5_FIELD(1, 23, 0)
#define QPC_mtu                             MLX5_FIELD(2, 31, 29)
#define QPC_log_msg_max                     MLX5_FIELD(2, 28, 24)
#define QPC_log_rq_size                     MLX5_FIELD(2, 22, 19)
#define QPC_log_rq_stride                   MLX5_FIELD(2, 18, 16)
#define QPC_no_sq                           MLX5_FIELD(2, 15, 15)
#define QPC_log_sq_size                     MLX5_FIELD(2, 14, 11)
#define QPC_rlky                            MLX5_FIELD(2, 4, 4)
#define QPC_counter_set_id                  MLX5_FIELD(3, 31, 24)
#define QPC_drain_sigerr                    MLX5_FIELD(1, 26, 26)
#define QPC_uar_page                        MLX5_FIELD(3, 23, 0)
#define QPC_user_index                      MLX5_FIELD(4, 23, 0)
#define QPC_log_page_size                   MLX5_FIELD(5, 28, 24)
#define QPC_remote_qpn                      MLX5_FIELD(5, 23, 0)
/* primary_address_path */
#define QPC_ADS_OFF                         0x18
#define ADS_fl                              MLX5_FIELD(0, 31, 31)
#define ADS_pkey_index                      MLX5_FIELD(0, 15, 0)
#define ADS_grh                             MLX5_FIELD(1, 23, 23)
#define ADS_mlid                            MLX5_FIELD(1, 22, 16)
#define ADS_rlid                            MLX5_FIELD(1, 15, 0)
#define ADS_ack_timeout                     MLX5_FIELD(2, 31, 27)
#define ADS_src_addr_index                  MLX5_FIELD(2, 23, 16)
#define ADS_stat_rate                       MLX5_FIELD(2, 11, 8)
#define ADS_hop_limit                       MLX5_FIELD(2, 7, 0)
#define ADS_tclass                          MLX5_FIELD(3, 27, 20)
#define ADS_flow_label                      MLX5_FIELD(3, 19, 0)
#define ADS_rgid_OFF                        0x10
#define ADS_sl                              MLX5_FIELD(9, 27, 24)
#define ADS_vhca_port_num                   MLX5_FIELD(9, 23, 16)
#define ADS_udp_sport                       MLX5_FIELD(8, 15, 0) /* RoCE v2 */
/* RoCE: next hop MAC, 6 bytes */
#define ADS_rmac_OFF                        0x26
#define MLX5_ADS_SIZE                       44
/* secondary_address_path */
#define QPC_ADS2_OFF                        0x44
#define QPC_log_ack_req_freq                MLX5_FIELD(28, 31, 28)
#define QPC_log_sra_max                     MLX5_FIELD(28, 23, 21)
#define QPC_retry_count                     MLX5_FIELD(28, 18, 16)
#define QPC_rnr_retry                       MLX5_FIELD(28, 15, 13)
#define QPC_fre                             MLX5_FIELD(28, 11, 11)
#define QPC_next_send_psn                   MLX5_FIELD(30, 23, 0)
#define QPC_cqn_snd                         MLX5_FIELD(31, 23, 0)
#define QPC_deth_sqpn                       MLX5_FIELD(32, 23, 0)
#define QPC_last_acked_psn                  MLX5_FIELD(34, 23, 0)
#define QPC_ssn                             MLX5_FIELD(35, 23, 0)
#define QPC_log_rra_max                     MLX5_FIELD(36, 23, 21)
#define QPC_atomic_mode                     MLX5_FIELD(36, 19, 16)
#define QPC_rre                             MLX5_FIELD(36, 15, 15)
#define QPC_rwe                             MLX5_FIELD(36, 14, 14)
#define QPC_rae                             MLX5_FIELD(36, 13, 13)
#define QPC_page_offset                     MLX5_FIELD(36, 11, 6)
#define QPC_min_rnr_nak                     MLX5_FIELD(37, 28, 24)
#define QPC_next_rcv_psn                    MLX5_FIELD(37, 23, 0)
#define QPC_xrcd                            MLX5_FIELD(38, 23, 0)
#define QPC_cqn_rcv                         MLX5_FIELD(39, 23, 0)
#define QPC_dbr_addr_OFF                    0xa0
#define QPC_q_key                           MLX5_FIELD(42, 31, 0)
#define QPC_rq_type                         MLX5_FIELD(43, 26, 24)
#define QPC_srqn_rmpn_xrqn                  MLX5_FIELD(43, 23, 0)
#define QPC_rmsn                            MLX5_FIELD(44, 23, 0)
#define QPC_hw_sq_wqebb_counter             MLX5_FIELD(45, 31, 16)
#define QPC_sw_sq_wqebb_counter             MLX5_FIELD(45, 15, 0)
#define QPC_hw_rq_counter                   MLX5_FIELD(46, 31, 0)
#define QPC_sw_rq_counter                   MLX5_FIELD(47, 31, 0)

enum {
    MLX5_QP_STATE_RST = 0,
    MLX5_QP_STATE_INIT = 1,
    MLX5_QP_STATE_RTR = 2,
    MLX5_QP_STATE_RTS = 3,
    MLX5_QP_STATE_SQER = 4,
    MLX5_QP_STATE_SQD = 5,
    MLX5_QP_STATE_ERR = 6,
};

enum {
    MLX5_QP_ST_RC = 0x0,
    MLX5_QP_ST_UC = 0x1,
    MLX5_QP_ST_UD = 0x2,
    MLX5_QP_ST_XRC = 0x3,
    MLX5_QP_ST_MLX = 0x4,
    MLX5_QP_ST_DCI = 0x5,
    MLX5_QP_ST_DCT = 0x6,
    MLX5_QP_ST_QP0 = 0x7,
    MLX5_QP_ST_QP1 = 0x8,
    MLX5_QP_ST_RAW_ETHERTYPE = 0x9,
    MLX5_QP_ST_REG_UMR = 0xc,
};

enum {
    MLX5_RQ_TYPE_REGULAR = 0,
    MLX5_RQ_TYPE_SRQ = 1,
    MLX5_RQ_TYPE_ZERO_SIZE_RQ = 3,
};

/* qpc.pm_state: path migration state */
enum {
    MLX5_QP_PM_ARMED = 0x0,
    MLX5_QP_PM_REARM = 0x1,
    MLX5_QP_PM_MIGRATED = 0x3,
};

/* MLX5_QP_OPTPAR_* */
enum {
    MLX5_QP_OPTPAR_ALT_ADDR_PATH = 1 << 0,
    MLX5_QP_OPTPAR_RRE = 1 << 1,
    MLX5_QP_OPTPAR_RAE = 1 << 2,
    MLX5_QP_OPTPAR_RWE = 1 << 3,
    MLX5_QP_OPTPAR_PKEY_INDEX = 1 << 4,
    MLX5_QP_OPTPAR_Q_KEY = 1 << 5,
    MLX5_QP_OPTPAR_RNR_TIMEOUT = 1 << 6,
    MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH = 1 << 7,
    MLX5_QP_OPTPAR_SRA_MAX = 1 << 8,
    MLX5_QP_OPTPAR_RRA_MAX = 1 << 9,
    MLX5_QP_OPTPAR_PM_STATE = 1 << 10,
    /* INIT2INIT: signature pipelining */
    MLX5_QP_OPTPAR_DRAIN_SIGERR = 1 << 11,
    MLX5_QP_OPTPAR_RETRY_COUNT = 1 << 12,
    MLX5_QP_OPTPAR_RNR_RETRY = 1 << 13,
    MLX5_QP_OPTPAR_ACK_TIMEOUT = 1 << 14,
    MLX5_QP_OPTPAR_PRI_PORT = 1 << 16,
    MLX5_QP_OPTPAR_SRQN = 1 << 18,
    MLX5_QP_OPTPAR_CQN_RCV = 1 << 19,
    MLX5_QP_OPTPAR_COUNTER_SET_ID = 1 << 25,
};

/* ---- signature offload: PSVs (CREATE_PSV/DESTROY_PSV) and the SIG_ERR CQE  */

#define CREATE_PSV_IN_num_psv               MLX5_FIELD(2, 31, 28)
#define CREATE_PSV_IN_pd                    MLX5_FIELD(2, 23, 0)
/* psv1..3 in the next dwords */
#define CREATE_PSV_OUT_psv0_index           MLX5_FIELD(4, 23, 0)
#define DESTROY_PSV_IN_psvn                 MLX5_FIELD(2, 23, 0)

#define MLX5_SIGERR_CQE_expected_trans_sig  0x10    /* be32 */
#define MLX5_SIGERR_CQE_actual_trans_sig    0x14
#define MLX5_SIGERR_CQE_expected_reftag     0x18
#define MLX5_SIGERR_CQE_actual_reftag       0x1c
#define MLX5_SIGERR_CQE_syndrome            0x20    /* be16 */
#define MLX5_SIGERR_CQE_sig_type            0x22
#define MLX5_SIGERR_CQE_domain              0x23
#define MLX5_SIGERR_CQE_mkey                0x24    /* be32 */
#define MLX5_SIGERR_CQE_sig_err_offset      0x28    /* be64 */
enum {
    MLX5_SIGERR_SYND_REFTAG = 1 << 11,
    MLX5_SIGERR_SYND_APPTAG = 1 << 12,
    MLX5_SIGERR_SYND_GUARD = 1 << 13,
};

/* ---- SRQ (ISSI 0 CREATE_SRQ) --------------------------------------------- */

#define CREATE_SRQ_SRQC_OFF                 0x10
#define SRQC_state                          MLX5_FIELD(0, 31, 28)
#define SRQC_log_srq_size                   MLX5_FIELD(0, 27, 24)
#define SRQC_wq_signature                   MLX5_FIELD(1, 31, 31)
#define SRQC_cont_srq                       MLX5_FIELD(1, 30, 30)
#define SRQC_rlky                           MLX5_FIELD(1, 28, 28)
#define SRQC_log_rq_stride                  MLX5_FIELD(1, 26, 24)
#define SRQC_xrcd                           MLX5_FIELD(1, 23, 0)
#define SRQC_page_offset                    MLX5_FIELD(2, 31, 26)
#define SRQC_cqn                            MLX5_FIELD(2, 23, 0)
#define SRQC_log_page_size                  MLX5_FIELD(4, 29, 24)
#define SRQC_pd                             MLX5_FIELD(6, 23, 0)
/* xrc_srqc only */
#define XRC_SRQC_user_index                 MLX5_FIELD(4, 23, 0)

/*
 * CREATE_RMP / MODIFY_RMP / QUERY_RMP (ISSI 1 SRQs): rmpc at 0x20, its wq at
 * 0x50
 */
#define CREATE_RMP_RMPC_OFF                 0x20
#define CREATE_RMP_WQ_OFF                   0x50
#define RMPC_state                          MLX5_FIELD(0, 23, 20)
#define MLX5_RMPC_STATE_RDY                 1
#define MODIFY_RMP_IN_rmp_state             MLX5_FIELD(2, 31, 28)
#define MODIFY_RMP_IN_rmpn                  MLX5_FIELD(2, 23, 0)
#define MODIFY_RMP_IN_bitmask_lwm           MLX5_FIELD(5, 0, 0)
#define WQ_wq_type                          MLX5_FIELD(0, 31, 28)
#define MLX5_WQ_TYPE_LINKED_LIST            0
#define WQ_page_offset                      MLX5_FIELD(1, 20, 16)
#define WQ_lwm                              MLX5_FIELD(1, 15, 0)
#define WQ_pd                               MLX5_FIELD(2, 23, 0)
#define WQ_dbr_addr_OFF                     0x10
#define WQ_log_wq_stride                    MLX5_FIELD(8, 19, 16)
#define WQ_log_wq_pg_sz                     MLX5_FIELD(8, 12, 8)
#define WQ_log_wq_sz                        MLX5_FIELD(8, 4, 0)
#define WQ_dbr_umem_valid                   MLX5_FIELD(9, 31, 31)
#define WQ_wq_umem_valid                    MLX5_FIELD(9, 30, 30)
#define WQ_dbr_umem_id                      MLX5_FIELD(10, 31, 0)
#define WQ_wq_umem_id                       MLX5_FIELD(11, 31, 0)
#define WQ_wq_umem_offset_OFF               0x30
#define SRQC_lwm                            MLX5_FIELD(7, 31, 16)
#define SRQC_wqe_cnt                        MLX5_FIELD(7, 15, 0)
#define SRQC_dbr_addr_OFF                   0x28
#define MLX5_SRQC_SIZE                      64
#define QUERY_SRQ_OUT_SIZE                  0x110
#define ARM_RQ_IN_srq_number                MLX5_FIELD(2, 23, 0)
#define ARM_RQ_IN_lwm                       MLX5_FIELD(3, 15, 0)

/* ---- MAD_IFC and HCA vport ----------------------------------------------- */

#define MAD_IFC_IN_remote_lid               MLX5_FIELD(2, 31, 16)
#define MAD_IFC_IN_port                     MLX5_FIELD(2, 7, 0)
#define MAD_IFC_MAD_OFF                     0x10
#define MAD_IFC_SIZE                        0x110
#define MLX5_MAD_SIZE                       256

#define QUERY_HCA_VPORT_CONTEXT_IN_other_vport  MLX5_FIELD(2, 31, 31)
#define QUERY_HCA_VPORT_CONTEXT_IN_port_num     MLX5_FIELD(2, 19, 16)
#define QUERY_HCA_VPORT_CONTEXT_IN_vport_number MLX5_FIELD(2, 15, 0)
#define QUERY_HCA_VPORT_CONTEXT_OUT_SIZE        0x210
#define HCA_VPORT_CTX_OFF                       0x10
#define HCA_VPORT_CTX_field_select              MLX5_FIELD(0, 31, 0)
enum {
    MLX5_HCA_VPORT_SEL_PORT_GUID = 1 << 0,
    MLX5_HCA_VPORT_SEL_NODE_GUID = 1 << 1,
    MLX5_HCA_VPORT_SEL_STATE_POLICY = 1 << 2,
};
#define HCA_VPORT_CTX_has_smi                   MLX5_FIELD(8, 30, 30)
#define HCA_VPORT_CTX_grh_required              MLX5_FIELD(8, 28, 28)
#define HCA_VPORT_CTX_port_physical_state       MLX5_FIELD(8, 15, 12)
#define HCA_VPORT_CTX_vport_state_policy        MLX5_FIELD(8, 11, 8)
#define HCA_VPORT_CTX_port_state                MLX5_FIELD(8, 7, 4)
#define HCA_VPORT_CTX_vport_state               MLX5_FIELD(8, 3, 0)
#define HCA_VPORT_CTX_system_image_guid_OFF     0x28
#define HCA_VPORT_CTX_port_guid_OFF             0x30
#define HCA_VPORT_CTX_node_guid_OFF             0x38
#define HCA_VPORT_CTX_cap_mask1                 MLX5_FIELD(16, 31, 0)
#define HCA_VPORT_CTX_cap_mask1_field_select    MLX5_FIELD(17, 31, 0)
#define HCA_VPORT_CTX_lid                       MLX5_FIELD(24, 31, 16)
#define HCA_VPORT_CTX_lmc                       MLX5_FIELD(24, 7, 5)
#define HCA_VPORT_CTX_subnet_timeout            MLX5_FIELD(24, 4, 0)
#define HCA_VPORT_CTX_sm_lid                    MLX5_FIELD(25, 31, 16)
#define HCA_VPORT_CTX_sm_sl                     MLX5_FIELD(25, 15, 12)

#define QUERY_HCA_VPORT_GID_IN_gid_index        MLX5_FIELD(3, 15, 0)
#define QUERY_HCA_VPORT_GID_OUT_gids_num        MLX5_FIELD(2, 31, 16)
#define QUERY_HCA_VPORT_PKEY_IN_pkey_index      MLX5_FIELD(3, 15, 0)

/* ---- ib_smp / MAD (offsets in the 256-byte MAD) -------------------------- */

#define IB_MAD_base_version                 0
#define IB_MAD_mgmt_class                   1
#define IB_MAD_class_version                2
#define IB_MAD_method                       3
#define IB_MAD_status                       4   /* be16 */
#define IB_MAD_attr_id                      16  /* be16 */
#define IB_MAD_attr_mod                     20  /* be32 */
#define IB_SMP_data                         64  /* 64 bytes */
#define IB_SMP_DATA_SIZE                    64

enum {
    IB_MGMT_CLASS_SUBN_LID_ROUTED = 0x01,
    IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE = 0x81,
    IB_MGMT_CLASS_PERF_MGMT = 0x04,
};

enum {
    IB_MGMT_METHOD_GET = 0x01,
    IB_MGMT_METHOD_SET = 0x02,
    IB_MGMT_METHOD_GET_RESP = 0x81,
};

#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB   0x000c
#define IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE        0x001c
/* in the status word of DR SMPs */
#define IB_SMP_DIRECTION                               0x8000

enum {
    IB_SMP_ATTR_NODE_DESC = 0x0010,
    IB_SMP_ATTR_NODE_INFO = 0x0011,
    IB_SMP_ATTR_SWITCH_INFO = 0x0012,
    IB_SMP_ATTR_GUID_INFO = 0x0014,
    IB_SMP_ATTR_PORT_INFO = 0x0015,
    IB_SMP_ATTR_PKEY_TABLE = 0x0016,
    IB_SMP_ATTR_SL_TO_VL_TABLE = 0x0017,
    IB_SMP_ATTR_VL_ARB_TABLE = 0x0018,
    IB_SMP_ATTR_SM_INFO = 0x0020,
    IB_SMP_ATTR_EXT_PORT_INFO = 0xff90,
};

enum {
    IB_PORT_STATE_DOWN = 1,
    IB_PORT_STATE_INIT = 2,
    IB_PORT_STATE_ARMED = 3,
    IB_PORT_STATE_ACTIVE = 4,
};

enum {
    IB_PORT_PHYS_STATE_POLLING = 2,
    IB_PORT_PHYS_STATE_LINK_UP = 5,
};

/* PortInfo CapabilityMask bits */
enum {
    IB_PORT_SM = 1 << 1,
    IB_PORT_NOTICE_SUP = 1 << 2,
    IB_PORT_TRAP_SUP = 1 << 3,
    IB_PORT_AUTO_MIGR_SUP = 1 << 5,
    IB_PORT_SL_MAP_SUP = 1 << 6,
    IB_PORT_LED_INFO_SUP = 1 << 10,
    IB_PORT_SYS_IMAGE_GUID_SUP = 1 << 11,
    IB_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
    IB_PORT_CM_SUP = 1 << 16,
    IB_PORT_DEVICE_MGMT_SUP = 1 << 19,
    IB_PORT_CLIENT_REG_SUP = 1 << 25,
};

/* ---- send WQEs (64-byte basic blocks of 16-byte segments) ---------------- */

#define MLX5_SEND_WQE_BB                64
#define MLX5_SEND_WQE_DS                16
#define MLX5_SEND_WQE_MAX_WQEBBS        16
/*
 * fm_ce_se: the completion mode CE (bits 3:2): 0 a CQE on error only, 1 on the
 * first error only (DPDK's MLX5_COMP_ONLY_FIRST_ERR, on every WQE it does not
 * want a completion for), 2 always, 3 always with an EQE. A CQE on success only
 * with bit 3 (CQ_UPDATE).
 */
#define MLX5_WQE_CTRL_CE_MASK           (3 << 2)
#define MLX5_WQE_CTRL_CQ_UPDATE         (2 << 2)
#define MLX5_WQE_CTRL_SOLICITED         (1 << 1)
#define MLX5_WQE_CTRL_FM_SHIFT          5
#define MLX5_INLINE_SEG                 0x80000000u
#define MLX5_EXTENDED_UD_AV             0x80000000u
#define MLX5_WQE_DATAGRAM_SEG_SIZE      48

enum {
    MLX5_OPCODE_NOP = 0x00,
    MLX5_OPCODE_SEND_INVAL = 0x01,
    MLX5_OPCODE_RDMA_WRITE = 0x08,
    MLX5_OPCODE_RDMA_WRITE_IMM = 0x09,
    MLX5_OPCODE_SEND = 0x0a,
    MLX5_OPCODE_SEND_IMM = 0x0b,
    MLX5_OPCODE_RDMA_READ = 0x10,
    MLX5_OPCODE_ATOMIC_CS = 0x11,
    MLX5_OPCODE_ATOMIC_FA = 0x12,
    MLX5_OPCODE_SET_PSV = 0x20,
    MLX5_OPCODE_UMR = 0x25,
};

/* ---- CQEs (64 bytes; in 128-byte CQEs the last 64 bytes) ----------------- */

#define MLX5_CQE_SIZE                   64
#define MLX5_CQE_rss_hash_result        0x0c    /* be32 */
#define MLX5_CQE_rss_hash_type          0x10
#define MLX5_CQE_ml_path                17
#define MLX5_CQE_check_sum              0x14    /* be16 */
#define MLX5_CQE_slid                   22      /* be16 */
#define MLX5_CQE_flags_rqpn             24      /* be32 */
/* bit 0: VLAN tag (vlan_info) */
#define MLX5_CQE_l4_l3_hdr_type         29
#define MLX5_CQE_vlan_info              30      /* be16 */
#define MLX5_CQE_srqn_uidx              32      /* be32 */
#define MLX5_CQE_imm_inval_pkey         36      /* be32 */
#define MLX5_CQE_byte_cnt               44      /* be32 */
#define MLX5_CQE_timestamp              48      /* be64 */
#define MLX5_CQE_vendor_err_synd        54
#define MLX5_CQE_syndrome               55
#define MLX5_CQE_sop_drop_qpn           56      /* be32 */
#define MLX5_CQE_wqe_counter            60      /* be16 */
#define MLX5_CQE_op_own                 63
/* op_own bits 3:2, the CQE format: 3 = the title of a compressed session */
#define MLX5_CQE_FORMAT_SHIFT           2
#define MLX5_CQE_FORMAT_COMPRESSED      3
/* CQE compression: a mini CQE is 8 bytes, 8 of them fill a CQE slot */
#define MLX5_MINI_CQE_SIZE              8
#define MLX5_MINI_CQE_ARRAY             8
/* cqc.mini_cqe_res_format: what a mini CQE's first dword holds */
enum {
    MLX5_MINI_CQE_HASH = 0,             /* rx_hash_result */
    MLX5_MINI_CQE_CSUM = 1,             /* check_sum, 0 */
    MLX5_MINI_CQE_FTAG_STRIDX = 2,      /* flow tag (not offered) */
    MLX5_MINI_CQE_CSUM_STRIDX = 3,      /* check_sum, stride index */
};

enum {
    MLX5_CQE_REQ = 0,
    MLX5_CQE_RESP_WR_IMM = 1,
    MLX5_CQE_RESP_SEND = 2,
    MLX5_CQE_RESP_SEND_IMM = 3,
    MLX5_CQE_RESP_SEND_INV = 4,
    MLX5_CQE_SIG_ERR = 12,
    MLX5_CQE_REQ_ERR = 13,
    MLX5_CQE_RESP_ERR = 14,
    MLX5_CQE_INVALID = 15,
};

/* error CQE syndromes */
enum {
    MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR = 0x01,
    MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR = 0x02,
    MLX5_CQE_SYNDROME_LOCAL_PROT_ERR = 0x04,
    MLX5_CQE_SYNDROME_WR_FLUSH_ERR = 0x05,
    MLX5_CQE_SYNDROME_MW_BIND_ERR = 0x06,
    MLX5_CQE_SYNDROME_BAD_RESP_ERR = 0x10,
    MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR = 0x11,
    MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR = 0x12,
    MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR = 0x13,
    MLX5_CQE_SYNDROME_REMOTE_OP_ERR = 0x14,
    MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR = 0x15,
    MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR = 0x16,
};

/*
 * affiliated async event data: resource type at EQE byte 0x34, number at 0x38
 */
#define MLX5_EQE_rsc_type               0x34
#define MLX5_EQE_qp_srq_n               0x38
enum {
    MLX5_EVENT_QUEUE_TYPE_QP = 0,
    MLX5_EVENT_QUEUE_TYPE_RQ = 1,
    MLX5_EVENT_QUEUE_TYPE_SQ = 2,
};

#endif
