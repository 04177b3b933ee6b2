#!/usr/bin/python3
"""The original PyTorch recipe for the pet-name LSTM, kept as the performance baseline.

Run with Debian's python3-torch (1.13): /usr/bin/python3 bench/recipe.py --data CSV; on a GPU
machine with PyTorch 2.x: python3 bench/recipe.py --data CSV --device cuda (the DataLoader
stays on the host and each batch is copied to the GPU, as the recipe does).
It follows the original recipe: the examples live in tensors inside a
Dataset whose __getitem__ reads through a permutation, a DataLoader(batch_size,
shuffle=True) collates them example by example, inputs are one-hot, the model is
nn.LSTM(31 -> 128, 4 layers, batch_first) + nn.Linear(128 -> 31), Adam(lr 1e-3) and
CrossEntropyLoss on logits.transpose(1, 2).

Data handling matches petname's C++ trainer (trainer/data/): the "Animal's Name" column,
names trimmed of spaces/tabs, A-Z lower-cased, names with characters outside
"a-z - . space" dropped; vocabulary "*+abcdefghijklmnopqrstuvwxyz-. " ('*' pads, '+' ends a
name); one example per prefix, window 8; a distinct name is held out for validation when
the first 52 bits of sha256(name), as a fraction of 2^52, are below 0.05.

Prints one line per epoch:
  epoch E val_loss L train_s S samples_per_s R peak_rss_mb M unix_time T
"""
import argparse
import csv
import hashlib
import resource
import sys
import time

import torch
from torch import nn

VOCABULARY = "*+abcdefghijklmnopqrstuvwxyz-. "
INDEX = {c: k for k, c in enumerate(VOCABULARY)}
NAME_CHARS = set(VOCABULARY[2:])
COLUMN = "Animal's Name"
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def clean(raw):
    name = raw.strip(" \t").translate(ASCII_LOWER)
    if not name or any(c not in NAME_CHARS for c in name):
        return None
    return name


def load_names(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        column = header.index(COLUMN)
        names = []
        for row in rows:
            if column < len(row):
                name = clean(row[column])
                if name is not None:
                    names.append(name)
    return names


def in_validation(name, fraction):
    return int(hashlib.sha256(name.encode()).hexdigest()[:13], 16) * 2.0**-52 < fraction


def encode(names, window):
    inputs, targets = [], []
    for name in names:
        text = "*" * window + name + "+"
        for end in range(window, len(text)):
            inputs.append([INDEX[c] for c in text[end - window:end]])
            targets.append([INDEX[c] for c in text[end - window + 1:end + 1]])
    return torch.tensor(inputs, dtype=torch.long), torch.tensor(targets, dtype=torch.long)


class NameDataset(torch.utils.data.Dataset):
    """One-hot inputs and next-character targets, read through a permutation."""

    def __init__(self, inputs, targets, generator):
        self.x = nn.functional.one_hot(inputs, len(VOCABULARY)).float()
        self.y = targets
        self.perm = torch.randperm(len(targets), generator=generator)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        j = self.perm[i]
        return self.x[j], self.y[j]


class Model(nn.Module):
    def __init__(self, vocab, hidden, layers):
        super().__init__()
        self.lstm = nn.LSTM(vocab, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x):
        return self.head(self.lstm(x)[0])


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="Seattle pet licence CSV")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=4096)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--window", type=int, default=8)
    p.add_argument("--validation-fraction", type=float, default=0.05)
    p.add_argument("--max-names", type=int, default=0, help="keep only the first N names (smoke runs)")
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    args = p.parse_args()
    if args.epochs < 1 or args.batch_size < 1 or args.threads < 1:
        print("recipe.py: --epochs, --batch-size and --threads must be positive", file=sys.stderr)
        return 2

    if args.device not in ("cpu", "cuda") or (args.device == "cuda" and not torch.cuda.is_available()):
        print(f"recipe.py: --device {args.device} is not available", file=sys.stderr)
        return 2
    device = torch.device(args.device)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    try:
        names = load_names(args.data)
    except (OSError, ValueError, csv.Error) as e:
        print(f"recipe.py: cannot read names from {args.data}: {e}", file=sys.stderr)
        return 1
    if args.max_names > 0:
        names = names[: args.max_names]
    train_names = [n for n in names if not in_validation(n, args.validation_fraction)]
    val_names = [n for n in names if in_validation(n, args.validation_fraction)]
    generator = torch.Generator().manual_seed(args.seed)
    train = NameDataset(*encode(train_names, args.window), generator)
    val_x, val_y = encode(val_names, args.window)
    val_x = nn.functional.one_hot(val_x, len(VOCABULARY)).float()
    print(f"names {len(names)} train_examples {len(train)} validation_examples {len(val_y)} "
          f"threads {torch.get_num_threads()}", flush=True)

    model = Model(len(VOCABULARY), 128, 4).to(device)
    val_x, val_y = val_x.to(device), val_y.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    loader = torch.utils.data.DataLoader(train, batch_size=args.batch_size, shuffle=True,
                                         generator=generator)
    for epoch in range(1, args.epochs + 1):
        model.train()
        start = time.perf_counter()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x).transpose(1, 2), y)
            loss.backward()
            optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        train_s = time.perf_counter() - start
        model.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            for k in range(0, len(val_y), args.batch_size):
                y = val_y[k:k + args.batch_size]
                total += loss_fn(model(val_x[k:k + args.batch_size]).transpose(1, 2), y).item() * y.numel()
                count += y.numel()
        print(f"epoch {epoch} val_loss {total / count:.4f} train_s {train_s:.2f} "
              f"samples_per_s {len(train) / train_s:.0f} peak_rss_mb {peak_rss_mb():.0f} "
              f"unix_time {time.time():.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
