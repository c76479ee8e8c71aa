/*
 * Fuzz target: the command interface of the E-Switch manager (eth/mlx5_eswitch.c). fuzz-cmd.c's
 * records and oracles on an Ethernet PF with two VFs attached, enabled and up
 * (fz_node_new_esw): its FDB tables and their vport destinations, vport states, L2 table
 * entries, other vports' contexts and event arming, other functions' caps and ENABLE/DISABLE
 * of its VFs, with a frame each way between the VFs after every command (through the FDB once
 * one is rooted), and the VFs alive and answering at the end (the extra oracle). Its seed
 * corpus is cmd-eth's and a recorded legacy E-Switch bring-up.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define FZ_CMD_ETH 1
#define FZ_CMD_ESW 1
#include "fuzz-cmd.c"
