# Helpers for guest tests; scripts/guest-run.py puts this file at /test/lib/common.sh.
# Use from a test with:  . /test/lib/common.sh
# The environment from /init: IDX (instance index), N (instances), MY_IP / PEER_IP / MGMT_IF
# (management network, only with 2 instances), FABRIC_NIC (hca, virtio or none: what this
# instance has on the fabric netdev; empty on an image older than the runner's --fabric-nic)
# and FABRIC_IF (the virtio-net NIC on the fabric, MAC 02:4d:52:*). Tests run under dash.

# fail MSG: print the reason and some device state, exit 1
fail() {
  echo "FAIL: $*"
  echo "--- state at failure:"
  for s in /sys/class/infiniband/*/ports/*/state; do
    [ -e "$s" ] && echo "$s: $(cat "$s")"
  done
  lsmod 2>/dev/null | grep -E '^(mlx5|ib_|rdma)' || true
  # a test's own account of its state (it defines on_fail)
  command -v on_fail >/dev/null 2>&1 && on_fail
  exit 1
}

# run CMD...: echo the command, then run it
run() {
  echo "+ $*"
  "$@"
}

# split_cmds WORDS... -- WORDS...: the words before "--" in CMD1, those after it in CMD2 (each
# with a leading space), for helpers that take two command lines
split_cmds() {
  CMD1= CMD2= _side=1
  for _w in "$@"; do
    if [ "$_w" = -- ]; then _side=2; continue; fi
    if [ $_side = 1 ]; then CMD1="$CMD1 $_w"; else CMD2="$CMD2 $_w"; fi
  done
}

# wait_for SECONDS CMD...: poll CMD (quietly) until it succeeds; status 1 on timeout
wait_for() {
  _t=$1; shift
  _end=$(($(date +%s) + _t))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -ge "$_end" ] && return 1
    sleep 0.2
  done
  return 0
}

# load_mlx5: load the mlx5 driver stack (as udev would on a real host) and the user-space
# access modules
load_mlx5() {
  cov_arm
  run modprobe -a ib_uverbs ib_umad mlx5_core mlx5_ib || fail "modprobe failed"
}

# cov_arm: with driver coverage on (MLX5T_COV=1, scripts/coverage.sh), name the mlx5 modules in
# ftrace's filter again before they load: an unload drops their functions from it
cov_arm() {
  [ "${MLX5T_COV:-0}" = 1 ] || return 0
  printf ':mod:mlx5_core\n:mod:mlx5_ib\n' >> /sys/kernel/tracing/set_ftrace_filter 2>/dev/null
  return 0
}

# mlx5e_up: load the mlx5 drivers, wait for the mlx5e interface and set it up; E is its name
mlx5e_up() {
  load_mlx5
  wait_for 30 mlx5_netdev || fail "no mlx5e interface (mlx5e did not probe)"
  E=$(mlx5_netdev)
  ip link set "$E" up
}

# mlx5e_peer_up: mlx5e_up, then the link to the other instance (link-type=eth, two
# instances): carrier, the addresses ME and PEER (192.168.77.1 and .2), the peer's MAC PEERMAC,
# a ping reply from it
mlx5e_peer_up() {
  mlx5e_up
  wait_for 30 grep -qx 1 /sys/class/net/$E/carrier || fail "$E has no carrier"
  ME=192.168.77.$((IDX + 1)) PEER=192.168.77.$((2 - IDX))
  PEERMAC=02:4d:58:35:00:0$((2 - IDX))
  ip addr add $ME/24 dev $E
  wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply over $E"
}

# mlx5e_counters: the interface's counters that moved (drops, errors, buffer shortages), for a
# test's on_fail
mlx5e_counters() {
  echo "--- ethtool -S $E (non-zero):"
  ethtool -S $E | grep -v ': 0$'
}

# mlx5_netdev: the name of the mlx5e interface (link-type=eth): the netdev whose PCI function
# mlx5_core drives (the other NICs are virtio-net); status 1 if there is none
mlx5_netdev() {
  for _n in /sys/class/net/*; do
    case "$(readlink "$_n/device/driver")" in */mlx5_core) echo "${_n##*/}"; return 0 ;; esac
  done
  return 1
}

# unload_mlx5: remove the mlx5 drivers (RDMA core modules stay loaded)
unload_mlx5() {
  run rmmod mlx5_ib mlx5_core || fail "rmmod mlx5_ib mlx5_core failed"
}

# port_active DEV PORT: true if the port's state is ACTIVE
port_active() {
  grep -q ACTIVE "/sys/class/infiniband/$1/ports/$2/state" 2>/dev/null
}

# wait_ib_active [DEV] [PORT] [SECONDS]: wait for the device to appear and its port to be ACTIVE
wait_ib_active() {
  _dev=${1:-mlx5_0} _port=${2:-1} _secs=${3:-60}
  wait_for "$_secs" test -d "/sys/class/infiniband/$_dev" ||
    fail "/sys/class/infiniband/$_dev did not appear within ${_secs}s"
  wait_for "$_secs" port_active "$_dev" "$_port" ||
    fail "$_dev port $_port not ACTIVE within ${_secs}s"
  echo "$_dev port $_port: $(cat "/sys/class/infiniband/$_dev/ports/$_port/state")"
}

# wait_peer: the other instance answers on the management network (it may still be booting)
wait_peer() {
  wait_for 60 ping -c 1 -W 1 "$PEER_IP" || fail "peer $PEER_IP does not answer"
}

# hca_and_peer_up: how a two-guest test starts: the mlx5 drivers loaded, port 1 of mlx5_0
# ACTIVE, the peer reachable
hca_and_peer_up() {
  load_mlx5
  wait_ib_active mlx5_0 1 90
  wait_peer
}

# ucx_client LOG CMD...: a ucx_perftest client (CMD, e.g. env UCX_TLS=... ucx_perftest HOST ...)
# with its output in LOG; tried again while its server does not listen yet ("connect() failed:
# Connection refused"), for up to 30 s
ucx_client() {
  _log=$1; shift
  _end=$(($(date +%s) + 30))
  until "$@" > "$_log" 2>&1; do
    grep -q "connect() failed: Connection refused" "$_log" && [ "$(date +%s)" -lt "$_end" ] ||
      return 1
    echo "(ucx_perftest: no server yet; again)"
    sleep 1
  done
}

# expect TEXT EREGEX WHAT: fail unless TEXT has a line matching EREGEX
expect() {
  printf '%s\n' "$1" | grep -Eq "$2" || fail "expected $3 (/$2/)"
}

# check_ib_device [DEV]: ibv_devices lists DEV; ibv_devinfo -v shows an active InfiniBand port
# of a ConnectX-5 (vendor 0x02c9, part 4119) with non-zero LID and node GUID; ibstat: Active.
check_ib_device() {
  _dev=${1:-mlx5_0}
  _out=$(ibv_devices) || fail "ibv_devices failed"
  echo "+ ibv_devices"; printf '%s\n' "$_out"
  expect "$_out" "^[[:space:]]*$_dev[[:space:]]" "ibv_devices to list $_dev"

  _info=$(ibv_devinfo -v -d "$_dev") || fail "ibv_devinfo -v -d $_dev failed"
  echo "+ ibv_devinfo -v -d $_dev"; printf '%s\n' "$_info"
  expect "$_info" "^hca_id:[[:space:]]*$_dev\$" "hca_id $_dev"
  expect "$_info" 'vendor_id:[[:space:]]*0x02c9$' "vendor_id 0x02c9 (Mellanox)"
  expect "$_info" 'vendor_part_id:[[:space:]]*4119$' "vendor_part_id 4119 (ConnectX-5)"
  expect "$_info" 'state:[[:space:]]*PORT_ACTIVE' "port state PORT_ACTIVE"
  expect "$_info" 'link_layer:[[:space:]]*InfiniBand' "link_layer InfiniBand"
  _lid=$(printf '%s\n' "$_info" | sed -n 's/^[[:space:]]*port_lid:[[:space:]]*\([0-9]*\).*/\1/p' | head -n1)
  [ -n "$_lid" ] && [ "$_lid" -ne 0 ] || fail "port_lid is '${_lid}', expected non-zero"
  _guid=$(printf '%s\n' "$_info" | sed -n 's/^[[:space:]]*node_guid:[[:space:]]*//p' | head -n1)
  case $_guid in ''|0000:0000:0000:0000) fail "node_guid is '${_guid}', expected non-zero" ;; esac

  _stat=$(ibstat "$_dev") || fail "ibstat $_dev failed"
  echo "+ ibstat $_dev"; printf '%s\n' "$_stat"
  expect "$_stat" 'State:[[:space:]]*Active' "ibstat State: Active"
  echo "check_ib_device: $_dev OK (lid $_lid, node_guid $_guid)"
}

# host_do ACTION ARGS...: ask the runner to act on the host (scripts/guest-run.py, "host
# actions": inject, hmp, link, ...) and wait for its answer on the second serial port (ttyS1);
# fails the test unless the action worked. The answer's text is printed and left in HOST_ANSWER.
host_do() {
  exec 9<>/dev/ttyS1 || fail "no /dev/ttyS1 for the runner's answers"
  stty raw -echo <&9 || fail "stty on /dev/ttyS1 failed"
  sleep 0.2
  printf '\n@@MLX5T HOST %s\n' "$*"
  HOST_ANSWER=$(timeout 120 head -n 1 <&9)
  exec 9<&-
  case $HOST_ANSWER in
    "@@MLX5T ACK ok "*) HOST_ANSWER=${HOST_ANSWER#@@MLX5T ACK ok }; echo "host $*: $HOST_ANSWER" ;;
    *) fail "host action '$*': ${HOST_ANSWER:-no answer within 120 s}" ;;
  esac
}
