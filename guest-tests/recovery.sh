#!/bin/sh
# Fault injection and the driver's recovery paths (issue 28), on an Ethernet port (mlx5e and
# RoCE v2) between two guests. Instance 0's device is told to fail through the QEMU monitor
# (the runner's host action `inject`: QMP qom-set of the device's "inject" property; one
# request goes through HMP's qom-set instead), docs/user-guide.md "Fault injection":
#  1. A fatal health syndrome (RFR, "unrecoverable hardware error") under RDMA (ib_write_bw)
#     and Ethernet (ping) traffic: mlx5_core's health poll sees it, the fw_fatal reporter
#     recovers (the driver's firmware reset, the device reloads), `devlink health` counts one
#     error and one recovery, the port comes back and new RDMA and Ethernet traffic passes.
#  2. A non-fatal syndrome (HMP): the fw reporter counts an error, nothing stops. The port's
#     link goes down (mlx5e loses its carrier, the RoCE port leaves ACTIVE) and comes back.
#     The cable module is pulled out (carrier lost, ethtool -m fails, mlx5_core logs the port
#     module event and ethtool -S counts module_unplug) and put back.
#     A WQE of mlx5e's send queue completes in error: the tx reporter recovers the SQ; one of
#     its receive queue: the rx reporter recovers the RQ.
#     PCIe AER (QEMU's pcie_aer_inject_error through HMP): a correctable error is logged and
#     counted (aer_dev_correctable), an uncorrectable non-fatal one runs mlx5_core's PCI error
#     handlers (err_detected, slot_reset after the port's bus reset, resume) and the device
#     comes back with traffic.
#  3. At interface up: CREATE_RQ fails with a chosen status and syndrome (ip link set up fails
#     with EIO, dmesg shows both), then it times out (the device tells the driver a 3 s command
#     timeout, cmd-timeout-ms; the command completes 10 s later, which frees the driver's slot);
#     the next `ip link set up` works.
#  4. At probe: INIT_HCA fails (the probe ends with -EIO), then never completes (-ETIMEDOUT);
#     the next modprobe works, and RDMA and Ethernet traffic pass again.
# mlx5t-instances: 2
# mlx5t-timeout: 1200
# mlx5t-device-args: link-type=eth,cmd-timeout-ms=3000
# what the injected failures make mlx5_core print (each is also checked below)
# mlx5t-allow: mlx5_cmd_out_err:.*INIT_HCA\(0x102\) op_mod\(0x0\) failed, status bad system state\(0x4\), syndrome \(0x1234567\)
# mlx5t-allow: mlx5_cmd_out_err:.*CREATE_RQ\(0x908\) op_mod\(0x0\) failed, status internal error\(0x1\), syndrome \(0x5eed0908\)
# mlx5t-allow: mlx5_function_open:.*init hca failed
# mlx5t-allow: probe_one:.*mlx5_init_one failed with error code -(5|110)$
# mlx5t-allow: probe with driver mlx5_core failed with error -(5|110)$
# mlx5t-allow: wait_func:.*(INIT_HCA\(0x102\)|CREATE_RQ\(0x908\)) timeout\. Will cause a leak of a command resource
# mlx5t-allow: wait_func_handle_exec_timeout:.*CREATE_RQ\(0x908\) No done completion
# mlx5t-allow: Command completion arrived after timeout
# mlx5t-allow: Error cqe on cqn 0x[0-9a-f]+, ci 0x[0-9a-f]+, qn 0x[0-9a-f]+, opcode 0xd, syndrome 0x1, vendor syndrome 0x0
# mlx5t-allow: Error cqe on cqn 0x[0-9a-f]+, ci 0x[0-9a-f]+, qn 0x[0-9a-f]+, opcode 0xe, syndrome 0x2, vendor syndrome 0x0
# mlx5t-allow: mlx5e_open_locked:.*mlx5e_open_channels failed
# mlx5t-allow: poll_health:.*Fatal error 5 detected
# mlx5t-allow: print_health_info:
# mlx5t-allow: mlx5_error_sw_reset:.*(start|end)$
# mlx5t-allow: reset_fw_if_needed:.*Issuing FW Reset
# mlx5t-allow: mlx5_health_try_recover:.*(handling bad device here|starting health recovery flow)
# mlx5t-allow: mlx5_handle_bad_state:.*Expected to see disabled NIC but it is full driver
# mlx5t-allow: mlx5_wait_for_pages:.*Skipping wait for vf pages stage
# mlx5t-allow: mlx5_fw_reporter_err_work:
# mlx5t-allow: devlink_health_report:.*(fw_fatal|fw)
# mlx5t-allow: mlx5_health_report:
# mlx5t-allow: PCIe Bus Error: severity=(Correctable|Uncorrectable \(Non-Fatal\)), type=
# mlx5t-allow: device \[15b3:1017\] error status/mask=
# mlx5t-allow: \[ ?[0-9]+\] (RxErr|UnsupReq) 
# mlx5t-allow: AER:   TLP Header:
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/pingpong.sh
. /test/lib/roce.sh

# reporter NAME [HANDLE]: "error E recover R" of devlink health reporter NAME of HANDLE (the
# device, pci/$BDF, unless given)
reporter() {
  devlink health show "${2:-pci/$BDF}" reporter "$1" | sed -n 's/.* error \([0-9]*\) recover \([0-9]*\).*/error \1 recover \2/p'
}

# dmesg_has EREGEX WHAT: fail unless the kernel log has a line matching EREGEX
dmesg_has() {
  dmesg | grep -Eq "$1" || fail "dmesg has no line for $2 (/$1/)"
  echo "dmesg: $(dmesg | grep -E "$1" | tail -n 1 | sed 's/^\[[^]]*\] //')"
}

roce_up
BDF=$(basename "$(readlink "/sys/class/net/$RIF/device")")

# ---- 1. fatal health syndrome under traffic
if [ "$IDX" = 1 ]; then
  ib_write_bw -d mlx5_0 -x "$GIDX" -p 18720 -s 65536 --run_infinitely -D 1 >/tmp/wbw.log 2>&1 &
  srv=$!
  timeout 600 nc -l -p 7320 </dev/null || fail "instance 0 never said the device recovered"
  kill $srv 2>/dev/null; wait $srv
  echo "=== the first ib_write_bw server (its client's device died):"; tail -n 5 /tmp/wbw.log
  run ib_write_bw -d mlx5_0 -x "$GIDX" -p 18721 -s 65536 -n 200 || fail "ib_write_bw server after recovery"
else
  echo "=== 1. fatal health syndrome under RDMA and Ethernet traffic"
  [ "$(reporter fw_fatal)" = "error 0 recover 0" ] || fail "fw_fatal reporter: $(reporter fw_fatal)"
  # Ethernet traffic: a ping every 0.2 s, each answered or lost (a ping program of its own would
  # end when its interface goes away)
  while :; do
    if ping -c 1 -W 1 "$FAB_PEER" >/dev/null 2>&1; then echo ok; else echo lost; fi
    sleep 0.2
  done >/tmp/ping.log 2>&1 &
  pp=$!
  wait_for 30 grep -q ok /tmp/ping.log || fail "no ping answered before the injection"
  ibv_asyncwatch -d mlx5_0 >/tmp/async.log 2>&1 &
  aw=$!
  perftest_running /tmp/wbw.log ib_write_bw -d mlx5_0 -x "$GIDX" -p 18720 -s 65536 \
    --run_infinitely -D 1 "$PEER_IP"
  sleep 2
  host_do inject 0 health synd=0x8 fatal=on
  wait_for 240 sh -c "devlink health show pci/$BDF reporter fw_fatal | grep -q 'error 1 recover 1'" ||
    { dmesg | tail -n 30; fail "fw_fatal reporter after the injection: $(reporter fw_fatal)"; }
  echo "fw_fatal reporter: $(reporter fw_fatal)"
  devlink health show "pci/$BDF"
  dmesg_has "poll_health:.*Fatal error 5 detected" "the health poll"
  dmesg_has "Health issue observed, unrecoverable hardware error" "the health buffer"
  dmesg_has "Issuing FW Reset" "the driver's firmware reset"
  dmesg_has "health recovery succeeded" "the recovery"
  # the programs of the dead device's RDMA context stay (their queues are gone): stop them
  kill $bw $aw 2>/dev/null; wait $bw $aw
  echo "ib_write_bw:"; tail -n 3 /tmp/wbw.log
  cat /tmp/async.log
  grep -q "DEVICE_FATAL" /tmp/async.log || fail "ibv_asyncwatch saw no IBV_EVENT_DEVICE_FATAL"
  # the recovery removes and adds the driver's devices: a new netdev (down, no address: what
  # udev and the network configuration would set up on a host) and a new mlx5_0
  wait_for 60 mlx5_netdev || fail "no mlx5e interface after recovery"
  RIF=$(mlx5_netdev)
  run ip link set "$RIF" up
  run ip addr add "$FAB_ME/24" dev "$RIF"
  wait_ib_active mlx5_0 1 120
  wait_for 60 grep -qx 1 "/sys/class/net/$RIF/carrier" || fail "$RIF has no carrier after recovery"
  wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply over $RIF after recovery"
  sleep 2
  kill $pp; wait $pp
  echo "pings from before the injection to after the recovery: $(uniq -c /tmp/ping.log | tr -s ' \n' ' ')"
  grep -q lost /tmp/ping.log || fail "no ping was lost while the device failed"
  [ "$(tail -n 1 /tmp/ping.log)" = ok ] || fail "the last background ping was not answered"
  wait_for 30 gid_index mlx5_0 1 "$(ipv4_gid "$FAB_ME")" || fail "no RoCE v2 GID after recovery"
  GIDX=$(gid_index mlx5_0 1 "$(ipv4_gid "$FAB_ME")")
  tell_peer 7320
  perftest_done /tmp/wbw2.log ib_write_bw -d mlx5_0 -x "$GIDX" -p 18721 -s 65536 -n 200 "$PEER_IP"
  cat /tmp/wbw2.log
  [ "$rc" = 0 ] || fail "ib_write_bw after recovery failed ($rc)"
  grep -Eq "^[[:space:]]*65536[[:space:]]+200[[:space:]]" /tmp/wbw2.log || fail "no result row"
fi
barrier fatal-done 7330

# ---- 2..4 on instance 0 alone; the peer waits
if [ "$IDX" = 1 ]; then
  barrier probe-done 7340
  roce_pair final 1 "bytes in .* seconds" ibv_rc_pingpong -d mlx5_0 -g "$GIDX" -p 18730 -- \
    ibv_rc_pingpong -d mlx5_0 -g "$GIDX" -p 18730 "$PEER_IP"
  echo "recovery: OK"
  exit 0
fi

echo "=== 2. a non-fatal health syndrome, through HMP"
host_do hmp 0 qom-set hca inject health synd=0x10 ext-synd=0x77
wait_for 30 sh -c "devlink health show pci/$BDF reporter fw | grep -q 'error 1 '" ||
  fail "fw reporter after a non-fatal syndrome: $(reporter fw)"
echo "fw reporter: $(reporter fw); fw_fatal reporter: $(reporter fw_fatal)"
devlink health diagnose "pci/$BDF" reporter fw
devlink health diagnose "pci/$BDF" reporter fw | grep -q "Syndrome: 16" ||
  fail "devlink health diagnose does not show the syndrome"
[ "$(reporter fw_fatal)" = "error 1 recover 1" ] || fail "a non-fatal syndrome reached fw_fatal"
host_do inject 0 health synd=0
ping -c 2 "$FAB_PEER" >/dev/null || fail "no ping reply with a non-fatal syndrome up"

echo "=== 2b. the port's link down and up"
host_do inject 0 port link=down
wait_for 30 grep -qx 0 "/sys/class/net/$RIF/carrier" || fail "$RIF kept its carrier with the link down"
wait_for 30 sh -c "! grep -q ACTIVE /sys/class/infiniband/mlx5_0/ports/1/state" ||
  fail "mlx5_0 port 1 stayed ACTIVE with the link down"
echo "link down: $RIF carrier $(cat "/sys/class/net/$RIF/carrier"), mlx5_0 port $(cat /sys/class/infiniband/mlx5_0/ports/1/state)"
host_do inject 0 port link=up
wait_for 30 grep -qx 1 "/sys/class/net/$RIF/carrier" || fail "$RIF has no carrier with the link up"
wait_ib_active mlx5_0 1 60
wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply after the link came back"

echo "=== 2b'. the cable module pulled out and put back"
unplug0=$(ethtool -S "$RIF" | sed -n 's/^ *module_unplug: //p')
host_do inject 0 port module=out
wait_for 30 grep -qx 0 "/sys/class/net/$RIF/carrier" || fail "$RIF kept its carrier without a module"
if ethtool -m "$RIF" > /tmp/mod.out 2>&1; then cat /tmp/mod.out; fail "ethtool -m read a pulled module"; fi
dmesg_has "Port module event: module 0, Cable unplugged" "the module's unplug event"
unplug1=$(ethtool -S "$RIF" | sed -n 's/^ *module_unplug: //p')
echo "module out: carrier $(cat "/sys/class/net/$RIF/carrier"), module_unplug $unplug0 -> $unplug1"
[ "$unplug1" = $((unplug0 + 1)) ] || fail "ethtool -S module_unplug did not count the unplug"
host_do inject 0 port module=in
dmesg_has "Port module event: module 0, Cable plugged" "the module's plug event"
wait_for 30 grep -qx 1 "/sys/class/net/$RIF/carrier" || fail "$RIF has no carrier with the module in"
ethtool -m "$RIF" | grep -q "Identifier.*QSFP28" || fail "ethtool -m after the module came back"
wait_ib_active mlx5_0 1 60
wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply after the module came back"

echo "=== 2c. an error CQE on mlx5e's send queue: the tx reporter recovers the SQ"
# (mlx5e's reporters are its devlink port's, on the auxiliary device's devlink instance)
TXH=$(devlink health show | awk '/^[^ ]/ {h = $1} $1 == "reporter" && $2 == "tx" {sub(":$", "", h); print h; exit}')
[ -n "$TXH" ] || { devlink health show; fail "no tx reporter in devlink health show"; }
devlink health diagnose "$TXH" reporter tx > /tmp/txdiag || fail "devlink health diagnose $TXH tx failed"
sqn=$(sed -n 's/.*txq ix: 0 .*sqn: \([0-9]*\).*/\1/p' /tmp/txdiag | head -n 1)
[ -n "$sqn" ] || { cat /tmp/txdiag; fail "no sqn of txq 0 in the tx reporter's diagnosis"; }
host_do inject 0 wqe-error qpn=$sqn syndrome=0x1
ping -c 3 -W 1 "$FAB_PEER" >/dev/null 2>&1
wait_for 60 sh -c "devlink health show $TXH reporter tx | grep -q 'error 1 recover 1'" ||
  fail "tx reporter after an error CQE on SQ $sqn: $(reporter tx "$TXH")"
echo "tx reporter ($TXH): $(reporter tx "$TXH")"
dmesg_has "Error cqe on cqn .*qn 0x$(printf %x "$sqn"), opcode 0xd, syndrome 0x1" "the error CQE"
wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply after the SQ's recovery"

echo "=== 2c'. an error CQE on mlx5e's receive queue: the rx reporter recovers the RQ"
devlink health diagnose "$TXH" reporter rx > /tmp/rxdiag || fail "devlink health diagnose $TXH rx failed"
rqn=$(sed -n 's/.*channel ix: 0 .*rqn: \([0-9]*\).*/\1/p' /tmp/rxdiag | head -n 1)
[ -n "$rqn" ] || { cat /tmp/rxdiag; fail "no rqn of channel 0 in the rx reporter's diagnosis"; }
host_do inject 0 wqe-error rqn=$rqn syndrome=0x2
ping -c 3 -W 1 "$FAB_PEER" >/dev/null 2>&1
wait_for 60 sh -c "devlink health show $TXH reporter rx | grep -q 'error 1 recover 1'" ||
  { cat /tmp/rxdiag; fail "rx reporter after an error CQE on RQ $rqn: $(reporter rx "$TXH")"; }
echo "rx reporter ($TXH): $(reporter rx "$TXH")"
dmesg_has "Error cqe on cqn .*qn 0x$(printf %x "$rqn"), opcode 0xe, syndrome 0x2" "the RQ's error CQE"
wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply after the RQ's recovery"

echo "=== 2d. PCIe AER: a correctable error, then an uncorrectable non-fatal one"
aer=/sys/bus/pci/devices/$BDF
cor0=$(sed -n 's/^TOTAL_ERR_COR //p' $aer/aer_dev_correctable)
host_do hmp 0 pcie_aer_inject_error hca RCVR
wait_for 30 sh -c "! grep -qx 'TOTAL_ERR_COR $cor0' $aer/aer_dev_correctable" ||
  fail "the correctable error was not counted"
echo "aer_dev_correctable: TOTAL_ERR_COR $cor0 -> $(sed -n 's/^TOTAL_ERR_COR //p' $aer/aer_dev_correctable)"
host_do hmp 0 pcie_aer_inject_error hca UNSUP
wait_for 60 sh -c "dmesg | grep -q 'mlx5_pci_resume.*device recovered'" ||
  { dmesg | tail -n 20; fail "mlx5_core's PCI error handlers did not recover the device"; }
dmesg_has "mlx5_pci_err_detected .*need reset" "the error detected"
dmesg_has "mlx5_pci_slot_reset .*recovered" "the slot reset"
dmesg_has "AER: device recovery successful" "the AER recovery"
# (the driver's devices are removed and added again: a new netdev, down, without an address)
wait_for 60 mlx5_netdev || fail "no mlx5e interface after the AER recovery"
RIF=$(mlx5_netdev)
run ip link set "$RIF" up
run ip addr add "$FAB_ME/24" dev "$RIF"
wait_for 60 grep -qx 1 "/sys/class/net/$RIF/carrier" || fail "$RIF has no carrier after AER"
wait_ib_active mlx5_0 1 60
wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply after the AER recovery"

echo "=== 3. failures at interface up"
run ip link set "$RIF" down
host_do inject 0 cmd-fail opcode=0x908
if ip link set "$RIF" up 2>/tmp/ifup.err; then fail "ip link set up worked although CREATE_RQ failed"; fi
cat /tmp/ifup.err
grep -q "Input/output error" /tmp/ifup.err || fail "ip link set up did not fail with EIO"
dmesg_has "CREATE_RQ\(0x908\) op_mod\(0x0\) failed, status internal error\(0x1\), syndrome \(0x5eed0908\)" \
  "the failed CREATE_RQ"
host_do inject 0 cmd-timeout opcode=0x908 complete-after-ms=10000
t0=$(date +%s)
if ip link set "$RIF" up 2>/tmp/ifup.err; then fail "ip link set up worked although CREATE_RQ timed out"; fi
echo "ip link set up failed after $(($(date +%s) - t0)) s: $(cat /tmp/ifup.err)"
grep -q "timed out" /tmp/ifup.err || fail "ip link set up did not fail with ETIMEDOUT"
dmesg_has "CREATE_RQ\(0x908\) timeout. Will cause a leak" "the CREATE_RQ timeout"
wait_for 30 sh -c "dmesg | grep -q 'Command completion arrived after timeout'" ||
  fail "the late completion did not reach the driver"
dmesg_has "Command completion arrived after timeout" "the late completion"
host_do inject 0 clear
[ "$HOST_ANSWER" = "armed: nothing" ] || fail "something is still armed: $HOST_ANSWER"
run ip link set "$RIF" up || fail "ip link set up failed with nothing injected"
wait_for 60 grep -qx 1 "/sys/class/net/$RIF/carrier" || fail "$RIF has no carrier"
wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply after the failed interface ups"

echo "=== 4. failures at probe"
unload_mlx5
host_do inject 0 cmd-fail opcode=0x102 status=0x4 syndrome=0x1234567
run modprobe mlx5_core
dmesg_has "INIT_HCA\(0x102\) op_mod\(0x0\) failed, status bad system state\(0x4\), syndrome \(0x1234567\)" \
  "the failed INIT_HCA"
dmesg_has "probe with driver mlx5_core failed with error -5" "the failed probe"
! mlx5_netdev >/dev/null || fail "an mlx5e interface although the probe failed"
run rmmod mlx5_core
host_do inject 0 cmd-timeout opcode=0x102
run modprobe mlx5_core
dmesg_has "INIT_HCA\(0x102\) timeout" "the INIT_HCA timeout"
dmesg_has "probe with driver mlx5_core failed with error -110" "the timed-out probe"
run rmmod mlx5_core
host_do inject 0 clear
[ "$HOST_ANSWER" = "armed: nothing" ] || fail "something is still armed: $HOST_ANSWER"
roce_up
barrier probe-done 7340
roce_pair final 1 "bytes in .* seconds" ibv_rc_pingpong -d mlx5_0 -g "$GIDX" -p 18730 -- \
  ibv_rc_pingpong -d mlx5_0 -g "$GIDX" -p 18730 "$PEER_IP"
echo "recovery: OK"
