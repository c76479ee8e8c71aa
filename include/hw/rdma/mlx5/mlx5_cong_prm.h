/*
 * mlx5 PRM: the congestion control commands (QUERY/MODIFY_CONG_STATUS,
 * QUERY/MODIFY_CONG_PARAMS, QUERY_CONG_STATISTICS) and the RoCE ECN
 * parameter blocks of the reaction point and the notification point.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_CONG_PRM_H
#define HW_RDMA_MLX5_CONG_PRM_H

#include "hw/rdma/mlx5/mlx5_prm.h"

/* cong_protocol: which node's state a command is about */
enum {
    MLX5_CONG_RROCE_ECN_RP = 1,     /* reaction point (the sender) */
    MLX5_CONG_RROCE_ECN_NP = 2,     /* notification point (the receiver) */
};

/* QUERY_CONG_STATUS / MODIFY_CONG_STATUS (in and out 0x10 bytes) */
#define CONG_STATUS_IN_priority             MLX5_FIELD(2, 7, 4)
#define CONG_STATUS_IN_cong_protocol        MLX5_FIELD(2, 3, 0)
#define CONG_STATUS_IN_enable               MLX5_FIELD(3, 31, 31)
#define CONG_STATUS_IN_tag_enable           MLX5_FIELD(3, 30, 30)
#define CONG_STATUS_OUT_enable              MLX5_FIELD(3, 31, 31)
#define CONG_STATUS_OUT_tag_enable          MLX5_FIELD(3, 30, 30)

/* QUERY_CONG_PARAMS: in 0x10 bytes; out: the parameter block at 0x10 */
#define CONG_PARAMS_IN_cong_protocol        MLX5_FIELD(2, 3, 0)
#define CONG_PARAMS_OUT_BLOCK               0x10
/* MODIFY_CONG_PARAMS: the fields to change, and the block at 0x20 */
#define CONG_PARAMS_MOD_field_select        MLX5_FIELD(3, 31, 0)
#define CONG_PARAMS_MOD_BLOCK               0x20
#define CONG_PARAMS_BLOCK_SIZE              0x100

/* the reaction point's block (cong_control_r_roce_ecn_rp) */
#define CONG_RP_clamp_tgt_rate              MLX5_FIELD(3, 27, 27)
#define CONG_RP_clamp_tgt_rate_after_time_inc MLX5_FIELD(3, 23, 23)
#define CONG_RP_rpg_time_reset              MLX5_FIELD(5, 31, 0)
#define CONG_RP_rpg_byte_reset              MLX5_FIELD(6, 31, 0)
#define CONG_RP_rpg_threshold               MLX5_FIELD(7, 31, 0)
#define CONG_RP_rpg_max_rate                MLX5_FIELD(8, 31, 0)
#define CONG_RP_rpg_ai_rate                 MLX5_FIELD(9, 31, 0)
#define CONG_RP_rpg_hai_rate                MLX5_FIELD(10, 31, 0)
#define CONG_RP_rpg_gd                      MLX5_FIELD(11, 31, 0)
#define CONG_RP_rpg_min_dec_fac             MLX5_FIELD(12, 31, 0)
#define CONG_RP_rpg_min_rate                MLX5_FIELD(13, 31, 0)
#define CONG_RP_rate_to_set_on_first_cnp    MLX5_FIELD(21, 31, 0)
#define CONG_RP_dce_tcp_g                   MLX5_FIELD(22, 31, 0)
#define CONG_RP_dce_tcp_rtt                 MLX5_FIELD(23, 31, 0)
#define CONG_RP_rate_reduce_monitor_period  MLX5_FIELD(24, 31, 0)
#define CONG_RP_initial_alpha_value         MLX5_FIELD(26, 31, 0)
/* MODIFY_CONG_PARAMS field_select bits of the RP block */
enum {
    MLX5_CONG_RP_SEL_CLAMP_TGT_RATE = 1 << 1,
    MLX5_CONG_RP_SEL_CLAMP_TGT_RATE_ATI = 1 << 2,
    MLX5_CONG_RP_SEL_TIME_RESET = 1 << 3,
    MLX5_CONG_RP_SEL_BYTE_RESET = 1 << 4,
    MLX5_CONG_RP_SEL_THRESHOLD = 1 << 5,
    MLX5_CONG_RP_SEL_MAX_RATE = 1 << 6,
    MLX5_CONG_RP_SEL_AI_RATE = 1 << 7,
    MLX5_CONG_RP_SEL_HAI_RATE = 1 << 8,
    MLX5_CONG_RP_SEL_MIN_DEC_FAC = 1 << 9,
    MLX5_CONG_RP_SEL_MIN_RATE = 1 << 10,
    MLX5_CONG_RP_SEL_RATE_FIRST_CNP = 1 << 11,
    MLX5_CONG_RP_SEL_DCE_TCP_G = 1 << 12,
    MLX5_CONG_RP_SEL_DCE_TCP_RTT = 1 << 13,
    MLX5_CONG_RP_SEL_REDUCE_PERIOD = 1 << 14,
    MLX5_CONG_RP_SEL_INITIAL_ALPHA = 1 << 15,
    MLX5_CONG_RP_SEL_GD = 1 << 16,
};

/* the notification point's block (cong_control_r_roce_ecn_np) */
#define CONG_NP_min_time_between_cnps       MLX5_FIELD(5, 31, 0)
#define CONG_NP_cnp_dscp                    MLX5_FIELD(6, 13, 8)
#define CONG_NP_cnp_prio_mode               MLX5_FIELD(6, 3, 3)
#define CONG_NP_cnp_802p_prio               MLX5_FIELD(6, 2, 0)
enum {
    MLX5_CONG_NP_SEL_MIN_TIME = 1 << 2,
    MLX5_CONG_NP_SEL_CNP_DSCP = 1 << 3,
    /* cnp_prio_mode and cnp_802p_prio */
    MLX5_CONG_NP_SEL_CNP_PRIO = 1 << 4,
};

/* QUERY_CONG_STATISTICS: in 0x10 bytes; out 0x110 (64-bit counters) */
#define CONG_STATS_IN_clear                 MLX5_FIELD(2, 31, 31)
#define CONG_STATS_OUT_SIZE                 0x110
#define CONG_STATS_OUT_rp_cnp_ignored_OFF   0x18
#define CONG_STATS_OUT_rp_cnp_handled_OFF   0x20
#define CONG_STATS_OUT_time_stamp_OFF       0x48
#define CONG_STATS_OUT_np_ecn_marked_roce_packets_OFF 0x54
#define CONG_STATS_OUT_np_cnp_sent_OFF      0x5c

#endif
