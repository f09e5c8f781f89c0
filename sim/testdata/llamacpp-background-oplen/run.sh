#!/bin/bash
# One quiet window: llama-bench pp64 and pp512 at -t 2 on the 2-vCPU VM, idle
# and beside an unpinned task of about a tenth of one CPU in bursts of 0.1, 1
# and 3 ms; the task's CPU share read from /proc/PID/stat over each run.
B=/work/llama.cpp/build/bin
M=/work/llama-data/moe-q8.gguf
out=/tmp/bg-oplen-out; mkdir -p $out
hz=$(getconf CLK_TCK)
bench() { $B/llama-bench -m $M -p 64,512 -n 0 -t 2 -r 5 -o jsonl 2>/dev/null; }
for round in 1 2; do
for cfg in idle 100:900 1000:9000 3000:27000; do
  if [ $cfg = idle ]; then
    s0=$(date +%s.%N); bench > $out/$cfg.r$round.jsonl; s1=$(date +%s.%N)
    echo "$cfg r$round share 0 wall $(echo "$s1-$s0"|bc)"
    continue
  fi
  ./burn ${cfg%:*} ${cfg#*:} & pid=$!
  sleep 0.5
  read -a st < /proc/$pid/stat; c0=$((st[13]+st[14])); s0=$(date +%s.%N)
  bench > $out/$cfg.r$round.jsonl
  read -a st < /proc/$pid/stat; c1=$((st[13]+st[14])); s1=$(date +%s.%N)
  kill $pid; wait $pid 2>/dev/null
  echo "$cfg r$round share $(echo "scale=4; ($c1-$c0)/$hz/($s1-$s0)"|bc) wall $(echo "$s1-$s0"|bc)"
done
done
