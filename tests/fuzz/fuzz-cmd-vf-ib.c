/*
 * Fuzz target: the command interface of a virtual function of an InfiniBand PF
 * (mlx5_vport_ib.c: its HCA vport context, GID and P_Key tables, the port
 * registers, its QPN range). fuzz-cmd.c's records and oracles on such a VF
 * (fz_node_new_vf_ib: enabled by its PF, no objects); its commands reach only
 * its own function, and its PF stays alive and answers. Its seed corpus:
 * cmd-vf's inputs that add coverage here (libFuzzer's merge).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define FZ_CMD_VF 1
#define FZ_CMD_VF_IB 1
#include "fuzz-cmd.c"
