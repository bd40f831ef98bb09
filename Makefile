# LeanCaffe: thin wrapper over the CMake build (build/).
#   make demo   install deps, build, train LeNet on Fashion-MNIST, print results
#   make test   install deps, build, run the whole test suite
#   make test-asan  the whole suite under ASan + UBSan (clang, build_asan/)
#   make fuzz   every fuzz target for FUZZ_SECONDS (default 60) each
#   make bench  LeanCaffe against PyTorch on the CPU, interleaved runs; it
#               refuses to start on a busy machine (bench/run_bench.sh)
#   make gpu-bundle  GPU tests and their libraries in .gpu/ for a GPU machine,
#               where scripts/gpu_check.sh runs every GPU test and benchmark
#   make test-gpu    the gpu-labelled tests of the local build (they skip,
#               saying why, where there is no GPU)
JOBS ?= 2
BUILD_DIR ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps build test demo bench bench-memory bench-recompute clean \
	test-asan fuzz gpu-bundle test-gpu

all: build

deps:
	bash scripts/install_deps.sh

$(BUILD_DIR)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/Makefile
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest -j $(JOBS) --output-on-failure --timeout 900

# ASAN_TESTS: a ctest -R regex to run part of the suite (CI runs a part).
test-asan: deps
	JOBS=$(JOBS) bash scripts/asan_build.sh
	cd build_asan && ctest -j $(JOBS) --output-on-failure --timeout 2400 \
		$(if $(ASAN_TESTS),-R '$(ASAN_TESTS)',) $(if $(ASAN_EXCLUDE),-E '$(ASAN_EXCLUDE)',)

fuzz: deps
	JOBS=$(JOBS) bash scripts/fuzz.sh

gpu-bundle: deps
	JOBS=$(JOBS) bash scripts/gpu_bundle.sh

test-gpu: build
	cd $(BUILD_DIR) && ctest -L gpu --output-on-failure

demo: build
	bash scripts/demo.sh

bench: build
	bash bench/run_bench.sh

bench-memory: build
	bash bench/memory/run_memory_bench.sh

bench-recompute: build
	bash bench/recompute/run_recompute_bench.sh

clean:
	rm -rf $(BUILD_DIR) build_asan build_gpu .gpu
