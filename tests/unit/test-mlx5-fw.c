/*
 * Unit tests of the firmware plane (hw/rdma/mlx5/mlx5_fw.c): the management registers of the
 * firmware components, read as mlx5_core's `devlink dev info` does (MCAM, MCQS, MCQI), the
 * cable module's (PMLP, MCIA; hw/rdma/mlx5/mlx5_module.c) as `ethtool -m` reads it, and what a
 * malformed access gets.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"

#define REG_LEN 0xa0

/*
 * ACCESS_REG of @reg_id: @inlen bytes of register in, @outlen out (mlx5_core sends MCQI's
 * header alone and reads the data behind it); returns the status, the register in @reg.
 */
static int reg_io(TDrv *d, uint16_t reg_id, bool write, uint8_t *reg, unsigned inlen,
                  unsigned outlen)
{
    uint8_t in[0x10 + REG_LEN] = { 0 }, out[0x10 + REG_LEN] = { 0 };
    int st;

    g_assert_cmpuint(MAX(inlen, outlen), <=, REG_LEN);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ACCESS_REG);
    MLX5_SET(in, CMD_IN_op_mod, write ? MLX5_ACCESS_REG_WRITE : MLX5_ACCESS_REG_READ);
    MLX5_SET(in, ACCESS_REG_IN_register_id, reg_id);
    memcpy(in + 0x10, reg, inlen);
    st = tdrv_exec(d, in, 0x10 + inlen, out, 0x10 + outlen);
    memcpy(reg, out + 0x10, outlen);
    return st;
}

static int reg_access(TDrv *d, uint16_t reg_id, bool write, uint8_t *reg, unsigned len)
{
    return reg_io(d, reg_id, write, reg, len, len);
}

static TDrv *up(void)
{
    TDrv *d = tdrv_new();

    tdrv_bringup(d);
    return d;
}

/* Does MCAM's group-0 mask announce register @r? */
static bool mcam_has(const uint8_t *mcam, uint16_t r)
{
    r -= 0x9000;
    return mcam[MCAM_access_regs_OFF + 15 - r / 8] >> (r % 8) & 1;
}

static void test_devlink_info(void)
{
    TDrv *d = up();
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], reg[REG_LEN] = { 0 };
    uint32_t major, minor, sub;
    char ver[32];

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, cap, sizeof(cap)), ==,
                    0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_mcam_reg), ==, 1);

    /* MCAM group 0 announces MCQS and MCQI; the other groups nothing */
    g_assert_cmpint(reg_access(d, MLX5_REG_MCAM, false, reg, MCAM_SIZE), ==, 0);
    g_assert_true(mcam_has(reg, MLX5_REG_MCQS));
    g_assert_true(mcam_has(reg, MLX5_REG_MCQI));
    g_assert_false(mcam_has(reg, 0x9062));                  /* MCC: no flash writes yet */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MCAM_access_reg_group, 1);
    g_assert_cmpint(reg_access(d, MLX5_REG_MCAM, false, reg, MCAM_SIZE), ==, 0);
    for (unsigned i = 0; i < 16; i++) {
        g_assert_cmpint(reg[MCAM_access_regs_OFF + i], ==, 0);
    }

    /* MCQS: component 0 is the boot image and the last; no update pending */
    memset(reg, 0, sizeof(reg));
    g_assert_cmpint(reg_access(d, MLX5_REG_MCQS, false, reg, MCQS_SIZE), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, MCQS_identifier), ==, MLX5_MCQS_IDENTIFIER_BOOT_IMG);
    g_assert_cmpint(MLX5_GET(reg, MCQS_last_index_flag), ==, 1);
    g_assert_cmpint(MLX5_GET(reg, MCQS_component_update_state), ==,
                    MLX5_MCQS_UPDATE_STATE_IDLE);
    MLX5_SET(reg, MCQS_component_index, 1);
    g_assert_cmpint(reg_access(d, MLX5_REG_MCQS, false, reg, MCQS_SIZE), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* MCQI VERSION: the version of the initialization segment, and as a string */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MCQI_info_type, MLX5_MCQI_INFO_VERSION);
    MLX5_SET(reg, MCQI_data_size, MCQI_VER_SIZE);
    g_assert_cmpint(reg_io(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF,
                           MCQI_DATA_OFF + MCQI_VER_SIZE), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, MCQI_data_size), ==, MCQI_VER_SIZE);
    /* the initialization segment's fw_rev: minor << 16 | major, then cmdif << 16 | subminor */
    major = tdrv_mmio_rd32(d, 0) & 0xffff;
    minor = tdrv_mmio_rd32(d, 0) >> 16;
    sub = tdrv_mmio_rd32(d, 4) & 0xffff;
    g_assert_cmpuint(major, ==, 16);
    g_assert_cmphex(MLX5_GET(reg + MCQI_DATA_OFF, MCQI_VER_version), ==,
                    major << 24 | minor << 16 | sub);
    snprintf(ver, sizeof(ver), "%u.%u.%04u", major, minor, sub);
    g_assert_cmpint(MLX5_GET(reg + MCQI_DATA_OFF, MCQI_VER_version_string_length), ==,
                    strlen(ver));
    g_assert_cmpmem(reg + MCQI_DATA_OFF + MCQI_VER_version_string_OFF, strlen(ver), ver,
                    strlen(ver));
    /* a shorter data_size gets that much, the register's info_size says the whole */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MCQI_info_type, MLX5_MCQI_INFO_VERSION);
    MLX5_SET(reg, MCQI_data_size, 8);
    g_assert_cmpint(reg_io(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF, MCQI_DATA_OFF + 8), ==,
                    0);
    g_assert_cmpint(MLX5_GET(reg, MCQI_data_size), ==, 8);
    g_assert_cmpint(MLX5_GET(reg, MCQI_info_size), ==, MCQI_VER_SIZE);
    /* CAPABILITIES */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MCQI_info_type, MLX5_MCQI_INFO_CAPABILITIES);
    MLX5_SET(reg, MCQI_data_size, MCQI_CAP_SIZE);
    g_assert_cmpint(reg_io(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF,
                           MCQI_DATA_OFF + MCQI_CAP_SIZE), ==, 0);
    g_assert_cmphex(MLX5_GET(reg + MCQI_DATA_OFF, MCQI_CAP_supported_info_bitmask) & 3, ==, 3);

    /* no pending image to read; no component 1; an unknown info type; writes; short */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MCQI_info_type, MLX5_MCQI_INFO_VERSION);
    MLX5_SET(reg, MCQI_read_pending_component, 1);
    g_assert_cmpint(reg_access(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF + 16), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(reg, MCQI_read_pending_component, 0);
    MLX5_SET(reg, MCQI_component_index, 1);
    g_assert_cmpint(reg_access(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF + 16), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(reg, MCQI_component_index, 0);
    MLX5_SET(reg, MCQI_info_type, 7);
    g_assert_cmpint(reg_access(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF + 16), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(reg_access(d, MLX5_REG_MCQS, true, reg, MCQS_SIZE), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(reg_access(d, MLX5_REG_MCAM, false, reg, 0x10), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* and the device is fine */
    g_assert_cmpint(reg_access(d, MLX5_REG_MCQS, false, reg, MCQS_SIZE), ==, 0);
    tdrv_free(d);
}

/* MCIA of @size bytes at @off of page @page (module @module, I2C @i2c): status, data in @out. */
static int mcia(TDrv *d, uint8_t module, uint8_t i2c, uint8_t page, uint16_t off, uint16_t size,
                uint8_t *out, int *status)
{
    uint8_t reg[MCIA_DATA_OFF + 128] = { 0 };
    int st;

    MLX5_SET(reg, MCIA_module, module);
    MLX5_SET(reg, MCIA_i2c_device_address, i2c);
    MLX5_SET(reg, MCIA_page_number, page);
    MLX5_SET(reg, MCIA_device_address, off);
    MLX5_SET(reg, MCIA_size, size);
    st = reg_access(d, MLX5_REG_MCIA, false, reg, sizeof(reg));
    *status = MLX5_GET(reg, MCIA_status);
    memcpy(out, reg + MCIA_DATA_OFF, MIN(size, 128));
    return st;
}

/* The module as mlx5e's ethtool -m reads it: PMLP, then MCIA windows of 48 bytes. */
static void test_module(void)
{
    TDrv *d = up();
    uint8_t reg[REG_LEN] = { 0 }, m[256] = { 0 }, sum;
    int status;
    unsigned off, i;

    g_assert_cmpint(reg_access(d, MLX5_REG_MCAM, false, reg, MCAM_SIZE), ==, 0);
    g_assert_true(mcam_has(reg, MLX5_REG_MCIA));
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, PMLP_local_port, 1);
    g_assert_cmpint(reg_access(d, MLX5_REG_PMLP, false, reg, PMLP_SIZE), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, PMLP_width), ==, 4);
    g_assert_cmpint(MLX5_GET(reg + PMLP_lane_OFF, PMLP_lane_module), ==, 0);
    g_assert_cmpint(MLX5_GET(reg + PMLP_lane_OFF + 12, PMLP_lane_tx_lane), ==, 3);

    /* page 0 window in 48-byte reads */
    for (off = 0; off < 256; off += 48) {
        uint16_t n = MIN(48, 256 - off);
        g_assert_cmpint(mcia(d, 0, MLX5_I2C_ADDR_LOW, 0, off, n, m + off, &status), ==, 0);
        g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_GOOD);
    }
    g_assert_cmpint(m[0], ==, 0x11);                     /* QSFP28 */
    g_assert_cmpint(m[2] & 4, ==, 0);                    /* paged: page 3 is there */
    g_assert_cmpint(m[128], ==, 0x11);
    g_assert_cmpmem(m + 148, 8, "Mellanox", 8);
    g_assert_cmpmem(m + 168, 13, "MMA1B00-C100D", 13);
    g_assert_cmpmem(m + 165, 3, "\x00\x02\xc9", 3);
    for (sum = 0, i = 128; i <= 190; i++) {
        sum += m[i];
    }
    g_assert_cmpint(sum, ==, m[191]);                   /* CC_BASE */
    for (sum = 0, i = 192; i <= 222; i++) {
        sum += m[i];
    }
    g_assert_cmpint(sum, ==, m[223]);                   /* CC_EXT */
    g_assert_cmpint(mlx5_ld16(m + 22), ==, 0x2380);     /* 35.5 C */
    /* page 3: the thresholds (temperature high alarm 75 C) */
    g_assert_cmpint(mcia(d, 0, MLX5_I2C_ADDR_LOW, 3, 128, 8, m, &status), ==, 0);
    g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_GOOD);
    g_assert_cmphex(mlx5_ld16(m), ==, 0x4b00);

    /* no page 1, no module 1, no I2C device 0x51, no read across the window */
    g_assert_cmpint(mcia(d, 0, MLX5_I2C_ADDR_LOW, 1, 128, 8, m, &status), ==, 0);
    g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_I2C_ERROR);
    g_assert_cmpint(mcia(d, 1, MLX5_I2C_ADDR_LOW, 0, 0, 8, m, &status), ==, 0);
    g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_NOT_CONNECTED);
    g_assert_cmpint(mcia(d, 0, 0x51, 0, 0, 8, m, &status), ==, 0);
    g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_I2C_ERROR);
    g_assert_cmpint(mcia(d, 0, MLX5_I2C_ADDR_LOW, 0, 250, 8, m, &status), ==, 0);
    g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_I2C_ERROR);
    /* more than 12 dwords at once, or a write: refused */
    g_assert_cmpint(mcia(d, 0, MLX5_I2C_ADDR_LOW, 0, 0, 49, m, &status), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(reg_access(d, MLX5_REG_PMLP, true, reg, PMLP_SIZE), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    tdrv_free(d);
}

/* ---- the vendor-specific capability's gateway (mlx5_vsc.c) ------------------------------ */

enum { CTRL = 4, COUNTER = 8, SEM = 0xc, ADDR = 0x10, DATA = 0x14 };

static uint32_t gw_read(TDrv *d, uint16_t space, uint32_t addr)
{
    mlx5_core_vsc_write(d->c, CTRL, space);
    mlx5_core_vsc_write(d->c, ADDR, addr);
    g_assert_cmphex(mlx5_core_vsc_read(d->c, ADDR), ==, addr | 0x80000000u);
    return mlx5_core_vsc_read(d->c, DATA);
}

static void gw_write(TDrv *d, uint16_t space, uint32_t addr, uint32_t val)
{
    mlx5_core_vsc_write(d->c, CTRL, space);
    mlx5_core_vsc_write(d->c, DATA, val);
    mlx5_core_vsc_write(d->c, ADDR, addr | 0x80000000u);
    g_assert_cmphex(mlx5_core_vsc_read(d->c, ADDR), ==, addr);
}

/* An ICMD access-register command of register @id (@len bytes at @reg, GET or SET) as mstflint
 * sends it; returns the ICMD status, the register TLV's status in *@st. */
static int icmd_reg(TDrv *d, uint16_t id, bool set, uint8_t *reg, unsigned len, int *st)
{
    uint8_t mb[20 + 0x100] = { 0 };
    unsigned i;
    uint32_t ctrl;

    g_assert_cmpuint(len % 4, ==, 0);
    mlx5_st32(mb, 1u << 27 | 4u << 16);
    mlx5_st32(mb + 4, (uint32_t)id << 16 | (set ? 2u : 1u) << 8 | 1);
    mlx5_st32(mb + 16, 3u << 27 | ((len + 4) / 4) << 16);
    memcpy(mb + 20, reg, len);
    for (i = 0; i < 20 + len; i += 4) {
        gw_write(d, 3, 0x100000 + i, mlx5_ld32(mb + i));
    }
    gw_write(d, 3, 0, (uint32_t)0x9001 << 16 | 1);
    ctrl = gw_read(d, 3, 0);
    g_assert_cmpint(ctrl & 1, ==, 0);                   /* done at once */
    for (i = 0; i < 20 + len; i += 4) {
        mlx5_st32(mb + i, gw_read(d, 3, 0x100000 + i));
    }
    memcpy(reg, mb + 20, len);
    *st = (mlx5_ld32(mb) >> 8) & 0x7f;
    return (ctrl >> 8) & 0xff;
}

static void test_vsc(void)
{
    TDrv *d = up();
    uint8_t reg[MCAM_SIZE] = { 0 };
    uint32_t t;
    int st;

    /* spaces: CR, ICMD (and ICMD_EXT), semaphores are there; the others (crdump's 7) not */
    for (unsigned sp = 0; sp < 0x10; sp++) {
        bool ok = sp == 1 || sp == 2 || sp == 3 || sp == 0xa;
        mlx5_core_vsc_write(d->c, CTRL, 0xdead0000u | sp);
        g_assert_cmphex(mlx5_core_vsc_read(d->c, CTRL), ==, (ok ? 1u << 29 : 0) | sp);
    }
    /* the gateway's lock: a ticket takes it while it is free */
    t = mlx5_core_vsc_read(d->c, COUNTER);
    g_assert_cmpuint(t, !=, 0);
    g_assert_cmpuint(mlx5_core_vsc_read(d->c, COUNTER), !=, t);
    mlx5_core_vsc_write(d->c, SEM, t);
    mlx5_core_vsc_write(d->c, SEM, t + 1);
    g_assert_cmpuint(mlx5_core_vsc_read(d->c, SEM), ==, t);
    mlx5_core_vsc_write(d->c, SEM, 0);
    g_assert_cmpuint(mlx5_core_vsc_read(d->c, SEM), ==, 0);

    /* CR space: a ConnectX-5's hardware ID (not the PCI device ID), configuration done */
    g_assert_cmphex(gw_read(d, 2, 0xf0014), ==, 0x20d);
    g_assert_cmphex(gw_read(d, 2, 0xb5e04) >> 31, ==, 0);
    gw_write(d, 2, 0xf0014, 0);
    g_assert_cmphex(gw_read(d, 2, 0xf0014), ==, 0x20d);
    /* a space that is not there: the flag flips, the data is 0 */
    g_assert_cmphex(gw_read(d, 7, 0x1000), ==, 0);

    /* semaphore space: mlx5_core's SW-reset lock at 0x20, taken only while free */
    gw_write(d, 0xa, 0x20, 0x1234);
    gw_write(d, 0xa, 0x20, 0x5678);
    g_assert_cmphex(gw_read(d, 0xa, 0x20), ==, 0x1234);
    gw_write(d, 0xa, 0x20, 0);
    g_assert_cmphex(gw_read(d, 0xa, 0x20), ==, 0);

    /* ICMD: the mailbox size; MCAM through access register; an unknown register; opcode */
    g_assert_cmpuint(gw_read(d, 3, 0x1000), >=, 0x340);
    g_assert_cmpint(icmd_reg(d, MLX5_REG_MCAM, false, reg, sizeof(reg), &st), ==, 0);
    g_assert_cmpint(st, ==, 0);
    g_assert_true(mcam_has(reg, MLX5_REG_MCQS));
    memset(reg, 0, sizeof(reg));
    g_assert_cmpint(icmd_reg(d, 0x1234, false, reg, 16, &st), ==, 0);
    g_assert_cmpint(st, ==, 4);                         /* register not supported */
    g_assert_cmpint(icmd_reg(d, 0x9030, false, reg, 8, &st), ==, 0);
    g_assert_cmpint(st, ==, 4);                         /* so is an 8-byte one (MNVQC) */
    g_assert_cmpint(icmd_reg(d, MLX5_REG_MCQS, true, reg, MCQS_SIZE, &st), ==, 0);
    g_assert_cmpint(st, ==, 4);                         /* no SET of a read-only one */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MCQS_component_index, 3);
    g_assert_cmpint(icmd_reg(d, MLX5_REG_MCQS, false, reg, MCQS_SIZE, &st), ==, 0);
    g_assert_cmpint(st, ==, 7);                         /* bad parameter: no component 3 */
    gw_write(d, 1, 0, (uint32_t)0x1111 << 16 | 1);      /* through ICMD_EXT */
    g_assert_cmphex(gw_read(d, 1, 0), ==, (uint32_t)0x1111 << 16 | 1 << 8);

    /* a reset frees everything */
    gw_write(d, 0xa, 0, 77);
    mlx5_core_vsc_reset(d->c);
    g_assert_cmphex(gw_read(d, 0xa, 0), ==, 0);
    tdrv_free(d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/fw/devlink-info", test_devlink_info);
    g_test_add_func("/mlx5/fw/module", test_module);
    g_test_add_func("/mlx5/fw/vsc", test_vsc);
    return g_test_run();
}
