"""PyTorch beside webgpu-ceiling.ts: the same chain of 8 matrix products per
shape (fp32 with TF32 off, fp16, bf16) and the cost of one eager op (1,000
chained adds of 256 floats). Usage: python3 torch_ceiling.py [--shapes 2048x640x1728,...]"""
import argparse

import torch

from torch_bench import timed


def warm_timed(fn, repeats):
    """torch_bench's median timing, after two untimed runs."""
    fn()
    fn()
    return timed(fn, repeats)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", default="2048x640x1728,2048x1024x2816,2048x1024x32768,4096x4096x4096")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    x = torch.randn(256, device="cuda")
    c = torch.randn(256, device="cuda") * 1e-3

    def adds():
        y = x
        for _ in range(1000):
            y = y + c
        return y.sum().item()

    print(f"torch: one eager op (add of 256 floats, 1,000 in a row): {warm_timed(adds, 10) / 1000 * 1e6:.1f} us")
    print("| shape M×K×N | torch fp32 TFLOP/s | fp16 | bf16 |\n|---|---|---|---|")
    for shape in args.shapes.split(","):
        m, k, n = (int(v) for v in shape.split("x"))
        rates = []
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            xm = torch.randn(m, k, device="cuda", dtype=dtype)
            a = torch.randn(k, n, device="cuda", dtype=dtype) / k**0.5
            b = torch.randn(n, k, device="cuda", dtype=dtype) / n**0.5

            def chain():
                y = xm
                for i in range(8):
                    y = y @ (a if i % 2 == 0 else b)
                return y.float().sum().item()

            rates.append(8 * 2 * m * k * n / warm_timed(chain, 10) / 1e12)
        print(f"| {m}×{k}×{n} | {rates[0]:.2f} | {rates[1]:.2f} | {rates[2]:.2f} |")


if __name__ == "__main__":
    main()
