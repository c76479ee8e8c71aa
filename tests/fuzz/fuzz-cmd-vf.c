/*
 * Fuzz target: the command interface of a virtual function (mlx5_sriov.c). fuzz-cmd.c's
 * records and oracles on a VF of an Ethernet PF (fz_node_new_vf: enabled by its PF, roce_en,
 * two GIDs, no objects): its commands reach only its own function, and its PF stays alive and
 * answers (the extra oracle). Its seed corpus is cmd-eth's: a VF's driver is mlx5e's and
 * mlx5_ib's as on the PF.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define FZ_CMD_ETH 1
#define FZ_CMD_VF 1
#include "fuzz-cmd.c"
