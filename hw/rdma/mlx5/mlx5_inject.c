/*
 * mlx5 HCA core: fault injection for driver developers, and the health buffer
 * and firmware reset that the driver's recovery runs on.
 *
 * What no card offers: make the firmware fail on purpose, at a chosen moment.
 * The requests (one per call of mlx5_core_inject; the PCI shell takes them
 * from its "inject" property, which QMP's and HMP's qom-set set at run time):
 *
 *   cmd-fail opcode=N [op-mod=N] [status=N] [syndrome=N] [count=N]
 *       the next count (1) executions of the command (with that op_mod, or
 *       any) fail with status (0x1 internal error) and syndrome (0x5eed0000 |
 *       opcode), without running: nothing changes in the device
 *   cmd-timeout opcode=N [op-mod=N] [count=N] [complete-after-ms=N]
 *       the next count (1) executions do not complete: the slot stays owned by
 *       the device, no output, no completion event (the driver times out after
 *       its command timeout, 60 s or the cmd-timeout-ms property). With
 *       complete-after-ms the command runs and completes that much later (slow
 *       firmware: mlx5_core frees the slot it held, "Command completion
 *       arrived after timeout"); without, never (mlx5_core keeps the slot, and
 *       its flush of the command interface at a later fatal error waits for
 *       it forever, as with a card whose firmware hangs)
 *   health synd=N [ext-synd=N] [fatal=on|off]
 *       the health buffer shows syndrome synd (0 clears a non-fatal one).
 *       Not fatal: the severity is an error and the device runs on (mlx5_core's
 *       fw reporter reports it). Fatal: RFR ("reset for recovery") is set and
 *       the device stops (no command, doorbell or frame is taken) until the
 *       driver's firmware reset or a PCI reset (mlx5_core's fw_fatal reporter
 *       recovers)
 *   wqe-error rqn=N [syndrome=N]
 *       the next WQE of receive queue N (an Ethernet RQ's, or QP N's receive
 *       queue: the next receive WQE that takes data) completes with an error
 *       CQE of that syndrome (0x1 local length, 0x2 local QP operation, the
 *       default, 0x4 local protection) and the queue goes to the error state
 *       (mlx5e's RX reporter recovers its RQ; a QP's requester gets a NAK)
 *   wqe-error qpn=N [syndrome=N]
 *       the next WQE of send queue N (a QP's, or an Ethernet SQ's) completes
 *       with an error CQE of that syndrome (default 0x2, local QP operation
 *       error; the requester syndromes the device produces: 0x1 0x2 0x4 0x6
 *       0x10..0x16) without running, and the queue goes to the error state, as
 *       a WQE the device finds malformed; the rest flush (mlx5e's TX reporter
 *       recovers its SQ)
 *   port link=down|up|module=out|in
 *       the port's link goes down (as if the cable were pulled: the port
 *       leaves ACTIVE, mlx5e loses its carrier) until link=up, whatever the
 *       network backend's link does meanwhile
 *   fw-reset
 *       the firmware asks for a synchronized reset, as when another host or
 *       the firmware itself starts one (mlx5_fw_reset.c): the general event
 *       REQUEST; the driver acknowledges (devlink's enable_remote_dev_reset)
 *       and the reset runs, then it reloads and counts a remote fw_activate,
 *       or it refuses and the device aborts. Refused when no driver takes the
 *       sync events or a reset is being negotiated
 *   clear
 *       disarm every command and WQE injection
 *
 * Numbers are decimal or 0x-hexadecimal. Every request is traced.
 *
 * The firmware reset: mlx5_core's recovery writes NIC interface SW_RESET (7)
 * into the init segment (FW_RESET_SUPPORTED is set in "initializing"); the
 * device resets as at power-on, objects, health buffer and command interface
 * included (the configuration-space gateway and its semaphores stay: the
 * driver holds the SW-reset semaphore across it), and then shows the NIC
 * interface DISABLED, which the driver waits for before it loads again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

#define MLX5_INJECT_COUNT_MAX   1000000u
#define MLX5_INJECT_SYND_BASE   0x5eed0000u
#define MLX5_INJECT_LATE_MAX    3600000u        /* an hour */

/* rfr_severity: reset-for-recovery bit, severity-valid bit, kernel levels */
#define MLX5_HEALTH_RFR         0x80
#define MLX5_HEALTH_SEV_VALID   0x08
#define MLX5_HEALTH_SEV_CRIT    2
#define MLX5_HEALTH_SEV_ERR     3

void mlx5_health_raise(Mlx5Core *c, uint8_t synd, uint16_t ext_synd,
                       bool fatal)
{
    if (c->health_fatal) {
        return;         /* the first fatal error stays until the reset */
    }
    trace_mlx5_health_raise(synd, ext_synd, fatal);
    c->health_synd = synd;
    c->health_ext_synd = synd ? ext_synd : 0;
    c->health_rfr_sev = !synd ? 0 :
        fatal ? MLX5_HEALTH_RFR | MLX5_HEALTH_SEV_VALID | MLX5_HEALTH_SEV_CRIT :
        MLX5_HEALTH_SEV_VALID | MLX5_HEALTH_SEV_ERR;
    if (fatal && synd) {
        c->health_fatal = true;
        c->db_pending = 0;
    }
}

void mlx5_fw_sw_reset(Mlx5Core *c)
{
    trace_mlx5_fw_sw_reset(c->health_synd);
    mlx5_core_reset(c, MLX5_RESET_SYSTEM);
    mlx5_flash_boot(c, false);  /* a new image written runs now */
    c->nic_interface = MLX5_NIC_IFC_DISABLED;
}

bool mlx5_inject_cmd_check(Mlx5Core *c, Mlx5CmdCtx *cmd, unsigned slot,
                           bool *no_completion)
{
    uint32_t bit = 1u << slot;
    unsigned i;

    *no_completion = false;
    if (c->cmd_late_run & bit) {
        c->cmd_late_run &= ~bit;        /* a held-back command's time came */
        return true;
    }
    for (i = 0; i < MLX5_INJECT_CMDS; i++) {
        Mlx5InjectCmd *in = &c->inject_cmd[i];

        if (!in->remaining || in->opcode != cmd->opcode ||
            (in->op_mod >= 0 && in->op_mod != cmd->op_mod)) {
            continue;
        }
        in->remaining--;
        trace_mlx5_inject_cmd_hit(mlx5_cmd_name(cmd->opcode), cmd->opcode,
                                  cmd->op_mod, in->status, in->syndrome,
                                  in->late_ms, in->remaining);
        if (in->status) {
            mlx5_cmd_fail(cmd, in->status, in->syndrome);
            return false;
        }
        *no_completion = true;
        if (in->late_ms) {
            c->cmd_late |= bit;
            c->cmd_late_at[slot] = c->ops->now_ns(c->opaque) +
                                   (int64_t)in->late_ms * 1000000;
            c->cmd_late_deadline = MIN(c->cmd_late_deadline,
                                       c->cmd_late_at[slot]);
            mlx5_exec_set_deadline(c);
        }
        return false;
    }
    return true;
}

void mlx5_inject_expire(Mlx5Core *c, int64_t now)
{
    unsigned i;

    c->cmd_late_deadline = INT64_MAX;
    for (i = 0; i < 32; i++) {
        if (!(c->cmd_late & (1u << i))) {
            continue;
        }
        if (c->cmd_late_at[i] <= now) {
            trace_mlx5_inject_cmd_late(i);
            c->cmd_late &= ~(1u << i);
            c->cmd_late_run |= 1u << i;
            c->db_pending |= 1u << i;
            c->ops->kick(c->opaque);
        } else {
            c->cmd_late_deadline = MIN(c->cmd_late_deadline,
                                       c->cmd_late_at[i]);
        }
    }
}

typedef struct Mlx5InjectArgs {
    const char *name;
    uint64_t max;
    uint64_t val;
    bool given;
} Mlx5InjectArgs;

/*
 * key=value words into @args (a NULL-named list); NULL, or what is wrong
 */
static char *mlx5_inject_parse(char **words, Mlx5InjectArgs *args)
{
    for (; *words; words++) {
        const char *eq = strchr(*words, '=');
        Mlx5InjectArgs *a;
        const char *end;
        uint64_t v;

        if (!**words) {
            continue;
        }
        for (a = args; a->name; a++) {
            if (eq && a->name[0] && strlen(a->name) == eq - *words &&
                !strncmp(*words, a->name, eq - *words)) {
                break;
            }
        }
        if (!a->name) {
            return g_strdup_printf("unknown argument '%s'", *words);
        }
        if (a->max == 1 && (!strcmp(eq + 1, "on") || !strcmp(eq + 1, "off"))) {
            v = !strcmp(eq + 1, "on");
        } else {
            errno = 0;
            v = g_ascii_strtoull(eq + 1, (char **)&end, 0);
            if (errno || end == eq + 1 || *end || eq[1] == '-') {
                return g_strdup_printf("'%s' is not a number", *words);
            }
        }
        if (v > a->max) {
            return g_strdup_printf("%s=0x%" PRIx64 " is above 0x%" PRIx64,
                                   a->name, v, a->max);
        }
        a->val = v;
        a->given = true;
    }
    return NULL;
}

static char *mlx5_inject_arm_cmd(Mlx5Core *c, bool timeout, char **words)
{
    enum { OPCODE, OP_MOD, COUNT, STATUS, SYNDROME, LATE };
    Mlx5InjectArgs args[] = {
        [OPCODE] = { .name = "opcode", .max = 0xffff },
        [OP_MOD] = { .name = "op-mod", .max = 0xffff },
        [COUNT] = { .name = "count", .max = MLX5_INJECT_COUNT_MAX, .val = 1 },
        [STATUS] = { .name = timeout ? "" : "status", .max = 0xff,
                     .val = MLX5_CMD_STAT_INT_ERR },
        [SYNDROME] = { .name = timeout ? "" : "syndrome", .max = UINT32_MAX },
        [LATE] = { .name = timeout ? "complete-after-ms" : "",
                   .max = MLX5_INJECT_LATE_MAX },
        { .name = NULL },
    };
    char *err = mlx5_inject_parse(words, args);
    Mlx5InjectCmd *slot = NULL;
    unsigned i;

    if (err) {
        return err;
    }
    if (!args[OPCODE].given) {
        return g_strdup("opcode= is required");
    }
    if (!timeout && !args[STATUS].val) {
        return g_strdup("status=0 is success, not a failure");
    }
    if (!args[COUNT].val) {
        return g_strdup("count=0 arms nothing");
    }
    for (i = 0; i < MLX5_INJECT_CMDS && !slot; i++) {
        if (!c->inject_cmd[i].remaining) {
            slot = &c->inject_cmd[i];
        }
    }
    if (!slot) {
        return g_strdup_printf("%u command injections are armed already "
                               "('clear' disarms them)", MLX5_INJECT_CMDS);
    }
    slot->opcode = args[OPCODE].val;
    slot->op_mod = args[OP_MOD].given ? (int32_t)args[OP_MOD].val : -1;
    slot->status = timeout ? 0 : args[STATUS].val;
    slot->syndrome = timeout ? 0 : args[SYNDROME].given ?
        (uint32_t)args[SYNDROME].val : MLX5_INJECT_SYND_BASE | slot->opcode;
    slot->late_ms = timeout ? args[LATE].val : 0;
    slot->remaining = args[COUNT].val;
    return NULL;
}

static char *mlx5_inject_health(Mlx5Core *c, char **words)
{
    enum { SYND, EXT, FATAL };
    Mlx5InjectArgs args[] = {
        [SYND] = { .name = "synd", .max = 0xff },
        [EXT] = { .name = "ext-synd", .max = 0xffff },
        [FATAL] = { .name = "fatal", .max = 1 },
        { .name = NULL },
    };
    char *err = mlx5_inject_parse(words, args);

    if (err) {
        return err;
    }
    if (!args[SYND].given) {
        return g_strdup("synd= is required");
    }
    if (c->health_fatal) {
        return g_strdup("a fatal syndrome is up: the device waits for a "
                        "reset");
    }
    if (args[FATAL].val && !args[SYND].val) {
        return g_strdup("a fatal error needs a syndrome (synd=0 is none)");
    }
    mlx5_health_raise(c, args[SYND].val, args[EXT].val, args[FATAL].val);
    return NULL;
}

bool mlx5_inject_wqe_hit(Mlx5Core *c, uint32_t qpn, bool recv, IbWcStatus *st)
{
    if (!c->inject_wqe_armed[recv] || c->inject_wqe_qpn[recv] != qpn) {
        return false;
    }
    c->inject_wqe_armed[recv] = false;
    *st = c->inject_wqe_st[recv];
    trace_mlx5_inject_wqe_hit(recv ? "receive" : "send", qpn,
                              mlx5_syndrome(*st));
    return true;
}

static char *mlx5_inject_wqe(Mlx5Core *c, char **words)
{
    enum { QPN, RQN, SYND };
    Mlx5InjectArgs args[] = {
        [QPN] = { .name = "qpn", .max = 0xffffff },
        [RQN] = { .name = "rqn", .max = 0xffffff },
        [SYND] = { .name = "syndrome", .max = 0xff,
                   .val = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR },
        { .name = NULL },
    };
    char *err = mlx5_inject_parse(words, args);
    bool recv = args[RQN].given;
    IbWcStatus st, last;

    if (err) {
        return err;
    }
    if (args[QPN].given == recv) {
        return g_strdup("one of qpn= (a send queue) and rqn= (a receive queue) "
                        "is required");
    }
    /*
     * the error status the device completes with that syndrome (mlx5_syndrome's
     * map; a flush is no error of the WQE's own): a requester's, or a receive
     * WQE's local length, operation or protection error
     */
    last = recv ? IB_WC_LOC_PROT_ERR : IB_WC_MW_BIND_ERR;
    for (st = IB_WC_LOC_LEN_ERR; st <= last; st++) {
        if (st != IB_WC_WR_FLUSH_ERR && mlx5_syndrome(st) == args[SYND].val) {
            break;
        }
    }
    if (st > last) {
        return g_strdup_printf("syndrome=0x%" PRIx64 " is not a %s error "
                               "syndrome (%s)", args[SYND].val,
                               recv ? "receive" : "requester",
                               recv ? "0x1 0x2 0x4" :
                               "0x1 0x2 0x4 0x6 0x10..0x16");
    }
    c->inject_wqe_armed[recv] = true;
    c->inject_wqe_qpn[recv] = recv ? args[RQN].val : args[QPN].val;
    c->inject_wqe_st[recv] = st;
    return NULL;
}

static char *mlx5_inject_port(Mlx5Core *c, char **words)
{
    const char *arg = NULL;

    for (; *words; words++) {
        if (**words && arg) {
            return g_strdup("port takes one argument");
        }
        arg = **words ? *words : arg;
    }
    if (arg && (!strcmp(arg, "link=down") || !strcmp(arg, "link=up"))) {
        c->inject_link_down = !strcmp(arg, "link=down");
    } else if (arg && (!strcmp(arg, "module=out") ||
                       !strcmp(arg, "module=in"))) {
        bool out = !strcmp(arg, "module=out");

        if (out != c->inject_module_out) {
            c->inject_module_out = out;
            mlx5_module_event(c, out);
        }
    } else {
        return g_strdup("port takes link=down, link=up, module=out or "
                        "module=in");
    }
    mlx5_port_set_link(c, mlx5_link_wanted(c));
    mlx5_sriov_pf_link(c);
    return NULL;
}

char *mlx5_core_inject(Mlx5Core *c, const char *request)
{
    g_auto(GStrv) words = g_strsplit_set(request ? request : "", " \t\n", -1);
    Mlx5InjectArgs none[] = { { .name = NULL } };
    char **w = words;
    char *err;

    while (*w && !**w) {
        w++;
    }
    if (!*w) {
        err = g_strdup("empty request");
    } else if (!strcmp(*w, "cmd-fail") || !strcmp(*w, "cmd-timeout")) {
        err = mlx5_inject_arm_cmd(c, !strcmp(*w, "cmd-timeout"), w + 1);
    } else if (!strcmp(*w, "health")) {
        err = mlx5_inject_health(c, w + 1);
    } else if (!strcmp(*w, "wqe-error")) {
        err = mlx5_inject_wqe(c, w + 1);
    } else if (!strcmp(*w, "port")) {
        err = mlx5_inject_port(c, w + 1);
    } else if (!strcmp(*w, "fw-reset")) {
        err = mlx5_inject_parse(w + 1, none);
        err = err ? err : mlx5_fw_reset_request(c);
    } else if (!strcmp(*w, "clear")) {
        memset(c->inject_cmd, 0, sizeof(c->inject_cmd));
        memset(c->inject_wqe_armed, 0, sizeof(c->inject_wqe_armed));
        err = NULL;
    } else {
        err = g_strdup_printf("unknown request '%s' (cmd-fail, cmd-timeout, "
                              "health, wqe-error, port, fw-reset, clear)", *w);
    }
    trace_mlx5_inject(request ? request : "", err ? err : "done");
    return err;
}

char *mlx5_core_inject_state(Mlx5Core *c)
{
    GString *s = g_string_new("");
    unsigned i;

    for (i = 0; i < MLX5_INJECT_CMDS; i++) {
        const Mlx5InjectCmd *in = &c->inject_cmd[i];

        if (!in->remaining) {
            continue;
        }
        g_string_append_printf(s, "%scmd-%s opcode=0x%x", s->len ? "; " : "",
                               in->status ? "fail" : "timeout", in->opcode);
        if (in->op_mod >= 0) {
            g_string_append_printf(s, " op-mod=0x%x", in->op_mod);
        }
        if (in->status) {
            g_string_append_printf(s, " status=0x%x syndrome=0x%x",
                                   in->status, in->syndrome);
        } else if (in->late_ms) {
            g_string_append_printf(s, " complete-after-ms=%u", in->late_ms);
        }
        g_string_append_printf(s, " count=%u", in->remaining);
    }
    for (i = 0; i < 2; i++) {
        if (c->inject_wqe_armed[i]) {
            g_string_append_printf(s, "%swqe-error %s=0x%x syndrome=0x%x",
                                   s->len ? "; " : "", i ? "rqn" : "qpn",
                                   c->inject_wqe_qpn[i],
                                   mlx5_syndrome(c->inject_wqe_st[i]));
        }
    }
    if (c->inject_link_down) {
        g_string_append_printf(s, "%sport link=down", s->len ? "; " : "");
    }
    if (c->inject_module_out) {
        g_string_append_printf(s, "%sport module=out", s->len ? "; " : "");
    }
    if (c->health_synd) {
        g_string_append_printf(s, "%shealth synd=0x%x ext-synd=0x%x fatal=%s",
                               s->len ? "; " : "", c->health_synd,
                               c->health_ext_synd,
                               c->health_fatal ? "on" : "off");
    }
    return g_string_free(s, false);
}
