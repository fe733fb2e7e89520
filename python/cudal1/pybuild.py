"""pybuild.py — the build step of a Python solution: `python3 -m cudal1.pybuild MODULE EXT_DIR
CLASS`, run by the judge (src/eval/pybuild.c) confined by `cudal1-worker --confine-build`.

Importing the module runs its top level, and with it every load_inline: here the compiler may run
(the sandboxed worker may not exec anything), and each extension is built into EXT_DIR/<key>,
where the worker's own import finds it (pysol.install_ext_hooks). A module that does not import —
a syntax error, a missing package, a kernel that does not compile — stops here: exit 1 with the
reason as the last line of stderr, which the judge reports as the candidate's compile_error.

Then the class is constructed once, with the module's own get_init_inputs() when it has one,
because many solutions call load_inline from __init__ (CUDA-L1's released kernels do: the first
H100 audit, 2026-12-06, found their extensions never built, their ModelNew silently falling back
to PyTorch). What fails there is left for the sandboxed run to report; calls made only inside
forward() are not built here."""
import os
import sys
import traceback


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: python3 -m cudal1.pybuild MODULE EXT_DIR CLASS\n")
        return 2
    path, ext_dir, cls = argv[1], argv[2], argv[3]
    os.makedirs(ext_dir, exist_ok=True)
    os.environ.setdefault("MAX_JOBS", "2")
    # torch and cudal1 first: a failure there is the harness's (exit 3), not the candidate's
    try:
        import torch  # noqa: F401
        from cudal1 import pysol
    except BaseException:
        traceback.print_exc()
        return 3
    pysol.install_ext_hooks(ext_dir, build=True)
    try:
        mod = pysol.import_file(path)
    except SyntaxError as e:
        sys.stderr.write(f"syntax error: line {e.lineno}: {e.msg}\n")
        return 1
    except BaseException as e:
        tb = traceback.format_exc(limit=8)
        sys.stderr.write(tb)
        sys.stderr.write(f"the module did not import: {type(e).__name__}: {e}\n")
        return 1
    if cls != "-" and not isinstance(getattr(mod, cls, None), type):
        sys.stderr.write(f"the module defines no class {cls}\n")
        return 1
    # "-": the judge's build, which does not know the class: a candidate's is ModelNew
    construct(mod, "ModelNew" if cls == "-" else cls)
    print(f"built: {len(os.listdir(ext_dir))} extension(s)")
    return 0


def construct(mod, cls):
    """cls(*get_init_inputs()) (or cls()), for the load_inline calls its __init__ makes; any
    failure is reported by the sandboxed run, with the task's own arguments."""
    if not isinstance(getattr(mod, cls, None), type):
        return
    try:
        get = getattr(mod, "get_init_inputs", None)
        args = list(get()) if callable(get) else []
        getattr(mod, cls)(*args)
    except BaseException as e:  # noqa: BLE001 — the candidate's code; its run says what went wrong
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        sys.stderr.write(f"note: {cls}(...) in the build step: {type(e).__name__}: {e}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
