#!/usr/bin/env bash
# One cold reindex with its memory split: GNU time's wall, CPU and peak RSS, and the largest
# RssAnon and RssFile of /proc/PID/status sampled every 0.5 s (a sample can miss the peak that
# GNU time reports). The binary's debug log goes to WORK/log, the samples to WORK/timeline.
#
#   benches/reindex-profile.sh BIN VAULT WORK     (e.g. RUST_LOG=gitmem=debug before it)
set -euo pipefail
bin=$1; vault=$2; work=$3
root=$work/root
rm -rf "$root" "$work/timeline"; mkdir -p "$work"
"$bin" --root "$root" project add vault "$vault" --default >/dev/null
load=$(cut -d' ' -f1 /proc/loadavg)
/usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin" --root "$root" reindex --project vault >/dev/null 2>"$work/log" &
tpid=$!
sleep 0.2
pid=$(pgrep -P $tpid | head -1 || true)
maxa=0; maxf=0; maxs=0
while kill -0 $tpid 2>/dev/null; do
  if [ -n "$pid" ] && [ -r /proc/$pid/status ]; then
    a=$(awk '/RssAnon/{print $2}' /proc/$pid/status 2>/dev/null || echo 0)
    f=$(awk '/RssFile/{print $2}' /proc/$pid/status 2>/dev/null || echo 0)
    a=${a:-0}; f=${f:-0}
    echo "$(date +%s) $a $f" >> "$work/timeline"
    [ "$a" -gt $maxa ] && maxa=$a; [ "$f" -gt $maxf ] && maxf=$f
    s=$((a + f)); [ $s -gt $maxs ] && maxs=$s
  fi
  sleep 0.5
done
wait $tpid || true
read -r wall rss u s < "$work/time"
echo "$(basename "$bin"): wall ${wall} s, user $u sys $s, peak RSS $((rss / 1024)) MB, RssAnon max $((maxa / 1024)) MB, RssFile max $((maxf / 1024)) MB, max sum $((maxs / 1024)) MB, index $(du -sh "$root/index" | cut -f1), load at start $load, end $(cut -d' ' -f1 /proc/loadavg)"
