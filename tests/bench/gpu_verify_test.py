#!/usr/bin/env python3
"""bench/gpu/verify.py, the assertions of bench/gpu/check.sh, on hand-written inputs: the
lines and files the trainer writes on a GPU, which CI cannot produce."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

VERIFY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../bench/gpu/verify.py")
CUDA_LINE = ("petname: device step: 852 steps in CUDA graphs (captured before training in 1.23 s), "
             "0 eager (forest larger than the graph's capacities); capacities per level 4096 3100 900\n")


class VerifyTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))
        return path

    def verify(self, *args):
        r = subprocess.run([sys.executable, VERIFY, *args], capture_output=True, text=True)
        self.assertEqual(len(r.stdout.splitlines()), 1, r.stdout + r.stderr)
        return r.returncode, r.stdout.strip()

    def summary(self, name, train, val):
        return self.write(name, {"train_loss_trace": train, "val_loss_trace": val})

    def test_trace_within_and_beyond_tolerance(self):
        a = self.summary("a.json", [3.1, 2.4], [2.7, 2.1])
        self.assertEqual(self.verify("trace", a, self.summary("b.json", [3.10005, 2.4], [2.7, 2.1]),
                                     "--tol", "1e-4")[0], 0)
        rc, line = self.verify("trace", a, self.summary("c.json", [3.1, 2.4], [2.7, 2.1003]), "--tol", "1e-4")
        self.assertEqual(rc, 1)
        self.assertIn("val_loss_trace epoch 2", line)
        self.assertEqual(self.verify("trace", a, self.summary("d.json", [3.1], [2.7]), "--tol", "1")[0], 1)

    def test_resumed_tail_skips_the_partial_epochs_train_loss(self):
        full = self.summary("full.json", [3.0, 2.5, 2.2], [2.8, 2.4, 2.1])
        resumed = self.summary("resumed.json", [2.45, 2.2], [2.4, 2.1])
        self.assertEqual(self.verify("trace", full, resumed, "--tol", "1e-9", "--tail")[0], 0)
        later = self.summary("later.json", [2.45, 2.3], [2.4, 2.1])
        self.assertEqual(self.verify("trace", full, later, "--tol", "1e-9", "--tail")[0], 1)

    def checkpoint(self, step):
        self.write("ck/latest", "epoch-000002\n")
        self.write("ck/epoch-000002/manifest.json", {"epoch": 2, "step": step})
        return os.path.join(self.dir.name, "ck")

    def test_midway_needs_a_step_strictly_inside_the_run(self):
        self.assertEqual(self.verify("midway", self.checkpoint(18), "64")[0], 0)
        self.assertEqual(self.verify("midway", self.checkpoint(64), "64")[0], 1)
        self.assertEqual(self.verify("midway", self.checkpoint(0), "64")[0], 1)
        self.assertEqual(self.verify("midway", os.path.join(self.dir.name, "none"), "64")[0], 1)

    def test_device_step_on_cuda(self):
        log = self.write("ok.err", "petname: data: ...\n" + CUDA_LINE)
        self.assertEqual(self.verify("device-step", log, "852", "--device", "cuda")[0], 0)
        self.assertEqual(self.verify("device-step", log, "900", "--device", "cuda")[0], 1)
        eager = self.write("eager.err", CUDA_LINE.replace("852 steps", "850 steps").replace(", 0 eager", ", 2 eager"))
        rc, line = self.verify("device-step", eager, "852", "--device", "cuda")
        self.assertEqual(rc, 1)
        self.assertIn("2 eager", line)
        cpu_line = self.write("cpu.err", "petname: device step: 852 steps with fixed shapes, 0 eager\n")
        self.assertEqual(self.verify("device-step", cpu_line, "852", "--device", "cuda")[0], 1)
        self.assertEqual(self.verify("device-step", self.write("none.err", ""), "852", "--device", "cuda")[0], 1)

    def test_device_step_on_the_cpu(self):
        self.assertEqual(self.verify("device-step", self.write("none.err", ""), "9", "--device", "cpu")[0], 0)
        eager = self.write("eager.err", "petname: device step: 7 steps with fixed shapes, 2 eager (...)\n")
        self.assertEqual(self.verify("device-step", eager, "9", "--device", "cpu")[0], 1)

    def test_metrics(self):
        body = ('# HELP petname_training_info x\npetname_training_info{backend="nccl",device="cuda",job="j"} 1\n'
                'petname_train_steps_total{job="j"} 12\npetname_gpu_memory_allocated_bytes{job="j"} 2.5e+08\n')
        path = self.write("m.txt", body)
        ok = ("metrics", path, "petname_training_info", "petname_gpu_memory_allocated_bytes",
              "--label", "backend=nccl", "--label", "device=cuda")
        self.assertEqual(self.verify(*ok)[0], 0)
        self.assertEqual(self.verify("metrics", path, "petname_gpu_memory_reserved_bytes")[0], 1)
        self.assertEqual(self.verify("metrics", path, "petname_training_info", "--label", "backend=gloo")[0], 1)
        idle = self.write("idle.txt", body.replace("} 12", "} 0"))
        self.assertEqual(self.verify("metrics", idle, "petname_training_info")[0], 1)
        # The first scrape may come before the first step, but must serve every name.
        self.assertEqual(self.verify("metrics", idle, "petname_training_info", "--first")[0], 0)
        self.assertEqual(self.verify("metrics", idle, "petname_gpu_memory_reserved_bytes", "--first")[0], 1)

    def test_spread_reports_the_largest_difference(self):
        a = self.summary("a.json", [3.1, 2.4], [2.7, 2.1])
        rc, line = self.verify("spread", a, self.summary("b.json", [3.1, 2.43], [2.7, 2.1]))
        self.assertEqual(rc, 0)
        self.assertIn("3.00e-02 (train_loss_trace epoch 2)", line)
        self.assertEqual(self.verify("spread", a, self.summary("c.json", [3.1], [2.7]))[0], 1)


if __name__ == "__main__":
    unittest.main()
