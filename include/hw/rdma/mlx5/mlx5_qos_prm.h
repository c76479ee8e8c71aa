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
    MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT = 0x782,
    MLX5_CMD_OP_DESTROY_SCHEDULING_ELEMENT = 0x783,
    MLX5_CMD_OP_QUERY_SCHEDULING_ELEMENT = 0x784,
    MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT = 0x785,
};

/* cap type (QUERY_HCA_CAP op_mod >> 1) */
enum {
    MLX5_CAP_QOS = 0xc,
};

/* cmd_hca_cap: the QoS page exists */
#define CAP_qos                             MLX5_FIELD(16, 4, 4)

/* qos_cap */
#define QOS_CAP_packet_pacing               MLX5_FIELD(0, 31, 31)
#define QOS_CAP_esw_scheduling              MLX5_FIELD(0, 30, 30)
#define QOS_CAP_esw_bw_share                MLX5_FIELD(0, 29, 29)
#define QOS_CAP_esw_rate_limit              MLX5_FIELD(0, 28, 28)
#define QOS_CAP_log_esw_max_sched_depth     MLX5_FIELD(0, 19, 16)
#define QOS_CAP_packet_pacing_burst_bound   MLX5_FIELD(0, 26, 26)
#define QOS_CAP_packet_pacing_typical_size  MLX5_FIELD(0, 25, 25)
/* SET_PP_RATE_LIMIT carries the uid of a DevX context (mlx5_ib's PP object) */
#define QOS_CAP_packet_pacing_uid           MLX5_FIELD(0, 20, 20)
/* the legacy flow meter (mlx5_meter.c): srTCM, how many, its registers */
#define QOS_CAP_flow_meter_old              MLX5_FIELD(0, 24, 24)
#define QOS_CAP_log_max_flow_meter          MLX5_FIELD(0, 15, 8)
/* (reg_c_i: bit i) */
#define QOS_CAP_flow_meter_reg_id           MLX5_FIELD(0, 7, 0)
#define QOS_CAP_packet_pacing_max_rate      MLX5_FIELD(2, 31, 0)    /* kbps */
#define QOS_CAP_packet_pacing_min_rate      MLX5_FIELD(3, 31, 0)    /* kbps */
/* entries, the first (index 0: no limit) included */
#define QOS_CAP_packet_pacing_rate_table_size MLX5_FIELD(4, 15, 0)

#define QOS_CAP_esw_element_type            MLX5_FIELD(5, 31, 16)
#define QOS_CAP_esw_tsar_type               MLX5_FIELD(5, 15, 0)
#define QOS_CAP_max_tsar_bw_share           MLX5_FIELD(7, 31, 0)

/*
 * CREATE/DESTROY/QUERY/MODIFY_SCHEDULING_ELEMENT: the hierarchy, the element
 * (MODIFY's bitmask), and the scheduling context at SCHED_IN_CTX_OFF (QUERY's
 * output: SCHED_OUT_CTX_OFF)
 */
#define SCHED_IN_hierarchy                  MLX5_FIELD(2, 31, 24)
#define SCHED_IN_element_id                 MLX5_FIELD(3, 31, 0)
#define SCHED_IN_modify_bitmask             MLX5_FIELD(5, 31, 0)
#define SCHED_IN_CTX_OFF                    0x20
#define SCHED_IN_SIZE                       0x80    /* CREATE, MODIFY */
#define SCHED_IN_ID_SIZE                    0x40    /* DESTROY, QUERY */
#define SCHED_OUT_element_id                MLX5_FIELD(4, 31, 0)
#define SCHED_OUT_CTX_OFF                   0x20
#define SCHED_CTX_SIZE                      0x40
#define SCHED_CTX_element_type              MLX5_FIELD(0, 31, 24)
#define SCHED_CTX_tsar_type                 MLX5_FIELD(1, 23, 16)
#define SCHED_CTX_vport_number              MLX5_FIELD(1, 15, 0)
#define SCHED_CTX_parent_element_id         MLX5_FIELD(2, 31, 0)
#define SCHED_CTX_bw_share                  MLX5_FIELD(5, 31, 0)
#define SCHED_CTX_max_average_bw            MLX5_FIELD(6, 31, 0)    /* Mb/s */
enum {
    MLX5_SCHED_HIERARCHY_E_SWITCH = 0x2,
    MLX5_SCHED_ELEM_TSAR = 0x0,
    MLX5_SCHED_ELEM_VPORT = 0x1,
    MLX5_SCHED_TSAR_DWRR = 0x0,
    MLX5_SCHED_MODIFY_BW_SHARE = 0x1,
    MLX5_SCHED_MODIFY_MAX_AVERAGE_BW = 0x2,
};

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
