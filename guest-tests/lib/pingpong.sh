# Client/server pairs across the two guests: instance 0 is the server, instance 1 the client,
# which retries until the server listens. Both sides must exit 0; the output stays in the log.

# _pair PORT CHECK_EREGEX PROGRAM ARGS...
_pair() {
  _port=$1 _check=$2; shift 2
  _out=/tmp/pp.$_port
  echo "=== $* (port $_port, instance $IDX)"
  if [ "$IDX" = 0 ]; then
    "$@" -p "$_port" >"$_out" 2>&1; _rc=$?
  else
    _rc=1
    _end=$(($(date +%s) + 60))
    while [ "$(date +%s)" -lt "$_end" ]; do
      "$@" -p "$_port" "$PEER_IP" >"$_out" 2>&1; _rc=$?
      grep -q "Couldn't connect\|Connection refused\|Unable to open file descriptor" "$_out" || break
      sleep 0.5
    done
  fi
  cat "$_out"
  [ "$_rc" = 0 ] || fail "$1 exited with $_rc"
  # the client always reports; passive servers (perftest READ/atomic latency) may not
  if [ "$IDX" != 0 ] || [ -z "$_client_only" ]; then
    grep -Eq "$_check" "$_out" || fail "$1 printed no result"
  fi
}

# pingpong PORT PROGRAM ARGS...: an ibv_*_pingpong pair
pingpong() {
  _p=$1; shift
  _client_only=; _pair "$_p" "bytes in .* seconds|iters in" "$@"
}

# perftest PORT PROGRAM ARGS...: a perftest pair; the client's result table must have a data
# row (READ and atomic latency servers are passive and print none)
perftest() {
  _p=$1; shift
  _client_only=1; _pair "$_p" "^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+" "$@"
}
