"""tests/tools/test_pybuild.py — the build step's and the runtime's handling of Triton modules
(python/cudal1/pybuild.py, pysol.prepare) on a machine without a GPU: which modules count as
Triton's, that the host backend never calls one on a GPU, and that preparing a worker for one
never fails the harness. The GPU half (the kernels compiled in the build, found in the sandbox)
is tests/python/cuda/relu_triton.py in tests/gpu/test_python_gpu."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from cudal1 import pybuild  # noqa: E402

TRITON_MODULE = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def k(x_ptr, n, BLOCK: tl.constexpr):
        pass

    class ModelNew(torch.nn.Module):
        def forward(self, x):
            return x

    def get_inputs():
        return [torch.randn(4)]
    """)


def write(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    return p


class UsesTriton(unittest.TestCase):
    def test_imports_count_and_mentions_do_not(self):
        with tempfile.TemporaryDirectory() as d:
            cases = {"import triton\n": True,
                     "import torch\nfrom triton import language as tl\n": True,
                     "    import triton.language as tl\n": True,
                     "# import triton once it is faster\nimport torch\n": False,
                     "x = 'import triton'\n": False,
                     "import tritonclient\n": False,
                     "import torch\n": False}
            for i, (text, want) in enumerate(cases.items()):
                self.assertEqual(pybuild.uses_triton(write(d, f"m{i}.py", text)), want, text)
            self.assertFalse(pybuild.uses_triton(os.path.join(d, "absent.py")))

    def test_no_get_inputs_means_no_warm_up(self):
        class Mod:
            pass
        self.assertIsNone(pybuild.warm_triton(Mod(), object()))


class ProbeCalls(unittest.TestCase):
    """The forward probe calls the module as the evaluation will: on the GPU on the CUDA backend
    (CUDA-L1's lazy extensions are built only for CUDA inputs), with the task's inputs when the
    module has no get_inputs()."""

    class Obj:
        def __init__(self):
            self.moved = False

        def cuda(self):
            self.moved = True
            return self

    def calls(self, backend, get_inputs, warm=None):
        mod = type("M", (), {})()
        if get_inputs:
            mod.get_inputs = lambda: [1.5, "not a tensor"]
        env = {"CUDAL1_BUILD_BACKEND": backend}
        if warm:
            env["CUDAL1_WARM"] = warm
        old = {k: os.environ.get(k) for k in ("CUDAL1_BUILD_BACKEND", "CUDAL1_WARM")}
        os.environ.pop("CUDAL1_WARM", None)
        os.environ.update(env)
        try:
            obj = self.Obj()
            return obj, pybuild.probe_calls(mod, obj)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_cuda_backend_moves_the_object_to_the_gpu(self):
        obj, calls = self.calls("cuda", True)
        self.assertEqual(len(calls), 1)
        model, inputs = calls[0]()
        self.assertTrue(obj.moved)
        self.assertEqual(inputs, [1.5, "not a tensor"])

    def test_host_backend_calls_it_where_it_is(self):
        obj, calls = self.calls("host", True)
        model, inputs = calls[0]()
        self.assertFalse(obj.moved)
        self.assertEqual(inputs, [1.5, "not a tensor"])

    def test_no_get_inputs_takes_the_tasks_inputs_else_nothing(self):
        self.assertEqual(self.calls("host", False)[1], [])
        spec = json.dumps({"init": [], "inputs": [["f32", [2, 3]]]})
        _, calls = self.calls("host", False, warm=spec)
        self.assertEqual(len(calls), 1)


class WarmCall(unittest.TestCase):
    """CUDAL1_WARM's call (the judge's: judge_py.c, cl1_judge_py_warm), made here on the CPU."""

    def test_built_as_the_worker_builds_it_with_the_tasks_shapes(self):
        import torch
        seen = {}

        class ModelNew(torch.nn.Module):
            def __init__(self, normalized_shape, eps):
                super().__init__()
                seen["args"] = (normalized_shape, eps)
                self.ln = torch.nn.LayerNorm(normalized_shape, eps=eps)

            def forward(self, x):
                return self.ln(x)
        spec = {"twin": os.path.join(ROOT, "suite", "level1", "40_LayerNorm", "twin.py"),
                "dims": {"batch_size": 3, "features": 5, "dim1": 16, "dim2": 17},
                "attrs": {"eps": 1e-5},
                "inputs": [["f32", [3, 5, 16, 17]], ["i64", [4]], ["bool", [2]]]}
        model, inputs = pybuild.warm_call(ModelNew, spec, "cpu")
        self.assertEqual(seen["args"], ((5, 16, 17), 1e-5))
        self.assertEqual([(tuple(x.shape), x.dtype) for x in inputs],
                         [((3, 5, 16, 17), torch.float32), ((4,), torch.int64), ((2,), torch.bool)])
        self.assertEqual(tuple(model(inputs[0]).shape), (3, 5, 16, 17))


class BuildStep(unittest.TestCase):
    def build(self, backend):
        try:
            import triton  # noqa: F401
        except ImportError:
            self.skipTest("triton is not installed (it comes with torch's CUDA wheels)")
        with tempfile.TemporaryDirectory() as d:
            mod = write(d, "module.py", TRITON_MODULE)
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
                       CUDAL1_BUILD_BACKEND=backend, TRITON_CACHE_DIR=os.path.join(d, "triton"))
            out = subprocess.run([sys.executable, "-m", "cudal1.pybuild", mod,
                                  os.path.join(d, "ext"), "-"], capture_output=True, text=True,
                                 env=env, timeout=300)
            return out, os.path.isdir(os.path.join(d, "triton"))

    def test_host_backend_calls_nothing_on_a_gpu(self):
        out, cache = self.build("host")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("built: 0 extension(s)", out.stdout)
        self.assertNotIn("Triton warm-up", out.stderr)
        self.assertFalse(cache)

    def test_cuda_backend_without_a_gpu_is_noted_not_fatal(self):
        # the warm-up is the candidate's code: where it fails (here: no GPU) the build still
        # succeeds and the sandboxed run reports the candidate's failure
        import torch
        if torch.cuda.is_available():
            self.skipTest("a GPU is present: tests/gpu/test_python_gpu covers the warm-up")
        out, _ = self.build("cuda")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("note: the Triton warm-up:", out.stderr)


class Prepare(unittest.TestCase):
    def setUp(self):
        from cudal1 import pysol
        self.pysol = pysol
        self.saved = os.environ.pop("TRITON_CACHE_DIR", None)

    def tearDown(self):
        os.environ.pop("TRITON_CACHE_DIR", None)
        if self.saved is not None:
            os.environ["TRITON_CACHE_DIR"] = self.saved

    def test_cache_groups_pointed_at_their_folder(self):
        # the build wrote the groups in its temporary folder, renamed since (H100: every kernel a
        # cache miss in the sandbox, and the sandbox may not write the cache)
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "KEY"))
            grp = os.path.join(d, "KEY", "__grp__relu_k.json")
            old = "/gone/build.XXXX/triton/KEY"
            with open(grp, "w") as f:
                json.dump({"child_paths": {"relu_k.cubin": f"{old}/relu_k.cubin",
                                           "relu_k.json": f"{old}/relu_k.json"}}, f)
            self.assertEqual(self.pysol.prepare(json.dumps({"device": "cuda", "triton_dir": d})), "")
            with open(grp) as f:
                paths = json.load(f)["child_paths"]
            self.assertEqual(paths, {"relu_k.cubin": os.path.join(d, "KEY", "relu_k.cubin"),
                                     "relu_k.json": os.path.join(d, "KEY", "relu_k.json")})
            self.assertEqual(sorted(os.listdir(os.path.join(d, "KEY"))), ["__grp__relu_k.json"])

    def test_nothing_to_prepare(self):
        with tempfile.TemporaryDirectory() as d:
            for spec in ({"device": "cpu", "triton_dir": d}, {"device": "cuda"},
                         {"device": "cuda", "triton_dir": os.path.join(d, "absent")}):
                self.assertEqual(self.pysol.prepare(json.dumps(spec)), "")
                self.assertNotIn("TRITON_CACHE_DIR", os.environ, spec)

    def test_triton_pointed_at_the_folder_and_never_a_harness_failure(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.pysol.prepare(json.dumps({"device": "cuda", "triton_dir": d})), "")
            self.assertEqual(os.environ.get("TRITON_CACHE_DIR"), d)
        self.assertEqual(self.pysol.prepare("not json"), "")


if __name__ == "__main__":
    unittest.main()


class ExtensionErrors(unittest.TestCase):
    """An extension the module asked for and did not get is told to the judge (pysol.report),
    with the compiler's error lines: CUDA-L1's released kernels mostly swallow a failed build and
    run PyTorch (the H100 audit of 2026-12-07), and must not pass as if their kernel ran."""

    def setUp(self):
        from cudal1 import pysol
        self.pysol = pysol
        pysol._S["ext_errors"] = []

    def args(self, name):
        return {"name": name, "cpp_sources": "int f();", "functions": ["f"]}

    def test_compiler_lines_kept_folders_dropped(self):
        log = ("Error building extension 'x': [1/2] c++ -c /tmp/b/main.cpp -o main.o\n"
               "/tmp/b/main.cpp:7:1: error: redefinition of 'PyObject* PyInit_x()'\n"
               "    7 | PYBIND11_MODULE(x, m) {\n"
               "/tmp/b/main.cpp:7:1: error: redefinition of 'PyObject* PyInit_x()'\n"
               "ninja: build stopped: subcommand failed.\n")
        self.assertEqual(self.pysol.build_error_text(RuntimeError(log)),
                         "main.cpp:7:1: error: redefinition of 'PyObject* PyInit_x()'")
        self.assertEqual(self.pysol.build_error_text(RuntimeError("no nvcc\n")), "no nvcc")
        self.assertLessEqual(len(self.pysol.build_error_text(RuntimeError("error: " + "y" * 900))), 400)

    def test_a_failed_build_is_reported_with_its_error(self):
        with tempfile.TemporaryDirectory() as root:
            a = self.args("broken_ext")
            d = os.path.join(root, self.pysol.ext_key(a))
            os.makedirs(d)
            write(d, self.pysol.BUILD_ERROR, "main.cpp:3:1: error: 'y' was not declared\n")
            for _ in range(2):  # a module constructed twice: one report
                with self.assertRaisesRegex(RuntimeError, "did not build.*'y' was not declared"):
                    self.pysol._load_built("broken_ext", a, root)
            rep = json.loads(self.pysol.report())
            self.assertEqual(rep["ext_errors"], ["load_inline('broken_ext') did not build "
                                                 "(main.cpp:3:1: error: 'y' was not declared)"])

    def test_a_call_the_build_step_never_made_is_reported(self):
        with tempfile.TemporaryDirectory() as root:
            with self.assertRaisesRegex(RuntimeError, "was not built"):
                self.pysol._load_built("lazy_ext", self.args("lazy_ext"), root)
            self.assertIn("never made this call", json.loads(self.pysol.report())["ext_errors"][0])
