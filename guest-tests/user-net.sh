#!/bin/sh
# user-net: QEMU user networking (-netdev user, libslirp) into a test guest. The runner gives
# this guest a virtio-net NIC on `-netdev user,restrict=on,hostfwd=tcp:127.0.0.1:PORT-:22`;
# /init took slirp's DHCP lease and started dropbear; the runner then logs in from the host
# with ssh through the forwarded port and writes a nonce, which this test prints back.
# Checks: the lease (10.0.2.15/24 from slirp's DHCP server 10.0.2.2), sshd listening, and the
# host's login (the runner fails the test unless ssh worked and the nonce arrived here).
# mlx5t-instances: 1
# mlx5t-hca: no
# mlx5t-timeout: 300
# mlx5t-ssh: check
. /test/lib/common.sh

[ -n "${USER_IF:-}" ] || fail "no user-network NIC (MAC 02:4d:55:*) in the guest"
echo "user network: $USER_IF ip ${USER_IP:-none}"
[ "${USER_IP:-}" = 10.0.2.15 ] || fail "expected slirp's DHCP address 10.0.2.15, got '${USER_IP:-none}'"
ip -4 -o addr show dev "$USER_IF" | grep -q ' 10\.0\.2\.15/24 ' || fail "lease prefix is not /24"
# restrict=on: slirp's DHCP offers no router; the lease must come from slirp's server 10.0.2.2
grep -q 'obtained from 10\.0\.2\.2' /tmp/udhcpc.log || fail "lease not from slirp: $(cat /tmp/udhcpc.log)"
pidof dropbear >/dev/null || fail "dropbear is not running"
grep -qi ':0016 ' /proc/net/tcp /proc/net/tcp6 2>/dev/null || fail "nothing listens on port 22"

# wait for the host's ssh session (TCG: key exchange takes a few seconds)
for _ in $(seq 240); do
  [ -s /tmp/mlx5t-ssh-nonce ] && break
  sleep 0.5
done
[ -s /tmp/mlx5t-ssh-nonce ] || fail "no ssh session from the host within 120 s"
echo "ssh-nonce $(cat /tmp/mlx5t-ssh-nonce)"
echo "PASS: ssh from the host through -netdev user hostfwd"
