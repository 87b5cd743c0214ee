#!/bin/sh
# Splits a labelled set's questions.tsv into its tuning half and its unseen half (README.md of
# each set): the header line goes to both files, then the questions alternate, the first, third,
# fifth… to tuning.tsv and the second, fourth, sixth… to unseen.tsv, so that each half samples
# every topic of a file written topic by topic. Deterministic: rerun after editing questions.tsv.
# Usage: eval/split-questions.sh eval/<set>
set -e
dir="${1:?usage: eval/split-questions.sh eval/<set>}"
awk -F '\t' -v tuning="$dir/tuning.tsv" -v unseen="$dir/unseen.tsv" '
  /^#/ { print > tuning; print > unseen; next }
  NF == 0 { next }
  { n++; print > (n % 2 == 1 ? tuning : unseen) }
' "$dir/questions.tsv"
