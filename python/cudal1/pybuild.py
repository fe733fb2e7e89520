"""pybuild.py — the build step of a Python solution: `python3 -m cudal1.pybuild MODULE EXT_DIR
CLASS`, run by the judge (src/eval/pybuild.c) confined by `cudal1-worker --confine-build`.

Importing the module runs its top level, and with it every load_inline: here the compiler may run
(the sandboxed worker may not exec anything), and each extension is built into EXT_DIR/<key>,
where the worker's own import finds it (pysol.install_ext_hooks). A module that does not import —
a syntax error, a missing package, a kernel that does not compile — stops here: exit 1 with the
reason as the last line of stderr, which the judge reports as the candidate's compile_error."""
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
    print(f"built: {len(os.listdir(ext_dir))} extension(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
