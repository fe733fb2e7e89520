"""gpubusy.py — the GPU's busy share over a window of time, for GRPO's step events (issue 21
asks for it beside the generate, reward and update times).

`nvidia-smi --query-gpu=utilization.gpu -lms PERIOD` reports, per sample, the percent of the
last sample period in which one or more kernels ran on the GPU (NVML's utilization rate, the
figure torch.cuda.utilization gives through the nvidia-ml-py package, which the trainer's
environment need not have; nvidia-smi comes with the driver). A reader thread keeps each sample
with the monotonic time it arrived; share(t0, t1) is the mean over the samples in [t0, t1], as a
fraction. The GPU is the one the trainer and its reward service share, so evaluations count as
busy too. No nvidia-smi, or a sampler that dies: share() is None, and the step event leaves the
figure out (no figure, never a guess)."""
import shutil
import subprocess
import threading
import time


class GpuBusy:
    def __init__(self, index=0, period_ms=200, exe=None):
        self.samples = []  # (monotonic seconds, percent)
        self.lock = threading.Lock()
        self.proc = None
        exe = exe or shutil.which("nvidia-smi")
        if not exe:
            return
        try:
            self.proc = subprocess.Popen(
                [exe, f"--id={index}", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                 f"-lms={period_ms}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            self.proc = None
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.proc.stdout:
                try:
                    pct = float(line.strip())
                except ValueError:
                    continue  # "[N/A]" or a message: not a sample
                with self.lock:
                    self.samples.append((time.monotonic(), pct))
        except (ValueError, OSError):
            pass  # stop() closed the pipe under the read

    def share(self, t0, t1):
        """Mean busy fraction of the samples that arrived in [t0, t1] (monotonic), or None."""
        with self.lock:
            xs = [p for t, p in self.samples if t0 <= t <= t1]
            self.samples = [(t, p) for t, p in self.samples if t > t1]  # a step's are used once
        return round(sum(xs) / len(xs) / 100.0, 4) if xs else None

    def stop(self):
        if not self.proc:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
