/*
 * QTest testcases for the mlx5-hca device through its libqos driver
 * (tests/qtest/libqos/mlx5-hca.c): the initialization segment, the command
 * queue with inline data and mailboxes, and the errors the PRM gives a driver
 * that sends what the device does not take.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "qemu/bswap.h"
#include "qemu/module.h"
#include "hw/rdma/mlx5/mlx5_prm.h"
#include "libqos/qgraph.h"
#include "libqos/mlx5-hca.h"

/* Simple command: opcode, op_mod, no further input; 16 bytes of output. */
static int cmd_simple(QMlx5Hca *d, uint16_t opcode, uint16_t op_mod,
                      uint8_t *out, uint32_t outlen)
{
    uint8_t in[16] = { 0 };

    MLX5_SET(in, CMD_IN_opcode, opcode);
    MLX5_SET(in, CMD_IN_op_mod, op_mod);
    return qmlx5_cmd(d, in, sizeof(in), out, outlen);
}

/* The initialization segment: interface revision, timer and health counter. */
static void test_mlx5_hca_iseg(void *obj, void *data, QGuestAllocator *alloc)
{
    QMlx5Hca *d = &((QMlx5HcaPCI *)obj)->hca;
    QTestState *qts = d->pdev->bus->qts;
    uint32_t before, after, synd;

    g_assert_cmpuint(qmlx5_iseg_readl(d, MLX5_ISEG_CMDIF_REV_FW_SUB) >> 16, ==,
                     MLX5_CMD_IF_REV);
    g_assert_cmpuint(qmlx5_iseg_readl(d, MLX5_ISEG_INITIALIZING) >> 31, ==, 0);
    /* the health counter ticks while the machine runs (mlx5 health poll) */
    before = qmlx5_iseg_readl(d, MLX5_ISEG_HEALTH_COUNTER);
    qtest_clock_step(qts, 1000000000);
    after = qmlx5_iseg_readl(d, MLX5_ISEG_HEALTH_COUNTER);
    g_assert_cmpuint(after, !=, before);
    /* no health syndrome on a healthy device (byte 1 of its dword) */
    synd = qmlx5_iseg_readl(d, MLX5_ISEG_HEALTH_SYND & ~3) >> 16 & 0xff;
    g_assert_cmpuint(synd, ==, 0);
}

/* The first commands of mlx5_core's probe, inline and through a mailbox. */
static void test_mlx5_hca_cmd(void *obj, void *data, QGuestAllocator *alloc)
{
    QMlx5Hca *d = &((QMlx5HcaPCI *)obj)->hca;
    uint8_t out[QUERY_ADAPTER_OUT_SIZE];

    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, out, 16), ==, 0);
    g_assert_cmphex(out[0], ==, MLX5_CMD_STAT_OK);
    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, out,
                               QUERY_ISSI_OUT_SIZE), ==, 0);
    g_assert_cmphex(out[0], ==, MLX5_CMD_STAT_OK);
    /* ISSI 0 and 1 (mlx5_core picks 1) */
    g_assert_cmphex(MLX5_GET(out, QUERY_ISSI_OUT_supported_issi_dw0) & 3, ==,
                    3);
    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_QUERY_ADAPTER, 0, out,
                               QUERY_ADAPTER_OUT_SIZE), ==, 0);
    g_assert_cmphex(out[0], ==, MLX5_CMD_STAT_OK);
    g_assert_cmphex(MLX5_GET(out, QUERY_ADAPTER_OUT_ieee_vendor_id), ==,
                    MLX5_IEEE_VENDOR_ID);
}

/* What a driver gets for an unknown command and a short output. */
static void test_mlx5_hca_cmd_bad(void *obj, void *data, QGuestAllocator *alloc)
{
    QMlx5Hca *d = &((QMlx5HcaPCI *)obj)->hca;
    uint8_t out[16], big[QUERY_ISSI_OUT_SIZE];

    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, out, 16), ==, 0);
    g_assert_cmpint(cmd_simple(d, 0x7ff, 0, out, 16), ==, 0);
    g_assert_cmphex(out[0], ==, MLX5_CMD_STAT_BAD_OP_ERR);
    g_assert_cmphex(ldl_be_p(out + 4), !=, 0);      /* with a syndrome */
    /* an output shorter than the command's */
    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, out, 16), ==, 0);
    g_assert_cmphex(out[0], ==, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
    /* and the queue goes on */
    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, big,
                               QUERY_ISSI_OUT_SIZE), ==, 0);
    g_assert_cmphex(big[0], ==, MLX5_CMD_STAT_OK);
}

/* qom-set of "inject": the reply, or its error's description (g_free it) */
static char *inject(QTestState *qts, const char *request)
{
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'qom-set', 'arguments': {"
                           " 'path': '/machine/peripheral/hca0',"
                           " 'property': 'inject', 'value': %s } }", request);
    char *err = NULL;

    if (qdict_haskey(rsp, "error")) {
        err = g_strdup(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"));
    }
    qobject_unref(rsp);
    return err;
}

/*
 * Fault injection through QMP (docs/user-guide.md): errors for bad requests,
 * a failing command.
 */
static void test_mlx5_hca_inject(void *obj, void *data, QGuestAllocator *alloc)
{
    QMlx5Hca *d = &((QMlx5HcaPCI *)obj)->hca;
    QTestState *qts = d->pdev->bus->qts;
    uint8_t out[16];
    QDict *rsp;
    char *err;

    err = inject(qts, "cmd-fail opcode=0x104 colour=blue");
    g_assert_nonnull(strstr(err, "unknown argument 'colour=blue'"));
    g_free(err);
    err = inject(qts, "explode");
    g_assert_nonnull(strstr(err, "unknown request"));
    g_free(err);
    err = inject(qts, "cmd-fail opcode=0x104 status=0x5 syndrome=0x77");
    g_assert_null(err);
    rsp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': {"
                    " 'path': '/machine/peripheral/hca0', 'property': 'inject' } }");
    g_assert_cmpstr(qdict_get_str(rsp, "return"), ==,
                    "cmd-fail opcode=0x104 status=0x5 syndrome=0x77 count=1");
    qobject_unref(rsp);
    /* ENABLE_HCA (0x104) fails once with that status and syndrome, then runs */
    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, out, 16), ==, 0);
    g_assert_cmphex(out[0], ==, 0x5);
    g_assert_cmphex(ldl_be_p(out + 4), ==, 0x77);
    g_assert_cmpint(cmd_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, out, 16), ==, 0);
    g_assert_cmphex(out[0], ==, MLX5_CMD_STAT_OK);
}

static void mlx5_hca_register_tests(void)
{
    qos_add_test("iseg", "mlx5-hca", test_mlx5_hca_iseg, NULL);
    qos_add_test("cmd", "mlx5-hca", test_mlx5_hca_cmd, NULL);
    qos_add_test("cmd-bad", "mlx5-hca", test_mlx5_hca_cmd_bad, NULL);
    qos_add_test("inject", "mlx5-hca", test_mlx5_hca_inject, NULL);
}

libqos_init(mlx5_hca_register_tests);
