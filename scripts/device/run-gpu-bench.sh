#!/usr/bin/env bash
# The engine on a GPU machine without network, in two steps (README.md here):
#
#   scripts/device/run-gpu-bench.sh build   # here: makes .device/payload (< 64 MiB), prints its size
#   scripts/device/run-gpu-bench.sh run     # there, in a copy of the repo with .device/payload:
#                                           # parity, bench engine on the GPU, PyTorch side by side
#   scripts/device/run-gpu-bench.sh train   # there: many `seal train` runs at once on its CPUs
#                                           # (TRAIN_RUNS, THREADS_PER_RUN; see train() below)
#
# `run` options (environment): DEVICE=webgpu|cuda (default webgpu), CONFIGS
# (bench engine, default 2m,10m,50m), TORCH_CONFIGS (default = CONFIGS;
# 'none' skips PyTorch),
# CHECK_CONFIGS (parity, default 2m,10m), QUICK=1 (bench engine --quick),
# PRECISIONS (parity and bench engine once per precision, default fp32; for
# example fp32,fp16), CEILING=1 (first, the EP's own MatMul rate and cost of
# a dispatch, beside PyTorch's: webgpu-ceiling.ts, torch_ceiling.py), EXTRA_BENCH (more bench engine runs after PyTorch, each
# a list of arguments, separated by ';'), CPU_BENCH=1 (bench engine on the CPU
# EP too), STAGE_TIMEOUT (seconds per stage, default 600), BUDGET (seconds
# for the whole run: a stage that cannot start with 30 s left is skipped),
# LOGS (folder for the logs, default .device/out; $OUT when set).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
payload=$root/.device/payload

build() {
  mkdir -p "$payload/app/node_modules" "$payload/deb"
  # 1. Node: this machine's binary, xz-compressed (about 24 MiB of 95).
  local node_bin
  node_bin=$(command -v node)
  if [[ ! -f $payload/node.xz || $(cat "$payload/node.version" 2>/dev/null) != "$(node --version)" ]]; then
    xz -T0 -6 -c "$node_bin" >"$payload/node.xz.tmp" && mv "$payload/node.xz.tmp" "$payload/node.xz"
    node --version >"$payload/node.version"
  fi
  # 2. The project, bundled: the GPU checks and bench engine, one file each.
  node "$root/scripts/device/bundle.mjs" "$payload/app"
  # 3. onnxruntime-node and onnxruntime-common (JS, binding, native library xz-compressed).
  local ort ort_common
  ort=$(node -e "console.log(require('path').dirname(require.resolve('onnxruntime-node/package.json', {paths: ['$root/packages/engine-ort']})))")
  # onnxruntime-common exports no package.json: walk up from its entry.
  ort_common=$(node -e "
    const path = require('path'); const fs = require('fs');
    let dir = path.dirname(require.resolve('onnxruntime-common', {paths: ['$ort']}));
    const named = (d) => fs.existsSync(path.join(d, 'package.json')) && JSON.parse(fs.readFileSync(path.join(d, 'package.json'), 'utf8')).name === 'onnxruntime-common';
    while (!named(dir)) dir = path.dirname(dir);
    console.log(dir);")
  local target=$payload/app/node_modules/onnxruntime-node
  rm -rf "$target" "$payload/app/node_modules/onnxruntime-common"
  mkdir -p "$target/bin/napi-v6/linux/x64"
  cp -r "$ort/dist" "$ort/package.json" "$target/"
  cp "$ort/bin/napi-v6/linux/x64/onnxruntime_binding.node" "$target/bin/napi-v6/linux/x64/"
  if [[ ! -f $payload/libonnxruntime.so.1.xz ]]; then
    xz -T0 -6 -c "$ort/bin/napi-v6/linux/x64/libonnxruntime.so.1" >"$payload/libonnxruntime.so.1.xz"
  fi
  mkdir -p "$payload/app/node_modules/onnxruntime-common"
  cp -r "$ort_common/dist" "$ort_common/package.json" "$payload/app/node_modules/onnxruntime-common/"
  # 4. The Vulkan loader from Debian's libvulkan1 (WebGPU is Dawn over Vulkan),
  # and glvnd's libraries: NVIDIA's Vulkan driver (libGLX_nvidia.so.0) needs
  # libGLdispatch.so.0, and without it the loader finds no driver.
  if ! ls "$payload"/deb/libglvnd0_*.deb >/dev/null 2>&1; then
    local lists=/tmp/seal-apt-amd64
    local apt_options=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$lists)
    mkdir -p "$lists/partial"
    apt-get "${apt_options[@]}" update >/dev/null
    (cd "$payload/deb" && apt-get "${apt_options[@]}" download libvulkan1 libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2)
  fi
  # 5. The PyTorch reference.
  cp "$root/scripts/device/torch_bench.py" "$root/scripts/device/torch_ceiling.py" "$payload/"
  local bytes
  bytes=$(du -sb "$payload" | cut -f1)
  awk -v b="$bytes" -v p="$payload" 'BEGIN { printf "payload %s: %.1f MiB (limit 64 MiB)\n", p, b / 1048576 }'
  if ((bytes >= 64 * 1048576)); then
    echo "payload is over 64 MiB" >&2
    exit 1
  fi
}

# Unpacks Node, the native library and the Vulkan loader outside the repo.
work=/tmp/seal-gpu
unpack() {
  mkdir -p "$work/vulkan"
  [[ -x $work/node ]] || { xz -dc "$payload/node.xz" >"$work/node" && chmod +x "$work/node"; }
  local lib=$payload/app/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1
  [[ -f $lib ]] || xz -dc "$payload/libonnxruntime.so.1.xz" >"$lib"
  for deb in "$payload"/deb/*.deb; do dpkg -x "$deb" "$work/vulkan"; done
}

# The unpacked Vulkan loader on the library path, and the NVIDIA driver's ICD
# where it sits outside the loader's default folders (WebGPU is Dawn over Vulkan).
vulkan_env() {
  export LD_LIBRARY_PATH=$work/vulkan/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if [[ -z ${VK_DRIVER_FILES:-} && ! -e /usr/share/vulkan/icd.d/nvidia_icd.json && ! -e /etc/vulkan/icd.d/nvidia_icd.json ]]; then
    for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/icd.d/nvidia_icd.json; do
      if [[ -e $icd ]]; then export VK_DRIVER_FILES=$icd; break; fi
    done
  fi
}

# Many `seal train` runs at once on the machine's CPUs (the learning probes of
# issue 17 need seeds, and a lent machine has 16 cores): TRAIN_RUNS lists
# "name|arguments" entries separated by ';', each run pinned to its own
# THREADS_PER_RUN cores (default 2, as on the 2-core VM), its log and run
# directory under LOGS. BUDGET caps each run (default 560 s): a run still
# going then is stopped, and what it evaluated so far comes back.
train() {
  local logs=${LOGS:-${OUT:-$root/.device/out}} per=${THREADS_PER_RUN:-2}
  mkdir -p "$logs"
  unpack
  vulkan_env # a run may name --device webgpu
  # The bundled CLI finds the shipped base beside it (apps/cli/src/shipped-base.ts).
  rm -rf "$payload/assets" && cp -r "$root/apps/cli/assets" "$payload/assets"
  local cores entries entry index first pids=() names=() arguments=()
  cores=$(nproc)
  IFS=';' read -ra entries <<<"${TRAIN_RUNS:?TRAIN_RUNS is empty}"
  for entry in "${entries[@]}"; do
    names+=("${entry%%|*}")
    arguments+=("${entry#*|}")
  done
  if ((${#names[@]} * per > cores)); then
    echo "${#names[@]} runs x $per threads need $((${#names[@]} * per)) cores; this machine has $cores" >&2
    return 2
  fi
  echo "== $(date -u +%FT%TZ) $(lscpu | grep 'Model name' | sed 's/ \+/ /g'); $cores cores; $(free -g | awk '/Mem:/ {print $2}') GiB; node $("$work/node" --version)"
  for index in "${!names[@]}"; do
    first=$((index * per))
    local pin=()
    command -v taskset >/dev/null && pin=(taskset -c "$first-$((first + per - 1))")
    # shellcheck disable=SC2086 # each entry's arguments are a list
    (cd "$payload/app" && timeout "${BUDGET:-560}" "${pin[@]}" "$work/node" seal.mjs train --fresh ${arguments[index]} \
      --run-dir "$logs/${names[index]}" --cache "$work/cache-${names[index]}" >"$logs/${names[index]}.log" 2>&1) &
    pids+=($!)
  done
  local status=0 pid
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  # A lent machine returns few files: the top-level files of every run
  # directory (events, config, capability state) go into one archive, and the
  # directories, with their episodes and checkpoints, are removed.
  (cd "$logs" && find "${names[@]}" -maxdepth 1 -type f -print0 | tar czf runs.tgz --null -T - && rm -rf "${names[@]}")
  for index in "${!names[@]}"; do
    echo "== ${names[index]}: $(grep -E 'steps · ' "$logs/${names[index]}.log" | head -1)"
    grep -E 'test-id gain' "$logs/${names[index]}.log" || tail -3 "$logs/${names[index]}.log"
  done
  return "$status"
}

run() {
  local device=${DEVICE:-webgpu} configs=${CONFIGS:-2m,10m,50m}
  local torch_configs=${TORCH_CONFIGS:-$configs} check_configs=${CHECK_CONFIGS:-2m,10m}
  local logs=${LOGS:-${OUT:-$root/.device/out}}
  local limit=${STAGE_TIMEOUT:-600} quick=()
  [[ ${QUICK:-0} == 1 ]] && quick=(--quick)
  mkdir -p "$logs"
  unpack
  vulkan_env
  echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi'); node $("$work/node" --version); VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
  cd "$payload/app"
  local status=0 precisions=${PRECISIONS:-fp32} precision
  local deadline=$((SECONDS + ${BUDGET:-86400}))
  # Runs a stage under the stage limit and the time left; skips it when under 30 s are left.
  stage() {
    local log=$1 left=$((deadline - SECONDS))
    shift
    if ((left < 30)); then
      echo "== skipped (budget spent): $*" | tee "$log"
      status=1
      return
    fi
    echo "== $(date -u +%T) $*"
    timeout "$((left < limit ? left : limit))" "$@" 2>&1 | tee "$log" || status=$?
  }
  if [[ ${CEILING:-0} == 1 ]]; then
    stage "$logs/ceiling.log" "$work/node" webgpu-ceiling.mjs --device "$device" --json "$logs/ceiling.json"
    [[ $torch_configs != none ]] && stage "$logs/torch-ceiling.log" python3 "$payload/torch_ceiling.py"
  fi
  # Per precision: parity, then bench engine; PyTorch after the first (so
  # that a short budget still gets the fp32 ratios).
  local torch_done=0
  for precision in ${precisions//,/ }; do
    stage "$logs/gpu-check-$precision.log" "$work/node" gpu-check.mjs --device "$device" --configs "$check_configs" --precision "$precision"
    stage "$logs/bench-engine-$device-$precision.log" "$work/node" bench-engine.mjs --device "$device" --configs "$configs" "${quick[@]}" --precision "$precision"
    if [[ $torch_configs != none && $torch_done == 0 ]]; then
      export PYTHONUNBUFFERED=1
      stage "$logs/torch.log" python3 "$payload/torch_bench.py" --configs "$torch_configs" --json "$logs/torch.json"
      torch_done=1
    fi
  done
  if [[ ${CPU_BENCH:-0} == 1 ]]; then
    stage "$logs/bench-engine-cpu.log" "$work/node" bench-engine.mjs --device cpu --configs "$configs" "${quick[@]}"
  fi
  local extra index=0
  IFS=';' read -ra extra <<<"${EXTRA_BENCH:-}"
  for args in "${extra[@]}"; do
    index=$((index + 1))
    # shellcheck disable=SC2086 # each entry is a list of arguments
    stage "$logs/bench-extra-$index.log" "$work/node" bench-engine.mjs --device "$device" $args
  done
  [[ -f $logs/torch.json ]] || return "$status"
  for precision in ${precisions//,/ }; do
  [[ -f $logs/bench-engine-$device-$precision.log ]] || continue
  "$work/node" -e '
    const fs = require("fs");
    const torch = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const rows = fs.readFileSync(process.argv[2], "utf8").split("\n").filter((l) => /^\| \d+m \|/.test(l));
    console.log("\n| config | ORT " + process.argv[3] + " train tok/s | torch fp32 | torch bf16 | ORT/fp32 | ORT/bf16 | ORT decode b=64 | torch fp32 decode b=64 | ratio |");
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const row of rows) {
      const cells = row.split("|").map((c) => c.trim());
      const [name, train, decode64] = [cells[1], Number(cells[3]), Number(cells[11])];
      const fp32 = torch.find((t) => t.config === name && t.precision === "fp32");
      const bf16 = torch.find((t) => t.config === name && t.precision === "bf16");
      if (!fp32 || !bf16) continue;
      console.log(`| ${name} | ${train.toFixed(0)} | ${fp32.train_tokens_per_second.toFixed(0)} | ${bf16.train_tokens_per_second.toFixed(0)} | ${(train / fp32.train_tokens_per_second).toFixed(3)} | ${(train / bf16.train_tokens_per_second).toFixed(3)} | ${decode64.toFixed(0)} | ${fp32.decode_tokens_per_second_b64.toFixed(0)} | ${(decode64 / fp32.decode_tokens_per_second_b64).toFixed(3)} |`);
    }' "$logs/torch.json" "$logs/bench-engine-$device-$precision.log" "$device $precision" 2>&1 | tee -a "$logs/summary.md" || status=$?
  done
  return "$status"
}

# The decode comparison of decision engine-013 in one call (README.md here):
# parity of the GroupQueryAttention decode (gqa) against the Where decode and
# the CPU EP, bench engine with gqa (training, prefill, decode) and with where
# (decode only) side by side, HF generate on the same GPU, and the CUDA EP when
# its provider library can be assembled from parts. Every stage has its own
# limit and the whole run a BUDGET; each writes one log to LOGS (at most 8
# files: a lent machine returns no more), and summary.md gathers the figures.
# DRY=1 prints the stages instead of running them (a check of this script).
compare() {
  local logs=${LOGS:-${OUT:-$root/.device/out}}
  local device=${DEVICE:-webgpu} configs=${CONFIGS:-50m,350m}
  local check_configs=${CHECK_CONFIGS:-2m,10m} new_tokens=${NEW_TOKENS:-64}
  local torch_configs=${TORCH_CONFIGS:-$configs}
  local node=$work/node
  mkdir -p "$logs"
  rm -f "$logs"/{parity,bench-gqa,bench-where,torch,cuda}.log "$logs"/{torch.json,summary.md}
  if [[ ${DRY:-0} == 1 ]]; then
    node=node
  else
    unpack
    vulkan_env
  fi
  local summary=$logs/summary.md
  {
    echo "# decode comparison (engine-013), $(date -u +%FT%TZ)"
    echo
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi'); CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p'), $(nproc) cores; node $("$node" --version)"
    echo "device $device; configs $configs; parity $check_configs; $new_tokens new tokens; BUDGET ${BUDGET:-none}"
  } >"$summary"
  cd "$payload/app"
  local status=0 deadline=$((SECONDS + ${BUDGET:-420}))
  # step LIMIT LOG COMMAND...: at most LIMIT seconds, and never past the budget
  # (a stage with under 20 s left is skipped); appends the outcome to the summary.
  step() {
    local cap=$1 log=$2 left=$((deadline - SECONDS)) started=$SECONDS rc=0
    shift 2
    if ((left < 20)); then
      echo "- skipped (budget spent): $*" | tee -a "$summary" "$log"
      status=1
      return
    fi
    ((cap > left)) && cap=$left
    echo "== $(date -u +%T) [${cap}s] $*" | tee -a "$log"
    if [[ ${DRY:-0} == 1 ]]; then
      echo "(dry run)" >>"$log"
    else
      timeout "$cap" "$@" >>"$log" 2>&1 || rc=$?
    fi
    ((rc == 0)) || status=1
    local outcome="exit $rc"
    ((rc == 124)) && outcome="stopped at its ${cap}s limit"
    echo "- $(basename "$log"): $outcome after $((SECONDS - started)) s" >>"$summary"
  }
  # 1. Parity: gqa vs where on the GPU and vs the CPU EP (tokens, log-probabilities).
  step "${PARITY_LIMIT:-90}" "$logs/parity.log" "$node" gpu-check.mjs --device "$device" --configs "$check_configs" --decode-only
  # 2. bench engine with gqa (the GPU default): training, prefill and decode.
  step "${GQA_LIMIT:-170}" "$logs/bench-gqa.log" "$node" bench-engine.mjs --device "$device" --configs "$configs" --quick --new-tokens "$new_tokens" --attention gqa
  # 3. The same decode with where, side by side.
  step "${WHERE_LIMIT:-110}" "$logs/bench-where.log" "$node" bench-engine.mjs --device "$device" --configs "$configs" --quick --new-tokens "$new_tokens" --attention where --decode-only
  # 4. HF generate and PyTorch training on the same GPU.
  if [[ $torch_configs != none ]]; then
    PYTHONUNBUFFERED=1 step "${TORCH_LIMIT:-130}" "$logs/torch.log" python3 "$payload/torch_bench.py" --configs "$torch_configs" --new-tokens "$new_tokens" --batches 1,8,64 --json "$logs/torch.json"
  fi
  # 5. The CUDA EP, where its provider library arrived in parts.
  cuda_stage "$logs/cuda.log" "$configs" "$new_tokens"
  # The table: decode per batch (gqa, where, HF fp32/bf16) and training.
  if [[ ${DRY:-0} != 1 ]]; then
    "$node" compare-summary.mjs --logs "$logs" >>"$summary" 2>&1 || status=1
  fi
  cat "$summary"
  return "$status"
}

# The CUDA EP's provider library, assembled from parts (payload-parts.mjs)
# into onnxruntime-node's folder, and the CUDA 13 libraries of the machine's
# PyTorch on LD_LIBRARY_PATH; then parity and bench engine on cuda. Without a
# manifest it only says why CUDA is skipped.
cuda_stage() {
  local log=$1 configs=$2 new_tokens=$3
  local parts=${CUDA_PARTS:-$root/.device/cuda-parts}
  local ort_bin=$payload/app/node_modules/onnxruntime-node/bin/napi-v6/linux/x64
  if [[ ! -f $parts/manifest.json ]]; then
    echo "- cuda skipped: no CUDA EP provider library (no $parts/manifest.json; onnxruntime-node 1.30 fetches libonnxruntime_providers_cuda.so from nuget.org, which the build machine cannot reach)" | tee -a "$summary" "$log"
    return
  fi
  step 60 "$log" "$node" payload-parts.mjs assemble "$parts" "$ort_bin"
  if [[ ! -f $ort_bin/libonnxruntime_providers_cuda.so ]]; then
    echo "- cuda skipped: the provider library did not assemble (cuda.log)" | tee -a "$summary" "$log"
    return
  fi
  local venv_libs
  venv_libs=$(find "${TORCH_NVIDIA:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia}" -maxdepth 3 -type d -name lib 2>/dev/null | paste -sd:)
  LD_LIBRARY_PATH=$ort_bin${venv_libs:+:$venv_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} step "${CUDA_PARITY_LIMIT:-60}" "$log" "$node" gpu-check.mjs --device cuda --configs "$check_configs" --decode-only
  LD_LIBRARY_PATH=$ort_bin${venv_libs:+:$venv_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} step "${CUDA_BENCH_LIMIT:-120}" "$log" "$node" bench-engine.mjs --device cuda --configs "$configs" --quick --new-tokens "$new_tokens"
}

case ${1:-} in
  build) build ;;
  run) run ;;
  train) train ;;
  compare) compare ;;
  *)
    echo "usage: $0 build|run|train|compare" >&2
    exit 2
    ;;
esac
