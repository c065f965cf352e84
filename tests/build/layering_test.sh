#!/usr/bin/env bash
# The layering of docs/architecture.md holds: every #include of one folder from another points down
# (to a folder listed before it), at the top level and inside each component. A folder or
# top-level file missing from a list fails too, so a new one is placed on purpose.
#   layering_test.sh SOURCE_DIR
set -euo pipefail
root=$1
cd "$root"
failed=0

# check COMPONENT LEVEL:UNIT...  (bottom first; units of one level may not include each other)
check() {
  local comp=$1
  shift
  local -A level=()
  local spec
  for spec in "$@"; do level[${spec#*:}]=${spec%%:*}; done
  local line file inc from to
  while IFS= read -r line; do
    file=${line%%:*}
    inc=${line#*\"}
    inc=${inc%%\"*}
    from=${file#"$comp"/}
    from=${from%%/*}
    from=${from%.*}
    to=${inc#"$comp"/}
    to=${to%%/*}
    to=${to%.*}
    [[ $from == "$to" ]] && continue
    if [[ -z ${level[$from]+x} ]]; then
      echo "$file: '$from' has no place in $comp's layering (docs/architecture.md)"
      failed=1
    elif [[ -z ${level[$to]+x} ]]; then
      echo "$file includes $inc: '$to' has no place in $comp's layering (docs/architecture.md)"
      failed=1
    elif ((level[$to] >= level[$from])); then
      echo "$file includes $inc: $comp/$from may not include $comp/$to, which is not below it"
      failed=1
    fi
  done < <(grep -rn --include='*.h' --include='*.cpp' "^#include \"$comp/" "$comp")
}

# The top level: which component may include which (their own folders are checked below).
top() {
  local -A level=([traces]=0 [reference_engine]=1 [agent]=1 [analyzer]=2 [gui]=3 [cli]=4)
  local comp line file inc to
  for comp in "${!level[@]}"; do
    while IFS= read -r line; do
      file=${line%%:*}
      inc=${line#*\"}
      inc=${inc%%\"*}
      to=${inc%%/*}
      [[ $to == "$comp" || -z ${level[$to]+x} ]] && continue
      if ((level[$to] >= level[$comp])); then
        echo "$file includes $inc: $comp/ may not include $to/, which is not below it"
        failed=1
      fi
    done < <(grep -rn --include='*.h' --include='*.cpp' '^#include "[a-z_]*/' "$comp")
  done
}

top
check traces 0:errors 0:model 1:files 1:json 1:format 1:parallel 2:sqlite 3:import
check reference_engine 0:schedule 1:sim 1:executor
check analyzer 0:result 1:recognize 2:comm 3:infer 4:pipeline 5:timeline 6:idle 7:whatif \
  8:pipeline_step 9:pipeline_analysis 10:replicas 11:inventory 12:utilization 13:hang 14:export \
  15:analysis_steps 16:analyze 17:owned_analysis 18:owned_rounds_codec 19:report 19:watch 20:check
check agent 0:core 1:control 1:cupti 2:nccl 3:nvtx 4:process 5:entry
check gui 0:timeline 1:model 2:draw 3:app
exit $failed
