/*
 * Unit tests of fault injection and the firmware reset (hw/rdma/mlx5/mlx5_inject.c): what a
 * request arms, what a malformed one gets, a command failing or never completing, health
 * syndromes in the init segment, and the reset mlx5_core's recovery asks for.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5-testqp.h"
#include "mlx5_internal.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"

static TDrv *up(void)
{
    TDrv *d = tdrv_new();

    tdrv_bringup(d);
    return d;
}

/* mlx5_core_inject: the error, or NULL */
static char *inject(TDrv *d, const char *req)
{
    return mlx5_core_inject(d->c, req);
}

static void inject_ok(TDrv *d, const char *req)
{
    g_autofree char *err = inject(d, req);

    g_assert_null(err);
}

static void test_requests(void)
{
    static const char *const bad[] = {
        "", "  ", "nonsense", "cmd-fail", "cmd-fail status=3", "cmd-fail opcode=0x10000",
        "cmd-fail opcode=0x100 status=0", "cmd-fail opcode=0x100 count=0",
        "cmd-fail opcode=0x100 count=1000001", "cmd-fail opcode=0x100 status=0x100",
        "cmd-fail opcode=-1", "cmd-fail opcode=12x", "cmd-fail opcode=", "cmd-fail opcode",
        "cmd-fail opcode=0x100 colour=blue", "cmd-timeout opcode=0x100 status=1",
        "cmd-timeout opcode=0x100 syndrome=1", "cmd-timeout opcode=0x100 =1",
        "cmd-fail opcode=0x100 complete-after-ms=1",
        "cmd-timeout opcode=0x100 complete-after-ms=3600001",
        "health", "health synd=0x100", "health synd=1 fatal=maybe", "health synd=0 fatal=on",
        "health synd=1 ext-synd=0x10000", "port", "port link=sideways",
        "port link=down link=up",
    };
    TDrv *d = up();
    g_autofree char *state = NULL;
    char *err;

    for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
        err = inject(d, bad[i]);
        if (!err) {
            g_error("'%s' was taken", bad[i]);
        }
        g_free(err);
        state = mlx5_core_inject_state(d->c);
        g_assert_cmpstr(state, ==, "");             /* a bad request changes nothing */
        g_clear_pointer(&state, g_free);
    }
    err = mlx5_core_inject(d->c, NULL);
    g_assert_nonnull(err);
    g_free(err);

    inject_ok(d, "cmd-fail opcode=0x100 status=0x4 syndrome=0x1234 count=2");
    inject_ok(d, "  cmd-timeout\topcode=0x101 op-mod=1 complete-after-ms=20 ");
    inject_ok(d, "health synd=8 ext-synd=0x42");
    state = mlx5_core_inject_state(d->c);
    g_assert_cmpstr(state, ==, "cmd-fail opcode=0x100 status=0x4 syndrome=0x1234 count=2; "
                    "cmd-timeout opcode=0x101 op-mod=0x1 complete-after-ms=20 count=1; "
                    "health synd=0x8 ext-synd=0x42 fatal=off");
    g_clear_pointer(&state, g_free);

    /* eight slots */
    for (unsigned i = 2; i < MLX5_INJECT_CMDS; i++) {
        inject_ok(d, "cmd-fail opcode=0x900");
    }
    err = inject(d, "cmd-fail opcode=0x901");
    g_assert_nonnull(err);
    g_free(err);
    inject_ok(d, "clear");
    inject_ok(d, "health synd=0");
    state = mlx5_core_inject_state(d->c);
    g_assert_cmpstr(state, ==, "");
    tdrv_free(d);
}

/*
 * Requests made of random words from the grammar and garbage: each is taken or refused with a
 * message, and once disarmed the device runs commands as before; nothing crashes.
 */
static void test_random_requests(void)
{
    static const char *const words[] = {
        "cmd-fail", "cmd-timeout", "health", "clear", "opcode=0x800", "opcode=0x801",
        "op-mod=0", "op-mod=0xffff", "status=0x3", "status=0", "syndrome=0xffffffff",
        "syndrome=0x100000000", "count=2", "count=0", "complete-after-ms=1", "synd=0x10",
        "synd=0", "ext-synd=1", "fatal=off", "=", "opcode==1", "opcode=0x", "x", "\t", "",
        "opcode=99999999999999999999999", "port", "link=down", "link=up", "module=out", "module=in",
    };
    GRand *r = g_rand_new_with_seed(28);
    TDrv *d = up();
    uint8_t out[16];

    for (unsigned i = 0; i < 3000; i++) {
        GString *req = g_string_new("");
        unsigned n = g_rand_int_range(r, 0, 6);
        char *err, *state;

        for (unsigned k = 0; k < n; k++) {
            g_string_append_printf(req, "%s%s", k ? " " : "",
                                   words[g_rand_int_range(r, 0, G_N_ELEMENTS(words))]);
        }
        err = inject(d, req->str);
        state = mlx5_core_inject_state(d->c);
        g_assert_true(err == NULL || *err);
        g_free(err);
        g_free(state);
        g_string_free(req, true);
        if (i % 50 == 49) {
            /* disarmed, the device runs commands as before */
            inject_ok(d, "clear");
            inject_ok(d, "health synd=0");
            g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, out, 16), ==, 0);
        }
    }
    g_rand_free(r);
    tdrv_free(d);
}

/*
 * port link=down: the port leaves ACTIVE whatever the cable does, until link=up; module=out
 * takes the link down too, with the port module event
 */
static void test_port(void)
{
    TDrv *d = up();
    char *state = NULL, *err;

    g_assert_true(d->c->port.link_up);
    inject_ok(d, "port link=down");
    g_assert_false(d->c->port.link_up);
    state = mlx5_core_inject_state(d->c);
    g_assert_cmpstr(state, ==, "port link=down");
    mlx5_core_link_set_up(d->c, 1, true);           /* the backend's link event */
    g_assert_false(d->c->port.link_up);
    inject_ok(d, " port   link=up ");
    g_assert_true(d->c->port.link_up);
    mlx5_core_link_set_up(d->c, 1, false);          /* the backend's link still counts */
    g_assert_false(d->c->port.link_up);
    inject_ok(d, "port link=up");
    g_assert_false(d->c->port.link_up);
    mlx5_core_link_set_up(d->c, 1, true);

    /* the module pulled out: the link down, the event; back in: both back */
    trace_counts_reset();
    inject_ok(d, "port module=out");
    g_assert_false(d->c->port.link_up);
    g_assert_cmpuint(trace_count("mlx5_module_event"), ==, 1);
    g_free(state);
    state = mlx5_core_inject_state(d->c);
    g_assert_cmpstr(state, ==, "port module=out");
    inject_ok(d, "port module=out");                /* no second event */
    g_assert_cmpuint(trace_count("mlx5_module_event"), ==, 1);
    mlx5_core_link_set_up(d->c, 1, true);
    g_assert_false(d->c->port.link_up);
    inject_ok(d, "port module=in");
    g_assert_true(d->c->port.link_up);
    g_assert_cmpuint(trace_count("mlx5_module_event"), ==, 2);
    err = mlx5_core_inject(d->c, "port module=sideways");
    g_assert_nonnull(err);
    g_free(err);
    g_free(state);
    tdrv_free(d);
}

/*
 * wqe-error: the next WQE of the chosen QP completes with the syndrome without running, the QP
 * goes to error and the next WQE flushes; another QP is not touched
 */
static void test_wqe_error(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[16], cqe[64];
    g_autofree char *req = NULL;
    char *err;

    tqp_rc_pair(&qa, a, &qb, b);
    err = mlx5_core_inject(a->c, "wqe-error qpn=1 syndrome=0x3");   /* not a requester one */
    g_assert_nonnull(err);
    g_free(err);
    req = g_strdup_printf("wqe-error qpn=0x%x syndrome=0x4", qa.qpn);
    g_assert_null(mlx5_core_inject(a->c, req));
    tqp_post_recv(&qb, 4096, qb.mem);
    data_seg(segs, 100, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 1000);
    tqp_expect_req_err(&qa, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
    tqp_expect_req_err(&qa, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    g_assert_false(tqp_poll(&qb, cqe));                 /* nothing was sent */
    g_assert_cmpuint(trace_count("mlx5_inject_wqe_hit"), ==, 1);
    tdrv_free(a);
    tdrv_free(b);

    /*
     * a receive queue: b's receive WQE fails with the syndrome, b's QP goes to error and the
     * requester gets the responder's NAK
     */
    a = new_node(1);
    b = new_node(2);
    tqp_rc_pair(&qa, a, &qb, b);
    err = mlx5_core_inject(b->c, "wqe-error rqn=1 syndrome=0x10");  /* not a receive one */
    g_assert_nonnull(err);
    g_free(err);
    err = mlx5_core_inject(b->c, "wqe-error qpn=1 rqn=1");           /* one queue */
    g_assert_nonnull(err);
    g_free(err);
    g_free(req);
    req = g_strdup_printf("wqe-error rqn=0x%x syndrome=0x4", qb.qpn);
    g_assert_null(mlx5_core_inject(b->c, req));
    g_free(req);
    req = mlx5_core_inject_state(b->c);
    g_assert_nonnull(strstr(req, "wqe-error rqn="));
    tqp_post_recv(&qb, 4096, qb.mem);
    tqp_post_recv(&qb, 4096, qb.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_ERR);
    g_assert_cmpuint(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
    g_assert_true(tqp_poll(&qb, cqe));                  /* the other receive WQE flushes */
    g_assert_cmpuint(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpuint(trace_count("mlx5_inject_wqe_hit"), ==, 2);
    tdrv_free(a);
    tdrv_free(b);
}

static void test_cmd_fail(void)
{
    TDrv *d = up();
    uint8_t out[16];
    uint32_t pd;

    /* the default status (internal error) and syndrome (0x5eed0000 | opcode), twice */
    inject_ok(d, "cmd-fail opcode=0x800 count=2");
    for (unsigned i = 0; i < 2; i++) {
        g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, out, 16), ==,
                        MLX5_CMD_STAT_INT_ERR);
        g_assert_cmphex(tdrv_syndrome(out), ==, 0x5eed0800);
    }
    /* nothing ran: the first PD is the one a fresh device gives */
    pd = tdrv_alloc_pd(d);
    tdrv_free(d);
    d = up();
    g_assert_cmpuint(tdrv_alloc_pd(d), ==, pd);

    /* op_mod selects: QUERY_HCA_CAP's max (op_mod 0) fails, cur (1) runs */
    inject_ok(d, "cmd-fail opcode=0x100 op-mod=0 status=0x3 syndrome=0xabcdef01");
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 0, 0, 0, out, 16), ==, 3);
    g_assert_cmphex(tdrv_syndrome(out), ==, 0xabcdef01);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 0, 0, 0, out, 16), ==, 0);
    g_assert_cmpuint(trace_count("mlx5_inject_cmd_hit"), >=, 3);
    tdrv_free(d);
}

/* Post ALLOC_PD in the next slot and ring: has the device given the slot back? */
static bool alloc_pd_completes(TDrv *d, unsigned irqs_before)
{
    uint64_t slot_pa = d->cmdq_pa + d->slot * MLX5_CMD_LAYOUT_SIZE;
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE] = { 0 };

    lay[MLX5_CMD_LAY_TYPE] = MLX5_PCI_CMD_XPORT;
    mlx5_st32(lay + MLX5_CMD_LAY_INLEN, 16);
    mlx5_st32(lay + MLX5_CMD_LAY_OUTLEN, 16);
    MLX5_SET(lay + MLX5_CMD_LAY_IN, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_PD);
    lay[MLX5_CMD_LAY_STATUS_OWN] = 1;
    fake_write(d->h, slot_pa, lay, sizeof(lay));
    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, 1u << d->slot);
    mlx5_core_run(d->c, 1000);
    fake_read(d->h, slot_pa, lay, sizeof(lay));
    d->slot = (d->slot + 1) % (MLX5_CMDQ_ENTRIES - 1);
    if (lay[MLX5_CMD_LAY_STATUS_OWN] & 1) {
        /* still the device's: no output, no completion event */
        g_assert_cmpuint(mlx5_ld32(lay + MLX5_CMD_LAY_OUT), ==, 0);
        g_assert_cmpuint(tdrv_irqs(d, 0), ==, irqs_before);
        return false;
    }
    return true;
}

static void test_cmd_timeout(void)
{
    TDrv *d = up();
    uint32_t pd;

    g_assert_true(d->events);
    inject_ok(d, "cmd-timeout opcode=0x800");
    g_assert_false(alloc_pd_completes(d, tdrv_irqs(d, 0)));
    /* the next one and other commands complete as before (on the next slots) */
    pd = tdrv_alloc_pd(d);
    g_assert_cmpuint(pd, >, 0);
    g_assert_cmpuint(tdrv_alloc_pd(d), !=, pd);

    /* complete-after-ms: held back, then run and completed (its slot's event) */
    inject_ok(d, "cmd-timeout opcode=0x800 complete-after-ms=5");
    {
        unsigned slot = d->slot, irqs = tdrv_irqs(d, 0);
        uint64_t slot_pa = d->cmdq_pa + slot * MLX5_CMD_LAYOUT_SIZE;
        uint8_t lay[MLX5_CMD_LAYOUT_SIZE], eqe[MLX5_EQE_SIZE];

        g_assert_false(alloc_pd_completes(d, irqs));
        g_assert_cmpint(d->h->deadline, ==, d->h->now + 5000000);
        d->h->now += 4000000;
        mlx5_core_expire(d->c, d->h->now);
        mlx5_core_run(d->c, 1000);
        fake_read(d->h, slot_pa, lay, sizeof(lay));
        g_assert_cmpuint(lay[MLX5_CMD_LAY_STATUS_OWN] & 1, ==, 1);  /* not yet */
        d->h->now += 1000000;
        mlx5_core_expire(d->c, d->h->now);
        mlx5_core_run(d->c, 1000);
        fake_read(d->h, slot_pa, lay, sizeof(lay));
        g_assert_cmpuint(lay[MLX5_CMD_LAY_STATUS_OWN] & 1, ==, 0);
        g_assert_cmpuint(lay[MLX5_CMD_LAY_OUT], ==, 0);                /* status OK */
        g_assert_cmpuint(tdrv_irqs(d, 0), >, irqs);
        tdrv_eqe(d, d->cmd_eq_pa, d->cmd_eq_ci % 256, eqe);
        g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_CMD);
        g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data), ==, 1u << slot);
        d->cmd_eq_ci++;
        tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_EQ_DB_ARM,
                       (d->cmd_eqn << 24) | (d->cmd_eq_ci & 0xffffff));
        g_assert_cmpuint(trace_count("mlx5_inject_cmd_late"), ==, 1);
    }
    g_assert_cmpuint(tdrv_alloc_pd(d), >, 0);
    tdrv_free(d);
}

static uint8_t iseg_byte(TDrv *d, unsigned off)
{
    return tdrv_mmio_rd32(d, off & ~3u) >> (8 * (3 - (off & 3)));
}

static void test_health(void)
{
    TDrv *d = up();
    Mlx5CoreConfig cfg;
    uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    char *err;

    /* a firmware reset may be asked for; no command timeout offered by default */
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_INITIALIZING), ==, 1u << 30);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMD_Q_INIT_TO), ==, 0);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMD_EXEC_TO), ==, 0);

    /* not fatal: syndrome and severity (valid, error), the device runs on */
    inject_ok(d, "health synd=0x10 ext-synd=0x1234");
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_SYND), ==, 0x10);
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_RFR_SEVERITY), ==, 0x0b);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_HEALTH_RFR_SEVERITY + 4) & 0xffff, ==,
                    0x1234);
    tdrv_alloc_pd(d);
    inject_ok(d, "health synd=0");
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_SYND), ==, 0);
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_RFR_SEVERITY), ==, 0);

    /* fatal: RFR, and the device takes no command */
    inject_ok(d, "health synd=0x8 fatal=on");
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_RFR_SEVERITY), ==, 0x8a);
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_SYND), ==, 0x8);
    g_assert_false(alloc_pd_completes(d, tdrv_irqs(d, 0)));
    err = mlx5_core_inject(d->c, "health synd=0x1");       /* not until the reset */
    g_assert_nonnull(err);
    g_free(err);

    /* the driver's firmware reset: health clear, NIC interface DISABLED, then it loads again */
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, 7u << 8);
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_SYND), ==, 0);
    g_assert_cmphex(iseg_byte(d, MLX5_ISEG_HEALTH_RFR_SEVERITY), ==, 0);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ) >> 8 & 7, ==, 1);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDQ_ADDR_H), ==, 0);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ) >> 8 & 7, ==, 0);
    d->slot = 0;
    d->events = false;
    tdrv_bringup(d);
    tdrv_alloc_pd(d);
    g_assert_cmpuint(trace_count("mlx5_fw_sw_reset"), >=, 1);
    tdrv_free(d);

    /* cmd-timeout-ms: the command timeout in ms, with the driver's 2 s init timeout */
    mlx5_core_config_default(&cfg, mac);
    cfg.cmd_timeout_ms = 3000;
    g_assert_null(mlx5_core_config_check(&cfg));
    d = tdrv_new_cfg(&cfg);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMD_EXEC_TO), ==, 3000);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMD_Q_INIT_TO), ==, 2000);
    /* which makes mlx5_core read DTOR right after the boot pages: its defaults, in ms */
    tdrv_bringup(d);
    {
        uint8_t in[0x10 + DTOR_SIZE] = { 0 }, out[0x10 + DTOR_SIZE];

        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ACCESS_REG);
        MLX5_SET(in, CMD_IN_op_mod, MLX5_ACCESS_REG_READ);
        MLX5_SET(in, ACCESS_REG_IN_register_id, MLX5_REG_DTOR);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
        g_assert_cmphex(mlx5_ld32(out + 0x10 + 4 * DTOR_pcie_toggle_to_DW), ==, 2000);
        g_assert_cmphex(mlx5_ld32(out + 0x10 + 4 * DTOR_health_poll_to_DW), ==, 2000);
        g_assert_cmphex(mlx5_ld32(out + 0x10 + 4 * DTOR_reset_unload_to_DW), ==, 300000);
    }
    tdrv_free(d);
    cfg.cmd_timeout_ms = MLX5_CMD_TIMEOUT_MAX + 1;
    g_assert_nonnull(mlx5_core_config_check(&cfg));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/inject/requests", test_requests);
    g_test_add_func("/mlx5/inject/random-requests", test_random_requests);
    g_test_add_func("/mlx5/inject/cmd-fail", test_cmd_fail);
    g_test_add_func("/mlx5/inject/port", test_port);
    g_test_add_func("/mlx5/inject/wqe-error", test_wqe_error);
    g_test_add_func("/mlx5/inject/cmd-timeout", test_cmd_timeout);
    g_test_add_func("/mlx5/inject/health", test_health);
    return g_test_run();
}
