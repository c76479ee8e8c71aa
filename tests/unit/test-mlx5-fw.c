/*
 * Unit tests of the firmware plane (hw/rdma/mlx5/mlx5_fw.c): the management registers of the
 * firmware components, read as mlx5_core's `devlink dev info` does (MCAM, MCQS, MCQI), the
 * cable module's (PMLP, MCIA; hw/rdma/mlx5/mlx5_module.c) as `ethtool -m` reads it, and what a
 * malformed access gets.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <zlib.h>
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

/* After a reset of the device: the driver's load from scratch (command queue, bring-up). */
static void reload(TDrv *d)
{
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
    d->slot = 0;
    d->events = false;
    tdrv_bringup(d);
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
    g_assert_true(mcam_has(reg, MLX5_REG_MCC));
    g_assert_true(mcam_has(reg, MLX5_REG_MCDA));
    g_assert_true(mcam_has(reg, MLX5_REG_MGIR));
    g_assert_true(mcam_has(reg, MLX5_REG_MQIS));
    g_assert_false(mcam_has(reg, 0x9029));                  /* not a register here */
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
    /* the module pulled out (fault injection): not connected until it is back */
    g_assert_null(mlx5_core_inject(d->c, "port module=out"));
    g_assert_cmpint(mcia(d, 0, MLX5_I2C_ADDR_LOW, 0, 0, 8, m, &status), ==, 0);
    g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_NOT_CONNECTED);
    g_assert_null(mlx5_core_inject(d->c, "port module=in"));
    g_assert_cmpint(mcia(d, 0, MLX5_I2C_ADDR_LOW, 0, 0, 8, m, &status), ==, 0);
    g_assert_cmpint(status, ==, MLX5_MCIA_STATUS_GOOD);
    tdrv_free(d);
}


/* ---- the firmware update (mlx5_flash.c), as mlx5_core's mlxfw drives it ------------------ */

#define IMG_PAYLOAD 4096
#define IMG_LEN     (0x40 + IMG_PAYLOAD)

/* An image in the device's format (docs/firmware-image.md). */
static void make_image(uint8_t *img, const char *psid, uint16_t major, uint16_t minor,
                       uint16_t sub)
{
    unsigned i;

    memset(img, 0, IMG_LEN);
    memcpy(img, "MLX5QFW1", 8);
    mlx5_st32(img + 8, 0x40);
    mlx5_st32(img + 12, IMG_PAYLOAD);
    strncpy((char *)img + 0x10, psid, 16);
    mlx5_st16(img + 0x20, major);
    mlx5_st16(img + 0x22, minor);
    mlx5_st16(img + 0x24, sub);
    mlx5_st16(img + 0x28, 2024);
    img[0x2a] = 5;
    img[0x2b] = 1;
    for (i = 0; i < IMG_PAYLOAD; i++) {
        img[0x40 + i] = i * 7;
    }
    mlx5_st32(img + 0x30, crc32(0, img + 0x40, IMG_PAYLOAD));
    mlx5_st32(img + 0x34, crc32(0, img, 0x34));
}

/* MCC: a write runs @ins; returns the command status (state and error code in *@state, *@err). */
static int mcc(TDrv *d, bool write, uint8_t ins, uint32_t index, uint32_t size,
               uint8_t *state, uint8_t *err)
{
    uint8_t reg[REG_LEN] = { 0 };
    int st;

    MLX5_SET(reg, MCC_instruction, ins);
    MLX5_SET(reg, MCC_component_index, index);
    MLX5_SET(reg, MCC_component_size, size);
    st = reg_access(d, MLX5_REG_MCC, write, reg, MCC_SIZE);
    *state = MLX5_GET(reg, MCC_control_state);
    *err = MLX5_GET(reg, MCC_error_code);
    return st;
}

/* MCDA of @size bytes of @data at @off, each dword byte-swapped as mlx5_reg_mcda_set does. */
static int mcda(TDrv *d, uint32_t off, uint32_t size, const uint8_t *data)
{
    uint8_t in[0x10 + 0x10 + 0x800] = { 0 }, out[0x10 + 0x10] = { 0 };
    uint32_t i;

    g_assert_cmpuint(size, <=, 0x800);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ACCESS_REG);
    MLX5_SET(in, CMD_IN_op_mod, MLX5_ACCESS_REG_WRITE);
    MLX5_SET(in, ACCESS_REG_IN_register_id, MLX5_REG_MCDA);
    MLX5_SET(in + 0x10, MCDA_offset, off);
    MLX5_SET(in + 0x10, MCDA_size, size);
    for (i = 0; i + 4 <= size; i += 4) {
        mlx5_st32(in + 0x20 + i, data[i] | data[i + 1] << 8 | data[i + 2] << 16 |
                  (uint32_t)data[i + 3] << 24);
    }
    return tdrv_exec(d, in, 0x20 + size, out, sizeof(out));
}

/* mlxfw_firmware_flash's steps; the FSM's error code after the verify (0: written). */
static uint8_t flash(TDrv *d, const uint8_t *img, uint32_t len)
{
    uint8_t state, err;
    uint32_t off;

    g_assert_cmpint(mcc(d, false, 0, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(state, ==, MLX5_FSM_IDLE);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_LOCK_UPDATE_HANDLE, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(mcc(d, false, 0, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(state, ==, MLX5_FSM_LOCKED);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_UPDATE_COMPONENT, 0, len, &state, &err), ==, 0);
    g_assert_cmpint(mcc(d, false, 0, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(state, ==, MLX5_FSM_DOWNLOAD);
    for (off = 0; off < len; off += 0x400) {
        g_assert_cmpint(mcda(d, off, MIN(0x400, len - off), img + off), ==, 0);
    }
    g_assert_cmpint(mcc(d, true, MLX5_MCC_VERIFY_COMPONENT, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(mcc(d, false, 0, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(state, ==, MLX5_FSM_LOCKED);
    if (err) {
        /* mlxfw cancels and releases; ACTIVATE would be refused */
        g_assert_cmpint(mcc(d, true, MLX5_MCC_ACTIVATE, 0, 0, &state, &err), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
        g_assert_cmpint(mcc(d, true, MLX5_MCC_CANCEL, 0, 0, &state, &err), ==, 0);
        g_assert_cmpint(mcc(d, true, MLX5_MCC_RELEASE_UPDATE_HANDLE, 0, 0, &state, &err), ==,
                        0);
        return 0xff;
    }
    g_assert_cmpint(mcc(d, true, MLX5_MCC_ACTIVATE, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(mcc(d, false, 0, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(state, ==, MLX5_FSM_LOCKED);
    g_assert_cmpint(err, ==, 0);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_RELEASE_UPDATE_HANDLE, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(mcc(d, false, 0, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(state, ==, MLX5_FSM_IDLE);
    return 0;
}

/* The version MCQI reports (running, or the pending image's); -1 if refused. */
static int64_t mcqi_version(TDrv *d, bool pending)
{
    uint8_t reg[REG_LEN] = { 0 };

    MLX5_SET(reg, MCQI_info_type, MLX5_MCQI_INFO_VERSION);
    MLX5_SET(reg, MCQI_read_pending_component, pending);
    MLX5_SET(reg, MCQI_data_size, MCQI_VER_SIZE);
    if (reg_io(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF, MCQI_DATA_OFF + MCQI_VER_SIZE)) {
        return -1;
    }
    return MLX5_GET(reg + MCQI_DATA_OFF, MCQI_VER_version);
}

static uint8_t mcqs_state(TDrv *d)
{
    uint8_t reg[REG_LEN] = { 0 };

    g_assert_cmpint(reg_access(d, MLX5_REG_MCQS, false, reg, MCQS_SIZE), ==, 0);
    return MLX5_GET(reg, MCQS_component_update_state);
}

static GByteArray *flash_written, *nv_written;

static void capture_flash(void *opaque, const void *img, size_t len, const void *nv,
                          size_t nv_len)
{
    g_byte_array_set_size(flash_written, 0);
    g_byte_array_append(flash_written, img, len);
    g_byte_array_set_size(nv_written, 0);
    g_byte_array_append(nv_written, nv, nv_len);
}

/* A device whose flash writes land in flash_written and nv_written, brought up. */
static TDrv *flash_node(Mlx5CoreConfig *cfg)
{
    static Mlx5CoreOps ops;
    uint8_t mac[6] = { 2, 0x4d, 0x58, 0x35, 0, 1 };
    TDrv *d;

    flash_written = g_byte_array_new();
    nv_written = g_byte_array_new();
    ops = fake_host_ops;
    ops.flash_write = capture_flash;
    mlx5_core_config_default(cfg, mac);
    cfg->num_vfs = 8;                           /* the device's default */
    d = tdrv_new_ops(cfg, &ops);
    tdrv_bringup(d);
    return d;
}

static void test_flash(void)
{
    static uint8_t img[IMG_LEN], bad[IMG_LEN];
    uint8_t reg[REG_LEN] = { 0 }, state, err;
    Mlx5CoreConfig cfg;
    const char *why;
    TDrv *d = flash_node(&cfg);

    trace_counts_reset();

    /* what mlxfw reads first: dword blocks of up to 1 KiB, images up to 8 MiB */
    MLX5_SET(reg, MCQI_info_type, MLX5_MCQI_INFO_CAPABILITIES);
    MLX5_SET(reg, MCQI_data_size, MCQI_CAP_SIZE);
    g_assert_cmpint(reg_io(d, MLX5_REG_MCQI, false, reg, MCQI_DATA_OFF,
                           MCQI_DATA_OFF + MCQI_CAP_SIZE), ==, 0);
    g_assert_cmpint(MLX5_GET(reg + MCQI_DATA_OFF, MCQI_CAP_log_mcda_word_size), ==, 2);
    g_assert_cmpint(MLX5_GET(reg + MCQI_DATA_OFF, MCQI_CAP_mcda_max_write_size), ==, 0x400);
    g_assert_cmpint(MLX5_GET(reg + MCQI_DATA_OFF, MCQI_CAP_max_component_size), ==, 8 << 20);

    /* bad images: the verify's error code, nothing written, nothing pending */
    make_image(img, "MT_0000000999", 16, 36, 1000);
    flash(d, img, IMG_LEN);
    make_image(bad, cfg.board_id, 16, 36, 1000);
    bad[IMG_LEN - 1] ^= 1;                                  /* the payload's CRC */
    flash(d, bad, IMG_LEN);
    make_image(bad, cfg.board_id, 16, 36, 1000);
    bad[0] = 'X';                                           /* the magic */
    flash(d, bad, IMG_LEN);
    flash(d, bad, 0x40);                                    /* the header alone */
    g_assert_cmpuint(trace_count("mlx5_flash_verify"), ==, 4);
    g_assert_cmpuint(trace_count("mlx5_flash_activate"), ==, 0);
    g_assert_cmpuint(flash_written->len, ==, 0);
    g_assert_cmpint(mcqi_version(d, true), ==, -1);
    g_assert_cmpint(mcqs_state(d), ==, MLX5_MCQS_UPDATE_STATE_IDLE);

    /* each error code as mlxfw reports it */
    make_image(img, "MT_0000000999", 16, 36, 1000);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_LOCK_UPDATE_HANDLE, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_UPDATE_COMPONENT, 0, IMG_LEN, &state, &err), ==, 0);
    for (uint32_t off = 0; off < IMG_LEN; off += 0x400) {
        g_assert_cmpint(mcda(d, off, MIN(0x400, IMG_LEN - off), img + off), ==, 0);
    }
    g_assert_cmpint(mcc(d, true, MLX5_MCC_VERIFY_COMPONENT, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(err, ==, MLX5_FSM_REJECTED_NOT_APPLICABLE);
    /* out of order or out of bounds: refused, the state unchanged */
    g_assert_cmpint(mcc(d, true, MLX5_MCC_LOCK_UPDATE_HANDLE, 0, 0, &state, &err), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mcda(d, 0, 4, img), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);  /* not downloading */
    g_assert_cmpint(mcc(d, true, MLX5_MCC_UPDATE_COMPONENT, 0, (8 << 20) + 4, &state, &err),
                    ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_UPDATE_COMPONENT, 1, IMG_LEN, &state, &err), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_UPDATE_COMPONENT, 0, IMG_LEN, &state, &err), ==, 0);
    g_assert_cmpint(mcda(d, IMG_LEN - 4, 8, img), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mcda(d, 2, 4, img), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mcda(d, 0, 0x404, img), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mcc(d, true, 0x77, 0, 0, &state, &err), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* verified before the whole image came: a bad format */
    g_assert_cmpint(mcc(d, true, MLX5_MCC_VERIFY_COMPONENT, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(err, ==, MLX5_FSM_REJECTED_BAD_FORMAT);
    g_assert_cmpint(mcc(d, true, MLX5_MCC_RELEASE_UPDATE_HANDLE, 0, 0, &state, &err), ==, 0);
    g_assert_cmpint(mcda(d, 0, 4, img), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);  /* no handle */

    /* a good image: written, pending; the old version runs until a firmware reset */
    make_image(img, cfg.board_id, 16, 36, 1000);
    g_assert_cmpint(flash(d, img, IMG_LEN), ==, 0);
    g_assert_cmpuint(flash_written->len, ==, IMG_LEN);
    g_assert_cmpmem(flash_written->data, IMG_LEN, img, IMG_LEN);
    g_assert_cmphex(mcqi_version(d, false), ==, 16u << 24 | 35 << 16 | 2000);
    g_assert_cmphex(mcqi_version(d, true), ==, 16u << 24 | 36 << 16 | 1000);
    g_assert_cmpint(mcqs_state(d), ==, MLX5_MCQS_UPDATE_STATE_ACTIVE_PENDING_RESET);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, 7u << 8);  /* mlx5_core's SW reset */
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, 36u << 16 | 16);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDIF_REV_FW_SUB) & 0xffff, ==, 1000);
    reload(d);
    g_assert_cmphex(mcqi_version(d, false), ==, 16u << 24 | 36 << 16 | 1000);
    g_assert_cmpint(mcqi_version(d, true), ==, -1);
    g_assert_cmpint(mcqs_state(d), ==, MLX5_MCQS_UPDATE_STATE_IDLE);
    memset(reg, 0, sizeof(reg));
    g_assert_cmpint(reg_access(d, MLX5_REG_MGIR, false, reg, MGIR_SIZE), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, MGIR_fw_extended_minor), ==, 36);
    g_assert_cmpint(MLX5_GET(reg, MGIR_fw_year), ==, 2024);
    tdrv_free(d);

    /* the next start from what was written; a bad flash is refused with a reason */
    d = tdrv_new_cfg(&cfg);
    g_assert_null(mlx5_core_flash_load(d->c, flash_written->data, flash_written->len,
                                       nv_written->data, nv_written->len));
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, 36u << 16 | 16);
    g_assert_null(mlx5_core_flash_load(d->c, NULL, 0, NULL, 0));
    make_image(img, "MT_0000000999", 16, 37, 1);
    why = mlx5_core_flash_load(d->c, img, IMG_LEN, NULL, 0);
    g_assert_nonnull(why);
    g_assert_nonnull(strstr(why, "PSID"));
    make_image(img, cfg.board_id, 16, 37, 1);
    g_assert_nonnull(mlx5_core_flash_load(d->c, img, IMG_LEN - 4, NULL, 0));
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, 36u << 16 | 16);
    tdrv_free(d);
    g_byte_array_free(flash_written, true);
    g_byte_array_free(nv_written, true);
}


/* ---- the firmware reset (mlx5_fw_reset.c): MFRL and the sync reset of fw_activate ---- */

/* MFRL: write dword 1 = @dw1 (or read if @dw1 < 0); returns the status, the register in @reg. */
static int mfrl(TDrv *d, int64_t dw1, uint8_t *reg)
{
    memset(reg, 0, MFRL_SIZE);
    if (dw1 >= 0) {
        mlx5_st32(reg + 4, dw1);
    }
    return reg_access(d, MLX5_REG_MFRL, dw1 >= 0, reg, MFRL_SIZE);
}

/* The next EQE of the general-event EQ: its sync_rst_state (-1: none). */
static int sync_event(TDrv *d, uint64_t pa, unsigned *ci)
{
    uint8_t eqe[MLX5_EQE_SIZE];

    tdrv_eqe(d, pa, *ci % 16, eqe);
    if ((eqe[MLX5_EQE_owner] & 1) != (*ci / 16) % 2) {
        return -1;
    }
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_GENERAL_EVENT);
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_GENERAL_SUBTYPE_PCI_SYNC_FOR_FW_UPDATE);
    ++*ci;
    return eqe[MLX5_EQE_data + 3] & 0xf;
}

static void test_reset(void)
{
    static uint8_t img[IMG_LEN];
    uint8_t reg[REG_LEN] = { 0 }, out[QUERY_HCA_CAP_OUT_SIZE];
    const uint32_t start = 0x20000008, ack = 0x08000008, nack = 0x10000008;
    Mlx5CoreConfig cfg;
    char *why;
    TDrv *d = flash_node(&cfg);
    uint64_t pa;
    unsigned ci = 0;

    /* what mlx5_core checks: MCAM's MFRL and reset_state, the caps, the driver's set ones */
    g_assert_cmpint(reg_access(d, MLX5_REG_MCAM, false, reg, MCAM_SIZE), ==, 0);
    g_assert_true(mcam_has(reg, MLX5_REG_MFRL));
    g_assert_true(mcam_has(reg, MLX5_REG_MROQ));
    g_assert_true(reg[MCAM_features_OFF + 13] & 0x20);     /* reset_state */
    g_assert_true(reg[MCAM_features_OFF + 13] & 0x08);     /* the driver owns level 3 */
    /* MROQ: level 3, full chip: the driver's reset (sync 1) by link toggle; nothing else */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MROQ_reset_trigger, 0x08);
    g_assert_cmpint(reg_access(d, MLX5_REG_MROQ, false, reg, 0x10), ==, 0);
    g_assert_cmphex(mlx5_ld32(reg), ==, 1u << 24 | 2u << 17 | 1u << 16 | 0x08);
    g_assert_cmpint(reg_access(d, MLX5_REG_MROQ, true, reg, 0x10), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_fast_teardown), ==, 1);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_general_notification_event), ==, 1);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_pci_sync_for_fw_update_event), ==, 1);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_pcie_reset_using_hotreset_method), ==, 0);

    /* the levels (3 and 6), the full-chip type, the link-toggle method, no reset running */
    g_assert_cmpint(mfrl(d, -1, reg), ==, 0);
    g_assert_cmphex(mlx5_ld32(reg + 4), ==, 0x01 << 8 | 0x48);

    /* no driver subscribed to the general event: a start is refused, the firmware's too */
    g_assert_cmpint(mfrl(d, start, reg), ==, MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    why = mlx5_core_inject(d->c, "fw-reset");
    g_assert_nonnull(why);
    g_free(why);
    tdrv_create_eq(d, 1ull << MLX5_EVENT_TYPE_GENERAL_EVENT, 4, 0, &pa);
    /* live patch, two levels at once, the port kept alive, an answer with no request */
    g_assert_cmpint(mfrl(d, 0x01, reg), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mfrl(d, 0x48, reg), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mfrl(d, 0x21000008, reg), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mfrl(d, ack, reg), ==, MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    g_assert_cmpint(mfrl(d, 0x20000040, reg), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(sync_event(d, pa, &ci), ==, -1);

    /* a NACK: the negotiation ends, ABORT; reset_state NACK until the next start */
    g_assert_cmpint(mfrl(d, start, reg), ==, 0);
    g_assert_cmpint(sync_event(d, pa, &ci), ==, MLX5_SYNC_RST_STATE_REQUEST);
    g_assert_cmpint(mfrl(d, start, reg), ==, MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    g_assert_cmpint(mfrl(d, -1, reg), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, MFRL_reset_state), ==, MLX5_MFRL_STATE_IN_NEGOTIATION);
    g_assert_cmpint(mfrl(d, nack, reg), ==, 0);
    g_assert_cmpint(sync_event(d, pa, &ci), ==, MLX5_SYNC_RST_STATE_ABORT);
    g_assert_cmpint(MLX5_GET(reg, MFRL_reset_state), ==, MLX5_MFRL_STATE_NACK);
    /* a plain PCI reset: the pending image stays pending */
    make_image(img, cfg.board_id, 16, 36, 1000);
    g_assert_cmpint(flash(d, img, IMG_LEN), ==, 0);
    mlx5_core_reset(d->c, MLX5_RESET_SYSTEM);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, 35u << 16 | 16);
    reload(d);
    g_assert_cmpint(mcqs_state(d), ==, MLX5_MCQS_UPDATE_STATE_ACTIVE_PENDING_RESET);
    g_assert_cmpint(mfrl(d, -1, reg), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, MFRL_reset_state), ==, MLX5_MFRL_STATE_IDLE);

    /* fw_activate: start, REQUEST, ACK, NOW; the fast teardown's end resets, the image runs */
    ci = 0;
    tdrv_create_eq(d, 1ull << MLX5_EVENT_TYPE_GENERAL_EVENT, 4, 0, &pa);
    g_assert_cmpint(mfrl(d, start, reg), ==, 0);
    g_assert_cmpint(sync_event(d, pa, &ci), ==, MLX5_SYNC_RST_STATE_REQUEST);
    g_assert_cmpint(mfrl(d, ack, reg), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, MFRL_reset_state), ==, MLX5_MFRL_STATE_RESET_IN_PROGRESS);
    g_assert_cmpint(sync_event(d, pa, &ci), ==, MLX5_SYNC_RST_STATE_NOW);
    g_assert_cmpint(mfrl(d, ack, reg), ==, MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_TEARDOWN_HCA, 0, 1, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);                       /* force: no */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_TEARDOWN_HCA, 0, 2, 0, out, 16), ==, 0);
    g_assert_cmpint(MLX5_GET(out, TEARDOWN_HCA_OUT_state), ==, 0);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa | 1u << 8);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ) >> 8 & 7, ==, 1);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, 36u << 16 | 16);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDIF_REV_FW_SUB) & 0xffff, ==, 1000);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_INITIALIZING) >> 12 & 0xf, ==, 0);
    reload(d);
    g_assert_cmpint(mfrl(d, -1, reg), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, MFRL_reset_state), ==, MLX5_MFRL_STATE_IDLE);
    g_assert_cmpint(mcqs_state(d), ==, MLX5_MCQS_UPDATE_STATE_IDLE);
    g_assert_cmphex(mcqi_version(d, false), ==, 16u << 24 | 36 << 16 | 1000);

    /* the tool's own reset: a level armed, the next PCI reset is the firmware's */
    make_image(img, cfg.board_id, 16, 37, 1);
    g_assert_cmpint(flash(d, img, IMG_LEN), ==, 0);
    g_assert_cmpint(mfrl(d, 0x08, reg), ==, 0);
    mlx5_core_reset(d->c, MLX5_RESET_SYSTEM);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, 37u << 16 | 16);

    /* the firmware asks (fault injection): REQUEST with no start; the driver answers */
    reload(d);
    ci = 0;
    tdrv_create_eq(d, 1ull << MLX5_EVENT_TYPE_GENERAL_EVENT, 4, 0, &pa);
    why = mlx5_core_inject(d->c, "fw-reset now");
    g_assert_nonnull(why);
    g_free(why);
    g_assert_null(mlx5_core_inject(d->c, "fw-reset"));
    g_assert_cmpint(sync_event(d, pa, &ci), ==, MLX5_SYNC_RST_STATE_REQUEST);
    why = mlx5_core_inject(d->c, "fw-reset");               /* one at a time */
    g_assert_nonnull(why);
    g_free(why);
    g_assert_cmpint(mfrl(d, ack, reg), ==, 0);
    g_assert_cmpint(sync_event(d, pa, &ci), ==, MLX5_SYNC_RST_STATE_NOW);
    tdrv_free(d);
    g_byte_array_free(flash_written, true);
    g_byte_array_free(nv_written, true);
}


/* ---- the non-volatile configuration (mlx5_nvconf.c), as mstconfig reads and writes it ---- */

/* MNVDA GET of TLV @type (current, next or default); returns the status, the value in @v. */
static int nv_get(TDrv *d, uint32_t type, uint32_t flags, uint8_t *v, unsigned *len)
{
    uint8_t reg[REG_LEN] = { 0 };
    int st;

    mlx5_st32(reg, flags | 0x100);
    mlx5_st32(reg + 4, type);
    st = reg_access(d, MLX5_REG_MNVDA, false, reg, MNVDA_DATA_OFF + 0x40);
    *len = mlx5_ld32(reg) & MNVDA_LENGTH_MASK;
    memcpy(v, reg + MNVDA_DATA_OFF, MIN(*len, 0x40));
    return st;
}

static int nv_set(TDrv *d, uint32_t type, const uint8_t *v, unsigned len)
{
    uint8_t reg[REG_LEN] = { 0 };

    mlx5_st32(reg, len);
    mlx5_st32(reg + 4, type);
    memcpy(reg + MNVDA_DATA_OFF, v, len);
    return reg_access(d, MLX5_REG_MNVDA, true, reg, MNVDA_DATA_OFF + MAX(len, 4u));
}

static void test_nvconf(void)
{
    uint8_t reg[REG_LEN] = { 0 }, v[0x40], out[QUERY_HCA_CAP_OUT_SIZE];
    Mlx5CoreConfig cfg;
    unsigned len;
    TDrv *d = flash_node(&cfg);

    /* MNVQC: type 0 answers (nothing), LINK_TYPE_P1 is read-write, the base MAC read-only */
    g_assert_cmpint(reg_access(d, MLX5_REG_MNVQC, false, reg, 16), ==, 0);
    g_assert_cmpint(mlx5_ld32(reg + 4) & 3, ==, 0);
    mlx5_st32(reg, 0x01010012);
    g_assert_cmpint(reg_access(d, MLX5_REG_MNVQC, false, reg, 16), ==, 0);
    g_assert_cmpint(mlx5_ld32(reg + 4) & 3, ==, 3);
    mlx5_st32(reg, 0x00000002);
    g_assert_cmpint(reg_access(d, MLX5_REG_MNVQC, false, reg, 16), ==, 0);
    g_assert_cmpint(mlx5_ld32(reg + 4) & 3, ==, 1);

    /* the base MAC and GUID: the device's */
    g_assert_cmpint(nv_get(d, 0x2, 0, v, &len), ==, 0);
    g_assert_cmpint(len, ==, 16);
    g_assert_cmphex(mlx5_ld32(v), ==, 0x024d);
    g_assert_cmphex(mlx5_ld32(v + 4), ==, 0x58350001);
    g_assert_cmphex(mlx5_ld64(v + 8), ==, cfg.node_guid);
    g_assert_cmpint(nv_set(d, 0x2, v, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* LINK_TYPE_P1: InfiniBand; Ethernet stored as next, current stays until a start */
    g_assert_cmpint(nv_get(d, 0x01010012, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmpint(len, ==, 4);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 1);
    mlx5_st32(v, 2 << 2);
    g_assert_cmpint(nv_set(d, 0x01010012, v, 4), ==, 0);
    g_assert_cmpint(nv_get(d, 0x01010012, 0, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 2);
    g_assert_cmpint(nv_get(d, 0x01010012, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 1);
    g_assert_cmpint(nv_get(d, 0x01010012, MNVDA_DEFAULT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 1);
    g_assert_cmpint(mlx5_nv_link_type(nv_written->data, nv_written->len), ==, 2);
    mlx5_st32(v, 3 << 2);                                   /* no such link type */
    g_assert_cmpint(nv_set(d, 0x01010012, v, 4), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* SR-IOV: on, with the function's 8 VFs; up to those; current after a firmware reset */
    g_assert_cmpint(nv_get(d, 0x81, 0, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v + 4), ==, 1u << 31 | 8);
    g_assert_cmpint(mlx5_core_sriov_total(d->c), ==, 8);
    memset(v, 0, 12);
    mlx5_st32(v + 4, 1u << 31 | 9);
    g_assert_cmpint(nv_set(d, 0x80, v, 12), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    mlx5_st32(v + 4, 1u << 31 | 4);
    g_assert_cmpint(nv_set(d, 0x80, v, 12), ==, 0);
    g_assert_cmpint(nv_set(d, 0x80, v, 8), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);   /* length */
    g_assert_cmpint(nv_get(d, 0x80, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v + 4), ==, 1u << 31 | 8);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, 7u << 8);  /* mlx5_core's SW reset */
    reload(d);
    g_assert_cmpint(nv_get(d, 0x80, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v + 4), ==, 1u << 31 | 4);
    g_assert_cmpint(mlx5_core_sriov_total(d->c), ==, 4);
    /* not the link type: it waits for a reboot (the driver stays loaded across a reset) */
    g_assert_cmpint(nv_get(d, 0x01010012, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 1);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_port_type), ==, 0);
    /* the machine's reset: the port is Ethernet now (caps, the Ethernet commands) */
    mlx5_core_reboot(d->c);
    reload(d);
    g_assert_cmpint(nv_get(d, 0x01010012, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 2);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_port_type), ==, 1);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, out, 16), ==, 0);
    /* and back to InfiniBand at the next reboot */
    mlx5_st32(v, 1 << 2);
    g_assert_cmpint(nv_set(d, 0x01010012, v, 4), ==, 0);
    mlx5_core_reboot(d->c);
    reload(d);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_port_type), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_OP_ERR);
    mlx5_st32(v, 2 << 2);                       /* Ethernet stored for the next start */
    g_assert_cmpint(nv_set(d, 0x01010012, v, 4), ==, 0);
    /* no such TLV */
    g_assert_cmpint(nv_get(d, 0x01010099, 0, v, &len), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* the next start from what was stored: all of it current */
    tdrv_free(d);
    d = tdrv_new_cfg(&cfg);
    g_assert_null(mlx5_core_flash_load(d->c, NULL, 0, nv_written->data, nv_written->len));
    tdrv_bringup(d);
    g_assert_cmpint(nv_get(d, 0x01010012, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 2);
    g_assert_cmpint(nv_get(d, 0x80, MNVDA_READ_CURRENT, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v + 4) & 0xffff, ==, 4);
    /* MNVIA: every TLV's next value back to its default */
    memset(reg, 0, sizeof(reg));
    g_assert_cmpint(reg_access(d, MLX5_REG_MNVIA, true, reg, 16), ==, 0);
    g_assert_cmpint(nv_get(d, 0x01010012, 0, v, &len), ==, 0);
    g_assert_cmphex(mlx5_ld32(v) >> 2 & 3, ==, 1);
    tdrv_free(d);

    /* a stored configuration the device does not take */
    d = tdrv_new_cfg(&cfg);
    memset(v, 0, sizeof(v));
    mlx5_st32(v, 0x00000002);
    mlx5_st32(v + 4, 16);
    g_assert_nonnull(mlx5_core_flash_load(d->c, NULL, 0, v, 24));
    g_assert_nonnull(mlx5_core_flash_load(d->c, NULL, 0, v, 5));
    g_assert_cmpint(mlx5_nv_link_type(v, 5), ==, 0);
    tdrv_free(d);
    g_byte_array_free(flash_written, true);
    g_byte_array_free(nv_written, true);
}

/* MGIR and MQIS, as mstflint's query reads them */
static void test_mgir_mqis(void)
{
    TDrv *d = up();
    uint8_t reg[REG_LEN] = { 0 };
    char name[64] = { 0 };
    unsigned off, len;

    g_assert_cmpint(reg_access(d, MLX5_REG_MGIR, false, reg, MGIR_SIZE), ==, 0);
    g_assert_cmphex(MLX5_GET(reg, MGIR_hw_device_id), ==, 0x1017);
    g_assert_cmphex(MLX5_GET(reg, MGIR_hw_hw_dev_id), ==, 0x20d);
    g_assert_cmpint(MLX5_GET(reg, MGIR_hw_num_ports), ==, 1);
    g_assert_cmpint(MLX5_GET(reg, MGIR_fw_major), ==, 16);
    g_assert_cmpint(MLX5_GET(reg, MGIR_fw_extended_sub_minor), ==, 2000);
    g_assert_cmpmem(reg + MGIR_fw_psid_OFF, 13, "MT_0000000008", 13);
    /* the model's name, 8 bytes at a time as mstflint reads it */
    for (off = 0; off < sizeof(name) - 8; off += 8) {
        memset(reg, 0, sizeof(reg));
        MLX5_SET(reg, MQIS_info_type, MLX5_MQIS_MODEL_NAME);
        MLX5_SET(reg, MQIS_read_offset, off);
        MLX5_SET(reg, MQIS_read_length, 8);
        g_assert_cmpint(reg_access(d, MLX5_REG_MQIS, false, reg, MQIS_SIZE), ==, 0);
        len = MLX5_GET(reg, MQIS_read_length);
        memcpy(name + off, reg + MQIS_DATA_OFF, len);
        if (off + len >= MLX5_GET(reg, MQIS_info_length)) {
            break;
        }
    }
    g_assert_cmpstr(name, ==, "QEMU-MLX5-HCA");
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, MQIS_info_type, 9);
    g_assert_cmpint(reg_access(d, MLX5_REG_MQIS, false, reg, MQIS_SIZE), ==,
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
    mlx5_st32(reg, 0x01010012);
    g_assert_cmpint(icmd_reg(d, 0x9030, false, reg, 8, &st), ==, 0);
    g_assert_cmpint(st, ==, 0);                         /* an 8-byte one (MNVQC) */
    g_assert_cmpint(mlx5_ld32(reg + 4) & 3, ==, 3);     /* LINK_TYPE_P1: read, write */
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
    g_test_add_func("/mlx5/fw/flash", test_flash);
    g_test_add_func("/mlx5/fw/reset", test_reset);
    g_test_add_func("/mlx5/fw/mgir-mqis", test_mgir_mqis);
    g_test_add_func("/mlx5/fw/nvconf", test_nvconf);
    return g_test_run();
}
