#!/usr/bin/env python3
"""Reduces a copy of terraform-provider-aws's source to the services named.

    provider-prune.py <source-copy> <service> [<service> ...]

Two generated files change, nothing else (scripts/testenv/provider-builds.sh
says why the result cannot differ for the modules):

  internal/provider/sdkv2/service_packages_gen.go  the services the provider
      registers: only those named stay.
  internal/conns/awsclient_gen.go  one SDK client accessor per service: only
      those that some remaining non-test Go file calls stay, with their
      imports. A call this misses fails the build; it cannot go unnoticed.
"""
import os
import re
import sys

REPO = "github.com/hashicorp/terraform-provider-aws"


def prune_service_list(src, keep):
    path = os.path.join(src, "internal/provider/sdkv2/service_packages_gen.go")
    text = open(path).read()
    imp = re.compile(r'\t"' + re.escape(REPO) + r'/internal/service/([a-z0-9]+)"\n')
    reg = re.compile(r"\t\t([a-z0-9]+)\.ServicePackage\(ctx\),\n")
    found = set(imp.findall(text))
    missing = keep - found
    if missing:
        sys.exit(f"provider-prune: no service package {sorted(missing)} in {path}")
    text = imp.sub(lambda m: m.group(0) if m.group(1) in keep else "", text)
    text = reg.sub(lambda m: m.group(0) if m.group(1) in keep else "", text)
    if len(reg.findall(text)) != len(keep):
        sys.exit(f"provider-prune: {path} does not register each of {sorted(keep)} once")
    open(path, "w").write(text)


def kept_go_files(src, keep):
    """Non-test Go files outside internal/service, and those of the kept
    services and of the services they import (transitively)."""
    service_root = os.path.join(src, "internal", "service")
    imp = re.compile(r'"' + re.escape(REPO) + r'/internal/service/([a-z0-9]+)[/"]')
    services, todo = set(), list(keep)
    while todo:
        s = todo.pop()
        if s in services:
            continue
        services.add(s)
        for root, _, names in os.walk(os.path.join(service_root, s)):
            for n in names:
                if n.endswith(".go") and not n.endswith("_test.go"):
                    todo.extend(imp.findall(open(os.path.join(root, n)).read()))
    for root, dirs, names in os.walk(src):
        if root == service_root:
            dirs[:] = [d for d in dirs if d in services]
        for n in names:
            if n.endswith(".go") and not n.endswith("_test.go"):
                yield os.path.join(root, n)


def prune_accessors(src, keep):
    path = os.path.join(src, "internal/conns/awsclient_gen.go")
    text = open(path).read()
    acc = re.compile(r"func \(c \*AWSClient\) (\w+)\(ctx context\.Context\) \*(\w+)\.Client \{\n.*?\n\}\n\n?", re.S)
    called = set()
    call = re.compile(r"\.(\w+Client)\(")
    for f in kept_go_files(src, keep):
        if f == path:
            continue
        called.update(call.findall(open(f, errors="replace").read()))
    kept = []

    def one(m):
        if m.group(1) in called:
            kept.append(m.group(1))
            return m.group(0)
        return ""

    text = acc.sub(one, text)
    if not kept:
        sys.exit(f"provider-prune: no accessor of {path} is called; the pattern no longer matches the source")
    body = text[text.index("\n)\n", text.index("import (")):]
    sdk = re.compile(r'\t"github.com/aws/aws-sdk-go-v2/service/([a-z0-9]+)"\n')
    text = sdk.sub(lambda m: m.group(0) if re.search(r"\b" + m.group(1) + r"\.", body) else "", text)
    open(path, "w").write(text)
    print(f"provider-prune: services {sorted(keep)}; client accessors kept: {', '.join(sorted(kept))}", file=sys.stderr)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, keep = sys.argv[1], set(sys.argv[2:])
    prune_service_list(src, keep)
    prune_accessors(src, keep)


if __name__ == "__main__":
    main()
