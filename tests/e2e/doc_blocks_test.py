#!/usr/bin/env python3
"""Unit test of tests/e2e/doc_blocks.py: which documented blocks the quick-start doc-test runs.

  tests/e2e/doc_blocks_test.py      (exit 0 when every case passes)
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(HERE, "doc_blocks.py")


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, check=False)


class DocBlocksTest(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, dir=self.dir)
        f.write(text)
        f.close()
        return f.name

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_blocks_of_all_files_run_in_marker_order(self):
        a = self.write("<!-- doc-test 20 -->\n```sh\necho b\n```\n```sh\necho unmarked\n```\n")
        b = self.write("text\n<!-- doc-test 10 -->\n```sh\necho a\necho a2\n```\n")
        r = run(a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        body = [l for l in r.stdout.splitlines() if not l.startswith(("echo '", "set "))]
        self.assertEqual(body, ["echo a", "echo a2", "echo b"])
        self.assertIn(f"[doc-test 10] {b}:4", r.stdout)

    def test_range_keeps_only_those_blocks(self):
        a = self.write("<!-- doc-test 10 -->\n```sh\necho a\n```\n<!-- doc-test 90 -->\n```sh\necho z\n```\n")
        r = run("--from", "90", "--to", "99", a)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("echo z", r.stdout)
        self.assertNotIn("echo a", r.stdout)

    def test_a_failing_command_stops_the_script(self):
        a = self.write("<!-- doc-test 1 -->\n```sh\nfalse\necho after\n```\n")
        script = run(a).stdout
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("after", r.stdout)

    def test_malformed_markers_are_usage_errors(self):
        cases = {
            "not followed by a ```sh block": "<!-- doc-test 1 -->\ntext\n",
            "unclosed": "<!-- doc-test 1 -->\n```sh\necho a\n",
            "also at": "<!-- doc-test 1 -->\n```sh\na\n```\n<!-- doc-test 1 -->\n```sh\nb\n```\n",
            "no doc-test block": "nothing\n",
        }
        for message, text in cases.items():
            r = run(self.write(text))
            self.assertEqual(r.returncode, 2, message)
            self.assertIn(message, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_the_quick_start_installs_first_and_uninstalls_last(self):
        # as tests/e2e/doc_scenario.sh collects them: README.md and every page under docs/
        pages = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "docs"))
                       for f in fs if f.endswith(".md"))
        r = run(os.path.join(ROOT, "README.md"), *pages)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        first = next(l for l in lines if l.startswith(("helm", "kubectl")))
        self.assertTrue(first.startswith("helm install petname charts/petname-operator"), first)
        self.assertIn("helm uninstall petname", "\n".join(lines[-8:]))


if __name__ == "__main__":
    unittest.main()
