"""PyTorch reference for `pnpm bench engine`: the same Qwen2-style configs,
the same batch (8 x 256 tokens, cross-entropy, AdamW) and the same
generation shape (64 prompts of 32 tokens, 64 new tokens), in fp32 and bf16
on the GPU. Prints one JSON line per (config, dtype) and a table.

Usage: python3 torch_bench.py [--configs 2m,10m,50m,350m] [--json FILE]
       [--batches 64] [--new-tokens 64] [--precisions fp32,bf16]

Decode is HF `generate` (greedy, KV cache) at each batch of --batches:
(time of --new-tokens tokens - time of 1) / (batch * (new tokens - 1)),
like `bench engine`'s decode.
"""
import argparse
import json
import time

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

# Must match bench/engine.ts (hidden, intermediate, layers, heads, kv heads, vocab).
CONFIGS = {
    "2m": dict(vocab_size=2048, hidden_size=256, intermediate_size=704, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
    "10m": dict(vocab_size=4096, hidden_size=384, intermediate_size=896, num_hidden_layers=6, num_attention_heads=6, num_key_value_heads=2),
    "50m": dict(vocab_size=8192, hidden_size=640, intermediate_size=1728, num_hidden_layers=10, num_attention_heads=10, num_key_value_heads=2),
    "350m": dict(vocab_size=32768, hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=4),
}
TRAIN_BATCH, TRAIN_LENGTH = 8, 256


def model_for(name, dtype):
    config = Qwen2Config(
        **CONFIGS[name],
        max_position_embeddings=1024,
        tie_word_embeddings=True,
        rms_norm_eps=1e-6,
        rope_theta=10000.0,
        attn_implementation="eager",
    )
    torch.manual_seed(1)
    model = Qwen2ForCausalLM(config).cuda()
    return model, sum(p.numel() for p in model.parameters())


def timed(fn, repeats):
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def measure(name, precision, batches=(64,), new_tokens=64):
    model, params = model_for(name, precision)
    vocab = CONFIGS[name]["vocab_size"]
    ids = (torch.arange(TRAIN_BATCH)[:, None] * 7919 + torch.arange(TRAIN_LENGTH)[None, :] * 104729) % vocab
    ids = ids.cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, eps=1e-8)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=precision == "bf16")

    def step():
        with autocast:
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    for _ in range(3):
        step()
    step_seconds = timed(step, 10)
    model.eval()
    decode = {}
    for batch in batches:
        prompts = ((torch.arange(batch)[:, None] + 100) * 7919 + torch.arange(32)[None, :] * 104729) % vocab
        prompts = prompts.cuda()

        def gen(count):
            with torch.no_grad(), autocast:
                model.generate(input_ids=prompts, attention_mask=torch.ones_like(prompts), max_new_tokens=count,
                               min_new_tokens=count, do_sample=False, pad_token_id=0)

        gen(4)
        full = timed(lambda: gen(new_tokens), 3)
        one = timed(lambda: gen(1), 3)
        decode[str(batch)] = batch * (new_tokens - 1) / (full - one)
    result = dict(config=name, precision=precision, params=params,
                  train_tokens_per_second=TRAIN_BATCH * TRAIN_LENGTH / step_seconds,
                  train_step_seconds=step_seconds,
                  new_tokens=new_tokens,
                  decode_tokens_per_second=decode)
    if "64" in decode:
        result["decode_tokens_per_second_b64"] = decode["64"]
    del model, optimizer
    torch.cuda.empty_cache()
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", default="2m,10m,50m,350m")
    parser.add_argument("--json")
    parser.add_argument("--batches", default="64")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--precisions", default="fp32,bf16")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, fp32 without TF32; bf16 = autocast")
    results = []
    for name in args.configs.split(","):
        for precision in args.precisions.split(","):
            result = measure(name, precision, batches, args.new_tokens)
            print(json.dumps(result), flush=True)
            results.append(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
