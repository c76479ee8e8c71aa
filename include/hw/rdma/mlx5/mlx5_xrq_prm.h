/*
 * mlx5 PRM: the tag-matching XRQ (CREATE/DESTROY/QUERY_XRQ), its list
 * operations (the TAG_MATCHING send WQE) and the tag-matching CQE fields.
 * Layouts from mlx5_ifc.h and mlx5dv.h; offsets in bytes, MLX5_FIELD(dword,
 * high bit, low bit) within big-endian dwords.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_XRQ_PRM_H
#define HW_RDMA_MLX5_XRQ_PRM_H

/* general caps (dword 47) */
#define CAP_tag_matching                    MLX5_FIELD(47, 15, 15)
#define CAP_rndv_offload_rc                 MLX5_FIELD(47, 14, 14)
#define CAP_rndv_offload_dc                 MLX5_FIELD(47, 13, 13)
#define CAP_log_tag_matching_list_sz        MLX5_FIELD(47, 12, 8)
#define CAP_log_max_xrq                     MLX5_FIELD(47, 4, 0)

enum {
    MLX5_CMD_OP_CREATE_XRQ = 0x717,
    MLX5_CMD_OP_DESTROY_XRQ = 0x718,
    MLX5_CMD_OP_QUERY_XRQ = 0x719,
};

/* CREATE_XRQ: the xrqc at 0x10, its wq at 0x90, the page list at 0x150 */
#define CREATE_XRQ_XRQC_OFF                 0x10
#define CREATE_XRQ_WQ_OFF                   0x90
#define CREATE_XRQ_PAS_OFF                  0x150
#define XRQC_state                          MLX5_FIELD(0, 31, 28)
#define XRQC_rlkey                          MLX5_FIELD(0, 27, 27)
#define XRQC_topology                       MLX5_FIELD(0, 11, 8)
#define XRQC_offload                        MLX5_FIELD(0, 3, 0)
#define XRQC_user_index                     MLX5_FIELD(1, 23, 0)
#define XRQC_cqn                            MLX5_FIELD(2, 23, 0)
#define XRQC_log_matching_list_sz           MLX5_FIELD(8, 31, 28)
#define XRQC_append_next_index              MLX5_FIELD(8, 15, 0)
#define XRQC_sw_phase_cnt                   MLX5_FIELD(9, 31, 16)
#define XRQC_hw_phase_cnt                   MLX5_FIELD(9, 15, 0)
#define MLX5_XRQC_TOPOLOGY_NO_SPECIAL       0
#define MLX5_XRQC_TOPOLOGY_TAG_MATCHING     1
#define MLX5_XRQC_OFFLOAD_RNDV              1
#define MLX5_ARM_RQ_OP_MOD_XRQ              2

/* QPC: rendezvous offload on a QP with no send queue */
#define QPC_offload_type                    MLX5_FIELD(0, 7, 4)
#define MLX5_QPC_OFFLOAD_TYPE_RNDV          1

/* the TAG_MATCHING send WQE: ctrl, then this segment, then a data segment */
#define MLX5_OPCODE_TAG_MATCHING            0x28
#define MLX5_TM_SEG                         16
#define MLX5_TM_SEG_opcode                  0       /* op << 4 */
#define MLX5_TM_SEG_flags                   1
#define MLX5_TM_SEG_index                   2       /* be16 */
#define MLX5_TM_SEG_sw_cnt                  6       /* be16 */
#define MLX5_TM_SEG_append_tag              16      /* be64 */
#define MLX5_TM_SEG_append_mask             24      /* be64 */
#define MLX5_TM_SEG_data                    32      /* a data segment */
enum {
    MLX5_TM_OPCODE_NOP = 0,
    MLX5_TM_OPCODE_APPEND = 1,
    MLX5_TM_OPCODE_REMOVE = 2,
};
#define MLX5_TM_FLAG_CQE_REQ                0x80
#define MLX5_TM_FLAG_SW_CNT                 0x40

/* tag-matching CQEs */
#define MLX5_CQE_NO_PACKET                  6
#define MLX5_CQE_tm_success                 0       /* be32, bit 31 */
#define MLX5_CQE_tm_hw_phase_cnt            4       /* be16 */
#define MLX5_CQE_tmh                        0       /* 16 bytes: the TMH */
#define MLX5_CQE_app                        40
#define MLX5_CQE_app_op                     41
#define MLX5_CQE_app_info                   42      /* be16: the list index */
#define MLX5_CQE_APP_TAG_MATCHING           1
enum {
    MLX5_CQE_APP_OP_TM_CONSUMED = 0x1,
    MLX5_CQE_APP_OP_TM_EXPECTED = 0x2,
    MLX5_CQE_APP_OP_TM_UNEXPECTED = 0x3,
    MLX5_CQE_APP_OP_TM_NO_TAG = 0x4,
    MLX5_CQE_APP_OP_TM_APPEND = 0x5,
    MLX5_CQE_APP_OP_TM_REMOVE = 0x6,
    MLX5_CQE_APP_OP_TM_NOOP = 0x7,
    MLX5_CQE_APP_OP_TM_CONSUMED_MSG = 0xa,
    MLX5_CQE_APP_OP_TM_CONSUMED_MSG_SW_RDNV = 0xb,
    MLX5_CQE_APP_OP_TM_MSG_COMPLETION_CANCELED = 0xc,
};

/* the message's headers (libibverbs tm_types.h): TMH, then RVH for RNDV */
#define MLX5_TMH_SIZE                       16
#define MLX5_TMH_opcode                     0
#define MLX5_TMH_app_ctx                    4       /* be32 */
#define MLX5_TMH_tag                        8       /* be64 */
#define MLX5_RVH_va                         16      /* be64 */
#define MLX5_RVH_rkey                       24      /* be32 */
#define MLX5_RVH_len                        28      /* be32 */
#define MLX5_RNDV_HDR_SIZE                  32
enum {
    MLX5_TMH_NO_TAG = 0,
    MLX5_TMH_RNDV = 1,
    MLX5_TMH_FIN = 2,
    MLX5_TMH_EAGER = 3,
};

#endif
