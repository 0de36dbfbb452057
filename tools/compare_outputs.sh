#!/usr/bin/env bash
# Proves a restructuring of the CLI leaves its outputs byte-identical: records scenario runs once
# under one build's layer, renders every output of `vkleak report`, `gate` (text, JSON, Markdown,
# JUnit, SARIF, HTML, the findings JSON file), `diff`, `show` and the commands' --help with each
# build's vkleak from the same snapshots, and diffs the two folders.
#
#   tools/compare_outputs.sh compare OLD_BUILD NEW_BUILD [WORK]
#       snapshots with OLD_BUILD's layer (WORK/snapshots), outputs in WORK/old and WORK/new,
#       then `diff -r`; exit 0 when identical. WORK defaults to a temporary folder, kept; a
#       WORK/snapshots that exists is reused (then OLD_BUILD needs only bin/vkleak: e.g. a copy of
#       the original build's binary, the runs recorded once with `snapshots`).
#   tools/compare_outputs.sh snapshots BUILD SNAPDIR     only record the runs
#   tools/compare_outputs.sh render BUILD SNAPDIR OUTDIR only render them
#
# Each command's stdout, stderr and exit status are kept (NAME.out, NAME.err, NAME.rc), files it
# writes next to them. vkleak runs from SNAPDIR with relative inputs, so outputs name the same
# paths whichever build renders them; scenario binaries (symbols, source paths) are OLD_BUILD's.
set -euo pipefail

LAVAPIPE_ICD=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json

usage() {
  sed -n '2,17p' "$0" >&2
  exit 2
}

# record_run BUILD DIR EVERY PROGRAM [ARGS...]: the program under the layer, snapshots in DIR.
record_run() {
  local build=$1 dir=$2 every=$3 program=$4
  shift 4
  mkdir -p "$dir"
  # The loader isolated from the machine, as tests/integration/harness.py's base_env.
  env -i PATH="$PATH" HOME="$dir" LANG=C.UTF-8 \
    VK_DRIVER_FILES="$LAVAPIPE_ICD" VK_LOADER_LAYERS_DISABLE=VK_LAYER_MESA_device_select \
    XDG_DATA_HOME="$dir/.xdg" XDG_CONFIG_HOME="$dir/.xdg-config" \
    VK_LAYER_SETTINGS_PATH="$dir/.no-settings" \
    VK_LAYER_PATH="$build/manifest/build" VK_INSTANCE_LAYERS=VK_LAYER_VKLEAK_tracker \
    VKLEAK_OUTPUT_DIR="$dir" VKLEAK_SNAPSHOT_EVERY="$every" VKLEAK_FRAME_BOUNDARY=submit \
    "$build/tests/scenarios/$program" "$@" >"$dir.log" 2>&1 || true
  rm -rf "$dir/.xdg" "$dir/.xdg-config"
}

snapshots() {
  local build snaps
  build=$(cd "$1" && pwd)
  mkdir -p "$2"
  snaps=$(cd "$2" && pwd)
  record_run "$build" "$snaps/growth" 25 incident1_wrapper_growth --frames 150
  record_run "$build" "$snaps/growth_fine" 10 incident1_wrapper_growth --frames 150
  record_run "$build" "$snaps/retained" 25 incident2_resized_view_cache --frames 100
  record_run "$build" "$snaps/in_flight" 25 incident3_early_free
  record_run "$build" "$snaps/orphaned" 25 incident4_orphaned_memory
  record_run "$build" "$snaps/stale_view" 25 incident5_bindgroup_cache
  record_run "$build" "$snaps/leak" 25 leak_named_buffers
  record_run "$build" "$snaps/double_destroy" 25 misuse --mode double-destroy
  record_run "$build" "$snaps/wrong_device" 25 misuse --mode wrong-device
  record_run "$build" "$snaps/clean" 25 clean_app
  record_run "$build" "$snaps/hostile" 25 hostile_inputs --mode names
  record_run "$build" "$snaps/crash" 25 crash_on_demand --mode segv
  record_run "$build" "$snaps/no_teardown" 25 no_teardown
  record_run "$build" "$snaps/every_type" 25 every_object_type
  record_run "$build" "$snaps/chains" 25 callsite_chains
  # Two runs in one directory: run labels, several runs per document.
  record_run "$build" "$snaps/two_runs" 25 leak_named_buffers --count 2
  record_run "$build" "$snaps/two_runs" 25 leak_named_buffers --count 4
  rm -f "$snaps"/*.log
  # A suppression file: one rule that matches, one that does not.
  printf '%s\n' '# compare_outputs.sh' 'leak_at_exit:leak_buffers' \
    'growth:no_such_function_anywhere' >"$snaps/rules.supp"
}

render() {
  local vkleak snaps out
  vkleak=$(cd "$1" && pwd)/bin/vkleak
  snaps=$(cd "$2" && pwd)
  mkdir -p "$3"
  out=$(cd "$3" && pwd)
  cd "$snaps"
  export NO_COLOR=1 LANG=C.UTF-8 COLUMNS=100
  unset LC_ALL LC_CTYPE

  # cmd NAME ARGS...: vkleak ARGS with its stdout, stderr and exit status in OUT/NAME.*;
  # "@OUT@" in ARGS names a file under OUT.
  cmd() {
    local name=$1
    shift
    local args=() a
    for a in "$@"; do args+=("${a//@OUT@/$out}"); done
    local rc=0
    "$vkleak" "${args[@]}" >"$out/$name.out" 2>"$out/$name.err" </dev/null || rc=$?
    echo "$rc" >"$out/$name.rc"
    # Paths of OUT in what it printed (the error of an unwritable file) read the same.
    sed -i "s|$out|OUT|g" "$out/$name.out" "$out/$name.err"
  }

  local sub
  cmd help --help
  for sub in run show report diff gate; do cmd "help_$sub" "$sub" --help; done
  cmd bad_format report --format yaml leak
  cmd bad_fail_on gate --fail-on leak leak
  cmd missing_baseline gate --baseline no-such-file.json leak
  cmd unwritable report leak --json /no/such/dir/f.json

  local runs=(growth growth_fine retained in_flight orphaned stale_view leak double_destroy
    wrong_device clean hostile crash no_teardown every_type chains two_runs)
  local run fmt
  for run in "${runs[@]}"; do
    for fmt in text json markdown junit sarif; do
      cmd "report_${run}_$fmt" report "$run" --format "$fmt"
    done
    cmd "report_${run}_files" report "$run" --json "@OUT@/report_${run}_files.json" \
      --markdown "@OUT@/report_${run}_files.md" --junit "@OUT@/report_${run}_files.xml" \
      --sarif "@OUT@/report_${run}_files.sarif" --html "@OUT@/report_${run}.html"
    cmd "report_${run}_color" report "$run" --color always --sparklines always
    cmd "report_${run}_nosym" report "$run" --no-symbolize --max-examples 1 --max-names 2
    for fmt in text json markdown junit sarif; do
      cmd "gate_${run}_$fmt" gate "$run" --format "$fmt" --suppressions rules.supp
    done
    cmd "gate_${run}_files" gate "$run" --json "@OUT@/gate_${run}.json" \
      --html "@OUT@/gate_${run}.html"
  done
  # Baselines: a run against itself (everything known), against another (some new), with
  # --fail-on, --max-findings, --allow-incomplete.
  for fmt in text json markdown junit sarif; do
    cmd "gate_baseline_self_$fmt" gate growth --format "$fmt" \
      --baseline "$out/report_growth_json.out"
    cmd "gate_baseline_other_$fmt" gate growth_fine --format "$fmt" \
      --baseline "$out/report_orphaned_json.out" --html "@OUT@/gate_baseline_other_$fmt.html"
  done
  cmd gate_baseline_cadence gate growth_fine --baseline "$out/report_growth_json.out"
  cmd gate_fail_on gate stale_view --fail-on growth,retained --format json
  cmd gate_fail_on_text gate stale_view --fail-on stale_view --format markdown
  cmd gate_max gate every_type --max-findings 3
  cmd gate_allow_incomplete gate crash --allow-incomplete --format json
  cmd gate_allow_incomplete_text gate crash --allow-incomplete
  cmd gate_several gate leak orphaned in_flight --format sarif --html "@OUT@/gate_several.html"
  cmd report_several report growth retained stale_view --format json \
    --html "@OUT@/report_several.html"

  # show and diff on each run's snapshots: the first, the middle and the last.
  for run in "${runs[@]}"; do
    local files=()
    mapfile -t files < <(ls "$run" | grep '^vkleak-.*\.json$' | sort -t- -k4,4n)
    [ "${#files[@]}" -gt 0 ] || continue
    local first=$run/${files[0]} last=$run/${files[${#files[@]} - 1]}
    local middle=$run/${files[${#files[@]} / 2]}
    for fmt in text json; do
      cmd "show_${run}_first_$fmt" show "$first" --format "$fmt"
      cmd "show_${run}_last_$fmt" show "$last" --format "$fmt" --top 0
      cmd "diff_${run}_2_$fmt" diff "$first" "$last" --format "$fmt"
      cmd "diff_${run}_3_$fmt" diff "$first" "$middle" "$last" --format "$fmt" --top 0
    done
    cmd "show_${run}_nosym" show "$last" --no-symbolize
    cmd "diff_${run}_nosym" diff "$first" "$last" --no-symbolize --max-examples 1
  done
  sed -i "s|$out|OUT|g" "$out"/*.json "$out"/*.md "$out"/*.xml "$out"/*.sarif "$out"/*.html \
    2>/dev/null || true
  echo "$(ls "$out" | wc -l) files in $out"
}

case "${1:-}" in
  snapshots)
    [ $# -eq 3 ] || usage
    snapshots "$2" "$3"
    ;;
  render)
    [ $# -eq 4 ] || usage
    render "$2" "$3" "$4"
    ;;
  compare)
    [ $# -ge 3 ] && [ $# -le 4 ] || usage
    work=${4:-$(mktemp -d)}
    mkdir -p "$work"
    work=$(cd "$work" && pwd)
    [ -d "$work/snapshots" ] || snapshots "$2" "$work/snapshots"
    rm -rf "$work/old" "$work/new"
    (render "$2" "$work/snapshots" "$work/old")
    (render "$3" "$work/snapshots" "$work/new")
    if diff -r "$work/old" "$work/new" >"$work/diff.txt"; then
      echo "identical: $(ls "$work/old" | wc -l) files ($work)"
    else
      echo "DIFFERENT: $work/diff.txt" >&2
      head -50 "$work/diff.txt" >&2
      exit 1
    fi
    ;;
  *) usage ;;
esac
