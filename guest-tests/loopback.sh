#!/bin/sh
# Loopback on one HCA: a single guest runs both ends of each pair against 127.0.0.1, so two
# QPs of mlx5_0 talk to each other through the port's loopback path (packets to its own LID),
# with no peer on the fabric (the fabric netdev is a lone hub port). RC pingpong (default
# size, multi-packet and small), perftest RDMA WRITE bandwidth, and UD pingpong.
# mlx5t-instances: 1
# mlx5t-timeout: 600
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
load_mlx5
wait_ib_active mlx5_0 1 90

# local_pair PORT CHECK_EREGEX PROGRAM ARGS...: server in the background, then the client
# against 127.0.0.1 (retrying until the server listens); both must exit 0 within LIMIT (120)
# seconds and the client must print a result matching CHECK_EREGEX. On a hang the QPs and CQs
# (rdma resource) are shown before the programs are killed: their stdout is a file, fully
# buffered, so a killed program leaves no output of its own.
LIMIT=${LIMIT:-120}
local_pair() {
  _port=$1 _check=$2; shift 2
  echo "=== $* (port $_port, loopback)"
  "$@" -p "$_port" >/tmp/srv.$_port 2>&1 &
  _srv=$!
  _end=$(($(date +%s) + LIMIT))
  while :; do
    "$@" -p "$_port" 127.0.0.1 >/tmp/cli.$_port 2>&1 &
    _cli=$!
    while kill -0 "$_cli" 2>/dev/null && [ "$(date +%s)" -lt "$_end" ]; do sleep 0.2; done
    if kill -0 "$_cli" 2>/dev/null; then
      echo "--- still running after ${LIMIT}s: QPs and CQs of mlx5_0"
      rdma -d resource show qp; rdma -d resource show cq; rdma resource show
      kill "$_cli" "$_srv" 2>/dev/null
      wait "$_cli"; wait "$_srv"
      echo "--- server:"; cat /tmp/srv.$_port
      echo "--- client:"; cat /tmp/cli.$_port
      fail "$1 hung (killed after ${LIMIT}s)"
    fi
    wait "$_cli"; _rc=$?
    grep -q "Couldn't connect\|Connection refused\|Unable to open file descriptor" /tmp/cli.$_port || break
    [ "$(date +%s)" -lt "$_end" ] || break
    sleep 0.5
  done
  while kill -0 "$_srv" 2>/dev/null && [ "$(date +%s)" -lt "$_end" ]; do sleep 0.2; done
  if kill -0 "$_srv" 2>/dev/null; then
    echo "--- server still running after ${LIMIT}s"; rdma -d resource show qp
    kill "$_srv" 2>/dev/null
  fi
  wait "$_srv"; _src=$?
  echo "--- server:"; cat /tmp/srv.$_port
  echo "--- client:"; cat /tmp/cli.$_port
  [ "$_rc" = 0 ] || fail "$1 client exited with $_rc"
  [ "$_src" = 0 ] || fail "$1 server exited with $_src"
  grep -Eq "$_check" /tmp/cli.$_port || fail "$1 client printed no result"
}
PP="bytes in .* seconds|iters in"
BW="^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+"

local_pair 18550 "$PP" ibv_rc_pingpong -d mlx5_0 -n 100
local_pair 18551 "$PP" ibv_rc_pingpong -d mlx5_0 -n 20 -s 10000
local_pair 18552 "$PP" ibv_rc_pingpong -d mlx5_0 -n 100 -s 1
local_pair 18553 "$BW" ib_write_bw -d mlx5_0 -n 5
local_pair 18554 "$PP" ibv_ud_pingpong -d mlx5_0 -n 100
echo "loopback: OK"
