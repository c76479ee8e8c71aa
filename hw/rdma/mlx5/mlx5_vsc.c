/*
 * mlx5 HCA core: the Mellanox vendor-specific capability (VSC) in PCI
 * configuration space, the gateway through which mstflint's tools (and
 * mlx5_core's SW-reset semaphore) reach the device's address spaces
 * (docs/mstflint-notes.md has what each tool does with it).
 *
 * Registers, at byte offsets from the capability (dwords):
 *   +0x04 CTRL       [15:0] the space selected, [31:29] its status (1: there)
 *   +0x08 COUNTER    a fresh non-zero ticket on every read
 *   +0x0c SEMAPHORE  the gateway's lock: a write takes it only while it is 0
 *   +0x10 ADDR       [29:0] address, [31] flag: writing it with the flag clear
 *                    reads the address into DATA and sets the flag; with the
 *                    flag set writes DATA there and clears it
 *   +0x14 DATA
 * The accesses are done at once (the flag is never seen busy).
 *
 * Spaces (others report status 0, as mstflint's probe and mlx5_core's crdump
 * expect of what a function does not offer):
 *   2   CR space: the hardware ID at 0xf0014 (0x20d, a ConnectX-5), and
 *       0xb5e04 (bit 31: configuration not done) reading 0; the rest reads 0
 *       and ignores writes
 *   3   ICMD, and 1 (ICMD_EXT) the same: the control word at 0 ([31:16]
 *       opcode, [15:8] status, [0] busy/go), the mailbox size at 0x1000, the
 *       mailbox at 0x100000; setting go runs the command at once
 *   0xa semaphores: 16 dwords at 0..0x3c that a write of v != 0 takes only
 *       while they are 0, and 0 frees (mstflint's ICMD lock at 0,
 *       mlx5_core's SW-reset lock at 0x20)
 * ICMD opcodes: 0x9001 (access register: an operation TLV, a register TLV and
 * the register in PRM layout, as ACCESS_REG takes it) and 0x8400 (QUERY_CAP);
 * others get status 1 (bad opcode).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "trace.h"

#define VSC_CTRL                0x04
#define VSC_COUNTER             0x08
#define VSC_SEMAPHORE           0x0c
#define VSC_ADDR                0x10
#define VSC_DATA                0x14
#define VSC_FLAG                0x80000000u
#define VSC_STATUS_OK           (1u << 29)

#define SPACE_ICMD_EXT          1
#define SPACE_CR                2
#define SPACE_ICMD              3
#define SPACE_SEMAPHORE         0xa

#define CR_HW_ID                0xf0014

#define ICMD_CTRL               0x0
#define ICMD_MBOX_SIZE_ADDR     0x1000
#define ICMD_MBOX_ADDR          0x100000
#define ICMD_BUSY               1u

enum {
    ICMD_OK = 0,
    ICMD_BAD_OPCODE = 1,
    ICMD_BAD_PARAM = 4,
};
#define ICMD_ACCESS_REG         0x9001
#define ICMD_QUERY_CAP          0x8400

/* the access-register mailbox: operation TLV, register TLV header, register */
#define TLV_REG_OFF             20
enum {
    REG_STATUS_OK = 0,
    REG_STATUS_NOT_SUPPORTED = 4,
    REG_STATUS_BAD_PARAM = 7,
    REG_STATUS_NOT_AVAILABLE = 8,
};
#define TLV_METHOD_GET          1
#define TLV_METHOD_SET          2

static bool mlx5_vsc_space_ok(uint16_t space)
{
    return space == SPACE_CR || space == SPACE_ICMD ||
           space == SPACE_ICMD_EXT || space == SPACE_SEMAPHORE;
}

/* ICMD 0x9001: the register TLV's register through ACCESS_REG's handlers. */
static uint8_t mlx5_vsc_access_reg(Mlx5Core *c, uint8_t *mb)
{
    uint8_t in[ACCESS_REG_DATA_OFF + MLX5_ICMD_MBOX] = { 0 };
    uint8_t out[ACCESS_REG_DATA_OFF + MLX5_ICMD_MBOX] = { 0 };
    uint32_t op = mlx5_ld32(mb + 4), len;
    uint8_t method = (op >> 8) & 0x7f, st;
    Mlx5CmdCtx cmd = { .in = in, .out = out, .opcode = MLX5_CMD_OP_ACCESS_REG };

    /* the register TLV: (length in dwords - 1) * 4 bytes of register */
    len = ((mlx5_ld32(mb + 16) >> 16) & 0x7ff) * 4;
    if ((mlx5_ld32(mb) >> 27) != 1 || (mlx5_ld32(mb + 16) >> 27) != 3 ||
        len < 4 || TLV_REG_OFF + len - 4 > MLX5_ICMD_MBOX ||
        (method != TLV_METHOD_GET && method != TLV_METHOD_SET)) {
        return ICMD_BAD_PARAM;
    }
    len -= 4;
    cmd.op_mod = method == TLV_METHOD_SET ? MLX5_ACCESS_REG_WRITE
                                          : MLX5_ACCESS_REG_READ;
    /* (ACCESS_REG takes 16 bytes at least; some registers are 8, MNVQC) */
    cmd.inlen = cmd.outlen = ACCESS_REG_DATA_OFF + MAX(len, 16);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ACCESS_REG);
    MLX5_SET(in, CMD_IN_op_mod, cmd.op_mod);
    MLX5_SET(in, ACCESS_REG_IN_register_id, op >> 16);
    memcpy(in + ACCESS_REG_DATA_OFF, mb + TLV_REG_OFF, len);
    mlx5_cmd_access_reg(c, &cmd);
    if (cmd.status == MLX5_CMD_STAT_OK) {
        st = REG_STATUS_OK;
        memcpy(mb + TLV_REG_OFF, out + ACCESS_REG_DATA_OFF, len);
    } else if (cmd.syndrome == MLX5_SYND_BAD_REGISTER) {
        st = REG_STATUS_NOT_SUPPORTED;
    } else if (cmd.syndrome == MLX5_SYND_NV_TYPE) {
        /* a configuration TLV not there: mstconfig reads it as all zero */
        st = REG_STATUS_NOT_AVAILABLE;
    } else {
        st = REG_STATUS_BAD_PARAM;
    }
    /* the status in the operation TLV's dword 0, [14:8] */
    mlx5_st32(mb, (mlx5_ld32(mb) & ~0x7f00u) | (uint32_t)st << 8);
    trace_mlx5_vsc_access_reg(op >> 16, method, st);
    return ICMD_OK;
}

static void mlx5_vsc_icmd(Mlx5Core *c, uint32_t ctrl)
{
    Mlx5Vsc *v = &c->vsc;
    uint16_t opcode = ctrl >> 16;
    uint8_t st;

    switch (opcode) {
    case ICMD_ACCESS_REG:
        st = mlx5_vsc_access_reg(c, v->mbox);
        break;
    case ICMD_QUERY_CAP:
        /* access_reg_on_all_registers (29), mcam_reg (26); no mh_sync */
        memset(v->mbox, 0, 8);
        mlx5_st32(v->mbox, 1u << 29 | 1u << 26);
        st = ICMD_OK;
        break;
    default:
        st = ICMD_BAD_OPCODE;
        break;
    }
    v->icmd_ctrl = (uint32_t)opcode << 16 | (uint32_t)st << 8;
    trace_mlx5_vsc_icmd(opcode, st);
}

static uint32_t mlx5_vsc_space_read(Mlx5Core *c, uint32_t a)
{
    Mlx5Vsc *v = &c->vsc;

    switch (v->space) {
    case SPACE_CR:
        return a == CR_HW_ID ? MLX5_HW_ID_CX5 : 0;
    case SPACE_ICMD:
    case SPACE_ICMD_EXT:
        if (a == ICMD_CTRL) {
            return v->icmd_ctrl;
        }
        if (a == ICMD_MBOX_SIZE_ADDR) {
            return MLX5_ICMD_MBOX;
        }
        if (a >= ICMD_MBOX_ADDR && a - ICMD_MBOX_ADDR < MLX5_ICMD_MBOX &&
            !(a & 3)) {
            return mlx5_ld32(v->mbox + (a - ICMD_MBOX_ADDR));
        }
        return 0;
    case SPACE_SEMAPHORE:
        return a < 4 * MLX5_VSC_SEMS && !(a & 3) ? v->sem[a / 4] : 0;
    default:
        return 0;
    }
}

static void mlx5_vsc_space_write(Mlx5Core *c, uint32_t a, uint32_t val)
{
    Mlx5Vsc *v = &c->vsc;

    switch (v->space) {
    case SPACE_ICMD:
    case SPACE_ICMD_EXT:
        if (a == ICMD_CTRL) {
            if (val & ICMD_BUSY) {
                mlx5_vsc_icmd(c, val);
            } else {
                v->icmd_ctrl = val & 0xffff0000u;
            }
        } else if (a >= ICMD_MBOX_ADDR && a - ICMD_MBOX_ADDR < MLX5_ICMD_MBOX &&
                   !(a & 3)) {
            mlx5_st32(v->mbox + (a - ICMD_MBOX_ADDR), val);
        }
        break;
    case SPACE_SEMAPHORE:
        if (a < 4 * MLX5_VSC_SEMS && !(a & 3) &&
            (val == 0 || v->sem[a / 4] == 0)) {
            v->sem[a / 4] = val;
        }
        break;
    default:
        break;                  /* the CR space takes no writes here */
    }
}

uint32_t mlx5_core_vsc_read(Mlx5Core *c, unsigned off)
{
    Mlx5Vsc *v = &c->vsc;

    switch (off) {
    case VSC_CTRL:
        return (mlx5_vsc_space_ok(v->space) ? VSC_STATUS_OK : 0) | v->space;
    case VSC_COUNTER:
        /* a fresh value on every read, never 0 (0 means "unlocked") */
        if (++v->counter == 0) {
            v->counter = 1;
        }
        return v->counter;
    case VSC_SEMAPHORE:
        return v->semaphore;
    case VSC_ADDR:
        return v->addr;
    case VSC_DATA:
        return v->data;
    default:
        return 0;
    }
}

void mlx5_core_vsc_write(Mlx5Core *c, unsigned off, uint32_t val)
{
    Mlx5Vsc *v = &c->vsc;
    uint32_t a = val & 0x3fffffff;

    switch (off) {
    case VSC_CTRL:
        v->space = val & 0xffff;
        break;
    case VSC_SEMAPHORE:
        /* taking the semaphore only works while it is free; 0 frees it */
        if (val == 0 || v->semaphore == 0) {
            v->semaphore = val;
        }
        break;
    case VSC_ADDR:
        if (!mlx5_vsc_space_ok(v->space)) {
            /* no such space: the flag flips, the data reads 0 */
            v->data = 0;
            v->addr = (val & VSC_FLAG) ? a : a | VSC_FLAG;
        } else if (val & VSC_FLAG) {
            mlx5_vsc_space_write(c, a, v->data);
            v->addr = a;
        } else {
            v->data = mlx5_vsc_space_read(c, a);
            v->addr = a | VSC_FLAG;
        }
        trace_mlx5_vsc_access(v->space, a, !!(val & VSC_FLAG), v->data);
        break;
    case VSC_DATA:
        v->data = val;
        break;
    default:
        break;
    }
}

void mlx5_core_vsc_reset(Mlx5Core *c)
{
    memset(&c->vsc, 0, sizeof(c->vsc));
}
