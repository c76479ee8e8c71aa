/*
 * mlx5 HCA core: the flash and the firmware update (PRM "Management
 * Registers": MCC, MCDA), as mlx5_core's `devlink dev flash` drives them
 * through mlxfw.
 *
 * The flash holds one boot image. An update takes the update handle (MCC
 * LOCK_UPDATE_HANDLE), announces the component's size (UPDATE_COMPONENT:
 * state DOWNLOAD), writes it in blocks (MCDA), has it verified
 * (VERIFY_COMPONENT: state LOCKED, or an error code: a bad format, another
 * PSID, a bad digest) and written to the flash (ACTIVATE), and gives the
 * handle back (RELEASE_UPDATE_HANDLE). The image written is pending (MCQS
 * update state ACTIVE_PENDING_RESET, MCQI reads its version) until a firmware
 * reset runs it; the running image is what the flash held when the device
 * started. Each step happens at once, so the driver's state polls never wait.
 *
 * The image is the emulator's own format (docs/firmware-image.md):
 *   0x00 "MLX5QFW1"   0x08 header length (0x40)   0x0c payload length
 *   0x10 PSID (16 bytes, NUL-padded)
 *   0x20 major, minor, subminor (16 bits each), 16 reserved bits
 *   0x28 year (16 bits), month, day, hour, minute (8 bits each)
 *   0x30 CRC-32 of the payload   0x34 CRC-32 of bytes 0..0x33
 *   0x40 the payload (a multiple of 4 bytes)
 * all big-endian. mlx5_core sends it in an MFA2 package
 * (scripts/mlx5-fw-image.py makes both).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include <zlib.h>
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "trace.h"

#define FW_IMG_MAGIC            "MLX5QFW1"
#define FW_IMG_HDR              0x40

enum {
    MLX5_SYND_FSM_HANDLE = 0x40000010,      /* not the update handle */
    MLX5_SYND_FSM_STATE = 0x40000011,       /* not in this state */
    MLX5_SYND_FSM_SIZE = 0x40000012,        /* a size out of bounds */
    MLX5_SYND_FSM_BLOCK = 0x40000013,       /* a block out of bounds */
    MLX5_SYND_FSM_INSTRUCTION = 0x40000014, /* an unknown instruction */
};

/*
 * Check an image of @len bytes for @psid; MLX5_FSM_OK and its description
 * in @info, or the error code of VERIFY_COMPONENT.
 */
uint8_t mlx5_flash_check(const uint8_t *img, size_t len, const char *psid,
                         Mlx5FwImage *info)
{
    uint32_t plen;

    if (len < FW_IMG_HDR || memcmp(img, FW_IMG_MAGIC, 8) ||
        mlx5_ld32(img + 8) != FW_IMG_HDR ||
        crc32(0, img, 0x34) != mlx5_ld32(img + 0x34)) {
        return MLX5_FSM_REJECTED_BAD_FORMAT;
    }
    plen = mlx5_ld32(img + 0x0c);
    if (plen != len - FW_IMG_HDR || plen % 4) {
        return MLX5_FSM_REJECTED_BAD_FORMAT;
    }
    if (strncmp((const char *)img + 0x10, psid, 16)) {
        return MLX5_FSM_REJECTED_NOT_APPLICABLE;
    }
    if (crc32(0, img + FW_IMG_HDR, plen) != mlx5_ld32(img + 0x30)) {
        return MLX5_FSM_REJECTED_DIGEST_ERR;
    }
    info->major = mlx5_ld16(img + 0x20);
    info->minor = mlx5_ld16(img + 0x22);
    info->subminor = mlx5_ld16(img + 0x24);
    info->date.year = mlx5_ld16(img + 0x28);
    info->date.month = img[0x2a];
    info->date.day = img[0x2b];
    info->date.hour = img[0x2c];
    info->date.minute = img[0x2d];
    return MLX5_FSM_OK;
}

/* Run @info's image: the version the device reports everywhere. */
static void mlx5_flash_run(Mlx5Core *c, const Mlx5FwImage *info)
{
    c->cfg.fw_major = info->major;
    c->cfg.fw_minor = info->minor;
    c->cfg.fw_subminor = info->subminor;
    c->fw_date = info->date;
}

const char *mlx5_core_flash_load(Mlx5Core *c, const void *img, size_t len,
                                 const void *nv, size_t nv_len)
{
    Mlx5Flash *f = &c->flash;
    Mlx5FwImage info;
    const char *bad;

    bad = mlx5_nv_load(c, nv, nv_len);
    if (bad) {
        return bad;
    }
    if (!len) {
        return NULL;            /* no image written: the built-in one runs */
    }
    if (len > MLX5_FLASH_MAX) {
        return "the image is larger than the flash";
    }
    switch (mlx5_flash_check(img, len, c->cfg.board_id, &info)) {
    case MLX5_FSM_OK:
        break;
    case MLX5_FSM_REJECTED_NOT_APPLICABLE:
        return "the image is for another PSID";
    case MLX5_FSM_REJECTED_DIGEST_ERR:
        return "the image's payload does not match its CRC";
    default:
        return "not an mlx5-hca firmware image";
    }
    g_free(f->image);
    f->image = g_memdup2(img, len);
    f->image_len = len;
    f->pending = false;
    mlx5_flash_run(c, &info);
    return NULL;
}

/* The flash's content to the host's file: the image and the configuration. */
void mlx5_flash_store(Mlx5Core *c)
{
    uint8_t nv[MLX5_NV_SAVE_MAX];
    size_t n = mlx5_nv_save(c, nv);

    if (c->ops->flash_write) {
        c->ops->flash_write(c->opaque, c->flash.image, c->flash.image_len, nv,
                            n);
    }
}

/*
 * A firmware reset (or a reboot): the pending image (if any) and configuration
 * run.
 */
void mlx5_flash_boot(Mlx5Core *c, bool reboot)
{
    Mlx5Flash *f = &c->flash;

    mlx5_nv_boot(c, reboot);
    if (f->pending) {
        f->pending = false;
        mlx5_flash_run(c, &f->pending_info);
        trace_mlx5_flash_boot(f->pending_info.major, f->pending_info.minor,
                              f->pending_info.subminor);
    }
}

/* The download (if any) is dropped; no error stands. */
static void mlx5_flash_drop(Mlx5Flash *f)
{
    g_free(f->dl);
    f->dl = NULL;
    f->dl_size = f->dl_written = 0;
    f->verified = false;
    f->error = MLX5_FSM_OK;
}

/* The update state machine's reset: the handle and any download are gone. */
void mlx5_flash_reset(Mlx5Core *c)
{
    Mlx5Flash *f = &c->flash;

    mlx5_flash_drop(f);
    f->handle = 0;
    f->state = MLX5_FSM_IDLE;
}

void mlx5_flash_free(Mlx5Core *c)
{
    mlx5_flash_reset(c);
    g_free(c->flash.image);
    c->flash.image = NULL;
}

bool mlx5_flash_pending(Mlx5Core *c, Mlx5FwImage *info)
{
    if (c->flash.pending) {
        *info = c->flash.pending_info;
    }
    return c->flash.pending;
}

static void mlx5_flash_verify(Mlx5Core *c)
{
    Mlx5Flash *f = &c->flash;

    f->error = f->dl_written < f->dl_size ? MLX5_FSM_REJECTED_BAD_FORMAT :
               mlx5_flash_check(f->dl, f->dl_size, c->cfg.board_id,
                                &f->dl_info);
    f->state = MLX5_FSM_LOCKED;
    f->verified = f->error == MLX5_FSM_OK;
    trace_mlx5_flash_verify(f->dl_size, f->error);
}

/* ACTIVATE: the verified download goes to the flash, pending a reset. */
static void mlx5_flash_activate(Mlx5Core *c)
{
    Mlx5Flash *f = &c->flash;

    g_free(f->image);
    f->image = f->dl;
    f->image_len = f->dl_size;
    f->dl = NULL;
    f->dl_size = 0;
    f->verified = false;
    f->pending = true;
    f->pending_info = f->dl_info;
    mlx5_flash_store(c);
    trace_mlx5_flash_activate(f->pending_info.major, f->pending_info.minor,
                              f->pending_info.subminor);
}

void mlx5_reg_mcc(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    Mlx5Flash *f = &c->flash;
    /* a read queries; a write runs its instruction */
    uint8_t ins = cmd->op_mod == MLX5_ACCESS_REG_WRITE ?
                  MLX5_GET(reg, MCC_instruction) : MLX5_MCC_QUERY;
    uint32_t handle = MLX5_GET(reg, MCC_update_handle);
    uint32_t size = MLX5_GET(reg, MCC_component_size);
    int64_t now = c->ops->now_ns(c->opaque);
    uint32_t synd = 0;

    trace_mlx5_flash_mcc(ins, handle, f->state);
    if (ins != MLX5_MCC_QUERY && ins != MLX5_MCC_LOCK_UPDATE_HANDLE &&
        (f->state == MLX5_FSM_IDLE || handle != f->handle)) {
        synd = MLX5_SYND_FSM_HANDLE;
    } else {
        switch (ins) {
        case MLX5_MCC_QUERY:
            break;
        case MLX5_MCC_LOCK_UPDATE_HANDLE:
            if (f->state != MLX5_FSM_IDLE) {
                synd = MLX5_SYND_FSM_STATE;
                break;
            }
            /*
             * the handle is 0: mlx5_core never reads the one LOCK gives and
             * uses 0 for every later step
             */
            f->handle = 0;
            f->state = MLX5_FSM_LOCKED;
            f->error = MLX5_FSM_OK;
            break;
        case MLX5_MCC_RELEASE_UPDATE_HANDLE:
            mlx5_flash_reset(c);
            break;
        case MLX5_MCC_UPDATE_COMPONENT:
            if (f->state != MLX5_FSM_LOCKED) {
                synd = MLX5_SYND_FSM_STATE;
            } else if (MLX5_GET(reg, MCC_component_index)) {
                synd = MLX5_SYND_FSM_SIZE;
            } else if (size < FW_IMG_HDR || size > MLX5_FLASH_MAX) {
                synd = MLX5_SYND_FSM_SIZE;
            } else {
                mlx5_flash_drop(f);
                f->dl = g_malloc0(size);
                f->dl_size = size;
                f->state = MLX5_FSM_DOWNLOAD;
            }
            break;
        case MLX5_MCC_VERIFY_COMPONENT:
            if (f->state != MLX5_FSM_DOWNLOAD) {
                synd = MLX5_SYND_FSM_STATE;
            } else {
                mlx5_flash_verify(c);
            }
            break;
        case MLX5_MCC_ACTIVATE:
            if (f->state != MLX5_FSM_LOCKED || !f->verified) {
                synd = MLX5_SYND_FSM_STATE;
            } else {
                mlx5_flash_activate(c);
            }
            break;
        case MLX5_MCC_CANCEL:
            mlx5_flash_drop(f);
            f->state = MLX5_FSM_LOCKED;
            break;
        default:
            synd = MLX5_SYND_FSM_INSTRUCTION;
            break;
        }
    }
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    if (ins != MLX5_MCC_QUERY) {
        f->last_cmd_ns = now;
    }
    memset(reg + 8, 0, MCC_SIZE - 8);
    MLX5_SET(reg, MCC_time_elapsed_since_last_cmd,
             MIN((now - f->last_cmd_ns) / 1000000000, 0xfff));
    MLX5_SET(reg, MCC_update_handle, f->handle);
    MLX5_SET(reg, MCC_error_code, f->error);
    MLX5_SET(reg, MCC_control_state, f->state);
    MLX5_SET(reg, MCC_component_size, f->dl_size);
}

/*
 * MCDA: a block of the download. The data comes in the command's input only
 * (mlx5_core's output is the header), each dword byte-swapped.
 */
void mlx5_reg_mcda(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    Mlx5Flash *f = &c->flash;
    const uint8_t *in = cmd->in + ACCESS_REG_DATA_OFF + MCDA_DATA_OFF;
    uint32_t off = MLX5_GET(reg, MCDA_offset);
    uint32_t size = MLX5_GET(reg, MCDA_size);
    uint32_t i, have;

    have = cmd->inlen - MIN(cmd->inlen, ACCESS_REG_DATA_OFF + MCDA_DATA_OFF);
    if (f->state == MLX5_FSM_IDLE ||
        MLX5_GET(reg, MCDA_update_handle) != f->handle) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FSM_HANDLE);
        return;
    }
    if (f->state != MLX5_FSM_DOWNLOAD) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FSM_STATE);
        return;
    }
    if (cmd->op_mod != MLX5_ACCESS_REG_WRITE || off % 4 || !size ||
        size > MLX5_MCDA_MAX_WRITE || size > have || off > f->dl_size ||
        size > f->dl_size - off) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_FSM_BLOCK);
        return;
    }
    for (i = 0; i < size; i += 4) {
        uint8_t b[4] = { 0 };
        unsigned k;

        /* a last partial dword: the bytes of it there are */
        memcpy(b, in + i, MIN(4, size - i));
        for (k = 0; k < MIN(4, size - i); k++) {
            f->dl[off + i + k] = b[3 - k];
        }
    }
    /* the driver writes in order: count what is there */
    if (off <= f->dl_written) {
        f->dl_written = MAX(f->dl_written, off + size);
    }
    f->last_cmd_ns = c->ops->now_ns(c->opaque);
    trace_mlx5_flash_mcda(off, size);
}
