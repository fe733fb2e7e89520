# cudal1 — one Makefile: `make` (binary, library, op libraries, tests), `make test` (CPU tests),
# `make gpu-test` (device-only tests), `make bench` (benchmarks; GPU), `make demo`.
CUDA_HOME ?= /usr/local/cuda
CUDA_ARCH ?= 90
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc
BUILD     ?= build

WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 $(WARN) -D_GNU_SOURCE -Iinclude -Isrc -I$(CUDA_HOME)/include \
           -DCL1_CUDA_ARCH=$(CUDA_ARCH) -DCL1_CUDA_HOME='"$(CUDA_HOME)"' -MMD -MP
GENCODE := -gencode arch=compute_$(CUDA_ARCH),code=[sm_$(CUDA_ARCH),compute_$(CUDA_ARCH)]
NVFLAGS := -O3 -std=c++17 $(GENCODE) -Iinclude -Isrc -Xcompiler -fPIC,-Wall,-Werror \
           -DCL1_CUDA_ARCH=$(CUDA_ARCH) -MMD -MP
CUDA_LD := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64
# What the worker program may link: no store, HTTP client, TLS or ELF reader (issue 19).
WRK_LIBS:= -lstdc++ -lcjson -lseccomp $(CUDA_LD) -lcudart -ldl -lm -lpthread
LDLIBS  := -lstdc++ -lcjson -lsqlite3 -lcurl -lmicrohttpd -lseccomp -lelf -lcrypto $(CUDA_LD) -lcudart -ldl -lm -lpthread
RPATH   := -Wl,-rpath,'$$ORIGIN/deps:$$ORIGIN/../deps:$$ORIGIN/../../deps'

# The layers, bottom up (docs/architecture.md). The worker program links the first three alone.
BASE_C   := $(wildcard src/base/*.c)
TASK_C   := $(wildcard src/task/*.c)
TASK_CU  := $(wildcard src/task/*.cu)
WORKER_C := $(filter-out src/worker/main.c,$(wildcard src/worker/*.c))
WORKER_CU:= $(wildcard src/worker/*.cu)
LIB_C   := $(BASE_C) $(TASK_C) $(WORKER_C) \
           $(wildcard src/eval/*.c src/peaks/*.c src/store/*.c src/policy/*.c src/loop/*.c src/report/*.c src/data/*.c \
                    src/serve/*.c src/train/*.c)
LIB_CU  := $(TASK_CU) $(WORKER_CU) $(wildcard src/eval/*.cu)
OPS_C   := $(wildcard src/ops/*.c)
OPS_CU  := $(wildcard src/ops/*.cu)
CLI_C   := $(wildcard src/cli/*.c)
TEST_C  := $(wildcard tests/test_*.c)
GTEST_C := $(wildcard tests/gpu/test_*.c)
BENCH_C := $(wildcard bench/*.c)

LIB_O   := $(LIB_C:%.c=$(BUILD)/obj/%.o) $(LIB_CU:%.cu=$(BUILD)/obj/%.cu.o)
WRK_O   := $(BASE_C:%.c=$(BUILD)/obj/%.o) $(TASK_C:%.c=$(BUILD)/obj/%.o) \
           $(WORKER_C:%.c=$(BUILD)/obj/%.o) $(TASK_CU:%.cu=$(BUILD)/obj/%.cu.o) \
           $(WORKER_CU:%.cu=$(BUILD)/obj/%.cu.o)
LIB_PO  := $(LIB_C:%.c=$(BUILD)/obj/%.pic.o) $(LIB_CU:%.cu=$(BUILD)/obj/%.cu.o)
OPS_HO  := $(OPS_C:%.c=$(BUILD)/obj/%.pic.o)
OPS_CO  := $(OPS_CU:%.cu=$(BUILD)/obj/%.cu.o)
CLI_O   := $(CLI_C:%.c=$(BUILD)/obj/%.o)
TESTS   := $(TEST_C:tests/%.c=$(BUILD)/tests/%)
GTESTS  := $(GTEST_C:tests/gpu/%.c=$(BUILD)/tests/gpu/%)
BENCHES := $(BENCH_C:bench/%.c=$(BUILD)/bench/%)

.PHONY: all test gpu-test bench demo train-demo clean deps bundle gpu-bundle
all: $(BUILD)/.deps $(BUILD)/cudal1 $(BUILD)/cudal1-worker $(BUILD)/libcudal1.a $(BUILD)/libcudal1.so $(BUILD)/libcl1ops_host.so \
     $(BUILD)/libcl1ops_cuda.so $(BUILD)/libcl1peaks.so $(BUILD)/libcl1py.so $(BUILD)/libcl1py_rt.so \
     $(TESTS) $(GTESTS) $(BENCHES)

# Installs missing Debian packages when a header we need is absent (scripts/deps says which).
$(BUILD)/.deps: scripts/deps
	@mkdir -p $(BUILD)
	@scripts/deps --check-headers || scripts/deps
	@touch $@

$(BUILD)/obj/%.o: %.c | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.pic.o: %.c | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(BUILD)/libcudal1.a: $(LIB_O)
	@rm -f $@
	ar rcs $@ $^

# The same library for programs that load it (tools/suite_gpu.py, through ctypes: src/eval/embed.h).
$(BUILD)/libcudal1.so: $(LIB_PO)
	$(CC) -shared -o $@ $^ $(RPATH) $(LDLIBS)

$(BUILD)/libcl1ops_host.so: $(OPS_HO)
	$(CC) -shared -o $@ $^ -lm

$(BUILD)/libcl1ops_cuda.so: $(OPS_CO)
	$(NVCC) -shared $(GENCODE) -o $@ $^ -cudart shared -L$(CUDA_HOME)/lib64 \
	    -Xlinker -rpath,$(CUDA_HOME)/lib64 -lcublas -lcublasLt -lcudnn

# `cudal1 gpu peaks` only (src/eval/peaks.c dlopens it): cuBLASLt stays out of the workers.
$(BUILD)/libcl1peaks.so: $(BUILD)/obj/src/peaks/peaks_cuda.cu.o
	$(NVCC) -shared $(GENCODE) -o $@ $^ -cudart shared -L$(CUDA_HOME)/lib64 \
	    -Xlinker -rpath,$(CUDA_HOME)/lib64 -lcublasLt

# Python solutions and references (src/pysol/): a loader without Python symbols, and the part that
# calls CPython's stable ABI, built against this machine's headers and loaded under any python3.
PY_INC := $(shell python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])" 2>/dev/null)
$(BUILD)/libcl1py.so: $(BUILD)/obj/src/pysol/pysol.pic.o
	$(CC) -shared -o $@ $^ -ldl

$(BUILD)/libcl1py_rt.so: src/pysol/pysol_rt.c include/cudal1/solution.h | $(BUILD)/.deps
	@test -f "$(PY_INC)/Python.h" || { echo "python3's headers (Python.h) are missing: install \
	python3-dev (Python solutions and KernelBench-format tasks need them)"; exit 1; }
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fPIC -isystem $(PY_INC) -shared -o $@ $<

# The worker program (src/worker/main.c): base, task and worker layers only. The judge execs it for
# the reference and for every candidate, so what it links is the sandboxed process's surface.
$(BUILD)/libcl1worker.a: $(WRK_O)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/cudal1-worker: $(BUILD)/obj/src/worker/main.o $(BUILD)/libcl1worker.a
	$(CC) -o $@ $^ $(RPATH) $(WRK_LIBS)

$(BUILD)/cudal1: $(CLI_O) $(BUILD)/libcudal1.a
	$(CC) -o $@ $(CLI_O) $(BUILD)/libcudal1.a $(RPATH) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c tests/harness.h tests/eval_cases.h tests/expect.h tests/fake_llm.h $(BUILD)/libcudal1.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libcudal1.a $(RPATH) $(LDLIBS) -lcmocka -lmicrohttpd

$(BUILD)/tests/gpu/%: tests/gpu/%.c tests/harness.h tests/eval_cases.h $(BUILD)/libcudal1.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libcudal1.a $(RPATH) $(LDLIBS) -lcmocka -lmicrohttpd

# The sandbox-escape suites (CPU and GPU) share their runner.
$(BUILD)/tests/test_escapes_host $(BUILD)/tests/gpu/test_escapes_gpu: tests/escapes/escape_cases.h

$(BUILD)/bench/%: bench/%.c $(BUILD)/libcudal1.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libcudal1.a $(RPATH) $(LDLIBS)

# Every test and bench that evaluates starts worker processes: the worker program must exist.
$(TESTS) $(GTESTS) $(BENCHES): | $(BUILD)/cudal1-worker $(BUILD)/libcl1py.so $(BUILD)/libcl1py_rt.so
# test_worker runs both programs by hand
$(BUILD)/tests/test_worker $(BUILD)/tests/test_gpu_lock: $(BUILD)/cudal1
# test_corpus runs bench/corpus (and, through it, the cudal1 binary) on host manifest lines
$(BUILD)/tests/test_corpus: $(BUILD)/bench/corpus $(BUILD)/cudal1
# test_optimize and test_report run the cudal1 binary
$(BUILD)/tests/test_optimize $(BUILD)/tests/test_report $(BUILD)/tests/test_review $(BUILD)/tests/test_baselines $(BUILD)/tests/test_dataset: $(BUILD)/cudal1
# test_import runs `cudal1 import`
$(BUILD)/tests/test_import: $(BUILD)/cudal1
# test_collect runs `cudal1 collect` and `cudal1 dataset sft`
$(BUILD)/tests/test_collect: $(BUILD)/cudal1
# test_serve runs `cudal1 serve` and talks HTTP to it
$(BUILD)/tests/test_serve: $(BUILD)/cudal1
# test_train runs `cudal1 train` (which runs `cudal1 serve`) and `cudal1 report`
$(BUILD)/tests/test_train: $(BUILD)/cudal1
# the Python path: `cudal1 eval` of ModelNew candidates and `cudal1 task import`
$(BUILD)/tests/test_python_host $(BUILD)/tests/test_pytask: $(BUILD)/cudal1
# test_doctor runs `cudal1 doctor`
$(BUILD)/tests/test_doctor: $(BUILD)/cudal1

# CPU tests (CI): cmocka suites, then the PyTorch twin checks; ends with "N passed, N failed".
test: all
	@scripts/deps --python
	@scripts/run-tests $(BUILD) $(TESTS)

# Device-only tests: run on a machine with a GPU (the device tool); writes $(BUILD)/gpu-test.json.
gpu-test: all
	@scripts/run-tests --gpu $(BUILD) $(GTESTS)

bench: all
	@scripts/bench $(BUILD)

# The main job on a fresh machine: optimize 3 level-1 tasks from replayed example completions.
demo: all
	@scripts/demo $(BUILD)

# Issue 21's demo: the embedded model through the three stages on five level-1 tasks (resumable;
# DEVICE=host runs the mechanism on the CPU), then OUT/report.html and OUT/train-demo.json.
train-demo: all
	@scripts/deps --python
	@scripts/train-demo $(BUILD) $(BUILD)/train-demo

# Bundles the shared libraries the binary and the tests need beyond the C runtime and CUDA (cJSON,
# SQLite, libcurl and its TLS/HTTP stack, ...), for a machine without our -dev packages.
bundle: all
	@mkdir -p $(BUILD)/deps
	@for l in $$(ldd $(BUILD)/cudal1 $(BUILD)/tests/test_cli $$(ls $(BUILD)/tests/test_policy 2>/dev/null) \
	        | awk '$$3 ~ /^\// {print $$3}' \
	        | grep -vE '/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so|^$(CUDA_HOME)|/usr/local/cuda' | sort -u) \
	    $$(ldconfig -p | awk '/libcmocka.so.0 / {print $$4; exit}'); do \
	  [ "$$(dirname $$(realpath $$l))" = "$$(realpath $(BUILD)/deps)" ] || cp -L $$l $(BUILD)/deps/; done

# What a GPU session carries to the device (scripts/gpu-run runs over it): the programs, the op,
# peaks and Python-runtime libraries, the tests, the benchmarks and the bundled libraries.
gpu-bundle: bundle
	tar czf $(BUILD)/gpu-bundle.tgz $(BUILD)/cudal1 $(BUILD)/cudal1-worker $(BUILD)/libcudal1.so \
	    $(BUILD)/libcl1ops_host.so $(BUILD)/libcl1ops_cuda.so $(BUILD)/libcl1peaks.so \
	    $(BUILD)/libcl1py.so $(BUILD)/libcl1py_rt.so $(BUILD)/tests $(BUILD)/bench $(BUILD)/deps

clean:
	rm -rf $(BUILD)

# every object's and every test's and bench's header dependencies (a test binary rebuilt when
# tests/expect.h changes: a stale one ran old expectations on the H200)
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
