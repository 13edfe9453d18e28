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
  # PARITY_ONLY=1: the parity checks alone (WebGPU decode, and on CUDA the full
  # gpu-check: log-probabilities, one step's gradients and weights, decode).
  if [[ ${PARITY_ONLY:-0} != 1 ]]; then
  # 2. bench engine with gqa (opt-in since this comparison: wrong on ORT 1.30's
  # WebGPU, no faster): training, prefill and decode.
  step "${GQA_LIMIT:-170}" "$logs/bench-gqa.log" "$node" bench-engine.mjs --device "$device" --configs "$configs" --quick --new-tokens "$new_tokens" --attention gqa
  # 3. The same decode with where, side by side (with training and prefill too
  # when the gqa run gave no table, so that those figures still come back).
  local where_only=(--decode-only)
  if [[ ${DRY:-0} != 1 ]] && ! grep -q '^| [0-9]*m |' "$logs/bench-gqa.log"; then
    where_only=()
    echo "- bench-gqa.log has no table: bench-where measures training and prefill too" >>"$summary"
  fi
  step "${WHERE_LIMIT:-110}" "$logs/bench-where.log" "$node" bench-engine.mjs --device "$device" --configs "$configs" --quick --new-tokens "$new_tokens" --attention where "${where_only[@]}"
  # 4. HF generate and PyTorch training on the same GPU.
  if [[ $torch_configs != none ]]; then
    PYTHONUNBUFFERED=1 step "${TORCH_LIMIT:-130}" "$logs/torch.log" python3 "$payload/torch_bench.py" --configs "$torch_configs" --new-tokens "$new_tokens" --batches 1,8,64 --json "$logs/torch.json"
  fi
  fi
  # 5. The CUDA EP, where its provider library arrived in parts.
  cuda_stage "$logs/cuda.log" "${CUDA_CONFIGS:-$configs}" "$new_tokens"
  # The table: decode per batch (gqa, where, HF fp32/bf16) and training.
  if [[ ${DRY:-0} != 1 ]]; then
    "$node" compare-summary.mjs --logs "$logs" >>"$summary" 2>&1 || status=1
  fi
  cat "$summary"
  return "$status"
}

# The CUDA EP (issue 48). npm has no CUDA EP for onnxruntime-node 1.30, but it
# has an official ORT 1.29.0 Linux CUDA 13 build repackaged
# (com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9), and onnxruntime-node
# 1.29.0: a matching pair. `cuda-build` here makes .device/cuda-app (the 1.29
# binding and core library, the shared provider library) and the 230 MB CUDA
# provider library, xz-compressed, in parts (payload-parts.mjs) grouped in
# folders .device/cuda-parts-1..N of at most CUDA_CARRY_MIB (48) each, so that
# each folder travels in its own call beside the repository. There, each call
# runs `cuda-collect` (copies its folder's files to $cuda_store, kept while the
# machine stays warm); `compare` then assembles the library, checks every part
# and the whole, and runs parity and bench engine on cuda with the CUDA 13
# libraries of the machine's PyTorch (cu130) on LD_LIBRARY_PATH. On CUDA the
# engine keeps no state on the device between runs (host-fed, chosen by the
# engine: onnxruntime-node's device-located outputs are WebGPU-only; the
# 2026-11-28 H200 run failed with "Failed to find allocator" before that).
cuda_store=${CUDA_STORE:-/tmp/seal-cuda}
cuda_build() {
  local cache=${CUDA_CACHE:-/tmp/seal-cuda-build} limit=${CUDA_CARRY_MIB:-48}
  local app=$root/.device/cuda-app
  mkdir -p "$cache"
  (
    cd "$cache"
    [[ -f onnxruntime-node-1.29.0.tgz ]] || npm pack --silent onnxruntime-node@1.29.0 >/dev/null
    [[ -f onnxruntime-common-1.29.0.tgz ]] || npm pack --silent onnxruntime-common@1.29.0 >/dev/null
    [[ -f com.github.asus4.onnxruntime.linux-x64-gpu-0.4.9.tgz ]] || npm pack --silent com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9 >/dev/null
    rm -rf node common gpu && mkdir node common gpu
    tar xzf onnxruntime-node-1.29.0.tgz -C node
    tar xzf onnxruntime-common-1.29.0.tgz -C common
    tar xzf com.github.asus4.onnxruntime.linux-x64-gpu-0.4.9.tgz -C gpu
    [[ -f providers_cuda.so.xz ]] || xz -T0 -9 -c gpu/package/Plugins/Linux/x64/libonnxruntime_providers_cuda.so >providers_cuda.so.xz
  )
  rm -rf "$app" "$root"/.device/cuda-parts-*
  local bin=$app/node_modules/onnxruntime-node/bin/napi-v6/linux/x64
  mkdir -p "$bin" "$app/node_modules/onnxruntime-common"
  cp -r "$cache/node/package/dist" "$cache/node/package/package.json" "$app/node_modules/onnxruntime-node/"
  cp "$cache/node/package/bin/napi-v6/linux/x64/onnxruntime_binding.node" "$bin/"
  xz -T0 -6 -c "$cache/node/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" >"$app/libonnxruntime.so.1.xz"
  cp "$cache/gpu/package/Plugins/Linux/x64/libonnxruntime_providers_shared.so" "$bin/"
  cp -r "$cache/common/package/dist" "$cache/common/package/package.json" "$app/node_modules/onnxruntime-common/"
  # Parts of 8 MiB, grouped into carry folders; the first also holds the app.
  local parts=$cache/parts
  rm -rf "$parts"
  node "$payload/app/payload-parts.mjs" split "$cache/providers_cuda.so.xz" "$parts" --max-mib 8
  local folder=1 used
  used=$(du -sm "$app" | cut -f1)
  mkdir -p "$root/.device/cuda-parts-1"
  mv "$app" "$root/.device/cuda-parts-1/cuda-app"
  cp "$parts/manifest.json" "$root/.device/cuda-parts-1/"
  for part in "$parts"/*.part*; do
    if ((used + 8 > limit)); then
      folder=$((folder + 1))
      used=0
      mkdir -p "$root/.device/cuda-parts-$folder"
    fi
    mv "$part" "$root/.device/cuda-parts-$folder/"
    used=$((used + 8))
  done
  du -sh "$root"/.device/cuda-parts-*
  echo "carry each .device/cuda-parts-K in its own call (the machine must stay warm between them) with: bash scripts/device/run-gpu-bench.sh cuda-collect"
}

# There: copies the carried cuda-parts folders' files into $cuda_store.
cuda_collect() {
  mkdir -p "$cuda_store"
  local folder
  for folder in "$root"/.device/cuda-parts-*; do
    [[ -d $folder ]] || continue
    cp -r "$folder"/. "$cuda_store"/
  done
  ls "$cuda_store" | tr '\n' ' '
  echo
  du -sh "$cuda_store"
}

# Inside compare: with the parts collected, assemble and run on cuda; else one
# line saying why CUDA is skipped.
cuda_stage() {
  local log=$1 configs=$2 new_tokens=$3
  if [[ ${DRY:-0} == 1 ]]; then
    echo "- cuda (dry run): collect .device/cuda-parts-* into $cuda_store, assemble, gpu-check and bench engine on cuda with ${TORCH_NVIDIA:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia}/*/lib" | tee -a "$summary" "$log"
    return
  fi
  cuda_collect >/dev/null 2>&1 || true
  local app=$cuda_store/cuda-app
  local bin=$app/node_modules/onnxruntime-node/bin/napi-v6/linux/x64
  if [[ ! -f $cuda_store/manifest.json || ! -d $app ]]; then
    local found
    found=$(find /opt /usr/local /usr/lib -name 'libonnxruntime_providers_cuda.so*' 2>/dev/null | head -3 | paste -sd' ' || true)
    echo "- cuda skipped: no CUDA EP provider library collected in $cuda_store (onnxruntime-node 1.30 fetches it from nuget.org, which neither machine reaches; see cuda-build)${found:+; this machine has $found}" | tee -a "$summary" "$log"
    return
  fi
  [[ -f $bin/libonnxruntime.so.1 ]] || xz -dc "$app/libonnxruntime.so.1.xz" >"$bin/libonnxruntime.so.1"
  if [[ ! -f $bin/libonnxruntime_providers_cuda.so ]]; then
    step 60 "$log" "$node" "$payload/app/payload-parts.mjs" assemble "$cuda_store" "$cuda_store/assembled"
    if [[ ! -f $cuda_store/assembled/providers_cuda.so.xz ]]; then
      echo "- cuda skipped: the provider library did not assemble (cuda.log)" | tee -a "$summary" "$log"
      return
    fi
    xz -T0 -dc "$cuda_store/assembled/providers_cuda.so.xz" >"$bin/libonnxruntime_providers_cuda.so"
  fi
  cp "$payload/app"/{gpu-check,bench-engine}.mjs "$app/"
  local venv_libs
  venv_libs=$(find "${TORCH_NVIDIA:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia}" -maxdepth 3 -type d -name lib 2>/dev/null | paste -sd: || true)
  echo "onnxruntime-node 1.29.0 with the ORT 1.29.0 CUDA EP; LD_LIBRARY_PATH += ${venv_libs:-nothing (no PyTorch nvidia libraries found)}" | tee -a "$log"
  local saved_path=${LD_LIBRARY_PATH:-}
  cd "$app"
  export LD_LIBRARY_PATH=$bin${venv_libs:+:$venv_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if [[ ${PARITY_ONLY:-0} == 1 ]]; then
    step "${CUDA_PARITY_LIMIT:-90}" "$log" "$node" gpu-check.mjs --device cuda --configs "$check_configs"
  else
    step "${CUDA_PARITY_LIMIT:-60}" "$log" "$node" gpu-check.mjs --device cuda --configs "$check_configs" --decode-only
    step "${CUDA_BENCH_LIMIT:-120}" "$log" "$node" bench-engine.mjs --device cuda --configs "$configs" --quick --new-tokens "$new_tokens"
  fi
  export LD_LIBRARY_PATH=$saved_path
  cd "$payload/app"
}

case ${1:-} in
  build) build ;;
  run) run ;;
  train) train ;;
  compare) compare ;;
  cuda-build) cuda_build ;;
  cuda-collect) cuda_collect ;;
  *)
    echo "usage: $0 build|run|train|compare|cuda-build|cuda-collect" >&2
    exit 2
    ;;
esac
