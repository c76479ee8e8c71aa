#!/bin/sh
# The firmware plane (issue 28): `devlink dev info` shows the boot image's versions (mlx5_core
# reads them through the MCAM, MCQS and MCQI registers: fw.version running and stored, no
# image pending) and the PSID, consistent with ibv_devinfo's fw_ver and board_id, and the
# driver logs no "fw query isn't supported" warning. mstflint's tools (Debian's mstflint, in the
# image scripts/firmware.sh runs) reach the device through the vendor-specific capability in
# configuration space: mstmcra reads the ConnectX-5 hardware ID (0x20d) from the CR space,
# `mstflint query` prints the running version, the model (MQIS) and the PSID (MGIR), and
# `mstconfig query` ends without a crash.
# `devlink dev flash` (mlx5_core's mlxfw through MCC and MCDA) with the images
# scripts/firmware.sh made (scripts/mlx5-fw-image.py, in /test/files): a package for another
# PSID, an image with a spoilt payload and one with a bad header are refused with the driver's
# errors and nothing is written; a good one (16.36.1000) is written and shows as stored while
# the old version runs; `devlink dev reload action fw_activate` (the sync reset through MFRL,
# its events, the fast teardown and the link toggle) runs it. `mstfwreset query` shows level 3
# with the driver as the reset's owner, and `mstfwreset -y reset` runs a second image
# (16.37.1000); a third (16.38.1000) is run by a fatal health syndrome's firmware reset
# (mlx5_core's recovery). After each the new version runs (devlink,
# ibv_devinfo, mstflint) and the port comes back. A reset the firmware asks for (fault injection
# fw-reset) is refused when devlink's enable_remote_dev_reset is off and carried out (a remote
# fw_activate in devlink's statistics) when it is on. `mstconfig` lists the non-volatile
# configuration and stores LINK_TYPE_P1=ETH and NUM_OF_VFS=4 (of the 8 VFs) for the next start. With fwtest.expect=VERSION and
# fwtest.link=Ethernet|InfiniBand on the kernel command line (the later boots
# scripts/firmware.sh makes on the same flash file) the test checks that the device started with
# that version and port type (and PCI class code, and sriov_totalvfs 4), stores the other port type, runs fw_activate
# (the port type stays: the driver stays loaded) and reboots: after the reboot the port is of
# the other type.
# mlx5t-instances: 1
# mlx5t-timeout: 400
# mlx5t-reboot: yes
# mlx5t-allow: mlxfw: Firmware flash failed: (Could not find device PSID in MFA2 file|component hash mismatch|bad format), err
# mlx5t-allow: poll_health:.*Fatal error 5 detected
# mlx5t-allow: print_health_info:
# mlx5t-allow: mlx5_error_sw_reset:.*(start|end)$
# mlx5t-allow: reset_fw_if_needed:.*Issuing FW Reset
# mlx5t-allow: mlx5_health_try_recover:.*(handling bad device here|starting health recovery flow)
# mlx5t-allow: mlx5_handle_bad_state:.*Expected to see disabled NIC but it is full driver
# mlx5t-allow: mlx5_fw_reporter_err_work:
# mlx5t-allow: devlink_health_report:.*fw_fatal
# mlx5t-allow: mlx5_health_report:
# mlx5t-allow: mlx5_wait_for_pages:.*Skipping wait for vf pages stage
# mlx5t-allow: mlx5_sync_reset_request_event:.*PCI Sync FW Update Reset Nack Sent
# mlx5t-allow: mlx5_sync_reset_clear_reset_requested:.*Reset request was already cleared
. /test/lib/common.sh
load_mlx5
wait_for 90 test -e /sys/class/infiniband/mlx5_0/ports/1/link_layer || fail "no mlx5_0"
BDF=$(basename "$(readlink /sys/class/infiniband/mlx5_0/device)")
LL=$(cat /sys/class/infiniband/mlx5_0/ports/1/link_layer)
arg() { sed -n "s/.*fwtest.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
expect=$(arg expect)
if [ -n "$expect" ]; then
  # a later run on the same flash file: the version flashed and the port type stored run
  devlink dev info "pci/$BDF"
  fwv=$(ibv_devinfo -d mlx5_0 | sed -n 's/^[[:space:]]*fw_ver:[[:space:]]*//p')
  [ "$fwv" = "$expect" ] || fail "the device started with $fwv, not the flashed $expect"
  echo "link layer: $LL"
  cls() { od -An -tx1 -j 10 -N 2 "/sys/bus/pci/devices/$BDF/config" | awk '{print $2 $1}'; }
  case $LL in
    Ethernet) cur='ETH(2)' new=IB class=0200 ;;
    *) cur='IB(1)' new=ETH class=0207 ;;
  esac
  # (the class code in configuration space: an Ethernet or an InfiniBand controller)
  [ "$(cls)" = $class ] || fail "the $LL port's class code is $(cls), not $class"
  # and TotalVFs as NUM_OF_VFS was stored (the PCI function has 8)
  tv=$(cat "/sys/bus/pci/devices/$BDF/sriov_totalvfs")
  [ "$tv" = 4 ] || fail "sriov_totalvfs is $tv, not the stored NUM_OF_VFS 4"
  mstconfig -e -d "$BDF" query LINK_TYPE_P1 | tee /tmp/mc.out
  grep -Eq "LINK_TYPE_P1 +IB\(1\) +${cur%(*}\(${cur#*(} +${cur%(*}\(" /tmp/mc.out ||
    fail "mstconfig does not show LINK_TYPE_P1 current and next $cur"
  if [ "$LL" != "$(arg link)" ]; then
    # the second boot of this run: the guest's reboot switched the port
    echo "firmware: the reboot made the port $LL, as stored: OK"
    exit 0
  fi
  mstconfig -y -d "$BDF" set LINK_TYPE_P1=$new > /tmp/mc.out 2>&1 || { cat /tmp/mc.out; fail "set"; }
  # fw_activate: a firmware reset under the loaded driver keeps the port type (mlx5_core keeps
  # what it set up for it); the reboot then applies it
  devlink dev reload "pci/$BDF" action fw_activate > /tmp/r.out 2>&1 ||
    { cat /tmp/r.out; dmesg | tail -n 20; fail "devlink dev reload action fw_activate failed"; }
  grep -A1 reload_actions_performed /tmp/r.out | grep -q "driver_reinit fw_activate" ||
    { cat /tmp/r.out; fail "fw_activate: not 'driver_reinit fw_activate' performed"; }
  wait_for 90 test -e /sys/class/infiniband/mlx5_0/ports/1/link_layer || fail "no mlx5_0 after"
  [ "$(cat /sys/class/infiniband/mlx5_0/ports/1/link_layer)" = "$LL" ] ||
    fail "the port type changed at fw_activate"
  # (let mlx5_ib's MR cache fill after the reload: the shutdown's fast teardown fails what is
  # still being created)
  [ "$LL" != InfiniBand ] || wait_ib_active mlx5_0 1 120
  sleep 5
  echo "fw_activate on $LL: OK; LINK_TYPE_P1=$new stored: rebooting"
  reboot -f
  sleep 60
  fail "no reboot"
fi
wait_ib_active mlx5_0 1 90
devlink dev info "pci/$BDF" > /tmp/info 2>&1 || { cat /tmp/info; fail "devlink dev info failed"; }
cat /tmp/info
ibv_devinfo -d mlx5_0 > /tmp/devinfo || fail "ibv_devinfo failed"
fwv=$(sed -n 's/^[[:space:]]*fw_ver:[[:space:]]*//p' /tmp/devinfo)
board=$(sed -n 's/^[[:space:]]*board_id:[[:space:]]*//p' /tmp/devinfo)
# the version under each heading
ver() {
  awk -v h="$1:" '$1 ~ /:$/ {cur = $1} cur == h && $1 == "fw.version" {print $2}' /tmp/info
}
psid=$(awk '$1 == "fw.psid" {print $2}' /tmp/info)
echo "ibv_devinfo: fw_ver $fwv, board_id $board; devlink: running $(ver running)," \
  "stored $(ver stored), psid $psid"
[ -n "$fwv" ] && [ "$(ver running)" = "$fwv" ] ||
  fail "devlink's running fw.version '$(ver running)' is not ibv_devinfo's fw_ver '$fwv'"
[ "$(ver stored)" = "$fwv" ] || fail "devlink's stored fw.version '$(ver stored)' is not '$fwv'"
[ -n "$board" ] && [ "$psid" = "$board" ] || fail "devlink's fw.psid '$psid' is not '$board'"
if dmesg | grep -E "fw query|failed to query (running|pending)|boot_img"; then
  fail "mlx5_core could not read the firmware versions"
fi

# mstflint's gateway: the CR space's hardware ID, and the tools end without a signal
command -v mstmcra > /dev/null || fail "mstflint is not in this image (scripts/firmware.sh)"
hw=$(mstmcra "$BDF" 0xf0014) || fail "mstmcra $BDF 0xf0014 failed: $hw"
echo "mstmcra $BDF 0xf0014: $hw"
[ "$((hw & 0xffff))" = "$((0x20d))" ] || fail "the hardware ID is $hw, not 0x20d (ConnectX-5)"
for t in "mstflint -d $BDF query" "mstconfig -d $BDF query"; do
  # shellcheck disable=SC2086
  timeout 120 $t > /tmp/tool.out 2>&1
  rc=$?
  head -n 5 /tmp/tool.out
  echo "$t: exit $rc"
  [ $rc -lt 124 ] || fail "$t ended by a signal or timed out (exit $rc)"
done

mstflint -d "$BDF" query > /tmp/q.out 2>&1 || { cat /tmp/q.out; fail "mstflint query failed"; }
grep -Eq "^FW Version: +$fwv\$" /tmp/q.out || fail "mstflint query does not show FW Version $fwv"
grep -Eq "^PSID: +$board\$" /tmp/q.out || fail "mstflint query does not show PSID $board"
grep -Eq "^Base GUID: +$(cat /sys/class/infiniband/mlx5_0/node_guid | tr -d :) +1\$" /tmp/q.out ||
  { cat /tmp/q.out; fail "mstflint query does not show the node GUID as the base GUID"; }

# ---- mstconfig: the non-volatile configuration; the port type for the next start
mstconfig -d "$BDF" query > /tmp/mc.out 2>&1 || { cat /tmp/mc.out; fail "mstconfig query failed"; }
grep -E "LINK_TYPE_P1|SRIOV_EN|NUM_OF_VFS" /tmp/mc.out
grep -Eq "LINK_TYPE_P1 +IB\(1\)" /tmp/mc.out || fail "mstconfig: LINK_TYPE_P1 is not IB(1)"

# ---- devlink dev flash: bad images are refused, nothing written
mkdir -p /lib/firmware
cp /test/files/*.mfa2 /lib/firmware/
flash_fails() {     # IMAGE MESSAGE
  devlink dev flash "pci/$BDF" file "$1" > /tmp/flash.out 2>&1 && {
    cat /tmp/flash.out; fail "devlink dev flash of $1 succeeded"; }
  grep -q "$2" /tmp/flash.out || { cat /tmp/flash.out; fail "flash of $1: no '$2'"; }
  echo "flash $1: $(grep -o "Firmware flash failed.*" /tmp/flash.out | head -n 1)"
  devlink dev info "pci/$BDF" > /tmp/info
  [ "$(ver stored)" = "$fwv" ] || fail "after the bad image $1 the stored version is $(ver stored)"
}
flash_fails fw-other-psid.mfa2 "Could not find device PSID in MFA2 file"
flash_fails fw-digest.mfa2 "component hash mismatch"
flash_fails fw-format.mfa2 "bad format"
devlink dev flash "pci/$BDF" file fw-16.36.1000.mfa2 > /tmp/flash.out 2>&1 ||
  { cat /tmp/flash.out; fail "devlink dev flash of fw-16.36.1000.mfa2 failed"; }
tr '\r' '\n' < /tmp/flash.out | grep -v "^$" | tail -n 4
devlink dev info "pci/$BDF" > /tmp/info
echo "after the flash: running $(ver running), stored $(ver stored)"
[ "$(ver running)" = "$fwv" ] && [ "$(ver stored)" = 16.36.1000 ] ||
  fail "after the flash: running $(ver running), stored $(ver stored)"

# ---- fw_activate: the sync firmware reset runs the new image
devlink dev reload "pci/$BDF" action fw_activate > /tmp/r.out 2>&1 ||
  { cat /tmp/r.out; dmesg | tail -n 20; fail "devlink dev reload action fw_activate failed"; }
cat /tmp/r.out
grep -A1 reload_actions_performed /tmp/r.out | grep -q "driver_reinit fw_activate" ||
  fail "fw_activate: not 'driver_reinit fw_activate' performed"
dmesg | grep -q "Sync Reset now" || fail "fw_activate: no sync reset in the kernel log"
wait_ib_active mlx5_0 1 120
check_version() {   # VERSION WHAT
  devlink dev info "pci/$BDF" > /tmp/info
  ibv_devinfo -d mlx5_0 > /tmp/devinfo
  new=$(sed -n 's/^[[:space:]]*fw_ver:[[:space:]]*//p' /tmp/devinfo)
  echo "after $2: running $(ver running), stored $(ver stored), ibv_devinfo $new"
  [ "$(ver running)" = "$1" ] && [ "$(ver stored)" = "$1" ] && [ "$new" = "$1" ] ||
    fail "the new image $1 does not run after $2"
  mstflint -d "$BDF" query > /tmp/q.out 2>&1
  grep -Eq "^FW Version: +$1\$" /tmp/q.out || { cat /tmp/q.out; fail "mstflint: not $1"; }
}
check_version 16.36.1000 fw_activate

# ---- the firmware asks for the reset (fault injection fw-reset, as another host would)
devlink -s dev show "pci/$BDF"
run devlink dev param set "pci/$BDF" name enable_remote_dev_reset value false cmode runtime
host_do inject 0 fw-reset
wait_for 30 sh -c "dmesg | grep -q 'PCI Sync FW Update Reset Nack Sent'" ||
  { dmesg | tail -n 20; fail "the driver did not refuse the firmware's reset"; }
# (the device aborts the negotiation; the driver had not taken the request: "already cleared")
wait_for 30 sh -c "dmesg | grep -q 'Reset request was already cleared'" ||
  { dmesg | tail -n 20; fail "no abort after the driver refused the firmware's reset"; }
run devlink dev param set "pci/$BDF" name enable_remote_dev_reset value true cmode runtime
nows=$(dmesg | grep -c "Sync Reset now")
host_do inject 0 fw-reset
wait_for 60 sh -c "[ \$(dmesg | grep -c 'Sync Reset now') -gt $nows ]" ||
  { dmesg | tail -n 20; fail "the firmware's reset request was not carried out"; }
wait_for 90 sh -c "devlink -s dev show pci/$BDF | grep -A2 remote_reload | grep -q 'unspecified 1'" ||
  { devlink -s dev show "pci/$BDF"; fail "devlink counts no remote fw_activate"; }
devlink -s dev show "pci/$BDF" | sed -n '/remote_reload/,$p'
wait_ib_active mlx5_0 1 120
echo "the firmware's reset: NACKed when refused, carried out when allowed: OK"

# ---- mstfwreset: the levels and owners the device offers; its reset (the driver's) runs the next
devlink dev flash "pci/$BDF" file fw-16.37.1000.mfa2 > /tmp/flash.out 2>&1 ||
  { cat /tmp/flash.out; fail "devlink dev flash of fw-16.37.1000.mfa2 failed"; }
mstfwreset -d "$BDF" query > /tmp/mfr.out 2>&1 || { cat /tmp/mfr.out; fail "mstfwreset query failed"; }
cat /tmp/mfr.out
grep -Eq "^3: Driver restart and PCI reset +-Supported +\(default\)" /tmp/mfr.out ||
  fail "mstfwreset query: level 3 is not the default"
grep -Eq "^1: NIC Driver is the owner +-Supported +\(default\)" /tmp/mfr.out ||
  fail "mstfwreset query: the driver does not own the reset by default"
mstfwreset -d "$BDF" -y reset > /tmp/mfr.out 2>&1 || { cat /tmp/mfr.out; fail "mstfwreset reset failed"; }
cat /tmp/mfr.out
# (printed when the firmware's uptime (MGIR) went back: the reset happened)
grep -q "FW was loaded successfully" /tmp/mfr.out || fail "mstfwreset reset: no success"
wait_for 90 test -e /sys/class/infiniband/mlx5_0/ports/1/link_layer || fail "no mlx5_0 after mstfwreset"
wait_ib_active mlx5_0 1 120
check_version 16.37.1000 "mstfwreset reset"

# ---- a firmware reset in the driver's recovery runs the next one
devlink dev flash "pci/$BDF" file fw-16.38.1000.mfa2 > /tmp/flash.out 2>&1 ||
  { cat /tmp/flash.out; fail "devlink dev flash of fw-16.38.1000.mfa2 failed"; }
host_do inject 0 health synd=0x8 fatal=on
wait_for 240 sh -c "devlink health show pci/$BDF reporter fw_fatal | grep -q 'error 1 recover 1'" ||
  { dmesg | tail -n 30; fail "no fw_fatal recovery"; }
wait_ib_active mlx5_0 1 120
check_version 16.38.1000 "the firmware reset"

# ---- the port type and the VFs for the next start (the next boot checks them, and switches
# the port back by fw_activate)
tv=$(cat "/sys/bus/pci/devices/$BDF/sriov_totalvfs")
[ "$tv" = 8 ] || fail "sriov_totalvfs is $tv, not the default NUM_OF_VFS 8"
mstconfig -y -d "$BDF" set LINK_TYPE_P1=ETH NUM_OF_VFS=4 > /tmp/mc.out 2>&1 ||
  { cat /tmp/mc.out; fail "set"; }
grep -q "Applying... Done" /tmp/mc.out || { cat /tmp/mc.out; fail "mstconfig set: not applied"; }
mstconfig -e -d "$BDF" query LINK_TYPE_P1 | tee /tmp/mc.out
grep -Eq "LINK_TYPE_P1 +IB\(1\) +IB\(1\) +ETH\(2\)" /tmp/mc.out ||
  fail "mstconfig: LINK_TYPE_P1 is not default IB, current IB, next ETH"
mstconfig -e -d "$BDF" query NUM_OF_VFS | tee /tmp/mc.out
grep -Eq "NUM_OF_VFS +8 +8 +4" /tmp/mc.out ||
  fail "mstconfig: NUM_OF_VFS is not default 8, current 8, next 4"
echo "firmware: OK"
