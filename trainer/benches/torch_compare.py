#!/usr/bin/env python3
"""Train the kage default NNUE shape with PyTorch on CPU and print positions/s.

Same net as kage-train: shared feature transformer as nn.EmbeddingBag(mode="sum") with flat
indices and offsets for both perspectives, clipped ReLU, head (2H -> K -> 1), loss
mean((sigmoid(out) - target)^2), Adam. Synthetic data of the same shape as
`kage-train bench` (2304 features, 24..40 active per perspective).

Usage: python3 trainer/benches/torch_compare.py [--ft-size 128] [--head-size 32] [--batch-size 4096]
       [--batches 30] [--features 2304] [--threads 2]
"""

import argparse
import time

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, features: int, ft: int, head: int, sparse: bool):
        super().__init__()
        self.ft = nn.EmbeddingBag(features, ft, mode="sum", sparse=sparse)
        self.ft_bias = nn.Parameter(torch.full((ft,), 0.5))
        self.l1 = nn.Linear(2 * ft, head)
        self.out = nn.Linear(head, 1)

    def forward(self, stm_idx, stm_off, nstm_idx, nstm_off):
        a = (self.ft(stm_idx, stm_off) + self.ft_bias).clamp(0, 1)
        b = (self.ft(nstm_idx, nstm_off) + self.ft_bias).clamp(0, 1)
        h = self.l1(torch.cat([a, b], dim=1)).clamp(0, 1)
        return self.out(h)


def make_batch(gen, batch, features):
    def side():
        counts = torch.randint(24, 41, (batch,), generator=gen)
        idx = torch.randint(0, features, (int(counts.sum()),), generator=gen)
        off = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]])
        return idx, off

    si, so = side()
    ni, no = side()
    target = torch.rand(batch, 1, generator=gen)
    return si, so, ni, no, target


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ft-size", type=int, default=128)
    ap.add_argument("--head-size", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=4096)
    ap.add_argument("--batches", type=int, default=30)
    ap.add_argument("--features", type=int, default=2304)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument(
        "--sparse",
        action="store_true",
        help="sparse EmbeddingBag gradients + SparseAdam (default: dense gradients, one AdamW)",
    )
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    gen = torch.Generator().manual_seed(1)
    net = Net(a.features, a.ft_size, a.head_size, a.sparse)
    if a.sparse:
        sparse = [net.ft.weight]
        dense = [p for n, p in net.named_parameters() if n != "ft.weight"]
        opts = [torch.optim.SparseAdam(sparse, lr=1e-3), torch.optim.AdamW(dense, lr=1e-3, weight_decay=1e-5)]
    else:
        opts = [torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-5)]
    batches = [make_batch(gen, a.batch_size, a.features) for _ in range(min(a.batches, 8))]

    def step(b):
        si, so, ni, no, t = b
        for o in opts:
            o.zero_grad()
        loss = ((torch.sigmoid(net(si, so, ni, no)) - t) ** 2).mean()
        loss.backward()
        for o in opts:
            o.step()
        return loss.item()

    for b in batches[:2]:
        step(b)
    start = time.perf_counter()
    cpu_start = time.process_time()
    for i in range(a.batches):
        step(batches[i % len(batches)])
    secs = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    n = a.batches * a.batch_size
    print(
        f"pytorch {torch.__version__} EmbeddingBag ({'sparse grad + SparseAdam' if a.sparse else 'dense grad + AdamW'}), "
        f"threads {torch.get_num_threads()}: "
        f"{n / secs:.0f} pos/s ({n} positions in {secs:.2f}s, {n / max(cpu, 1e-9):.0f} pos per CPU-second; "
        f"ft {a.ft_size}, head {a.head_size}, "
        f"batch {a.batch_size}, features {a.features})"
    )


if __name__ == "__main__":
    main()
