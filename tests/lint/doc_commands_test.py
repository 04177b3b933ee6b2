#!/usr/bin/env python3
"""Unit test of tests/lint/doc_commands.py: what it reads as a command and what it refuses, on
documents written here and a stand-in petname that prints CLI11's help.

  tests/lint/doc_commands_test.py      (exit 0 when every case passes)
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "doc_commands.py")

# CLI11's help layout, as the real binary prints it (tests/lint/doc_commands.py parses it).
FAKE_PETNAME = r"""#!/bin/sh
case "$1" in
  --help) printf '%s\n' 'petname: trains.' 'Usage: petname [OPTIONS] SUBCOMMAND' '' 'Options:' \
    '  -h,--help                   Print this help message and exit' \
    '  --version                   Display program version information and exit' '' \
    'Subcommands:' '  train                       Train the model.' \
    '  generate                    Print names.' ;;
  train) printf '%s\n' 'Train the model.' '' 'Options:' \
    '  -h,--help                   Print this help message and exit' \
    '  --epochs INT=10             Total epochs' \
    '  --device TEXT:{cpu,cuda}=cpu' '                              cpu or cuda' \
    '  --no-tf32                   CUDA: full fp32' ;;
  generate) printf '%s\n' 'Print names.' '' 'Options:' \
    '  --checkpoint TEXT REQUIRED  Checkpoint directory' '  --count INT=10              How many' ;;
  *) exit 1 ;;
esac
"""


class DocCommandsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.petname = os.path.join(self.tmp.name, "petname")
        with open(self.petname, "w", encoding="utf-8") as f:
            f.write(FAKE_PETNAME)
        os.chmod(self.petname, 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def lint(self, text):
        doc = os.path.join(self.tmp.name, "doc.md")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run([sys.executable, TOOL, "--petname", self.petname, doc],
                           capture_output=True, text=True, check=False)
        return r.returncode, [line.split(": ", 1)[1] for line in r.stdout.splitlines()
                              if line.startswith(doc)], r

    def assert_findings(self, text, expected):
        code, found, r = self.lint(text)
        self.assertEqual(found, expected, r.stdout + r.stderr)
        self.assertEqual(code, 1 if expected else 0, r.stderr)

    def test_what_exists_passes(self):
        self.assert_findings(
            "```sh\n"
            "$ petname train --epochs 3 --device=cuda \\\n  --no-tf32   # a comment: --nope\n"
            "kubectl exec p -- petname generate --checkpoint /c --count 2 | head\n"
            "kubectl apply -f examples/cpu-job.yaml && bash scripts/get-data --accept-new\n"
            "for d in cpu cuda; do build/bin/petname train --device $d; done\n"
            "helm install petname charts/petname-operator --set kueue.enabled=true,podLabels.a=b\n"
            "ls build-gpu/bin/petname data/seattle_pet_licenses.csv\n"
            "cd build && ls examples/not-here\n"
            "```\n", [])

    def test_a_missing_file_a_misspelled_flag_and_an_unknown_value_key(self):
        self.assert_findings(
            "# Page\n\n```sh\nkubectl apply -f examples/no-such-job.yaml\n"
            "petname train --epocs 2\n"
            "helm upgrade petname charts/petname-operator --set kueue.enable=true\n```\n",
            ["examples/no-such-job.yaml does not exist in the repository",
             "petname train: unknown flag --epocs",
             "--set kueue.enable: no such key in charts/petname-operator/values.yaml"])

    def test_values_subcommands_and_scripts(self):
        self.assert_findings(
            "```\npetname train --device tpu\npetname generat --count 1\n"
            "docker/build.sh --binary build/bin trainer\n```\n",
            ["petname train: --device tpu: not one of cpu, cuda",
             "petname generat: no such subcommand (generate, train)",
             "docker/build.sh: unknown flag --binary"])

    def test_where_a_finding_is(self):
        code, _, r = self.lint("text\n\n```sh\necho a \\\n  b\npetname train --x\n```\n")
        self.assertEqual(code, 1)
        self.assertRegex(r.stdout, r"doc\.md:6: petname train: unknown flag --x\n")

    def test_prose_set_and_files_the_page_writes(self):
        self.assert_findings(
            "Save it as `my-job.yaml`, then:\n\n```sh\nkubectl apply -f my-job.yaml\n"
            "kubectl apply -f other.yaml\n```\n\nWith `--set serviceMonitor.enabld=true`.\n",
            ["kubectl -f other.yaml: no such file in the repository",
             "--set serviceMonitor.enabld: no such key in charts/petname-operator/values.yaml"])

    def test_other_blocks_and_output_are_not_commands(self):
        self.assert_findings(
            "```yaml\nrun: petname train --nope\n```\n"
            "```console\n$ petname train --epochs 1\npetname: error: --nope is wrong\n```\n", [])


if __name__ == "__main__":
    unittest.main()
