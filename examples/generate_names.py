"""Pet names from a model petname exported, in plain PyTorch (no petname needed).

    pip install torch safetensors
    python3 generate_names.py model.safetensors [COUNT]
"""
import re
import sys

import torch
from safetensors import safe_open
from safetensors.torch import load_file
from torch import nn


class Recipe(nn.Module):
    """The recipe's model: one-hot characters -> 4-layer LSTM -> linear head."""

    def __init__(self, vocab_size=31, hidden_size=128, num_layers=4):
        super().__init__()
        self.lstm = nn.LSTM(vocab_size, hidden_size, num_layers=num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, vocab_size)

    def forward(self, one_hot):  # [B, window, vocab] -> next-character logits [B, vocab]
        out, _ = self.lstm(one_hot)
        return self.fc(out[:, -1])


def load(path):
    with safe_open(path, framework="pt") as f:
        meta = f.metadata()
    model = Recipe(int(meta["vocab_size"]), int(meta["hidden_size"]), int(meta["num_layers"]))
    model.load_state_dict(load_file(path), strict=True)
    return model.eval(), meta


def encode(meta, prefix):
    """The model's input for a name so far: pads, then its last `window` characters."""
    vocab, window = meta["vocabulary"], int(meta["window"])
    tokens = [vocab.index(meta["pad"])] * window + [vocab.index(c) for c in prefix]
    return nn.functional.one_hot(torch.tensor([tokens[-window:]]), len(vocab)).float()


def generate(model, meta, count=10, temperature=1.0, max_length=24, seed=0):
    """Names sampled as `petname generate` samples them (its random numbers differ)."""
    vocab = meta["vocabulary"]
    pad, stop = vocab.index(meta["pad"]), vocab.index(meta["stop"])
    torch.manual_seed(seed)
    names = []
    with torch.no_grad():
        while len(names) < count:
            name = ""
            while len(name) < max_length:
                logits = model(encode(meta, name))[0] / temperature
                logits[pad] = float("-inf")  # never a pad; no empty name
                if not name:
                    logits[stop] = float("-inf")
                k = int(torch.multinomial(torch.softmax(logits, -1), 1))
                if k == stop:
                    break
                name += vocab[k]
            names.append(re.sub(r"(^|[ -])([a-z])", lambda m: m[1] + m[2].upper(), name))
    return names


if __name__ == "__main__":
    model, meta = load(sys.argv[1])
    for name in generate(model, meta, int(sys.argv[2]) if len(sys.argv) > 2 else 10):
        print(name)
