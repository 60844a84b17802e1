# rocekit: one entry point for dependencies, tests and the real-kernel lab.
# Everything runs as root on Debian 12 (the lab needs debootstrap and QEMU).

export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
LAB := $(GO) run ./internal/lab/cmd/lab
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck
# Debian packages the tests and the lab need: QEMU and debootstrap for the
# guests, netperf (non-free) and iproute2/ethtool for the host root tests,
# xmllint and python3-junitparser for the JUnit XML checks.
APT_PACKAGES := qemu-system-x86 debootstrap cpio netperf ethtool iproute2 kmod openssh-server nftables iptables chromium libxml2-utils python3-junitparser

.PHONY: all deps test fuzz lab-image lab-test fixtures check demo fmt

all: check

## deps: install Debian packages (enabling non-free for netperf) and Go modules
deps:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
		if [ -f /etc/apt/sources.list.d/debian.sources ] && ! grep -q 'non-free' /etc/apt/sources.list.d/debian.sources; then \
			sed -i 's/^Components: main$$/Components: main non-free/' /etc/apt/sources.list.d/debian.sources; fi; \
		if [ -f /etc/apt/sources.list ] && grep -q '^deb .* main$$' /etc/apt/sources.list; then \
			sed -i 's/^\(deb .* main\)$$/\1 non-free/' /etc/apt/sources.list; fi; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(APT_PACKAGES); \
	fi
	$(GO) mod download
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## test: vet, format check, unit tests and host root tests (guest-booting tests run when images exist)
test:
	$(GO) vet ./...
	$(GO) vet -tags lab ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@test -x $(STATICCHECK) || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) -tags lab ./...
	$(GO) test -count=1 -timeout 30m ./...

## fuzz: run every fuzz target for FUZZTIME executions (seeds always run in make test)
FUZZTIME ?= 30000x
fuzz:
	FUZZTIME=$(FUZZTIME) .ci/fuzz

## lab-image: build (or reuse) the bookworm and trixie guest images
lab-image:
	$(LAB) image -prune

## lab-test: every package's TestLab* tests inside both guests, and TestGuests* (multi-guest) on the host per guest image
lab-test:
	$(LAB) test

## fixtures: capture real tool outputs in both guests into rocekittest/captures/
fixtures:
	$(LAB) fixtures -out rocekittest/captures

## check: the whole test suite on a fresh machine (what .ci/run runs)
check: deps lab-image test fuzz lab-test

## demo: the main job: two lab guests joined by a link, the examples in two-host mode over SSH, results in demo-out/
demo: deps lab-image
	$(LAB) demo

fmt:
	gofmt -w .
