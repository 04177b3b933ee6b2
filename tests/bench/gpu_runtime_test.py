#!/usr/bin/env python3
"""bench/gpu/runtime.py, the decisions of the GPU bundle's launcher before it runs anything: the
torch version a folder states, whether it fits the one petname was built against, and where
ldd's libraries come from, on hand-written inputs (ldd lines of a GPU machine CI has not got)."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

RUNTIME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../bench/gpu/runtime.py")
spec = importlib.util.spec_from_file_location("runtime", RUNTIME)
runtime = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runtime)

LDD = """\tlinux-vdso.so.1 (0x00007ffc8b5e2000)
\tlibtorch_cpu.so => /opt/torch/lib/libtorch_cpu.so (0x00007f0d2a000000)
\tlibcudart.so.13 => /opt/site/nvidia/cu13/lib/libcudart.so.13 (0x00007f0d29c00000)
\tlibyaml-cpp.so.0.7 => not found
\tlibyaml-cpp.so.0.7 => not found
\tlibcurl.so.4 => /usr/lib/x86_64-linux-gnu/libcurl.so.4 (0x00007f0d29b00000)
\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f0d29800000)
\tlibcuda.so.1 => /usr/lib/x86_64-linux-gnu/libcuda.so.1 (0x00007f0d28000000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f0d3a000000)
./bin/petname: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by ./bin/petname)
"""


class VersionTest(unittest.TestCase):
    def test_version_files(self):
        self.assertEqual(runtime.parse_version_file("version.py", "from typing import Optional\n"
                                                    "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n"),
                         "2.11.0+cu130")
        self.assertEqual(runtime.parse_version_file("build-version", "2.11.0+cu130\n"), "2.11.0+cu130")
        header = "#define TORCH_VERSION_MAJOR 2\n#define TORCH_VERSION_MINOR 11\n#define TORCH_VERSION_PATCH 1\n"
        self.assertEqual(runtime.parse_version_file("version.h", header), "2.11.1")
        self.assertIsNone(runtime.parse_version_file("version.h", "#define TORCH_VERSION_MAJOR 2\n"))

    def test_cuda_major_from_needed_names(self):
        self.assertEqual(runtime.cuda_major(["libc10.so", "libcudart.so.13", "libc.so.6"]), "13")
        self.assertEqual(runtime.cuda_major(["libcudart-d0da41ae.so.12"]), "12")
        self.assertIsNone(runtime.cuda_major(["libc10.so", "libcudnn.so.9"]))

    def test_same_minor_fits_and_others_are_named(self):
        self.assertIsNone(runtime.matches("2.11.0", "13", "2.11.1+cu130", "13"))
        self.assertEqual(runtime.matches("2.11.0", "13", "2.10.0+cu128", "12"),
                         "is torch 2.10.0+cu128 with CUDA 12; petname here was built against torch 2.11 with CUDA 13")
        self.assertIn("is torch 2.12.0", runtime.matches("2.11.0", "13", "2.12.0", "13"))
        self.assertIn("is no CUDA (no libtorch_cuda.so)", runtime.matches("2.11.0", "13", "2.11.0+cpu", None))

    def test_folder_with_version_py_and_no_cuda_library(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "version.py"), "w") as f:
                f.write("__version__ = '1.13.0a0'\ncuda = None\n")
            r = subprocess.run([sys.executable, RUNTIME, "torch", d], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stdout), (0, "1.13.0a0 none\n"))
            r = subprocess.run([sys.executable, RUNTIME, "match", "2.11.0", "13", d], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(len(r.stdout.splitlines()), 1)
            self.assertIn("is torch 1.13.0a0 with no CUDA", r.stdout)

    def test_folder_without_version_is_refused_in_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, RUNTIME, "torch", d], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(len(r.stdout.splitlines()), 1)
            self.assertIn("cannot tell the torch version of " + d, r.stdout)

    def test_needed_of_a_real_binary(self):
        self.assertIn("libc.so.6", runtime.needed("/bin/ls"))
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"not an ELF file")
            f.flush()
            with self.assertRaises(runtime.Unusable):
                runtime.needed(f.name)


class LddTest(unittest.TestCase):
    def test_parse(self):
        libraries, errors = runtime.parse_ldd(LDD)
        self.assertEqual(libraries[0], ("linux-vdso.so.1", None))
        self.assertEqual(libraries.count(("libyaml-cpp.so.0.7", None)), 2)
        self.assertIn(("libcurl.so.4", "/usr/lib/x86_64-linux-gnu/libcurl.so.4"), libraries)
        self.assertEqual(libraries[-1], ("ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2"))
        self.assertEqual(errors, ["petname needs GLIBCXX_3.4.32"])

    def test_classify(self):
        libraries, _ = runtime.parse_ldd(LDD)
        missing, outside = runtime.classify(libraries, ["/opt/torch/lib", "/opt/site/nvidia/cu13/lib"])
        # The C/C++ runtime, the loader, the vDSO and the driver belong to the machine.
        self.assertEqual(missing, ["libyaml-cpp.so.0.7", "libyaml-cpp.so.0.7"])
        self.assertEqual(outside, [("libcurl.so.4", "/usr/lib/x86_64-linux-gnu/libcurl.so.4")])
        missing, outside = runtime.classify(libraries, ["/opt/torch/lib", "/opt/site/nvidia/cu13/lib", "/usr/lib"])
        self.assertEqual(outside, [])

    def test_a_folder_is_not_a_prefix_of_its_siblings(self):
        self.assertFalse(runtime.inside("/opt/torch/lib2/libx.so", ["/opt/torch/lib"]))
        self.assertTrue(runtime.inside("/opt/torch/lib/libx.so", ["/opt/torch/lib/"]))

    def test_problems_name_the_missing_the_foreign_and_the_versions(self):
        libraries, errors = runtime.parse_ldd(LDD)
        self.assertEqual(runtime.problems(libraries, errors, ["/opt/torch/lib", "/opt/site/nvidia/cu13/lib"]),
                         ["libyaml-cpp.so.0.7 not found", "libcurl.so.4 only at /usr/lib/x86_64-linux-gnu/libcurl.so.4",
                          "petname needs GLIBCXX_3.4.32"])

    def test_resolve_of_a_real_binary(self):
        # /bin/ls loads only libraries of this machine's multiarch folder (with a merged /usr, under
        # either of its names): they all resolve there, and none resolves inside /nonexistent.
        ok = subprocess.run([sys.executable, RUNTIME, "resolve", "/bin/ls", "/lib/x86_64-linux-gnu",
                             "/usr/lib/x86_64-linux-gnu"], capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stdout)
        self.assertIn("libraries resolve", ok.stdout)


if __name__ == "__main__":
    unittest.main()
