#!/bin/sh
# Rerun round send_bw (started 2026-11-29T17:15:53Z).
set -e
# server
ssh -- vm-a 'ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515' &
servers="$servers $!"
trap 'kill $servers 2>/dev/null || true' EXIT
# wait until it listens on TCP 18515 (at most 30 s), instead of guessing how long it takes
n=0
until ssh -- vm-a 'ss -Hltn '\''sport = :18515'\''' | grep -q .; do
	n=$((n+1)); if [ $n -ge 150 ]; then echo 'rerun.sh: the server does not listen on TCP 18515 after 30 s' >&2; exit 1; fi
	sleep 0.2
done
# client
ssh -- vm-b 'ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515 198.18.0.1'
wait # for perftest's server, which ends with its client
