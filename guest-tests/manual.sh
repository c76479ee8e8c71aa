#!/bin/sh
# The example programs of Mellanox's "RDMA Aware Networks Programming User Manual" (Rev 1.7)
# between two guests, restored unmodified from the manual (guest-tests/src/manual-*.c: their
# header comments list what was repaired) and given only command-line options:
#  - manual-mcast (7.4, the mckey-style RDMA_CM + verbs multicast example): instance 0 joins
#    239.1.1.1 and waits for 10 messages, instance 1 joins the group and sends them;
#  - manual-mc (8.2, mc.c): instance 1 joins 239.1.1.2 and receives 4 messages (each completion
#    checked for IBV_WC_SUCCESS by the program) that instance 0 sends to the group;
#  - manual-srq (8.3, srq.c): server on instance 0, client on instance 1, each side 4 RC QPs
#    sharing one SRQ; the client sends 100 messages of 100000 bytes in bursts of 64, the server
#    checks every receive completion and answers each burst with one send.
# Multicast receivers join (the SA join of the RDMA CM) before the sender starts: the receiver's
# output is block-buffered until it exits, so its guest waits for its QP (rdma res), gives the
# join a moment, then meets the sender's guest at a barrier.
#  - manual-apm (8.1, apm.c): the client loads an alternate path to the server's second LID
#    (-d, -r), migrates after 3 messages (-m) and both go on; the server's QP follows by
#    itself and both print the path-migrated event; apm-check (guest-tests/src/apm-check.c)
#    runs first in each guest.
# The devices have lmc=1: each port has two LIDs (base and base + 1), a second path.
# mlx5t-instances: 2
# mlx5t-timeout: 800
# mlx5t-qemu-args: -global mlx5-hca.lmc=1
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up

# check FILE EREGEX WHAT: fail unless FILE has a line matching EREGEX
check() {
  grep -Eq "$2" "$1" || fail "$3 (no line matching /$2/)"
}

# mcast_pair NAME RECEIVER_IDX PORT RECEIVER_CMD... -- SENDER_CMD...: instance RECEIVER_IDX
# starts the receiver in the background, waits until its QP exists and the join had time, then
# both pass barrier NAME-joined and the other instance runs the sender. Both must exit 0; the
# caller checks the outputs in /tmp/NAME.out.
mcast_pair() {
  _name=$1 _ridx=$2 _port=$3; shift 3
  split_cmds "$@"
  _rcv=$CMD1 _snd=$CMD2
  _out=/tmp/$_name.out
  echo "=== $_name"
  if [ "$IDX" = "$_ridx" ]; then
    echo "+$_rcv (receiver)"
    # shellcheck disable=SC2086
    timeout 150 $_rcv > "$_out" 2>&1 &
    _pid=$!
    _prog=${_rcv# }; _prog=${_prog%% *}
    wait_for 60 sh -c "rdma res show qp | grep -qw $_prog" ||
      { kill "$_pid" 2>/dev/null; cat "$_out"; fail "$_name receiver made no QP"; }
    sleep 3
    barrier "$_name-joined" "$_port"
    wait "$_pid"; _rc=$?
  else
    barrier "$_name-joined" "$_port"
    echo "+$_snd (sender)"
    # shellcheck disable=SC2086
    timeout 120 $_snd > "$_out" 2>&1; _rc=$?
  fi
  cat "$_out"
  [ "$_rc" = 0 ] || fail "$_name exited with $_rc"
}

# ---- 7.4: RDMA_CM + verbs multicast (mckey-style), 10 messages of 100 bytes -----------------
mcast_pair manual-mcast 0 6200 manual-mcast -m 239.1.1.1 -b "$IB_ME" -C 10 -- \
  manual-mcast -m 239.1.1.1 -b "$IB_ME" -C 10 -s
f=/tmp/manual-mcast.out
check $f "^mckey: joined dgid: " "manual-mcast did not join the group"
check $f "^test complete" "manual-mcast did not complete"
check $f "^return status 0$" "manual-mcast returned an error"
if [ "$IDX" = 0 ]; then
  # the receiver only gets here once it has polled a completion for each of the 10 messages
  check $f "^receiving data transfers" "manual-mcast receiver did not wait for data"
  check $f "^data transfers complete" "manual-mcast receiver did not get all messages"
else
  check $f "^initiating data transfers" "manual-mcast sender did not send"
  check $f "^data transfers complete" "manual-mcast sender did not finish sending"
fi
echo "manual-mcast: OK"
barrier manual-mcast-done 6200

# ---- 8.2: multicast with RDMA CM (mc.c), 4 messages of 64 bytes -------------------------------
mcast_pair manual-mc 1 6200 manual-mc -m 239.1.1.2 -b "$IB_ME" -- \
  manual-mc -s -m 239.1.1.2 -b "$IB_ME"
f=/tmp/manual-mc.out
check $f "^joined dgid: [0-9a-f:]+, mlid 0x[0-9a-f]+, sl " "manual-mc did not join the group"
grep -q "work completion status" $f && fail "manual-mc: a completion with an error"
if [ "$IDX" = 1 ]; then
  check $f "^waiting for messages" "manual-mc receiver did not wait for messages"
  check $f "^received message 4$" "manual-mc receiver did not get all 4 messages"
else
  check $f "^sent message 4$" "manual-mc sender did not send all 4 messages"
fi
echo "manual-mc: OK"
barrier manual-mc-done 6200

# ---- 8.3: shared receive queue (srq.c), default parameters ------------------------------------
# 100 messages of 100000 bytes over 4 QPs, max_wr 64: the server answers after 64 and after 100
echo "=== manual-srq"
f=/tmp/manual-srq.out
if [ "$IDX" = 0 ]; then
  echo "+ manual-srq -s -a $IB_ME (server)"
  timeout 300 manual-srq -s -a "$IB_ME" > $f 2>&1 &
  pid=$!
  wait_for 60 sh -c "rdma res show cm_id | grep LISTEN | grep -qw manual-srq" ||
    { kill "$pid" 2>/dev/null; cat $f; fail "manual-srq server is not listening"; }
  barrier manual-srq-listening 6200
  wait "$pid"; rc=$?
else
  barrier manual-srq-listening 6200
  echo "+ manual-srq -a 192.168.77.1 (client)"
  timeout 300 manual-srq -a 192.168.77.1 > $f 2>&1; rc=$?
fi
echo "($(wc -l < $f) lines of output; the first and the last ones:)"
head -n 3 $f; echo "..."; tail -n 6 $f
[ "$rc" = 0 ] || fail "manual-srq exited with $rc"
grep -q "work completion status\|returned" $f && fail "manual-srq reported an error"
if [ "$IDX" = 0 ]; then
  check $f "^waiting for connection from client" "manual-srq server did not listen"
  check $f "^recv count: 100, qp_num: [0-9]+$" "manual-srq server did not receive 100 messages"
  check $f "^send count: 2$" "manual-srq server did not answer both bursts"
  [ "$(grep -c "^recv count: " $f)" = 100 ] || fail "manual-srq server: not 100 receive completions"
  # the four QPs each got their share of the SRQ's receives
  n=$(sed -n 's/^recv count: [0-9]*, qp_num: \([0-9]*\)$/\1/p' $f | sort -u | wc -l)
  [ "$n" = 4 ] || fail "manual-srq server: receives on $n QPs, want 4"
else
  check $f "^send count: 100, qp_num: [0-9]+$" "manual-srq client did not send 100 messages"
  [ "$(grep -c "^send count: " $f)" = 100 ] || fail "manual-srq client: not 100 send completions"
  grep -n "^recv count: " $f
  # the answer to the first burst always arrives (line 65, after send 64). The second one is
  # printed only if it is already in the CQ when the client polls after its last send: srq.c
  # re-arms its CQ before polling the CQE that woke it, so (as on mlx5 hardware, where an arm
  # doorbell whose consumer index lags the CQ raises the event at once) a second, stale event
  # is waiting; after the last burst await_completion() returns on it, ibv_poll_cq() may find
  # nothing yet, and run_client() returns 0 without waiting for the answer (the program's own
  # race, kept: the program is run unmodified)
  check $f "^recv count: 1$" "manual-srq client did not get the answer to its first burst"
  [ "$(sed -n 65p $f)" = "recv count: 1" ] || fail "manual-srq client: answer not after send 64"
fi
echo "manual-srq: OK"
barrier manual-srq-done 6200

# ---- 8.1: automatic path migration (apm.c), and apm-check ------------------------------------
echo "=== apm-check"
run apm-check -d mlx5_0 || fail "apm-check failed"
barrier apm-check-done 6200
echo "=== manual-apm"
f=/tmp/manual-apm.out
lidf=/sys/class/infiniband/mlx5_0/ports/1/lid
[ "$(cat /sys/class/infiniband/mlx5_0/ports/1/lid_mask_count)" = 1 ] || fail "LMC is not 1"
if [ "$IDX" = 0 ]; then
  echo "+ manual-apm -s -c 8 (server)"
  timeout 120 manual-apm -s -c 8 > $f 2>&1 &
  pid=$!
  wait_for 60 sh -c "rdma res show cm_id | grep LISTEN | grep -qw manual-apm" ||
    { kill "$pid" 2>/dev/null; cat $f; fail "manual-apm server is not listening"; }
  # the client learns our LID over the management network
  echo $(($(cat $lidf))) | timeout 60 nc -l -p 6300 >/dev/null || fail "LID exchange"
  wait "$pid"; rc=$?
else
  peer_lid=
  _end=$(($(date +%s) + 60))
  until [ -n "$peer_lid" ] || [ "$(date +%s)" -ge $_end ]; do
    peer_lid=$(nc -w 2 10.0.0.1 6300 </dev/null 2>/dev/null | tr -dc 0-9); sleep 0.3
  done
  [ -n "$peer_lid" ] || fail "no LID from the server"
  alt=$((peer_lid + 1))
  echo "+ manual-apm -a 192.168.77.1 -c 8 -m 3 -d $alt -r 1 (client; server LID $peer_lid)"
  timeout 120 manual-apm -a 192.168.77.1 -c 8 -m 3 -d $alt -r 1 > $f 2>&1; rc=$?
fi
cat $f
[ "$rc" = 0 ] || fail "manual-apm exited with $rc"
grep -q "returned" $f && fail "manual-apm reported an error"
check $f "^send: 8$" "manual-apm did not send 8 messages"
check $f "^recv: 8$" "manual-apm did not receive 8 messages"
check $f "^QP path migrated$" "manual-apm saw no path migration"
grep -q "path migration error" $f && fail "manual-apm: path migration error"
if [ "$IDX" = 1 ]; then
  check $f "^loading alt path - local port: 1, dlid: $alt$" "manual-apm client's alternate path"
fi
echo "manual-apm: OK"
barrier manual-apm-done 6200

echo "manual: OK"
