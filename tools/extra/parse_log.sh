#!/usr/bin/env sh
# parse_log.sh: the test and training tables of a `caffe train` log, as
# Caffe's tools/extra/parse_log.sh writes them.
#
#   parse_log.sh path/to/caffe.log
#
# writes, in the current directory,
#   caffe.log.test    #Iters Seconds TestAccuracy TestLoss
#                     (test net outputs #0 and #1 of every test pass)
#   caffe.log.train   #Iters Seconds TrainingLoss LearningRate
#                     (the displayed, smoothed loss and its rate)
# Seconds count from the 'Solving' line (extract_seconds.py, beside this
# script).  parse_log.py writes the same data as CSV with every output.
set -e
if [ $# -lt 1 ]; then
  echo "Usage: parse_log.sh /path/to/your.log" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
log=$1
name=$(basename "$log")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The value after "<name> = " on a line, or "" (a missing output).
value_awk='function value(line,   m) {
  if (match(line, / = [-+0-9.eEnaif]+/) == 0) return "";
  return substr(line, RSTART + 3, RLENGTH - 3);
}
function iteration(line) {
  match(line, /Iteration [0-9]+/);
  return substr(line, RSTART + 10, RLENGTH - 10);
}'

# One row per test pass: its 'Testing net' line, then its outputs.
awk "$value_awk"'
  /Iteration [0-9]+, Testing net/ {
    if (n) print it, out0, out1
    it = iteration($0); out0 = "nan"; out1 = "nan"; n = 1; next }
  n && /Test net output #0:/ { out0 = value($0) }
  n && /Test net output #1:/ { out1 = value($0) }
  END { if (n) print it, out0, out1 }' "$log" > "$tmp/test_values"
{ grep '] Solving ' "$log"; grep 'Testing net' "$log"; } > "$tmp/test_lines" || true
/usr/bin/env python3 "$here/extract_seconds.py" "$tmp/test_lines" "$tmp/test_seconds"

# One row per display: 'Iteration N (...), loss = L', the rate after it.
awk "$value_awk"'
  /Iteration [0-9]+.*, loss = / {
    if (n) print it, loss, lr
    it = iteration($0); loss = value(substr($0, index($0, ", loss = ") + 1))
    lr = "nan"; n = 1; next }
  n && /Iteration [0-9]+, lr = / { lr = value($0) }
  END { if (n) print it, loss, lr }' "$log" > "$tmp/train_values"
{ grep '] Solving ' "$log"; grep ', loss = ' "$log"; } > "$tmp/train_lines" || true
/usr/bin/env python3 "$here/extract_seconds.py" "$tmp/train_lines" "$tmp/train_seconds"

table() {  # header, values (iter a b), seconds -> aligned columns
  paste -d ' ' "$2" "$3" | awk -v header="$1" '
    BEGIN { split(header, h, " "); printf "%-8s %-10s %-14s %s\n", h[1], h[2], h[3], h[4] }
    { printf "%-8s %-10s %-14s %s\n", $1, $4, $2, $3 }'
}
table '#Iters Seconds TestAccuracy TestLoss' "$tmp/test_values" \
  "$tmp/test_seconds" > "$name.test"
table '#Iters Seconds TrainingLoss LearningRate' "$tmp/train_values" \
  "$tmp/train_seconds" > "$name.train"
