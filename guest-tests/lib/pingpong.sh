# Client/server pairs across the two guests: instance 0 is the server, instance 1 the client,
# which retries until the server listens. Both sides must exit 0; the output stays in the log.

# _pair PORT CHECK_EREGEX PROGRAM ARGS...
_pair() {
  _port=$1 _check=$2; shift 2
  _out=/tmp/pp.$_port
  echo "=== $* (port $_port, instance $IDX)"
  if [ "$IDX" = 0 ]; then
    "$@" -p "$_port" >"$_out" 2>"$_out.e"; _rc=$?
  else
    _rc=1
    _end=$(($(date +%s) + 60))
    while [ "$(date +%s)" -lt "$_end" ]; do
      "$@" -p "$_port" "$PEER_IP" >"$_out" 2>"$_out.e"; _rc=$?
      cat "$_out.e" >>"$_out"
      grep -q "Couldn't connect\|Connection refused\|Unable to open file descriptor" "$_out" || break
      sleep 0.5
    done
  fi
  # (stderr after stdout: the program's buffered stdout reaches a file only at exit, after its
  # error messages, which would hide them from the FAIL line)
  if [ "$IDX" = 0 ]; then
    cat "$_out.e" >>"$_out"
  fi
  cat "$_out"
  # (the program's last words in the FAIL line: the runner prints that line, CI shows no more)
  [ "$_rc" = 0 ] ||
    fail "$1 exited with $_rc: $(grep -v '^[[:space:]]*-*[[:space:]]*$' "$_out" | tail -n 2 | tr -s '\n\t' '  ')"
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

# Perftest clients that meet a server which may not listen yet (it retries the connection for
# up to 90 s). The output goes to OUT (perftest buffers it: it cannot be watched while running).
_refused() { grep -q "Couldn't connect\|Connection refused" "$1"; }

# perftest_running OUT PROGRAM ARGS...: start a client that runs until an error (e.g.
# --run_infinitely) in the background, its pid in $bw; returns once it is connected (still
# running after 3 s: a refused connection exits at once)
perftest_running() {
  _o=$1; shift
  _end=$(($(date +%s) + 90))
  while [ "$(date +%s)" -lt "$_end" ]; do
    "$@" >"$_o" 2>&1 &
    bw=$!
    sleep 3
    kill -0 $bw 2>/dev/null && return 0
    wait $bw
    _refused "$_o" || { cat "$_o"; fail "$1 did not start"; }
  done
  cat "$_o"; fail "$1 never connected"
}

# perftest_done OUT PROGRAM ARGS...: run a client to its end; its exit status in $rc
perftest_done() {
  _o=$1; shift
  rc=1
  _end=$(($(date +%s) + 120))
  while [ "$(date +%s)" -lt "$_end" ]; do
    "$@" >"$_o" 2>&1; rc=$?
    _refused "$_o" || break
    sleep 1
  done
}

# tell_peer PORT: say "go" to the peer listening on PORT (nc -l) of the management network
tell_peer() {
  _end=$(($(date +%s) + 60))
  until echo go | nc -w 2 "$PEER_IP" "$1" 2>/dev/null; do
    [ "$(date +%s)" -lt "$_end" ] || fail "the peer does not listen on port $1"
    sleep 0.5
  done
}
