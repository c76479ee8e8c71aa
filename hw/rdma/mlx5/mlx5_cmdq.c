/*
 * mlx5 HCA core: the firmware command queue (PRM "Command Interface").
 *
 * The driver writes a 64-byte descriptor per slot in one 4 KiB page, chains
 * 576-byte mailbox blocks for input/output beyond 16 bytes, and rings cmd_dbell
 * with one bit per slot. For each slot we copy the descriptor and the whole
 * input into device memory, run the handler on the copy, write the output back,
 * and only then clear the ownership bit (and, once a command EQ exists, post a
 * command-completion EQE).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_xrq_prm.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

typedef struct Mlx5CmdDesc {
    uint16_t opcode;
    const char *name;
    Mlx5CmdHandler *handler;
    /* allowed after ENABLE_HCA but before INIT_HCA */
    bool before_init;
    /* may be issued by a DevX user context (uid != 0) */
    bool user;
    /* exists only on an Ethernet port (mlx5_eth.h) */
    bool eth;
} Mlx5CmdDesc;

#define CMD(op, fn, pre) { MLX5_CMD_OP_##op, #op, fn, pre, false, false }
#define UCMD(op, fn) { MLX5_CMD_OP_##op, #op, fn, false, true, false }
#define ECMD(op, fn) { MLX5_CMD_OP_##op, #op, fn, false, false, true }
#define EUCMD(op, fn) { MLX5_CMD_OP_##op, #op, fn, false, true, true }

/* The one dispatch table: opcode -> handler. Sorted by opcode. */
static const Mlx5CmdDesc mlx5_cmds[] = {
    { MLX5_CMD_OP_QUERY_HCA_CAP, "QUERY_HCA_CAP", mlx5_cmd_query_hca_cap, true,
      true, false },
    { MLX5_CMD_OP_QUERY_ADAPTER, "QUERY_ADAPTER", mlx5_cmd_query_adapter, true,
      true, false },
    CMD(INIT_HCA, mlx5_cmd_init_hca, true),
    CMD(TEARDOWN_HCA, mlx5_cmd_teardown_hca, false),
    CMD(ENABLE_HCA, mlx5_cmd_enable_hca, true),
    CMD(DISABLE_HCA, mlx5_cmd_disable_hca, true),
    CMD(QUERY_PAGES, mlx5_cmd_query_pages, true),
    CMD(MANAGE_PAGES, mlx5_cmd_manage_pages, true),
    CMD(SET_HCA_CAP, mlx5_cmd_set_hca_cap, true),
    { MLX5_CMD_OP_QUERY_ISSI, "QUERY_ISSI", mlx5_cmd_query_issi, true, true,
      false },
    CMD(SET_ISSI, mlx5_cmd_set_issi, true),
    CMD(SET_DRIVER_VERSION, mlx5_cmd_set_driver_version, false),
    UCMD(CREATE_MKEY, mlx5_cmd_create_mkey),
    UCMD(QUERY_MKEY, mlx5_cmd_query_mkey),
    UCMD(DESTROY_MKEY, mlx5_cmd_destroy_mkey),
    CMD(QUERY_SPECIAL_CONTEXTS, mlx5_cmd_query_special_contexts, false),
    CMD(PAGE_FAULT_RESUME, mlx5_cmd_page_fault_resume, false),
    CMD(ALLOC_MEMIC, mlx5_cmd_alloc_memic, false),
    CMD(DEALLOC_MEMIC, mlx5_cmd_dealloc_memic, false),
    CMD(CREATE_EQ, mlx5_cmd_create_eq, false),
    CMD(DESTROY_EQ, mlx5_cmd_destroy_eq, false),
    CMD(QUERY_EQ, mlx5_cmd_query_eq, false),
    UCMD(CREATE_CQ, mlx5_cmd_create_cq),
    UCMD(DESTROY_CQ, mlx5_cmd_destroy_cq),
    UCMD(QUERY_CQ, mlx5_cmd_query_cq),
    UCMD(MODIFY_CQ, mlx5_cmd_modify_cq),
    UCMD(CREATE_QP, mlx5_cmd_create_qp),
    UCMD(DESTROY_QP, mlx5_cmd_destroy_qp),
    UCMD(RST2INIT_QP, mlx5_cmd_modify_qp),
    UCMD(INIT2RTR_QP, mlx5_cmd_modify_qp),
    UCMD(RTR2RTS_QP, mlx5_cmd_modify_qp),
    UCMD(RTS2RTS_QP, mlx5_cmd_modify_qp),
    UCMD(SQERR2RTS_QP, mlx5_cmd_modify_qp),
    UCMD(2ERR_QP, mlx5_cmd_modify_qp),
    UCMD(2RST_QP, mlx5_cmd_modify_qp),
    UCMD(QUERY_QP, mlx5_cmd_query_qp),
    UCMD(SQD_RTS_QP, mlx5_cmd_modify_qp),
    CMD(MAD_IFC, mlx5_cmd_mad_ifc, false),
    UCMD(INIT2INIT_QP, mlx5_cmd_modify_qp),
    UCMD(CREATE_PSV, mlx5_cmd_create_psv),
    UCMD(DESTROY_PSV, mlx5_cmd_destroy_psv),
    UCMD(CREATE_SRQ, mlx5_cmd_create_srq),
    UCMD(DESTROY_SRQ, mlx5_cmd_destroy_srq),
    UCMD(QUERY_SRQ, mlx5_cmd_query_srq),
    UCMD(ARM_RQ, mlx5_cmd_arm_rq),
    UCMD(CREATE_XRC_SRQ, mlx5_cmd_create_srq),
    UCMD(DESTROY_XRC_SRQ, mlx5_cmd_destroy_srq),
    UCMD(QUERY_XRC_SRQ, mlx5_cmd_query_srq),
    UCMD(ARM_XRC_SRQ, mlx5_cmd_arm_rq),
    UCMD(CREATE_DCT, mlx5_cmd_create_dct),
    UCMD(DESTROY_DCT, mlx5_cmd_destroy_dct),
    UCMD(DRAIN_DCT, mlx5_cmd_drain_dct),
    UCMD(QUERY_DCT, mlx5_cmd_query_dct),
    UCMD(CREATE_XRQ, mlx5_cmd_create_xrq),
    UCMD(DESTROY_XRQ, mlx5_cmd_destroy_srq),
    UCMD(QUERY_XRQ, mlx5_cmd_query_xrq),
    EUCMD(QUERY_VPORT_STATE, mlx5_cmd_query_vport_state),
    ECMD(MODIFY_VPORT_STATE, mlx5_cmd_modify_vport_state),
    /* (a DevX user's own: rdma-core's steering domains ask) */
    EUCMD(QUERY_ESW_VPORT_CONTEXT, mlx5_cmd_query_esw_vport_context),
    ECMD(MODIFY_ESW_VPORT_CONTEXT, mlx5_cmd_modify_esw_vport_context),
    EUCMD(QUERY_NIC_VPORT_CONTEXT, mlx5_cmd_query_nic_vport_context),
    ECMD(MODIFY_NIC_VPORT_CONTEXT, mlx5_cmd_modify_nic_vport_context),
    ECMD(QUERY_ROCE_ADDRESS, mlx5_cmd_query_roce_address),
    ECMD(SET_ROCE_ADDRESS, mlx5_cmd_set_roce_address),
    UCMD(QUERY_HCA_VPORT_CONTEXT, mlx5_cmd_query_hca_vport_context),
    CMD(MODIFY_HCA_VPORT_CONTEXT, mlx5_cmd_modify_hca_vport_context, false),
    CMD(QUERY_HCA_VPORT_GID, mlx5_cmd_query_hca_vport_gid, false),
    CMD(QUERY_HCA_VPORT_PKEY, mlx5_cmd_query_hca_vport_pkey, false),
    UCMD(QUERY_VPORT_COUNTER, mlx5_cmd_query_vport_counter),
    UCMD(ALLOC_Q_COUNTER, mlx5_cmd_alloc_q_counter),
    UCMD(DEALLOC_Q_COUNTER, mlx5_cmd_dealloc_q_counter),
    UCMD(QUERY_Q_COUNTER, mlx5_cmd_query_q_counter),
    EUCMD(SET_PP_RATE_LIMIT, mlx5_cmd_set_pp_rate_limit),
    ECMD(CREATE_SCHEDULING_ELEMENT, mlx5_cmd_create_scheduling_element),
    ECMD(DESTROY_SCHEDULING_ELEMENT, mlx5_cmd_destroy_scheduling_element),
    ECMD(QUERY_SCHEDULING_ELEMENT, mlx5_cmd_query_scheduling_element),
    ECMD(MODIFY_SCHEDULING_ELEMENT, mlx5_cmd_modify_scheduling_element),
    UCMD(ALLOC_PD, mlx5_cmd_alloc_pd),
    UCMD(DEALLOC_PD, mlx5_cmd_dealloc_pd),
    UCMD(ALLOC_UAR, mlx5_cmd_alloc_uar),
    UCMD(DEALLOC_UAR, mlx5_cmd_dealloc_uar),
    CMD(ACCESS_REG, mlx5_cmd_access_reg, true),
    UCMD(ATTACH_TO_MCG, mlx5_cmd_attach_to_mcg),
    UCMD(DETACH_FROM_MCG, mlx5_cmd_detach_from_mcg),
    UCMD(ALLOC_XRCD, mlx5_cmd_alloc_xrcd),
    UCMD(DEALLOC_XRCD, mlx5_cmd_dealloc_xrcd),
    UCMD(ALLOC_TRANSPORT_DOMAIN, mlx5_cmd_alloc_transport_domain),
    UCMD(DEALLOC_TRANSPORT_DOMAIN, mlx5_cmd_dealloc_transport_domain),
    UCMD(QUERY_CONG_STATUS, mlx5_cmd_query_cong_status),
    CMD(MODIFY_CONG_STATUS, mlx5_cmd_modify_cong_status, false),
    UCMD(QUERY_CONG_PARAMS, mlx5_cmd_query_cong_params),
    CMD(MODIFY_CONG_PARAMS, mlx5_cmd_modify_cong_params, false),
    UCMD(QUERY_CONG_STATISTICS, mlx5_cmd_query_cong_statistics),
    ECMD(ADD_VXLAN_UDP_DPORT, mlx5_cmd_add_vxlan_udp_dport),
    ECMD(DELETE_VXLAN_UDP_DPORT, mlx5_cmd_delete_vxlan_udp_dport),
    ECMD(SET_L2_TABLE_ENTRY, mlx5_cmd_set_l2_table_entry),
    ECMD(DELETE_L2_TABLE_ENTRY, mlx5_cmd_delete_l2_table_entry),
    UCMD(QUERY_LAG, mlx5_cmd_query_lag),
    EUCMD(CREATE_TIR, mlx5_cmd_create_tir),
    EUCMD(MODIFY_TIR, mlx5_cmd_modify_tir),
    EUCMD(DESTROY_TIR, mlx5_cmd_destroy_tir),
    EUCMD(QUERY_TIR, mlx5_cmd_query_tir),
    EUCMD(CREATE_SQ, mlx5_cmd_create_sq),
    EUCMD(MODIFY_SQ, mlx5_cmd_modify_sq),
    EUCMD(DESTROY_SQ, mlx5_cmd_destroy_sq),
    EUCMD(QUERY_SQ, mlx5_cmd_query_sq),
    EUCMD(CREATE_RQ, mlx5_cmd_create_rq),
    EUCMD(MODIFY_RQ, mlx5_cmd_modify_rq),
    EUCMD(DESTROY_RQ, mlx5_cmd_destroy_rq),
    EUCMD(QUERY_RQ, mlx5_cmd_query_rq),
    UCMD(CREATE_RMP, mlx5_cmd_create_rmp),
    UCMD(MODIFY_RMP, mlx5_cmd_modify_rmp),
    UCMD(DESTROY_RMP, mlx5_cmd_destroy_srq),
    UCMD(QUERY_RMP, mlx5_cmd_query_rmp),
    EUCMD(CREATE_TIS, mlx5_cmd_create_tis),
    EUCMD(MODIFY_TIS, mlx5_cmd_modify_tis),
    EUCMD(DESTROY_TIS, mlx5_cmd_destroy_tis),
    EUCMD(QUERY_TIS, mlx5_cmd_query_tis),
    EUCMD(CREATE_RQT, mlx5_cmd_create_rqt),
    EUCMD(MODIFY_RQT, mlx5_cmd_modify_rqt),
    EUCMD(DESTROY_RQT, mlx5_cmd_destroy_rqt),
    EUCMD(QUERY_RQT, mlx5_cmd_query_rqt),
    ECMD(SET_FLOW_TABLE_ROOT, mlx5_cmd_set_flow_table_root),
    EUCMD(CREATE_FLOW_TABLE, mlx5_cmd_create_flow_table),
    EUCMD(DESTROY_FLOW_TABLE, mlx5_cmd_destroy_flow_table),
    EUCMD(QUERY_FLOW_TABLE, mlx5_cmd_query_flow_table),
    EUCMD(CREATE_FLOW_GROUP, mlx5_cmd_create_flow_group),
    EUCMD(DESTROY_FLOW_GROUP, mlx5_cmd_destroy_flow_group),
    EUCMD(SET_FLOW_TABLE_ENTRY, mlx5_cmd_set_fte),
    EUCMD(DELETE_FLOW_TABLE_ENTRY, mlx5_cmd_delete_fte),
    EUCMD(ALLOC_FLOW_COUNTER, mlx5_cmd_alloc_flow_counter),
    EUCMD(DEALLOC_FLOW_COUNTER, mlx5_cmd_dealloc_flow_counter),
    EUCMD(QUERY_FLOW_COUNTER, mlx5_cmd_query_flow_counter),
    ECMD(MODIFY_FLOW_TABLE, mlx5_cmd_modify_flow_table),
    EUCMD(ALLOC_PACKET_REFORMAT_CONTEXT,
          mlx5_cmd_alloc_packet_reformat_context),
    EUCMD(DEALLOC_PACKET_REFORMAT_CONTEXT,
          mlx5_cmd_dealloc_packet_reformat_context),
    EUCMD(ALLOC_MODIFY_HEADER_CONTEXT, mlx5_cmd_alloc_modify_header_context),
    EUCMD(DEALLOC_MODIFY_HEADER_CONTEXT,
          mlx5_cmd_dealloc_modify_header_context),
    UCMD(CREATE_GENERAL_OBJECT, mlx5_cmd_create_general_object),
    UCMD(MODIFY_GENERAL_OBJECT, mlx5_cmd_modify_general_object),
    UCMD(QUERY_GENERAL_OBJECT, mlx5_cmd_query_general_object),
    UCMD(DESTROY_GENERAL_OBJECT, mlx5_cmd_destroy_general_object),
    CMD(CREATE_UCTX, mlx5_cmd_create_uctx, false),
    CMD(DESTROY_UCTX, mlx5_cmd_destroy_uctx, false),
    UCMD(CREATE_UMEM, mlx5_cmd_create_umem),
    UCMD(DESTROY_UMEM, mlx5_cmd_destroy_umem),
    EUCMD(SYNC_STEERING, mlx5_cmd_sync_steering),
};

static const Mlx5CmdDesc *mlx5_cmd_lookup(uint16_t opcode)
{
    size_t lo = 0, hi = G_N_ELEMENTS(mlx5_cmds);

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mlx5_cmds[mid].opcode == opcode) {
            return &mlx5_cmds[mid];
        }
        if (mlx5_cmds[mid].opcode < opcode) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

const char *mlx5_cmd_name(uint16_t opcode)
{
    const Mlx5CmdDesc *d = mlx5_cmd_lookup(opcode);

    return d ? d->name : "UNKNOWN";
}

/*
 * The dispatch table as data, for the unit tests and the docs table generator.
 */
size_t mlx5_cmd_table(const char **names, uint16_t *opcodes, size_t max)
{
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(mlx5_cmds) && i < max; i++) {
        names[i] = mlx5_cmds[i].name;
        opcodes[i] = mlx5_cmds[i].opcode;
    }
    return G_N_ELEMENTS(mlx5_cmds);
}

void *mlx5_cmd_obj(Mlx5CmdCtx *cmd, const Mlx5Table *t, uint32_t h)
{
    void *obj = mlx5_table_get(t, h);

    if (obj && mlx5_cmd_user(cmd) && mlx5_table_owner(t, h) != cmd->uid) {
        trace_mlx5_err_uid(t->name, h, cmd->uid, mlx5_table_owner(t, h));
        return NULL;
    }
    return obj;
}

void *mlx5_cmd_ref(Mlx5CmdCtx *cmd, const Mlx5Table *t, uint32_t h)
{
    void *obj = mlx5_table_get(t, h);
    uint16_t owner = mlx5_table_owner(t, h);

    if (obj && mlx5_cmd_user(cmd) && owner &&
        owner != MLX5_SHARED_RESOURCE_UID && owner != cmd->uid) {
        trace_mlx5_err_uid(t->name, h, cmd->uid, owner);
        return NULL;
    }
    return obj;
}

void mlx5_cmd_own(Mlx5CmdCtx *cmd, Mlx5Table *t, uint32_t h)
{
    mlx5_table_set_owner(t, h, cmd->uid);
}

void mlx5_cmd_fail(Mlx5CmdCtx *cmd, uint8_t status, uint32_t syndrome)
{
    if (cmd->status == MLX5_CMD_STAT_OK) {
        cmd->status = status;
        cmd->syndrome = syndrome;
    }
}

bool mlx5_cmd_in_ok(Mlx5CmdCtx *cmd, uint32_t len)
{
    if (cmd->inlen < len) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_INP_LEN_ERR, MLX5_SYND_INLEN);
        return false;
    }
    return true;
}

bool mlx5_cmd_out_ok(Mlx5CmdCtx *cmd, uint32_t len)
{
    if (cmd->outlen < len) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, MLX5_SYND_OUTLEN);
        return false;
    }
    return true;
}

/*
 * Walk a mailbox chain, copying @len bytes between @buf and the blocks' data
 * areas. Returns a delivery status.
 */
static uint8_t mlx5_mbox_xfer(Mlx5Core *c, uint64_t ptr, uint8_t *buf,
                              uint32_t len, bool to_dev)
{
    uint8_t blk[MLX5_CMD_MBOX_SIZE];
    uint32_t n, done = 0, block_num = 0;

    while (done < len) {
        if (ptr == 0 || (ptr & 0x3ff)) {
            trace_mlx5_err_cmd_mbox(ptr, block_num);
            return to_dev ? MLX5_CMD_DELIVERY_IN_PTR_ALIGN_ERR
                          : MLX5_CMD_DELIVERY_OUT_PTR_ALIGN_ERR;
        }
        if (mlx5_dma_read(c, ptr, blk, sizeof(blk))) {
            return MLX5_CMD_DELIVERY_FW_INT_ERR;
        }
        if (mlx5_ld32(blk + MLX5_CMD_MBOX_BLOCK_NUM) != block_num) {
            trace_mlx5_err_cmd_mbox(ptr, block_num);
            return MLX5_CMD_DELIVERY_BAD_BLK_NUM_ERR;
        }
        n = MIN(len - done, MLX5_CMD_MBOX_DATA);
        if (to_dev) {
            memcpy(buf + done, blk, n);
        } else if (mlx5_dma_write(c, ptr, buf + done, n)) {
            return MLX5_CMD_DELIVERY_FW_INT_ERR;
        }
        done += n;
        block_num++;
        ptr = mlx5_ld64(blk + MLX5_CMD_MBOX_NEXT);
    }
    return MLX5_CMD_DELIVERY_OK;
}

static bool mlx5_cmd_eq_exists(Mlx5Core *c)
{
    return mlx5_eq_find_by_event(c, MLX5_EVENT_TYPE_CMD) != NULL;
}

static uint8_t mlx5_cmd_dispatch(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const Mlx5CmdDesc *d = mlx5_cmd_lookup(cmd->opcode);

    if (!d || !d->handler || (d->eth && !c->eth)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_BAD_OPCODE);
        trace_mlx5_unimp_cmd(cmd->opcode, cmd->op_mod);
        return MLX5_CMD_DELIVERY_OK;
    }
    if (!c->hca_enabled && cmd->opcode != MLX5_CMD_OP_ENABLE_HCA) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
                      MLX5_SYND_NOT_ENABLED);
    } else if (!c->hca_initialized && !d->before_init) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
                      MLX5_SYND_NOT_INITIALIZED);
    } else if (cmd->uid && cmd->uid != MLX5_SHARED_RESOURCE_UID &&
               (!d->user || !mlx5_table_get(&c->uctxs, cmd->uid))) {
        /*
         * a DevX context issues only user-object commands, and only while it
         * exists
         */
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_UID);
    } else {
        d->handler(c, cmd);
    }
    return MLX5_CMD_DELIVERY_OK;
}

/*
 * Execute the command in slot @idx (a DMA fault on the queue itself is
 * device-fatal).
 */
static void mlx5_cmd_exec_slot(Mlx5Core *c, unsigned idx)
{
    uint64_t slot_pa = (((uint64_t)c->cmdq_addr_h << 32) |
                        (c->cmdq_addr_l & ~0xfffu)) +
                       ((uint64_t)idx << MLX5_LOG_CMDQ_STRIDE);
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE];
    Mlx5CmdCtx cmd = { 0 };
    g_autofree uint8_t *in = NULL;
    g_autofree uint8_t *out = NULL;
    uint8_t deliv = MLX5_CMD_DELIVERY_OK;
    bool eq_before, eq_after, no_completion;
    uint32_t vector;

    if (mlx5_dma_read(c, slot_pa, lay, sizeof(lay))) {
        mlx5_health_fatal(c, 0x1);
        return;
    }
    if (!(lay[MLX5_CMD_LAY_STATUS_OWN] & 1)) {
        /*
         * doorbell for a slot the driver does not own to us: ignore, as
         * hardware does
         */
        trace_mlx5_ub_cmd_not_owned(idx);
        return;
    }
    eq_before = mlx5_cmd_eq_exists(c);
    cmd.inlen = mlx5_ld32(lay + MLX5_CMD_LAY_INLEN);
    cmd.outlen = mlx5_ld32(lay + MLX5_CMD_LAY_OUTLEN);

    if (lay[MLX5_CMD_LAY_TYPE] != MLX5_PCI_CMD_XPORT) {
        deliv = MLX5_CMD_DELIVERY_INVALID_COMMAND;
    } else if (cmd.inlen < 8 || cmd.inlen > MLX5_MAX_CMD_LEN) {
        deliv = MLX5_CMD_DELIVERY_IN_LENGTH_ERR;
    } else if (cmd.outlen < 8 || cmd.outlen > MLX5_MAX_CMD_LEN) {
        deliv = MLX5_CMD_DELIVERY_OUT_LENGTH_ERR;
    }
    if (deliv == MLX5_CMD_DELIVERY_OK) {
        in = g_malloc0(MAX(cmd.inlen, MLX5_CMD_INLINE_BYTES));
        out = g_malloc0(MAX(cmd.outlen, MLX5_CMD_INLINE_BYTES));
        memcpy(in, lay + MLX5_CMD_LAY_IN, MLX5_CMD_INLINE_BYTES);
        if (cmd.inlen > MLX5_CMD_INLINE_BYTES) {
            deliv = mlx5_mbox_xfer(c, mlx5_ld64(lay + MLX5_CMD_LAY_IN_PTR),
                                   in + MLX5_CMD_INLINE_BYTES,
                                   cmd.inlen - MLX5_CMD_INLINE_BYTES, true);
        }
    }
    if (deliv == MLX5_CMD_DELIVERY_OK) {
        mlx5_record_cmd(c, in, cmd.inlen, cmd.outlen);
        cmd.in = in;
        cmd.out = out;
        cmd.opcode = MLX5_GET(in, CMD_IN_opcode);
        cmd.op_mod = MLX5_GET(in, CMD_IN_op_mod);
        cmd.uid = MLX5_GET(in, CMD_IN_uid);
        if (mlx5_inject_cmd_check(c, &cmd, idx, &no_completion)) {
            deliv = mlx5_cmd_dispatch(c, &cmd);
        } else if (no_completion) {
            /* injected: the slot stays the device's, nothing is written */
            return;
        }
        c->cmd_count++;
        MLX5_SET(out, CMD_OUT_status, cmd.status);
        MLX5_SET(out, CMD_OUT_syndrome, cmd.status ? cmd.syndrome : 0);
        memcpy(lay + MLX5_CMD_LAY_OUT, out, MLX5_CMD_INLINE_BYTES);
        if (cmd.outlen > MLX5_CMD_INLINE_BYTES) {
            deliv = mlx5_mbox_xfer(c, mlx5_ld64(lay + MLX5_CMD_LAY_OUT_PTR),
                                   out + MLX5_CMD_INLINE_BYTES,
                                   cmd.outlen - MLX5_CMD_INLINE_BYTES, false);
        }
        trace_mlx5_cmd(idx, mlx5_cmd_name(cmd.opcode), cmd.opcode, cmd.op_mod,
                       cmd.status, cmd.syndrome);
        if (cmd.status) {
            trace_mlx5_err_cmd(mlx5_cmd_name(cmd.opcode), cmd.opcode,
                               cmd.status, cmd.syndrome);
        }
    }
    if (deliv != MLX5_CMD_DELIVERY_OK) {
        trace_mlx5_err_cmd_delivery(idx, deliv);
    }

    /*
     * Output first, then ownership: the driver may look at it the moment owner
     * flips.
     */
    if (mlx5_dma_write(c, slot_pa + MLX5_CMD_LAY_OUT, lay + MLX5_CMD_LAY_OUT,
                       MLX5_CMD_INLINE_BYTES)) {
        mlx5_health_fatal(c, 0x1);
        return;
    }
    lay[MLX5_CMD_LAY_STATUS_OWN] = deliv << 1;
    if (mlx5_dma_write(c, slot_pa + MLX5_CMD_LAY_STATUS_OWN,
                       &lay[MLX5_CMD_LAY_STATUS_OWN], 1)) {
        mlx5_health_fatal(c, 0x1);
        return;
    }

    /*
     * Completion EQE iff a command EQ existed both before and after this
     * command: skips the CREATE_EQ that creates it (driver still polling) and
     * the DESTROY_EQ that removes it.
     */
    eq_after = mlx5_cmd_eq_exists(c);
    if (eq_before && eq_after && c->hca_enabled) {
        uint8_t data[4];
        vector = 1u << idx;
        mlx5_st32(data, vector);
        mlx5_eq_post(c, mlx5_eq_find_by_event(c, MLX5_EVENT_TYPE_CMD),
                     MLX5_EVENT_TYPE_CMD, 0, data, sizeof(data));
    }
}

void mlx5_cmdq_process(Mlx5Core *c)
{
    while (c->db_pending && !c->health_fatal) {
        unsigned idx = __builtin_ctz(c->db_pending);

        c->db_pending &= ~(1u << idx);
        mlx5_cmd_exec_slot(c, idx);
    }
}
