"""test_gpubusy.py — python/cudal1/train/gpubusy.py, the GPU's busy share of a GRPO step, with
a stand-in nvidia-smi (a script printing utilization samples): the arguments it is started with,
the mean over a window's samples, lines that are not samples skipped, samples used by one window
only, and no figure at all without nvidia-smi."""
import os
import stat
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from cudal1.train.gpubusy import GpuBusy  # noqa: E402
from cudal1.train.grpo import StepRecorder  # noqa: E402

FAKE = """#!/bin/sh
echo "$@" > "{args}"
echo "[N/A]"
while true; do echo 40; echo 60; sleep 0.02; done
"""


def wait_for_samples(busy, n):
    for _ in range(1000):
        with busy.lock:
            if len(busy.samples) >= n:
                return
        time.sleep(0.01)
    raise AssertionError("the stand-in nvidia-smi gave no samples in 10 s")


class Busy(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cl1busy")
        self.args = os.path.join(self.dir, "args")
        self.exe = os.path.join(self.dir, "nvidia-smi")
        with open(self.exe, "w") as f:
            f.write(FAKE.format(args=self.args))
        os.chmod(self.exe, os.stat(self.exe).st_mode | stat.S_IXUSR)

    def test_the_share_is_the_mean_of_the_windows_samples(self):
        busy = GpuBusy(index="3", period_ms=250, exe=self.exe)
        try:
            t0 = time.monotonic()
            wait_for_samples(busy, 10)
            t1 = time.monotonic()
            with busy.lock:
                n_in = len(busy.samples)
            share = busy.share(t0, t1)
            # samples come in pairs 40, 60; an odd count in the window moves the mean off 0.5
            self.assertAlmostEqual(share, 0.5, delta=0.1 / (n_in // 2))
            self.assertIsNone(busy.share(t0, t1))  # used by one window only
            with open(self.args) as f:
                args = f.read().split()
            self.assertIn("--id=3", args)
            self.assertIn("--query-gpu=utilization.gpu", args)
            self.assertIn("-lms=250", args)
        finally:
            busy.stop()
        self.assertIsNotNone(busy.proc.poll())  # stopped

    def test_a_window_without_samples_and_no_nvidia_smi_give_none(self):
        busy = GpuBusy(exe=self.exe)
        try:
            wait_for_samples(busy, 2)
            self.assertIsNone(busy.share(0.0, 0.0))  # before any sample
        finally:
            busy.stop()
        path = os.environ.get("PATH", "")
        os.environ["PATH"] = self.dir + "-absent"
        try:
            none = GpuBusy()
        finally:
            os.environ["PATH"] = path
        self.assertIsNone(none.proc)
        self.assertIsNone(none.share(0.0, time.monotonic()))
        none.stop()

    def test_a_grpo_step_reports_the_busy_share_of_its_own_time(self):
        busy = GpuBusy(exe=self.exe)
        try:
            wait_for_samples(busy, 4)
            rec = StepRecorder(busy)
            fields = rec.step_fields(1, 60.0, {"reward": 0.5})  # the last minute: every sample
            self.assertAlmostEqual(fields["gpu_busy"], 0.5, delta=0.11)
            self.assertIsNone(StepRecorder().step_fields(1, 1.0, {})["gpu_busy"])
        finally:
            busy.stop()


if __name__ == "__main__":
    unittest.main()
