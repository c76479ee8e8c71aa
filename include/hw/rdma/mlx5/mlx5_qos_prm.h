/*
 * mlx5 PRM: packet pacing (the QoS capability page, SET_PP_RATE_LIMIT and the
 * SQ's rate limit index). Same conventions as mlx5_prm.h: (dword, high bit,
 * low bit) triples named after mlx5_ifc.h, relative to the named structure.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_QOS_PRM_H
#define HW_RDMA_MLX5_QOS_PRM_H

#include "hw/rdma/mlx5/mlx5_prm.h"

enum {
    MLX5_CMD_OP_SET_PP_RATE_LIMIT = 0x780,
};

/* cap type (QUERY_HCA_CAP op_mod >> 1) */
enum {
    MLX5_CAP_QOS = 0xc,
};

/* cmd_hca_cap: the QoS page exists */
#define CAP_qos                             MLX5_FIELD(16, 4, 4)

/* qos_cap */
#define QOS_CAP_packet_pacing               MLX5_FIELD(0, 31, 31)
#define QOS_CAP_packet_pacing_burst_bound   MLX5_FIELD(0, 26, 26)
#define QOS_CAP_packet_pacing_typical_size  MLX5_FIELD(0, 25, 25)
/* SET_PP_RATE_LIMIT carries the uid of a DevX context (mlx5_ib's PP object) */
#define QOS_CAP_packet_pacing_uid           MLX5_FIELD(0, 20, 20)
#define QOS_CAP_packet_pacing_max_rate      MLX5_FIELD(2, 31, 0)    /* kbps */
#define QOS_CAP_packet_pacing_min_rate      MLX5_FIELD(3, 31, 0)    /* kbps */
/* entries, the first (index 0: no limit) included */
#define QOS_CAP_packet_pacing_rate_table_size MLX5_FIELD(4, 15, 0)

/* SET_PP_RATE_LIMIT in (0x40 bytes); the context at 0x10 */
#define PP_IN_rate_limit_index              MLX5_FIELD(2, 15, 0)
#define PP_IN_CTX_OFF                       0x10
#define PP_CTX_SIZE                         0x30
/* set_pp_rate_limit_context: all zero clears the entry */
#define PP_CTX_rate_limit                   MLX5_FIELD(0, 31, 0)    /* kbps */
#define PP_CTX_burst_upper_bound            MLX5_FIELD(1, 31, 0)    /* bytes */
#define PP_CTX_typical_packet_size          MLX5_FIELD(2, 15, 0)    /* bytes */

/* sqc */
#define SQC_packet_pacing_rate_limit_index  MLX5_FIELD(7, 15, 0)
/* MODIFY_SQ modify_bitmask */
#define MLX5_MODIFY_SQ_BITMASK_PP_RATE_LIMIT_INDEX 0x1

#endif
