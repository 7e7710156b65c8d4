# ybbench — see README.md. Every target works on a fresh Debian 12 machine
# after scripts/setup.sh (which `make test` and `make demo` run themselves).

SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
export CHECKPOINT_DISABLE := 1

.PHONY: build test testenv testenv-down test-unit test-integration test-e2e bench lint demo setup clean

build: ## the agent (static) and the orchestrator
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ybload ./cmd/ybload
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ybbench ./cmd/ybbench

setup: ## install what the tests and tools need with apt (Terraform comes with make testenv); idempotent
	scripts/setup.sh

testenv: ## bring up the shared test servers, endpoints in .testenv/endpoints.json
	scripts/testenv/up.sh

testenv-down:
	scripts/testenv/down.sh

test: setup testenv ## everything the README promises: unit, integration, end to end
	scripts/test-tiers.sh all

test-unit:
	scripts/test-tiers.sh unit

test-integration: testenv
	scripts/test-tiers.sh integration

test-e2e: testenv
	scripts/test-tiers.sh e2e

bench: setup testenv build ## side-by-side benchmarks (figures, not pass/fail); BENCH_ARGS="-only sysbench" picks sections
	scripts/bench/run.sh $(BENCH_ARGS)

lint: ## formatting and vet, and terraform fmt and tflint of the modules
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags integration ./...
	$(GO) vet -tags e2e ./...
	scripts/testenv/tools.sh up .testenv >/dev/null
	CHECKPOINT_DISABLE=1 .testenv/bin/terraform fmt -check -recursive terraform/
	for m in terraform/*/; do .testenv/bin/tflint --chdir "$$m" --format compact || exit 1; done

demo: setup build ## the main job on an embedded default: the whole pipeline on a local cluster
	scripts/testenv/tools.sh up .testenv >/dev/null
	YBBENCH_TERRAFORM=$(CURDIR)/.testenv/bin/terraform bin/ybbench run --local --quick

clean:
	rm -rf bin
