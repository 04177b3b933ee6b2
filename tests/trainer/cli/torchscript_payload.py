"""Writes the TorchScript archives someone who can write a checkpoint directory would plant as a
format-1 model.pt (tests/trainer/cli/safe_checkpoint_test.cc):

  payload OUT VICTIM MARKER   an archive whose loading prints MARKER and overwrites the first
                              8 bytes of the file VICTIM with 'A' (its __setstate__ runs on load)
  bomb OUT MIB                an archive of a few hundred KB holding a zero float32 storage of
                              MIB MiB, deflated

Exit 77 when this Python has no torch (the test then skips).
"""
import os
import sys
import zipfile
from typing import Tuple

try:
    import torch
except ImportError:
    sys.exit(77)


class Payload(torch.nn.Module):
    def __init__(self, victim: str, marker: str):
        super().__init__()
        self.victim = victim
        self.marker = marker

    @torch.jit.export
    def __getstate__(self) -> Tuple[str, str, bool]:
        return (self.victim, self.marker, self.training)

    @torch.jit.export
    def __setstate__(self, state: Tuple[str, str, bool]) -> None:
        self.victim = state[0]
        self.marker = state[1]
        self.training = state[2]
        written = torch.from_file(self.victim, shared=True, size=8, dtype=torch.uint8).fill_(65)
        print(self.marker, int(written[0]))  # uses the write, which the compiler would drop

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


class Storage(torch.nn.Module):
    def __init__(self, mib: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(mib << 18))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


def deflate(path: str) -> None:
    """Rewrites the archive at `path` with every entry deflated, a chunk at a time."""
    tmp = path + ".deflated"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            with src.open(info) as r, dst.open(info.filename, "w", force_zip64=True) as w:
                for chunk in iter(lambda: r.read(1 << 20), b""):
                    w.write(chunk)
    os.replace(tmp, path)


def main() -> None:
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "payload":
        torch.jit.save(torch.jit.script(Payload(sys.argv[3], sys.argv[4])), out)
    elif kind == "bomb":
        torch.jit.save(torch.jit.script(Storage(int(sys.argv[3]))), out)
        deflate(out)
    else:
        sys.exit(f"unknown kind {kind}")


if __name__ == "__main__":
    main()
