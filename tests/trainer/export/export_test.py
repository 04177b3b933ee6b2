"""petname's model out: a real `petname train` run leaves DIR/model.safetensors,
`petname export` writes the same file from the checkpoint, and the recipe's PyTorch model
(examples/generate_names.py, included verbatim in docs/tasks/cpu-job.md) loads it with
strict=True and computes petname's logits on fixed prefixes to within ATOL. Bad input is one
`petname: error:` line and leaves no file behind, also when the disk fills up mid-write.

    python3 export_test.py PETNAME RECIPE_LOGITS DATA EXAMPLE DOC

Exit 77 (skipped) only when Python's torch cannot be imported.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError as e:
    print(f"skipped: Python's torch cannot be imported ({e}); scripts/setup installs it")
    sys.exit(77)
from safetensors import safe_open
from safetensors.torch import load_file

# Both sides are float32: petname's fused host LSTM loops and PyTorch's differ only in the
# order of float additions, which moves a logit by ~1e-6 at most.
ATOL = 1e-5
PREFIXES = ["", "a", "bo", "max", "bella", "sir barks-a-lot", "mr. whiskers", "zz"]
RECIPE_NAMES = {f"lstm.{kind}_l{k}" for k in range(4)
                for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")} | {"fc.weight",
                                                                                   "fc.bias"}

PETNAME, RECIPE_LOGITS, DATA, EXAMPLE, DOC = sys.argv[1:6]


def run(*args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        raise AssertionError(f"{args}: exit {p.returncode}, expected {expect}\n{p.stderr}")
    return p


def expect_error(exit_code, *args):
    p = run(PETNAME, *args, expect=exit_code)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("petname: error: "), p.stderr
    return lines[0]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def check_file(example, path, checkpoint):
    with safe_open(path, framework="pt") as f:
        meta = f.metadata()
        assert set(f.keys()) == RECIPE_NAMES, sorted(f.keys())
        for name in f.keys():
            assert f.get_tensor(name).dtype == torch.float32, name
    assert meta["vocabulary"] == "*+abcdefghijklmnopqrstuvwxyz-. ", meta
    assert (meta["window"], meta["pad"], meta["stop"]) == ("8", "*", "+"), meta
    assert (meta["hidden_size"], meta["num_layers"], meta["epochs"]) == ("128", "4", "1"), meta
    assert meta["seed"] == "7" and meta["input"] == "one_hot", meta
    assert float(meta["val_loss"]) > 0 and len(meta["data_fingerprint_sha256"]) == 64, meta

    model, meta = example.load(path)  # load_state_dict(strict=True)
    reference = torch.nn.LSTM(31, 128, num_layers=4, batch_first=True)
    for name, p in reference.named_parameters():
        assert model.lstm.get_parameter(name).shape == p.shape, name
    assert model.fc.weight.shape == (31, 128) and model.fc.bias.shape == (31,)

    want = json.loads(run(RECIPE_LOGITS, checkpoint, *PREFIXES).stdout)
    worst = 0.0
    with torch.no_grad():
        for prefix in PREFIXES:
            got = model(example.encode(meta, prefix))[0]
            diff = (got - torch.tensor(want[prefix])).abs().max().item()
            worst = max(worst, diff)
            assert diff <= ATOL, f"prefix {prefix!r}: logits differ by {diff} > {ATOL}"
    print(f"logits of {len(PREFIXES)} prefixes match petname's: max |diff| {worst:.3g} <= {ATOL}")

    # The tolerance tells a wrong layout apart: layer 0 with gates i and g swapped is far off.
    state = load_file(path)
    w = state["lstm.weight_ih_l0"]
    state["lstm.weight_ih_l0"] = torch.cat([w[256:384], w[128:256], w[0:128], w[384:]])
    wrong = example.Recipe()
    wrong.load_state_dict(state, strict=True)
    with torch.no_grad():
        moved = max((wrong(example.encode(meta, p))[0] - torch.tensor(want[p])).abs().max().item()
                    for p in PREFIXES)
    assert moved > 100 * ATOL, f"swapped gates move the logits by only {moved}"
    return model, meta


def load_example():
    spec = importlib.util.spec_from_file_location("generate_names", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_include_the_example():
    with open(EXAMPLE) as f:
        code = f.read()
    with open(DOC) as f:
        assert f"```python\n{code}```\n" in f.read(), "docs/tasks/cpu-job.md must include " + EXAMPLE


def test_bad_input(tmp):
    missing = os.path.join(tmp, "missing.safetensors")
    expect_error(1, "export", "--checkpoint", os.path.join(tmp, "nowhere"), "--output", missing)
    expect_error(2, "export", "--checkpoint", CHECKPOINT_DIR)
    expect_error(1, "export", "--checkpoint", CHECKPOINT_DIR, "--output",
                 os.path.join(tmp, "no-such-dir", "m.safetensors"))
    os.mkdir(os.path.join(tmp, "is-a-dir"))
    expect_error(1, "export", "--checkpoint", CHECKPOINT_DIR, "--output",
                 os.path.join(tmp, "is-a-dir"))
    assert not os.path.exists(missing)
    assert not [n for n in os.listdir(tmp) if ".tmp-" in n], os.listdir(tmp)


def test_full_disk(tmp):
    mount = os.path.join(tmp, "small")
    os.mkdir(mount)
    # The model is ~1.9 MB; a 1 MiB tmpfs fills up in the middle of writing it.
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount],
                      capture_output=True).returncode != 0:
        print("full-disk case not run: cannot mount a tmpfs (needs root)")
        return
    try:
        out = os.path.join(mount, "model.safetensors")
        with open(out, "w") as f:
            f.write("the previous export\n")
        line = expect_error(1, "export", "--checkpoint", CHECKPOINT_DIR, "--output", out)
        assert "No space left on device" in line, line
        assert read(out) == b"the previous export\n"
        assert os.listdir(mount) == ["model.safetensors"], os.listdir(mount)
    finally:
        subprocess.run(["umount", "-l", mount], check=False)


def main():
    global CHECKPOINT_DIR
    example = load_example()
    test_docs_include_the_example()
    with tempfile.TemporaryDirectory() as tmp:
        CHECKPOINT_DIR = os.path.join(tmp, "ckpt")
        train = run(PETNAME, "train", "--data", DATA, "--max-names", "400", "--epochs", "1",
                    "--batch-size", "256", "--seed", "7", "--threads", "1",
                    "--checkpoint-dir", CHECKPOINT_DIR)
        trained = os.path.join(CHECKPOINT_DIR, "model.safetensors")
        assert f"petname: model exported to {trained}" in train.stderr, train.stderr
        assert os.stat(trained).st_mode & 0o777 == 0o644, oct(os.stat(trained).st_mode)

        out = os.path.join(tmp, "export.safetensors")
        assert run(PETNAME, "export", "--checkpoint", CHECKPOINT_DIR, "--output", out).stdout \
            == out + "\n"
        assert read(out) == read(trained), "the export of the final checkpoint differs"
        model_file = os.path.join(CHECKPOINT_DIR, "epoch-000001", "model.safetensors")
        run(PETNAME, "export", "--checkpoint", model_file, "--output", out)
        assert read(out) == read(trained)

        model, meta = check_file(example, out, CHECKPOINT_DIR)
        names = example.generate(model, meta, count=5)
        assert len(names) == 5 and all(names), names
        printed = run(sys.executable, EXAMPLE, out, "3").stdout.splitlines()
        allowed = set(meta["vocabulary"][2:] + meta["vocabulary"][2:].upper())
        assert len(printed) == 3 and all(n and set(n) <= allowed for n in printed), printed

        test_bad_input(tmp)
        test_full_disk(tmp)
    print("export test passed")


if __name__ == "__main__":
    main()
