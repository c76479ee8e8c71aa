# pingpong PORT PROGRAM ARGS...: run an rdma-core/perftest-style client/server pair across the
# two guests: instance 0 is the server, instance 1 the client (it retries until the server
# listens). Both sides must exit 0 and print a throughput line; the output is kept in the log.
pingpong() {
  _port=$1; shift
  _out=/tmp/pp.$_port
  echo "=== $* (port $_port, instance $IDX)"
  if [ "$IDX" = 0 ]; then
    "$@" -p "$_port" >"$_out" 2>&1; _rc=$?
  else
    _rc=1
    _end=$(($(date +%s) + 60))
    while [ "$(date +%s)" -lt "$_end" ]; do
      "$@" -p "$_port" "$PEER_IP" >"$_out" 2>&1; _rc=$?
      grep -q "Couldn't connect\|Connection refused" "$_out" || break
      sleep 0.5
    done
  fi
  cat "$_out"
  [ "$_rc" = 0 ] || fail "$1 exited with $_rc"
  grep -Eq "bytes in .* seconds|iters in" "$_out" || fail "$1 printed no result"
}
