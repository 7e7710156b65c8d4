package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// SampleCPU reads the counters of every host of hosts, whose own processes
// are own's (OwnDatabase, OwnAgent). It is best effort: a host that
// cannot be read is left out, and what reads the readings says so.
func SampleCPU(ctx context.Context, r provision.Runner, hosts []infra.Host, own string) map[string]hostcpu.Sample {
	out, _ := provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (*hostcpu.Sample, error) {
		script, err := CPUScript(h, own, 1, 1)
		if err != nil {
			return nil, err
		}
		res, err := r.Run(ctx, h, script, provision.Step("cpu"))
		if err != nil || res.ExitCode != 0 {
			return nil, err
		}
		s, err := ParseCPU(res.Stdout)
		if err != nil {
			return nil, err
		}
		return &s, nil
	})
	m := map[string]hostcpu.Sample{}
	for i, s := range out {
		if s != nil {
			m[hosts[i].Name] = *s
		}
	}
	return m
}

// ParseCPU reads what CPUScript prints.
func ParseCPU(out []byte) (hostcpu.Sample, error) {
	var s hostcpu.Sample
	d := json.NewDecoder(bytes.NewReader(out))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return s, fmt.Errorf("cpu reading %q: %w", out, err)
	}
	return s, s.Check()
}

// StreamCPU reads the counters of every host of hosts every seconds, from
// one session per host, until ctx is done or max readings were taken,
// handing each reading to fn as it comes (fn is called from one goroutine
// per host). A host that cannot be read is left out.
func StreamCPU(ctx context.Context, r provision.Runner, hosts []infra.Host, own string, every, max int, fn func(host string, s hostcpu.Sample)) {
	_, _ = provision.Parallel(ctx, hosts, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (struct{}, error) {
		script, err := CPUScript(h, own, max, every)
		if err != nil {
			return struct{}{}, err
		}
		lw := &provision.LineWriter{Fn: func(line string) {
			if s, err := ParseCPU([]byte(line)); err == nil {
				fn(h.Name, s)
			}
		}}
		_, err = r.Run(ctx, h, script, provision.Step("cpu-stream"), provision.Output(lw, io.Discard))
		lw.Flush()
		return struct{}{}, err
	})
}
