"""BFCL's own Python executor, timed in process, for `pnpm bench env --bfcl-python DIR`.

DIR is the `berkeley-function-call-leaderboard` folder of a BFCL checkout at commit
cd9429cc (the commit docs/ and the golden replays follow). Nothing of BFCL is
vendored here: this driver only imports `execute_multi_turn_func_call` from DIR
and replays the ground truth of the 800 multi-turn entries, turn by turn, on
fresh instances (a unique model name per run, as BFCL keys instances by it).

Protocol on stdin/stdout, one line each, so the TypeScript bench can alternate
the two implementations within one run: `run` replays everything once and
answers `{"ms": ..., "cpuMs": ..., "calls": ..., "entries": ...}` (wall-clock and
process CPU time); `results` replays everything once more, untimed, and
answers the result string of every call, in order, as one JSON list; `quit`
ends.
"""

import json
import os
import sys
import time

bfcl_dir, data_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, bfcl_dir)
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils  # noqa: E402

CATEGORIES = ["base", "miss_func", "miss_param", "long_context"]


def read_lines(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


entries = []
for category in CATEGORIES:
    name = f"BFCL_v3_multi_turn_{category}.json"
    questions = read_lines(os.path.join(data_dir, name))
    answers = {a["id"]: a["ground_truth"] for a in read_lines(os.path.join(data_dir, "possible_answer", name))}
    for question in questions:
        entries.append((question, answers[question["id"]], category == "long_context"))

run_index = 0


def replay_all(collect=None):
    global run_index
    run_index += 1
    model = f"bench_run_{run_index}"
    calls = 0
    start = time.perf_counter()
    start_cpu = time.process_time()
    for question, ground_truth, long_context in entries:
        for turn in ground_truth:
            results, _ = multi_turn_utils.execute_multi_turn_func_call(
                turn,
                question["initial_config"],
                question["involved_classes"],
                model,
                question["id"],
                long_context=long_context,
            )
            calls += len(turn)
            if collect is not None:
                collect.extend(results)
    elapsed = (time.perf_counter() - start) * 1000
    elapsed_cpu = (time.process_time() - start_cpu) * 1000
    # BFCL keeps every instance in its module globals; drop this run's outside the timing.
    state = vars(multi_turn_utils)
    for key in [key for key in state if key.startswith(model + "_")]:
        del state[key]
    return {"ms": elapsed, "cpuMs": elapsed_cpu, "calls": calls, "entries": len(entries)}


for line in sys.stdin:
    command = line.strip()
    if command == "run":
        print(json.dumps(replay_all()), flush=True)
    elif command == "results":
        collected = []
        replay_all(collected)
        print(json.dumps(collected), flush=True)
    elif command == "quit":
        break
