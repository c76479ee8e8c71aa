/*
 * mlx5 HCA core: function bring-up and teardown commands (ENABLE/DISABLE_HCA,
 * ISSI, pages, capabilities, INIT/TEARDOWN_HCA, QUERY_ADAPTER,
 * SET_DRIVER_VERSION, ACCESS_REG).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "trace.h"

/* ISSI 0 (SRQs via CREATE_SRQ) and 1 (RMPs, XRC SRQs) */
#define MLX5_SUPPORTED_ISSI     0x3

void mlx5_cmd_enable_hca(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned fid;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    fid = MLX5_GET(cmd->in, ENABLE_HCA_IN_function_id);
    if (fid != 0) {
        /* a VF of this PF, before its PCI VF Enable (mlx5_sriov.c) */
        mlx5_sriov_enable_hca(c, cmd, fid, true);
        return;
    }
    c->hca_enabled = true;
}

void mlx5_cmd_disable_hca(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned fid;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    fid = MLX5_GET(cmd->in, ENABLE_HCA_IN_function_id);
    if (fid != 0) {
        mlx5_sriov_enable_hca(c, cmd, fid, false);
        return;
    }
    /*
     * back to the pre-ENABLE_HCA state: every object, EQ, UAR, page and cap is
     * dropped
     */
    mlx5_function_reset(c);
}

void mlx5_cmd_query_issi(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (!mlx5_cmd_out_ok(cmd, QUERY_ISSI_OUT_SIZE)) {
        return;
    }
    MLX5_SET(cmd->out, QUERY_ISSI_OUT_current_issi, c->issi);
    MLX5_SET(cmd->out, QUERY_ISSI_OUT_supported_issi_dw0, MLX5_SUPPORTED_ISSI);
}

void mlx5_cmd_set_issi(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t issi;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    issi = MLX5_GET(cmd->in, SET_ISSI_IN_current_issi);
    if (issi >= 32 || !(MLX5_SUPPORTED_ISSI & (1u << issi))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_ISSI);
        return;
    }
    c->issi = issi;
}

void mlx5_cmd_query_pages(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (!mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (cmd->op_mod < 1 || cmd->op_mod > 3) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
    /*
     * the emulated firmware keeps its state in QEMU: it never needs host pages
     */
    MLX5_SET(cmd->out, QUERY_PAGES_OUT_function_id, 0);
    MLX5_SET(cmd->out, QUERY_PAGES_OUT_num_pages, 0);
}

void mlx5_cmd_manage_pages(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t n;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    n = MLX5_GET(cmd->in, MANAGE_PAGES_IN_input_num_entries);
    switch (cmd->op_mod) {
    case MLX5_PAGES_CANT_GIVE:
        break;
    case MLX5_PAGES_GIVE:
        /* accepted (and accounted) although never requested */
        if (n > MLX5_MAX_PAGES - c->pages_given) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_PAGES);
            return;
        }
        if (!mlx5_cmd_in_ok(cmd, MANAGE_PAGES_PAS_OFF + 8 * n)) {
            return;
        }
        c->pages_given += n;
        break;
    case MLX5_PAGES_TAKE:
        /*
         * Given pages are never used, so any of them may be returned; we return
         * none we were not given. Returning page addresses requires remembering
         * them: we only accept a TAKE when nothing is outstanding.
         */
        if (c->pages_given) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_PAGES);
            return;
        }
        MLX5_SET(cmd->out, MANAGE_PAGES_OUT_output_num_entries, 0);
        break;
    default:
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
    trace_mlx5_cmd_manage_pages(cmd->op_mod, n, c->pages_given);
}

void mlx5_cmd_query_hca_cap(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned type = cmd->op_mod >> 1;
    bool cur = cmd->op_mod & 1;
    uint8_t cap[HCA_CAP_SIZE];

    /*
     * The page is cut to the output the caller gave: DevX users (pyverbs) ask
     * with a structure that covers only the fields they read. The kernel always
     * takes all of it.
     */
    if (!mlx5_cmd_out_ok(cmd, HCA_CAP_OFF)) {
        return;
    }
    if (mlx5_cmd_in_ok(cmd, 0x10) &&
        MLX5_GET(cmd->in, QUERY_HCA_CAP_IN_other_function)) {
        /*
         * another function's: a PF's kernel asks for one of its VFs (the
         * E-Switch's vport setup); nobody else sees another function's
         */
        unsigned fid = MLX5_GET(cmd->in, QUERY_HCA_CAP_IN_function_id);
        Mlx5Core *vf = !c->cfg.vf && !cmd->uid && fid >= 1 &&
                       fid <= c->cfg.num_vfs ? c->vfs[fid - 1] : NULL;

        if (!vf) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_FUNCTION);
            return;
        }
        c = vf;
    }
    if (cur && type == MLX5_CAP_GENERAL) {
        memcpy(cap, c->cap_general_cur, HCA_CAP_SIZE);
    } else if (cur && type == MLX5_CAP_ATOMIC) {
        memcpy(cap, c->cap_atomic_cur, HCA_CAP_SIZE);
    } else if (cur && type == MLX5_CAP_ODP) {
        memcpy(cap, c->cap_odp_cur, HCA_CAP_SIZE);
    } else {
        mlx5_caps_build(&c->cfg, type, cap, cur);
    }
    memcpy(cmd->out + HCA_CAP_OFF, cap,
           MIN((uint32_t)HCA_CAP_SIZE, cmd->outlen - HCA_CAP_OFF));
}

/*
 * SET_HCA_CAP(GENERAL): apply the driver-writable fields, each checked against
 * max.
 */
static void mlx5_set_cap_general(Mlx5Core *c, Mlx5CmdCtx *cmd,
                                 const uint8_t *in)
{
    uint8_t *cur = c->cap_general_cur;
    uint32_t log_max_qp = MLX5_GET(in, CAP_log_max_qp);
    uint32_t log_uar_page_sz = MLX5_GET(in, CAP_log_uar_page_sz);

    if (log_max_qp > c->cfg.log_max_qp || log_max_qp < 1 ||
        MLX5_GET(in, CAP_uar_4k) || log_uar_page_sz > 4 ||
        MLX5_GET(in, CAP_pkey_table_size) !=
            MLX5_GET(cur, CAP_pkey_table_size)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    MLX5_SET(cur, CAP_log_max_qp, log_max_qp);
    MLX5_SET(cur, CAP_log_uar_page_sz, log_uar_page_sz);
    /* supported: the max image has it */
    MLX5_SET(cur, CAP_dct, MLX5_GET(in, CAP_dct));
    MLX5_SET(cur, CAP_cmdif_checksum, MLX5_GET(in, CAP_cmdif_checksum));
    MLX5_SET(cur, CAP_cache_line_128byte, MLX5_GET(in, CAP_cache_line_128byte));
    /* the sync firmware reset's events (mlx5_fw_reset.c) */
    MLX5_SET(cur, CAP_pci_sync_for_fw_update_event,
             MLX5_GET(in, CAP_pci_sync_for_fw_update_event));
}

void mlx5_cmd_set_hca_cap(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *in = cmd->in + HCA_CAP_OFF;
    uint32_t mode;

    if (!mlx5_cmd_in_ok(cmd, HCA_CAP_OFF + 0x100)) {
        return;
    }
    if (c->hca_initialized) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
                      MLX5_SYND_ALREADY_INITIALIZED);
        return;
    }
    switch (cmd->op_mod >> 1) {
    case MLX5_CAP_GENERAL:
        mlx5_set_cap_general(c, cmd, in);
        break;
    case MLX5_CAP_ATOMIC:
        mode = MLX5_GET(in, ATOMIC_CAP_atomic_req_8B_endianness_mode);
        if (mode > 1) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_UNSUPPORTED);
            return;
        }
        MLX5_SET(c->cap_atomic_cur, ATOMIC_CAP_atomic_req_8B_endianness_mode,
                 mode);
        break;
    case MLX5_CAP_ODP:
        mode = mlx5_set_cap_odp(c, in);
        if (mode) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, mode);
            return;
        }
        break;
    default:
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
}

void mlx5_cmd_init_hca(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (c->hca_initialized) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
                      MLX5_SYND_ALREADY_INITIALIZED);
        return;
    }
    c->hca_initialized = true;
}

void mlx5_cmd_teardown_hca(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t profile;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    /*
     * GRACEFUL_CLOSE, or PREPARE_FAST_TEARDOWN (fast_teardown): the driver then
     * writes NIC interface DISABLED, which tears the function down
     * (mlx5_core.c); its EQs stay until then, for this command's completion.
     * No force_teardown.
     */
    profile = MLX5_GET(cmd->in, TEARDOWN_HCA_IN_profile);
    if (profile != MLX5_TEARDOWN_GRACEFUL_CLOSE &&
        profile != MLX5_TEARDOWN_PREPARE_FAST) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    if (profile == MLX5_TEARDOWN_GRACEFUL_CLOSE) {
        mlx5_res_reset(c);
        c->hca_initialized = false;
    }
    MLX5_SET(cmd->out, TEARDOWN_HCA_OUT_state, 0);
}

void mlx5_cmd_query_adapter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (!mlx5_cmd_out_ok(cmd, QUERY_ADAPTER_OUT_SIZE)) {
        return;
    }
    MLX5_SET(cmd->out, QUERY_ADAPTER_OUT_ieee_vendor_id, MLX5_IEEE_VENDOR_ID);
    memcpy(cmd->out + QUERY_ADAPTER_OUT_vsd_contd_psid, c->cfg.board_id,
           MIN(strlen(c->cfg.board_id), 16));
}

void mlx5_cmd_set_driver_version(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    char ver[65] = { 0 };

    if (cmd->inlen >= 0x50) {
        memcpy(ver, cmd->in + 0x10, 64);
    }
    trace_mlx5_cmd_driver_version(ver);
}

/*
 * QUERY_LAG: a single-port function is in no link aggregation; its LAG context
 * (lag_state, port affinities) is all zero, as a ConnectX-5 reports it. UCX and
 * libmlx5 ask at start-up. CREATE/MODIFY/DESTROY_LAG are not offered (no
 * lag_master).
 */
void mlx5_cmd_query_lag(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    if (mlx5_cmd_in_ok(cmd, 0x10)) {
        mlx5_cmd_out_ok(cmd, 0x10);
    }
}

void mlx5_cmd_access_reg(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t reg_id, len;
    bool write;
    uint8_t *reg;

    if (!mlx5_cmd_in_ok(cmd, ACCESS_REG_DATA_OFF)) {
        return;
    }
    if (cmd->op_mod > MLX5_ACCESS_REG_READ) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
        return;
    }
    write = cmd->op_mod == MLX5_ACCESS_REG_WRITE;
    reg_id = MLX5_GET(cmd->in, ACCESS_REG_IN_register_id);
    /*
     * the register travels in and comes back out with the same length: at
     * least two dwords (MFRL's size), the management registers check their own
     * length, the others have four dwords at least
     */
    len = MIN(cmd->inlen, cmd->outlen);
    if (len < ACCESS_REG_DATA_OFF + 8) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR, MLX5_SYND_INLEN);
        return;
    }
    reg = cmd->out + ACCESS_REG_DATA_OFF;
    memcpy(reg, cmd->in + ACCESS_REG_DATA_OFF, len - ACCESS_REG_DATA_OFF);
    trace_mlx5_cmd_access_reg(reg_id, write);
    if (mlx5_fw_reg(c, cmd, reg_id, reg, len - ACCESS_REG_DATA_OFF, write)) {
        return;
    }
    if (len < ACCESS_REG_DATA_OFF + 16) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR, MLX5_SYND_INLEN);
        return;
    }

    switch (reg_id) {
    case MLX5_REG_HOST_ENDIANNESS:
        if (write) {
            c->host_endianness_set = true;
        }
        break;
    case MLX5_REG_PCAP:
        mlx5_reg_pcap(c, cmd, reg, write);
        break;
    case MLX5_REG_NODE_DESC:
        if (write || len < ACCESS_REG_DATA_OFF + 64) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_REGISTER);
            return;
        }
        memset(reg, 0, 64);
        memcpy(reg, c->cfg.node_desc, strnlen(c->cfg.node_desc, 64));
        break;
    default:
        if (c->eth ? mlx5_eth_reg(c, cmd, reg_id, reg,
                                  len - ACCESS_REG_DATA_OFF, write)
                   : mlx5_ib_reg(c, cmd, reg_id, reg,
                                 len - ACCESS_REG_DATA_OFF, write)) {
            return;
        }
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_REGISTER);
        trace_mlx5_unimp_reg(reg_id);
        return;
    }
}
