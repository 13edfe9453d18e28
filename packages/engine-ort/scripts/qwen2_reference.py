#!/usr/bin/env python3
"""Reference outputs for the engine's parity test.

Our own PyTorch implementation of the Hugging Face Qwen2 forward pass
(transformers' `modeling_qwen2.py` semantics): RMSNorm with `rms_norm_eps`,
rotate-half RoPE with `rope_theta`, grouped-query attention (each key/value
head serves `num_attention_heads / num_key_value_heads` query heads), q/k/v
biases, SwiGLU MLP, and tied embeddings. It is not `transformers`, which is
not installable here; it needs only `torch` (Debian's python3-torch works).

It creates a tiny random model, writes `config.json` and `model.safetensors`
(fp32), and `expected.json` with fp64 logits and next-token log-probabilities
for a few token sequences, computed in fp64 from the fp32 weights.

Run: /usr/bin/python3 packages/engine-ort/scripts/qwen2_reference.py
"""
import json
import math
import os
import struct

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "src", "__fixtures__", "tiny-qwen2")

CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "vocab_size": 96,
    "hidden_size": 64,
    "intermediate_size": 112,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "hidden_act": "silu",
    "max_position_embeddings": 128,
    "initializer_range": 0.02,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": True,
    "use_sliding_window": False,
    "torch_dtype": "float32",
}

SEQUENCES = [
    [5, 17, 3, 88, 42, 42, 9, 60, 1, 77, 23, 50],
    [91, 2, 33, 4, 70, 11, 8],
    [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 95],
]


def make_weights(generator):
    c = CONFIG
    h, f, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = h // c["num_attention_heads"]
    q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd

    def normal(*shape, std=0.1):
        return (torch.randn(*shape, generator=generator, dtype=torch.float64) * std).float()

    w = {"model.embed_tokens.weight": normal(v, h, std=0.5)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        w[f"{p}.input_layernorm.weight"] = 1 + normal(h)
        w[f"{p}.self_attn.q_proj.weight"] = normal(q, h, std=0.15)
        w[f"{p}.self_attn.q_proj.bias"] = normal(q)
        w[f"{p}.self_attn.k_proj.weight"] = normal(kv, h, std=0.15)
        w[f"{p}.self_attn.k_proj.bias"] = normal(kv)
        w[f"{p}.self_attn.v_proj.weight"] = normal(kv, h, std=0.15)
        w[f"{p}.self_attn.v_proj.bias"] = normal(kv)
        w[f"{p}.self_attn.o_proj.weight"] = normal(h, q, std=0.15)
        w[f"{p}.post_attention_layernorm.weight"] = 1 + normal(h)
        w[f"{p}.mlp.gate_proj.weight"] = normal(f, h, std=0.15)
        w[f"{p}.mlp.up_proj.weight"] = normal(f, h, std=0.15)
        w[f"{p}.mlp.down_proj.weight"] = normal(h, f, std=0.15)
    w["model.norm.weight"] = 1 + normal(h)
    return w


def rms_norm(x, weight, eps):
    variance = x.pow(2).mean(-1, keepdim=True)
    return weight * (x * torch.rsqrt(variance + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(w, ids):
    """Logits [S, V] for one sequence, in fp64, with HF Qwen2 semantics."""
    c = CONFIG
    nh, kvh = c["num_attention_heads"], c["num_key_value_heads"]
    hd = c["hidden_size"] // nh
    eps = c["rms_norm_eps"]
    s = len(ids)
    d = {k: t.double() for k, t in w.items()}
    x = d["model.embed_tokens.weight"][torch.tensor(ids)]  # [S, H]
    inv_freq = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    freqs = torch.outer(torch.arange(s, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()  # [S, hd]
    mask = torch.full((s, s), float("-inf"), dtype=torch.float64).triu(1)
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        residual = x
        hn = rms_norm(x, d[f"{p}.input_layernorm.weight"], eps)
        q = hn @ d[f"{p}.self_attn.q_proj.weight"].T + d[f"{p}.self_attn.q_proj.bias"]
        k = hn @ d[f"{p}.self_attn.k_proj.weight"].T + d[f"{p}.self_attn.k_proj.bias"]
        v = hn @ d[f"{p}.self_attn.v_proj.weight"].T + d[f"{p}.self_attn.v_proj.bias"]
        q = q.view(s, nh, hd).transpose(0, 1)  # [nh, S, hd]
        k = k.view(s, kvh, hd).transpose(0, 1)
        v = v.view(s, kvh, hd).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = nh // kvh
        k = k[:, None].expand(kvh, rep, s, hd).reshape(nh, s, hd)  # repeat_kv
        v = v[:, None].expand(kvh, rep, s, hd).reshape(nh, s, hd)
        scores = q @ k.transpose(-1, -2) / math.sqrt(hd) + mask
        attn = torch.softmax(scores, dim=-1) @ v  # [nh, S, hd]
        attn = attn.transpose(0, 1).reshape(s, nh * hd)
        x = residual + attn @ d[f"{p}.self_attn.o_proj.weight"].T
        residual = x
        hn = rms_norm(x, d[f"{p}.post_attention_layernorm.weight"], eps)
        gate = hn @ d[f"{p}.mlp.gate_proj.weight"].T
        up = hn @ d[f"{p}.mlp.up_proj.weight"].T
        x = residual + (torch.nn.functional.silu(gate) * up) @ d[f"{p}.mlp.down_proj.weight"].T
    x = rms_norm(x, d["model.norm.weight"], eps)
    return x @ d["model.embed_tokens.weight"].T


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode())
        for blob in blobs:
            f.write(blob)


def main():
    generator = torch.Generator().manual_seed(20240605)
    weights = make_weights(generator)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")
    write_safetensors(os.path.join(OUT, "model.safetensors"), weights)
    cases = []
    for ids in SEQUENCES:
        logits = forward(weights, ids)
        logprobs = torch.log_softmax(logits, dim=-1)
        next_logprobs = [0.0] + [logprobs[t - 1, ids[t]].item() for t in range(1, len(ids))]
        cases.append({
            "tokenIds": ids,
            "logits": [[float(x) for x in row] for row in logits.tolist()],
            "logprobs": next_logprobs,
        })
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"generator": "scripts/qwen2_reference.py", "torch": torch.__version__, "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
