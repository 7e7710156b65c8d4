package ycsb

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// bannerBinding is the null binding with a per-thread banner.
type bannerBinding struct{ NullBinding }

func (bannerBinding) ThreadBanner() []string {
	return []string{"Adding shard node URL: u1", "Using shards: 1"}
}

// The lines YCSB's bindings and the fork's workload print on stdout: a
// binding's banner once per thread that runs (three here), and with
// dataintegrity the fork's "Data integrity is enabled.", before the
// report.
func TestStdoutBannerPerThreadAndDataIntegrity(t *testing.T) {
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Version: "test", Bindings: map[string]BindingFactory{
		"banner": func(*Props, *slog.Logger) (Binding, error) { return bannerBinding{}, nil }}}
	code := Main(context.Background(), []string{"run", "banner", "-P", "workloads/workloadc", "-p", "recordcount=10",
		"-p", "operationcount=30", "-threads", "3", "-p", "dataintegrity=true"}, env)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	s := out.String()
	if n := strings.Count(s, "Adding shard node URL: u1\nUsing shards: 1\n"); n != 3 {
		t.Errorf("banner printed %d times, want once per thread (3):\n%s", n, s)
	}
	di := strings.Index(s, "Data integrity is enabled.\n")
	if di < 0 || strings.Count(s, "Data integrity is enabled.") != 1 || di > strings.Index(s, "Adding shard") || di > strings.Index(s, "[OVERALL]") {
		t.Errorf("want one data-integrity line before the banners and the report:\n%s", s)
	}
}
