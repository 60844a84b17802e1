#!/bin/sh
# Rerun round send_bw (started 2026-11-29T17:15:53Z).
set -e
# server
ssh -- vm-a 'ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515' &
sleep 2 # let the server listen
# client
ssh -- vm-b 'ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515 198.18.0.1'
wait
