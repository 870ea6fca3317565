#!/usr/bin/env bash
# CPU time of whole commands in interleaved rounds, for ratios on a noisy
# machine: cpu-rounds.sh ROUNDS FILE JOBS BIN... runs each binary
# (`BIN -jJOBS --quiet --no-html -o DIR FILE`, or the word `validate` for
# pgn-reader's example as benches/run.sh builds it) once a round, round 0 a
# warm-up, and prints the median user+sys CPU seconds and wall seconds.
# Needs GNU time (/usr/bin/time) and bc.
rounds=$1; file=$2; j=$3; shift 3
declare -A cpu wall
for r in $(seq 0 $rounds); do
  for b in "$@"; do
    if [[ $b == validate ]]; then cmd=(${BENCH_SCRATCH:-/work/bench-scratch}/pgn-reader-examples/target/release/validate "$file");
    else cmd=("$b" -j$j --quiet --no-html -o "${TMPDIR:-/tmp}"/cpu-rounds-out-$$ "$file"); fi
    /usr/bin/time -o "${TMPDIR:-/tmp}"/cpu-rounds-time-$$ -f "%U %S %e" "${cmd[@]}" >/dev/null 2>&1; out=$(tail -1 "${TMPDIR:-/tmp}"/cpu-rounds-time-$$)
    [[ $r == 0 ]] && continue
    read u s e <<<"$out"
    cpu[$b]+="$(echo "$u + $s" | bc) "; wall[$b]+="$e "
  done
done
for b in "$@"; do
  mc=$(echo ${cpu[$b]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  mw=$(echo ${wall[$b]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  echo "$b cpu=$mc wall=$mw"
done
