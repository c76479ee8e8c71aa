/*
 * Fuzz target: the command interface of an Ethernet port (link-type=eth). fuzz-cmd.c's records
 * and oracles on a node whose port is Ethernet (fz_node_new_eth: link up, roce_en set, two
 * GIDs, no objects), so that the commands only an Ethernet port answers are reached: NIC vport
 * context and counters, TIS, TIR, RQT, SQ, RQ, flow tables, groups and entries (op_mod 1
 * updates included), SET/QUERY_ROCE_ADDRESS and the port's access registers. Its seed corpus
 * is mlx5e's and mlx5_ib's commands recorded from the Ethernet guest tests
 * (scripts/fuzz.sh --record eth ...).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define FZ_CMD_ETH 1
#include "fuzz-cmd.c"
